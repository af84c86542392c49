//! The join kernels as the browser runs them: wasm32, single-threaded, heap scratch, in headless
//! Chromium (`cargo test -p memwall-core --target wasm32-unknown-unknown --test wasm_join`).
//! Every kernel must equal the reference here too: wasm has 32-bit pointers and hashes through
//! another mix (no 128-bit multiply), so partitions and slots differ from native runs while
//! results may not.
#![cfg(target_arch = "wasm32")]

use std::ops::ControlFlow;

use memwall_core::budget::CacheBudget;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::exec::Sequential;
use memwall_core::join::data::{self, JoinSpec};
use memwall_core::join::race::{Check, RaceError, Racer, Sides, Truth};
use memwall_core::join::{self, BuildRow, JoinConfig, JoinError, Kernel};
use memwall_core::scratch::{HeapChunks, MemoryPolicy};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

mod common;

use common::PerformanceClock;

wasm_bindgen_test_configure!(run_in_browser);

/// One warm run per kernel on the heap, one thread, default sizes: how the page races.
fn browser_racer<'a>(kernels: &'a [Kernel], clock: &'a PerformanceClock, truth: Truth) -> Racer<'a> {
    Racer {
        kernels,
        memory: &HeapChunks,
        policy: MemoryPolicy::Warm,
        runs: 1,
        work: memwall_core::join::race::JoinWork { config: JoinConfig::default(), exec: &Sequential, clock, truth },
    }
}

fn rows(keys: &[i64]) -> Vec<BuildRow> {
    keys.iter().map(|&key| BuildRow { key, payload: data::payload_of(key, 3) }).collect()
}

fn check(build: &[BuildRow], probe: &[i64]) {
    let clock = PerformanceClock::new();
    let expected = join::reference(build, probe);
    let default = JoinConfig::default();
    for config in [
        default,
        JoinConfig { budget: CacheBudget::sized(0, 0), ..default },
        JoinConfig { partitions: Some(1), ..default },
    ] {
        for kernel in Kernel::ALL {
            let got = join::run(kernel, build, probe, &config, &Sequential, &clock).map(|o| o.result);
            match (&expected, got) {
                (Ok(e), Ok(g)) => assert_eq!(*e, g, "{} with {config:?}", kernel.name()),
                (Err(_), Err(JoinError::DuplicateBuildKey(_))) => {}
                (e, g) => panic!("{}: the reference gave {e:?}, the kernel {g:?}", kernel.name()),
            }
        }
    }
}

#[wasm_bindgen_test]
fn kernels_equal_the_reference_on_adversarial_joins() {
    let extremes = [0, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1, join::EMPTY_SLOT_KEY];
    let all: Vec<i64> = (0..3000).collect();
    let cases: Vec<(Vec<BuildRow>, Vec<i64>)> = vec![
        (vec![], vec![]),
        (vec![], vec![0, i64::MIN]),
        (rows(&extremes), vec![]),
        (rows(&extremes), extremes.iter().copied().cycle().take(700).chain([2, -2]).collect()),
        (vec![BuildRow { key: 0, payload: 0 }], vec![0, 0, 1]),
        (rows(&all), (3000..6000).collect()),
        (rows(&all), all.iter().rev().copied().collect()),
        (rows(&all), vec![7; 3000]),
        (rows(&(0..2048).map(|i| i << 52).collect::<Vec<_>>()), (0..4096).map(|i| (i % 3000) << 52).collect()),
        (rows(&[1, 2, 3, 1]), vec![1]),
        (rows(&[i64::MIN, i64::MAX, i64::MIN]), vec![]),
        (rows(&[join::EMPTY_SLOT_KEY, 4, join::EMPTY_SLOT_KEY]), vec![4]),
    ];
    for (build, probe) in &cases {
        check(build, probe);
    }
}

/// The exact sums engines are checked by, past 64 bits, on wasm32's 128-bit arithmetic too.
#[wasm_bindgen_test]
fn exact_sums_do_not_wrap() {
    let build = [BuildRow { key: i64::MIN, payload: u64::MAX }, BuildRow { key: i64::MAX, payload: u64::MAX - 1 }];
    let probe: Vec<i64> = [i64::MIN; 300].into_iter().chain([i64::MAX; 100]).chain([0]).collect();
    let expected = join::reference(&build, &probe).unwrap();
    assert_eq!(expected.matches, 400);
    assert_eq!(expected.key_sum, 300 * i128::from(i64::MIN) + 100 * i128::from(i64::MAX));
    assert_eq!(expected.payload_sum, 300 * u128::from(u64::MAX) + 100 * u128::from(u64::MAX - 1));
    check(&build, &probe);
}

#[wasm_bindgen_test]
fn kernels_equal_the_reference_on_generated_joins() {
    for (rows, keys, skew, miss_rate) in
        [(100_000, 20_000, Skew::Zipf(datagen::CLICKBENCH_ZIPF), 0.1), (60_000, 60_000, Skew::Uniform, 0.0)]
    {
        let spec = JoinSpec { data: DataSpec { rows, keys, skew, seed: 5 }, miss_rate };
        let data = data::generate(&spec).unwrap();
        check(&data.build, &data.probe);
        assert_eq!(join::reference(&data.build, &data.probe).unwrap().matches, rows - data.misses);
    }
}

#[wasm_bindgen_test]
fn a_wrong_kernel_is_caught_in_the_browser() {
    let clock = PerformanceClock::new();
    let spec = JoinSpec { data: DataSpec { rows: 20_000, keys: 3000, skew: Skew::Uniform, seed: 1 }, miss_rate: 0.2 };
    let data = data::generate(&spec).unwrap();
    let kernels = [Kernel::Tuned];
    let racer = browser_racer(&kernels, &clock, Truth { known: Some(20_000 - data.misses), reference: false });
    let one_more = memwall_core::race::Racer {
        kernels: racer.kernels,
        memory: racer.memory,
        policy: racer.policy,
        runs: 1,
        work: memwall_core::race::Spoiled { work: racer.work, kernel: Kernel::Tuned, spoil: |o| o.result.matches += 1 },
    };
    let sides = Sides { build: &data.build, probe: &data.probe };
    let error = one_more.time(sides, &mut |_| ControlFlow::Continue(())).unwrap_err();
    assert!(matches!(error, RaceError::Wrong { check: Check::KnownMatches, .. }), "{error}");
    let timings = racer.time(sides, &mut |_| ControlFlow::Continue(())).unwrap();
    assert!(timings[0].seconds.iter().all(|s| s.is_finite() && *s >= 0.0));
}

#[wasm_bindgen_test]
fn a_browser_race_compares_with_another_on_the_same_sizes_only() {
    use memwall_core::join::summary::{Comparison, browser_vs_native};
    use memwall_report::JoinDataset;

    let clock = PerformanceClock::new();
    let spec = JoinSpec { data: DataSpec { rows: 30_000, keys: 4000, skew: Skew::Uniform, seed: 2 }, miss_rate: 0.1 };
    let data = data::generate(&spec).unwrap();
    let kernels = [Kernel::Naive, Kernel::Partitioned];
    let racer = browser_racer(&kernels, &clock, Truth::by_default(30_000, Some(30_000 - data.misses)));
    let dataset = JoinDataset {
        build_keys: 4000,
        probe_rows: 30_000,
        miss_rate: 0.1,
        misses: data.misses,
        generator: None,
        seed: Some(2),
    };
    let race = || racer.race(&data.build, &data.probe, dataset.clone(), &mut |_| ControlFlow::Continue(())).unwrap();
    let (one, other) = (race(), race());
    match browser_vs_native(&one, &other) {
        Comparison::Ratios { kernels, same_answer } => {
            assert!(same_answer);
            assert_eq!(kernels.iter().map(|k| k.kernel.as_str()).collect::<Vec<_>>(), ["naive", "partitioned"]);
            assert!(kernels.iter().all(|k| k.ratio.is_finite() && k.ratio > 0.0), "{kernels:?}");
        }
        Comparison::Different(why) => panic!("the same sizes must compare: {why}"),
    }
    let mut smaller = other.clone();
    smaller.dataset.probe_rows = 20_000;
    assert!(matches!(browser_vs_native(&one, &smaller), Comparison::Different(_)));
}

#[wasm_bindgen_test]
fn the_join_partition_function_spreads_the_build_side() {
    let keys: Vec<i64> = data::build_side(64_000, 7).iter().map(|r| r.key).collect();
    for partitions in [1u32, 2, 64, 1024] {
        let mut counts = vec![0u64; partitions as usize];
        for &key in &keys {
            counts[join::partition_of(key, partitions) as usize] += 1;
        }
        let mean = 64_000 / u64::from(partitions);
        assert!(counts.iter().all(|&c| c > mean / 2 && c < mean * 2), "{partitions} partitions: {counts:?}");
    }
}

#[wasm_bindgen_test]
fn generated_sides_are_the_same_in_wasm() {
    // Pinned from a native run (join::tests::generated_sides_are_pinned_for_the_wasm_tests):
    // which rows miss and every payload, so the page's join and `memwall join` agree.
    let spec = JoinSpec {
        data: DataSpec { rows: 20_000, keys: 3000, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 42 },
        miss_rate: 0.1,
    };
    let data = data::generate(&spec).unwrap();
    let result = join::reference(&data.build, &data.probe).unwrap();
    assert_eq!(
        (result.matches, data.misses, format!("{:016x}", result.checksum)),
        (17_998, 2002, "1b5f5229cf723978".into())
    );
}
