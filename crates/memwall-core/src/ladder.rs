//! The latency ladder: a dependent pointer chase over one random cycle of cache lines.
//!
//! Every cache line of the working set holds, in its first word, a pointer to the next line of a
//! single random cycle (Sattolo's algorithm), so each load's address is the previous load's
//! value: the CPU cannot overlap them, and time per hop is the load-to-use latency of whichever
//! level of the memory hierarchy the working set lives in. Random order defeats the prefetchers;
//! one line per hop keeps spatial locality out of it.

mod memory;
mod parallelism;
mod ring;
mod sampling;
mod steps;

pub use memory::{Arena, ChaseBuffer, HeapArena};
pub use parallelism::{DEFAULT_CHAINS_AT, measure_parallelism, parallelism_from, parallelism_knee};
pub use ring::{
    CHAIN_COUNTS, Cursor, LINE_BYTES, LadderError, PAGE_LOCAL_PAGES, PATTERN_PAGE_BYTES, Pattern, Ring, sattolo_cycle,
};
pub use sampling::{
    Cycles, DEFAULT_ATTEMPTS, LadderEvent, SETTLED_SPREAD, SampleConfig, measure_point, measure_ring, ring_seed,
    run_ladder, target_sample_ns,
};
pub use steps::detect_steps;

/// The ring's default seed ("memwall" in ASCII): a browser ring and a native ring of the same
/// size visit lines in the same order.
pub const DEFAULT_SEED: u64 = 0x006d_656d_7761_6c6c;

/// What measuring a ring of `bytes` takes at its peak: the ring, and the permutation of 4 bytes
/// per line it is built from.
pub fn bytes_needed(bytes: u64) -> u64 {
    bytes.saturating_add(bytes / LINE_BYTES as u64 * 4)
}

/// Working-set sizes from `min` to `max` (both included), `points_per_octave` evenly spaced
/// within each octave (2 gives 16K, 24K, 32K, 48K, ...), each a whole number of cache lines.
pub fn ladder_sizes(min: u64, max: u64, points_per_octave: u32) -> Result<Vec<u64>, String> {
    let line = LINE_BYTES as u64;
    if min < 2 * line {
        return Err(format!("--min must be at least {} bytes (two cache lines)", 2 * line));
    }
    if min > max {
        return Err(format!(
            "--min ({}) is larger than --max ({})",
            crate::size::format_bytes(min),
            crate::size::format_bytes(max)
        ));
    }
    if !(1..=64).contains(&points_per_octave) {
        return Err("--points-per-octave must be between 1 and 64".into());
    }
    let round = |b: u64| b / line * line;
    let mut sizes = vec![round(min)];
    let mut octave = 1u64 << (63 - min.leading_zeros());
    while octave <= max {
        for step in 0..u64::from(points_per_octave) {
            let size = round(octave + octave * step / u64::from(points_per_octave));
            if size > round(min) && size < round(max) {
                sizes.push(size);
            }
        }
        match octave.checked_mul(2) {
            Some(next) => octave = next,
            None => break,
        }
    }
    if round(max) > round(min) {
        sizes.push(round(max));
    }
    sizes.dedup();
    Ok(sizes)
}

// Property tests need proptest, which wasm32 lacks; tests/wasm_ladder.rs covers wasm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
