//! Radix-partitioned aggregation, done carefully: memwall's own radix kernel, the one that
//! races the published design ([`super::radix`]). Every choice below was measured on the
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
//!    groups the previous partition had, but never past the cache up front (a table larger than
//!    the cache would be slow anyway; it grows when it must, and sizing the first table for
//!    every row being new once cost 10 GB and 25 s on 100 M rows of one key), at most a quarter full (fewer collisions, each a
//!    mispredicted branch). The table is reused from partition to partition; the slots a
//!    partition filled are listed as they fill, so reading its groups out and emptying the table
//!    touches those slots only instead of scanning the whole table (drain 50 ms instead of 90).
//!
//! **Routes to 4 ns a row that did not pay (issue 12).** `native/examples/agg_lab.rs` times each
//! phase's variants alone on the clickbench preset's keys, by CPU time (the 2-vCPU Zen 4 dev VM
//! was busy; compare within one run). Tuned runs at ~8 ns/row: scatter ~3.4, aggregate ~3.8,
//! emit ~0.8 (`memwall groupby --preset clickbench --kernel tuned --phases`).
//! - Counting a partition (with emit), 2^12 partitions, 512 KiB tables: this linear probe 4.69;
//!   prefetching 8 rows ahead 4.54 and 16 ahead 5.17; a two-choice cuckoo table with a
//!   branch-free choice 5.54. The same loop without its probe loop (wrong on collisions, a
//!   floor only) 2.95: the collisions cost ~1.7 ns/row, and no variant recovered it.
//! - Smaller tables by a finer fan-out: at 2^13 partitions (256 KiB tables) counting takes
//!   3.55, but scattering to 2^13 directly took 5.8-8.7 (by buffer lines) against 3.9 at 2^12:
//!   more than the table saves. 2^10 scatters in 2.8, but its tables (2 MiB) no longer fit L2.
//! - Write-combining lines per partition at 2^12: 1 line 5.07, 2 lines 4.41, 4 lines 3.92
//!   (kept), 8 lines 4.72.
//!
//! A second round (2026-12-01, Zen 4 guest, a compile on the other vCPU, the lab pinned to its
//! own), counting with emit at 2^12 partitions, by steps taken away (`agg_lab ... floors 12`):
//! reading and hashing the rows 0.65 ns/row, one `u32` counter bumped per hash 1.21, tuned's
//! slot update without the probe loop 2.08, the whole linear probe 3.68. So the key check and
//! the collisions are ~1.6 ns/row, the 16-byte slot and the list of filled slots ~0.9; the
//! table's size hardly matters:
//! - Splitting each partition again in cache so that every piece's table fits L1 (`split 12 4
//!   2`: 16 KiB tables, 2x the groups) took 5.66 against 3.98 for one 512 KiB table: the split
//!   alone (two passes, one hash a row) costs 1.90, and counting in L1 still costs ~3.8.
//!   By 3 bits into 64 KiB tables: 4.96 against 4.00.
//! - Buckets of four keys compared at once with no branch (lanes fill in order; a reserved key
//!   marks vacant lanes, its own rows counted apart; `bucket 12 2`): 6.6-7.4 with the counts in
//!   a second array, 6.6-7.7 with keys and counts in one line, 8.1-8.6 at 4x the groups; the
//!   linear probe 3.84-3.92 in the same runs.
//! - Then on the quiet VM (`aggregate 12 4`, `12 2`, `12 8`): the linear probe 3.64; the home
//!   slot tried first with the probe loop out of line (its store address known from the hash
//!   alone) 5.04; tables at 2x the groups 4.08 and at 8x 3.68: fewer collisions buy nothing.
//! - The scatter by steps taken away (`scatter-floors 12`, quiet): a histogram of the partitions
//!   0.92 ns/row; rows written to the write-combining buffers, never flushed 2.04; the whole
//!   scatter 3.32. Streaming the full buffers out is ~1.3 of it. Even these floors, 2.04 and
//!   2.24 (the probe without its loop), add up to more than 4 ns/row on this VM.
//!
//! A third round (2026-12-01, the same kind of VM, quiet, `agg_lab ... simd 12 1`, `simd 12 2`,
//! `hashed-sort 12`, `scatter 6`, `scatter 8`, `scatter 12`; code in `agg_lab/wide.rs`):
//! - Buckets of eight keys compared in one AVX-512 instruction, their eight counts in the next
//!   line, both lines written back whole (a masked move and a masked add, so the stores' address
//!   comes from the hash alone): 3.20-3.32 ns/row with no list of filled slots (every bucket
//!   read at the end), 3.48-3.56 with a flag a bucket, against 3.68-4.00 for the linear probe
//!   in the same runs; at 2x the groups 3.48 against 3.72. Writing only the row's lane (an
//!   address that waits for the compare) took 3.96-4.16, and a bitmap of filled buckets
//!   3.76-4.20 (rows of one partition keep or-ing into the same few words). The best is ~0.5
//!   ns/row, 6-9% of a run, and only on AVX-512 CPUs and for a count: not taken, because the
//!   browser and the Zen 3 hosts would then run another algorithm than the one compared with
//!   them, and CI on a host without AVX-512 could not check it.
//! - Hashed sorting of a partition (a counting sort by the next 12 hash bits in cache, then
//!   each bucket of about two groups counted by comparing keys): 7.88-8.00 against 4.00-4.16.
//! - A smaller fan-out scatters faster, but not twice as fast: with 1 to 8 lines of buffer a
//!   partition, 2^6 partitions took 2.36-2.80 ns/row, 2^8 2.24-2.80 and 2^12 3.44-3.96, even
//!   though 2^6's buffers fit L1. Two passes of 2^6 to reach 2^12 would cost ~4.7.
//! - This VM copies 28.6 GB/s, read plus written (`memwall bandwidth --min 512MiB --max 1GiB
//!   --pin 1`): reading and writing a row's 8 bytes takes 0.56 ns, against 3.3 for the scatter.
//!   Neither phase is bound by DRAM bandwidth; both are bound by a row's work in the core.
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

use allocator_api2::vec::Vec as ScratchVec;

use super::agg::State;
use super::flat::{Slot, capacity_for, find, rehash};
use super::hash::{bits_of, hash, partition_of_hash};
use super::phases::{Phase, Phases};
use super::result::Groups;
use super::{GroupByConfig, GroupByError, aggregate_partitions, chunks_for};
use crate::arch::{Line, stream_fence, stream_line};
use crate::exec::{self, Executor, split_even};
use crate::scratch::rounded;
use crate::scratch::{Scratch, ScratchAlloc};

/// Partition bits of the scatter over DRAM; more are split in cache (see the module docs).
const SCATTER_BITS: u32 = 12;

/// Lines of write-combining buffer per partition (see the module docs).
const WC_LINES: usize = 4;
const WC_WORDS: usize = WC_LINES * Line::WORDS;

/// Largest page: 16 KiB. Small enough that the partly filled last pages of 4096 partitions
/// waste little (64 MiB of address space at most, per thread), large enough that taking a new
/// page is rare.
const MAX_PAGE_WORDS: usize = 2048;

/// Words one chunk (one region of the buffer) may hold (a row is one word, or two with a
/// value): its positions, at most this plus a page per partition, then fit in `u32`, whose
/// position array is half the size of `usize`'s and made the scatter ~8% faster.
const MAX_CHUNK_WORDS: usize = 1 << 30;

/// Tables are at most `1 / LOAD_INVERSE` full, so most lookups end at their first slot.
const LOAD_INVERSE: usize = 4;

/// Bytes of table a group takes at most for a count: a 16-byte slot, at most a quarter of
/// them full ([`table_bytes_per_group`] for other aggregates).
pub const TABLE_BYTES_PER_GROUP: u64 = 16 * LOAD_INVERSE as u64;

/// Bytes of table a group takes at most with `state_bytes` of aggregate state beside its key.
pub fn table_bytes_per_group(state_bytes: u64) -> u64 {
    (8 + state_bytes) * LOAD_INVERSE as u64
}

/// Bytes of write-combining buffer each scattered partition keeps in cache.
pub const WC_BYTES_PER_PARTITION: u64 = (WC_LINES * size_of::<Line>()) as u64;

/// The smallest table: 16 KiB, so that a partition of few groups still checks the load only
/// every few hundred rows.
const MIN_TABLE_SLOTS: usize = 1024;

type Scratched<'a, 's, T> = ScratchVec<T, ScratchAlloc<'a, 's>>;
type Table<'a, 's, S> = Scratched<'a, 's, Slot<S>>;

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
            if split_bits == 0 {
                aggregator.aggregate(pages, rows[p])?;
            } else {
                aggregator.split_and_aggregate(pages, rows[p], scatter_bits, split_bits)?;
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

/// Lines of buffer a chunk of `words` words scatters into.
fn region_lines(words: usize, page_words: usize, fanout: usize) -> usize {
    (words / page_words + fanout) * (page_words / Line::WORDS)
}

/// Words per page for `rows` rows over `fanout` partitions: a power of two (so pages hold whole
/// write-combining buffers) near half a partition's expected rows, so that small inputs do not reserve 16 KiB
/// for every one of thousands of nearly empty partitions.
fn page_words(words: usize, fanout: usize) -> usize {
    (words / fanout / 2).clamp(WC_WORDS, MAX_PAGE_WORDS).next_power_of_two()
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
    buffer + bookkeeping + threads * (tables + split)
}

/// One thread's scattered rows: pages of its region, chained per partition.
struct Scattered<'r, 'a, 's> {
    words: &'r [u64],
    page_words: usize,
    /// The page that follows each page in its partition's chain.
    next: Scratched<'a, 's, u32>,
    /// Where each partition's next row would have gone; partition `p` starts at page `p`.
    end: Scratched<'a, 's, u32>,
}

impl<'r> Scattered<'r, '_, '_> {
    /// The rows of partition `p`, one slice per page.
    fn pages(&self, p: usize) -> Pages<'_, 'r> {
        let end = self.end[p] as usize;
        Pages {
            words: self.words,
            next: &self.next,
            page_words: self.page_words,
            page: Some(p),
            last: end / self.page_words,
            end,
        }
    }

    fn words(&self, p: usize) -> usize {
        self.pages(p).map(<[u64]>::len).sum()
    }
}

#[derive(Clone)]
struct Pages<'s, 'r> {
    words: &'r [u64],
    next: &'s [u32],
    page_words: usize,
    page: Option<usize>,
    /// The page the partition's next row would have gone to, possibly still empty.
    last: usize,
    end: usize,
}

impl<'r> Iterator for Pages<'_, 'r> {
    type Item = &'r [u64];

    fn next(&mut self) -> Option<&'r [u64]> {
        let page = self.page?;
        let start = page * self.page_words;
        if page == self.last {
            self.page = None;
            Some(&self.words[start..self.end])
        } else {
            self.page = Some(self.next[page] as usize);
            Some(&self.words[start..start + self.page_words])
        }
    }
}

/// A scratch vector of `len` copies of `value`, or the error to report.
fn filled<'a, 's, T: Clone>(
    scratch: &'a Scratch<'s>,
    len: usize,
    value: T,
) -> Result<Scratched<'a, 's, T>, GroupByError> {
    let mut vec = ScratchVec::new_in(scratch.alloc());
    vec.try_reserve_exact(len).map_err(|_| out_of_scratch(scratch, len * size_of::<T>()))?;
    vec.resize(len, value);
    Ok(vec)
}

fn out_of_scratch(scratch: &Scratch<'_>, bytes: usize) -> GroupByError {
    let why = scratch.last_error().unwrap_or_else(|| "the size overflows".into());
    GroupByError::Allocation(format!("scratch memory ({}): {why}", crate::size::format_bytes(bytes as u64)))
}

/// Writes each row (its key, then its value's bits if it has one) to its partition's pages in
/// `region`.
fn scatter<'r, 'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    bits: u32,
    page_words: usize,
    region: &'r mut [Line],
    scratch: &'a Scratch<'s>,
) -> Result<Scattered<'r, 'a, 's>, GroupByError> {
    let fanout = 1usize << bits;
    let mut next = filled(scratch, region.len() * Line::WORDS / page_words, u32::MAX)?;
    debug_assert!(region.len() * Line::WORDS <= u32::MAX as usize);
    let mut end = filled(scratch, fanout, 0u32)?;
    for (p, end) in end.iter_mut().enumerate() {
        *end = (p * page_words) as u32;
    }
    let mut free_page = fanout;
    let pending = scratch.lines(fanout * WC_LINES)?;
    let pending = pending.as_chunks_mut::<WC_LINES>().0;
    for (&key, &v) in keys.iter().zip(values) {
        let p = partition_of_hash(hash(key), bits);
        let at = end[p] as usize;
        pending[p][at % WC_WORDS / Line::WORDS].0[at % Line::WORDS] = key as u64;
        if S::WORDS == 2 {
            // `at` is even (pages and buffers hold whole rows): the value shares the key's line.
            pending[p][at % WC_WORDS / Line::WORDS].0[(at + 1) % Line::WORDS] = S::value_bits(v);
        }
        end[p] = (at + S::WORDS) as u32;
        if at % WC_WORDS == WC_WORDS - S::WORDS {
            let first = (at + S::WORDS - WC_WORDS) / Line::WORDS;
            for (to, from) in region[first..first + WC_LINES].iter_mut().zip(&pending[p]) {
                stream_line(to, from);
            }
            if (at + S::WORDS).is_multiple_of(page_words) {
                next[at / page_words] = free_page as u32;
                end[p] = (free_page * page_words) as u32;
                free_page += 1;
            }
        }
    }
    // What is left in each buffer, with plain stores.
    let words = Line::words_mut(region);
    for (buffer, &at) in pending.iter().zip(end.iter()) {
        let at = at as usize;
        let filled = at % WC_WORDS;
        words[at - filled..at].copy_from_slice(&Line::words(buffer)[..filled]);
    }
    stream_fence();
    Ok(Scattered { words: Line::words(region), page_words, next, end })
}

/// Aggregates every row of `block` (rows of `S::WORDS` words) into `slots`, listing in
/// `touched` (from index `groups` on) the slot of each key seen for the first time. Returns the
/// number of new keys.
fn count_block<S: State>(slots: &mut [Slot<S>], block: &[u64], touched: &mut [u32], groups: usize) -> usize {
    let mut fresh = groups;
    let mut row = |key: u64, v: S::Value| {
        let i = find(slots, key, hash(key as i64));
        let slot = &mut slots[i];
        let new = slot.1.count() == 0;
        slot.0 = key;
        slot.1.update(v);
        // Written always, kept only for a new key: no branch on whether the key is new.
        touched[fresh] = i as u32;
        fresh += usize::from(new);
    };
    if S::WORDS == 1 {
        block.iter().for_each(|&key| row(key, S::value_from_bits(0)));
    } else {
        block.as_chunks::<2>().0.iter().for_each(|&[key, bits]| row(key, S::value_from_bits(bits)));
    }
    fresh - groups
}

/// One task's table, reused partition after partition, and the groups it has found.
struct Aggregator<'a, 's, S: State> {
    scratch: &'a Scratch<'s>,
    /// All empty outside of `aggregate`; its length only grows.
    table: Table<'a, 's, S>,
    /// The slots of `table` in use, in the order they filled: room for a quarter of the table.
    touched: Scratched<'a, 's, u32>,
    /// Groups per row of the last partition: the next partition's table is sized by it.
    groups_per_row: Option<f64>,
    /// The most groups a table is sized for up front (it grows past that if it must)...
    cache_table_groups: usize,
    /// ...unless a partition already had more.
    most_groups: usize,
    /// Rows of one partition, split further by the next hash bits.
    split: Scratched<'a, 's, u64>,
    groups: Groups,
    phases: Phases<'a>,
}

impl<'a, 's, S: State> Aggregator<'a, 's, S> {
    fn new(scratch: &'a Scratch<'s>, cache_table_groups: usize, phases: Phases<'a>) -> Self {
        Self {
            scratch,
            table: ScratchVec::new_in(scratch.alloc()),
            touched: ScratchVec::new_in(scratch.alloc()),
            groups_per_row: None,
            cache_table_groups,
            most_groups: 0,
            split: ScratchVec::new_in(scratch.alloc()),
            groups: Groups::default(),
            phases,
        }
    }

    /// Makes `table` at least `capacity` slots and `touched` room for a quarter of them.
    fn reserve(&mut self, capacity: usize) -> Result<(), GroupByError> {
        if self.table.len() < capacity {
            let more = capacity - self.table.len();
            let bytes = capacity * size_of::<Slot<S>>();
            self.table.try_reserve_exact(more).map_err(|_| out_of_scratch(self.scratch, bytes))?;
            self.table.resize(capacity, (0, S::EMPTY));
        }
        let touched = capacity / LOAD_INVERSE;
        if self.touched.len() < touched {
            let more = touched - self.touched.len();
            self.touched.try_reserve_exact(more).map_err(|_| out_of_scratch(self.scratch, touched * 4))?;
            self.touched.resize(touched, 0);
        }
        Ok(())
    }

    /// Aggregates the rows of one partition, given as slices of words, `rows` rows in all.
    fn aggregate<'k>(&mut self, shares: impl IntoIterator<Item = &'k [u64]>, rows: usize) -> Result<(), GroupByError> {
        if rows == 0 {
            return Ok(());
        }
        // Partitions of one input are alike, so the last one predicts this one's groups. A wrong
        // guess only costs a rehash.
        // Never sized past the cache up front, nor past what a partition has needed so far: a
        // partition that needs more grows into it.
        let expected = match self.groups_per_row {
            Some(ratio) => ((rows as f64 * ratio * 1.1) as usize + 16).min(rows),
            None => rows,
        }
        .min(self.cache_table_groups.max(self.most_groups + self.most_groups / 8));
        let mut capacity = capacity_for(expected, LOAD_INVERSE).max(MIN_TABLE_SLOTS);
        self.reserve(capacity)?;
        let mut groups = 0usize;
        let phases = self.phases;
        phases.time(Phase::Aggregate, || -> Result<(), GroupByError> {
            for mut share in shares {
                while !share.is_empty() {
                    // Each row adds at most one group: check the load once per block, not per row.
                    let room = capacity / LOAD_INVERSE - groups;
                    if room == 0 {
                        capacity *= 2;
                        self.grow(capacity, groups)?;
                        continue;
                    }
                    let (block, tail) = share.split_at(room.min(share.len() / S::WORDS) * S::WORDS);
                    groups += count_block::<S>(&mut self.table[..capacity], block, &mut self.touched, groups);
                    share = tail;
                }
            }
            Ok(())
        })?;
        phases.time(Phase::Emit, || {
            for &i in &self.touched[..groups] {
                let slot = &mut self.table[i as usize];
                slot.1.fold(slot.0 as i64, &mut self.groups);
                *slot = (0, S::EMPTY);
            }
        });
        self.groups_per_row = Some(groups as f64 / rows as f64);
        self.most_groups = self.most_groups.max(groups);
        Ok(())
    }

    /// Moves the `groups` groups of the first `capacity / 2` slots into a table of `capacity`
    /// slots, and lists where they went.
    #[cold]
    fn grow(&mut self, capacity: usize, groups: usize) -> Result<(), GroupByError> {
        let mut bigger = filled(self.scratch, capacity.max(self.table.len()), (0u64, S::EMPTY))?;
        rehash(&mut self.table[..capacity / 2], &mut bigger[..capacity]);
        self.table = bigger;
        self.reserve(capacity)?;
        let filled = self.table[..capacity].iter().enumerate().filter(|(_, s)| s.1.count() != 0).map(|(i, _)| i as u32);
        for (slot, i) in self.touched.iter_mut().zip(filled) {
            *slot = i;
        }
        debug_assert_eq!(self.table[..capacity].iter().filter(|s| s.1.count() != 0).count(), groups);
        Ok(())
    }

    /// Splits one scatter partition by the next `split_bits` hash bits into `self.split` (in
    /// cache: one partition is a small fraction of the input), then aggregates each piece.
    fn split_and_aggregate<'k>(
        &mut self,
        shares: impl Iterator<Item = &'k [u64]> + Clone,
        rows: usize,
        scatter_bits: u32,
        split_bits: u32,
    ) -> Result<(), GroupByError> {
        let pieces = 1usize << split_bits;
        let piece_of = |key: u64| partition_of_hash(hash(key as i64) << scatter_bits, split_bits);
        let phases = self.phases;
        let split_start = phases.start();
        let mut starts = vec![0usize; pieces + 1];
        let rows_of = |share: &'k [u64]| share.chunks_exact(S::WORDS);
        for row in shares.clone().flat_map(rows_of) {
            starts[piece_of(row[0]) + 1] += S::WORDS;
        }
        for p in 0..pieces {
            starts[p + 1] += starts[p];
        }
        let mut split = core::mem::replace(&mut self.split, ScratchVec::new_in(self.scratch.alloc()));
        let words = rows * S::WORDS;
        if split.len() < words {
            // Doubling, not exact: partitions of slowly growing sizes would otherwise leave a
            // trail of blocks one size class apart.
            split.try_reserve(words - split.len()).map_err(|_| out_of_scratch(self.scratch, words * 8))?;
            split.resize(words, 0);
        }
        let mut next = starts.clone();
        for row in shares.flat_map(rows_of) {
            let piece = piece_of(row[0]);
            split[next[piece]..next[piece] + S::WORDS].copy_from_slice(row);
            next[piece] += S::WORDS;
        }
        phases.stop(Phase::Split, split_start);
        for piece in starts.windows(2) {
            self.aggregate([&split[piece[0]..piece[1]]], (piece[1] - piece[0]) / S::WORDS)?;
        }
        self.split = split;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::groupby::agg::Count;
    use crate::groupby::{HeapChunks, MemoryPolicy};

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
        aggregator.aggregate([&keys[..5_000], &keys[5_000..]], keys.len()).unwrap();
        assert!(aggregator.table.iter().all(|s| *s == (0, Count::EMPTY)), "the table is left empty");
        assert_eq!(core::mem::take(&mut aggregator.groups).finish(), super::super::reference(&as_i64(&keys)));
        // The next partition reuses the grown table.
        aggregator.aggregate([&keys[..3]], 3).unwrap();
        assert_eq!(aggregator.groups.finish(), super::super::reference(&as_i64(&keys[..3])));
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
