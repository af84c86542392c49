//! Aggregating the partitions: flat tables that list their filled slots, one reused from
//! partition to partition (split further in cache where a partition holds more groups than it
//! fits), or one per partition kept across the rounds of a pre-aggregating scatter
//! (`rounds.rs`).

use allocator_api2::vec::Vec as ScratchVec;

use super::layout::{LOAD_INVERSE, MIN_TABLE_SLOTS, Scratched, Table};
use super::scatter::out_of_scratch;
use crate::groupby::agg::{RowValue, State};
use crate::groupby::config::GroupByError;
use crate::groupby::flat::{Slot, capacity_for, find};
use crate::groupby::hash::{hash, partition_of_hash};
use crate::groupby::phases::{Phase, Phases};
use crate::groupby::result::Groups;
use crate::scratch::Scratch;

/// Aggregates one row (`key`, `v`) into `slots`, listing its slot in `touched` at `fresh` and
/// moving `fresh` on where the key is new.
#[inline(always)]
fn count_row<S: State>(slots: &mut [Slot<S>], touched: &mut [u32], fresh: &mut usize, key: u64, v: S::Value) {
    let i = find(slots, key, hash(key as i64));
    let slot = &mut slots[i];
    let new = slot.1.count() == 0;
    slot.0 = key;
    slot.1.update(v);
    // Written always, kept only for a new key: no branch on whether the key is new.
    touched[*fresh] = i as u32;
    *fresh += usize::from(new);
}

/// Aggregates every row of `block` (rows of `S::WORDS` words) into `slots`, listing in
/// `touched` (from index `groups` on) the slot of each key seen for the first time. Returns the
/// number of new keys.
pub(super) fn count_block<S: State>(slots: &mut [Slot<S>], block: &[u64], touched: &mut [u32], groups: usize) -> usize {
    let mut fresh = groups;
    if S::WORDS == 1 {
        block.iter().for_each(|&key| count_row::<S>(slots, touched, &mut fresh, key, RowValue::from_bits(0)));
    } else {
        block.as_chunks::<2>().0.iter().for_each(|&[key, bits]| {
            count_row::<S>(slots, touched, &mut fresh, key, RowValue::from_bits(bits));
        });
    }
    fresh - groups
}

/// Below this room (in groups), [`GroupTable::count`] checks the load at every row instead of
/// counting blocks of `room` rows.
const CHECKED_ROOM: usize = 64;

/// Aggregates the rows of `rows` into `slots` as [`count_block`] does, up to the row that brings
/// the groups to `limit`. Returns the rows counted and the groups then.
fn count_until_full<S: State>(
    slots: &mut [Slot<S>],
    rows: &[u64],
    touched: &mut [u32],
    groups: usize,
    limit: usize,
) -> (usize, usize) {
    let mut fresh = groups;
    for (counted, row) in rows.chunks_exact(S::WORDS).enumerate() {
        let value = RowValue::from_bits(if S::WORDS == 2 { row[1] } else { 0 });
        count_row::<S>(slots, touched, &mut fresh, row[0], value);
        if fresh == limit {
            return (counted + 1, fresh);
        }
    }
    (rows.len() / S::WORDS, fresh)
}

/// A flat table and the list of its filled slots: emptied by visiting those slots only, grown
/// in place.
pub(super) struct GroupTable<'a, 's, S: State> {
    scratch: &'a Scratch<'s>,
    /// All `(0, EMPTY)` but the slots listed in `touched`; its length only grows.
    pub(super) slots: Table<'a, 's, S>,
    /// The slots in use, in the order they filled: room for a quarter of `capacity`.
    touched: Scratched<'a, 's, u32>,
    /// Slots in use of `slots` (a power of two, or 0 before the first [`GroupTable::start`]).
    capacity: usize,
    /// Groups the table holds.
    pub(super) groups: usize,
}

impl<'a, 's, S: State> GroupTable<'a, 's, S> {
    pub(super) fn new(scratch: &'a Scratch<'s>) -> Self {
        Self {
            scratch,
            slots: ScratchVec::new_in(scratch.alloc()),
            touched: ScratchVec::new_in(scratch.alloc()),
            capacity: 0,
            groups: 0,
        }
    }

    /// Readies the empty table to use `capacity` slots (a power of two).
    pub(super) fn start(&mut self, capacity: usize) -> Result<(), GroupByError> {
        debug_assert_eq!(self.groups, 0);
        self.reserve(capacity)?;
        self.capacity = capacity;
        Ok(())
    }

    /// Makes `slots` at least `capacity` long and `touched` room for a quarter of them.
    fn reserve(&mut self, capacity: usize) -> Result<(), GroupByError> {
        if self.slots.len() < capacity {
            let more = capacity - self.slots.len();
            let bytes = capacity * size_of::<Slot<S>>();
            self.slots.try_reserve_exact(more).map_err(|_| out_of_scratch(self.scratch, bytes))?;
            self.slots.resize(capacity, (0, S::EMPTY));
        }
        let touched = capacity / LOAD_INVERSE;
        if self.touched.len() < touched {
            let more = touched - self.touched.len();
            self.touched.try_reserve_exact(more).map_err(|_| out_of_scratch(self.scratch, touched * 4))?;
            self.touched.resize(touched, 0);
        }
        Ok(())
    }

    /// Bytes the table holds (its slots and its list of them).
    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * size_of::<Slot<S>>() + self.touched.len() * size_of::<u32>()
    }

    /// Counts every row of `shares` (slices of whole rows), growing the table when it must.
    pub(super) fn count<'k>(&mut self, shares: impl IntoIterator<Item = &'k [u64]>) -> Result<(), GroupByError> {
        for mut share in shares {
            while !share.is_empty() {
                // Each row adds at most one group: check the load once per block, not per row.
                let room = self.capacity / LOAD_INVERSE - self.groups;
                if room == 0 {
                    self.grow()?;
                    continue;
                }
                let rows = share.len() / S::WORDS;
                let slots = &mut self.slots[..self.capacity];
                if room < rows.min(CHECKED_ROOM) {
                    // A small table kept across rounds (`rounds.rs`) has room for a few groups
                    // only: blocks of a few rows cost more than a check a row.
                    let limit = self.capacity / LOAD_INVERSE;
                    let (counted, groups) = count_until_full::<S>(slots, share, &mut self.touched, self.groups, limit);
                    self.groups = groups;
                    share = &share[counted * S::WORDS..];
                    continue;
                }
                let (block, tail) = share.split_at(room.min(rows) * S::WORDS);
                self.groups += count_block::<S>(slots, block, &mut self.touched, self.groups);
                share = tail;
            }
        }
        Ok(())
    }

    /// Puts in groups whose keys the table does not hold yet, states and all: a group carried
    /// from earlier rows goes on exactly as if its rows had been counted here.
    pub(super) fn insert(&mut self, groups: impl IntoIterator<Item = Slot<S>>) -> Result<(), GroupByError> {
        for (key, state) in groups {
            if self.groups == self.capacity / LOAD_INVERSE {
                self.grow()?;
            }
            let i = find(&self.slots[..self.capacity], key, hash(key as i64));
            debug_assert_eq!(self.slots[i].1.count(), 0, "each key is inserted once");
            self.slots[i] = (key, state);
            self.touched[self.groups] = i as u32;
            self.groups += 1;
        }
        Ok(())
    }

    /// The groups the table holds, in the order they came.
    pub(super) fn filled(&self) -> impl ExactSizeIterator<Item = Slot<S>> + '_ {
        self.touched[..self.groups].iter().map(|&i| self.slots[i as usize])
    }

    /// Hands every group to `out` and empties the table for its next use.
    pub(super) fn emit(&mut self, out: &mut Groups) {
        for &i in &self.touched[..self.groups] {
            let slot = &mut self.slots[i as usize];
            slot.1.fold(slot.0 as i64, out);
            *slot = (0, S::EMPTY);
        }
        self.groups = 0;
    }

    /// Doubles the slots in use, moving the groups to where the larger table wants them and
    /// listing where they went.
    ///
    /// In place, touching only the groups (listed in `touched`): the table's length is the
    /// largest any partition needed, and a partition after a hot one (a Zipf key's partition
    /// holds a million rows and a few hundred groups, so the next is sized for almost none)
    /// grows several times. Reallocating and zeroing the whole table at every growth made tuned's
    /// aggregation 12x slower on Zipf keys than on uniform ones at 10^6 keys (`memwall groupby
    /// --rows 10M --keys 1M --skew zipf:1.1 --kernel tuned --phases`: 48 ns/row against 4).
    #[cold]
    fn grow(&mut self) -> Result<(), GroupByError> {
        let (capacity, groups) = (self.capacity * 2, self.groups);
        self.reserve(capacity)?;
        let mut moved: Scratched<'a, 's, Slot<S>> = ScratchVec::new_in(self.scratch.alloc());
        moved.try_reserve_exact(groups).map_err(|_| out_of_scratch(self.scratch, groups * size_of::<Slot<S>>()))?;
        for &i in &self.touched[..groups] {
            moved.push(core::mem::replace(&mut self.slots[i as usize], (0, S::EMPTY)));
        }
        let slots = &mut self.slots[..capacity];
        for (listed, &(key, state)) in self.touched.iter_mut().zip(moved.iter()) {
            let i = find(slots, key, hash(key as i64));
            slots[i] = (key, state);
            *listed = i as u32;
        }
        self.capacity = capacity;
        debug_assert_eq!(self.slots[..capacity].iter().filter(|s| s.1.count() != 0).count(), groups);
        Ok(())
    }
}

/// One task's table, reused partition after partition, and the groups it has found.
pub(super) struct Aggregator<'a, 's, S: State> {
    pub(super) scratch: &'a Scratch<'s>,
    /// Empty outside of `aggregate`.
    pub(super) table: GroupTable<'a, 's, S>,
    /// Groups per row of the last partition: the next partition's table is sized by it.
    pub(super) groups_per_row: Option<f64>,
    /// The most groups a table is sized for up front (it grows past that if it must)...
    pub(super) cache_table_groups: usize,
    /// ...unless a partition already had more.
    pub(super) most_groups: usize,
    /// Rows of one partition, split further by the next hash bits.
    pub(super) split: Scratched<'a, 's, u64>,
    pub(super) groups: Groups,
    pub(super) phases: Phases<'a>,
}

impl<'a, 's, S: State> Aggregator<'a, 's, S> {
    pub(super) fn new(scratch: &'a Scratch<'s>, cache_table_groups: usize, phases: Phases<'a>) -> Self {
        Self {
            scratch,
            table: GroupTable::new(scratch),
            groups_per_row: None,
            cache_table_groups,
            most_groups: 0,
            split: ScratchVec::new_in(scratch.alloc()),
            groups: Groups::default(),
            phases,
        }
    }

    /// Aggregates the rows of one partition, given as slices of words, `rows` rows in all, after
    /// the groups `carried` from rows counted before (by a pre-aggregating scatter, `rounds.rs`).
    pub(super) fn aggregate<'k>(
        &mut self,
        shares: impl IntoIterator<Item = &'k [u64]>,
        rows: usize,
        carried: impl ExactSizeIterator<Item = Slot<S>>,
    ) -> Result<(), GroupByError> {
        if rows == 0 && carried.len() == 0 {
            return Ok(());
        }
        // Partitions of one input are alike, so the last one predicts this one's groups. A wrong
        // guess only costs a rehash.
        // Never sized past the cache up front, nor past what a partition has needed so far: a
        // partition that needs more grows into it.
        let expected = match self.groups_per_row {
            Some(ratio) => ((rows as f64 * ratio * 1.1) as usize + 16).min(rows),
            None => rows,
        } + carried.len();
        let expected = expected.min(self.cache_table_groups.max(self.most_groups + self.most_groups / 8));
        self.table.start(capacity_for(expected, LOAD_INVERSE).max(MIN_TABLE_SLOTS))?;
        let phases = self.phases;
        phases.time(Phase::Aggregate, || -> Result<(), GroupByError> {
            self.table.insert(carried)?;
            self.table.count(shares)
        })?;
        let groups = self.table.groups;
        phases.time(Phase::Emit, || self.table.emit(&mut self.groups));
        if rows > 0 {
            self.groups_per_row = Some(groups as f64 / rows as f64);
        }
        self.most_groups = self.most_groups.max(groups);
        Ok(())
    }

    /// Splits one scatter partition by the next `split_bits` hash bits into `self.split` (in
    /// cache: one partition is a small fraction of the input), then aggregates each piece, with
    /// the groups `carried` from earlier rows that belong to it.
    pub(super) fn split_and_aggregate<'k>(
        &mut self,
        shares: impl Iterator<Item = &'k [u64]> + Clone,
        rows: usize,
        carried: &mut [Slot<S>],
        scatter_bits: u32,
        split_bits: u32,
    ) -> Result<(), GroupByError> {
        let pieces = 1usize << split_bits;
        let piece_of = |key: u64| partition_of_hash(hash(key as i64) << scatter_bits, split_bits);
        let phases = self.phases;
        let split_start = phases.start();
        let mut starts = vec![0usize; pieces + 1];
        let rows_of = |share: &'k [u64]| share.chunks_exact(S::WORDS);
        for row in shares.clone().flat_map(rows_of) {
            starts[piece_of(row[0]) + 1] += S::WORDS;
        }
        for p in 0..pieces {
            starts[p + 1] += starts[p];
        }
        let mut split = core::mem::replace(&mut self.split, ScratchVec::new_in(self.scratch.alloc()));
        let words = rows * S::WORDS;
        if split.len() < words {
            // Doubling, not exact: partitions of slowly growing sizes would otherwise leave a
            // trail of blocks one size class apart.
            split.try_reserve(words - split.len()).map_err(|_| out_of_scratch(self.scratch, words * 8))?;
            split.resize(words, 0);
        }
        let mut next = starts.clone();
        for row in shares.flat_map(rows_of) {
            let piece = piece_of(row[0]);
            split[next[piece]..next[piece] + S::WORDS].copy_from_slice(row);
            next[piece] += S::WORDS;
        }
        // The carried groups in piece order (stable: each piece's keep the order they came in).
        carried.sort_by_key(|&(key, _)| piece_of(key));
        phases.stop(Phase::Split, split_start);
        let mut carried: &[Slot<S>] = carried;
        for (piece, bounds) in starts.windows(2).enumerate() {
            let (own, rest) = carried.split_at(carried.partition_point(|&(key, _)| piece_of(key) <= piece));
            carried = rest;
            self.aggregate([&split[bounds[0]..bounds[1]]], (bounds[1] - bounds[0]) / S::WORDS, own.iter().copied())?;
        }
        self.split = split;
        Ok(())
    }
}
