//! Memory-level parallelism: K interleaved chases over one ring, and the knee past which more
//! chases stop paying.

use memwall_report::{ChainsPoint, Parallelism, Summary};

use super::memory::{Arena, ChaseBuffer};
use super::ring::{CHAIN_COUNTS, LadderError, Ring};
use super::sampling::measure_hops;
use super::sampling::{SampleConfig, ring_seed};
use crate::clock::Clock;

/// The working set memory-level parallelism is measured on when none is asked for (at most the
/// ladder's largest): deep in DRAM on any current host, so every chase misses every cache.
pub const DEFAULT_CHAINS_AT: u64 = 256 << 20;

/// ns per load over one working set with each of `chains` interleaved chases (each one of
/// [`CHAIN_COUNTS`]), fastest sample per count, and the knee (see [`parallelism_knee`]).
pub fn measure_parallelism<A: Arena>(
    arena: &mut A,
    clock: &dyn Clock,
    bytes: u64,
    chains: &[u32],
    config: &SampleConfig,
) -> Result<Parallelism, LadderError> {
    if let Some(&bad) = chains.iter().find(|k| !CHAIN_COUNTS.contains(k)) {
        return Err(LadderError::Chains(bad));
    }
    let len = usize::try_from(bytes).map_err(|_| LadderError::Allocation("larger than this address space".into()))?;
    let mut buffer = arena.allocate(len).map_err(LadderError::Allocation)?;
    let ring = Ring::build(buffer.bytes_mut(), bytes, ring_seed(config.seed, bytes))?;
    if config.warmup {
        super::sampling::warm_up(&ring, ring.start());
    }
    let mut points = Vec::with_capacity(chains.len());
    for &k in chains {
        let mut cursors = ring.spread_starts(k as usize);
        let (_, samples) = measure_hops(clock, config, &mut |hops| {
            ring.chase_chains(&mut cursors, hops);
        });
        let per_load: Vec<f64> = samples.iter().map(|ns| ns / f64::from(k)).collect();
        let summary = Summary::of(&per_load);
        points.push(ChainsPoint {
            chains: k,
            ns_per_load: summary.map_or(f64::NAN, |s| s.min),
            ns_per_load_median: summary.map(|s| s.median),
        });
    }
    Ok(parallelism_from(bytes, points))
}

/// Names the knee of a chains curve and the best speedup over one chase.
pub fn parallelism_from(bytes: u64, mut points: Vec<ChainsPoint>) -> Parallelism {
    points.sort_by_key(|p| p.chains);
    let one = points.iter().find(|p| p.chains == 1).map(|p| p.ns_per_load);
    let best = points.iter().map(|p| p.ns_per_load).filter(|ns| *ns > 0.0).fold(f64::INFINITY, f64::min);
    let max_speedup = one.filter(|_| best.is_finite()).map_or(f64::NAN, |one| one / best);
    Parallelism { bytes, knee_chains: parallelism_knee(&points), max_speedup, points }
}

/// The gain a doubling of chases must bring to count as still climbing: 10% less time per load.
const KNEE_GAIN: f64 = 0.9;

/// The knee of a chains curve (sorted by chains, counts doubling): the smallest K that no larger
/// count in range beats by 10% ([`KNEE_GAIN`]), i.e. about as many misses as the core keeps in
/// flight. Holding K against *every* larger count, not only 2K, keeps one slow point from
/// passing for a knee. `None` when more chases still pay at the end of the range, or with under
/// three points.
pub fn parallelism_knee(points: &[ChainsPoint]) -> Option<u32> {
    if points.len() < 3 {
        return None;
    }
    let ns: Vec<f64> = points.iter().map(|p| p.ns_per_load).collect();
    (0..points.len() - 1)
        .find(|&i| ns[i + 1..].iter().copied().fold(f64::INFINITY, f64::min) > ns[i] * KNEE_GAIN)
        .map(|i| points[i].chains)
}
