//! The latency ladder in a worker: the core's chase over the browser's heap, timed with the
//! browser's clock, one size after another, each point posted as it is measured.

use std::ops::ControlFlow;

use memwall_core::clock::{self, Clock};
use memwall_core::ladder::{self, HeapArena, LadderEvent, SampleConfig};
use memwall_report::{Curve, Host};
use serde::{Deserialize, Serialize};

use crate::clock::cross_origin_isolated;
use crate::jobs::WorkerEvent;

/// Each timed sample lasts at least this long (the native default `--sample-ms 5`), and longer
/// where the timer is coarse (see `ladder::target_sample_ns`).
const SAMPLE_FLOOR_NS: f64 = 5e6;

/// A timer at least this fine is a cross-origin-isolated one (5 µs in Chrome); coarser timers make
/// every sample 500 ticks long, so fewer samples keep the run short.
const FINE_TIMER_NS: f64 = 20_000.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderJob {
    pub sizes: Vec<u64>,
    /// Timed samples per size; 0 picks from the timer: 15 with fine timers, 5 with coarse ones.
    pub samples: u32,
    pub seed: u64,
}

pub fn run(job: &LadderJob, clock: &dyn Clock, post: &mut dyn FnMut(WorkerEvent)) {
    // 50 ticks: 5 ms at 100 µs, enough to see the coarse tick and not only its jitter.
    let resolution = clock::resolution_ns(clock, 50);
    let target_sample_ns = ladder::target_sample_ns(resolution, SAMPLE_FLOOR_NS);
    let samples = match job.samples {
        0 if resolution <= FINE_TIMER_NS => 15,
        0 => 5,
        n => n,
    };
    post(WorkerEvent::LadderStarted {
        timer_resolution_ns: resolution,
        target_sample_ns,
        samples,
        cross_origin_isolated: cross_origin_isolated(),
    });
    let config = SampleConfig {
        target_sample_ns,
        samples,
        warmup: true,
        seed: job.seed,
        attempts: ladder::DEFAULT_ATTEMPTS,
        pattern: ladder::Pattern::Random,
    };
    let started = clock.now_ns();
    let result =
        ladder::run_ladder(&mut HeapArena, clock, &job.sizes, &config, ladder::Cycles::Unknown, &mut |event| {
            match event {
                LadderEvent::Measuring { index, total, bytes } => {
                    post(WorkerEvent::LadderMeasuring { index, total, bytes })
                }
                LadderEvent::Measured { index, total, point } => {
                    post(WorkerEvent::LadderPoint { index, total, point: point.clone() });
                }
            }
            ControlFlow::Continue(())
        });
    match result {
        Ok(points) => {
            let measured = ladder::report::Measured {
                // The browser's allocator decides the pages; no madvise from inside wasm.
                curves: vec![Curve {
                    pattern: config.pattern.name().into(),
                    huge_pages: "default".into(),
                    chains: 1,
                    points,
                }],
                parallelism: None,
                pinned_cpu: None,
                seed: job.seed,
                target_sample_ns,
                duration_s: Some((clock.now_ns() - started) / 1e9),
            };
            // A page sees no declared caches and no clock: levels are numbered, in ns only.
            let host = Host {
                timer_resolution_ns: Some(resolution),
                core_ghz_unavailable: Some(
                    "a browser cannot calibrate the core clock: the JIT may fold an add chain".into(),
                ),
                ..Host::default()
            };
            post(WorkerEvent::LadderDone { ladder: Box::new(ladder::report::read(measured, &host)) });
        }
        Err(e) => post(WorkerEvent::Failed { message: format!("ladder: {e}") }),
    }
}
