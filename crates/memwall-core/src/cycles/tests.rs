use super::*;
use crate::fixtures::point;
use std::cell::Cell;

/// A core at exactly `ghz`, timed by a clock it drives itself: each chain run advances the clock
/// by its steps at that speed, plus a fixed call overhead, plus whatever `interrupt(run, steps)`
/// injects into that run (run counts every call of the chain, calibration included).
struct FakeCore {
    now: Cell<f64>,
    runs: Cell<u64>,
    ghz: f64,
}

impl Clock for FakeCore {
    fn now_ns(&self) -> f64 {
        self.now.get()
    }
}

impl FakeCore {
    fn new(ghz: f64) -> Self {
        Self { now: Cell::new(0.0), runs: Cell::new(0), ghz }
    }
    fn run(&self, steps: u64, interrupt: &dyn Fn(u64, u64) -> f64) {
        let run = self.runs.get();
        self.runs.set(run + 1);
        self.now.set(self.now.get() + 80.0 + steps as f64 / self.ghz + interrupt(run, steps));
    }
}

fn estimate_with(ghz: f64, interrupt: &dyn Fn(u64, u64) -> f64) -> ClockEstimate {
    let core = FakeCore::new(ghz);
    let chain = |steps: u64| core.run(steps, interrupt);
    let probe = ClockProbe::calibrate(&core, &chain, 1e6, DEFAULT_REPETITIONS);
    assert!(probe.steps as f64 / ghz >= 1e6, "calibrated to the target");
    probe.settle(&core, 3).unwrap()
}

#[test]
fn an_undisturbed_chain_reads_its_clock_exactly() {
    for ghz in [2.45, 3.0, 3.7, 5.5] {
        let estimate = estimate_with(ghz, &|_, _| 0.0);
        assert!((estimate.ghz - ghz).abs() < 1e-9, "{estimate:?}");
        assert!(estimate.stable && estimate.spread < 1e-9, "{estimate:?}");
        // The residual is the 80 ns overhead over a run of over 1 ms.
        assert!(estimate.residual > 0.0 && estimate.residual < 1e-3, "{estimate:?}");
    }
}

/// Extra ns for a run, from `(run, steps, short_steps)`.
type Interrupts = dyn Fn(u64, u64, u64) -> f64;

/// Interrupts (a 300 µs stall each) in some or all of the short runs, the long runs, or both:
/// the estimate never reads a faster clock than the core's. Each case gets `(run, steps,
/// short_steps)` and picks the runs it disturbs by length.
#[test]
fn interrupts_never_push_the_estimate_up() {
    let ghz = 3.0;
    let stall = 300_000.0;
    let cases: [(&str, Box<Interrupts>); 6] = [
        (
            "some short runs",
            Box::new(move |run, steps, short| if steps == short && run % 3 == 0 { stall } else { 0.0 }),
        ),
        ("every short run", Box::new(move |_, steps, short| if steps == short { stall } else { 0.0 })),
        (
            "some long runs",
            Box::new(move |run, steps, short| if steps == 2 * short && run % 3 == 0 { stall } else { 0.0 }),
        ),
        ("every long run", Box::new(move |_, steps, short| if steps == 2 * short { stall } else { 0.0 })),
        ("every run", Box::new(move |_, _, _| stall)),
        ("every run, growing", Box::new(move |run, _, _| stall * run as f64 / 10.0)),
    ];
    for (name, interrupt) in cases {
        // Calibrate undisturbed first to learn the short run's length, then disturb the timed runs.
        let core = FakeCore::new(ghz);
        let quiet = |steps: u64| core.run(steps, &|_, _| 0.0);
        let short_steps = ClockProbe::calibrate(&core, &quiet, 1e6, DEFAULT_REPETITIONS).steps;
        let noisy = |steps: u64| core.run(steps, &|run, s| interrupt(run, s, short_steps));
        let probe = ClockProbe { chain: &noisy, steps: short_steps, repetitions: DEFAULT_REPETITIONS };
        let estimate = probe.settle(&core, 3).unwrap();
        assert!(estimate.ghz <= ghz * (1.0 + 1e-9), "{name}: {estimate:?}");
        match name {
            // A minimum over runs some of which escaped is untouched.
            "some short runs" | "some long runs" => assert!((estimate.ghz - ghz).abs() < 1e-9, "{name}: {estimate:?}"),
            // Every run of one length disturbed: the residual shows it and the estimate says so.
            "every short run" | "every long run" => assert!(!estimate.stable, "{name}: {estimate:?}"),
            _ => {}
        }
    }
}

#[test]
fn a_spread_of_runs_is_reported_and_marks_the_estimate_unstable() {
    // Every other run of both lengths 10% slower: the minima are right, the medians are not.
    let estimate =
        from_timings(1000, &[1000.0, 1100.0, 1000.0, 1100.0, 1100.0], &[2000.0, 2200.0, 2200.0, 2000.0, 2200.0])
            .unwrap();
    assert!((estimate.ghz - 1.0).abs() < 1e-12);
    assert!((estimate.spread - 0.1).abs() < 1e-12, "{estimate:?}");
    assert!(!estimate.stable);
}

#[test]
fn nonsense_timings_give_no_estimate() {
    assert_eq!(from_timings(1000, &[], &[1.0]), None);
    assert_eq!(from_timings(1000, &[0.0], &[0.0]), None);
    assert_eq!(from_timings(1000, &[1.0, f64::NAN], &[2.0, 2.0]), None);
    // A frozen clock (every run reads 0 ns) and an impossible 1000 GHz.
    assert_eq!(from_timings(1_000_000, &[1.0], &[2.0]), None);
    let frozen = FakeCore::new(3.0);
    let probe = ClockProbe { chain: &|_| {}, steps: 1000, repetitions: 5 };
    assert_eq!(probe.settle(&frozen, 2), None);
}

#[test]
fn each_point_gets_the_clock_of_its_moment_and_moves_are_flagged() {
    let mut points = vec![point(16 << 10, 1.0), point(32 << 10, 1.0), point(64 << 10, 3.0), point(128 << 10, 3.0)];
    // Steady at 3.0, a move to 3.3 during the third point, then steady.
    let around = [Some(3.0), Some(3.02), Some(3.0), Some(3.3), Some(3.3)];
    assign_local_clock(&mut points, &around, Some(3.0));
    let ghz: Vec<f64> = points.iter().map(|p| p.ghz.unwrap()).collect();
    assert_eq!(ghz, [3.01, 3.01, 3.15, 3.3]);
    assert_eq!(points.iter().map(|p| p.clock_moved).collect::<Vec<_>>(), [false, false, true, true]);
    assert!((points[2].cycles_per_load.unwrap() - points[2].ns_per_load.median * 3.15).abs() < 1e-12);
    // A failed estimate falls back to its neighbour, then to the reference.
    let mut points = vec![point(16 << 10, 1.0), point(32 << 10, 1.0)];
    assign_local_clock(&mut points, &[None, Some(3.0), None], Some(2.9));
    assert_eq!((points[0].ghz, points[1].ghz), (Some(3.0), Some(3.0)));
    assign_local_clock(&mut points, &[None, None, None], None);
    assert_eq!((points[0].ghz, points[0].cycles_per_load), (None, None));
}

#[test]
fn l1_cross_check_on_both_known_hosts_and_a_wrong_clock() {
    // Zen 5 guest: L1 1.09 ns at 3.7 GHz is 4.03 cycles. Zen 3 guest: 1.37 ns at 3.0 GHz is 4.1.
    for (ns, ghz, l1) in [(1.09, 3.7, 48 << 10), (1.37, 3.0, 32 << 10), (1.37 * 5.0 / 4.0, 3.0, 32 << 10)] {
        let points = [point(16 << 10, ns), point(24 << 10, ns)];
        let check = check_clock(&points, Some(l1), Some(ghz)).unwrap();
        assert_eq!(check.bytes, 16 << 10);
        assert!(check.plausible, "{check:?}");
        assert!(check.note.contains("a whole number"), "{}", check.note);
    }
    // The Zen 3 guest's wrong 5.17 GHz made L1 read 7.1 cycles; 3.5 and 4.5 are no whole number.
    for (ns, ghz) in [(1.37, 5.17), (1.0, 3.5), (1.0, 4.5), (1.0, 1.5)] {
        let mut points = vec![point(16 << 10, ns), point(1 << 30, 200.0)];
        assign_local_clock(&mut points, &[Some(ghz); 3], Some(ghz));
        let check = check_clock(&points, Some(32 << 10), None).unwrap();
        assert!(!check.plausible, "{check:?}");
        let why = withhold_cycles_if_implausible(&mut points, Some(&check)).unwrap();
        assert!(why.contains("left out") && why.contains(&format!("{ghz:.2} GHz")), "{why}");
        assert!(points.iter().all(|p| p.cycles_per_load.is_none()));
    }
    // Nothing small enough to be sure it is L1, or no clock: no check.
    assert_eq!(check_clock(&[point(64 << 10, 3.0)], Some(32 << 10), Some(3.0)), None);
    assert_eq!(check_clock(&[point(16 << 10, 1.0)], None, None), None);
    assert!(check_clock(&[point(16 << 10, 1.33)], None, Some(3.0)).unwrap().plausible);
}
