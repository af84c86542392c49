//! Adaptive's flat table for groups that fit a core's cache: open addressing with linear probing
//! and `count == 0` for an empty slot, as in `flat.rs`, but with the keys in one array and the
//! states in another.
//!
//! In cache nothing waits for DRAM, so what a row costs is the probe's loads and its branch.
//! Apart, the keys take half the bytes of `(key, state)` slots (less again for a sum's wider
//! state), so the probe's lines stay in L1 and a line holds eight keys of a probe sequence
//! instead of four. Measured on a 2-vCPU Xeon guest, 10M rows, a standalone copy of each loop
//! (five rounds, tables a quarter full): 1,000 uniform keys 6.3-6.5 ns/row against 7.8-9.5 for
//! `(key, state)` slots; 1,000 Zipf keys 3.7-4.3 against 5.1-5.4; 10,000 uniform keys 6.1-6.6
//! against 8.6-9.6. Within memwall (`memwall groupby --rows 10M --keys 1000 --kernel adaptive`,
//! the binaries before and after taking turns four times) adaptive went from 4.7-9.8 to 4.1-5.4
//! ns/row at one thread and from 3.6-4.3 to 2.5-2.9 at two (this includes the sparser small
//! tables of [`load_den`]). For a table beyond the cache the `(key, state)` slot stays better: a
//! cold lookup there is one miss instead of two (`prefetch.rs`).

use core::sync::atomic::{AtomicBool, Ordering};

use allocator_api2::vec::Vec as ScratchVec;

use super::agg::State;
use super::config::GroupByError;
use super::flat::{capacity_for, filled};
use super::hash::hash;
use super::pay_back::PayBack;
use super::per_thread::{self, Held, Part, PartTable};
use super::prefetch;
use crate::scratch::{Scratch, ScratchAlloc, rounded};

/// The table is grown once a quarter full, or an eighth while it takes at most a quarter of the
/// per-core cache: in cache memory is cheap, and each extra probe is a branch that mispredicts,
/// so a sparser table pays until its size pushes it out of the faster cache levels. A standalone
/// copy of the loop on a 2-vCPU Xeon guest, 10M rows: 1,000 uniform keys 4.5-5.0 ns/row an eighth
/// full (8,192 slots, 128 KiB) against 6.3-6.5 a quarter full; 10,000 keys (131,072 slots, 2 MiB
/// an eighth full) 6.1-6.7 against 6.1-6.6, and 4.9-5.2 against 4.7-4.9 on Zipf keys. (Half full was
/// worse still: in adaptive's trial, 1,000 groups in 2,048 `(key, state)` slots took 12-16
/// ns/row against 7.8-8.9 a quarter full.)
const LOAD_DEN: usize = 4;
const SPARSE_LOAD_DEN: usize = 8;

/// Grown once more than `1 / load_den(..)` of the slots are full.
fn load_den(slots: usize, group_bytes: usize, cache_bytes: u64) -> usize {
    let bytes = slots.saturating_mul(group_bytes) as u64;
    if bytes <= cache_bytes / 4 { SPARSE_LOAD_DEN } else { LOAD_DEN }
}

/// The groups a table of `slots` slots of `S` holds before it grows.
fn holds<S: State>(slots: usize, cache_bytes: u64) -> usize {
    slots / load_den(slots, size_of::<(u64, S)>(), cache_bytes)
}

/// Scratch bytes of a table grown from empty to `groups` groups of `group_bytes` (a key and its
/// state), every smaller table on the way included (freed, but not reusable by a larger one):
/// the doubling sizes add up to less than twice the last, an eighth full at most.
pub(super) fn chain_bytes(groups: u64, group_bytes: u64) -> u64 {
    let mut last = capacity_for(0, 1) as u64;
    while last / SPARSE_LOAD_DEN as u64 <= groups {
        last *= 2;
    }
    rounded(2 * last * group_bytes)
}

/// Rows between two looks at whether another thread gave up.
const GIVE_UP_ROWS: usize = 1 << 16;

/// A table of at most `max_groups` groups, in scratch memory, that takes rows a slice at a time
/// (adaptive's trial times some of them) and gives up past `max_groups`.
pub(super) struct Bounded<'a, 's, S: State> {
    keys: ScratchVec<u64, ScratchAlloc<'a, 's>>,
    /// `states[i]` is the group of `keys[i]`; a count of 0 marks an empty slot, so every key
    /// value stays usable, 0 and `i64::MIN` included.
    states: ScratchVec<S, ScratchAlloc<'a, 's>>,
    groups: usize,
    max_groups: usize,
    /// The per-core cache: see [`load_den`].
    cache_bytes: u64,
    scratch: &'a Scratch<'s>,
    /// Where the table would grow past the per-core cache, it hands its groups to a prefetched
    /// table ([`Bounded::handing_over`]): the rows its thread takes, for that table's pay-back.
    hand_over: Option<(usize, PayBack)>,
    prefetched: Option<prefetch::Bounded<'a, 's, S>>,
}

impl<'a, 's, S: State> Bounded<'a, 's, S> {
    /// An empty table; it grows with its groups, more sparsely while small against
    /// `cache_bytes`, the per-core cache.
    pub fn new(max_groups: usize, cache_bytes: u64, scratch: &'a Scratch<'s>) -> Result<Self, GroupByError> {
        Self::sized(0, max_groups, cache_bytes, scratch)
    }

    /// As [`Bounded::new`], with room for `groups` groups before it first grows.
    pub fn sized(
        groups: usize,
        max_groups: usize,
        cache_bytes: u64,
        scratch: &'a Scratch<'s>,
    ) -> Result<Self, GroupByError> {
        let mut capacity = capacity_for(0, 1);
        while holds::<S>(capacity, cache_bytes) < groups.min(max_groups) {
            capacity = capacity.checked_mul(2).ok_or_else(|| super::config::allocation_error(scratch, groups))?;
        }
        Ok(Self {
            keys: filled(scratch, capacity, 0)?,
            states: filled(scratch, capacity, S::EMPTY)?,
            groups: 0,
            max_groups,
            cache_bytes,
            scratch,
            hand_over: None,
            prefetched: None,
        })
    }

    /// As [`Bounded::new`], but where the table would grow past the per-core cache it hands its
    /// groups over to a prefetched table that pays back (`prefetch::Bounded`, over `rows` rows)
    /// and goes on as that one. The flat table is made for groups that fit that cache; past it a
    /// cold lookup costs two misses (its key, then its state) and no prefetch hides them. So
    /// adaptive's trial, which times young tables that still fit it, no longer decides for a
    /// whole run that outgrows it: at 100,000 uniform keys it chose the flat table, which then
    /// took 10.6 ns/row where the prefetch kernel took 6.7
    /// (`docs/results/adaptive-order-xeon-2vcpu-kvm/uniform100k/`).
    pub fn handing_over(
        max_groups: usize,
        cache_bytes: u64,
        scratch: &'a Scratch<'s>,
        rows_and_pay_back: (usize, PayBack),
    ) -> Result<Self, GroupByError> {
        Ok(Self { hand_over: Some(rows_and_pay_back), ..Self::new(max_groups, cache_bytes, scratch)? })
    }

    /// Whether growing would take the table past the per-core cache.
    fn outgrows_cache(&self) -> bool {
        (2 * self.keys.len()).saturating_mul(size_of::<(u64, S)>()) as u64 > self.cache_bytes
    }

    /// The prefetched table holding every group of this one, over `rows` rows.
    fn hand_over_to_prefetched(
        &self,
        (rows, pay_back): (usize, PayBack),
    ) -> Result<prefetch::Bounded<'a, 's, S>, GroupByError> {
        let groups = self.groups as u64;
        let mut table =
            prefetch::Bounded::new(rows, groups, self.max_groups, self.cache_bytes, self.scratch, Some(pay_back))?;
        let full = self.keys.iter().zip(self.states.iter()).filter(|(_, state)| state.count() != 0);
        table.adopt(full.map(|(&key, &state)| (key, state)))?;
        Ok(table)
    }

    /// Moves every group into arrays twice the size.
    fn grow(&mut self) -> Result<(), GroupByError> {
        let capacity = self.keys.len() * 2;
        let mut keys = filled(self.scratch, capacity, 0)?;
        let mut states = filled(self.scratch, capacity, S::EMPTY)?;
        for (&key, state) in self.keys.iter().zip(self.states.iter()) {
            if state.count() != 0 {
                let i = find(&keys, &states, key, hash(key as i64));
                keys[i] = key;
                states[i] = *state;
            }
        }
        self.keys = keys;
        self.states = states;
        Ok(())
    }
}

impl<'a, 's, S: State> PartTable<'a, 's, S> for Bounded<'a, 's, S> {
    fn add(&mut self, keys: &[i64], values: &[S::Value], give_up: &AtomicBool) -> Result<bool, GroupByError> {
        // Equal lengths, stated once, so that indexing the values checks nothing per row.
        let values = &values[..keys.len()];
        if let Some(table) = &mut self.prefetched {
            return table.add(keys, values, give_up);
        }
        let mut next = 0;
        while next < keys.len() {
            if self.groups > self.max_groups || give_up.load(Ordering::Relaxed) {
                return Ok(false);
            }
            // Each row adds at most one group: check the load once per block, not per row.
            let slots = self.keys.len();
            let room = holds::<S>(slots, self.cache_bytes).saturating_sub(self.groups);
            if room == 0 {
                if let Some(rows) = self.hand_over.filter(|_| self.outgrows_cache()) {
                    let table = self.prefetched.insert(self.hand_over_to_prefetched(rows)?);
                    return table.add(&keys[next..], &values[next..], give_up);
                }
                self.grow()?;
                continue;
            }
            let end = keys.len().min(next + room.min(GIVE_UP_ROWS));
            let (slot_keys, states) = (&mut *self.keys, &mut *self.states);
            let mut groups = 0;
            for i in next..end {
                let key = keys[i];
                let at = find(slot_keys, states, key as u64, hash(key));
                let state = &mut states[at];
                groups += usize::from(state.count() == 0);
                slot_keys[at] = key as u64;
                state.update(values[i]);
            }
            self.groups += groups;
            next = end;
        }
        Ok(self.groups <= self.max_groups)
    }

    fn into_held(self) -> Result<Held<'a, 's, S>, GroupByError> {
        match self.prefetched {
            Some(table) => table.into_held(),
            None => self.into_part().map(Held::Pairs),
        }
    }

    fn into_part(self) -> Result<Part<'a, 's, S>, GroupByError> {
        if let Some(table) = self.prefetched {
            return table.into_part();
        }
        let full = self.keys.iter().zip(self.states.iter()).filter(|(_, state)| state.count() != 0);
        per_thread::part_of(self.scratch, self.groups, full.map(|(&key, &state)| (key, state)))
    }
}

/// The slot holding `key` (whose hash is `hash`), or the empty slot where it belongs. A hit and
/// an insert end the same way, so the only branch is the probe loop's (see `flat::find`).
#[inline(always)]
fn find<S: State>(keys: &[u64], states: &[S], key: u64, hash: u64) -> usize {
    let mask = keys.len() - 1;
    let states = &states[..keys.len()];
    let mut i = hash as usize & mask;
    while (keys[i] != key) & (states[i].count() != 0) {
        i = (i + 1) & mask;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::super::agg::Count;
    use super::*;
    use crate::scratch::{HeapChunks, MemoryPolicy, Scratch};

    #[test]
    fn grows_keeps_every_key_value_and_gives_up_past_its_limit() {
        let scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        let keys: Vec<i64> = [0, i64::MIN, i64::MAX, -1, 0, 0, i64::MIN].into_iter().chain(0..1000).collect();
        let values = vec![(); keys.len()];
        let never = AtomicBool::new(false);
        // No cache (a quarter full throughout) and a cache the whole table fits (an eighth).
        for cache_bytes in [0, 1 << 20] {
            let mut table = Bounded::<Count>::new(2000, cache_bytes, &scratch).unwrap();
            // Two slices, the second after the table grew several times.
            assert!(table.add(&keys[..5], &values[..5], &never).unwrap());
            assert!(table.add(&keys[5..], &values[5..], &never).unwrap());
            let mut groups = super::super::result::Groups::default();
            for (key, state) in table.into_part().unwrap() {
                state.fold(key as i64, &mut groups);
            }
            assert_eq!(groups.finish(), super::super::result::reference(&keys), "cache {cache_bytes}");
        }

        let mut small = Bounded::<Count>::new(10, 1 << 20, &scratch).unwrap();
        assert!(!small.add(&keys, &values, &never).unwrap(), "more than 10 groups give up");
        let mut stopped = Bounded::<Count>::new(2000, 1 << 20, &scratch).unwrap();
        assert!(!stopped.add(&keys, &values, &AtomicBool::new(true)).unwrap(), "another thread gave up");
    }

    #[test]
    fn hands_its_groups_to_a_prefetched_table_past_the_cache() {
        let scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        let never = AtomicBool::new(false);
        let cache_bytes = 16 << 10;
        // 2,000 keys drawn at random, 200,000 rows: past 16 KiB the flat table hands over, and
        // the prefetched table keeps on (few groups to come) with every count right.
        let mut rng = fastrand::Rng::with_seed(11);
        let keys: Vec<i64> = (0..200_000).map(|_| rng.i64(0..2_000)).collect();
        let values = vec![(); keys.len()];
        let mut table =
            Bounded::<Count>::handing_over(1 << 20, cache_bytes, &scratch, (keys.len(), PayBack::RULE)).unwrap();
        for slice in keys.chunks(30_000) {
            assert!(table.add(slice, &values[..slice.len()], &never).unwrap());
        }
        assert!(table.prefetched.is_some(), "2,000 groups outgrow 16 KiB");
        let mut groups = super::super::result::Groups::default();
        for (key, state) in table.into_part().unwrap() {
            state.fold(key as i64, &mut groups);
        }
        assert_eq!(groups.finish(), super::super::result::reference(&keys));
        // Every row a new key: the prefetched table it hands over to gives up at its first look.
        let distinct: Vec<i64> = (0..100_000).collect();
        let mut table =
            Bounded::<Count>::handing_over(1 << 20, cache_bytes, &scratch, (distinct.len(), PayBack::RULE)).unwrap();
        assert!(!table.add(&distinct, &vec![(); distinct.len()], &never).unwrap());
        // Within the cache it stays flat.
        let mut table =
            Bounded::<Count>::handing_over(1 << 20, 1 << 20, &scratch, (keys.len(), PayBack::RULE)).unwrap();
        assert!(table.add(&keys, &values, &never).unwrap());
        assert!(table.prefetched.is_none());
    }
}
