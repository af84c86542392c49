//! Radix partitioning as published: hash each key once with ahash, push `(hash, key)` onto the
//! `Vec` of the partition its top bits name, then aggregate each partition in its own small
//! `hashbrown::HashTable`, reusing the stored hash. Deliberately plain (no histogram, no
//! write-combining, growing `Vec`s): this is the first step past the wall, the tuned kernel the
//! rest of the way.
//!
//! The one liberty taken with the published code: the table is given the bits of the hash that
//! the partitioning did not use ([`table_hash`]). hashbrown takes its 7-bit control tag from
//! the top of the hash, the same bits that chose the partition, so with the hash as it is every
//! key of a partition carries the same tag and every occupied slot of a probed group is a false
//! match to compare keys with (natively; a 32-bit target takes the tag from other bits). That is
//! a handicap nobody intended, and the race should show the design at its best.

use allocator_api2::vec::Vec as ScratchVec;
use hashbrown::HashTable;

use super::agg::State;
use super::config::{GroupByError, allocation_error};
use super::hash::{bits_of, partition_of_hash};
use super::naive::ahash_state;
use super::phases::{Phase, Phases};
use super::result::Groups;
use super::work::{aggregate_partitions, chunks_for};
use crate::exec::{self, Executor, split_even};
use crate::scratch::{Scratch, ScratchAlloc};

/// The hash radix partitions and probes with.
pub(crate) fn radix_hash(state: &ahash::RandomState, key: i64) -> u64 {
    state.hash_one(key)
}

/// The hash a partition's table sees: the bits below the partition's, moved up, so that the
/// table's tag (top bits) and its bucket index (low bits) both vary within a partition. The
/// freed low bits are filled from the middle of the hash, far from both the tag and any index
/// a partition's table would use.
#[inline(always)]
pub(crate) fn table_hash(hash: u64, partition_bits: u32) -> u64 {
    if partition_bits == 0 {
        return hash;
    }
    (hash << partition_bits) | ((hash >> 16) & ((1 << partition_bits) - 1))
}

/// Rows between two checks of a partition table's room: few, because the room is made before
/// the block, and a table reserved far ahead would outgrow the cache before it has to.
pub(super) const BLOCK_ROWS: usize = 256;

type Partition<'a, 's, V> = ScratchVec<(u64, i64, V), ScratchAlloc<'a, 's>>;

pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    partitions: u32,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    let bits = bits_of(partitions);
    let state = ahash_state();
    // Each thread partitions its own chunk of rows into its own partitions...
    let chunks = split_even(keys.len(), chunks_for(keys.len(), exec));
    type Parts<'a, 's, V> = ScratchVec<Partition<'a, 's, V>, ScratchAlloc<'a, 's>>;
    let parts: Vec<Result<Parts<'_, '_, S::Value>, GroupByError>> = exec::map(exec, chunks, |_, range| {
        let (keys, values) = (&keys[range.clone()], &values[range]);
        phases.time(Phase::Scatter, || scatter(keys, values, partitions, bits, &state, scratch))
    });
    let parts = parts.into_iter().collect::<Result<Vec<_>, _>>()?;
    // ...then threads aggregate disjoint ranges of partitions, reading every chunk's share.
    let rows: Vec<usize> = (0..partitions as usize).map(|p| parts.iter().map(|chunk| chunk[p].len()).sum()).collect();
    aggregate_partitions(exec, &rows, phases, |range| {
        let mut groups = Groups::default();
        for p in range {
            let mut table: HashTable<(u64, i64, S), _> = HashTable::new_in(scratch.alloc());
            let mut rows = parts.iter().flat_map(|chunk| &chunk[p]).peekable();
            phases.time(Phase::Aggregate, || -> Result<(), GroupByError> {
                while rows.peek().is_some() {
                    // Room for a block of new keys before it, where a failure can be reported.
                    table
                        .try_reserve(BLOCK_ROWS, |entry| entry.0)
                        .map_err(|_| allocation_error(scratch, table.len()))?;
                    for &(hash, key, v) in rows.by_ref().take(BLOCK_ROWS) {
                        let hash = table_hash(hash, bits);
                        match table.find_mut(hash, |entry| entry.1 == key) {
                            Some(entry) => entry.2.update(v),
                            None => {
                                let mut state = S::EMPTY;
                                state.update(v);
                                table.insert_unique(hash, (hash, key, state), |entry| entry.0);
                            }
                        }
                    }
                }
                Ok(())
            })?;
            phases.time(Phase::Emit, || {
                for (_, key, state) in &table {
                    state.fold(*key, &mut groups);
                }
            });
        }
        Ok(groups)
    })
}

/// Pushes every key of `keys`, with its hash, onto the vector of its partition.
fn scatter<'a, 's, V: Copy>(
    keys: &[i64],
    values: &[V],
    partitions: u32,
    bits: u32,
    state: &ahash::RandomState,
    scratch: &'a Scratch<'s>,
) -> Result<ScratchVec<Partition<'a, 's, V>, ScratchAlloc<'a, 's>>, GroupByError> {
    let alloc = scratch.alloc();
    let mut parts = ScratchVec::new_in(alloc);
    parts.try_reserve_exact(partitions as usize).map_err(|_| allocation_error(scratch, 0))?;
    parts.resize_with(partitions as usize, || ScratchVec::new_in(alloc));
    for (&key, &v) in keys.iter().zip(values) {
        let hash = radix_hash(state, key);
        let part: &mut Partition<'_, '_, V> = &mut parts[partition_of_hash(hash, bits)];
        // What `push` does when full, made fallible: a failed allocation is an error to
        // report, not an abort.
        if part.len() == part.capacity() {
            part.try_reserve(1).map_err(|_| GroupByError::Allocation(vector_error(scratch)))?;
        }
        part.push((hash, key, v));
    }
    Ok(parts)
}

fn vector_error(scratch: &Scratch<'_>) -> String {
    format!("growing a partition: {}", scratch.last_error().unwrap_or_else(|| "its size overflows".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tags hashbrown would see (top 7 bits) for the keys of one partition.
    fn tags_in_partition(hash_for_table: impl Fn(u64) -> u64) -> usize {
        let state = ahash_state();
        let bits = 12;
        let mut tags = std::collections::HashSet::new();
        for key in 0..4_000_000i64 {
            let hash = radix_hash(&state, key);
            if partition_of_hash(hash, bits) == 7 {
                tags.insert(hash_for_table(hash) >> 57);
            }
        }
        tags.len()
    }

    #[test]
    fn a_partitions_keys_carry_every_tag() {
        assert_eq!(tags_in_partition(|hash| hash), 1, "the handicap this module removes");
        // ~980 keys over 128 tags: all but a very unlucky few show up.
        assert!(tags_in_partition(|hash| table_hash(hash, 12)) >= 120);
    }

    #[test]
    fn table_hashes_spread_over_buckets_within_a_partition() {
        let state = ahash_state();
        let mut buckets = vec![0u32; 64];
        let mut seen = 0;
        for key in 0..4_000_000i64 {
            let hash = radix_hash(&state, key);
            if partition_of_hash(hash, 12) == 3 {
                buckets[table_hash(hash, 12) as usize & 63] += 1;
                seen += 1;
            }
        }
        // ~15 keys a bucket, evenly: the partition bits moved out of the index did not clump them.
        let mean = f64::from(seen) / 64.0;
        assert!(buckets.iter().all(|&b| f64::from(b) < mean * 3.0 && f64::from(b) > mean / 3.0), "{buckets:?}");
        assert_eq!(table_hash(0xdead_beef, 0), 0xdead_beef);
    }
}
