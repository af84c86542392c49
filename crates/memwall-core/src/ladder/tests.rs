use crate::fixtures::point;
use core::ops::ControlFlow;

use memwall_report::ChainsPoint;

use super::sampling::least_disturbed;
use super::*;
use crate::clock::Clock;
use crate::cycles::ClockProbe;
use proptest::prelude::*;

/// A real clock for tests that run natively; the front ends bring their own.
struct TestClock(std::time::Instant);

impl Clock for TestClock {
    fn now_ns(&self) -> f64 {
        self.0.elapsed().as_nanos() as f64
    }
}

fn is_single_cycle(next: &[u32]) -> bool {
    let mut seen = vec![false; next.len()];
    let mut at = 0usize;
    for _ in 0..next.len() {
        if seen[at] {
            return false;
        }
        seen[at] = true;
        at = next[at] as usize;
    }
    at == 0 && seen.iter().all(|&s| s)
}

proptest! {
    #[test]
    fn sattolo_is_one_cycle_over_every_line(n in 2usize..5000, seed in any::<u64>()) {
        prop_assert!(is_single_cycle(&sattolo_cycle(n, seed)));
    }

    #[test]
    fn ring_visits_every_line_once(lines in 2usize..2000, seed in any::<u64>(), misalign in 0usize..64) {
        let bytes = (lines * LINE_BYTES) as u64;
        let mut buffer = vec![0u8; lines * LINE_BYTES + LINE_BYTES + misalign];
        let ring = Ring::build(&mut buffer[misalign..], bytes, seed).unwrap();
        let mut order = ring.order();
        prop_assert_eq!(ring.chase(ring.start(), lines as u64), ring.start());
        order.sort_unstable();
        prop_assert_eq!(order, (0..lines).collect::<Vec<_>>());
    }
}

#[test]
fn sattolo_at_larger_sizes_and_is_deterministic() {
    for n in [1 << 16, 3 << 15, (1 << 20) + 7] {
        let a = sattolo_cycle(n, 42);
        assert!(is_single_cycle(&a));
        assert_eq!(a, sattolo_cycle(n, 42));
        assert_ne!(a, sattolo_cycle(n, 43));
    }
}

#[test]
fn ring_is_not_sequential() {
    let mut buffer = vec![0u8; 1 << 20];
    let ring = Ring::build(&mut buffer, 1 << 19, 7).unwrap();
    let order = ring.order();
    let sequential = order.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert!(sequential < order.len() / 100, "{sequential} of {} hops are to the next line", order.len());
}

#[test]
fn ring_refuses_too_small_or_short_buffers() {
    let mut buffer = vec![0u8; 4096];
    assert_eq!(Ring::build(&mut buffer, 64, 1).unwrap_err(), LadderError::TooSmall(64));
    assert_eq!(Ring::build(&mut buffer, 8192, 1).unwrap_err(), LadderError::BufferTooShort);
}

#[test]
#[should_panic(expected = "cursor from another ring")]
fn cursors_do_not_cross_rings() {
    let mut a = vec![0u8; 4096];
    let mut b = vec![0u8; 4096];
    let ring_a = Ring::build(&mut a, 2048, 1).unwrap();
    let ring_b = Ring::build(&mut b, 2048, 1).unwrap();
    ring_a.chase(ring_b.start(), 1);
}

#[test]
fn sizes_cover_octaves_evenly() {
    let k = 1024;
    assert_eq!(ladder_sizes(16 * k, 128 * k, 2).unwrap(), [16, 24, 32, 48, 64, 96, 128].map(|s| s * k));
    assert_eq!(ladder_sizes(16 * k, 32 * k, 4).unwrap(), [16, 20, 24, 28, 32].map(|s| s * k));
    // Odd ends are kept, rounded to whole lines.
    assert_eq!(ladder_sizes(20 * k, 40 * k + 5, 1).unwrap(), vec![20 * k, 32 * k, 40 * k]);
    // One size.
    assert_eq!(ladder_sizes(256 * k, 256 * k, 2).unwrap(), vec![256 * k]);
    let default = ladder_sizes(16 * k, 1 << 30, 2).unwrap();
    assert_eq!(default.len(), 33);
    assert!(default.windows(2).all(|w| w[0] < w[1] && w[1] % 64 == 0));
}

#[test]
fn sizes_reject_bad_ranges() {
    assert!(ladder_sizes(64, 4096, 2).unwrap_err().contains("at least"));
    assert!(ladder_sizes(8192, 4096, 2).unwrap_err().contains("larger than --max"));
    assert!(ladder_sizes(4096, 8192, 0).is_err());
    assert!(ladder_sizes(4096, u64::MAX, 2).is_ok());
}

#[test]
fn steps_are_found_between_plateaus() {
    let k = 1024u64;
    let curve = [
        (16, 1.2),
        (24, 1.2),
        (32, 1.25),
        (48, 3.0),
        (64, 3.4),
        (96, 3.5),
        (128, 3.4),
        (1024, 3.6),
        (1536, 9.0),
        (2048, 11.0),
        (3072, 11.5),
        (32768, 12.0),
        (49152, 40.0),
        (65536, 80.0),
        (98304, 95.0),
        (131072, 100.0),
    ];
    let points: Vec<_> = curve.iter().map(|&(kib, ns)| point(kib * k, ns)).collect();
    let steps = detect_steps(&points);
    let spans: Vec<_> = steps.iter().map(|s| (s.from_bytes / k, s.to_bytes / k)).collect();
    assert_eq!(spans, [(32, 64), (1024, 2048), (32768, 98304)]);
    assert_eq!(steps[0].ns_per_load_before, 1.25);
    assert!(detect_steps(&points[..3]).is_empty());
    assert!(detect_steps(&[]).is_empty());
}

#[test]
fn noise_is_not_a_step() {
    let points: Vec<_> = (0..20).map(|i| point(4096 << i, 1.0 + 0.05 * f64::from(i % 3))).collect();
    assert!(detect_steps(&points).is_empty());
}

#[test]
fn measures_a_small_ring_with_a_real_clock() {
    let clock = TestClock(std::time::Instant::now());
    let config = SampleConfig {
        target_sample_ns: 200_000.0,
        samples: 5,
        warmup: true,
        seed: 1,
        attempts: 1,
        pattern: Pattern::Random,
        timer_resolution_ns: 0.0,
    };
    let point = measure_point(&mut HeapArena, &clock, 16 * 1024, &config, Some(3.0)).unwrap();
    assert_eq!(point.samples, 5);
    assert_eq!(point.samples_ns_per_load.len(), 5);
    assert!(point.loads_per_sample >= 16);
    // A load takes some time, and an L1-resident chase is nowhere near a microsecond.
    assert!(point.ns_per_load.median > 0.05 && point.ns_per_load.median < 1000.0, "{point:?}");
    assert_eq!(point.cycles_per_load, Some(point.ns_per_load.median * 3.0));
}

#[test]
fn a_run_can_be_cancelled_and_reports_progress() {
    let clock = TestClock(std::time::Instant::now());
    let config = quick_config();
    let sizes = [4096, 8192, 16384];
    let mut seen = Vec::new();
    let points = run_ladder(&mut HeapArena, &clock, &sizes, &config, Cycles::Unknown, &mut |event| {
        if let LadderEvent::Measured { index, total, .. } = event {
            seen.push((index, total));
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(points.iter().map(|p| p.bytes).collect::<Vec<_>>(), sizes);
    assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
    let cancelled = run_ladder(&mut HeapArena, &clock, &sizes, &config, Cycles::Unknown, &mut |event| match event {
        LadderEvent::Measured { index: 1, .. } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    });
    assert_eq!(cancelled.unwrap_err(), LadderError::Cancelled);
}

#[test]
fn target_sample_scales_with_the_timer() {
    assert_eq!(target_sample_ns(20.0, 5e6), 5e6);
    assert_eq!(target_sample_ns(100_000.0, 2e6), 5e7);
}

#[test]
fn a_disturbed_working_set_is_measured_again_and_the_least_disturbed_attempt_kept() {
    let noisy = vec![1.0, 1.5, 1.6, 1.4, 1.0];
    let clean = vec![1.0, 1.01, 1.0, 1.02, 1.0];
    // Settled at once: one attempt.
    let (kept, made) = least_disturbed(3, SETTLED_SPREAD, |_| (100, clean.clone()));
    assert_eq!((made, kept.samples), (1, clean.clone()));
    // Disturbed, then settled: the second attempt is kept.
    let (kept, made) = least_disturbed(3, SETTLED_SPREAD, |a| {
        (100 + u64::from(a), if a == 0 { noisy.clone() } else { clean.clone() })
    });
    assert_eq!((made, kept.loads_per_sample, kept.samples), (2, 101, clean.clone()));
    // Never settles: every attempt is made and the lowest median kept.
    let medians = [1.5, 1.2, 1.4];
    let (kept, made) = least_disturbed(3, SETTLED_SPREAD, |a| (1, vec![1.0, medians[a as usize], 2.0]));
    assert_eq!((made, kept.ns_per_load.median), (3, 1.2));
    // One attempt allowed: no retry however noisy; zero means one.
    assert_eq!(least_disturbed(1, SETTLED_SPREAD, |_| (1, noisy.clone())).1, 1);
    assert_eq!(least_disturbed(0, SETTLED_SPREAD, |_| (1, noisy.clone())).1, 1);
    // A sample at or below zero (a coarse browser timer) never counts as settled.
    assert_eq!(least_disturbed(2, SETTLED_SPREAD, |_| (1, vec![0.0, 0.0, 0.0])).1, 2);
}

#[test]
fn a_coarse_timer_rounding_is_not_taken_for_a_disturbance() {
    // 50 ms samples on a 1 ms timer (Firefox, not isolated): 49 and 51 ticks for the same work
    // are the timer's rounding, a 4% spread.
    let config = SampleConfig { target_sample_ns: 50e6, timer_resolution_ns: 1e6, ..quick_config() };
    let rounded = vec![49.0, 51.0, 51.0];
    assert!((config.settled_spread() - (SETTLED_SPREAD + 0.04)).abs() < 1e-12);
    assert_eq!(least_disturbed(2, config.settled_spread(), |_| (1, rounded.clone())).1, 1);
    // The same spread on a fine timer is a disturbance, and measured again.
    let fine = SampleConfig { timer_resolution_ns: 20.0, ..config.clone() };
    assert_eq!(least_disturbed(2, fine.settled_spread(), |_| (1, rounded.clone())).1, 2);
    // More than the timer can explain still is.
    assert_eq!(least_disturbed(2, config.settled_spread(), |_| (1, vec![49.0, 55.0, 56.0])).1, 2);
}

#[test]
fn a_tracked_ladder_gives_every_point_its_own_clock() {
    let clock = TestClock(std::time::Instant::now());
    let config = quick_config();
    // Real work for a real clock; its speed is whatever this machine gives it.
    let chain = |n: u64| {
        let mut x = 0u64;
        for _ in 0..n {
            x = std::hint::black_box(x + 1);
        }
    };
    let probe = ClockProbe::calibrate(&clock, &chain, 20_000.0, 3);
    let cycles = Cycles::Track { probe, reference: None };
    let points =
        run_ladder(&mut HeapArena, &clock, &[4096, 8192], &config, cycles, &mut |_| ControlFlow::Continue(())).unwrap();
    for p in &points {
        let ghz = p.ghz.expect("a clock per point");
        assert_eq!(p.cycles_per_load, Some(p.ns_per_load.median * ghz));
    }
    let fixed =
        run_ladder(&mut HeapArena, &clock, &[4096], &config, Cycles::Fixed(2.0), &mut |_| ControlFlow::Continue(()))
            .unwrap();
    assert_eq!((fixed[0].ghz, fixed[0].clock_moved), (Some(2.0), false));
}

fn chains_curve(ns: &[(u32, f64)]) -> Vec<ChainsPoint> {
    ns.iter().map(|&(chains, ns)| ChainsPoint { chains, ns_per_load: ns, ns_per_load_median: None }).collect()
}

#[test]
fn the_knee_is_where_more_chases_stop_paying() {
    // A core with ~16 misses in flight (Zen-like): halves per doubling up to 16, then flat.
    let zen = chains_curve(&[(1, 180.0), (2, 91.0), (4, 46.0), (8, 24.0), (16, 13.0), (32, 12.5)]);
    let p = parallelism_from(256 << 20, zen);
    assert_eq!(p.knee_chains, Some(16));
    assert!((p.max_speedup - 180.0 / 12.5).abs() < 1e-12);
    // One slow point at 4 chases is not a knee: 8 beats it by far.
    let noisy = chains_curve(&[(1, 180.0), (2, 91.0), (4, 95.0), (8, 24.0), (16, 13.0), (32, 12.8)]);
    assert_eq!(parallelism_knee(&noisy), Some(16));
    // A small core that keeps ~4 misses in flight.
    let small = chains_curve(&[(1, 100.0), (2, 52.0), (4, 28.0), (8, 27.0), (16, 27.5), (32, 26.0)]);
    assert_eq!(parallelism_knee(&small), Some(4));
    // Still falling at 32: no knee in range. Too few points: none either.
    let falling = chains_curve(&[(1, 100.0), (2, 50.0), (4, 25.0), (8, 13.0), (16, 7.0), (32, 4.0)]);
    assert_eq!(parallelism_knee(&falling), None);
    assert_eq!(parallelism_knee(&chains_curve(&[(1, 100.0), (2, 100.0)])), None);
    // In L1 nothing is waiting on memory: flat from the start, the knee is 1 chase.
    assert_eq!(parallelism_knee(&chains_curve(&[(1, 1.0), (2, 1.0), (4, 0.98)])), Some(1));
}

proptest! {
    /// K cursors spread along one cycle, chased together, cover every line exactly once in
    /// lines / K rounds (for K dividing the lines).
    #[test]
    fn interleaved_chases_visit_every_line_once(shift in 0usize..7, rounds in 1usize..64, seed in any::<u64>()) {
        let k = 1usize << shift;
        let lines = k * rounds;
        prop_assume!(lines >= 2);
        let mut buffer = vec![0u8; (lines + 1) * LINE_BYTES];
        let ring = Ring::build(&mut buffer, (lines * LINE_BYTES) as u64, seed).unwrap();
        let mut cursors = ring.spread_starts(k);
        let line_of = |c: Cursor| (c.0 as usize - ring.start().0 as usize) / LINE_BYTES;
        let mut seen = vec![0u32; lines];
        for _ in 0..rounds {
            for &c in &cursors {
                seen[line_of(c)] += 1;
            }
            prop_assert!(ring.chase_chains(&mut cursors, 1));
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        // Each cursor has walked its stretch and stands where the next one started.
        let mut next = ring.spread_starts(k);
        next.rotate_left(1);
        prop_assert_eq!(cursors, next);
    }
}

#[test]
fn chase_counts_outside_the_list_are_refused() {
    let mut buffer = vec![0u8; 1 << 16];
    let ring = Ring::build(&mut buffer, 1 << 15, 3).unwrap();
    let mut three = ring.spread_starts(3);
    assert!(!ring.chase_chains(&mut three, 10));
    assert_eq!(three, ring.spread_starts(3));
    let clock = TestClock(std::time::Instant::now());
    let config = SampleConfig {
        target_sample_ns: 20_000.0,
        samples: 2,
        warmup: true,
        seed: 1,
        attempts: 1,
        pattern: Pattern::Random,
        timer_resolution_ns: 0.0,
    };
    assert_eq!(
        measure_parallelism(&mut HeapArena, &clock, 1 << 15, &[1, 3], &config).unwrap_err(),
        LadderError::Chains(3)
    );
    let p = measure_parallelism(&mut HeapArena, &clock, 1 << 15, &[1, 2, 4], &config).unwrap();
    assert_eq!(p.points.iter().map(|p| p.chains).collect::<Vec<_>>(), [1, 2, 4]);
    assert!(p.points.iter().all(|p| p.ns_per_load > 0.0 && p.ns_per_load_median.is_some()));
}

proptest! {
    /// Every pattern is one cycle over its lines: all of the window, or one per whole 4 KiB page
    /// for page-stride, each visited once, and the chase comes back to the start.
    #[test]
    fn every_pattern_is_one_cycle_over_its_lines(pages in 2usize..40, extra in 0usize..64, seed in any::<u64>(), misalign in 0usize..64) {
        let lines = pages * 64 + extra;
        for pattern in Pattern::ALL {
            let mut buffer = vec![0u8; (lines + 1) * LINE_BYTES + misalign];
            let ring = Ring::build_pattern(&mut buffer[misalign..], (lines * LINE_BYTES) as u64, seed, pattern).unwrap();
            let mut order = ring.order();
            prop_assert_eq!(ring.chase(ring.start(), ring.lines() as u64), ring.start());
            match pattern {
                Pattern::PageStride => {
                    let mut pages_seen: Vec<usize> = order.iter().map(|l| l / 64).collect();
                    pages_seen.sort_unstable();
                    prop_assert_eq!(pages_seen, (0..pages).collect::<Vec<_>>());
                }
                _ => {
                    order.sort_unstable();
                    prop_assert_eq!(order, (0..lines).collect::<Vec<_>>());
                }
            }
        }
    }
}

#[test]
fn patterns_order_lines_as_documented() {
    let lines = 64 * 64;
    assert_eq!(Pattern::Sequential.order(lines, 1), (0..lines as u32).collect::<Vec<_>>());
    // Page-local: each run of 512 visits stays within one group of eight pages.
    let local = Pattern::PageLocal.order(lines, 1);
    for group in local.chunks(PAGE_LOCAL_PAGES * 64) {
        let first = group[0] as usize / (PAGE_LOCAL_PAGES * 64);
        assert!(group.iter().all(|&l| l as usize / (PAGE_LOCAL_PAGES * 64) == first));
    }
    // ... and is random within it: few hops to the next line.
    let next = local.windows(2).filter(|w| w[1] == w[0] + 1).count();
    assert!(next < lines / 50, "{next}");
    // Page-stride: one line per page, never two hops in a row on one page.
    let stride = Pattern::PageStride.order(lines, 1);
    assert_eq!(stride.len(), 64);
    assert!(stride.windows(2).all(|w| w[0] / 64 != w[1] / 64));
    // The random pattern is the ring memwall always built: same seed, same cycle.
    let mut a = vec![0u8; (lines + 1) * LINE_BYTES];
    let mut b = vec![0u8; (lines + 1) * LINE_BYTES];
    let ring = Ring::build(&mut a, (lines * LINE_BYTES) as u64, 5).unwrap();
    let next = sattolo_cycle(lines, 5);
    let order = ring.order();
    assert!(order.windows(2).all(|w| next[w[0]] as usize == w[1]));
    let random = Ring::build_pattern(&mut b, (lines * LINE_BYTES) as u64, 5, Pattern::Random).unwrap();
    assert_eq!(random.order(), order);
    // Page-stride needs two whole pages.
    let mut small = vec![0u8; 8192];
    assert_eq!(Ring::build_pattern(&mut small, 4096, 1, Pattern::PageStride).unwrap_err(), LadderError::TooSmall(4096));
}

#[test]
fn patterns_parse_by_report_name_and_short_name() {
    for pattern in Pattern::ALL {
        assert_eq!(Pattern::parse(pattern.name()), Some(pattern));
    }
    assert_eq!(Pattern::parse(" Random "), Some(Pattern::Random));
    assert_eq!(Pattern::parse("zigzag"), None);
}

#[test]
fn a_ring_needs_its_bytes_and_a_permutation_of_four_bytes_a_line() {
    assert_eq!(bytes_needed(1 << 20), (1 << 20) + (1 << 20) / 64 * 4);
    assert_eq!(bytes_needed(u64::MAX), u64::MAX);
}

/// Two short samples of a random chase, no warm-up: enough to exercise a run, quickly.
fn quick_config() -> SampleConfig {
    SampleConfig {
        target_sample_ns: 50_000.0,
        samples: 2,
        warmup: false,
        seed: 1,
        attempts: 1,
        pattern: Pattern::Random,
        timer_resolution_ns: 0.0,
    }
}

/// A clock that only moves when the chase runs (1 ns a hop) and a stall adds to it: it reads in
/// steps of `tick` ns, like a coarse browser timer.
struct SteppedClock {
    ns: std::cell::Cell<f64>,
    tick: f64,
}

impl Clock for SteppedClock {
    fn now_ns(&self) -> f64 {
        (self.ns.get() / self.tick).floor() * self.tick
    }
}

#[test]
fn a_stall_while_calibrating_does_not_shorten_the_samples() {
    let clock = SteppedClock { ns: std::cell::Cell::new(0.0), tick: 100_000.0 };
    let config = SampleConfig { target_sample_ns: 50e6, samples: 3, ..quick_config() };
    let mut runs = 0;
    let (hops, samples) = super::sampling::measure_hops(&clock, &config, &mut |hops| {
        if hops > 0 {
            runs += 1;
            // The first timed run stalls for 20 ms: alone it would suggest 2.5x its hops.
            let stall = if runs == 1 { 20e6 } else { 0.0 };
            clock.ns.set(clock.ns.get() + hops as f64 + stall);
        }
    });
    // 1 ns a hop: a 50 ms sample is ~50M hops, give or take the timer's steps.
    assert!(hops > 25_000_000, "{hops} hops per sample");
    assert!(samples.iter().all(|&ns| ns > 0.5 && ns < 2.0), "{samples:?}");
}
