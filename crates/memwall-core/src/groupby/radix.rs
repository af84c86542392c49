//! Radix partitioning as published: hash each key once with ahash, push `(hash, key)` onto the
//! `Vec` of the partition its top bits name, then aggregate each partition in its own small
//! `hashbrown::HashTable`, reusing the stored hash. Deliberately plain (no histogram, no
//! write-combining, growing `Vec`s): this is the first step past the wall, the tuned kernel the
//! rest of the way.

use hashbrown::HashTable;

use super::hash::{bits_of, partition_of_hash};
use super::naive::ahash_state;
use super::result::Groups;
use super::{aggregate_partitions, chunks_for};
use crate::exec::{self, Executor, split_even};

/// The hash radix partitions and probes with.
pub(crate) fn radix_hash(state: &ahash::RandomState, key: i64) -> u64 {
    state.hash_one(key)
}

pub(super) fn aggregate(keys: &[i64], partitions: u32, exec: &dyn Executor) -> Groups {
    let bits = bits_of(partitions);
    let state = ahash_state();
    // Each thread partitions its own chunk of rows into its own partitions...
    let chunks = split_even(keys.len(), chunks_for(keys.len(), exec));
    let parts: Vec<Vec<Vec<(u64, i64)>>> = exec::map(exec, chunks, |_, range| {
        let mut parts: Vec<Vec<(u64, i64)>> = vec![Vec::new(); partitions as usize];
        for &key in &keys[range] {
            let hash = radix_hash(&state, key);
            parts[partition_of_hash(hash, bits)].push((hash, key));
        }
        parts
    });
    // ...then threads aggregate disjoint ranges of partitions, reading every chunk's share.
    let rows: Vec<usize> = (0..partitions as usize).map(|p| parts.iter().map(|chunk| chunk[p].len()).sum()).collect();
    aggregate_partitions(exec, &rows, |range| {
        let mut groups = Groups::default();
        for p in range {
            let mut table: HashTable<(u64, i64, u64)> = HashTable::new();
            for &(hash, key) in parts.iter().flat_map(|chunk| &chunk[p]) {
                match table.find_mut(hash, |entry| entry.1 == key) {
                    Some(entry) => entry.2 += 1,
                    None => {
                        table.insert_unique(hash, (hash, key, 1), |entry| entry.0);
                    }
                }
            }
            for &(_, key, count) in &table {
                groups.add(key, count);
            }
        }
        groups
    })
}
