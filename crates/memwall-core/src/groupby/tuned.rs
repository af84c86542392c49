//! Radix-partitioned aggregation, done carefully.
//!
//! 1. **Histogram**: one read of the keys counts rows per partition (per thread), so the
//!    partition buffer is laid out exactly: no growing `Vec`s, no copies, one allocation.
//! 2. **Scatter** with software write-combining: each partition has a one-line buffer; a row goes
//!    there, and a full line goes to the partition buffer with non-temporal stores
//!    ([`stream_line`]). The random writes thus touch one small, cache-resident array, and the
//!    big buffer is written in whole lines without first being read from DRAM. Only keys are
//!    stored (8 bytes a row, not `(hash, key)`): rehashing is one multiply, cheaper than moving
//!    twice the bytes.
//! 3. **Aggregate** each partition in a flat `[key, count]` table (see `flat.rs`) sized from the
//!    groups the previous partition had, so it sits in L2 and rarely grows. The table is reused
//!    and emptied while its groups are read out, never cleared or allocated per partition.
//!
//! Each phase splits over the executor's threads: thread `t` scatters its chunk of rows into its
//! own region of the buffer, then threads aggregate disjoint ranges of partitions, reading every
//! region's share of them. No two threads ever see the same key, so nothing is merged.
//!
//! With more than `2^ONE_PASS_BITS` partitions, the write-combining lines alone would overflow
//! L2, so the scatter stops at `2^ONE_PASS_BITS` and each partition is split further, in cache,
//! just before it is aggregated.

use super::flat::{Slot, capacity_for, drain_into, rehash, upsert};
use super::hash::{bits_of, hash, partition_of_hash};
use super::result::Groups;
use super::{GroupByError, Memory, aggregate_partitions, chunks_for};
use crate::arch::{Line, stream_fence, stream_line};
use crate::exec::{self, Executor, split_even};

/// Partition bits of the scatter over DRAM; more are split in cache (see the module docs).
const ONE_PASS_BITS: u32 = 12;

/// Tables are at most `1 / LOAD_INVERSE` full, so most lookups end at their first slot.
const LOAD_INVERSE: usize = 2;

pub(super) fn aggregate(
    keys: &[i64],
    partitions: u32,
    exec: &dyn Executor,
    memory: &dyn Memory,
) -> Result<Groups, GroupByError> {
    let bits = bits_of(partitions);
    let scatter_bits = bits.min(ONE_PASS_BITS);
    let split_bits = bits - scatter_bits;
    let fanout = 1usize << scatter_bits;

    let chunks = split_even(keys.len(), chunks_for(keys.len(), exec));
    let histograms: Vec<Vec<usize>> = exec::map(exec, chunks.clone(), |_, range| histogram(&keys[range], scatter_bits));

    // Thread t's region holds its rows of partition 0, then 1, ...; each partition's share starts
    // on a line boundary so that write-combining lines map onto whole buffer lines.
    let starts: Vec<Vec<usize>> = histograms
        .iter()
        .map(|counts| {
            let mut at = 0;
            counts
                .iter()
                .map(|&rows| {
                    let start = at;
                    at += rows.next_multiple_of(Line::WORDS);
                    start
                })
                .collect()
        })
        .collect();
    let region_lines: Vec<usize> = histograms
        .iter()
        .map(|counts| counts.iter().map(|rows| rows.div_ceil(Line::WORDS)).sum())
        .collect();
    let mut buffer = memory.lines(region_lines.iter().sum()).map_err(GroupByError::Allocation)?;
    let mut rest: &mut [Line] = buffer.lines();
    let mut regions = Vec::with_capacity(chunks.len());
    for &lines in &region_lines {
        let (region, tail) = rest.split_at_mut(lines);
        regions.push(region);
        rest = tail;
    }

    let jobs = chunks.into_iter().zip(regions).zip(starts.iter().cloned()).collect();
    let regions: Vec<&[Line]> = exec::map(exec, jobs, |_, ((range, region), positions)| {
        scatter(&keys[range], scatter_bits, region, positions);
        &*region
    });

    let rows: Vec<usize> = (0..fanout).map(|p| histograms.iter().map(|counts| counts[p]).sum()).collect();
    let shares = |p: usize| {
        regions.iter().zip(&starts).zip(&histograms).map(move |((region, starts), counts)| {
            &Line::words(region)[starts[p]..starts[p] + counts[p]]
        })
    };
    Ok(aggregate_partitions(exec, &rows, |range| {
        let mut aggregator = Aggregator::default();
        for p in range {
            if split_bits == 0 {
                aggregator.aggregate(shares(p), rows[p]);
            } else {
                aggregator.split_and_aggregate(shares(p), rows[p], scatter_bits, split_bits);
            }
        }
        aggregator.groups
    }))
}

/// Rows per partition of `keys`.
fn histogram(keys: &[i64], bits: u32) -> Vec<usize> {
    let mut counts = vec![0usize; 1 << bits];
    for &key in keys {
        counts[partition_of_hash(hash(key), bits)] += 1;
    }
    counts
}

/// Writes each key to its partition's next position in `out`, starting at `positions` (word
/// indices, each a multiple of [`Line::WORDS`]).
fn scatter(keys: &[i64], bits: u32, out: &mut [Line], mut positions: Vec<usize>) {
    let mut pending = vec![Line::ZERO; positions.len()];
    for &key in keys {
        let p = partition_of_hash(hash(key), bits);
        let at = positions[p];
        pending[p].0[at % Line::WORDS] = key as u64;
        positions[p] = at + 1;
        if at % Line::WORDS == Line::WORDS - 1 {
            stream_line(&mut out[at / Line::WORDS], &pending[p]);
        }
    }
    // The partly filled last line of each partition, with plain stores.
    for (line, &at) in pending.iter().zip(&positions) {
        let filled = at % Line::WORDS;
        if filled != 0 {
            out[at / Line::WORDS].0[..filled].copy_from_slice(&line.0[..filled]);
        }
    }
    stream_fence();
}

/// One task's table, reused partition after partition, and the groups it has found.
#[derive(Default)]
struct Aggregator {
    /// All zero outside of `aggregate`; its length only grows.
    table: Vec<Slot>,
    /// Where a table that must grow is rebuilt (then swapped with `table`).
    spare: Vec<Slot>,
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
        let mut groups = 0usize;
        for mut share in shares {
            while !share.is_empty() {
                // Each row adds at most one group: check the load once per block, not per row.
                let room = capacity / LOAD_INVERSE - groups;
                if room == 0 {
                    capacity *= 2;
                    self.grow(capacity);
                    continue;
                }
                let (block, tail) = share.split_at(room.min(share.len()));
                let slots = &mut self.table[..capacity];
                for &key in block {
                    let key = key as i64;
                    groups += usize::from(upsert(slots, key, hash(key), 1));
                }
                share = tail;
            }
        }
        drain_into(&mut self.table[..capacity], &mut self.groups);
        self.groups_per_row = Some(groups as f64 / rows as f64);
    }

    /// Moves the first `capacity / 2` slots' groups into a table of `capacity` slots.
    #[cold]
    fn grow(&mut self, capacity: usize) {
        if self.spare.len() < capacity {
            self.spare.resize(capacity, [0, 0]);
        }
        rehash(&mut self.table[..capacity / 2], &mut self.spare[..capacity]);
        core::mem::swap(&mut self.table, &mut self.spare);
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
