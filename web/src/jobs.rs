//! The protocol between a page and its measuring worker: the jobs it takes and the events it
//! posts back, point by point.
//!
//! The page and the worker exchange these as JSON strings (see `worker.rs`). The measuring itself
//! is the core's: the browser only supplies a clock and plain heap memory.

use memwall_report::{Ladder, LadderPoint};
use serde::{Deserialize, Serialize};

use crate::clock::PerformanceClock;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "job")]
pub enum Job {
    Ladder(crate::ladder_job::LadderJob),
    GroupBy(crate::groupby_job::GroupByJob),
}

/// `LadderDone` holds its ladder boxed: a finished ladder is far larger than every other event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
pub enum WorkerEvent {
    LadderStarted {
        timer_resolution_ns: f64,
        target_sample_ns: f64,
        samples: u32,
        cross_origin_isolated: bool,
    },
    /// `curve` 0 is the main random curve, then the job's extra patterns in order.
    LadderMeasuring {
        curve: usize,
        index: usize,
        total: usize,
        bytes: u64,
    },
    LadderPoint {
        curve: usize,
        index: usize,
        total: usize,
        point: LadderPoint,
    },
    /// Measuring memory-level parallelism over `bytes`.
    LadderChains {
        bytes: u64,
    },
    LadderDone {
        ladder: Box<Ladder>,
    },
    GroupBy(crate::groupby_job::GroupByEvent),
    Failed {
        message: String,
    },
}

pub fn run(job: Job, post: &mut dyn FnMut(WorkerEvent)) {
    let clock = match PerformanceClock::new() {
        Ok(clock) => clock,
        Err(message) => return post(WorkerEvent::Failed { message }),
    };
    match job {
        Job::Ladder(job) => crate::ladder_job::run(&job, &clock, &mut |e| post(e)),
        Job::GroupBy(job) => crate::groupby_job::run(&job, &clock, &mut |e| post(WorkerEvent::GroupBy(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder_job::LadderJob;
    use memwall_core::ladder;
    use memwall_report::Summary;

    #[test]
    fn jobs_and_events_survive_the_trip_through_post_message() {
        let job = Job::Ladder(LadderJob {
            sizes: vec![16384, 24576],
            samples: 0,
            seed: ladder::DEFAULT_SEED,
            patterns: vec!["page-local".into()],
            chains: vec![1, 2],
        });
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
        let event = WorkerEvent::LadderPoint { curve: 1, index: 0, total: 2, point };
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
