//! Every kernel against the reference, on adversarial and generated data, with and without
//! threads and with the partition count and caches pushed to their extremes.

use crate::budget::CacheBudget;
use proptest::prelude::*;

use super::data::{JoinSpec, generate};
use super::table::EMPTY;
use super::*;
use crate::clock::Ticks;
use crate::datagen::{DataSpec, Skew};
use crate::exec::Sequential;

/// Runs tasks on real threads, to hold the kernels' splits to the same answers.
struct Threads(usize);

impl Executor for Threads {
    fn threads(&self) -> usize {
        self.0
    }
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        std::thread::scope(|s| {
            for t in 0..self.0 {
                s.spawn(move || (t..tasks).step_by(self.0).for_each(task));
            }
        });
    }
}

fn rows(keys: &[i64]) -> Vec<BuildRow> {
    keys.iter().map(|&key| BuildRow { key, payload: data::payload_of(key, 1) }).collect()
}

fn configs() -> Vec<JoinConfig> {
    let default = JoinConfig::default();
    vec![
        default,
        // Tiny caches: many partitions, some empty.
        JoinConfig { budget: CacheBudget::sized(0, 0), ..default },
        JoinConfig { partitions: Some(1), ..default },
        JoinConfig { partitions: Some(MAX_PARTITIONS), ..default },
        // A huge last-level cache: adaptive keeps one hashbrown table.
        JoinConfig { budget: CacheBudget { last_level_bytes: 1 << 40, ..default.budget }, ..default },
        // Adaptive's flat table for 2,501-5,000 build keys (hashbrown below, tuned above).
        JoinConfig { budget: CacheBudget::sized(0, 64 * 5000), ..default },
    ]
}

fn check(build: &[BuildRow], probe: &[i64]) {
    let expected = reference(build, probe);
    for config in configs() {
        for threads in [1, 3] {
            let exec: &dyn Executor = if threads == 1 { &Sequential } else { &Threads(threads) };
            for kernel in Kernel::ALL {
                let got = run(kernel, build, probe, &config, exec, &Ticks::default()).map(|o| o.result);
                match (&expected, got) {
                    (Ok(e), Ok(g)) => assert_eq!(*e, g, "{} {config:?}, {threads} threads", kernel.name()),
                    (Err(_), Err(JoinError::DuplicateBuildKey(_))) => {}
                    (e, g) => panic!("{}: {e:?} but {g:?}", kernel.name()),
                }
            }
        }
    }
}

fn adversarial() -> Vec<(Vec<BuildRow>, Vec<i64>)> {
    let extremes = [0, 1, -1, i64::MIN, i64::MAX, EMPTY as i64, i64::MIN + 1, i64::MAX - 1];
    let all: Vec<i64> = (0..5000).collect();
    vec![
        // Empty sides.
        (vec![], vec![]),
        (vec![], vec![1, 2, 0, EMPTY as i64]),
        (rows(&extremes), vec![]),
        // The extremes (and the empty-slot marker) as keys, probed, repeated, and missed.
        (rows(&extremes), extremes.iter().copied().cycle().take(1000).chain([2, 3, -2]).collect()),
        // Key 0 with payload 0, the marker with payload 0.
        (vec![BuildRow { key: 0, payload: 0 }, BuildRow { key: EMPTY as i64, payload: 0 }], vec![0, 0, EMPTY as i64]),
        // All misses.
        (rows(&all), (5000..9000).chain([i64::MIN, i64::MAX]).collect()),
        // All hits, every key once, and one key probed by every row.
        (rows(&all), all.iter().rev().copied().collect()),
        (rows(&all), vec![4242; 5000]),
        // Keys that differ only in their top bits (a weak hash would pile them in one slot).
        (rows(&(0..4096).map(|i| i << 52).collect::<Vec<_>>()), (0..8192).map(|i| (i % 5000) << 52).collect()),
        // Duplicate build keys: refused by every kernel, wherever the duplicate is.
        (rows(&[1, 2, 3, 1]), vec![1]),
        (rows(&[0, 0]), vec![]),
        (rows(&[EMPTY as i64, 5, EMPTY as i64]), vec![5]),
        (rows(&(0..3000).chain([2999]).collect::<Vec<_>>()), vec![]),
        (rows(&[i64::MIN, i64::MAX, i64::MIN]), vec![i64::MIN]),
    ]
}

#[test]
fn kernels_equal_the_reference_on_adversarial_joins() {
    for (build, probe) in adversarial() {
        check(&build, &probe);
    }
}

#[test]
fn duplicates_are_refused_by_every_kernel_and_the_reference() {
    let build = rows(&[7, 8, 9, 8]);
    assert_eq!(reference(&build, &[8]), Err(JoinError::DuplicateBuildKey(8)));
    for kernel in Kernel::ALL {
        let got = run(kernel, &build, &[8], &JoinConfig::default(), &Sequential, &Ticks::default());
        assert_eq!(got.unwrap_err(), JoinError::DuplicateBuildKey(8), "{}", kernel.name());
    }
}

#[test]
fn the_reference_counts_and_checksums() {
    let build = [BuildRow { key: 5, payload: 50 }, BuildRow { key: -3, payload: 30 }];
    let result = reference(&build, &[5, 5, -3, 4]).unwrap();
    assert_eq!(result.matches, 3);
    let swapped = [BuildRow { key: 5, payload: 30 }, BuildRow { key: -3, payload: 50 }];
    assert_ne!(reference(&swapped, &[5, 5, -3, 4]).unwrap().checksum, result.checksum, "payloads count");
    assert_eq!(reference(&build, &[-3, 4, 5, 5]).unwrap(), result, "order does not");
    assert_eq!((result.key_sum, result.payload_sum), (7, 130), "the exact sums of the matches");
    assert_eq!(reference(&[], &[1]).unwrap(), JoinResult::default());
}

/// The sums SQL engines are checked by must be exact where 64 bits wrap: extreme keys, the
/// largest payloads, the empty-slot marker, many times over, in every kernel.
#[test]
fn exact_sums_do_not_wrap_in_any_kernel() {
    let build = [
        BuildRow { key: i64::MIN, payload: u64::MAX },
        BuildRow { key: i64::MAX, payload: u64::MAX - 1 },
        BuildRow { key: EMPTY as i64, payload: u64::MAX },
        BuildRow { key: 0, payload: 0 },
    ];
    let probe: Vec<i64> =
        [i64::MIN; 3000].into_iter().chain([i64::MAX; 1000]).chain([EMPTY as i64; 7]).chain([0, 1, -1]).collect();
    // Computed here in the plainest way: 3000 MIN + 1000 MAX + 7 EMPTY; payloads likewise.
    let key_sum = 3000 * i128::from(i64::MIN) + 1000 * i128::from(i64::MAX) + 7 * i128::from(EMPTY as i64);
    let payload_sum = 3007 * u128::from(u64::MAX) + 1000 * u128::from(u64::MAX - 1);
    assert!(key_sum < i128::from(i64::MIN) && payload_sum > u128::from(u64::MAX), "past 64 bits");
    let expected = reference(&build, &probe).unwrap();
    assert_eq!((expected.matches, expected.key_sum, expected.payload_sum), (4008, key_sum, payload_sum));
    check(&build, &probe);
}

#[test]
fn generated_joins_match_as_generated() {
    for (rows, keys, skew, miss_rate) in [
        (200_000, 20_000, Skew::Zipf(crate::datagen::CLICKBENCH_ZIPF), 0.0),
        (100_000, 100_000, Skew::Uniform, 0.25),
        (50_000, 5, Skew::Zipf(2.0), 1.0),
    ] {
        let spec = JoinSpec { data: DataSpec { rows, keys, skew, seed: 9 }, miss_rate };
        let data = generate(&spec).unwrap();
        assert_eq!(data.build.len() as u64, keys);
        assert_eq!(data.probe.len() as u64, rows);
        let expected = reference(&data.build, &data.probe).unwrap();
        assert_eq!(expected.matches, rows - data.misses);
        let share = data.misses as f64 / rows as f64;
        assert!((share - miss_rate).abs() < 0.01, "{share} misses for a rate of {miss_rate}");
        check(&data.build, &data.probe);
    }
    let bad = JoinSpec { data: DataSpec { rows: 10, keys: 5, skew: Skew::Uniform, seed: 1 }, miss_rate: 1.5 };
    assert!(generate(&bad).unwrap_err().to_string().contains("between 0 and 1"));
}

#[test]
fn phases_are_timed_and_partitions_reported() {
    let data = generate(&JoinSpec {
        data: DataSpec { rows: 10_000, keys: 3000, skew: Skew::Uniform, seed: 1 },
        miss_rate: 0.1,
    })
    .unwrap();
    let config = JoinConfig { budget: CacheBudget::sized(1 << 14, 1 << 15), ..JoinConfig::default() };
    for kernel in Kernel::ALL {
        let outcome = run(kernel, &data.build, &data.probe, &config, &Sequential, &Ticks::default()).unwrap();
        // The fake clock advances 1 µs per reading: each phase is read twice.
        assert_eq!((outcome.build_ns, outcome.probe_ns), (1000.0, 1000.0), "{}", kernel.name());
        assert_eq!(
            outcome.partitions.is_some(),
            matches!(kernel, Kernel::Partitioned | Kernel::Tuned | Kernel::Adaptive)
        );
    }
    let adaptive = run(Kernel::Adaptive, &data.build, &data.probe, &config, &Sequential, &Ticks::default()).unwrap();
    assert_eq!(adaptive.choice.unwrap().kernel, "tuned", "3000 keys outgrow a 16 KiB cache");
    // 3,000 keys: a flat table at most half full in 16-byte slots fits 256 KiB; hashbrown, kept
    // in the last level's first quarter, does not; in 1 MiB, hashbrown fits.
    for (last_level_bytes, kernel) in [(1 << 18, "prefetch"), (1 << 20, "naive")] {
        let roomy = JoinConfig { budget: CacheBudget { last_level_bytes, ..config.budget }, ..config };
        let adaptive = run(Kernel::Adaptive, &data.build, &data.probe, &roomy, &Threads(2), &Ticks::default()).unwrap();
        assert_eq!((adaptive.choice.unwrap().kernel.as_str(), adaptive.threads), (kernel, 2));
        assert_eq!(adaptive.result, reference(&data.build, &data.probe).unwrap());
    }
}

#[test]
fn partitions_follow_the_cache() {
    let config = JoinConfig {
        budget: CacheBudget::sized(1 << 20, JoinConfig::default().budget.last_level_bytes),
        ..JoinConfig::default()
    };
    assert_eq!(config.partitions_for(0), 1);
    assert_eq!(config.partitions_for(8192), 1);
    assert_eq!(config.partitions_for(8193), 2);
    assert_eq!(config.partitions_for(17_630_976), 4096);
    assert_eq!(
        JoinConfig { budget: CacheBudget { per_core_bytes: 1 << 18, ..config.budget }, ..config }
            .partitions_for(17_630_976),
        16384
    );
    assert_eq!(config.partitions_for(u64::MAX), MAX_PARTITIONS);
    assert_eq!(JoinConfig { partitions: Some(3), ..config }.validate(), Err(JoinError::Partitions(3)));
}

#[test]
fn scratch_stays_within_its_bound() {
    let data = generate(&JoinSpec {
        data: DataSpec { rows: 60_000, keys: 20_000, skew: Skew::Uniform, seed: 2 },
        miss_rate: 0.5,
    })
    .unwrap();
    for config in configs() {
        for kernel in Kernel::ALL {
            let mut scratch = Scratch::new(&crate::scratch::HeapChunks, crate::scratch::MemoryPolicy::Cold);
            scratch.begin_run();
            run_in(kernel, &data.build, &data.probe, &config, &Sequential, &scratch, &Ticks::default()).unwrap();
            let used = scratch.run_memory().carved_bytes;
            let bound = scratch_bytes(kernel, 20_000, 60_000, &config, 1);
            assert!(used <= bound, "{}: {used} > {bound} with {config:?}", kernel.name());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn kernels_equal_the_reference_on_random_joins(
        build in proptest::collection::hash_set(prop_oneof![-50i64..50, any::<i64>()], 0..400),
        probe in proptest::collection::vec(prop_oneof![-60i64..60, any::<i64>()], 0..800),
    ) {
        let build: Vec<i64> = build.into_iter().collect();
        check(&rows(&build), &probe);
    }
}

#[test]
fn crossovers_need_every_larger_size_to_agree() {
    let point = |x: u64, kernel: Kernel, ns: f64| memwall_report::JoinSweepPoint {
        x,
        kernel: kernel.name().into(),
        ns_per_probe: ns,
        build_seconds: 0.0,
        probe_seconds: 0.0,
        seconds: 0.0,
    };
    let (p, n) = (Kernel::Partitioned, Kernel::Naive);
    // Partitioned wins at 2 by chance, loses at 4, then wins from 8 on: the crossover is 8.
    let points = [
        point(1, p, 5.0),
        point(1, n, 1.0),
        point(2, p, 1.0),
        point(2, n, 2.0),
        point(4, p, 5.0),
        point(4, n, 3.0),
        point(8, p, 4.0),
        point(8, n, 9.0),
        point(16, p, 4.0),
        point(16, n, 20.0),
    ];
    assert_eq!(sweep::crossover(&points, p, n), Some(8));
    assert_eq!(sweep::crossover(&points, n, p), None, "naive loses at the largest size");
    assert_eq!(sweep::crossover(&points, p, Kernel::Prefetch), None, "no prefetch points");
}

#[test]
fn a_build_size_sweep_races_every_kernel_at_every_size() {
    let kernels = [Kernel::Naive, Kernel::Partitioned, Kernel::Prefetch];
    let clock = Ticks::default();
    let racer = race::Racer {
        kernels: &kernels,
        memory: &crate::scratch::HeapChunks,
        policy: crate::scratch::MemoryPolicy::Warm,
        runs: 2,
        work: race::JoinWork {
            config: JoinConfig::default(),
            exec: &Sequential,
            clock: &clock,
            truth: race::Truth { known: None, reference: true },
        },
    };
    let builds = sweep::doublings(1000, 8192);
    assert_eq!(builds, [1024, 2048, 4096, 8192]);
    let sweep = racer
        .build_size(20_000, &builds, Skew::Uniform, 3, 0.1, &mut |_| core::ops::ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(sweep.points.len(), builds.len() * kernels.len());
    assert_eq!(sweep.verified_by, ["known-matches", "reference", "cross-kernel", "repeatable"]);
    // The fake clock: each phase reads it twice, 1 µs apart.
    assert!(sweep.points.iter().all(|p| p.seconds == 2e-6 && p.build_seconds == 1e-6));
    let mut cancelled = 0;
    let error = racer.build_size(20_000, &builds, Skew::Uniform, 3, 0.0, &mut |_| {
        cancelled += 1;
        if cancelled > 3 { core::ops::ControlFlow::Break(()) } else { core::ops::ControlFlow::Continue(()) }
    });
    assert_eq!(error.unwrap_err(), sweep::SweepError::Cancelled);
}

#[test]
fn a_wrong_kernel_is_caught_by_each_check() {
    use crate::race::Racer;
    use race::{Check, RaceError, Truth};
    let data =
        generate(&JoinSpec { data: DataSpec { rows: 8000, keys: 1000, skew: Skew::Uniform, seed: 4 }, miss_rate: 0.3 })
            .unwrap();
    let clock = Ticks::default();
    let racer = |kernels: &'static [Kernel], truth: Truth| Racer {
        kernels,
        memory: &crate::scratch::HeapChunks,
        policy: crate::scratch::MemoryPolicy::Cold,
        runs: 1,
        work: race::JoinWork { config: JoinConfig::default(), exec: &Sequential, clock: &clock, truth },
    };
    let matches = 8000 - data.misses;
    type Case = (fn(&mut Outcome), &'static [Kernel], Truth, Check);
    let cases: [Case; 7] = [
        (
            |r| r.result.matches -= 1,
            &[Kernel::Tuned],
            Truth { known: Some(matches), reference: false },
            Check::KnownMatches,
        ),
        (
            |r| r.result.checksum ^= 1,
            &[Kernel::Tuned],
            Truth { known: Some(matches), reference: true },
            Check::Reference(crate::race::Reference::SortAndMerge),
        ),
        (|r| r.result.checksum ^= 1, &[Kernel::Naive, Kernel::Tuned], Truth::default(), Check::CrossKernel),
        (
            |r| r.result.key_sum += 1,
            &[Kernel::Tuned],
            Truth { known: Some(matches), reference: true },
            Check::Reference(crate::race::Reference::SortAndMerge),
        ),
        (|r| r.result.key_sum -= 1, &[Kernel::Naive, Kernel::Tuned], Truth::default(), Check::CrossKernel),
        (
            |r| r.result.payload_sum += 1,
            &[Kernel::Tuned],
            Truth { known: Some(matches), reference: true },
            Check::Reference(crate::race::Reference::SortAndMerge),
        ),
        (|r| r.result.payload_sum -= 1, &[Kernel::Naive, Kernel::Tuned], Truth::default(), Check::CrossKernel),
    ];
    for (spoil, kernels, truth, check) in cases {
        let plain = racer(kernels, truth);
        let spoiled = Racer {
            kernels: plain.kernels,
            memory: plain.memory,
            policy: plain.policy,
            runs: plain.runs,
            work: crate::race::Spoiled { work: plain.work, kernel: Kernel::Tuned, spoil },
        };
        let sides = race::Sides { build: &data.build, probe: &data.probe };
        let error = spoiled.time(sides, &mut |_| core::ops::ControlFlow::Continue(())).unwrap_err();
        assert!(matches!(error, RaceError::Wrong { kernel: "tuned", check: c, .. } if c == check), "{error}");
    }
    let duplicated = rows(&[1, 2, 1]);
    let error = racer(&[Kernel::Naive], Truth { known: None, reference: true })
        .time(race::Sides { build: &duplicated, probe: &[1] }, &mut |_| core::ops::ControlFlow::Continue(()))
        .unwrap_err();
    assert_eq!(error.to_string(), "reference: the build side has key 1 more than once: its keys must be distinct");
}

/// Pinned here and in `tests/wasm_join.rs`: the sides (which rows miss, every payload) and so
/// the answer do not depend on the target, so a browser's join and a native one of the same
/// sizes can be checked against each other.
const PINNED_JOIN: (u64, u64, &str) = (17_998, 2002, "1b5f5229cf723978");

#[test]
fn generated_sides_are_pinned_for_the_wasm_tests() {
    let spec = JoinSpec {
        data: DataSpec { rows: 20_000, keys: 3000, skew: Skew::Zipf(crate::datagen::CLICKBENCH_ZIPF), seed: 42 },
        miss_rate: 0.1,
    };
    let data = generate(&spec).unwrap();
    let result = reference(&data.build, &data.probe).unwrap();
    let got = (result.matches, data.misses, format!("{:016x}", result.checksum));
    assert_eq!((got.0, got.1, got.2.as_str()), PINNED_JOIN, "{got:?}");
}
