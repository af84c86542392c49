//! A bounded soak: the latency ladder and the GROUP BY race, over and over in one process, as a
//! long-running host of memwall (or a browser tab measuring again and again) would run them.
//! Memory must stay flat once warm (no leak, no pool that only grows) and every repetition must
//! find the same groups, counts and checksums.
//!
//! The core runs in this test's own process so that its resident set (`VmRSS`, and the peak
//! `VmHWM`, from /proc/self/status) is the soak's alone: this file holds one test, and a test
//! binary runs only its own file's tests. It takes about ten seconds here.
#![cfg(target_os = "linux")]

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use memwall_core::clock::Clock;
use memwall_core::exec::Sequential;
use memwall_core::groupby::datagen::{self, DataSpec, Skew};
use memwall_core::groupby::{self, GroupByConfig, GroupResult, HeapChunks, Kernel, MemoryPolicy, Scratch};
use memwall_core::ladder::{self, Cycles, HeapArena, Pattern, SampleConfig};
use memwall_core::size::format_bytes;

struct MonotonicClock(Instant);

impl Clock for MonotonicClock {
    fn now_ns(&self) -> f64 {
        self.0.elapsed().as_nanos() as f64
    }
}

/// `VmRSS` and `VmHWM` of this process, in bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name}"));
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// What one repetition found: each ladder size measured, and each kernel's result.
#[derive(Debug, PartialEq)]
struct Found {
    ladder_sizes: Vec<u64>,
    results: Vec<(Kernel, GroupResult)>,
}

/// Warm-up repetitions (allocator pools and the scratch pool reach their size) and measured
/// ones. Growth after the warm-up is allowed `SLACK`: allocator bookkeeping and a page or two of
/// fragmentation, far below one leaked ring (1 MiB and up) or one leaked key set (16 MiB) per
/// repetition over the repetitions measured.
const WARMUP: usize = 2;
const REPETITIONS: usize = 12;
const SLACK: u64 = 4 << 20;

#[test]
fn the_ladder_and_the_race_repeated_keep_memory_flat_and_results_stable() {
    let clock = MonotonicClock(Instant::now());
    let sizes = ladder::ladder_sizes(16 << 10, 16 << 20, 1).unwrap();
    let config = SampleConfig {
        target_sample_ns: 200_000.0,
        samples: 3,
        warmup: true,
        seed: 7,
        attempts: 1,
        pattern: Pattern::Random,
    };
    let spec = DataSpec { rows: 2_000_000, keys: 200_000, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 11 };
    let groupby_config = GroupByConfig::default();
    // One pool for the whole soak, as a long-running engine keeps its allocator: it may grow to
    // what the largest kernel needs, and never past that.
    let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Warm);

    let started = Instant::now();
    let (rss_start, _) = rss();
    let mut first: Option<Found> = None;
    let mut after_warmup = (0, 0);
    let mut readings = Vec::new();
    for repetition in 0..WARMUP + REPETITIONS {
        let points = ladder::run_ladder(&mut HeapArena, &clock, &sizes, &config, Cycles::Unknown, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(points.iter().all(|p| p.ns_per_load.min > 0.0 && p.ns_per_load.max.is_finite()));
        // Fresh keys every time: generating allocates and frees 16 MB per repetition.
        let keys = datagen::generate(&spec).unwrap();
        let mut results = Vec::new();
        for kernel in Kernel::ALL {
            scratch.begin_run();
            let outcome = groupby::run_in(kernel, &keys, &groupby_config, &Sequential, &scratch).unwrap();
            results.push((kernel, outcome.result));
        }
        drop(keys);
        let found = Found { ladder_sizes: points.iter().map(|p| p.bytes).collect(), results };
        for (kernel, result) in &found.results {
            assert_eq!(result.rows, spec.rows, "{} lost or invented rows", kernel.name());
            assert_eq!(result.groups, spec.keys, "{} found other groups", kernel.name());
        }
        match &first {
            None => first = Some(found),
            Some(first) => assert_eq!(&found, first, "repetition {repetition} found something else"),
        }
        let reading = rss();
        if repetition + 1 == WARMUP {
            after_warmup = reading;
        }
        readings.push(reading);
    }
    let elapsed = started.elapsed();
    let (rss_end, hwm_end) = *readings.last().unwrap();
    let measured = &readings[WARMUP..];
    let highest = measured.iter().map(|r| r.0).max().unwrap();
    eprintln!(
        "soak: {} repetitions ({WARMUP} warm-up) of a {}-size ladder to {} and {} kernels over {} rows in {:.1} s; \
         RSS {} at the start, {} after warm-up, {} at the end (highest {}); peak RSS (VmHWM) {} after warm-up, {} at the end",
        WARMUP + REPETITIONS,
        sizes.len(),
        format_bytes(*sizes.last().unwrap()),
        Kernel::ALL.len(),
        spec.rows,
        elapsed.as_secs_f64(),
        format_bytes(rss_start),
        format_bytes(after_warmup.0),
        format_bytes(rss_end),
        format_bytes(highest),
        format_bytes(after_warmup.1),
        format_bytes(hwm_end),
    );
    assert!(
        highest <= after_warmup.0 + SLACK,
        "RSS grew from {} after warm-up to {}: more than {} ({readings:?})",
        format_bytes(after_warmup.0),
        format_bytes(highest),
        format_bytes(SLACK)
    );
    assert!(
        hwm_end <= after_warmup.1 + SLACK,
        "peak RSS grew from {} after warm-up to {}",
        format_bytes(after_warmup.1),
        format_bytes(hwm_end)
    );
    assert!(elapsed < Duration::from_secs(120), "the soak must stay bounded; it took {elapsed:?}");
}
