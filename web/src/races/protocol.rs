//! The races' jobs and events between a race page and its worker, as JSON (the races module is
//! fetched only when a race is opened, so serde's weight is no matter here). Both races report
//! their progress alike ([`Progress`]); each adds its own results.

use core::ops::ControlFlow;

use memwall_core::race::RaceEvent;
use memwall_report::{GroupBy, Join, Sweep, SweepPoint};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use super::groupby::job::GroupByJob;
use super::join::job::JoinJob;
use crate::worker::Protocol;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RaceJob {
    GroupBy(GroupByJob),
    Join(JoinJob),
}

/// How far a race has come, the same for every race.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Progress {
    Generating,
    Generated {
        seconds: f64,
        timer_resolution_ns: f64,
        cross_origin_isolated: bool,
    },
    /// Untimed work before the timed runs: the reference result, a kernel's warm-up.
    Preparing {
        what: String,
    },
    /// `x`: the sweep's partition count, in a sweep.
    Running {
        kernel: String,
        run: u32,
        runs: u32,
        x: Option<u64>,
    },
    Timed {
        kernel: String,
        run: u32,
        seconds: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RaceMessage {
    Progress(Progress),
    GroupByDone(GroupBy),
    SweepPoint(SweepPoint),
    SweepDone(Sweep),
    /// How the partitioning join kernels split both sides (untimed, from the generated rows):
    /// build keys and probe rows per partition, at the partition count they pick here.
    JoinPartitions {
        partitions: u32,
        build: Vec<u32>,
        probe: Vec<u32>,
    },
    JoinDone(Join),
}

/// The core's race events as progress, for any kernel type; never cancels (cancelling is
/// terminating the worker).
pub fn progress_of<'a, K: Copy>(
    name: impl Fn(K) -> &'static str + 'a,
    post: &'a mut dyn FnMut(RaceMessage),
) -> impl FnMut(RaceEvent<K>) -> ControlFlow<()> + 'a {
    move |event| {
        post(RaceMessage::Progress(match event {
            RaceEvent::Checking => Progress::Preparing { what: "computing the reference result".into() },
            RaceEvent::WarmingUp { kernel } => Progress::Preparing { what: format!("warming up {}", name(kernel)) },
            RaceEvent::Running { kernel, run, runs } => {
                Progress::Running { kernel: name(kernel).into(), run, runs, x: None }
            }
            RaceEvent::Timed { kernel, run, seconds } => Progress::Timed { kernel: name(kernel).into(), run, seconds },
        }));
        ControlFlow::Continue(())
    }
}

/// The races' messages between a page and the worker.
#[derive(Debug)]
pub struct Races;

fn json<T: Serialize>(value: &T) -> JsValue {
    JsValue::from_str(&serde_json::to_string(value).unwrap_or_default())
}

fn parse<T: for<'de> Deserialize<'de>>(message: &JsValue) -> Result<T, String> {
    serde_json::from_str(&message.as_string().ok_or("not text")?).map_err(|e| e.to_string())
}

impl Protocol for Races {
    type Job = RaceJob;
    type Event = RaceMessage;

    fn encode_job(job: &RaceJob) -> Result<JsValue, String> {
        serde_json::to_string(job).map(JsValue::from).map_err(|e| e.to_string())
    }
    fn decode_job(message: &JsValue) -> Result<RaceJob, String> {
        parse(message)
    }
    fn encode_event(event: &RaceMessage) -> JsValue {
        json(event)
    }
    fn decode_event(message: &JsValue) -> Result<RaceMessage, String> {
        parse(message)
    }
    fn is_last(event: &RaceMessage) -> bool {
        matches!(event, RaceMessage::GroupByDone(_) | RaceMessage::SweepDone(_) | RaceMessage::JoinDone(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_and_events_survive_the_trip_as_json() {
        let event = RaceMessage::Progress(Progress::Timed { kernel: "tuned".into(), run: 1, seconds: 0.25 });
        let text = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<RaceMessage>(&text).unwrap(), event);
    }
}
