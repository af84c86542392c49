//! Timing a ring: samples of a calibrated length, retries of disturbed sizes, and the ladder
//! as a run over every size.

use core::ops::ControlFlow;

use memwall_report::{LadderPoint, Summary};

use super::memory::{Arena, ChaseBuffer};
use super::ring::{LINE_BYTES, LadderError, Pattern, Ring};
use crate::clock::{Clock, time_ns};
use crate::cycles::ClockProbe;

/// How each working set is measured.
#[derive(Debug, Clone)]
pub struct SampleConfig {
    /// Each timed sample is calibrated to about this long; keep it far above the timer's
    /// resolution (see [`target_sample_ns`]).
    pub target_sample_ns: f64,
    /// Timed samples kept per working set.
    pub samples: u32,
    /// Chase the whole ring once before timing.
    pub warmup: bool,
    pub seed: u64,
    /// Measurements a working set gets at most. One whose samples spread more than
    /// [`SETTLED_SPREAD`] was most likely disturbed (another tenant on the core, an interrupt
    /// storm: noise only ever adds time) and is measured again; the attempt with the lowest
    /// median is kept, and the point says how many were made. 1 measures once.
    pub attempts: u32,
    /// The order the chase visits lines in.
    pub pattern: Pattern,
    /// The clock's step. A sample's time is the difference of two reads, each off by up to a
    /// step, so samples of a coarse timer (Firefox's 1 ms, or Chrome's 100 µs where the page is
    /// not isolated) spread by up to two steps without any disturbance; only spread beyond that
    /// asks for another attempt (see [`SampleConfig::settled_spread`]).
    pub timer_resolution_ns: f64,
}

impl SampleConfig {
    /// The spread under which a working set's samples count as undisturbed: [`SETTLED_SPREAD`],
    /// plus what two readings of this clock can add to a sample of the target length. Without
    /// it, 50-tick samples (the browser's first look on a coarse timer: 4% of rounding) were
    /// measured again at nearly every size.
    pub fn settled_spread(&self) -> f64 {
        SETTLED_SPREAD + 2.0 * self.timer_resolution_ns.max(0.0) / self.target_sample_ns.max(1.0)
    }
}

/// The spread ((median - min) / min) under which a working set's samples count as undisturbed.
pub const SETTLED_SPREAD: f64 = 0.03;
/// The default for [`SampleConfig::attempts`].
pub const DEFAULT_ATTEMPTS: u32 = 3;

/// A sample length that makes the timer's resolution irrelevant: at least `floor_ns`, and at
/// least 500 ticks, so two readings' rounding costs under 0.4%.
pub fn target_sample_ns(resolution_ns: f64, floor_ns: f64) -> f64 {
    floor_ns.max(500.0 * resolution_ns)
}

/// Measures one ring: returns the hops per sample and every sample's ns per load.
///
/// Each sample times one run of N hops. The fixed cost around it (the call, two clock reads) is
/// measured as the median time of a zero-hop sample and subtracted; it is tens of ns against
/// milliseconds of chasing, so it barely matters, but subtracting keeps small sizes honest on a
/// slow browser clock too. Timing N and 2N and subtracting would cancel it as well, but then an
/// interrupt in the first half makes a sample read *too fast*, and the minimum stops being a
/// trustworthy lower bound; here noise can only ever add time.
pub fn measure_ring(ring: &Ring<'_>, clock: &dyn Clock, config: &SampleConfig) -> (u64, Vec<f64>) {
    let mut at = ring.start();
    if config.warmup {
        at = warm_up(ring, at);
    }
    measure_hops(clock, config, &mut |hops| at = ring.chase(at, hops))
}

/// Hops a warm-up pass makes at most: 256 MiB of lines, more than any cache holds. Over a ring
/// that large the caches and TLB are in their steady state long before the pass would close the
/// cycle, and the rest of it is waiting (seconds at 1 GiB, most of the default run's ladder).
pub const WARMUP_MAX_HOPS: u64 = 1 << 22;

/// Chases from `at` once around the ring, or [`WARMUP_MAX_HOPS`] if the ring is longer, so that
/// what the ring fits in is loaded before anything is timed.
pub fn warm_up(ring: &Ring<'_>, at: super::ring::Cursor) -> super::ring::Cursor {
    ring.chase(at, (ring.lines() as u64).min(WARMUP_MAX_HOPS))
}

/// The timing loop of [`measure_ring`] around any `run(hops)`: returns the hops per sample and
/// every sample's ns per hop.
pub(super) fn measure_hops(clock: &dyn Clock, config: &SampleConfig, run: &mut dyn FnMut(u64)) -> (u64, Vec<f64>) {
    let mut empty: Vec<f64> = (0..31).map(|_| time_ns(clock, || run(0)).0).collect();
    empty.sort_by(f64::total_cmp);
    let overhead = empty[empty.len() / 2];
    let target = config.target_sample_ns.max(1.0);
    const MAX_HOPS: u64 = 1 << 40;
    let mut hops: u64 = 256;
    let (hops_per_sample, first) = loop {
        let (elapsed, ()) = time_ns(clock, || run(hops));
        if elapsed >= target / 4.0 || hops >= MAX_HOPS {
            let estimate = ((hops as f64 * target / elapsed.max(1.0)) as u64).max(16);
            // A stall inside a short run (a descheduled worker, a garbage collection, another
            // tenant) makes its hops look slow and the estimate far too low: samples that short
            // would read 0 on a coarse timer. An estimate counts only once a run of its own
            // length is timed at a quarter of the target or more; a stall can only lengthen that.
            let (check, ()) = time_ns(clock, || run(estimate));
            if check >= target / 4.0 || hops >= MAX_HOPS {
                break (estimate, check);
            }
            hops = estimate.max(hops).saturating_mul(2).min(MAX_HOPS);
            continue;
        }
        // Grow fast while the timer can't see the work yet, then more gently.
        hops *= if elapsed < target / 64.0 { 8 } else { 2 };
    };
    // The check that accepted the estimate is a run of exactly a sample's hops, timed like one:
    // it is the first sample. Throwing it away cost a sample's time at every size (a twentieth
    // of the browser's first look on Firefox's 1 ms timer).
    let per_hop = |elapsed: f64| (elapsed - overhead) / hops_per_sample as f64;
    let mut samples = Vec::with_capacity(config.samples as usize);
    if config.samples > 0 {
        samples.push(per_hop(first));
    }
    for _ in 1..config.samples {
        let (elapsed, ()) = time_ns(clock, || run(hops_per_sample));
        samples.push(per_hop(elapsed));
    }
    (hops_per_sample, samples)
}

/// Progress of a ladder run, for a progress bar or a chart that grows point by point.
#[derive(Debug)]
pub enum LadderEvent<'a> {
    Measuring { index: usize, total: usize, bytes: u64 },
    Measured { index: usize, total: usize, point: &'a LadderPoint },
}

/// How a ladder turns ns into cycles.
#[derive(Debug, Clone, Copy)]
pub enum Cycles<'a> {
    /// No clock (a browser): points carry ns only.
    Unknown,
    /// One clock for every point.
    Fixed(f64),
    /// Re-estimate the clock before the first point and after every point, and give each point
    /// the clock of its moment (see [`crate::cycles::assign_local_clock`]); `reference` is the
    /// estimate the moves are measured from.
    Track { probe: ClockProbe<'a>, reference: Option<f64> },
}

/// Measures every size in turn. `on_event` may stop the run by returning `ControlFlow::Break`.
pub fn run_ladder<A: Arena>(
    arena: &mut A,
    clock: &dyn Clock,
    sizes: &[u64],
    config: &SampleConfig,
    cycles: Cycles<'_>,
    on_event: &mut dyn FnMut(LadderEvent<'_>) -> ControlFlow<()>,
) -> Result<Vec<LadderPoint>, LadderError> {
    let track = |probe: &ClockProbe<'_>| probe.settle(clock, 1).map(|e| e.ghz);
    let mut before = match &cycles {
        Cycles::Track { probe, .. } => track(probe),
        _ => None,
    };
    let mut points = Vec::with_capacity(sizes.len());
    for (index, &bytes) in sizes.iter().enumerate() {
        let total = sizes.len();
        if on_event(LadderEvent::Measuring { index, total, bytes }).is_break() {
            return Err(LadderError::Cancelled);
        }
        let fixed = if let Cycles::Fixed(ghz) = cycles { Some(ghz) } else { None };
        let mut point = measure_point(arena, clock, bytes, config, fixed)?;
        if let Cycles::Track { probe, reference } = &cycles {
            let after = track(probe);
            crate::cycles::assign_local_clock(core::slice::from_mut(&mut point), &[before, after], *reference);
            before = after;
        }
        if on_event(LadderEvent::Measured { index, total, point: &point }).is_break() {
            return Err(LadderError::Cancelled);
        }
        points.push(point);
    }
    Ok(points)
}

/// The seed of the ring for one working set: each size gets its own ring, and mixing in the size
/// keeps rings of different sizes unrelated. Public so outside tools can rebuild the same ring.
pub fn ring_seed(seed: u64, bytes: u64) -> u64 {
    seed ^ bytes.rotate_left(32)
}

/// Allocates, builds and measures one working set.
pub fn measure_point<A: Arena>(
    arena: &mut A,
    clock: &dyn Clock,
    bytes: u64,
    config: &SampleConfig,
    ghz: Option<f64>,
) -> Result<LadderPoint, LadderError> {
    if bytes < 2 * LINE_BYTES as u64 {
        return Err(LadderError::TooSmall(bytes));
    }
    let len = usize::try_from(bytes).map_err(|_| LadderError::Allocation("larger than this address space".into()))?;
    let mut buffer = arena.allocate(len).map_err(LadderError::Allocation)?;
    let ring = Ring::build_pattern(buffer.bytes_mut(), bytes, ring_seed(config.seed, bytes), config.pattern)?;
    // The ring is warm after the first attempt, so later ones skip the warm-up pass (which
    // over a 1 GiB ring is seconds).
    let again = SampleConfig { warmup: false, ..config.clone() };
    let (kept, attempts) = least_disturbed(config.attempts, config.settled_spread(), |attempt| {
        measure_ring(&ring, clock, if attempt == 0 { config } else { &again })
    });
    let Attempt { loads_per_sample, samples, ns_per_load } = kept;
    Ok(LadderPoint {
        bytes,
        ns_per_load,
        cycles_per_load: ghz.map(|ghz| ns_per_load.median * ghz),
        ghz,
        clock_moved: false,
        loads_per_sample,
        samples: samples.len() as u32,
        samples_ns_per_load: samples,
        attempts,
        visits_ns_per_load: Vec::new(),
        huge_page_bytes: buffer.huge_page_bytes(),
    })
}

/// One measurement of a working set.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Attempt {
    pub(super) loads_per_sample: u64,
    pub(super) samples: Vec<f64>,
    pub(super) ns_per_load: Summary,
}

/// Measures (`measure(attempt)`) until the samples' spread is at most `settled_spread` (see
/// [`SampleConfig::settled_spread`]) or `max_attempts` are made, and keeps the attempt with the lowest median: noise only adds time,
/// so the fastest typical sample is the least disturbed. Returns it and the attempts made.
pub(super) fn least_disturbed(
    max_attempts: u32,
    settled_spread: f64,
    mut measure: impl FnMut(u32) -> (u64, Vec<f64>),
) -> (Attempt, u32) {
    let unmeasured = Summary { min: f64::NAN, median: f64::NAN, p90: f64::NAN, max: f64::NAN };
    let mut best: Option<Attempt> = None;
    let mut made = 0;
    while made < max_attempts.max(1) {
        let (loads_per_sample, samples) = measure(made);
        made += 1;
        let ns_per_load = Summary::of(&samples).unwrap_or(unmeasured);
        let settled = ns_per_load.min > 0.0 && ns_per_load.spread() <= settled_spread;
        if best.as_ref().is_none_or(|b| ns_per_load.median < b.ns_per_load.median || b.ns_per_load.median.is_nan()) {
            best = Some(Attempt { loads_per_sample, samples, ns_per_load });
        }
        if settled {
            break;
        }
    }
    (best.expect("at least one attempt is made"), made)
}
