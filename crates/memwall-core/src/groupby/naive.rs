//! The textbook GROUP BY, and the baseline every other kernel is measured against.

use core::sync::atomic::{AtomicBool, Ordering};

use hashbrown::HashMap;

use super::agg::State;
use super::config::{GroupByError, allocation_error};
use super::per_thread::{Part, PartTable};
use super::phases::{Phase, Phases};
use super::result::Groups;
use crate::scratch::{Scratch, ScratchAlloc};

/// ahash with fixed seeds: runs are repeatable, and the published naive and radix runs use ahash.
pub(crate) fn ahash_state() -> ahash::RandomState {
    ahash::RandomState::with_seeds(0x6d65_6d77, 0x616c_6c21, 0x6772_6f75, 0x7062_7921)
}

/// Rows between two checks of the table's size (and of its room: see [`aggregate_bounded`]).
pub(super) const BLOCK_ROWS: usize = 4096;

pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    Ok(aggregate_bounded::<S>(keys, values, usize::MAX, scratch, phases)?.expect("no limit"))
}

/// As [`aggregate`], but gives up (returns `None`) as soon as more than `max_groups` groups turn
/// up: the adaptive kernel tries the textbook table this way first.
pub(super) fn aggregate_bounded<S: State>(
    keys: &[i64],
    values: &[S::Value],
    max_groups: usize,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Option<Groups>, GroupByError> {
    let never = AtomicBool::new(false);
    let Some(counts) =
        phases.time(Phase::Aggregate, || table_bounded::<S>(keys, values, max_groups, scratch, &never))?
    else {
        return Ok(None);
    };
    Ok(Some(phases.time(Phase::Emit, || {
        let mut groups = Groups::default();
        for (&key, state) in &counts {
            state.fold(key, &mut groups);
        }
        groups
    })))
}

type Table<'a, 's, S> = HashMap<i64, S, ahash::RandomState, ScratchAlloc<'a, 's>>;

/// The textbook table of `keys`, or `None` as soon as more than `max_groups` groups turn up or
/// `give_up` is set.
fn table_bounded<'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    max_groups: usize,
    scratch: &'a Scratch<'s>,
    give_up: &AtomicBool,
) -> Result<Option<Table<'a, 's, S>>, GroupByError> {
    let mut table = Bounded::<S>::new(max_groups, scratch);
    Ok(table.add(keys, values, give_up)?.then_some(table.table))
}

/// A textbook table that takes rows a slice at a time (adaptive's trial times some of them)
/// and gives up past `max_groups` groups.
pub(super) struct Bounded<'a, 's, S: State> {
    table: Table<'a, 's, S>,
    max_groups: usize,
    scratch: &'a Scratch<'s>,
}

impl<'a, 's, S: State> Bounded<'a, 's, S> {
    pub fn new(max_groups: usize, scratch: &'a Scratch<'s>) -> Self {
        Self { table: HashMap::with_hasher_in(ahash_state(), scratch.alloc()), max_groups, scratch }
    }

    /// Makes room for `groups` groups in all (at most its limit), so that none of them grows it.
    pub fn reserve(&mut self, groups: usize) -> Result<(), GroupByError> {
        let more = groups.min(self.max_groups).saturating_sub(self.table.len());
        self.table.try_reserve(more).map_err(|_| allocation_error(self.scratch, self.table.len()))
    }

    /// How its groups' counts stand.
    pub fn counts(&self) -> super::arrivals::Counts {
        super::arrivals::Counts::of(self.table.values().map(|state| state.count()))
    }
}

impl<'a, 's, S: State> PartTable<'a, 's, S> for Bounded<'a, 's, S> {
    /// Adds the rows; `false` once more than `max_groups` groups are in, or `give_up` is set.
    fn add(&mut self, keys: &[i64], values: &[S::Value], give_up: &AtomicBool) -> Result<bool, GroupByError> {
        let counts = &mut self.table;
        // Checking the size once per block keeps the check off the per-row path. Room for a
        // block's worth of new keys is made before the block, where a failed allocation can be
        // reported (inside `entry` it would abort): hashbrown still doubles when it grows, so the
        // table is the textbook one, reserved at most one block early.
        for (block, values) in keys.chunks(BLOCK_ROWS).zip(values.chunks(BLOCK_ROWS)) {
            counts.try_reserve(block.len()).map_err(|_| allocation_error(self.scratch, counts.len()))?;
            for (&key, &v) in block.iter().zip(values) {
                counts.entry(key).or_insert(S::EMPTY).update(v);
            }
            if counts.len() > self.max_groups || give_up.load(Ordering::Relaxed) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn into_part(self) -> Result<Part<'a, 's, S>, GroupByError> {
        let pairs = self.table.iter().map(|(&key, &state)| (key as u64, state));
        super::per_thread::part_of(self.scratch, self.table.len(), pairs)
    }
}
