//! The open-addressing table of the tuned and prefetch kernels: one `(key, state)` pair per slot
//! (`state` a count, or a count and aggregates: see `agg.rs`), linear probing, and
//! `count == 0` for an empty slot.
//!
//! Why not `hashbrown`: its control bytes live apart from its slots, so a cold lookup touches
//! two cache lines where this touches one; four slots share a line, so a short probe sequence
//! stays in it. Marking empty slots by their count (a present key counts at least 1) leaves
//! every key value usable, 0 and `i64::MIN` included.

use allocator_api2::vec::Vec as ScratchVec;

use super::agg::State;
use super::config::GroupByError;
use super::hash::hash;
use super::result::Groups;
use crate::scratch::{Scratch, ScratchAlloc};

/// `(key as u64, state)`; a state whose count is 0 marks an empty slot.
pub(crate) type Slot<S> = (u64, S);

/// The slot holding `key` (whose hash is `hash`), or the empty slot where it belongs.
///
/// A hit and an insert end the same way (write the key, add to the count), so the only branch
/// is the probe loop's, taken only when another key holds the slot: a mispredicted branch that
/// waits on a cache miss costs tens of cycles, more than the rest of a row's work.
///
/// `slots.len()` must be a power of two with at least one empty slot left, or this never
/// returns; callers keep the load far below that (see [`capacity_for`]).
#[inline(always)]
pub(crate) fn find<S: State>(slots: &[Slot<S>], key: u64, hash: u64) -> usize {
    let mask = slots.len() - 1;
    let mut i = hash as usize & mask;
    while (slots[i].0 != key) & (slots[i].1.count() != 0) {
        i = (i + 1) & mask;
    }
    i
}

/// Adds a row of `key` (whose hash is `hash`) with value `v`; returns whether the key is new.
#[inline(always)]
pub(crate) fn upsert<S: State>(slots: &mut [Slot<S>], key: i64, hash: u64, v: S::Value) -> bool {
    let i = find(slots, key as u64, hash);
    let slot = &mut slots[i];
    let new = slot.1.count() == 0;
    slot.0 = key as u64;
    slot.1.update(v);
    new
}

/// Puts the whole group `state` of `key` (whose hash is `hash`) where it belongs in a table
/// that does not hold `key` yet.
#[inline(always)]
fn place<S: State>(slots: &mut [Slot<S>], key: u64, hash: u64, state: S) {
    let i = find(slots, key, hash);
    slots[i] = (key, state);
}

/// Adds a group's whole `state` for `key`, seen by another part of the rows, to the table: a
/// new group (`true`), or more rows of one already there.
#[inline(always)]
pub(crate) fn merge_into<S: State>(slots: &mut [Slot<S>], key: u64, state: &S) -> bool {
    let i = find(slots, key, hash(key as i64));
    let new = slots[i].1.count() == 0;
    if new {
        slots[i] = (key, *state);
    } else {
        slots[i].1.merge(state);
    }
    new
}

/// Slots (a power of two) for `groups` keys at most `1 / load_inverse` full.
pub(crate) fn capacity_for(groups: usize, load_inverse: usize) -> usize {
    groups.saturating_mul(load_inverse).max(16).checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1))
}

/// Hands every group to `groups` and empties the table for its next use, in one pass.
///
/// Which slots are full is random, so a branch on it would mispredict often: slots are first
/// packed, a block at a time, into a small array without branching, and only then added.
pub(crate) fn drain_into<S: State>(slots: &mut [Slot<S>], groups: &mut Groups) {
    const BLOCK: usize = 64;
    let mut packed = [(0u64, S::EMPTY); BLOCK];
    for block in slots.chunks_mut(BLOCK) {
        let mut full = 0;
        for slot in block.iter_mut() {
            packed[full] = *slot;
            full += usize::from(slot.1.count() != 0);
            *slot = (0, S::EMPTY);
        }
        for (key, state) in &packed[..full] {
            state.fold(*key as i64, groups);
        }
    }
}

/// Moves every group of `from` into the empty, larger `to`, leaving `from` empty.
///
/// The new slots are prefetched a few groups ahead: a big table's rehash is millions of random
/// writes, and one at a time each would wait for DRAM.
pub(crate) fn rehash<S: State>(from: &mut [Slot<S>], to: &mut [Slot<S>]) {
    const AHEAD: usize = 16;
    let mask = to.len() - 1;
    for i in 0..from.len() {
        if let Some(ahead) = from.get(i + AHEAD)
            && ahead.1.count() != 0
        {
            crate::arch::prefetch(&to[hash(ahead.0 as i64) as usize & mask]);
        }
        let slot = &mut from[i];
        if slot.1.count() != 0 {
            place(to, slot.0, hash(slot.0 as i64), slot.1);
            *slot = (0, S::EMPTY);
        }
    }
}

/// `len` copies of `value` in scratch memory; scratch may come back used, so every slot is
/// written.
pub(crate) fn filled<'a, 's, T: Copy>(
    scratch: &'a Scratch<'s>,
    len: usize,
    value: T,
) -> Result<ScratchVec<T, ScratchAlloc<'a, 's>>, GroupByError> {
    let mut slots = ScratchVec::new_in(scratch.alloc());
    slots.try_reserve_exact(len).map_err(|_| {
        let why = scratch.last_error().unwrap_or_else(|| "the size overflows".into());
        GroupByError::Allocation(format!("a table of {len} slots: {why}"))
    })?;
    slots.resize(len, value);
    Ok(slots)
}

#[cfg(test)]
mod tests {
    use super::super::agg::Count;
    use super::*;

    #[test]
    fn counts_collisions_and_every_key_value() {
        let mut slots = vec![(0u64, Count(0)); 16];
        // Same hash for all: they probe past each other and wrap around the end.
        for key in [0, i64::MIN, i64::MAX, -1, 0, 0, i64::MIN] {
            upsert(&mut slots, key, 15, ());
        }
        let mut groups = Groups::default();
        drain_into(&mut slots, &mut groups);
        assert!(slots.iter().all(|s| *s == (0, Count(0))), "drain empties the table");
        let expected = super::super::result::reference(&[0, i64::MIN, i64::MAX, -1, 0, 0, i64::MIN]);
        assert_eq!(groups.finish(), expected);
    }

    #[test]
    fn rehash_keeps_counts() {
        let keys: Vec<i64> = (0..40).map(|i| i * 1_000_003 - 7).chain(0..10).collect();
        let mut small = vec![(0u64, Count(0)); capacity_for(50, 1)];
        for &k in &keys {
            upsert(&mut small, k, hash(k), ());
        }
        let mut big = vec![(0u64, Count(0)); capacity_for(50, 4)];
        rehash(&mut small, &mut big);
        assert!(small.iter().all(|s| s.1.0 == 0));
        let mut groups = Groups::default();
        drain_into(&mut big, &mut groups);
        assert_eq!(groups.finish(), super::super::result::reference(&keys));
    }

    #[test]
    fn capacities_are_powers_of_two_with_room() {
        assert_eq!(capacity_for(0, 2), 16);
        assert_eq!(capacity_for(100, 2), 256);
        assert_eq!(capacity_for(128, 2), 256);
        assert!(capacity_for(usize::MAX / 2, 2).is_power_of_two());
    }
}
