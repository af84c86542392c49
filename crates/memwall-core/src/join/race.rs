//! The join race: its kernels over a build and a probe side, raced by the one
//! [`crate::race::Racer`] the GROUP BY race uses, and the race as a report.

use core::ops::ControlFlow;

use memwall_report::{Join, JoinDataset, JoinFigures, JoinRun, Summary};

use super::{BuildRow, JoinConfig, JoinError, JoinResult, Kernel, Outcome, reference, run_in};
use crate::clock::Clock;
use crate::exec::Executor;
use crate::race::{self, Named, Ran, Reference, Workload};
pub use crate::race::{Check, REFERENCE_BY_DEFAULT_MAX_ROWS, Truth};
use crate::scratch::Scratch;

/// Why a join race stopped.
pub type RaceError = race::RaceError<JoinError>;
/// Progress of a join race (see [`crate::race::RaceEvent`]).
pub type RaceEvent = race::RaceEvent<Kernel>;
/// A join race: its kernels, memory and runs, and the [`JoinWork`].
pub type Racer<'a> = race::Racer<'a, JoinWork<'a>>;
/// Every timed run of one kernel.
pub type Timings<'a> = race::Timings<JoinWork<'a>>;

/// The checks a join's runs may pass, in the order a summary names them.
pub const CHECKS: [Check; 4] =
    [Check::Reference(Reference::SortAndMerge), Check::KnownMatches, Check::CrossKernel, Check::Repeatable];

/// The two sides of a join: build rows with distinct keys, and probe keys.
#[derive(Debug, Clone, Copy)]
pub struct Sides<'a> {
    pub build: &'a [BuildRow],
    pub probe: &'a [i64],
}

/// What the join kernels run with, besides the two sides.
#[derive(Clone, Copy)]
pub struct JoinWork<'a> {
    pub config: JoinConfig,
    pub exec: &'a dyn Executor,
    pub clock: &'a dyn Clock,
    pub truth: Truth,
}

impl core::fmt::Debug for JoinWork<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("JoinWork").field("config", &self.config).field("truth", &self.truth).finish()
    }
}

impl<'a> Workload for JoinWork<'a> {
    type Kernel = Kernel;
    type Input<'i> = Sides<'i>;
    type Outcome = Outcome;
    type Result = JoinResult;
    type Error = JoinError;

    fn result(outcome: &Outcome) -> &JoinResult {
        &outcome.result
    }

    fn ran(o: &Outcome) -> Ran {
        Ran { threads: o.threads, partitions: o.partitions, checksum: o.result.checksum, choice: o.choice.clone() }
    }

    fn wants_reference(&self) -> bool {
        self.truth.reference
    }

    fn reference(&self, sides: Sides<'_>) -> Result<JoinResult, RaceError> {
        reference(sides.build, sides.probe).map_err(|error| RaceError::Kernel { kernel: "reference", error })
    }

    fn checks(&self, reference: bool) -> Vec<Check> {
        let mut checks = Vec::new();
        checks.extend(self.truth.known.map(|_| Check::KnownMatches));
        checks.extend(reference.then_some(Check::Reference(Reference::SortAndMerge)));
        checks
    }

    fn run(&self, kernel: Kernel, sides: Sides<'_>, scratch: &Scratch<'_>) -> Result<(f64, Outcome), JoinError> {
        let outcome = run_in(kernel, sides.build, sides.probe, &self.config, self.exec, scratch, self.clock)?;
        Ok(((outcome.build_ns + outcome.probe_ns) / 1e9, outcome))
    }

    fn verify(
        &self,
        _sides: Sides<'_>,
        result: &JoinResult,
        expected: Option<&JoinResult>,
    ) -> Result<(), (Check, String)> {
        if let Some(matches) = self.truth.known
            && result.matches != matches
        {
            return Err((Check::KnownMatches, format!("it found {} matches, the data has {matches}", result.matches)));
        }
        if let Some(expected) = expected
            && expected != result
        {
            let detail = if expected.matches != result.matches {
                format!("it found {} matches, the reference {}", result.matches, expected.matches)
            } else {
                "its checksum or sums over (key, payload) differ from the reference's: some payload is wrong"
                    .to_string()
            };
            return Err((Check::Reference(Reference::SortAndMerge), detail));
        }
        Ok(())
    }

    fn differs(r: &JoinResult, a: &JoinResult, with: &'static str) -> String {
        format!(
            "{} matches, checksum {:016x}, key sum {}, payload sum {}; {with} found {} matches, checksum {:016x}, key \
             sum {}, payload sum {}",
            r.matches, r.checksum, r.key_sum, r.payload_sum, a.matches, a.checksum, a.key_sum, a.payload_sum
        )
    }
}

impl Named for Kernel {
    const ALL: &'static [Self] = &Kernel::ALL;
    const KIND: &'static str = "join kernel";
    fn name(self) -> &'static str {
        Kernel::name(self)
    }
}

impl Racer<'_> {
    /// The race as a report section.
    pub fn race(
        &self,
        build: &[BuildRow],
        probe: &[i64],
        dataset: JoinDataset,
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<Join, RaceError> {
        let timings = self.time(Sides { build, probe }, on_event)?;
        let rows = probe.len().max(1) as f64;
        let runs = timings.into_iter().map(|t| self.report_run(t, rows)).collect::<Result<Vec<_>, _>>()?;
        Ok(Join { dataset, runs, sweeps: Vec::new() })
    }

    /// One kernel's runs as the report keeps them.
    fn report_run(&self, t: Timings<'_>, rows: f64) -> Result<JoinRun, RaceError> {
        let name = t.kernel.name();
        t.report(self.policy, |seconds, _, outcomes| {
            let summary = |samples: Vec<f64>| Summary::of(&samples).ok_or(RaceError::Unmeasurable { kernel: name });
            let build_seconds = summary(outcomes.iter().map(|o| o.build_ns / 1e9).collect())?;
            let probe_seconds = summary(outcomes.iter().map(|o| o.probe_ns / 1e9).collect())?;
            let result = &outcomes.last().ok_or(RaceError::Unmeasurable { kernel: name })?.result;
            Ok(JoinFigures {
                matches: result.matches,
                key_sum: Some(result.key_sum.to_string()),
                payload_sum: Some(result.payload_sum.to_string()),
                ns_per_probe: seconds.median * 1e9 / rows,
                build_seconds,
                probe_seconds,
            })
        })
    }
}
