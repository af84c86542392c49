//! What a worker measures, and what it reports back, point by point.
//!
//! The page and the worker exchange these as JSON strings (see `worker.rs`). The measuring itself
//! is the core's: the browser only supplies a clock and plain heap memory.

use std::ops::ControlFlow;

use memwall_core::clock::{self, Clock};
use memwall_core::ladder::{self, HeapArena, LadderEvent, SampleConfig};
use memwall_report::{Curve, Host, Ladder, LadderPoint};
use serde::{Deserialize, Serialize};

use crate::clock::{PerformanceClock, cross_origin_isolated};

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "job")]
pub enum Job {
    Ladder(LadderJob),
    GroupBy(crate::groupby_job::GroupByJob),
}

/// `LadderDone` holds its ladder boxed: a finished ladder is far larger than every other event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
pub enum WorkerEvent {
    LadderStarted { timer_resolution_ns: f64, target_sample_ns: f64, samples: u32, cross_origin_isolated: bool },
    LadderMeasuring { index: usize, total: usize, bytes: u64 },
    LadderPoint { index: usize, total: usize, point: LadderPoint },
    LadderDone { ladder: Box<Ladder> },
    GroupBy(crate::groupby_job::GroupByEvent),
    Failed { message: String },
}

pub fn run(job: Job, post: &mut dyn FnMut(WorkerEvent)) {
    let clock = match PerformanceClock::new() {
        Ok(clock) => clock,
        Err(message) => return post(WorkerEvent::Failed { message }),
    };
    match job {
        Job::Ladder(job) => run_ladder(&job, &clock, post),
        Job::GroupBy(job) => crate::groupby_job::run(&job, &clock, &mut |e| post(WorkerEvent::GroupBy(e))),
    }
}

fn run_ladder(job: &LadderJob, clock: &dyn Clock, post: &mut dyn FnMut(WorkerEvent)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_report::Summary;

    #[test]
    fn jobs_and_events_survive_the_trip_through_post_message() {
        let job = Job::Ladder(LadderJob { sizes: vec![16384, 24576], samples: 0, seed: ladder::DEFAULT_SEED });
        assert_eq!(serde_json::from_str::<Job>(&serde_json::to_string(&job).unwrap()).unwrap(), job);
        let point = LadderPoint {
            bytes: 16384,
            ns_per_load: Summary { min: 1.0, median: 1.1, p90: 1.2, max: 1.3 },
            cycles_per_load: None,
            ghz: None,
            clock_moved: false,
            loads_per_sample: 1000,
            samples: 3,
            samples_ns_per_load: vec![1.0, 1.1, 1.3],
            attempts: 1,
            huge_page_bytes: None,
        };
        let event = WorkerEvent::LadderPoint { index: 0, total: 2, point };
        assert_eq!(serde_json::from_str::<WorkerEvent>(&serde_json::to_string(&event).unwrap()).unwrap(), event);
    }

    #[test]
    fn the_bootstrap_s_failure_message_parses_as_an_event() {
        // worker.rs's JavaScript bootstrap writes this shape by hand when the module fails to load.
        let text = r#"{"event":"Failed","message":"the measuring worker stopped: boom"}"#;
        assert_eq!(
            serde_json::from_str::<WorkerEvent>(text).unwrap(),
            WorkerEvent::Failed { message: "the measuring worker stopped: boom".into() }
        );
    }
}
