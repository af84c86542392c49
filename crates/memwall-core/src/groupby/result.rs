//! What every kernel returns, how partial results combine, and the oracle they must all match.

use memwall_report::{AdaptiveChoice, KeyCount};

use super::agg::aggregates::{Aggregates, Field, StateKind};
use super::agg::column::{ValueType, Values};
use super::agg::exact::ExactSum;
use crate::arch::fmix64;

/// How many of the most frequent keys a result keeps.
pub const TOP: usize = 10;

/// The answer to `SELECT key, count(*) FROM t GROUP BY key`, condensed so that kernels can be
/// compared exactly without keeping millions of groups around.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupResult {
    /// Number of distinct keys.
    pub groups: u64,
    /// Sum of the counts: every row read must be counted once.
    pub rows: u64,
    /// The [`TOP`] most frequent keys, count descending, ties by key ascending.
    pub top: Vec<KeyCount>,
    /// Sum (wrapping) over all groups of a mix of (key, count), and of (key, aggregate) for
    /// every aggregate the state holds: independent of the order in which a kernel finds its
    /// groups, and changed by any wrong count, aggregate or missing key.
    pub checksum: u64,
    /// Each aggregate asked for, summed over all groups (see `agg.rs`).
    pub totals: Totals,
}

/// The sums over all groups of each aggregate a query asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Totals {
    pub count: Option<u64>,
    pub sum: Option<Total>,
    pub min: Option<Total>,
    pub max: Option<Total>,
    pub avg: Option<Total>,
}

impl Totals {
    /// (name, value) of each total present, in a fixed order, values as the report writes them.
    pub fn named(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(count) = self.count {
            out.push(("count", count.to_string()));
        }
        for (name, total) in [("sum", self.sum), ("min", self.min), ("max", self.max), ("avg", self.avg)] {
            if let Some(total) = total {
                out.push((name, total.to_string()));
            }
        }
        out
    }
}

/// A total: exact for integers, an `f64` (compared bit for bit) for floats.
#[derive(Debug, Clone, Copy)]
pub enum Total {
    Int(i128),
    Float(f64),
}

impl PartialEq for Total {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Int(a), Self::Int(b)) => a == b,
            (Self::Float(a), Self::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Total {}

impl core::fmt::Display for Total {
    /// Integers in full, floats as the shortest text that reads back to the same `f64`
    /// ("NaN", "inf" and "-inf" included).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Int(v) => write!(f, "{v}"),
            Self::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// One group's share of the checksum for one aggregate, held in words `a` and `b`.
#[inline(always)]
fn field_term(key: i64, field: Field, a: u64, b: u64) -> u64 {
    let tag = fmix64(key as u64 ^ 0x1319_8a2e_0370_7344 ^ (field as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    fmix64(tag ^ a.wrapping_mul(0xa409_3822_299f_31d1) ^ fmix64(b ^ 0x082e_fa98_ec4e_6c89))
}

/// A float's bits with every NaN the same: NaN payloads are not part of the answer.
fn canonical_bits(v: f64) -> u64 {
    if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() }
}

/// One group's share of the checksum.
///
/// Nested bijections of key and count, so a wrong key or a wrong count changes the term. It
/// must be the same function on every target (a browser's checksum is compared with a native
/// one), hence 64-bit multiplies only: a 128-bit product is a library call in wasm32, and 17
/// million groups are summed on every clickbench run.
#[inline(always)]
fn checksum_term(key: i64, count: u64) -> u64 {
    fmix64(fmix64(key as u64 ^ 0x243f_6a88_85a3_08d3) ^ count.wrapping_mul(0xa409_3822_299f_31d1))
}

/// `a` ranks above `b`: more rows, or as many and a smaller key.
#[inline(always)]
fn ranks_above(a: KeyCount, b: KeyCount) -> bool {
    a.count > b.count || (a.count == b.count && a.key < b.key)
}

/// Groups seen so far by one task: their number, checksum and top keys.
#[derive(Debug, Clone)]
pub(crate) struct Groups {
    groups: u64,
    rows: u64,
    checksum: u64,
    top: [KeyCount; TOP],
    len: usize,
    /// Totals of integer sum, min and max (exact: 2^64 groups of 2^64 rows of i64 fit).
    ints: [i128; 3],
    /// Totals of float sum, min and max, and of avg.
    floats: [ExactSum; 4],
}

impl Default for Groups {
    fn default() -> Self {
        Self {
            groups: 0,
            rows: 0,
            checksum: 0,
            top: [KeyCount { key: 0, count: 0 }; TOP],
            len: 0,
            ints: [0; 3],
            floats: core::array::from_fn(|_| ExactSum::default()),
        }
    }
}

impl Groups {
    /// Records one complete group. Each key must be added once, with its final count.
    #[inline(always)]
    pub(crate) fn add(&mut self, key: i64, count: u64) {
        self.groups += 1;
        self.rows += count;
        self.checksum = self.checksum.wrapping_add(checksum_term(key, count));
        let entry = KeyCount { key, count };
        // Almost every group loses against the current tenth: keep that test first and cheap.
        if self.len == TOP && !ranks_above(entry, self.top[TOP - 1]) {
            return;
        }
        self.offer(entry);
    }

    /// Adds an integer aggregate of a group already [`Groups::add`]ed.
    pub(crate) fn add_int(&mut self, field: Field, key: i64, value: i128) {
        self.checksum = self.checksum.wrapping_add(field_term(key, field, value as u64, (value >> 64) as u64));
        let total = &mut self.ints[field as usize - 1];
        *total = total.wrapping_add(value);
    }

    /// Adds a float aggregate of a group already [`Groups::add`]ed.
    pub(crate) fn add_float(&mut self, field: Field, key: i64, value: f64) {
        self.checksum = self.checksum.wrapping_add(field_term(key, field, canonical_bits(value), 0));
        self.floats[field as usize - 1].add(value);
    }

    /// Adds a group's average (already covered by the checksum through its sum and count).
    pub(crate) fn add_avg(&mut self, value: f64) {
        self.floats[3].add(value);
    }

    #[cold]
    fn offer(&mut self, entry: KeyCount) {
        let mut at = self.len.min(TOP - 1);
        if self.len < TOP {
            self.len += 1;
        }
        while at > 0 && ranks_above(entry, self.top[at - 1]) {
            self.top[at] = self.top[at - 1];
            at -= 1;
        }
        self.top[at] = entry;
    }

    /// Groups seen so far.
    pub(crate) fn len(&self) -> u64 {
        self.groups
    }

    /// Combines the groups of two tasks that saw disjoint sets of keys.
    pub(crate) fn merge(&mut self, other: &Groups) {
        self.groups += other.groups;
        self.rows += other.rows;
        self.checksum = self.checksum.wrapping_add(other.checksum);
        for (total, more) in self.ints.iter_mut().zip(other.ints) {
            *total = total.wrapping_add(more);
        }
        for (total, more) in self.floats.iter_mut().zip(other.floats.iter()) {
            total.merge(more);
        }
        for &entry in &other.top[..other.len] {
            if self.len < TOP || ranks_above(entry, self.top[TOP - 1]) {
                self.offer(entry);
            }
        }
    }

    pub(crate) fn merge_all(parts: impl IntoIterator<Item = Groups>) -> Groups {
        parts.into_iter().fold(Groups::default(), |mut all, part| {
            all.merge(&part);
            all
        })
    }

    /// The result of a count-only query.
    #[cfg(test)]
    pub(crate) fn finish(self) -> GroupResult {
        self.finish_with(Aggregates::COUNT, None)
    }

    /// The result, with the totals of `aggregates` over a value column of type `value`.
    pub(crate) fn finish_with(self, aggregates: Aggregates, value: Option<ValueType>) -> GroupResult {
        let total = |field: Field, asked: Aggregates| -> Option<Total> {
            if !aggregates.contains(asked) {
                return None;
            }
            Some(match value? {
                ValueType::I64 => Total::Int(self.ints[field as usize - 1]),
                ValueType::F64 => Total::Float(self.floats[field as usize - 1].value()),
            })
        };
        let totals = Totals {
            count: aggregates.contains(Aggregates::COUNT).then_some(self.rows),
            sum: total(Field::Sum, Aggregates::SUM),
            min: total(Field::Min, Aggregates::MIN),
            max: total(Field::Max, Aggregates::MAX),
            avg: (aggregates.contains(Aggregates::AVG) && value.is_some())
                .then(|| Total::Float(self.floats[3].value())),
        };
        GroupResult {
            groups: self.groups,
            rows: self.rows,
            top: self.top[..self.len].to_vec(),
            checksum: self.checksum,
            totals,
        }
    }
}

/// The oracle: sort a copy of the keys and count the runs of equal keys, obviously right and
/// slow. Every kernel must equal it exactly.
pub fn reference(keys: &[i64]) -> GroupResult {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    let mut counts: Vec<KeyCount> =
        sorted.chunk_by(|a, b| a == b).map(|run| KeyCount { key: run[0], count: run.len() as u64 }).collect();
    let checksum = counts.iter().fold(0u64, |sum, kc| sum.wrapping_add(checksum_term(kc.key, kc.count)));
    let groups = counts.len() as u64;
    let order = |a: &KeyCount, b: &KeyCount| b.count.cmp(&a.count).then(a.key.cmp(&b.key));
    if counts.len() > TOP {
        counts.select_nth_unstable_by(TOP, order);
        counts.truncate(TOP);
    }
    counts.sort_by(order);
    GroupResult {
        groups,
        rows: keys.len() as u64,
        top: counts,
        checksum,
        totals: Totals { count: Some(keys.len() as u64), ..Totals::default() },
    }
}

/// The oracle of a query with a value column: sort the rows by key, keeping each key's rows in
/// input order, and compute each group's aggregates with plain iterator code,
/// independently of the kernels' states. The aggregates a state of `aggregates` holds are all
/// computed (they enter the checksum), the totals of `aggregates` reported.
pub fn reference_query(keys: &[i64], values: Values<'_>, aggregates: Aggregates) -> GroupResult {
    if !aggregates.needs_values() {
        return reference(keys);
    }
    let kind = aggregates.kind();
    let (sums, min_max) =
        (matches!(kind, StateKind::Sum | StateKind::Full), matches!(kind, StateKind::MinMax | StateKind::Full));
    // Each key beside its row: sorting the pairs reads them in order, where sorting row numbers
    // by `keys[i]` chased a random key per comparison (the check of a sum over 10M rows, 1,000
    // keys: 4.2 s before, 1.2 s after). Row
    // numbers are distinct, so the unstable sort still keeps each group's rows in input order,
    // which float sums need.
    let mut order: Vec<(i64, usize)> = keys.iter().copied().zip(0..).collect();
    order.sort_unstable();
    let mut groups = Groups::default();
    for pairs in order.chunk_by(|a, b| a.0 == b.0) {
        let key = pairs[0].0;
        let count = pairs.len() as u64;
        groups.add(key, count);
        match values {
            Values::I64(v) => {
                let rows = || pairs.iter().map(|&(_, i)| v[i]);
                if sums {
                    let sum: i128 = rows().map(i128::from).sum();
                    groups.add_int(Field::Sum, key, sum);
                    groups.add_avg(sum as f64 / count as f64);
                }
                if min_max {
                    groups.add_int(Field::Min, key, i128::from(rows().min().unwrap_or(0)));
                    groups.add_int(Field::Max, key, i128::from(rows().max().unwrap_or(0)));
                }
            }
            Values::F64(v) => {
                let rows = || pairs.iter().map(|&(_, i)| v[i]);
                if sums {
                    let sum = rows().fold(0.0, |sum, x| sum + x);
                    groups.add_float(Field::Sum, key, sum);
                    groups.add_avg(sum / count as f64);
                }
                if min_max {
                    groups.add_float(Field::Min, key, rows().min_by(f64::total_cmp).unwrap_or(0.0));
                    groups.add_float(Field::Max, key, rows().max_by(f64::total_cmp).unwrap_or(0.0));
                }
            }
            Values::None => {}
        }
    }
    let mut result = groups.finish_with(aggregates, values.value_type());
    // The top keys and the group count, from the independent count reference.
    let counted = reference(keys);
    debug_assert_eq!((result.groups, &result.top), (counted.groups, &counted.top));
    result.top = counted.top;
    result
}

/// What a run produced, and for the adaptive kernel what it decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: GroupResult,
    /// Adaptive only: the kernel it ran and why.
    pub choice: Option<AdaptiveChoice>,
    /// The partition count the run used, if it partitioned.
    pub partitions: Option<u32>,
    /// Threads the run spread its work over (1 for the kernels that never split it).
    pub threads: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_keeps_the_ten_best_with_ties_by_key() {
        let mut groups = Groups::default();
        for key in (0..40).rev() {
            groups.add(key, (key % 7) as u64 + 1);
        }
        let result = groups.finish();
        assert_eq!(result.groups, 40);
        let top: Vec<(i64, u64)> = result.top.iter().map(|kc| (kc.key, kc.count)).collect();
        assert_eq!(top, [(6, 7), (13, 7), (20, 7), (27, 7), (34, 7), (5, 6), (12, 6), (19, 6), (26, 6), (33, 6)]);
    }

    #[test]
    fn merging_parts_equals_one_pass() {
        let pairs: Vec<(i64, u64)> = (0..100).map(|i| (i * 7919 - 300, (i as u64 * 31) % 17 + 1)).collect();
        let mut whole = Groups::default();
        pairs.iter().for_each(|&(k, c)| whole.add(k, c));
        let parts = pairs.chunks(9).map(|chunk| {
            let mut part = Groups::default();
            chunk.iter().rev().for_each(|&(k, c)| part.add(k, c));
            part
        });
        assert_eq!(Groups::merge_all(parts).finish(), whole.finish());
    }

    #[test]
    fn reference_counts() {
        let result = reference(&[3, -1, 3, i64::MIN, 3, -1]);
        assert_eq!(result.groups, 3);
        assert_eq!(result.top[0], KeyCount { key: 3, count: 3 });
        assert_eq!(result.top[1], KeyCount { key: -1, count: 2 });
        assert_eq!(result.top[2], KeyCount { key: i64::MIN, count: 1 });
        assert_ne!(result.checksum, reference(&[3, -1, 3, i64::MIN, 3, 3]).checksum);
        assert_eq!(result.rows, 6);
        let totals = Totals { count: Some(0), ..Totals::default() };
        assert_eq!(reference(&[]), GroupResult { groups: 0, rows: 0, top: vec![], checksum: 0, totals });
    }
}
