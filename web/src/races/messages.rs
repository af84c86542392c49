//! What a race's worker says back to its page: progress, alike for every race ([`Progress`]), and
//! each race's results ([`RaceMessage`]).

use core::ops::ControlFlow;

use memwall_core::race::RaceEvent;
use memwall_report::{GroupBy, Join, Sweep, SweepPoint};
use serde::{Deserialize, Serialize};

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
