//! Radix-partitioned aggregation, done carefully: memwall's own radix kernel, the one that
//! races the published design ([`super::radix`]). Every choice below was measured on the
//! clickbench preset (100 M rows, 17.6 M keys, one thread); the figures are from those runs.
//!
//! 1. **Scatter** each key to its partition (the top bits of its hash) through software
//!    write-combining: each partition has a small buffer of [`WC_LINES`] cache lines; a row goes
//!    there, and a full buffer goes to the partition's current page with non-temporal stores
//!    ([`stream_line`](crate::arch::stream_line)). The random writes thus touch one
//!    cache-resident array, and the big buffer is written in whole lines without first being
//!    read from DRAM (plain stores instead made the scatter twice as slow: ~0.8 s against
//!    ~0.4 s). Flushing four lines at a time rather than one cut the scatter by ~15-25%: a flush
//!    is a hard-to-predict branch plus a burst of streaming stores, so fewer, larger flushes are
//!    cheaper. Only keys are stored (8 bytes a row, not `(hash, key)`): rehashing is one
//!    multiply, cheaper than moving twice the bytes.
//! 2. **Pages, not a histogram**: partitions grow in small pages taken from one buffer, chained
//!    per partition. A histogram pass would size each partition exactly, but it is a whole extra
//!    read and hash of the keys (0.1-0.2 s of a ~1.1 s run); pages cost a rare branch and at
//!    most one partly filled page per partition.
//! 3. **Aggregate** each partition in a flat `[key, count]` table (see `flat.rs`) sized from the
//!    groups the previous partition had, but never past the cache up front (a table larger than
//!    the cache would be slow anyway; it grows when it must, and sizing the first table for
//!    every row being new once cost 10 GB and 25 s on 100 M rows of one key), at most a quarter full (fewer collisions, each a
//!    mispredicted branch). The table is reused from partition to partition; the slots a
//!    partition filled are listed as they fill, so reading its groups out and emptying the table
//!    touches those slots only instead of scanning the whole table (drain 50 ms instead of 90).
//!
//! What was tried to go further and did not pay (finer fan-outs, bucketed and AVX-512 tables,
//! splitting to L1, hashed sorting), with its figures, is in `docs/tuned-experiments.md`.
//!
//! Each phase splits over the executor's threads: thread `t` scatters its chunk of rows into its
//! own region of the buffer, then threads aggregate disjoint ranges of partitions, reading every
//! region's pages of them. No two threads ever see the same key, so nothing is merged.
//!
//! With more than `2^SCATTER_BITS` partitions, the write-combining buffers alone would overflow
//! L2, so the scatter stops at `2^SCATTER_BITS` and each partition is split further, in cache,
//! just before it is aggregated.
//!
//! Aggregates beyond a count (`agg.rs`): the kernel is generic over the group's state and
//! compiled once per state. A count scatters the key alone, as above; any other aggregate
//! scatters the key and the value's bits (two words a row, in the same line: pages and
//! buffers hold whole rows), and the tables hold `(key, state)` slots of 16 to 48 bytes. The
//! count-only code is the one it was (the value is `()`, the row one word).

mod layout;
mod partition;
mod rounds;
mod scatter;

use layout::{LOAD_INVERSE, MAX_CHUNK_WORDS, WC_LINES, page_words, region_lines};
pub(crate) use layout::{MIN_TABLE_SLOTS, SCATTER_BITS};
pub use layout::{TABLE_BYTES_PER_GROUP, WC_BYTES_PER_PARTITION, table_bytes_per_group};
use partition::Aggregator;
use rounds::Rounds;
use scatter::scatter;

use crate::arch::Line;
use crate::exec::{self, Executor, split_even};
use crate::groupby::agg::State;
use crate::groupby::config::{GroupByConfig, GroupByError};
use crate::groupby::flat::{Slot, capacity_for};
use crate::groupby::hash::bits_of;
use crate::groupby::phases::{Phase, Phases};
use crate::groupby::result::Groups;
use crate::groupby::work::{aggregate_partitions, chunks_for};
use crate::scratch::{Scratch, rounded};

/// For the adaptive kernel: split each partition further, in cache, until its table is expected
/// to fit `groups_per_table` groups, so that a partition count chosen from a low estimate of
/// the groups costs an extra pass over cache, not tables spilling to DRAM.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fit {
    pub groups_per_table: usize,
    /// Groups per row expected before any partition has been counted.
    pub groups_per_row: f64,
}

impl Fit {
    /// Bits to split a partition of `rows` rows by, expecting `groups_per_row` groups a row.
    fn split_bits(&self, rows: usize, groups_per_row: f64) -> u32 {
        let expected = rows as f64 * groups_per_row * 1.1;
        let pieces = (expected / self.groups_per_table.max(1) as f64).ceil().max(1.0);
        (pieces.log2().ceil() as u32).min(MAX_FIT_SPLIT_BITS)
    }
}

/// A partition is split to fit only if it holds at most this many times its share of rows
/// plus [`FIT_MAX_EXTRA_ROWS`]: a partition swollen by a few hot keys has few groups for its
/// rows anyway, and its copy is what the split costs in memory.
const FIT_MAX_SHARE: usize = 4;

const FIT_MAX_EXTRA_ROWS: usize = 1 << 16;

#[allow(clippy::too_many_arguments)]
pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    partitions: u32,
    config: &GroupByConfig,
    fit: Option<Fit>,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    let bits = bits_of(partitions);
    let scatter_bits = bits.min(SCATTER_BITS);
    // Rows first go through the scatter in rounds, counted into tables kept per partition, for
    // as long as those tables fit the cache (see `rounds.rs`); the rest are scattered at once.
    let rounds = Rounds::new(config, keys.len(), S::WORDS, size_of::<Slot<S>>(), 1 << scatter_bits);
    let (kept, start) = rounds::preaggregate::<S>(keys, values, scatter_bits, rounds, exec, scratch, phases)?;
    if start == keys.len() {
        return Ok(phases.time(Phase::Emit, || {
            let mut groups = Groups::default();
            kept.into_iter().flatten().for_each(|mut table| table.emit(&mut groups));
            groups
        }));
    }
    let (keys, values) = (&keys[start..], &values[start..]);
    let split_bits = bits - scatter_bits;
    let fanout = 1usize << scatter_bits;

    // Chunks of at most MAX_CHUNK_WORDS words keep every position in a region within `u32`.
    let max_chunk_rows = MAX_CHUNK_WORDS / S::WORDS;
    let chunks = split_even(keys.len(), chunks_for(keys.len(), exec).max(keys.len().div_ceil(max_chunk_rows)));
    let page_words = page_words(keys.len() / chunks.len() * S::WORDS, fanout);
    // Each partition starts with a page and takes another whenever one fills, so a chunk of `w`
    // words needs at most `w / page_words + fanout` pages.
    let region_lines: Vec<usize> =
        chunks.iter().map(|range| region_lines(range.len() * S::WORDS, page_words, fanout)).collect();
    let mut rest: &mut [Line] = scratch.lines(region_lines.iter().sum())?;
    let mut jobs = Vec::with_capacity(chunks.len());
    for (range, &lines) in chunks.into_iter().zip(&region_lines) {
        let (region, tail) = rest.split_at_mut(lines);
        jobs.push((range, region));
        rest = tail;
    }
    let scattered = exec::map(exec, jobs, |_, (range, region)| {
        let (keys, values) = (&keys[range.clone()], &values[range]);
        phases.time(Phase::Scatter, || scatter::<S>(keys, values, scatter_bits, page_words, region, scratch))
    });
    let scattered = scattered.into_iter().collect::<Result<Vec<_>, _>>()?;

    let rows: Vec<usize> =
        (0..fanout).map(|p| scattered.iter().map(|s| s.words(p)).sum::<usize>() / S::WORDS).collect();
    let cache_table_groups = cache_table_groups(config, size_of::<Slot<S>>());
    let max_fit_rows = keys.len() / fanout * FIT_MAX_SHARE + FIT_MAX_EXTRA_ROWS;
    aggregate_partitions(exec, &rows, phases, |range| {
        let mut aggregator = Aggregator::<S>::new(scratch, cache_table_groups, phases);
        for p in range {
            let pages = scattered.iter().flat_map(|s| s.pages(p));
            let split_bits = match fit {
                Some(fit) if split_bits == 0 && rows[p] <= max_fit_rows => {
                    fit.split_bits(rows[p], aggregator.groups_per_row.unwrap_or(fit.groups_per_row))
                }
                _ => split_bits,
            };
            // The groups kept from the rounds (`rounds.rs`) go in first.
            match &kept[p] {
                Some(table) if split_bits > 0 => {
                    let mut carried: Vec<Slot<S>> = table.filled().collect();
                    aggregator.split_and_aggregate(pages, rows[p], &mut carried, scatter_bits, split_bits)?;
                }
                None if split_bits > 0 => {
                    aggregator.split_and_aggregate(pages, rows[p], &mut [], scatter_bits, split_bits)?
                }
                Some(table) => aggregator.aggregate(pages, rows[p], table.filled())?,
                None => aggregator.aggregate(pages, rows[p], core::iter::empty())?,
            }
        }
        Ok(aggregator.groups)
    })
}

/// At most 256 pieces a partition: beyond, the split's counters no longer fit L1.
const MAX_FIT_SPLIT_BITS: u32 = 8;

/// The extra scratch of [`Fit`]: a copy of the largest partition it splits.
pub(super) fn fit_scratch_bytes(rows: u64, partitions: u32, threads: u64, row_bytes: u64) -> u64 {
    let fanout = 1u64 << bits_of(partitions).min(SCATTER_BITS);
    threads * 2 * rounded((rows / fanout * FIT_MAX_SHARE as u64 + FIT_MAX_EXTRA_ROWS as u64) * row_bytes)
}

/// The most groups a table is sized for before any row is counted: as many as fit the
/// last-level cache at the table's load (a partition is sized from the one before, up to this).
fn cache_table_groups(config: &GroupByConfig, slot_bytes: usize) -> usize {
    // The last-level cache, not the L2: a partition's table that spills from L2 is still fast
    // enough, and one sized below its groups would be rehashed for every partition (measured:
    // a 256 KiB cap took 16 Mi all-distinct keys from 11 to 27 ns/row).
    let cache = config.budget.last_level_bytes.max(config.budget.per_core_bytes);
    usize::try_from(cache / slot_bytes as u64 / LOAD_INVERSE as u64).unwrap_or(usize::MAX)
}

/// An upper bound of the scratch bytes tuned takes (blocks as handed out, see `scratch.rs`).
pub(super) fn scratch_bytes(rows: u64, groups: u64, partitions: u32, config: &GroupByConfig, threads: u64) -> u64 {
    let bits = bits_of(partitions);
    let fanout = 1u64 << bits.min(SCATTER_BITS);
    let row_words: u64 = if config.aggregates.needs_values() { 2 } else { 1 };
    let slot_bytes = 8 + config.aggregates.state_bytes(super::agg::ValueType::I64);
    let chunks = threads.max(rows.div_ceil(MAX_CHUNK_WORDS as u64 / row_words)).max(1);
    let page_words = page_words((rows / chunks * row_words) as usize, fanout as usize) as u64;
    let buffer_words = rows * row_words + chunks * (fanout + 1) * page_words;
    let buffer = rounded(buffer_words * 8);
    let pages = buffer_words / page_words + chunks * fanout;
    // Per chunk: its page chain and partition ends (u32), and the write-combining buffers.
    let bookkeeping = rounded(pages * 4) + chunks * (rounded(fanout * 4) + rounded(fanout * WC_LINES as u64 * 64));
    // Per thread, one table and its list of filled slots, grown by doubling (every size on the
    // way kept), for the most groups one partition may get; and, with more partitions than are
    // scattered, a copy of the largest partition's rows.
    let most_groups =
        (groups.min((groups / fanout) * 2 + 4096) * 9 / 8).max(cache_table_groups(config, slot_bytes as usize) as u64);
    let table_slots = capacity_for(most_groups as usize, LOAD_INVERSE).max(MIN_TABLE_SLOTS) as u64;
    let tables = 2 * (rounded(table_slots * slot_bytes) + rounded(table_slots / LOAD_INVERSE as u64 * 4 + 4));
    let split = if bits > SCATTER_BITS { 2 * rounded(rows * 8 * row_words) } else { 0 };
    // Before all that, the rounds of the pre-aggregating scatter, whose tables are kept.
    let rounds = Rounds::new(
        config,
        usize::try_from(rows).unwrap_or(usize::MAX),
        row_words as usize,
        slot_bytes as usize,
        fanout as usize,
    );
    let round_chunks = if (rounds.most_rows as u64).min(rows) < 1 << 16 { 1 } else { threads };
    let kept = rounds.scratch_bytes(rows, groups, row_words, slot_bytes, fanout, round_chunks);
    kept + buffer + bookkeeping + threads * (tables + split)
}

#[cfg(test)]
mod tests {
    use super::layout::{MAX_PAGE_WORDS, WC_WORDS};
    use super::*;
    use crate::groupby::agg::Count;
    use crate::groupby::hash::{hash, partition_of_hash};
    use crate::scratch::{HeapChunks, MemoryPolicy};

    #[test]
    fn pages_chain_and_hold_every_row_once() {
        // Few partitions and tiny pages: every partition spills over many pages.
        let keys: Vec<i64> = (0..5000).map(|i| i * 7919 % 1013).collect();
        let (bits, page_words) = (2, WC_WORDS);
        let mut region = vec![Line::ZERO; (keys.len() / page_words + 4) * page_words / Line::WORDS];
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        scratch.begin_run();
        let units = vec![(); keys.len()];
        let scattered = scatter::<Count>(&keys, &units, bits, page_words, &mut region, &scratch).unwrap();
        let mut seen: Vec<u64> =
            (0..4).flat_map(|p| scattered.pages(p).flatten().copied().collect::<Vec<_>>()).collect();
        assert_eq!((0..4).map(|p| scattered.words(p)).sum::<usize>(), keys.len());
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
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        scratch.begin_run();
        let mut aggregator = Aggregator::<Count>::new(&scratch, 10, Phases::OFF);
        aggregator.groups_per_row = Some(0.0001);
        aggregator.aggregate([&keys[..5_000], &keys[5_000..]], keys.len(), core::iter::empty()).unwrap();
        assert!(aggregator.table.slots.iter().all(|s| *s == (0, Count::EMPTY)), "the table is left empty");
        assert_eq!(core::mem::take(&mut aggregator.groups).finish(), crate::groupby::result::reference(&as_i64(&keys)));
        // The next partition reuses the grown table.
        aggregator.aggregate([&keys[..3]], 3, core::iter::empty()).unwrap();
        assert_eq!(aggregator.groups.finish(), crate::groupby::result::reference(&as_i64(&keys[..3])));
    }

    #[test]
    fn fit_splits_only_partitions_whose_groups_outgrow_the_table() {
        let fit = Fit { groups_per_table: 8192, groups_per_row: 0.2 };
        assert_eq!(fit.split_bits(24_000, 0.18), 0, "clickbench: 4,300 groups a partition fit");
        assert_eq!(fit.split_bits(156_000, 0.17), 2, "1.7 M groups over 64 partitions: 26,500 each, in 4 pieces");
        assert_eq!(fit.split_bits(100_000_000, 1.0), MAX_FIT_SPLIT_BITS);
        assert_eq!(fit.split_bits(0, 1.0), 0);
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
