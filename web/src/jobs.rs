//! The protocol between a page and its measuring worker: the jobs it takes and the events it
//! posts back, point by point.
//!
//! The page and the worker exchange these as JSON strings (see `worker.rs`). The measuring itself
//! is the core's: the browser only supplies a clock and plain heap memory.

#[cfg(test)]
use memwall_report::LadderPoint;
use serde::{Deserialize, Serialize};

use crate::clock::PerformanceClock;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "job")]
pub enum Job {
    Ladder(crate::ladder_job::LadderJob),
    GroupBy(crate::groupby_job::GroupByJob),
    Join(crate::join_job::JoinJob),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
pub enum WorkerEvent {
    Ladder(crate::ladder_job::LadderEvent),
    GroupBy(crate::groupby_job::GroupByEvent),
    Join(crate::join_job::JoinEvent),
    Failed { message: String },
}

pub fn run(job: Job, post: &mut dyn FnMut(WorkerEvent)) {
    let clock = match PerformanceClock::new() {
        Ok(clock) => clock,
        Err(message) => return post(WorkerEvent::Failed { message }),
    };
    match job {
        Job::Ladder(job) => {
            if let Err(message) = crate::ladder_job::run(&job, &clock, &mut |e| post(WorkerEvent::Ladder(e))) {
                post(WorkerEvent::Failed { message });
            }
        }
        Job::GroupBy(job) => crate::groupby_job::run(&job, &clock, &mut |e| post(WorkerEvent::GroupBy(e))),
        Job::Join(job) => crate::join_job::run(&job, &clock, &mut |e| post(WorkerEvent::Join(e))),
    }
}

/// A measured point with its samples, for tests.
#[cfg(test)]
pub fn sample_point() -> LadderPoint {
    use memwall_report::Summary;
    LadderPoint {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder_job::{LadderEvent, LadderJob};
    use memwall_core::ladder;

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
        let point = sample_point();
        let event = WorkerEvent::Ladder(LadderEvent::Point { curve: 1, index: 0, total: 2, point });
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
