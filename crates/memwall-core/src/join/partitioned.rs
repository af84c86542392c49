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

use super::table::{
    EMPTY, Matches, Sentinel, Slot, capacity_for, clear, hash, insert, partition_of_hash, slots_in, words_in,
};
use super::{BuildRow, JoinError};
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
    let offsets = prefix_sums(&counts.iter().map(|&c| capacity_for(c)).collect::<Vec<_>>());
    let slots = slots_in(scratch, offsets[counts.len()])?;
    let rows = &*rows;
    build_tables(slots, &offsets, exec, |table, p| {
        clear(table);
        for &[key, payload] in &rows[starts[p]..starts[p + 1]] {
            if !insert(table, key as i64, hash(key as i64), payload) {
                return Err(JoinError::DuplicateBuildKey(key as i64));
            }
        }
        Ok(())
    })?;
    Ok(Tables { bits, slots, offsets, sentinel })
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

pub(super) fn probe(
    tables: &Tables<'_>,
    probe: &[i64],
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
) -> Result<Matches, JoinError> {
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
    let keys = &*keys;
    Ok(probe_tables(tables, exec, |p| &keys[starts[p]..starts[p + 1]]).merge(matches))
}

/// Probes every partition's table with its keys, `keys_of(p)`, ranges of partitions on the
/// executor's threads.
pub(super) fn probe_tables<'k>(
    tables: &Tables<'_>,
    exec: &dyn Executor,
    keys_of: impl Fn(usize) -> &'k [u64] + Sync,
) -> Matches {
    let partitions = tables.offsets.len() - 1;
    let parts = exec::map(exec, task_ranges(partitions, exec), |_, range| {
        let mut matches = Matches::default();
        for p in range {
            let table = &tables.slots[tables.offsets[p]..tables.offsets[p + 1]];
            for &key in keys_of(p) {
                matches.probe(table, key as i64, hash(key as i64));
            }
        }
        matches
    });
    parts.into_iter().fold(Matches::default(), Matches::merge)
}

/// An upper bound of the scratch: the scattered build rows, the tables (each at most four
/// slots a key, at least 16) and the scattered probe keys, each rounded up to its size class.
pub(super) fn scratch_bytes(build_keys: u64, probe_rows: u64, partitions: u64) -> u64 {
    let rounded = crate::scratch::rounded;
    let tables = build_keys.saturating_mul(4).saturating_add(partitions * 16).saturating_mul(16);
    rounded(build_keys.saturating_mul(16)) + rounded(tables) + rounded(probe_rows.saturating_mul(8))
}
