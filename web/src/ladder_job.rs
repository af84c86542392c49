//! The latency ladder in a worker: the core's chase over the browser's heap, timed with the
//! browser's clock, one size after another, each point posted as it is measured.

use std::ops::ControlFlow;

use memwall_core::clock::{self, Clock};
use memwall_core::ladder::{self, HeapArena, Pattern, SampleConfig};
use memwall_report::{Curve, Host, Ladder, LadderPoint};
use serde::{Deserialize, Serialize};

use crate::clock::cross_origin_isolated;

/// Each timed sample lasts at least this long (the native default `--sample-ms 5`), and longer
/// where the timer is coarse (see `ladder::target_sample_ns`).
const SAMPLE_FLOOR_NS: f64 = 5e6;

/// A timer at least this fine is a cross-origin-isolated one (5 µs in Chrome); coarser timers make
/// every sample 500 ticks long, so fewer samples keep the run short.
const FINE_TIMER_NS: f64 = 20_000.0;

/// What a ladder job posts as it goes. `Done` holds its ladder boxed: a finished ladder is far
/// larger than every other event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum LadderEvent {
    Started {
        timer_resolution_ns: f64,
        target_sample_ns: f64,
        samples: u32,
        cross_origin_isolated: bool,
    },
    /// `curve` 0 is the main random curve, then the job's extra patterns in order.
    Measuring {
        curve: usize,
        index: usize,
        total: usize,
        bytes: u64,
    },
    Point {
        curve: usize,
        index: usize,
        total: usize,
        point: LadderPoint,
    },
    /// Measuring memory-level parallelism over `bytes`.
    Chains {
        bytes: u64,
    },
    Done {
        ladder: Box<Ladder>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderJob {
    pub sizes: Vec<u64>,
    /// Timed samples per size; 0 picks from the timer: 15 with fine timers, 5 with coarse ones.
    pub samples: u32,
    pub seed: u64,
    /// Patterns measured after the main random curve, by name (`page-local`, `page-stride`,
    /// `sequential`): each becomes a curve of the report, drawn beside the main one.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Chase counts for memory-level parallelism (see `ladder::CHAIN_COUNTS`), measured last
    /// over the largest size up to `ladder::DEFAULT_CHAINS_AT`; empty for none.
    #[serde(default)]
    pub chains: Vec<u32>,
}

impl LadderJob {
    /// The main random curve first, then the extra patterns, each once.
    pub fn curves(&self) -> Result<Vec<Pattern>, String> {
        let mut curves = vec![Pattern::Random];
        for name in &self.patterns {
            let pattern = Pattern::parse(name).ok_or_else(|| format!("unknown pattern '{name}'"))?;
            if !curves.contains(&pattern) {
                curves.push(pattern);
            }
        }
        Ok(curves)
    }

    /// Points over every curve (page-stride skips sizes under two pages).
    pub fn planned_points(&self) -> usize {
        let curves = self.curves().unwrap_or_default();
        curves
            .iter()
            .map(|&p| self.sizes.iter().filter(|&&b| p != Pattern::PageStride || b >= two_pages()).count())
            .sum()
    }

    /// Where memory-level parallelism is measured.
    pub fn chains_at(&self) -> u64 {
        self.sizes.last().copied().unwrap_or(0).min(ladder::DEFAULT_CHAINS_AT)
    }
}

/// Measures the job, posting each point; the finished ladder is the last event, or the error is returned.
pub fn run(job: &LadderJob, clock: &dyn Clock, post: &mut dyn FnMut(LadderEvent)) -> Result<(), String> {
    // 50 ticks: 5 ms at 100 µs, enough to see the coarse tick and not only its jitter.
    let resolution = clock::resolution_ns(clock, 50);
    let target_sample_ns = ladder::target_sample_ns(resolution, SAMPLE_FLOOR_NS);
    let samples = match job.samples {
        0 if resolution <= FINE_TIMER_NS => 15,
        0 => 5,
        n => n,
    };
    post(LadderEvent::Started {
        timer_resolution_ns: resolution,
        target_sample_ns,
        samples,
        cross_origin_isolated: cross_origin_isolated(),
    });
    let curves_asked = job.curves()?;
    let config = SampleConfig {
        target_sample_ns,
        samples,
        warmup: true,
        seed: job.seed,
        attempts: ladder::DEFAULT_ATTEMPTS,
        pattern: Pattern::Random,
    };
    let started = clock.now_ns();
    let mut curves = Vec::with_capacity(curves_asked.len());
    for (curve, pattern) in curves_asked.into_iter().enumerate() {
        // Page-stride needs two whole pages; smaller sizes have no such curve.
        let sizes: Vec<u64> =
            job.sizes.iter().copied().filter(|&b| pattern != Pattern::PageStride || b >= two_pages()).collect();
        let config = SampleConfig { pattern, ..config.clone() };
        let result =
            ladder::run_ladder(&mut HeapArena, clock, &sizes, &config, ladder::Cycles::Unknown, &mut |event| {
                match event {
                    ladder::LadderEvent::Measuring { index, total, bytes } => {
                        post(LadderEvent::Measuring { curve, index, total, bytes })
                    }
                    ladder::LadderEvent::Measured { index, total, point } => {
                        post(LadderEvent::Point { curve, index, total, point: point.clone() });
                    }
                }
                ControlFlow::Continue(())
            });
        match result {
            // The browser's allocator decides the pages; no madvise from inside wasm.
            Ok(points) => {
                curves.push(Curve { pattern: pattern.name().into(), huge_pages: "default".into(), chains: 1, points })
            }
            Err(e) => return Err(format!("ladder ({}): {e}", pattern.name())),
        }
    }
    let parallelism = if job.chains.is_empty() {
        None
    } else {
        post(LadderEvent::Chains { bytes: job.chains_at() });
        match ladder::measure_parallelism(&mut HeapArena, clock, job.chains_at(), &job.chains, &config) {
            Ok(measured) => Some(measured),
            Err(e) => return Err(format!("memory-level parallelism: {e}")),
        }
    };
    let measured = ladder::report::Measured {
        curves,
        parallelism,
        pinned_cpu: None,
        seed: job.seed,
        target_sample_ns,
        duration_s: Some((clock.now_ns() - started) / 1e9),
    };
    // A page sees no declared caches and no clock: levels are numbered, in ns only.
    let host = Host {
        timer_resolution_ns: Some(resolution),
        core_ghz_unavailable: Some("a browser cannot calibrate the core clock: the JIT may fold an add chain".into()),
        ..Host::default()
    };
    post(LadderEvent::Done { ladder: Box::new(ladder::report::read(measured, &host)) });
    Ok(())
}

/// The smallest working set a page-stride ring can be built over.
fn two_pages() -> u64 {
    2 * ladder::PATTERN_PAGE_BYTES as u64
}
