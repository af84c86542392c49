//! The GROUP BY kernels as the browser runs them: compiled to wasm32, single-threaded, heap
//! scratch, in headless Chromium (`cargo test -p memwall-core --target wasm32-unknown-unknown
//! --test wasm_groupby`). Every kernel must equal the `BTreeMap` reference here too: wasm has
//! 32-bit pointers and no 128-bit multiply instruction, so the hashes and the page arithmetic
//! run through different code than natively.
#![cfg(target_arch = "wasm32")]

use std::ops::ControlFlow;

use memwall_core::budget::CacheBudget;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::exec::Sequential;
use memwall_core::groupby::race::{Check, RaceError, Truth};
use memwall_core::groupby::race::{GroupByWork, Racer};
use memwall_core::groupby::{self, GroupByConfig, Kernel, Phases, Rows, Values};
use memwall_core::race::Spoiled;
use memwall_core::scratch::{HeapChunks, MemoryPolicy, Scratch};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

mod common;

use common::PerformanceClock;

wasm_bindgen_test_configure!(run_in_browser);

fn check(keys: &[i64]) {
    let expected = groupby::reference(keys);
    for partitions in [2, 64, 4096, 65536] {
        for cache_bytes in [0, 1 << 20] {
            let config = GroupByConfig {
                partitions,
                budget: CacheBudget::sized(cache_bytes, cache_bytes * 4),
                ..GroupByConfig::default()
            };
            for kernel in Kernel::ALL {
                let outcome = groupby::run(kernel, keys, &config, &Sequential).unwrap();
                assert_eq!(outcome.result, expected, "{} with P = {partitions}, {} rows", kernel.name(), keys.len());
            }
        }
    }
}

#[wasm_bindgen_test]
fn kernels_equal_the_reference_on_adversarial_keys() {
    let cases: Vec<Vec<i64>> = vec![
        vec![],
        vec![42],
        vec![0; 5000],
        vec![i64::MIN, i64::MAX, 0, -1, 1, i64::MIN, i64::MIN],
        (0..5000).collect(),
        (0..4096).map(|i| i << 52).collect(),
        (0..3000).map(|i| [0, i64::MIN, i64::MAX][i % 3]).collect(),
        // Keys that all fall in one partition of the tuned kernel.
        (0i64..).filter(|&k| groupby::partition_of(k, 4096) == 7).take(300).cycle().take(3000).collect(),
    ];
    for keys in &cases {
        check(keys);
    }
}

#[wasm_bindgen_test]
fn kernels_equal_the_reference_on_generated_keys() {
    for (rows, keys, skew) in [
        (100_000, 20_000, Skew::Zipf(datagen::CLICKBENCH_ZIPF)),
        (70_000, 70_000, Skew::Uniform),
        (50_000, 5, Skew::Zipf(2.0)),
    ] {
        let data = datagen::generate(&DataSpec { rows, keys, skew, seed: 3 }).unwrap();
        check(&data);
        assert_eq!(groupby::reference(&data).groups, keys);
    }
}

#[wasm_bindgen_test]
fn generation_is_the_same_in_wasm() {
    // Values pinned from a native run (the same pins are in datagen's native tests): the rows,
    // in order, and the GROUP BY result must not depend on the target.
    let spec = DataSpec { rows: 5000, keys: 700, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 42 };
    let keys = datagen::generate(&spec).unwrap();
    let in_order = keys.iter().fold(0u64, |acc, &k| acc.rotate_left(5) ^ k as u64);
    assert_eq!(format!("{in_order:016x}"), "275fb0a2e0620902");
    assert_eq!(format!("{:016x}", groupby::reference(&keys).checksum), "f0038c31144d0261");
}

#[wasm_bindgen_test]
fn a_cardinality_sweep_runs_in_the_browser() {
    let clock = PerformanceClock::new();
    let kernels = [Kernel::Naive, Kernel::Tuned, Kernel::Adaptive];
    let sweeper = Racer {
        kernels: &kernels,
        memory: &HeapChunks,
        policy: MemoryPolicy::Warm,
        runs: 1,
        work: memwall_core::groupby::race::GroupByWork {
            config: GroupByConfig::default(),
            exec: &Sequential,
            clock: &clock,
            truth: Truth { known: None, reference: true },
            phases: None,
            values: Values::None,
        },
    };
    let sweep =
        sweeper.cardinality(200_000, &[1024, 65536], Skew::Uniform, 1, &mut |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(sweep.points.len(), 6);
    assert!(sweep.points.iter().all(|p| p.seconds >= 0.0 && p.ns_per_row.is_finite()), "{:?}", sweep.points);
}

#[wasm_bindgen_test]
fn a_wrong_kernel_is_caught_in_the_browser() {
    let clock = PerformanceClock::new();
    let keys: Vec<i64> = (0..20_000).map(|i| i % 3000 - 1500).chain([i64::MIN, i64::MAX, 0]).collect();
    let kernels = [Kernel::Tuned];
    let work = GroupByWork {
        config: GroupByConfig::default(),
        exec: &Sequential,
        clock: &clock,
        // 3,000 keys around zero (0 among them), and the two extremes.
        truth: Truth { known: Some(3002), reference: false },
        phases: None,
        values: Values::None,
    };
    let racer = Racer { kernels: &kernels, memory: &HeapChunks, policy: MemoryPolicy::Cold, runs: 1, work };
    let off_by_one = memwall_core::race::Racer {
        kernels: &kernels,
        memory: &HeapChunks,
        policy: MemoryPolicy::Cold,
        runs: 1,
        work: Spoiled { work, kernel: Kernel::Tuned, spoil: |run| run.outcome.result.groups += 1 },
    };
    let error = off_by_one.time(&keys, &mut |_| ControlFlow::Continue(())).unwrap_err();
    assert!(matches!(error, RaceError::Wrong { check: Check::KnownGroups, .. }), "{error}");
    // And the honest kernel passes the same checks.
    assert!(racer.time(&keys, &mut |_| ControlFlow::Continue(())).is_ok());
}

/// Every kernel, every aggregate list, both value types, against the reference, in the browser.
#[wasm_bindgen_test]
fn kernels_compute_every_aggregate_like_the_reference() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state ^ (state >> 29)
    };
    let ints = [i64::MIN, i64::MAX, 0, -1, 1];
    let floats = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 5e-324, f64::MAX, -f64::MAX];
    let key_cases: Vec<Vec<i64>> = vec![
        vec![],
        vec![0],
        vec![i64::MIN; 200],
        (0..2000).collect(),
        (0..3000).map(|i| [0, i64::MIN, i64::MAX, -1, 1][i % 5]).collect(),
        datagen::generate(&DataSpec { rows: 30_000, keys: 6_000, skew: Skew::Zipf(0.8), seed: 2 }).unwrap(),
    ];
    for keys in &key_cases {
        let int_values: Vec<i64> =
            keys.iter().map(|_| if next() % 2 == 0 { ints[(next() % 5) as usize] } else { next() as i64 }).collect();
        let float_values: Vec<f64> = keys
            .iter()
            .map(|_| match next() % 3 {
                0 => floats[(next() % floats.len() as u64) as usize],
                1 => (next() >> 11) as f64 * 1e-300,
                _ => (next() % 2_000_001) as f64 / 1000.0 - 1000.0,
            })
            .collect();
        // The lists the native tests run (groupby::tests::AGGREGATE_LISTS): every state, and
        // every aggregate alone.
        for list in ["count", "sum", "min", "max", "avg", "count,sum", "sum,min,max,count", "count,sum,min,max,avg"] {
            let aggregates = groupby::Aggregates::parse(list).unwrap();
            for values in [Values::I64(&int_values), Values::F64(&float_values)] {
                let rows = Rows { keys, values };
                let expected = groupby::reference_rows(rows, aggregates);
                for partitions in [2, 4096] {
                    for cache_bytes in [0, 1 << 20] {
                        let config = GroupByConfig {
                            partitions,
                            budget: CacheBudget::sized(cache_bytes, cache_bytes * 4),
                            aggregates,
                            host: None,
                        };
                        for kernel in Kernel::ALL {
                            let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
                            scratch.begin_run();
                            let outcome =
                                groupby::run_timed_in(kernel, rows, &config, &Sequential, &scratch, Phases::OFF, None)
                                    .unwrap();
                            assert_eq!(outcome.result, expected, "{} {list} P = {partitions}", kernel.name());
                        }
                    }
                }
            }
        }
    }
}

#[wasm_bindgen_test]
fn aggregates_are_the_same_in_wasm() {
    // Pinned from a native run (groupby::tests::aggregate_results_are_pinned_for_the_wasm_tests).
    let spec = DataSpec { rows: 5000, keys: 700, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 42 };
    let keys = datagen::generate(&spec).unwrap();
    let all = groupby::Aggregates::parse("count,sum,min,max,avg").unwrap();
    for (value_type, checksum, totals) in [
        (
            groupby::ValueType::I64,
            "0ee2c107009e6ea9",
            "count=5000 sum=11764370364 min=-477069614682 max=494023722302 avg=9114967881.26852",
        ),
        (
            groupby::ValueType::F64,
            "1ef1f9764a5f6f28",
            "count=5000 sum=11764370.364000008 min=-477069614.682 max=494023722.302 avg=9114967.88126852",
        ),
    ] {
        let values = groupby::values::generate_values(&spec, value_type, &Sequential);
        let config = GroupByConfig { aggregates: all, ..GroupByConfig::default() };
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        scratch.begin_run();
        let rows = Rows { keys: &keys, values: values.values() };
        let result = groupby::run_timed_in(Kernel::Tuned, rows, &config, &Sequential, &scratch, Phases::OFF, None)
            .unwrap()
            .result;
        let named: Vec<String> = result.totals.named().iter().map(|(n, v)| format!("{n}={v}")).collect();
        assert_eq!(format!("{:016x}", result.checksum), checksum);
        assert_eq!(named.join(" "), totals);
    }
}

#[wasm_bindgen_test]
fn a_browser_race_reports_the_totals_and_sizes_its_plan_by_the_state() {
    // The race the page runs for `?agg=count,sum&value=f64`: every kernel, the same totals, the
    // line the page shows; the values pinned as in aggregates_are_the_same_in_wasm.
    let clock = PerformanceClock::new();
    let spec = DataSpec { rows: 5000, keys: 700, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 42 };
    let keys = datagen::generate(&spec).unwrap();
    let values = groupby::values::generate_values(&spec, groupby::ValueType::F64, &Sequential);
    let aggregates = groupby::Aggregates::parse("sum,count").unwrap();
    let racer = Racer {
        kernels: &Kernel::ALL,
        memory: &HeapChunks,
        policy: MemoryPolicy::Warm,
        runs: 1,
        work: memwall_core::groupby::race::GroupByWork {
            config: GroupByConfig { aggregates, ..GroupByConfig::default() },
            exec: &Sequential,
            clock: &clock,
            truth: Truth::by_default(5000, Some(700)),
            phases: None,
            values: values.values(),
        },
    };
    let dataset = memwall_report::Dataset {
        rows: 5000,
        distinct_keys: 700,
        generator: None,
        input: None,
        seed: Some(42),
        max_rows_per_key: None,
    };
    let race = racer.race(&keys, dataset, &mut |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(
        race.query.as_ref().map(|q| (q.aggregates.join(","), q.value_type.as_str())),
        Some(("count,sum".into(), "f64"))
    );
    assert!(race.runs.iter().all(|r| r.totals == race.runs[0].totals), "kernels disagree on the totals");
    assert_eq!(
        groupby::summary::totals_line(&race).unwrap(),
        "totals over all groups: count 5000, sum 11764370.364000008"
    );
    // Plans grow with the state: wider rows, and the reference sorts each key beside its row
    // number (16 bytes with alignment, though usize takes 4 here).
    assert_eq!((aggregates.row_bytes(), groupby::Aggregates::COUNT.row_bytes()), (16, 8));
    assert_eq!(groupby::input_bytes(10, aggregates), 160);
    assert_eq!(groupby::reference_bytes(10, aggregates), 160);
    assert_eq!(groupby::reference_bytes(10, groupby::Aggregates::COUNT), 80);
    let bytes = |aggregates| {
        let config = GroupByConfig { aggregates, ..GroupByConfig::default() };
        groupby::scratch_bytes(Kernel::Tuned, 1_000_000, 100_000, &config, 1)
    };
    assert!(bytes(aggregates) > bytes(groupby::Aggregates::COUNT));
}
