//! The radix join: both sides scattered into partitions by the top bits of the key's hash, so
//! that each partition's table fits the cache; then every partition's probe keys meet only their
//! own table.
//!
//! The build phase partitions the build side and builds every partition's table, all of them in
//! one array at their partitions' offsets (together no larger than one table for all keys); the
//! probe phase partitions the probe keys and probes each partition's keys against its table.
//! Both scatters are two passes, a histogram then the copy, so each partition's rows are exactly
//! where the prefix sum says and nothing grows.

use core::ops::Range;

use super::config::{BuildRow, JoinError};
use super::table::{
    EMPTY, Matches, Sentinel, Slot, capacity_for, clear, hash, insert, partition_of_hash, slots_in, words_in,
};
use crate::exec::{self, Executor};
use crate::scratch::Scratch;

pub(super) struct Tables<'m> {
    pub(super) bits: u32,
    /// Every partition's table, partition `p` at `offsets[p]..offsets[p + 1]`.
    pub(super) slots: &'m [Slot],
    pub(super) offsets: Vec<usize>,
    pub(super) sentinel: Sentinel,
}

/// Rows of each partition and where each starts, `starts[p]..starts[p + 1]`.
fn prefix_sums(counts: &[usize]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut at = 0;
    starts.push(0);
    for &c in counts {
        at += c;
        starts.push(at);
    }
    starts
}

/// Partitions cut into contiguous ranges, several per thread (skew evens out), one in all
/// without threads.
pub(super) fn task_ranges(partitions: usize, exec: &dyn Executor) -> Vec<Range<usize>> {
    let tasks = if exec.threads() > 1 { (exec.threads() * exec::TASKS_PER_THREAD).min(partitions) } else { 1 };
    exec::split_even(partitions, tasks)
}

pub(super) fn build<'m>(
    build: &[BuildRow],
    partitions: u32,
    exec: &dyn Executor,
    scratch: &'m Scratch<'_>,
) -> Result<Tables<'m>, JoinError> {
    let bits = partitions.trailing_zeros();
    let mut counts = vec![0usize; partitions as usize];
    let mut sentinel = Sentinel::default();
    for &row in build {
        if !sentinel.take(row)? {
            counts[partition_of_hash(hash(row.key), bits)] += 1;
        }
    }
    let starts = prefix_sums(&counts);
    let rows = slots_in(scratch, starts[counts.len()])?;
    let mut cursor = starts.clone();
    for &row in build {
        if row.key as u64 != EMPTY {
            let p = partition_of_hash(hash(row.key), bits);
            rows[cursor[p]] = [row.key as u64, row.payload];
            cursor[p] += 1;
        }
    }
    let offsets = table_offsets(&counts);
    let slots = slots_in(scratch, offsets[counts.len()])?;
    let rows = &*rows;
    build_tables(slots, &offsets, exec, |table, p| fill_table(table, rows[starts[p]..starts[p + 1]].iter().copied()))?;
    Ok(Tables { bits, slots, offsets, sentinel })
}

/// Where each partition's table starts in the one array of them all, for `counts` build rows
/// per partition: `offsets[p]..offsets[p + 1]`.
pub(super) fn table_offsets(counts: &[usize]) -> Vec<usize> {
    prefix_sums(&counts.iter().map(|&c| capacity_for(c)).collect::<Vec<_>>())
}

/// Empties `table` and inserts `rows` (key, payload), refusing a duplicate key.
pub(super) fn fill_table(table: &mut [Slot], rows: impl Iterator<Item = [u64; 2]>) -> Result<(), JoinError> {
    clear(table);
    for [key, payload] in rows {
        if !insert(table, key as i64, hash(key as i64), payload) {
            return Err(JoinError::DuplicateBuildKey(key as i64));
        }
    }
    Ok(())
}

/// Fills every partition's table (`slots[offsets[p]..offsets[p + 1]]`) with `fill(table, p)`,
/// ranges of partitions on the executor's threads.
pub(super) fn build_tables<'m>(
    slots: &'m mut [Slot],
    offsets: &[usize],
    exec: &dyn Executor,
    fill: impl Fn(&mut [Slot], usize) -> Result<(), JoinError> + Sync,
) -> Result<&'m [Slot], JoinError> {
    let partitions = offsets.len() - 1;
    let mut pieces = Vec::new();
    let mut rest = &mut *slots;
    for range in task_ranges(partitions, exec) {
        let (piece, tail) = rest.split_at_mut(offsets[range.end] - offsets[range.start]);
        pieces.push((range, piece));
        rest = tail;
    }
    let done = exec::map(exec, pieces, |_, (range, piece)| {
        let base = offsets[range.start];
        for p in range {
            fill(&mut piece[offsets[p] - base..offsets[p + 1] - base], p)?;
        }
        Ok(())
    });
    done.into_iter().collect::<Result<Vec<()>, JoinError>>()?;
    Ok(slots)
}

/// Probe keys by partition, partition `p`'s at `keys[starts[p]..starts[p + 1]]`.
pub(super) struct ProbeKeys<'m> {
    starts: Vec<usize>,
    keys: &'m [u64],
}

/// This kernel's probe keys scattered by partition (both passes, a histogram then the copy),
/// and the matches of the keys equal to [`EMPTY`], probed against the sentinel instead.
pub(super) fn scatter_probe<'m>(
    tables: &Tables<'_>,
    probe: &[i64],
    scratch: &'m Scratch<'_>,
) -> Result<(ProbeKeys<'m>, Matches), JoinError> {
    let partitions = tables.offsets.len() - 1;
    let mut counts = vec![0usize; partitions];
    let mut matches = Matches::default();
    for &key in probe {
        if key as u64 == EMPTY {
            tables.sentinel.probe(key, &mut matches);
        } else {
            counts[partition_of_hash(hash(key), tables.bits)] += 1;
        }
    }
    let starts = prefix_sums(&counts);
    let keys = words_in(scratch, starts[partitions])?;
    let mut cursor = starts.clone();
    for &key in probe {
        if key as u64 != EMPTY {
            let p = partition_of_hash(hash(key), tables.bits);
            keys[cursor[p]] = key as u64;
            cursor[p] += 1;
        }
    }
    Ok((ProbeKeys { starts, keys }, matches))
}

/// This kernel's probe of partition `p`: its keys in order against its `table`.
#[inline(always)]
pub(super) fn probe_partition(keys: &ProbeKeys<'_>, p: usize, table: &[Slot], matches: &mut Matches) {
    for &key in &keys.keys[keys.starts[p]..keys.starts[p + 1]] {
        matches.probe(table, key as i64, hash(key as i64));
    }
}

/// The probe every partitioning kernel ends with: each partition's keys (`keys`, as the kernel
/// scattered them, with the matches of the keys it kept apart) against its table by
/// `probe_partition`, ranges of partitions on the executor's threads, the matches summed.
pub(super) fn probe_tables<K: Sync>(
    tables: &Tables<'_>,
    exec: &dyn Executor,
    (keys, matches): (K, Matches),
    probe_partition: impl Fn(&K, usize, &[Slot], &mut Matches) + Sync,
) -> Matches {
    let partitions = tables.offsets.len() - 1;
    let parts = exec::map(exec, task_ranges(partitions, exec), |_, range| {
        let mut matches = Matches::default();
        for p in range {
            probe_partition(&keys, p, &tables.slots[tables.offsets[p]..tables.offsets[p + 1]], &mut matches);
        }
        matches
    });
    parts.into_iter().fold(matches, Matches::merge)
}

/// An upper bound of the scratch: the scattered build rows, the tables (each at most four
/// slots a key, at least 16) and the scattered probe keys, each rounded up to its size class.
pub(super) fn scratch_bytes(build_keys: u64, probe_rows: u64, partitions: u64) -> u64 {
    let rounded = crate::scratch::rounded;
    let tables = build_keys.saturating_mul(4).saturating_add(partitions * 16).saturating_mul(16);
    rounded(build_keys.saturating_mul(16)) + rounded(tables) + rounded(probe_rows.saturating_mul(8))
}
