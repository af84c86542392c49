//! The control experiment: no partitioning, one flat table for all groups, and a software
//! prefetch of the slot that the row [`DISTANCE`] rows ahead will touch. The misses still
//! happen, but many at once instead of one after another: memory-level parallelism instead of
//! locality. Also what the adaptive kernel runs when the groups are a little too many for the
//! cache but not so many that partitioning pays.

use core::sync::atomic::{AtomicBool, Ordering};

use allocator_api2::vec::Vec as ScratchVec;

use super::GroupByError;
use super::agg::State;
use super::flat::{Slot, capacity_for, drain_into, rehash, upsert};
use super::hash::hash;
use super::per_thread::Part;
use super::phases::{Phase, Phases};
use super::result::Groups;
use crate::arch::prefetch;
use crate::scratch::{Scratch, ScratchAlloc};

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
struct Table<'a, 's, S: State> {
    slots: ScratchVec<Slot<S>, ScratchAlloc<'a, 's>>,
}

impl<'a, 's, S: State> Table<'a, 's, S> {
    fn new(scratch: &'a Scratch<'s>, capacity: usize) -> Result<Self, GroupByError> {
        let mut slots = ScratchVec::new_in(scratch.alloc());
        slots.try_reserve_exact(capacity).map_err(|_| {
            let why = scratch.last_error().unwrap_or_else(|| "the size overflows".into());
            GroupByError::Allocation(format!("a table of {capacity} slots: {why}"))
        })?;
        // Scratch may come back used; empty slots must read as count 0.
        slots.resize(capacity, (0, S::EMPTY));
        Ok(Self { slots })
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
pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    Ok(aggregate_bounded::<S>(keys, values, groups_hint, usize::MAX, scratch, phases)?.expect("no limit"))
}

/// As [`aggregate`], but gives up (returns `None`) as soon as more than `max_groups` groups turn
/// up: the adaptive kernel tries one table this way before paying for partitioning.
pub(super) fn aggregate_bounded<S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    max_groups: usize,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Option<Groups>, GroupByError> {
    let never = AtomicBool::new(false);
    let table =
        phases.time(Phase::Aggregate, || table_bounded::<S>(keys, values, groups_hint, max_groups, scratch, &never))?;
    let Some(mut table) = table else { return Ok(None) };
    let mut out = Groups::default();
    phases.time(Phase::Emit, || drain_into(&mut table.slots, &mut out));
    Ok(Some(out))
}

/// One thread's share for [`super::per_thread`]: its rows' groups as `(key, state)` pairs, or
/// `None` once more than `max_groups` turn up or another thread has given up.
pub(super) fn part_bounded<'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    max_groups: usize,
    scratch: &'a Scratch<'s>,
    give_up: &AtomicBool,
) -> Result<Option<Part<'a, 's, S>>, GroupByError> {
    let Some(table) = table_bounded::<S>(keys, values, groups_hint, max_groups, scratch, give_up)? else {
        return Ok(None);
    };
    let full = table.slots.iter().filter(|slot| slot.1.count() != 0);
    let groups = full.clone().count();
    let mut part = Part::new_in(scratch.alloc());
    part.try_reserve_exact(groups).map_err(|_| super::naive::allocation_error(scratch, groups))?;
    part.extend(full.copied());
    Ok(Some(part))
}

/// Rows between two looks at whether another thread gave up.
const GIVE_UP_ROWS: usize = 1 << 16;

/// The prefetched table of `keys`, or `None` as soon as more than `max_groups` groups turn up or
/// `give_up` is set.
fn table_bounded<'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    max_groups: usize,
    scratch: &'a Scratch<'s>,
    give_up: &AtomicBool,
) -> Result<Option<Table<'a, 's, S>>, GroupByError> {
    let hint = usize::try_from(groups_hint).unwrap_or(usize::MAX).min(keys.len()).min(max_groups);
    // Equal lengths, stated once, so that indexing the values checks nothing per row.
    let values = &values[..keys.len()];
    let mut table = Table::<S>::new(scratch, initial_capacity(hint))?;
    let mut groups = 0usize;
    let mut next = 0;
    while next < keys.len() {
        if groups > max_groups || give_up.load(Ordering::Relaxed) {
            return Ok(None);
        }
        // Each row adds at most one group: check the load once per block, not per row.
        let room = groups_before_growing(table.capacity()).saturating_sub(groups);
        if room == 0 {
            let mut bigger = Table::new(scratch, table.capacity() * 2)?;
            rehash(&mut table.slots, &mut bigger.slots);
            table = bigger;
            continue;
        }
        let end = keys.len().min(next + room.min(GIVE_UP_ROWS));
        let slots = &mut *table.slots;
        let mask = slots.len() - 1;
        for i in next..end {
            if let Some(&ahead) = keys.get(i + DISTANCE) {
                prefetch(&slots[hash(ahead) as usize & mask]);
            }
            let key = keys[i];
            groups += usize::from(upsert(slots, key, hash(key), values[i]));
        }
        next = end;
    }
    Ok(if groups > max_groups { None } else { Some(table) })
}
