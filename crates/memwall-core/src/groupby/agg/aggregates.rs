//! What a query asks for: its aggregates, the state a group needs for them, and the fields a
//! group's result holds besides its count.

use super::column::ValueType;

/// Which aggregates a query asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Aggregates(u8);

impl Default for Aggregates {
    fn default() -> Self {
        Self::COUNT
    }
}

impl Aggregates {
    pub const COUNT: Self = Self(1);
    pub const SUM: Self = Self(2);
    pub const MIN: Self = Self(4);
    pub const MAX: Self = Self(8);
    pub const AVG: Self = Self(16);
    const NAMED: [(Self, &'static str); 5] =
        [(Self::COUNT, "count"), (Self::SUM, "sum"), (Self::MIN, "min"), (Self::MAX, "max"), (Self::AVG, "avg")];

    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// A comma list of `count`, `sum`, `min`, `max`, `avg` (any order, repeats ignored).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut all = Self(0);
        for name in text.split(',').map(str::trim) {
            let (one, _) = Self::NAMED.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).ok_or_else(|| {
                format!("unknown aggregate '{name}': expected a comma list of count, sum, min, max, avg")
            })?;
            all = all.union(*one);
        }
        Ok(all)
    }

    /// The aggregates by name, in a fixed order.
    pub fn names(self) -> Vec<&'static str> {
        Self::NAMED.iter().filter(|(a, _)| self.contains(*a)).map(|(_, n)| *n).collect()
    }

    /// `count,sum`, as parsed.
    pub fn describe(self) -> String {
        self.names().join(",")
    }

    /// Whether any aggregate reads the value column.
    pub fn needs_values(self) -> bool {
        self.0 & !Self::COUNT.0 != 0
    }

    /// The smallest state that holds these aggregates.
    pub(crate) fn kind(self) -> StateKind {
        let sum = self.contains(Self::SUM) || self.contains(Self::AVG);
        let minmax = self.contains(Self::MIN) || self.contains(Self::MAX);
        match (sum, minmax) {
            (false, false) => StateKind::Count,
            (true, false) => StateKind::Sum,
            (false, true) => StateKind::MinMax,
            (true, true) => StateKind::Full,
        }
    }

    /// Bytes of a row the partitioning kernels move: its key, and its value when an aggregate
    /// reads one.
    pub fn row_bytes(self) -> u64 {
        if self.needs_values() { 16 } else { 8 }
    }

    /// Bytes of aggregate state a group takes in the flat tables, for a value column of `value`
    /// (the key's 8 bytes not included): 8 for a count, up to 40 for `sum,min,max` of `i64`.
    pub fn state_bytes(self, value: ValueType) -> u64 {
        match (self.kind(), value) {
            (StateKind::Count, _) => 8,
            (StateKind::Sum, ValueType::I64) => 24,
            (StateKind::Sum, ValueType::F64) => 16,
            (StateKind::MinMax, _) => 24,
            (StateKind::Full, ValueType::I64) => 40,
            (StateKind::Full, ValueType::F64) => 32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateKind {
    Count,
    Sum,
    MinMax,
    Full,
}

/// An aggregate a group's state holds besides its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Sum = 1,
    Min = 2,
    Max = 3,
}
