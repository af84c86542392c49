//! The control experiment: no partitioning, one flat table for all groups, and a software
//! prefetch of the slot that the row [`DISTANCE`] rows ahead will touch. The misses still
//! happen, but many at once instead of one after another: memory-level parallelism instead of
//! locality. Also what the adaptive kernel runs when the groups are a little too many for the
//! cache but not so many that partitioning pays.

use super::GroupByError;
use super::flat::{Slot, capacity_for, drain_into, rehash, upsert};
use super::hash::hash;
use super::phases::{Phase, Phases};
use super::result::Groups;
use super::scratch::Scratch;
use crate::arch::{Line, prefetch};

/// How many rows ahead to prefetch. A DRAM miss takes ~100-150 ns in a VM; one row's work is a
/// few ns, so the line must be asked for tens of rows early. Beyond that, more in flight only
/// competes for the core's miss buffers.
pub(crate) const DISTANCE: usize = 24;

/// The table is grown once it is half full. Fuller tables probe further: in cache each extra
/// probe is a mispredicted branch, in DRAM another miss. (Growing at 3/5 instead saved memory
/// on the clickbench preset but made the cache-sized tables the adaptive kernel relies on ~60%
/// slower: 7.7 against 4.7 ns/row at 65,536 groups.)
const LOAD_NUM: usize = 1;
const LOAD_DEN: usize = 2;

/// A table in scratch memory, `capacity` slots.
struct Table<'m> {
    slots: &'m mut [Slot],
}

impl<'m> Table<'m> {
    fn new(scratch: &'m Scratch<'_>, capacity: usize) -> Result<Self, GroupByError> {
        let lines = scratch.lines(capacity.div_ceil(Line::WORDS / 2))?;
        // Scratch may come back used; empty slots must read as count 0.
        lines.fill(Line::ZERO);
        Ok(Self { slots: &mut Line::words_mut(lines).as_chunks_mut::<2>().0[..capacity] })
    }

    fn capacity(&self) -> usize {
        self.slots.len()
    }
}

/// The initial capacity for a hint of `hint` groups.
pub(super) fn initial_capacity(hint: usize) -> usize {
    capacity_for((hint + hint / 8) * LOAD_DEN / LOAD_NUM, 1)
}

/// The most groups a table of `capacity` slots takes before it grows.
pub(super) fn groups_before_growing(capacity: usize) -> usize {
    capacity / LOAD_DEN * LOAD_NUM
}

/// `groups_hint` sizes the table; too low only costs rehashes.
pub(super) fn aggregate(
    keys: &[i64],
    groups_hint: u64,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    Ok(aggregate_bounded(keys, groups_hint, usize::MAX, scratch, phases)?.expect("no limit"))
}

/// As [`aggregate`], but gives up (returns `None`) as soon as more than `max_groups` groups turn
/// up: the adaptive kernel tries one table this way before paying for partitioning.
pub(super) fn aggregate_bounded(
    keys: &[i64],
    groups_hint: u64,
    max_groups: usize,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Option<Groups>, GroupByError> {
    let hint = usize::try_from(groups_hint).unwrap_or(usize::MAX).min(keys.len()).min(max_groups);
    let mut table = Table::new(scratch, initial_capacity(hint))?;
    let mut groups = 0usize;
    let mut next = 0;
    phases.time(Phase::Aggregate, || -> Result<(), GroupByError> {
        while next < keys.len() {
            if groups > max_groups {
                return Ok(());
            }
            // Each row adds at most one group: check the load once per block, not per row.
            let room = groups_before_growing(table.capacity()).saturating_sub(groups);
            if room == 0 {
                let bigger = Table::new(scratch, table.capacity() * 2)?;
                rehash(table.slots, bigger.slots);
                table = bigger;
                continue;
            }
            let end = keys.len().min(next + room);
            let slots = &mut *table.slots;
            let mask = slots.len() - 1;
            for i in next..end {
                if let Some(&ahead) = keys.get(i + DISTANCE) {
                    prefetch(&slots[hash(ahead) as usize & mask]);
                }
                let key = keys[i];
                groups += usize::from(upsert(slots, key, hash(key), 1));
            }
            next = end;
        }
        Ok(())
    })?;
    if groups > max_groups {
        return Ok(None);
    }
    let mut out = Groups::default();
    phases.time(Phase::Emit, || drain_into(table.slots, &mut out));
    Ok(Some(out))
}
