//! The latency ladder: a dependent pointer chase over one random cycle of cache lines.
//!
//! Every cache line of the working set holds, in its first word, a pointer to the next line of a
//! single random cycle (Sattolo's algorithm), so each load's address is the previous load's
//! value: the CPU cannot overlap them, and time per hop is the load-to-use latency of whichever
//! level of the memory hierarchy the working set lives in. Random order defeats the prefetchers;
//! one line per hop keeps spatial locality out of it.

use core::ops::ControlFlow;

use memwall_report::{ChainsPoint, LadderPoint, Parallelism, Step, Summary};

use crate::clock::{Clock, time_ns};
use crate::cycles::ClockProbe;

/// One hop per cache line of this many bytes.
pub const LINE_BYTES: usize = 64;

/// Memory for one ring, obtained the way the front end wants it (plain heap in a browser;
/// `mmap` with or without huge pages natively).
pub trait Arena {
    type Buffer: ChaseBuffer;
    /// At least `bytes` bytes; the ring aligns itself to a cache line inside them.
    fn allocate(&mut self, bytes: usize) -> Result<Self::Buffer, String>;
}

pub trait ChaseBuffer {
    fn bytes_mut(&mut self) -> &mut [u8];
    /// Bytes of the buffer backed by huge pages, asked once the ring has touched every page.
    /// `None` where that can't be known (a browser).
    fn huge_page_bytes(&self) -> Option<u64> {
        None
    }
}

/// Plain heap memory, for the browser and for tests.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeapArena;

impl Arena for HeapArena {
    type Buffer = Vec<u8>;
    fn allocate(&mut self, bytes: usize) -> Result<Vec<u8>, String> {
        let len = bytes.checked_add(LINE_BYTES).ok_or("size overflows the address space")?;
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(len)
            .map_err(|_| format!("could not allocate {}", crate::size::format_bytes(len as u64)))?;
        buffer.resize(len, 0);
        Ok(buffer)
    }
}

impl ChaseBuffer for Vec<u8> {
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LadderError {
    #[error("a working set needs at least two {LINE_BYTES}-byte lines, got {0} bytes")]
    TooSmall(u64),
    #[error("{0}")]
    Allocation(String),
    #[error("the buffer is smaller than the ring asked for")]
    BufferTooShort,
    #[error("cancelled")]
    Cancelled,
    #[error("{0} chases: the chase count must be one of 1, 2, 4, 8, 16, 32, 64")]
    Chains(u32),
}

/// A position in a ring: the address of a line, only ever produced by the ring itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor(*const u8);

/// One cycle over cache lines of a borrowed buffer, in the order a [`Pattern`] gives.
#[derive(Debug)]
pub struct Ring<'a> {
    /// Line 0 of the buffer's aligned window: cursors are checked against it.
    base: *const u8,
    /// Lines of the window (what cursors may point into).
    span: usize,
    /// Lines in the cycle: all of the window, or one per page for `page-stride`.
    lines: usize,
    first: *const u8,
    _buffer: core::marker::PhantomData<&'a mut [u8]>,
}

/// How a ring orders its lines. Every pattern is one cycle that visits each of its lines once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// One random cycle over every line (Sattolo): the prefetchers see nothing, and with small
    /// pages nearly every hop past the TLB's reach is a TLB miss.
    Random,
    /// Every line, in random order within groups of [`PAGE_LOCAL_PAGES`] pages and the groups in
    /// random order: the caches see a random chase, the TLB a handful of pages at a time, so the
    /// curve is caches and DRAM alone.
    PageLocal,
    /// One line per 4 KiB page, pages in random order (the line within each page random too, so
    /// the lines spread over the cache sets): every hop a new page, to show TLB and page walk cost.
    PageStride,
    /// Every line in address order: what the hardware prefetchers hide.
    Sequential,
}

/// Pages per group of [`Pattern::PageLocal`]: far below any data TLB's entries (64 and up), yet
/// 512 random lines per group, enough that no prefetcher guesses the next one.
pub const PAGE_LOCAL_PAGES: usize = 8;
/// The page the patterns are built around: the smallest page of every current OS.
pub const PATTERN_PAGE_BYTES: usize = 4096;
const LINES_PER_PAGE: usize = PATTERN_PAGE_BYTES / LINE_BYTES;

impl Pattern {
    pub const ALL: [Pattern; 4] = [Pattern::Random, Pattern::PageLocal, Pattern::PageStride, Pattern::Sequential];

    /// The name reports use (`random-cycle` is the name the first reports gave the random chase).
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random-cycle",
            Self::PageLocal => "page-local",
            Self::PageStride => "page-stride",
            Self::Sequential => "sequential",
        }
    }

    /// Line indices in visiting order (the cycle closes from the last to the first), over a window
    /// of `lines` lines.
    pub fn order(self, lines: usize, seed: u64) -> Vec<u32> {
        assert!(u32::try_from(lines).is_ok(), "rings are limited to 2^32 lines (256 GiB)");
        let mut rng = fastrand::Rng::with_seed(seed);
        match self {
            Self::Random => {
                let next = sattolo_cycle(lines, seed);
                let mut order = Vec::with_capacity(lines);
                let mut at = 0u32;
                for _ in 0..lines {
                    order.push(at);
                    at = next[at as usize];
                }
                order
            }
            Self::Sequential => (0..lines as u32).collect(),
            Self::PageLocal => {
                let group = PAGE_LOCAL_PAGES * LINES_PER_PAGE;
                let mut groups: Vec<usize> = (0..lines.div_ceil(group)).collect();
                rng.shuffle(&mut groups);
                let mut order = Vec::with_capacity(lines);
                for g in groups {
                    let start = order.len();
                    order.extend((g * group..((g + 1) * group).min(lines)).map(|l| l as u32));
                    rng.shuffle(&mut order[start..]);
                }
                order
            }
            Self::PageStride => {
                let mut pages: Vec<usize> = (0..lines / LINES_PER_PAGE).collect();
                rng.shuffle(&mut pages);
                pages.into_iter().map(|p| (p * LINES_PER_PAGE + rng.usize(0..LINES_PER_PAGE)) as u32).collect()
            }
        }
    }
}

impl<'a> Ring<'a> {
    /// Writes a random cycle over `bytes / LINE_BYTES` lines of `buffer`, touching every line
    /// (so every page is really mapped before anything is timed).
    pub fn build(buffer: &'a mut [u8], bytes: u64, seed: u64) -> Result<Self, LadderError> {
        Self::build_pattern(buffer, bytes, seed, Pattern::Random)
    }

    /// Writes the cycle `pattern` gives over the first `bytes` of `buffer` (aligned to a line),
    /// touching every line of them, visited or not.
    pub fn build_pattern(buffer: &'a mut [u8], bytes: u64, seed: u64, pattern: Pattern) -> Result<Self, LadderError> {
        let span = usize::try_from(bytes / LINE_BYTES as u64).map_err(|_| LadderError::BufferTooShort)?;
        let smallest = if pattern == Pattern::PageStride { 2 * LINES_PER_PAGE } else { 2 };
        if span < smallest {
            return Err(LadderError::TooSmall(bytes));
        }
        let skip = buffer.as_ptr().align_offset(LINE_BYTES);
        let needed = span.checked_mul(LINE_BYTES).and_then(|n| n.checked_add(skip));
        if needed.is_none_or(|n| n > buffer.len()) {
            return Err(LadderError::BufferTooShort);
        }
        let order = pattern.order(span, seed);
        // SAFETY: `skip + span * LINE_BYTES <= buffer.len()` was checked above, and every index of
        // `order` is below `span`, so every line start below is in bounds and aligned to
        // LINE_BYTES (hence to a pointer).
        unsafe {
            let base = buffer.as_mut_ptr().add(skip);
            let line = |i: u32| base.add(i as usize * LINE_BYTES);
            if order.len() < span {
                // Lines outside the cycle lead into it, so every line of the window is a valid
                // place to chase from (and every page is touched).
                for i in 0..span as u32 {
                    line(i).cast::<*const u8>().write(line(order[0]).cast_const());
                }
            }
            for (i, &from) in order.iter().enumerate() {
                let to = order[(i + 1) % order.len()];
                line(from).cast::<*const u8>().write(line(to).cast_const());
            }
            Ok(Self {
                base: base.cast_const(),
                span,
                lines: order.len(),
                first: line(order[0]).cast_const(),
                _buffer: core::marker::PhantomData,
            })
        }
    }

    /// Lines in the cycle.
    pub fn lines(&self) -> usize {
        self.lines
    }

    pub fn start(&self) -> Cursor {
        Cursor(self.first)
    }

    fn check(&self, at: Cursor) {
        let offset = (at.0 as usize).wrapping_sub(self.base as usize);
        assert!(offset < self.span * LINE_BYTES && offset.is_multiple_of(LINE_BYTES), "cursor from another ring");
    }

    /// Follows `hops` pointers from `from` and returns where it ended.
    pub fn chase(&self, from: Cursor, hops: u64) -> Cursor {
        self.check(from);
        // SAFETY: `from` is a line of this ring's window, and every line of the window points to
        // a line of the cycle (see `build_pattern`); the buffer is borrowed for the ring's
        // lifetime, so nothing else writes it.
        Cursor(unsafe { chase_raw(from.0, hops) })
    }

    /// Line indices in the order the chase visits them, from the start (for tests).
    pub fn order(&self) -> Vec<usize> {
        let mut seen = Vec::with_capacity(self.lines);
        let mut at = self.start();
        for _ in 0..self.lines {
            seen.push((at.0 as usize - self.base as usize) / LINE_BYTES);
            at = self.chase(at, 1);
        }
        seen
    }
}

/// A random cyclic permutation of `0..n`: `next[i]` follows `i`, and following `next` from any
/// line visits all `n` before returning (Sattolo's variant of Fisher-Yates: `j < i`, never `i`).
pub fn sattolo_cycle(n: usize, seed: u64) -> Vec<u32> {
    assert!(u32::try_from(n).is_ok(), "rings are limited to 2^32 lines (256 GiB)");
    let mut next: Vec<u32> = (0..n as u32).collect();
    let mut rng = fastrand::Rng::with_seed(seed);
    for i in (1..n).rev() {
        let j = rng.usize(0..i);
        next.swap(i, j);
    }
    next
}

/// The timed loop. One hop is one load whose address is the previous load's value; unrolling
/// keeps the loop counter out of the way (it runs beside the chain, not on it).
///
/// # Safety
/// `p` and every pointer reachable from it must point to a readable, pointer-aligned word
/// holding the next such pointer.
// Eight hops a line, so the unrolling reads at a glance (rustfmt would give each its own line).
#[rustfmt::skip]
#[inline(never)]
unsafe fn chase_raw(mut p: *const u8, hops: u64) -> *const u8 {
    macro_rules! hop {
        () => {
            // SAFETY: guaranteed by the caller for every pointer of the chain.
            p = unsafe { p.cast::<*const u8>().read() }
        };
    }
    let mut blocks = hops / 16;
    while blocks != 0 {
        hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!();
        hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!();
        blocks -= 1;
    }
    for _ in 0..hops % 16 {
        hop!();
    }
    p
}

/// The chase counts [`Ring::chase_chains`] accepts: powers of two, so each doubling's gain reads
/// directly off the curve.
pub const CHAIN_COUNTS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

impl Ring<'_> {
    /// `k` cursors spread evenly along the cycle: chased together, each stays `lines / k` hops
    /// behind the next, so between two visits of a line the chases touch the whole working set,
    /// exactly as one chase would.
    pub fn spread_starts(&self, k: usize) -> Vec<Cursor> {
        let k = k.clamp(1, self.lines);
        let gap = (self.lines / k) as u64;
        let mut at = self.start();
        let mut starts = Vec::with_capacity(k);
        for _ in 0..k {
            starts.push(at);
            at = self.chase(at, gap);
        }
        starts
    }

    /// Follows `hops` pointers from each of `cursors` at once (one hop of each in turn), so
    /// the CPU may overlap up to `cursors.len()` misses. The count must be one of
    /// [`CHAIN_COUNTS`]; returns false (and does nothing) otherwise.
    pub fn chase_chains(&self, cursors: &mut [Cursor], hops: u64) -> bool {
        for &c in cursors.iter() {
            self.check(c);
        }
        macro_rules! dispatch {
            ($($k:literal),*) => {
                match cursors.len() {
                    $($k => {
                        let mut p: [*const u8; $k] = core::array::from_fn(|i| cursors[i].0);
                        // SAFETY: every cursor is a line of this ring (checked above), and every
                        // line points to a line of the ring; the buffer is borrowed for the
                        // ring's lifetime.
                        unsafe { chase_many::<$k>(&mut p, hops) };
                        for (c, q) in cursors.iter_mut().zip(p) {
                            *c = Cursor(q);
                        }
                        true
                    })*
                    _ => false,
                }
            };
        }
        dispatch!(1, 2, 4, 8, 16, 32, 64)
    }
}

/// K chases in lockstep: K independent dependency chains, so up to K misses can be in flight.
///
/// # Safety
/// As [`chase_raw`], for every pointer of `p`.
#[inline(never)]
unsafe fn chase_many<const K: usize>(p: &mut [*const u8; K], hops: u64) {
    let mut q = *p;
    for _ in 0..hops {
        for c in q.iter_mut() {
            // SAFETY: guaranteed by the caller for every pointer of every chain.
            *c = unsafe { c.cast::<*const u8>().read() };
        }
    }
    *p = q;
}

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
        at = ring.chase(at, ring.lines() as u64);
    }
    measure_hops(clock, config, &mut |hops| at = ring.chase(at, hops))
}

/// The timing loop of [`measure_ring`] around any `run(hops)`: returns the hops per sample and
/// every sample's ns per hop.
fn measure_hops(clock: &dyn Clock, config: &SampleConfig, run: &mut dyn FnMut(u64)) -> (u64, Vec<f64>) {
    let mut empty: Vec<f64> = (0..31).map(|_| time_ns(clock, || run(0)).0).collect();
    empty.sort_by(f64::total_cmp);
    let overhead = empty[empty.len() / 2];
    let target = config.target_sample_ns.max(1.0);
    let mut hops: u64 = 256;
    let hops_per_sample = loop {
        let (elapsed, ()) = time_ns(clock, || run(hops));
        if elapsed >= target / 4.0 || hops >= 1 << 40 {
            break ((hops as f64 * target / elapsed.max(1.0)) as u64).max(16);
        }
        // Grow fast while the timer can't see the work yet, then more gently.
        hops *= if elapsed < target / 64.0 { 8 } else { 2 };
    };
    let mut samples = Vec::with_capacity(config.samples as usize);
    for _ in 0..config.samples {
        let (elapsed, ()) = time_ns(clock, || run(hops_per_sample));
        samples.push((elapsed - overhead) / hops_per_sample as f64);
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
    let (kept, attempts) = least_disturbed(config.attempts, |attempt| {
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
        huge_page_bytes: buffer.huge_page_bytes(),
    })
}

/// One measurement of a working set.
#[derive(Debug, Clone, PartialEq)]
struct Attempt {
    loads_per_sample: u64,
    samples: Vec<f64>,
    ns_per_load: Summary,
}

/// Measures (`measure(attempt)`) until the samples' spread is at most [`SETTLED_SPREAD`] or
/// `max_attempts` are made, and keeps the attempt with the lowest median: noise only adds time,
/// so the fastest typical sample is the least disturbed. Returns it and the attempts made.
fn least_disturbed(max_attempts: u32, mut measure: impl FnMut(u32) -> (u64, Vec<f64>)) -> (Attempt, u32) {
    let unmeasured = Summary { min: f64::NAN, median: f64::NAN, p90: f64::NAN, max: f64::NAN };
    let mut best: Option<Attempt> = None;
    let mut made = 0;
    while made < max_attempts.max(1) {
        let (loads_per_sample, samples) = measure(made);
        made += 1;
        let ns_per_load = Summary::of(&samples).unwrap_or(unmeasured);
        let settled = ns_per_load.min > 0.0 && ns_per_load.spread() <= SETTLED_SPREAD;
        if best.as_ref().is_none_or(|b| ns_per_load.median < b.ns_per_load.median || b.ns_per_load.median.is_nan()) {
            best = Some(Attempt { loads_per_sample, samples, ns_per_load });
        }
        if settled {
            break;
        }
    }
    (best.expect("at least one attempt is made"), made)
}

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
        ring.chase(ring.start(), ring.lines() as u64);
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

/// Core clock in GHz from a dependent chain of one-cycle operations that the front end supplies
/// (`chain(n)` runs n of them, one after another), each run about `target_ns` long. See
/// [`crate::cycles`] for how, and for the spread and stability this figure leaves out.
pub fn estimate_ghz(clock: &dyn Clock, chain: &dyn Fn(u64), target_ns: f64) -> Option<f64> {
    ClockProbe::calibrate(clock, chain, target_ns, crate::cycles::DEFAULT_REPETITIONS).settle(clock, 3).map(|e| e.ghz)
}

/// Finds where latency steps up between plateaus of the ladder.
///
/// A step starts where a point is more than `RISE` above the plateau it leaves and continues
/// while each next point keeps climbing by more than `CLIMB`; the point where climbing stops is
/// the new plateau. Gradual slopes (TLB reach, shared L3 on a VM) thus come out as one wide step
/// rather than many small ones. It reads each point's minimum: noise only ever adds time to a
/// sample, so the minimum is the level least disturbed by whatever else the host was doing.
pub fn detect_steps(points: &[LadderPoint]) -> Vec<Step> {
    const RISE: f64 = 1.3;
    const CLIMB: f64 = 1.1;
    let latency: Vec<f64> = points.iter().map(|p| p.ns_per_load.min).collect();
    let mut steps = Vec::new();
    let mut plateau = 0;
    let mut i = 1;
    while i < points.len() {
        if latency[i] > latency[plateau] * RISE && latency[i] > latency[i - 1] {
            let from = i - 1;
            let mut to = i;
            while to + 1 < points.len() && latency[to + 1] > latency[to] * CLIMB {
                to += 1;
            }
            steps.push(Step {
                from_bytes: points[from].bytes,
                to_bytes: points[to].bytes,
                ns_per_load_before: latency[from],
                ns_per_load_after: latency[to],
            });
            plateau = to;
            i = to + 1;
        } else {
            if latency[i] < latency[plateau] {
                plateau = i;
            }
            i += 1;
        }
    }
    steps
}

// Property tests need proptest, which wasm32 lacks; tests/wasm_ladder.rs covers wasm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
