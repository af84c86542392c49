//! Aggregates beyond a count: `count`, `sum`, `min`, `max` and `avg` over a value column of
//! `i64` or `f64`, and the per-group state each kernel keeps for them.
//!
//! Every kernel is generic over a [`State`], monomorphized per state, so the count-only path
//! is the code it was (a `u64` per group) and a query pays only for the state it asks for:
//! 8 bytes a group for `count`, 24 for `sum` of `i64`, 40 for `sum,min,max` of `i64`.
//!
//! Semantics, the same in every kernel and in [`super::reference`]:
//! * **Integer sums widen**: a group's `i64` values are summed exactly in 128 bits (two words,
//!   add with carry), which no count of rows below 2^64 can overflow; totals over groups are
//!   exact `i128`. Nothing wraps.
//! * **Float sums** add a group's values in row order, starting from `+0.0`, in `f64`: every
//!   kernel keeps each group's rows in input order (scatters are stable, partitions are read
//!   chunk by chunk), so a group's sum is bit-for-bit the same in every kernel and the
//!   reference, and kernels are checked exactly. Against the exact sum (or another engine,
//!   which adds in its own order) a group's sum is within the recursive-summation bound
//!   `(n - 1) * f64::EPSILON * sum(|v|)` for its `n` rows (a test holds it to that bound);
//!   compare another engine's float totals within that bound, not bit for bit.
//!   NaN and infinities follow IEEE 754: a NaN value makes its group's sum and avg NaN, `+inf`
//!   and `-inf` in one group make it NaN.
//! * **Float min and max** follow IEEE 754's total order (`f64::total_cmp`): `-NaN < -inf <
//!   ... < -0.0 < +0.0 < ... < +inf < +NaN`. So they are exact and order-independent: a
//!   (positive) NaN is the max of its group and never its min unless all its values are NaN,
//!   and `-0.0` is below `+0.0`.
//! * **avg** is `sum / count` in `f64` (an integer sum rounded once to `f64` first).
//! * **Totals** (`runs[].totals`) are the sums over all groups of each aggregate's per-group
//!   value: exact in `i128` for integers, and for floats the exact sum of the per-group `f64`
//!   results ([`ExactSum`], order-independent) rounded to `f64` by one fixed procedure, so
//!   kernels agree on them bit for bit.

use super::result::Groups;

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

/// The type of a value column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    I64,
    F64,
}

impl ValueType {
    pub fn name(self) -> &'static str {
        match self {
            Self::I64 => "i64",
            Self::F64 => "f64",
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "i64" | "int64" => Ok(Self::I64),
            "f64" | "float64" | "double" => Ok(Self::F64),
            other => Err(format!("unknown value type '{other}': expected i64 or f64")),
        }
    }
}

/// The value column of a query, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Values<'a> {
    #[default]
    None,
    I64(&'a [i64]),
    F64(&'a [f64]),
}

impl Values<'_> {
    pub fn rows(&self) -> Option<usize> {
        match self {
            Self::None => None,
            Self::I64(v) => Some(v.len()),
            Self::F64(v) => Some(v.len()),
        }
    }

    pub fn value_type(&self) -> Option<ValueType> {
        match self {
            Self::None => None,
            Self::I64(_) => Some(ValueType::I64),
            Self::F64(_) => Some(ValueType::F64),
        }
    }
}

/// A value column held in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueColumn {
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl ValueColumn {
    pub fn values(&self) -> Values<'_> {
        match self {
            Self::I64(v) => Values::I64(v),
            Self::F64(v) => Values::F64(v),
        }
    }

    pub fn value_type(&self) -> ValueType {
        match self {
            Self::I64(_) => ValueType::I64,
            Self::F64(_) => ValueType::F64,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Self::I64(v) => v.len(),
            Self::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A value type the states can aggregate.
pub(crate) trait Num: Copy + Send + Sync + PartialEq + core::fmt::Debug + 'static {
    /// The running sum: two words of a 128-bit integer, or an `f64`.
    type Sum: Copy + Send + Sync + PartialEq + core::fmt::Debug + Default + 'static;
    /// All-zero bytes: 0 or +0.0.
    const ZERO: Self;
    const ZERO_SUM: Self::Sum;
    const TYPE: ValueType;
    fn add(sum: &mut Self::Sum, v: Self);
    /// `a` before `b` in the order min and max use.
    fn below(a: Self, b: Self) -> bool;
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    /// Adds a group's sum (and with `avg` its average) to the result's totals and checksum.
    fn fold_sum(groups: &mut Groups, key: i64, count: u64, sum: Self::Sum, avg: bool);
    fn fold_min_max(groups: &mut Groups, key: i64, min: Self, max: Self);
}

impl Num for i64 {
    /// Low and high words of the two's complement 128-bit sum.
    type Sum = [u64; 2];
    const ZERO: i64 = 0;
    const TYPE: ValueType = ValueType::I64;
    const ZERO_SUM: [u64; 2] = [0, 0];

    #[inline(always)]
    fn add(sum: &mut [u64; 2], v: i64) {
        let (lo, carry) = sum[0].overflowing_add(v as u64);
        sum[0] = lo;
        // The high word of `v` sign-extended is 0 or all ones.
        sum[1] = sum[1].wrapping_add((v >> 63) as u64).wrapping_add(u64::from(carry));
    }

    #[inline(always)]
    fn below(a: i64, b: i64) -> bool {
        a < b
    }

    fn to_bits(self) -> u64 {
        self as u64
    }

    fn from_bits(bits: u64) -> i64 {
        bits as i64
    }

    fn fold_sum(groups: &mut Groups, key: i64, count: u64, sum: [u64; 2], avg: bool) {
        let exact = (i128::from(sum[1] as i64) << 64) | i128::from(sum[0]);
        groups.add_int(Field::Sum, key, exact);
        if avg {
            groups.add_avg(exact as f64 / count as f64);
        }
    }

    fn fold_min_max(groups: &mut Groups, key: i64, min: i64, max: i64) {
        groups.add_int(Field::Min, key, i128::from(min));
        groups.add_int(Field::Max, key, i128::from(max));
    }
}

impl Num for f64 {
    type Sum = f64;
    const ZERO: f64 = 0.0;
    const TYPE: ValueType = ValueType::F64;
    const ZERO_SUM: f64 = 0.0;

    #[inline(always)]
    fn add(sum: &mut f64, v: f64) {
        *sum += v;
    }

    #[inline(always)]
    fn below(a: f64, b: f64) -> bool {
        a.total_cmp(&b).is_lt()
    }

    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }

    fn from_bits(bits: u64) -> f64 {
        f64::from_bits(bits)
    }

    fn fold_sum(groups: &mut Groups, key: i64, count: u64, sum: f64, avg: bool) {
        groups.add_float(Field::Sum, key, sum);
        if avg {
            groups.add_avg(sum / count as f64);
        }
    }

    fn fold_min_max(groups: &mut Groups, key: i64, min: f64, max: f64) {
        groups.add_float(Field::Min, key, min);
        groups.add_float(Field::Max, key, max);
    }
}

/// An aggregate a group's state holds besides its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Sum = 1,
    Min = 2,
    Max = 3,
}

/// One group's aggregate state. All-zero bytes ([`State::EMPTY`]) is a group with no rows:
/// tables start and are emptied that way, and a state's first row replaces min and max by
/// itself (a select on the count, not a branch).
pub(crate) trait State: Copy + Send + Sync + PartialEq + core::fmt::Debug + 'static {
    /// The value column's type; `()` for a count.
    type Value: Copy + Send + Sync + 'static;
    /// Words a row takes when scattered: its key, then its value's bits if it has one.
    const WORDS: usize;
    /// The value column's type, if the state reads one.
    const VALUE_TYPE: Option<ValueType>;
    const EMPTY: Self;
    fn count(&self) -> u64;
    /// Adds one row with value `v`.
    fn update(&mut self, v: Self::Value);
    fn value_bits(v: Self::Value) -> u64;
    fn value_from_bits(bits: u64) -> Self::Value;
    /// Hands the complete group to `groups`.
    fn fold(&self, key: i64, groups: &mut Groups);
}

/// `count(*)` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Count(pub u64);

impl State for Count {
    type Value = ();
    const WORDS: usize = 1;
    const VALUE_TYPE: Option<ValueType> = None;
    const EMPTY: Self = Self(0);

    #[inline(always)]
    fn count(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn update(&mut self, _: ()) {
        self.0 += 1;
    }
    #[inline(always)]
    fn value_bits(_: ()) -> u64 {
        0
    }
    #[inline(always)]
    fn value_from_bits(_: u64) {}
    #[inline(always)]
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.0);
    }
}

/// count and sum (and so avg).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
/// `AVG`: whether the query asks for avg, whose total (an exact float sum per group, on top of
/// an `i128`-to-`f64` conversion and a division) is worth skipping when it does not:
/// `memwall groupby --preset clickbench --kernel tuned --runs 5 --agg sum --phases` read emit
/// 3.64 ns/row and 13.65 ns/row in all with it, 2.21 and 12.38 without (Zen 4 guest, load ~3.7).
pub(crate) struct Sum<V: Num, const AVG: bool = false> {
    count: u64,
    sum: V::Sum,
}

impl<V: Num, const AVG: bool> State for Sum<V, AVG> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, sum: V::ZERO_SUM };

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: V) {
        self.count += 1;
        V::add(&mut self.sum, v);
    }
    #[inline(always)]
    fn value_bits(v: V) -> u64 {
        v.to_bits()
    }
    #[inline(always)]
    fn value_from_bits(bits: u64) -> V {
        V::from_bits(bits)
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_sum(groups, key, self.count, self.sum, AVG);
    }
}

/// count, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MinMax<V: Num> {
    count: u64,
    min: V,
    max: V,
}

impl<V: Num> MinMax<V> {
    #[inline(always)]
    fn update_min_max(count: u64, min: &mut V, max: &mut V, v: V) {
        // The first row (count still 0) replaces the zero bits of an empty state.
        if count == 0 || V::below(v, *min) {
            *min = v;
        }
        if count == 0 || V::below(*max, v) {
            *max = v;
        }
    }
}

impl<V: Num> State for MinMax<V> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, min: V::ZERO, max: V::ZERO };

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: V) {
        Self::update_min_max(self.count, &mut self.min, &mut self.max, v);
        self.count += 1;
    }
    #[inline(always)]
    fn value_bits(v: V) -> u64 {
        v.to_bits()
    }
    #[inline(always)]
    fn value_from_bits(bits: u64) -> V {
        V::from_bits(bits)
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_min_max(groups, key, self.min, self.max);
    }
}

/// count, sum, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Full<V: Num, const AVG: bool = false> {
    count: u64,
    sum: V::Sum,
    min: V,
    max: V,
}

impl<V: Num, const AVG: bool> State for Full<V, AVG> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, sum: V::ZERO_SUM, min: V::ZERO, max: V::ZERO };

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: V) {
        MinMax::update_min_max(self.count, &mut self.min, &mut self.max, v);
        self.count += 1;
        V::add(&mut self.sum, v);
    }
    #[inline(always)]
    fn value_bits(v: V) -> u64 {
        v.to_bits()
    }
    #[inline(always)]
    fn value_from_bits(bits: u64) -> V {
        V::from_bits(bits)
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_sum(groups, key, self.count, self.sum, AVG);
        V::fold_min_max(groups, key, self.min, self.max);
    }
}

/// The exact sum of any number of `f64`s, independent of the order they are added in: a
/// fixed-point accumulator spanning every finite `f64` (2^-1074 to 2^1024) in 32-bit chunks,
/// each held in an `i64` so that carries can wait ([`ExactSum::LAZY_ADDS`] adds). NaN and the
/// infinities are counted apart. Totals over millions of groups use it, so that kernels that
/// find their groups in different orders report bit-identical float totals.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ExactSum {
    chunks: [i64; CHUNKS],
    pending: u32,
    nan: u64,
    pos_inf: u64,
    neg_inf: u64,
}

/// 32-bit chunks from 2^-1074: the largest finite `f64` spans up to bit 2098, plus headroom.
const CHUNKS: usize = 68;

impl Default for ExactSum {
    fn default() -> Self {
        Self { chunks: [0; CHUNKS], pending: 0, nan: 0, pos_inf: 0, neg_inf: 0 }
    }
}

impl core::fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ExactSum({})", self.value())
    }
}

impl ExactSum {
    /// Adds before the chunks must be carried: each add puts less than 2^32 into a chunk.
    const LAZY_ADDS: u32 = 1 << 30;

    pub(crate) fn add(&mut self, x: f64) {
        if x.is_nan() {
            self.nan += 1;
            return;
        }
        if x.is_infinite() {
            if x > 0.0 {
                self.pos_inf += 1
            } else {
                self.neg_inf += 1
            }
            return;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as usize;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa * 2^(at - 1074).
        let (mantissa, at) = if exponent == 0 { (fraction, 0) } else { (fraction | 1 << 52, exponent - 1) };
        let wide = u128::from(mantissa) << (at % 32);
        let sign = if x.is_sign_negative() { -1 } else { 1 };
        let i = at / 32;
        self.chunks[i] += sign * (wide & 0xffff_ffff) as i64;
        self.chunks[i + 1] += sign * ((wide >> 32) & 0xffff_ffff) as i64;
        self.chunks[i + 2] += sign * (wide >> 64) as i64;
        self.pending += 1;
        if self.pending == Self::LAZY_ADDS {
            self.carry();
        }
    }

    /// Moves every chunk's excess into the next: chunks below the top end in `0..2^32`, a
    /// canonical form, so equal sums have equal chunks.
    fn carry(&mut self) {
        for i in 0..CHUNKS - 1 {
            let over = self.chunks[i] >> 32;
            self.chunks[i] -= over << 32;
            self.chunks[i + 1] += over;
        }
        self.pending = 0;
    }

    pub(crate) fn merge(&mut self, other: &ExactSum) {
        let mut other = other.clone();
        other.carry();
        self.carry();
        for (a, b) in self.chunks.iter_mut().zip(other.chunks) {
            *a += b;
        }
        self.pending = 1;
        self.nan += other.nan;
        self.pos_inf += other.pos_inf;
        self.neg_inf += other.neg_inf;
    }

    /// The sum as an `f64`: NaN if a NaN was added or both infinities were, else an infinity
    /// if one was, else the exact sum rounded (within a few ulp, by one fixed procedure on the
    /// canonical chunks, so equal sums give equal bits).
    pub(crate) fn value(&self) -> f64 {
        if self.nan > 0 || (self.pos_inf > 0 && self.neg_inf > 0) {
            return f64::NAN;
        }
        if self.pos_inf > 0 {
            return f64::INFINITY;
        }
        if self.neg_inf > 0 {
            return f64::NEG_INFINITY;
        }
        let mut canonical = self.clone();
        canonical.carry();
        // Two's complement chunks of a negative sum would add up huge terms of both signs: take
        // the magnitude, then the sign.
        let negative = canonical.chunks[CHUNKS - 1] < 0;
        if negative {
            canonical.chunks.iter_mut().for_each(|c| *c = -*c);
            canonical.carry();
        }
        // Largest chunks last would lose the small ones; smallest first keeps what f64 can.
        // Empty chunks are skipped: 0 times the infinity of a scale past f64 would be NaN.
        let magnitude = canonical
            .chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .fold(0.0, |sum: f64, (i, &c)| sum + c as f64 * pow2(32 * i as i32 - 1074));
        if negative { -magnitude } else { magnitude }
    }
}

/// 2^n as an `f64`, exactly where it is representable (0 below, infinity above).
fn pow2(n: i32) -> f64 {
    if n > 1023 {
        f64::INFINITY
    } else if n >= -1022 {
        f64::from_bits(((n + 1023) as u64) << 52)
    } else if n >= -1074 {
        f64::from_bits(1 << (n + 1074))
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_parse_and_name() {
        let all = Aggregates::parse("avg, count,SUM,min,max,sum").unwrap();
        assert_eq!(all.names(), ["count", "sum", "min", "max", "avg"]);
        assert_eq!(all.kind(), StateKind::Full);
        assert_eq!(Aggregates::parse("count").unwrap(), Aggregates::COUNT);
        assert!(!Aggregates::COUNT.needs_values());
        assert_eq!(Aggregates::parse("avg").unwrap().kind(), StateKind::Sum);
        assert_eq!(Aggregates::parse("max,count").unwrap().kind(), StateKind::MinMax);
        assert!(Aggregates::parse("count,median").unwrap_err().contains("median"));
        assert!(Aggregates::parse("").is_err());
        assert_eq!(ValueType::parse("F64"), Ok(ValueType::F64));
        assert!(ValueType::parse("u8").is_err());
    }

    #[test]
    fn state_sizes_are_what_they_claim() {
        assert_eq!(size_of::<Count>() as u64, Aggregates::COUNT.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Sum<i64>>() as u64, Aggregates::SUM.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Sum<f64>>() as u64, Aggregates::SUM.state_bytes(ValueType::F64));
        assert_eq!(size_of::<MinMax<i64>>() as u64, Aggregates::MIN.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Full<i64>>() as u64, Aggregates::parse("sum,min").unwrap().state_bytes(ValueType::I64));
        assert_eq!(size_of::<Full<f64>>() as u64, Aggregates::parse("avg,max").unwrap().state_bytes(ValueType::F64));
    }

    #[test]
    fn integer_sums_widen_past_i64() {
        let mut sum = [0u64; 2];
        for v in [i64::MAX, i64::MAX, 1, i64::MIN, -5] {
            i64::add(&mut sum, v);
        }
        let exact = (i128::from(sum[1] as i64) << 64) | i128::from(sum[0]);
        assert_eq!(exact, 2 * i128::from(i64::MAX) + 1 + i128::from(i64::MIN) - 5);
        let mut low = [0u64; 2];
        (0..3).for_each(|_| i64::add(&mut low, i64::MIN));
        assert_eq!((i128::from(low[1] as i64) << 64) | i128::from(low[0]), 3 * i128::from(i64::MIN));
    }

    #[test]
    fn float_min_max_follow_the_total_order() {
        let mut state = MinMax::<f64>::EMPTY;
        for v in [0.0, f64::NAN, -0.0, 3.5, f64::NEG_INFINITY] {
            state.update(v);
        }
        assert!(state.max.is_nan());
        assert_eq!(state.min, f64::NEG_INFINITY);
        let mut zeros = MinMax::<f64>::EMPTY;
        [0.0, -0.0].into_iter().for_each(|v| zeros.update(v));
        assert!(zeros.min.is_sign_negative() && zeros.max.is_sign_positive());
        let mut ints = Full::<i64>::EMPTY;
        [5, i64::MIN, i64::MAX].into_iter().for_each(|v| ints.update(v));
        assert_eq!((ints.min, ints.max, ints.count), (i64::MIN, i64::MAX, 3));
    }

    #[test]
    fn exact_sums_ignore_order_and_keep_tiny_terms() {
        let values = [1e308, 1.0, -1e308, 5e-324, f64::MIN_POSITIVE, -3.25, 1e-300, 7.0];
        let mut forward = ExactSum::default();
        values.iter().for_each(|&v| forward.add(v));
        let mut backward = ExactSum::default();
        values.iter().rev().for_each(|&v| backward.add(v));
        assert_eq!(forward.value().to_bits(), backward.value().to_bits());
        // Naive addition loses the 1.0 to 1e308; the exact sum does not.
        assert_eq!(forward.value(), 1.0 - 3.25 + 7.0 + 1e-300);
        let mut split = ExactSum::default();
        let mut rest = ExactSum::default();
        values[..3].iter().for_each(|&v| split.add(v));
        values[3..].iter().for_each(|&v| rest.add(v));
        split.merge(&rest);
        assert_eq!(split.value().to_bits(), forward.value().to_bits());
        let mut special = ExactSum::default();
        special.add(f64::INFINITY);
        assert_eq!(special.value(), f64::INFINITY);
        special.add(f64::NEG_INFINITY);
        assert!(special.value().is_nan());
        assert_eq!(ExactSum::default().value(), 0.0);
        let mut max = ExactSum::default();
        max.add(f64::MAX);
        max.add(f64::MAX);
        assert_eq!(max.value(), f64::INFINITY, "beyond f64: rounds to infinity");
    }

    #[test]
    fn a_row_order_float_sum_stays_within_the_stated_bound() {
        // Magnitudes 1e-3 to 1e12, both signs: the f64 sum in row order against the exact one.
        let mut rng = fastrand::Rng::with_seed(12);
        for n in [10usize, 1000, 100_000] {
            let values: Vec<f64> = (0..n).map(|_| (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..=12))).collect();
            let mut state = Sum::<f64>::EMPTY;
            let mut exact = ExactSum::default();
            values.iter().for_each(|&v| {
                state.update(v);
                exact.add(v);
            });
            let bound = (n - 1) as f64 * f64::EPSILON * values.iter().map(|v| v.abs()).sum::<f64>();
            assert!((state.sum - exact.value()).abs() <= bound, "{n}: {} vs {}", state.sum, exact.value());
        }
    }
}
