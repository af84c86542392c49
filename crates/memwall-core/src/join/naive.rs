//! The textbook hash join: one `hashbrown::HashMap` from key to payload, probed row by row.

use hashbrown::HashMap;
use hashbrown::hash_map::Entry;

use super::config::{BuildRow, JoinError};
use super::table::Matches;
use crate::scratch::Scratch;
use crate::scratch::ScratchAlloc;

pub(super) type Table<'a, 's> = HashMap<i64, u64, ahash::RandomState, ScratchAlloc<'a, 's>>;

/// ahash with fixed seeds, as GROUP BY's naive kernel: runs are repeatable.
fn ahash_state() -> ahash::RandomState {
    ahash::RandomState::with_seeds(0x6a6f_696e, 0x6275_696c, 0x6470_726f, 0x6265_2121)
}

pub(super) fn build<'a, 's>(build: &[BuildRow], scratch: &'a Scratch<'s>) -> Result<Table<'a, 's>, JoinError> {
    let mut table = HashMap::with_hasher_in(ahash_state(), scratch.alloc());
    // The build size is known up front, so the table is sized once, as an engine would; the
    // reservation is where a failed allocation can be reported (inside `insert` it would abort).
    table.try_reserve(build.len()).map_err(|_| {
        let why = scratch.last_error().unwrap_or_else(|| "the table's size overflows".into());
        JoinError::Allocation(format!("a hash table for {} build keys: {why}", build.len()))
    })?;
    for row in build {
        match table.entry(row.key) {
            Entry::Occupied(_) => return Err(JoinError::DuplicateBuildKey(row.key)),
            Entry::Vacant(slot) => {
                slot.insert(row.payload);
            }
        }
    }
    Ok(table)
}

pub(super) fn probe(table: &Table<'_, '_>, probe: &[i64]) -> Matches {
    let mut matches = Matches::default();
    for &key in probe {
        if let Some(&payload) = table.get(&key) {
            matches.add(key, payload);
        }
    }
    matches
}
