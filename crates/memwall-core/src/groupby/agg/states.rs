//! The per-group states every kernel is generic over: a count, a sum, min and max, all of them.

use super::aggregates::Field;
use super::column::ValueType;
use crate::groupby::result::Groups;

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

/// What a valued state keeps beside its count: a sum, a min and max, or both (a pair of parts).
/// Each part is told the group's count so far, which [`Valued`] keeps once for all its parts.
pub(crate) trait Part: Copy + Send + Sync + PartialEq + core::fmt::Debug + 'static {
    type Value: Num;
    const EMPTY: Self;
    /// As [`State::MERGES_EXACTLY`].
    const MERGES_EXACTLY: bool;
    /// Adds `v`, the row after the group's first `count`.
    fn update(&mut self, count: u64, v: Self::Value);
    /// Takes in another part of the same group (`other_count` rows), before the counts are added.
    fn merge(&mut self, count: u64, other: &Self, other_count: u64);
    /// Hands the complete group's aggregates (`count` rows) to `groups`.
    fn fold(&self, key: i64, count: u64, groups: &mut Groups);
}

/// A group's count and its parts: [`Sum`], [`MinMax`] or [`Full`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Valued<P> {
    pub(super) count: u64,
    pub(super) part: P,
}

/// count and sum (and so avg).
pub(crate) type Sum<V, const AVG: bool = false> = Valued<Summed<V, AVG>>;
/// count, min and max.
pub(crate) type MinMax<V> = Valued<Extremes<V>>;
/// count, sum, min and max.
pub(crate) type Full<V, const AVG: bool = false> = Valued<(Summed<V, AVG>, Extremes<V>)>;

impl<P: Part> State for Valued<P> {
    type Value = P::Value;
    const WORDS: usize = 2;
    const VALUE_TYPE: Option<ValueType> = Some(<P::Value as Num>::TYPE);
    const EMPTY: Self = Self { count: 0, part: P::EMPTY };
    const MERGES_EXACTLY: bool = P::MERGES_EXACTLY;

    #[inline(always)]
    fn count(&self) -> u64 {
        self.count
    }
    #[inline(always)]
    fn update(&mut self, v: P::Value) {
        self.part.update(self.count, v);
        self.count += 1;
    }
    fn merge(&mut self, other: &Self) {
        self.part.merge(self.count, &other.part, other.count);
        self.count += other.count;
    }
    fn fold(&self, key: i64, groups: &mut Groups) {
        groups.add(key, self.count);
        self.part.fold(key, self.count, groups);
    }
}

/// A sum; `AVG`: whether the query asks for avg, whose total (an exact float sum per group, on
/// top of an `i128`-to-`f64` conversion and a division) is worth skipping when it does not:
/// `memwall groupby --preset clickbench --kernel tuned --runs 5 --agg sum --phases` read emit
/// 3.64 ns/row and 13.65 ns/row in all with it, 2.21 and 12.38 without (Zen 4 guest, load ~3.7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Summed<V: Num, const AVG: bool> {
    pub(super) sum: V::Sum,
}

impl<V: Num, const AVG: bool> Part for Summed<V, AVG> {
    type Value = V;
    const EMPTY: Self = Self { sum: V::ZERO_SUM };
    const MERGES_EXACTLY: bool = V::EXACT_SUM;

    #[inline(always)]
    fn update(&mut self, _: u64, v: V) {
        V::add(&mut self.sum, v);
    }
    #[inline(always)]
    fn merge(&mut self, _: u64, other: &Self, _: u64) {
        V::add_sum(&mut self.sum, other.sum);
    }
    #[inline(always)]
    fn fold(&self, key: i64, count: u64, groups: &mut Groups) {
        V::fold_sum(groups, key, count, self.sum, AVG);
    }
}

/// A min and a max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Extremes<V: Num> {
    pub(super) min: V,
    pub(super) max: V,
}

impl<V: Num> Part for Extremes<V> {
    type Value = V;
    const EMPTY: Self = Self { min: V::ZERO, max: V::ZERO };
    const MERGES_EXACTLY: bool = true;

    #[inline(always)]
    fn update(&mut self, count: u64, v: V) {
        // The first row (count still 0) replaces the zero bits of an empty state.
        if count == 0 || V::below(v, self.min) {
            self.min = v;
        }
        if count == 0 || V::below(self.max, v) {
            self.max = v;
        }
    }
    #[inline(always)]
    fn merge(&mut self, count: u64, other: &Self, other_count: u64) {
        if other_count == 0 {
            return;
        }
        if count == 0 || V::below(other.min, self.min) {
            self.min = other.min;
        }
        if count == 0 || V::below(self.max, other.max) {
            self.max = other.max;
        }
    }
    #[inline(always)]
    fn fold(&self, key: i64, _: u64, groups: &mut Groups) {
        V::fold_min_max(groups, key, self.min, self.max);
    }
}

/// Both parts, of one value column, in this order.
impl<A: Part, B: Part<Value = A::Value>> Part for (A, B) {
    type Value = A::Value;
    const EMPTY: Self = (A::EMPTY, B::EMPTY);
    const MERGES_EXACTLY: bool = A::MERGES_EXACTLY && B::MERGES_EXACTLY;

    #[inline(always)]
    fn update(&mut self, count: u64, v: A::Value) {
        self.0.update(count, v);
        self.1.update(count, v);
    }
    #[inline(always)]
    fn merge(&mut self, count: u64, other: &Self, other_count: u64) {
        self.0.merge(count, &other.0, other_count);
        self.1.merge(count, &other.1, other_count);
    }
    #[inline(always)]
    fn fold(&self, key: i64, count: u64, groups: &mut Groups) {
        self.0.fold(key, count, groups);
        self.1.fold(key, count, groups);
    }
}
