//! The join race: its kernels over a build and a probe side, raced by the one
//! [`crate::race::Racer`] the GROUP BY race uses, and the race as a report.

use core::ops::ControlFlow;

use memwall_report::{Join, JoinDataset, JoinRun, Summary};

use super::{BuildRow, JoinConfig, JoinError, JoinResult, Kernel, Outcome, reference, run_in};
use crate::clock::Clock;
use crate::exec::Executor;
use crate::race::{self, Named, Reference, Workload};
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
        let summary = |samples: &[f64]| Summary::of(samples).ok_or(RaceError::Unmeasurable { kernel: name });
        let build: Vec<f64> = t.outcomes.iter().map(|o| o.build_ns / 1e9).collect();
        let probe: Vec<f64> = t.outcomes.iter().map(|o| o.probe_ns / 1e9).collect();
        let seconds = summary(&t.seconds)?;
        let (build_seconds, probe_seconds) = (summary(&build)?, summary(&probe)?);
        let outcome = t.outcomes.into_iter().last().ok_or(RaceError::Unmeasurable { kernel: name })?;
        Ok(JoinRun {
            kernel: name.into(),
            threads: outcome.threads as u32,
            partitions: outcome.partitions,
            matches: outcome.result.matches,
            checksum: memwall_report::checksum_hex(outcome.result.checksum),
            key_sum: Some(outcome.result.key_sum.to_string()),
            payload_sum: Some(outcome.result.payload_sum.to_string()),
            ns_per_probe: seconds.median * 1e9 / rows,
            build_seconds,
            probe_seconds,
            seconds,
            samples_seconds: t.seconds,
            choice: outcome.choice,
            memory: Some(self.policy.name().into()),
            first_run_seconds: Some(t.first_seconds),
            scratch_bytes: t.memory.iter().map(|m| m.carved_bytes).max(),
            mapped_in_run_bytes: t.memory.iter().map(|m| m.mapped_in_run_bytes).max(),
            verified_by: t.verified_by.iter().map(|c| c.name().to_string()).collect(),
        })
    }
}
