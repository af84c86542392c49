//! The races' jobs between a race page and its worker, and both ways as JSON (the races module is
//! fetched only when a race is opened, so serde's weight is no matter here). Both races report
//! their progress alike ([`Progress`]); each adds its own results.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use super::groupby::job::GroupByJob;
use super::join::job::JoinJob;
pub use super::messages::{Progress, RaceMessage, progress_of};
use super::sizing::Sizing;
use crate::worker::Protocol;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RaceJob {
    GroupBy(GroupByJob),
    Join(JoinJob),
}

impl RaceJob {
    /// The ladder the race is sized by.
    pub fn sizing(&self) -> &Sizing {
        match self {
            Self::GroupBy(job) => &job.sizing,
            Self::Join(job) => &job.sizing,
        }
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
