//! The per-group states every kernel is generic over: a count, a sum, min and max, all of them.

use super::*;

/// A value type the states can aggregate.
pub(crate) trait Num: RowValue + PartialEq + core::fmt::Debug + 'static {
    /// The running sum: two words of a 128-bit integer, or an `f64`.
    type Sum: Copy + Send + Sync + PartialEq + core::fmt::Debug + Default + 'static;
    /// All-zero bytes: 0 or +0.0.
    const ZERO: Self;
    const ZERO_SUM: Self::Sum;
    const TYPE: ValueType;
    /// Whether adding partial sums gives exactly the row-order sum (integers: yes; floats round
    /// differently in another order).
    const EXACT_SUM: bool;
    fn add(sum: &mut Self::Sum, v: Self);
    /// Adds another part's sum.
    fn add_sum(sum: &mut Self::Sum, other: Self::Sum);
    /// `a` before `b` in the order min and max use.
    fn below(a: Self, b: Self) -> bool;
    /// Adds a group's sum (and with `avg` its average) to the result's totals and checksum.
    fn fold_sum(groups: &mut Groups, key: i64, count: u64, sum: Self::Sum, avg: bool);
    fn fold_min_max(groups: &mut Groups, key: i64, min: Self, max: Self);
}

/// A value column's value as the scatter carries it: one word beside its key (none for a count).
pub(crate) trait RowValue: Copy + Send + Sync + 'static {
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

impl RowValue for () {
    #[inline(always)]
    fn to_bits(self) -> u64 {
        0
    }
    #[inline(always)]
    fn from_bits(_: u64) {}
}

impl RowValue for i64 {
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> i64 {
        bits as i64
    }
}

impl RowValue for f64 {
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
}

impl Num for i64 {
    /// Low and high words of the two's complement 128-bit sum.
    type Sum = [u64; 2];
    const ZERO: i64 = 0;
    const TYPE: ValueType = ValueType::I64;
    const ZERO_SUM: [u64; 2] = [0, 0];
    const EXACT_SUM: bool = true;

    #[inline(always)]
    fn add(sum: &mut [u64; 2], v: i64) {
        let (lo, carry) = sum[0].overflowing_add(v as u64);
        sum[0] = lo;
        // The high word of `v` sign-extended is 0 or all ones.
        sum[1] = sum[1].wrapping_add((v >> 63) as u64).wrapping_add(u64::from(carry));
    }

    #[inline(always)]
    fn add_sum(sum: &mut [u64; 2], other: [u64; 2]) {
        let (lo, carry) = sum[0].overflowing_add(other[0]);
        sum[0] = lo;
        sum[1] = sum[1].wrapping_add(other[1]).wrapping_add(u64::from(carry));
    }

    #[inline(always)]
    fn below(a: i64, b: i64) -> bool {
        a < b
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
    const EXACT_SUM: bool = false;

    #[inline(always)]
    fn add(sum: &mut f64, v: f64) {
        *sum += v;
    }

    fn add_sum(sum: &mut f64, other: f64) {
        *sum += other;
    }

    #[inline(always)]
    fn below(a: f64, b: f64) -> bool {
        a.total_cmp(&b).is_lt()
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
    type Value: RowValue;
    /// Words a row takes when scattered: its key, then its value's bits if it has one.
    const WORDS: usize;
    /// The value column's type, if the state reads one.
    const VALUE_TYPE: Option<ValueType>;
    const EMPTY: Self;
    fn count(&self) -> u64;
    /// Whether [`State::merge`] of parts gives exactly the state of all their rows in order:
    /// tables of a group's rows split over threads may then be merged.
    const MERGES_EXACTLY: bool;
    /// Adds one row with value `v`.
    fn update(&mut self, v: Self::Value);
    /// Adds the rows another part of the same group saw.
    fn merge(&mut self, other: &Self);
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
    const MERGES_EXACTLY: bool = true;

    #[inline(always)]
    fn count(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn update(&mut self, _: ()) {
        self.0 += 1;
    }
    fn merge(&mut self, other: &Self) {
        self.0 += other.0;
    }
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
    pub(super) count: u64,
    pub(super) sum: V::Sum,
}

impl<V: Num, const AVG: bool> State for Sum<V, AVG> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, sum: V::ZERO_SUM };
    const MERGES_EXACTLY: bool = V::EXACT_SUM;

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: V) {
        self.count += 1;
        V::add(&mut self.sum, v);
    }
    fn merge(&mut self, other: &Self) {
        self.count += other.count;
        V::add_sum(&mut self.sum, other.sum);
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_sum(groups, key, self.count, self.sum, AVG);
    }
}

/// count, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MinMax<V: Num> {
    pub(super) count: u64,
    pub(super) min: V,
    pub(super) max: V,
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

impl<V: Num> MinMax<V> {
    /// Takes in another part's min and max (`other_count` rows), before the counts are added.
    fn merge_min_max(count: u64, min: &mut V, max: &mut V, other_count: u64, other_min: V, other_max: V) {
        if other_count == 0 {
            return;
        }
        if count == 0 || V::below(other_min, *min) {
            *min = other_min;
        }
        if count == 0 || V::below(*max, other_max) {
            *max = other_max;
        }
    }
}

impl<V: Num> State for MinMax<V> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, min: V::ZERO, max: V::ZERO };
    const MERGES_EXACTLY: bool = true;

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: V) {
        Self::update_min_max(self.count, &mut self.min, &mut self.max, v);
        self.count += 1;
    }
    fn merge(&mut self, other: &Self) {
        Self::merge_min_max(self.count, &mut self.min, &mut self.max, other.count, other.min, other.max);
        self.count += other.count;
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_min_max(groups, key, self.min, self.max);
    }
}

/// count, sum, min and max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Full<V: Num, const AVG: bool = false> {
    pub(super) count: u64,
    pub(super) sum: V::Sum,
    pub(super) min: V,
    pub(super) max: V,
}

impl<V: Num, const AVG: bool> State for Full<V, AVG> {
    type Value = V;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(V::TYPE);
    const EMPTY: Self = Self { count: 0, sum: V::ZERO_SUM, min: V::ZERO, max: V::ZERO };
    const MERGES_EXACTLY: bool = V::EXACT_SUM;

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
    fn merge(&mut self, other: &Self) {
        MinMax::merge_min_max(self.count, &mut self.min, &mut self.max, other.count, other.min, other.max);
        self.count += other.count;
        V::add_sum(&mut self.sum, other.sum);
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        V::fold_sum(groups, key, self.count, self.sum, AVG);
        V::fold_min_max(groups, key, self.min, self.max);
    }
}
