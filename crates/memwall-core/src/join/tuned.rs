//! The fastest join this project found: the radix join of `partitioned`, with the scatters done
//! as the literature does them (Balkesen et al., "Main-memory hash joins on multi-core CPUs").
//!
//! * Each partition collects its rows in one cache line of its own (software write-combining)
//!   and, when the line is full, moves it to the partition's place with non-temporal stores:
//!   the random writes touch one small cache-resident array, and the big destination is written
//!   whole lines at a time, without the read-for-ownership a normal store of a cold line costs.
//!   Partitions start on line boundaries, so every full line lands on one.
//! * Threads scatter disjoint row ranges, each into its own region laid out by its own
//!   histogram, and then build and probe disjoint ranges of partitions: nothing is shared but
//!   read-only tables, nothing is merged but two counters.
//! * The partition count is `partitioned`'s: each table fits half the per-core cache the host
//!   measured.
//! * Each partition's probe loop prefetches the slot of the key [`AHEAD`] keys on (see there).

use core::ops::Range;

use super::config::{BuildRow, JoinConfig, JoinError};
use super::partitioned::{Tables, build_tables, fill_table, table_offsets};
use super::table::{EMPTY, Matches, Sentinel, Slot, hash, partition_of_hash, slots_in};
use crate::arch::{Line, prefetch, stream_fence, stream_line};
use crate::exec::{self, Executor};
use crate::scratch::Scratch;

/// Probe keys ahead whose slot a partition's probe loop prefetches. The tables fit the per-core
/// cache, but not L1, and a collision's mispredicted branch costs the whole load again: with the
/// slot already in L1 it costs less. Measured on the dev VM (2 vCPUs, loaded, two interleaved
/// A/B rounds of `memwall join --build-keys 4Mi --probe-rows 32Mi --kernel tuned,prefetch
/// --runs 3 --declared-caches --no-verify`): tuned's probe phase took 0.570 and 0.531 s
/// without, 0.455 and 0.456 s with.
const AHEAD: usize = 16;

pub(super) const DESCRIPTION: &str =
    "partitioned with write-combined, non-temporal scatters of both sides and prefetched probes within a partition";

pub(super) fn partitions(build_keys: usize, config: &JoinConfig) -> Option<u32> {
    Some(config.partitions_for(build_keys as u64))
}

/// Rows scattered by partition: chunk `c`'s rows of partition `p` are the words
/// `segments[c * partitions + p]` of `words`.
pub(super) struct Scattered<'m> {
    words: &'m [u64],
    segments: Vec<Range<usize>>,
    partitions: usize,
}

impl Scattered<'_> {
    /// Every segment of partition `p`, one per chunk.
    fn of(&self, p: usize) -> impl Iterator<Item = &[u64]> {
        (0..self.segments.len() / self.partitions)
            .map(move |c| &self.words[self.segments[c * self.partitions + p].clone()])
    }
}

/// Scatters `rows` (their `W` words each, from `words_of`) by the partition of their key's hash,
/// skipping rows whose key is [`EMPTY`] (the caller handles those apart).
fn scatter<'m, T: Sync, const W: usize>(
    rows: &[T],
    key_of: impl Fn(&T) -> i64 + Sync,
    words_of: impl Fn(&T) -> [u64; W] + Sync,
    bits: u32,
    exec: &dyn Executor,
    scratch: &'m Scratch<'_>,
) -> Result<Scattered<'m>, JoinError> {
    let partitions = 1usize << bits;
    let chunks = exec::split_even(rows.len(), if rows.len() < 1 << 16 { 1 } else { exec.threads().max(1) });
    let counts = exec::map(exec, chunks.clone(), |_, range| {
        let mut counts = vec![0usize; partitions];
        for row in &rows[range] {
            let key = key_of(row);
            if key as u64 != EMPTY {
                counts[partition_of_hash(hash(key), bits)] += 1;
            }
        }
        counts
    });
    // Chunk-major, each segment starting on a line: every chunk's region is contiguous (so
    // threads get disjoint slices) and every full line a partition fills lands on a line.
    let mut segments = Vec::with_capacity(chunks.len() * partitions);
    let mut at = 0usize;
    let mut regions = Vec::with_capacity(chunks.len());
    for counts in &counts {
        let region_start = at;
        for &count in counts {
            let start = at.next_multiple_of(Line::WORDS);
            segments.push(start..start + count * W);
            at = start + count * W;
        }
        at = at.next_multiple_of(Line::WORDS);
        regions.push(region_start..at);
    }
    let lines = scratch.lines(at / Line::WORDS).map_err(JoinError::from)?;
    let mut pieces = Vec::with_capacity(chunks.len());
    let mut rest = &mut *lines;
    for (c, region) in regions.iter().enumerate() {
        let (piece, tail) = rest.split_at_mut(region.len() / Line::WORDS);
        let buffers = scratch.lines(partitions).map_err(JoinError::from)?;
        pieces.push((chunks[c].clone(), piece, buffers, region.start));
        rest = tail;
    }
    let segments_ref = &segments;
    exec::map(exec, pieces, |c, (range, piece, buffers, base)| {
        // Cursors in words from the start of this chunk's region.
        let mut cursor: Vec<usize> =
            segments_ref[c * partitions..(c + 1) * partitions].iter().map(|s| s.start - base).collect();
        for row in &rows[range] {
            let key = key_of(row);
            if key as u64 == EMPTY {
                continue;
            }
            let p = partition_of_hash(hash(key), bits);
            let at = cursor[p];
            let buffer = &mut buffers[p];
            for (i, word) in words_of(row).into_iter().enumerate() {
                buffer.0[(at + i) % Line::WORDS] = word;
            }
            cursor[p] = at + W;
            // W divides a line's 8 words, so a row never straddles two lines.
            if (at + W).is_multiple_of(Line::WORDS) {
                stream_line(&mut piece[at / Line::WORDS], buffer);
            }
        }
        // The partly filled last line of each partition, with plain stores.
        for (p, &end) in cursor.iter().enumerate() {
            let filled = end % Line::WORDS;
            if filled > 0 {
                piece[end / Line::WORDS].0[..filled].copy_from_slice(&buffers[p].0[..filled]);
            }
        }
        stream_fence();
    });
    Ok(Scattered { words: Line::words(lines), segments, partitions })
}

pub(super) fn build<'m>(
    build: &[BuildRow],
    config: &JoinConfig,
    exec: &dyn Executor,
    scratch: &'m Scratch<'_>,
) -> Result<Tables<'m>, JoinError> {
    let partitions = config.partitions_for(build.len() as u64) as usize;
    let bits = partitions.trailing_zeros();
    let mut sentinel = Sentinel::default();
    for &row in build.iter().filter(|row| row.key as u64 == EMPTY) {
        sentinel.take(row)?;
    }
    let rows = scatter(build, |row| row.key, |row| [row.key as u64, row.payload], bits, exec, scratch)?;
    let counts: Vec<usize> = (0..partitions).map(|p| rows.of(p).map(|s| s.len() / 2).sum()).collect();
    let offsets = table_offsets(&counts);
    let slots = slots_in(scratch, offsets[partitions])?;
    let slots = build_tables(slots, &offsets, exec, |table, p| {
        fill_table(table, rows.of(p).flat_map(|segment| segment.as_chunks::<2>().0.iter().copied()))
    })?;
    Ok(Tables { bits, slots, offsets, sentinel })
}

/// This kernel's probe keys, scattered as the build rows were, and the matches of the keys equal
/// to [`EMPTY`], probed against the sentinel instead.
pub(super) fn scatter_probe<'m>(
    tables: &Tables<'_>,
    probe: &[i64],
    exec: &dyn Executor,
    scratch: &'m Scratch<'_>,
) -> Result<(Scattered<'m>, Matches), JoinError> {
    let mut matches = Matches::default();
    for &key in probe.iter().filter(|&&key| key as u64 == EMPTY) {
        tables.sentinel.probe(key, &mut matches);
    }
    Ok((scatter(probe, |&key| key, |&key| [key as u64], tables.bits, exec, scratch)?, matches))
}

/// This kernel's probe of partition `p`: its keys against its `table`, the slot [`AHEAD`] keys
/// on prefetched.
#[inline(always)]
pub(super) fn probe_partition(keys: &Scattered<'_>, p: usize, table: &[Slot], matches: &mut Matches) {
    let mask = table.len() - 1;
    for segment in keys.of(p) {
        for (i, &key) in segment.iter().enumerate() {
            if let Some(&ahead) = segment.get(i + AHEAD) {
                prefetch(&table[hash(ahead as i64) as usize & mask]);
            }
            matches.probe(table, key as i64, hash(key as i64));
        }
    }
}

/// An upper bound of the scratch: both scatters (each row's words, a line of padding per
/// segment, and a line of write-combining buffer per partition and chunk) and the tables.
pub(super) fn scratch_bytes(build_keys: u64, probe_rows: u64, config: &JoinConfig, threads: usize) -> u64 {
    let rounded = crate::scratch::rounded;
    let partitions = u64::from(config.partitions_for(build_keys));
    let chunks = threads.max(1) as u64;
    let overhead = chunks * partitions * 64 * 2;
    let tables = build_keys.saturating_mul(4).saturating_add(partitions * 16).saturating_mul(16);
    rounded(build_keys.saturating_mul(16).saturating_add(overhead))
        + rounded(probe_rows.saturating_mul(8).saturating_add(overhead))
        + rounded(tables)
        + 2 * chunks * rounded(partitions * 64)
}
