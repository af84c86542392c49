//! The textbook GROUP BY, and the baseline every other kernel is measured against.

use hashbrown::HashMap;

use super::GroupByError;
use super::agg::State;
use super::phases::{Phase, Phases};
use super::result::Groups;
use crate::scratch::Scratch;

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
    let mut counts: HashMap<i64, S, ahash::RandomState, _> = HashMap::with_hasher_in(ahash_state(), scratch.alloc());
    // Checking the size once per block keeps the check off the per-row path. Room for a block's
    // worth of new keys is made before the block, where a failed allocation can be reported
    // (inside `entry` it would abort): hashbrown still doubles when it grows, so the table is
    // the textbook one, reserved at most one block early.
    let fits = phases.time(Phase::Aggregate, || -> Result<bool, GroupByError> {
        for (block, values) in keys.chunks(BLOCK_ROWS).zip(values.chunks(BLOCK_ROWS)) {
            counts.try_reserve(block.len()).map_err(|_| allocation_error(scratch, counts.len()))?;
            for (&key, &v) in block.iter().zip(values) {
                counts.entry(key).or_insert(S::EMPTY).update(v);
            }
            if counts.len() > max_groups {
                return Ok(false);
            }
        }
        Ok(true)
    })?;
    if !fits {
        return Ok(None);
    }
    Ok(Some(phases.time(Phase::Emit, || {
        let mut groups = Groups::default();
        for (&key, state) in &counts {
            state.fold(key, &mut groups);
        }
        groups
    })))
}

pub(super) fn allocation_error(scratch: &Scratch<'_>, groups: usize) -> GroupByError {
    let why = scratch.last_error().unwrap_or_else(|| "the table's size overflows".into());
    GroupByError::Allocation(format!("growing a hash table past {groups} groups: {why}"))
}
