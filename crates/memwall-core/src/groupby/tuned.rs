//! Radix-partitioned aggregation, done carefully. Every choice below was measured on the
//! clickbench preset (100 M rows, 17.6 M keys, one thread); the figures are from those runs.
//!
//! 1. **Scatter** each key to its partition (the top bits of its hash) through software
//!    write-combining: each partition has a small buffer of [`WC_LINES`] cache lines; a row goes
//!    there, and a full buffer goes to the partition's current page with non-temporal stores
//!    ([`stream_line`]). The random writes thus touch one cache-resident array, and the big
//!    buffer is written in whole lines without first being read from DRAM (plain stores instead
//!    made the scatter twice as slow: ~0.8 s against ~0.4 s). Flushing four lines at a time
//!    rather than one cut the scatter by ~15-25%: a flush is a hard-to-predict branch plus a
//!    burst of streaming stores, so fewer, larger flushes are cheaper. Only keys are stored
//!    (8 bytes a row, not `(hash, key)`): rehashing is one multiply, cheaper than moving twice
//!    the bytes.
//! 2. **Pages, not a histogram**: partitions grow in small pages taken from one buffer, chained
//!    per partition. A histogram pass would size each partition exactly, but it is a whole extra
//!    read and hash of the keys (0.1-0.2 s of a ~1.1 s run); pages cost a rare branch and at
//!    most one partly filled page per partition.
//! 3. **Aggregate** each partition in a flat `[key, count]` table (see `flat.rs`) sized from the
//!    groups the previous partition had, at most a quarter full (fewer collisions, each a
//!    mispredicted branch). The table is reused from partition to partition; the slots a
//!    partition filled are listed as they fill, so reading its groups out and emptying the table
//!    touches those slots only instead of scanning the whole table (drain 50 ms instead of 90).
//!
//! Each phase splits over the executor's threads: thread `t` scatters its chunk of rows into its
//! own region of the buffer, then threads aggregate disjoint ranges of partitions, reading every
//! region's pages of them. No two threads ever see the same key, so nothing is merged.
//!
//! With more than `2^SCATTER_BITS` partitions, the write-combining buffers alone would overflow
//! L2, so the scatter stops at `2^SCATTER_BITS` and each partition is split further, in cache,
//! just before it is aggregated.

use super::flat::{Slot, capacity_for, find, rehash};
use super::hash::{bits_of, hash, partition_of_hash};
use super::result::Groups;
use super::{GroupByError, Memory, aggregate_partitions, chunks_for};
use crate::arch::{Line, stream_fence, stream_line};
use crate::exec::{self, Executor, split_even};

/// Partition bits of the scatter over DRAM; more are split in cache (see the module docs).
const SCATTER_BITS: u32 = 12;

/// Lines of write-combining buffer per partition (see the module docs).
const WC_LINES: usize = 4;
const WC_WORDS: usize = WC_LINES * Line::WORDS;

/// Largest page: 16 KiB. Small enough that the partly filled last pages of 4096 partitions
/// waste little (64 MiB of address space at most, per thread), large enough that taking a new
/// page is rare.
const MAX_PAGE_WORDS: usize = 2048;

/// Rows one chunk (one region of the buffer) may hold: its positions, at most this plus a page
/// per partition, then fit in `u32`, whose position array is half the size of `usize`'s and
/// made the scatter ~8% faster.
const MAX_CHUNK_ROWS: usize = 1 << 30;

/// Tables are at most `1 / LOAD_INVERSE` full, so most lookups end at their first slot.
const LOAD_INVERSE: usize = 4;

pub(super) fn aggregate(
    keys: &[i64],
    partitions: u32,
    exec: &dyn Executor,
    memory: &dyn Memory,
) -> Result<Groups, GroupByError> {
    let bits = bits_of(partitions);
    let scatter_bits = bits.min(SCATTER_BITS);
    let split_bits = bits - scatter_bits;
    let fanout = 1usize << scatter_bits;

    // Chunks of at most MAX_CHUNK_ROWS rows keep every position in a region within `u32`.
    let chunks = split_even(keys.len(), chunks_for(keys.len(), exec).max(keys.len().div_ceil(MAX_CHUNK_ROWS)));
    let page_words = page_words(keys.len() / chunks.len(), fanout);
    // Each partition starts with a page and takes another whenever one fills, so a chunk of `r`
    // rows needs at most `r / page_words + fanout` pages.
    let region_lines: Vec<usize> =
        chunks.iter().map(|range| (range.len() / page_words + fanout) * (page_words / Line::WORDS)).collect();
    let mut buffer = memory.lines(region_lines.iter().sum()).map_err(GroupByError::Allocation)?;
    let mut rest: &mut [Line] = buffer.lines();
    let mut jobs = Vec::with_capacity(chunks.len());
    for (range, &lines) in chunks.into_iter().zip(&region_lines) {
        let (region, tail) = rest.split_at_mut(lines);
        jobs.push((range, region));
        rest = tail;
    }
    let scattered: Vec<Scattered<'_>> =
        exec::map(exec, jobs, |_, (range, region)| scatter(&keys[range], scatter_bits, page_words, region));

    let rows: Vec<usize> = (0..fanout).map(|p| scattered.iter().map(|s| s.rows(p)).sum()).collect();
    Ok(aggregate_partitions(exec, &rows, |range| {
        let mut aggregator = Aggregator::default();
        for p in range {
            let pages = scattered.iter().flat_map(|s| s.pages(p));
            if split_bits == 0 {
                aggregator.aggregate(pages, rows[p]);
            } else {
                aggregator.split_and_aggregate(pages, rows[p], scatter_bits, split_bits);
            }
        }
        aggregator.groups
    }))
}

/// Words per page for `rows` rows over `fanout` partitions: a power of two (so pages hold whole
/// write-combining buffers) near half a partition's expected rows, so that small inputs do not reserve 16 KiB
/// for every one of thousands of nearly empty partitions.
fn page_words(rows: usize, fanout: usize) -> usize {
    (rows / fanout / 2).clamp(WC_WORDS, MAX_PAGE_WORDS).next_power_of_two()
}

/// One thread's scattered rows: pages of its region, chained per partition.
struct Scattered<'a> {
    words: &'a [u64],
    page_words: usize,
    /// The page that follows each page in its partition's chain.
    next: Vec<u32>,
    /// Where each partition's next row would have gone; partition `p` starts at page `p`.
    end: Vec<u32>,
}

impl<'a> Scattered<'a> {
    /// The rows of partition `p`, one slice per page.
    fn pages(&self, p: usize) -> Pages<'_, 'a> {
        let end = self.end[p] as usize;
        Pages { scattered: self, page: Some(p), last: end / self.page_words, end }
    }

    fn rows(&self, p: usize) -> usize {
        self.pages(p).map(<[u64]>::len).sum()
    }
}

#[derive(Clone)]
struct Pages<'s, 'a> {
    scattered: &'s Scattered<'a>,
    page: Option<usize>,
    /// The page the partition's next row would have gone to, possibly still empty.
    last: usize,
    end: usize,
}

impl<'s> Iterator for Pages<'s, '_> {
    type Item = &'s [u64];

    fn next(&mut self) -> Option<&'s [u64]> {
        let page = self.page?;
        let s = self.scattered;
        let start = page * s.page_words;
        if page == self.last {
            self.page = None;
            Some(&s.words[start..self.end])
        } else {
            self.page = Some(s.next[page] as usize);
            Some(&s.words[start..start + s.page_words])
        }
    }
}

/// Writes each key to its partition's pages in `region`.
fn scatter<'a>(keys: &[i64], bits: u32, page_words: usize, region: &'a mut [Line]) -> Scattered<'a> {
    let fanout = 1usize << bits;
    let mut next = vec![u32::MAX; region.len() * Line::WORDS / page_words];
    debug_assert!(region.len() * Line::WORDS <= u32::MAX as usize);
    let mut end: Vec<u32> = (0..fanout).map(|p| (p * page_words) as u32).collect();
    let mut free_page = fanout;
    let mut pending = vec![[Line::ZERO; WC_LINES]; fanout];
    for &key in keys {
        let p = partition_of_hash(hash(key), bits);
        let at = end[p] as usize;
        pending[p][at % WC_WORDS / Line::WORDS].0[at % Line::WORDS] = key as u64;
        end[p] = (at + 1) as u32;
        if at % WC_WORDS == WC_WORDS - 1 {
            let first = (at + 1 - WC_WORDS) / Line::WORDS;
            for (to, from) in region[first..first + WC_LINES].iter_mut().zip(&pending[p]) {
                stream_line(to, from);
            }
            if (at + 1).is_multiple_of(page_words) {
                next[at / page_words] = free_page as u32;
                end[p] = (free_page * page_words) as u32;
                free_page += 1;
            }
        }
    }
    // What is left in each buffer, with plain stores.
    let words = Line::words_mut(region);
    for (buffer, &at) in pending.iter().zip(&end) {
        let at = at as usize;
        let filled = at % WC_WORDS;
        words[at - filled..at].copy_from_slice(&Line::words(buffer)[..filled]);
    }
    stream_fence();
    Scattered { words: Line::words(region), page_words, next, end }
}

/// Counts every key of `block` into `slots`, listing in `touched` (from index `groups` on) the
/// slot of each key seen for the first time. Returns the number of new keys.
fn count_block(slots: &mut [Slot], block: &[u64], touched: &mut [u32], groups: usize) -> usize {
    let mut fresh = groups;
    for &key in block {
        let i = find(slots, key, hash(key as i64));
        let before = slots[i][1];
        slots[i] = [key, before + 1];
        // Written always, kept only for a new key: no branch on whether the key is new.
        touched[fresh] = i as u32;
        fresh += usize::from(before == 0);
    }
    fresh - groups
}

/// One task's table, reused partition after partition, and the groups it has found.
#[derive(Default)]
struct Aggregator {
    /// All zero outside of `aggregate`; its length only grows.
    table: Vec<Slot>,
    /// The slots of `table` in use, in the order they filled.
    touched: Vec<u32>,
    /// Groups per row of the last partition: the next partition's table is sized by it.
    groups_per_row: Option<f64>,
    /// Rows of one partition, split further by the next hash bits.
    split: Vec<u64>,
    groups: Groups,
}

impl Aggregator {
    /// Aggregates the rows of one partition, given as slices, `rows` in all.
    fn aggregate<'a>(&mut self, shares: impl IntoIterator<Item = &'a [u64]>, rows: usize) {
        if rows == 0 {
            return;
        }
        // Partitions of one input are alike, so the last one predicts this one's groups; the
        // first is sized for every row being a new group. A wrong guess only costs a rehash.
        let expected = self.groups_per_row.map_or(rows, |ratio| ((rows as f64 * ratio * 1.1) as usize + 16).min(rows));
        let mut capacity = capacity_for(expected, LOAD_INVERSE);
        if self.table.len() < capacity {
            self.table.resize(capacity, [0, 0]);
        }
        if self.touched.len() < rows {
            self.touched.resize(rows, 0);
        }
        let mut groups = 0usize;
        for mut share in shares {
            while !share.is_empty() {
                // Each row adds at most one group: check the load once per block, not per row.
                let room = capacity / LOAD_INVERSE - groups;
                if room == 0 {
                    capacity *= 2;
                    self.grow(capacity, groups);
                    continue;
                }
                let (block, tail) = share.split_at(room.min(share.len()));
                groups += count_block(&mut self.table[..capacity], block, &mut self.touched, groups);
                share = tail;
            }
        }
        for &i in &self.touched[..groups] {
            let slot = &mut self.table[i as usize];
            self.groups.add(slot[0] as i64, slot[1]);
            *slot = [0, 0];
        }
        self.groups_per_row = Some(groups as f64 / rows as f64);
    }

    /// Moves the `groups` groups of the first `capacity / 2` slots into a table of `capacity`
    /// slots, and lists where they went.
    #[cold]
    fn grow(&mut self, capacity: usize, groups: usize) {
        let mut bigger = vec![[0u64, 0]; capacity.max(self.table.len())];
        rehash(&mut self.table[..capacity / 2], &mut bigger[..capacity]);
        self.table = bigger;
        let filled = self.table[..capacity].iter().enumerate().filter(|(_, s)| s[1] != 0).map(|(i, _)| i as u32);
        for (slot, i) in self.touched.iter_mut().zip(filled) {
            *slot = i;
        }
        debug_assert_eq!(self.table[..capacity].iter().filter(|s| s[1] != 0).count(), groups);
    }

    /// Splits one scatter partition by the next `split_bits` hash bits into `self.split` (in
    /// cache: one partition is a small fraction of the input), then aggregates each piece.
    fn split_and_aggregate<'a>(
        &mut self,
        shares: impl Iterator<Item = &'a [u64]> + Clone,
        rows: usize,
        scatter_bits: u32,
        split_bits: u32,
    ) {
        let pieces = 1usize << split_bits;
        let piece_of = |key: u64| partition_of_hash(hash(key as i64) << scatter_bits, split_bits);
        let mut starts = vec![0usize; pieces + 1];
        for &key in shares.clone().flatten() {
            starts[piece_of(key) + 1] += 1;
        }
        for p in 0..pieces {
            starts[p + 1] += starts[p];
        }
        let mut split = core::mem::take(&mut self.split);
        split.resize(rows, 0);
        let mut next = starts.clone();
        for &key in shares.flatten() {
            let piece = piece_of(key);
            split[next[piece]] = key;
            next[piece] += 1;
        }
        for piece in starts.windows(2) {
            self.aggregate([&split[piece[0]..piece[1]]], piece[1] - piece[0]);
        }
        self.split = split;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_chain_and_hold_every_row_once() {
        // Few partitions and tiny pages: every partition spills over many pages.
        let keys: Vec<i64> = (0..5000).map(|i| i * 7919 % 1013).collect();
        let (bits, page_words) = (2, WC_WORDS);
        let mut region = vec![Line::ZERO; (keys.len() / page_words + 4) * page_words / Line::WORDS];
        let scattered = scatter(&keys, bits, page_words, &mut region);
        let mut seen: Vec<u64> =
            (0..4).flat_map(|p| scattered.pages(p).flatten().copied().collect::<Vec<_>>()).collect();
        assert_eq!((0..4).map(|p| scattered.rows(p)).sum::<usize>(), keys.len());
        for p in 0..4 {
            assert!(scattered.pages(p).flatten().all(|&k| partition_of_hash(hash(k as i64), bits) == p));
        }
        let mut expected: Vec<u64> = keys.iter().map(|&k| k as u64).collect();
        seen.sort_unstable();
        expected.sort_unstable();
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_table_sized_too_small_grows_and_keeps_every_count() {
        let keys: Vec<u64> = (0..20_000u64).map(|i| (i % 7_000).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let as_i64 = |keys: &[u64]| keys.iter().map(|&k| k as i64).collect::<Vec<_>>();
        let mut aggregator = Aggregator { groups_per_row: Some(0.0001), ..Aggregator::default() };
        aggregator.aggregate([&keys[..5_000], &keys[5_000..]], keys.len());
        assert!(aggregator.table.iter().all(|s| *s == [0, 0]), "the table is left empty");
        assert_eq!(core::mem::take(&mut aggregator.groups).finish(), super::super::reference(&as_i64(&keys)));
        // The next partition reuses the grown table.
        aggregator.aggregate([&keys[..3]], 3);
        assert_eq!(aggregator.groups.finish(), super::super::reference(&as_i64(&keys[..3])));
    }

    #[test]
    fn page_sizes_stay_line_aligned() {
        assert_eq!(page_words(0, 4096), WC_WORDS);
        assert_eq!(page_words(100_000_000, 4096), MAX_PAGE_WORDS);
        assert_eq!(page_words(1_000_000, 16), MAX_PAGE_WORDS);
        assert_eq!(page_words(200_000, 1024), 128);
        assert!((0..40).all(|shift| page_words(1 << shift, 64).is_multiple_of(WC_WORDS)));
    }
}
