//! A single-table kernel on every thread: each thread aggregates blocks of the rows, as many as
//! it gets through, into a table of its own, and the tables are merged at the end.
//!
//! Where one table of all groups fits a core's cache (a dashboard's few thousand keys) this is
//! what scales: the rows are read once, in parallel, and the merge touches each thread's groups
//! once, far fewer than its rows. Partitioning (tuned) is what scales past that. Run alone, the
//! single table left every core but one idle: on the 2-vCPU Zen 3 guest, 1,000 keys over 10M
//! rows took adaptive 7.05 ns/row at 2 threads against ClickHouse's 3.45
//! (`bench/sweep.sh --quick`). Only for states whose parts merge exactly (counts, integer sums,
//! min and max): a float sum added in another order rounds differently, and every kernel must
//! give the same answer.

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use allocator_api2::vec::Vec as ScratchVec;

use super::agg::State;
use super::config::{GroupByError, allocation_error};
use super::flat::{Slot, capacity_for, drain_into, filled, merge_into, rehash};
use super::phases::{Phase, Phases};
use super::result::Groups;
use super::work::chunks_for;
use crate::exec::{self, Executor};
use crate::scratch::{Scratch, ScratchAlloc};

/// A thread's groups, `(key, state)` pairs in scratch memory.
pub(super) type Part<'a, 's, S> = ScratchVec<Slot<S>, ScratchAlloc<'a, 's>>;

/// `groups` groups as a part in scratch memory.
pub(super) fn part_of<'a, 's, S: State>(
    scratch: &'a Scratch<'s>,
    groups: usize,
    pairs: impl Iterator<Item = Slot<S>>,
) -> Result<Part<'a, 's, S>, GroupByError> {
    let mut part = Part::new_in(scratch.alloc());
    part.try_reserve_exact(groups).map_err(|_| allocation_error(scratch, groups))?;
    part.extend(pairs);
    Ok(part)
}

/// Whether splitting the rows over threads is worth it and exact for `S`.
pub(super) fn applies<S: State>(rows: usize, exec: &dyn Executor) -> bool {
    S::MERGES_EXACTLY && chunks_for(rows, exec) > 1
}

/// A table a thread fills block after block: hashbrown (`naive::Bounded`) or the flat table
/// (`prefetch::Bounded`).
pub(super) trait PartTable<'a, 's, S: State> {
    /// Adds the rows; `false` once the table has given up (too many groups) or `give_up` is set.
    fn add(&mut self, keys: &[i64], values: &[S::Value], give_up: &AtomicBool) -> Result<bool, GroupByError>;
    /// The groups as `(key, state)` pairs in scratch memory.
    fn into_part(self) -> Result<Part<'a, 's, S>, GroupByError>;
    /// The groups as the merge takes them: as pairs, or the flat table that holds them where it
    /// is one (`flat`'s slots and probing), which the merge can go on in.
    fn into_held(self) -> Result<Held<'a, 's, S>, GroupByError>
    where
        Self: Sized,
    {
        self.into_part().map(Held::Pairs)
    }
}

/// A part's groups as [`merge`] takes them.
pub(super) enum Held<'a, 's, S: State> {
    /// `(key, state)` pairs.
    Pairs(Part<'a, 's, S>),
    /// A flat table (`flat`'s slots, at most half full) holding `groups` groups.
    Table { slots: Part<'a, 's, S>, groups: usize },
}

impl<'a, 's, S: State> Held<'a, 's, S> {
    fn len(&self) -> usize {
        match self {
            Held::Pairs(pairs) => pairs.len(),
            Held::Table { groups, .. } => *groups,
        }
    }

    /// Its table and groups where it is one, else itself.
    fn into_table(self) -> Result<(Part<'a, 's, S>, usize), Self> {
        match self {
            Held::Table { slots, groups } => Ok((slots, groups)),
            pairs => Err(pairs),
        }
    }

    fn pairs(&self) -> impl Iterator<Item = &Slot<S>> {
        let slots = match self {
            Held::Pairs(pairs) => pairs,
            Held::Table { slots, .. } => slots,
        };
        slots.iter().filter(|slot| slot.1.count() != 0)
    }
}

/// Rows a thread takes at a time. Threads take the next block as they finish one, so a thread
/// that runs slower (a vCPU whose host core is shared with another tenant) takes fewer blocks
/// instead of holding up the rest: on the 2-vCPU Xeon guest the two halves of a 1,000-key
/// Zipf run took 4.3 and 2.9 ns/row side by side, and split in halves the run waited for the
/// slower one throughout. A block is a fraction of a millisecond of work, and each costs one
/// atomic add.
const BLOCK_ROWS: usize = 1 << 16;

/// Aggregates the rows into one table per thread (`new_table()`), each thread taking blocks of
/// rows until none are left, and merges what they found with the parts already `done` (over
/// other rows); `None` as soon as one table gives up (the others see `give_up` set and stop
/// early).
pub(super) fn aggregate_bounded<'a, 's, S: State, T: PartTable<'a, 's, S>>(
    keys: &[i64],
    values: &[S::Value],
    done: Vec<Part<'a, 's, S>>,
    exec: &dyn Executor,
    scratch: &'a Scratch<'s>,
    phases: Phases<'_>,
    new_table: impl Fn() -> Result<T, GroupByError> + Sync,
) -> Result<Option<Groups>, GroupByError> {
    let values = &values[..keys.len()];
    let give_up = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let threads = chunks_for(keys.len(), exec);
    let start = phases.start();
    let parts = exec::map(exec, vec![(); threads], |_, ()| {
        let found = fill(&new_table, keys, values, &next, &give_up);
        if !matches!(found, Ok(Some(_))) {
            give_up.store(true, Ordering::Relaxed);
        }
        found
    });
    phases.stop(Phase::Aggregate, start);
    let Some(mut parts) = parts.into_iter().collect::<Result<Option<Vec<_>>, _>>()? else { return Ok(None) };
    parts.extend(done.into_iter().map(Held::Pairs));
    phases.time(Phase::Merge, || merge(parts, scratch)).map(Some)
}

/// One thread's table over the blocks it takes.
fn fill<'a, 's, S: State, T: PartTable<'a, 's, S>>(
    new_table: &impl Fn() -> Result<T, GroupByError>,
    keys: &[i64],
    values: &[S::Value],
    next: &AtomicUsize,
    give_up: &AtomicBool,
) -> Result<Option<Held<'a, 's, S>>, GroupByError> {
    let mut table = new_table()?;
    loop {
        let begin = next.fetch_add(BLOCK_ROWS, Ordering::Relaxed);
        if begin >= keys.len() {
            return table.into_held().map(Some);
        }
        let rows = begin..keys.len().min(begin + BLOCK_ROWS);
        if !table.add(&keys[rows.clone()], &values[rows], give_up)? {
            return Ok(None);
        }
    }
}

/// The parts' groups in one flat table, each group's states merged, handed to the result. The
/// largest part's groups go first: where it holds them in a flat table that table is the
/// merge's, else one sized for them. It doubles only where the union outgrows it: a trial's
/// tables and the threads' tables mostly hold the same keys, and a table sized for every part's
/// groups at once was twice the union's, out of the cache the largest part's fitted (on
/// 100,000 uniform keys over 10M rows, adaptive's merge took 0.52 ns/row where the prefetch
/// kernel's emit took 0.08). Going on in the largest table moves none of its groups.
fn merge<S: State>(mut parts: Vec<Held<'_, '_, S>>, scratch: &Scratch<'_>) -> Result<Groups, GroupByError> {
    parts.sort_by_key(|part| core::cmp::Reverse(part.len()));
    let largest = parts.first().map_or(0, Held::len);
    let first = if parts.is_empty() { None } else { Some(parts.remove(0)) };
    let (mut slots, mut held) = match first.map(Held::into_table) {
        Some(Ok(table)) => table,
        not_a_table => {
            parts.extend(not_a_table.and_then(Result::err));
            (filled(scratch, capacity_for(largest, 2), (0, S::EMPTY))?, 0)
        }
    };
    for (key, state) in parts.iter().flat_map(Held::pairs) {
        if held >= slots.len() / 2 {
            let mut bigger = filled(scratch, slots.len() * 2, (0, S::EMPTY))?;
            rehash(&mut slots, &mut bigger);
            slots = bigger;
        }
        held += usize::from(merge_into(&mut slots, *key, state));
    }
    let mut groups = Groups::default();
    drain_into(&mut slots, &mut groups);
    Ok(groups)
}

/// Scratch bytes beyond the threads' own tables: every part's pairs and the merged table, with
/// the smaller tables it doubled from (together no larger than the last).
pub(super) fn merge_bytes(groups_per_part: u64, parts: u64, slot_bytes: u64) -> u64 {
    let pairs = groups_per_part.saturating_mul(parts);
    let merged = capacity_for(usize::try_from(pairs).unwrap_or(usize::MAX), 2) as u64;
    pairs.saturating_add(merged.saturating_mul(2)).saturating_mul(slot_bytes)
}

#[cfg(test)]
mod tests {
    use super::super::agg::Count;
    use super::*;
    use crate::scratch::{HeapChunks, MemoryPolicy};

    #[test]
    fn merging_grows_past_the_largest_part_where_the_union_does() {
        let scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        let key = |k: i64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as i64);
        // A small part, a large one sharing half its keys, another with keys of its own (the
        // union outgrows the largest part's table), and an empty one.
        let sets: [(core::ops::Range<i64>, u64); 4] = [(0..1_000, 1), (500..5_000, 2), (5_000..20_000, 3), (0..0, 1)];
        let rows: Vec<i64> = sets
            .iter()
            .flat_map(|(keys, count)| keys.clone().flat_map(move |k| (0..*count).map(move |_| key(k))))
            .collect();
        // Each part as pairs, or as a flat table (half full at most, as the prefetched table
        // keeps them), the largest (15,000 groups) or a smaller one; the merge goes on in the
        // largest part's table where it is one.
        for tables in [0..0, 2..3, 1..3, 0..4] {
            let parts: Vec<Held<'_, '_, Count>> = sets
                .iter()
                .enumerate()
                .map(|(i, (keys, count))| {
                    let pairs = keys.clone().map(|k| (key(k) as u64, Count(*count)));
                    let groups = keys.clone().count();
                    if !tables.contains(&i) {
                        return Held::Pairs(part_of(&scratch, groups, pairs).unwrap());
                    }
                    let mut slots = filled(&scratch, capacity_for(groups, 2), (0, Count::EMPTY)).unwrap();
                    for (k, state) in pairs {
                        merge_into(&mut slots, k, &state);
                    }
                    Held::Table { slots, groups }
                })
                .collect();
            let merged = merge(parts, &scratch).unwrap().finish();
            assert_eq!(merged, super::super::result::reference(&rows), "parts {tables:?} held as tables");
        }
    }
}
