//! One flat table for the whole build side, probed with a software prefetch of the slot the row
//! [`DISTANCE`] rows ahead will read: the misses still happen, but many at once.

use super::config::{BuildRow, JoinError};
use super::table::{Matches, Sentinel, Slot, capacity_for, find, hash, insert, new_table};
use crate::arch::prefetch;
use crate::scratch::Scratch;

/// How many rows ahead to prefetch: a DRAM miss is ~100-250 ns, a probe's own work a few ns,
/// so the line must be asked for tens of rows early; far more only competes for the core's
/// miss buffers (the ladder's memory-level parallelism knee is a few dozen on the hosts seen).
pub(super) const DISTANCE: usize = 24;

pub(super) struct Table<'m> {
    pub(super) slots: &'m mut [Slot],
    pub(super) sentinel: Sentinel,
}

pub(super) fn build<'m>(build: &[BuildRow], scratch: &'m Scratch<'_>) -> Result<Table<'m>, JoinError> {
    let slots = new_table(scratch, capacity_for(build.len()))?;
    let mut sentinel = Sentinel::default();
    let mask = slots.len() - 1;
    for (i, &row) in build.iter().enumerate() {
        if let Some(ahead) = build.get(i + DISTANCE) {
            prefetch(&slots[hash(ahead.key) as usize & mask]);
        }
        if sentinel.take(row)? {
            continue;
        }
        if !insert(slots, row.key, hash(row.key), row.payload) {
            return Err(JoinError::DuplicateBuildKey(row.key));
        }
    }
    Ok(Table { slots, sentinel })
}

pub(super) fn probe(table: &Table<'_>, probe: &[i64]) -> Matches {
    probe_with(table.slots, table.sentinel, probe)
}

/// Probes `slots` (and the sentinel) with every key of `probe`, prefetching ahead.
#[inline(always)]
pub(super) fn probe_with(slots: &[Slot], sentinel: Sentinel, probe: &[i64]) -> Matches {
    let mut matches = Matches::default();
    let mask = slots.len() - 1;
    for (i, &key) in probe.iter().enumerate() {
        if let Some(&ahead) = probe.get(i + DISTANCE) {
            prefetch(&slots[hash(ahead) as usize & mask]);
        }
        if key as u64 == super::table::EMPTY {
            sentinel.probe(key, &mut matches);
            continue;
        }
        let h = hash(key);
        let slot = slots[find(slots, key as u64, h)];
        if slot[0] == key as u64 {
            matches.add(key, slot[1]);
        }
    }
    matches
}
