//! A bounded soak: the latency ladder and the GROUP BY race, over and over in one process, as a
//! long-running host of memwall (or a browser tab measuring again and again) would run them.
//! Memory must stay flat once warm (no leak, no pool that only grows) and every repetition must
//! find the same groups, counts and checksums.
//!
//! First the core runs in this test's own process, so that its resident set (`VmRSS`, and the
//! peak `VmHWM`, from /proc/self/status) is the soak's alone: this file holds one test (the two
//! soaks run one after the other), and a test binary runs only its own file's tests. Then the
//! real `memwall groupby` repeats one kernel a hundred times with cold memory (every run maps
//! and unmaps its scratch through the native arena) while this test samples the child's
//! `VmRSS`. Both take about fifteen seconds here.
#![cfg(target_os = "linux")]

use std::ops::ControlFlow;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memwall_core::clock::Clock;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::exec::Sequential;
use memwall_core::groupby::{self, GroupByConfig, GroupResult, Kernel};
use memwall_core::ladder::{self, Cycles, HeapArena, Pattern, SampleConfig};
use memwall_core::scratch::{HeapChunks, MemoryPolicy, Scratch};
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
    let spec = DataSpec { rows: 2_000_000, keys: 200_000, skew: Skew::Zipf(datagen::CLICKBENCH_ZIPF), seed: 11 };
    let tuned = in_process(&spec);
    in_the_cli(&spec, &tuned);
}

/// The soak in this process; returns what the tuned kernel found.
fn in_process(spec: &DataSpec) -> GroupResult {
    let clock = MonotonicClock(Instant::now());
    let sizes = ladder::ladder_sizes(16 << 10, 16 << 20, 1).unwrap();
    let config = SampleConfig {
        target_sample_ns: 200_000.0,
        samples: 3,
        warmup: true,
        seed: 7,
        attempts: 1,
        pattern: Pattern::Random,
        timer_resolution_ns: 0.0,
    };
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
        let keys = datagen::generate(spec).unwrap();
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
    let first = first.unwrap();
    first.results.into_iter().find(|(k, _)| *k == Kernel::Tuned).unwrap().1
}

/// `VmRSS` of process `pid`, or `None` once it is gone.
fn rss_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The CLI soak: one `memwall groupby` process, the tuned kernel a hundred times under cold
/// memory. Its resident set, sampled every 10 ms, swings with each run's mapping; the highest
/// swing in the last 45% of the time may not exceed the highest in the 30% before by more than
/// `SLACK`. Every run must agree with the others (the CLI checks) and with the core in-process.
fn in_the_cli(spec: &DataSpec, in_process: &GroupResult) {
    const RUNS: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("soak.json");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(["groupby", "--kernel", "tuned", "--memory", "cold", "--no-verify"])
        .args(["--rows", &spec.rows.to_string(), "--keys", &spec.keys.to_string()])
        .args(["--skew", &spec.skew.name(), "--seed", &spec.seed.to_string(), "--runs", &RUNS.to_string()])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut samples = Vec::new();
    while child.try_wait().unwrap().is_none() {
        if let Some(rss) = rss_of(child.id()) {
            samples.push((started.elapsed().as_secs_f64(), rss));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let elapsed = started.elapsed().as_secs_f64();

    let report = memwall_report::Report::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let run = &report.groupby.as_ref().unwrap().runs[0];
    assert_eq!(run.samples_seconds.len(), RUNS);
    assert_eq!(run.groups, in_process.groups);
    assert!(run.verified_by.iter().any(|v| v == "repeatable"), "{:?}", run.verified_by);
    assert_eq!(run.checksum, memwall_report::checksum_hex(in_process.checksum), "the CLI and the core disagree");

    let window = |from: f64, to: f64| {
        samples.iter().filter(|(t, _)| *t >= from * elapsed && *t < to * elapsed).map(|s| s.1).max().unwrap()
    };
    let (earlier, later) = (window(0.25, 0.55), window(0.55, 1.01));
    eprintln!(
        "soak: memwall groupby, tuned x {RUNS} under cold memory in one process, {elapsed:.1} s, {} RSS samples: \
         highest RSS {} from 25% to 55% of the time, {} after; checksum {} in every run and in-process",
        samples.len(),
        format_bytes(earlier),
        format_bytes(later),
        run.checksum
    );
    assert!(samples.len() >= 50, "only {} samples of the child's RSS", samples.len());
    assert!(
        later <= earlier + SLACK,
        "the CLI's RSS grew from {} to {} over its runs",
        format_bytes(earlier),
        format_bytes(later)
    );
}
