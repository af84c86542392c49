//! What every kernel returns, how partial results combine, and the oracle they must all match.

use memwall_report::KeyCount;

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
    /// Sum (wrapping) over all groups of a mix of (key, count): independent of the order in
    /// which a kernel finds its groups, and changed by any wrong count or missing key.
    pub checksum: u64,
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
}

impl Default for Groups {
    fn default() -> Self {
        Self { groups: 0, rows: 0, checksum: 0, top: [KeyCount { key: 0, count: 0 }; TOP], len: 0 }
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

    pub(crate) fn finish(self) -> GroupResult {
        GroupResult {
            groups: self.groups,
            rows: self.rows,
            top: self.top[..self.len].to_vec(),
            checksum: self.checksum,
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
    GroupResult { groups, rows: keys.len() as u64, top: counts, checksum }
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
        assert_eq!(reference(&[]), GroupResult { groups: 0, rows: 0, top: vec![], checksum: 0 });
    }
}
