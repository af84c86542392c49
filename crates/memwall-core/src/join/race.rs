//! Timing join kernels against each other under one memory policy, checking every run: the
//! counterpart of [`crate::groupby::race`], with the same scratch pool, turn-taking and kinds of
//! checks, over a build and a probe side instead of one column.

use core::ops::ControlFlow;

use memwall_report::{Join, JoinDataset, JoinRun, Summary};

use super::{BuildRow, JoinConfig, JoinError, JoinResult, Kernel, Outcome, reference, run_in};
use crate::clock::Clock;
use crate::exec::Executor;
use crate::groupby::race::REFERENCE_BY_DEFAULT_MAX_ROWS;
use crate::race::{self, Agreement};
use crate::scratch::{ChunkSource, MemoryPolicy, RunMemory, Scratch};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RaceError {
    #[error("{kernel}: {error}")]
    Join { kernel: &'static str, error: JoinError },
    #[error("{kernel} is wrong: {detail} (check: {check})")]
    Wrong { kernel: &'static str, check: Check, detail: String },
    #[error("{kernel}: a run took no measurable time")]
    Unmeasurable { kernel: &'static str },
    #[error("cancelled")]
    Cancelled,
}

/// A way a run's result is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Equal to [`reference`] (sort both sides and merge them), computed
    /// outside the timer.
    Reference,
    /// As many matches as the generator made matching probe rows.
    KnownMatches,
    /// Equal to every other kernel's result in this race.
    CrossKernel,
    /// Equal to the same kernel's other runs.
    Repeatable,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::KnownMatches => "known-matches",
            Self::CrossKernel => "cross-kernel",
            Self::Repeatable => "repeatable",
        }
    }

    /// What a run that passed did, to follow "every run of every kernel ...".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Reference => "matched a sort-and-merge reference",
            Self::KnownMatches => "found as many matches as the generator made matching rows",
            Self::CrossKernel => "agreed with every other kernel",
            Self::Repeatable => "agreed with its other runs",
        }
    }
}

impl core::fmt::Display for Check {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// What is known of the right answer before any kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Truth {
    /// Matching probe rows, when the data was generated.
    pub matches: Option<u64>,
    /// Whether to compute [`reference`] (outside the timer) and compare every run with it.
    pub reference: bool,
}

impl Truth {
    /// The reference below GROUP BY's row limit (it sorts a copy of the probe side, about as slow
    /// as the naive kernel), and the generator's matches when there are some.
    pub fn by_default(probe_rows: u64, generated_matches: Option<u64>) -> Self {
        Self { matches: generated_matches, reference: probe_rows < REFERENCE_BY_DEFAULT_MAX_ROWS }
    }
}

/// Progress of a join race (see [`crate::race::RaceEvent`]).
pub type RaceEvent = race::RaceEvent<Kernel>;

/// Every timed run of one kernel.
#[derive(Debug, Clone)]
pub struct Timings {
    pub kernel: Kernel,
    /// Build plus probe, per run.
    pub seconds: Vec<f64>,
    pub build_seconds: Vec<f64>,
    pub probe_seconds: Vec<f64>,
    /// The warm-up under the warm policy, the first timed run under the cold one.
    pub first_seconds: f64,
    pub outcome: Outcome,
    pub memory: Vec<RunMemory>,
    pub verified_by: Vec<Check>,
}

/// How one run of one kernel is made: [`run_in`], but replaceable for tests of the checks.
pub type KernelRunner<'r> = dyn Fn(Kernel, &[BuildRow], &[i64], &JoinConfig, &dyn Executor, &Scratch<'_>, &dyn Clock) -> Result<Outcome, JoinError>
    + 'r;

/// What a race runs with.
pub struct Racer<'a> {
    pub kernels: &'a [Kernel],
    pub config: JoinConfig,
    pub exec: &'a dyn Executor,
    /// Where scratch regions come from; one pool serves every kernel of the race.
    pub memory: &'a dyn ChunkSource,
    pub policy: MemoryPolicy,
    pub clock: &'a dyn Clock,
    pub runs: u32,
    pub truth: Truth,
}

impl core::fmt::Debug for Racer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Racer")
            .field("kernels", &self.kernels)
            .field("config", &self.config)
            .field("policy", &self.policy)
            .field("runs", &self.runs)
            .field("truth", &self.truth)
            .finish()
    }
}

impl Racer<'_> {
    /// Times every kernel `runs` times, the kernels taking turns, and checks every run.
    pub fn time(
        &self,
        build: &[BuildRow],
        probe: &[i64],
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<Vec<Timings>, RaceError> {
        self.time_with(build, probe, on_event, &run_in)
    }

    /// [`Racer::time`] with the kernels run by `runner`.
    pub fn time_with(
        &self,
        build: &[BuildRow],
        probe: &[i64],
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
        runner: &KernelRunner<'_>,
    ) -> Result<Vec<Timings>, RaceError> {
        let runs = self.runs.max(1);
        let expected = if self.truth.reference {
            race::go_on(on_event(RaceEvent::Checking), || RaceError::Cancelled)?;
            Some(reference(build, probe).map_err(|error| RaceError::Join { kernel: "reference", error })?)
        } else {
            None
        };
        let warm_up = self.policy == MemoryPolicy::Warm;
        let (cross_kernel, repeatable) = race::comparisons(self.kernels.len(), runs, warm_up);
        let mut checks = Vec::new();
        checks.extend(self.truth.matches.map(|_| Check::KnownMatches));
        checks.extend(expected.map(|_| Check::Reference));
        checks.extend(cross_kernel.then_some(Check::CrossKernel));
        checks.extend(repeatable.then_some(Check::Repeatable));
        let mut agreement = Agreement::new();
        let mut scratch = Scratch::new(self.memory, self.policy);
        let turns = race::take_turns(
            self.kernels,
            runs,
            warm_up,
            on_event,
            || RaceError::Cancelled,
            |kernel| {
                scratch.begin_run();
                let outcome = runner(kernel, build, probe, &self.config, self.exec, &scratch, self.clock)
                    .map_err(|error| RaceError::Join { kernel: kernel.name(), error })?;
                self.check(kernel, &outcome.result, expected.as_ref())?;
                if let Err(differs) = agreement.check(kernel, &outcome.result) {
                    let check = if differs.same_kernel { Check::Repeatable } else { Check::CrossKernel };
                    let (r, a) = (&outcome.result, differs.agreed);
                    let detail = format!(
                        "{} matches, checksum {:016x}, key sum {}, payload sum {}; {} found {} matches, \
                     checksum {:016x}, key sum {}, payload sum {}",
                        r.matches,
                        r.checksum,
                        r.key_sum,
                        r.payload_sum,
                        differs.with.name(),
                        a.matches,
                        a.checksum,
                        a.key_sum,
                        a.payload_sum
                    );
                    return Err(RaceError::Wrong { kernel: kernel.name(), check, detail });
                }
                Ok(((outcome.build_ns + outcome.probe_ns) / 1e9, (outcome, scratch.run_memory())))
            },
        )?;
        let mut timings = Vec::with_capacity(self.kernels.len());
        for (&kernel, turns) in self.kernels.iter().zip(turns) {
            let (mut build_seconds, mut probe_seconds, mut memory) = (Vec::new(), Vec::new(), Vec::new());
            let mut last = None;
            for (outcome, used) in turns.outputs {
                build_seconds.push(outcome.build_ns / 1e9);
                probe_seconds.push(outcome.probe_ns / 1e9);
                memory.push(used);
                last = Some(outcome);
            }
            let Some(outcome) = last else { continue };
            timings.push(Timings {
                kernel,
                seconds: turns.seconds,
                build_seconds,
                probe_seconds,
                first_seconds: turns.first_seconds,
                outcome,
                memory,
                verified_by: checks.clone(),
            });
        }
        Ok(timings)
    }

    fn check(&self, kernel: Kernel, result: &JoinResult, expected: Option<&JoinResult>) -> Result<(), RaceError> {
        let wrong = |check: Check, detail: String| Err(RaceError::Wrong { kernel: kernel.name(), check, detail });
        if let Some(matches) = self.truth.matches
            && result.matches != matches
        {
            return wrong(Check::KnownMatches, format!("it found {} matches, the data has {matches}", result.matches));
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
            return wrong(Check::Reference, detail);
        }
        Ok(())
    }

    /// The race as a report section.
    pub fn race(
        &self,
        build: &[BuildRow],
        probe: &[i64],
        dataset: JoinDataset,
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<Join, RaceError> {
        let timings = self.time(build, probe, on_event)?;
        let rows = probe.len().max(1) as f64;
        let mut runs = Vec::with_capacity(timings.len());
        for t in timings {
            let name = t.kernel.name();
            let summary = |samples: &[f64]| Summary::of(samples).ok_or(RaceError::Unmeasurable { kernel: name });
            let seconds = summary(&t.seconds)?;
            runs.push(JoinRun {
                kernel: name.into(),
                threads: t.outcome.threads as u32,
                partitions: t.outcome.partitions,
                matches: t.outcome.result.matches,
                checksum: memwall_report::checksum_hex(t.outcome.result.checksum),
                key_sum: Some(t.outcome.result.key_sum.to_string()),
                payload_sum: Some(t.outcome.result.payload_sum.to_string()),
                ns_per_probe: seconds.median * 1e9 / rows,
                build_seconds: summary(&t.build_seconds)?,
                probe_seconds: summary(&t.probe_seconds)?,
                seconds,
                samples_seconds: t.seconds,
                choice: t.outcome.choice,
                memory: Some(self.policy.name().into()),
                first_run_seconds: Some(t.first_seconds),
                scratch_bytes: t.memory.iter().map(|m| m.carved_bytes).max(),
                mapped_in_run_bytes: t.memory.iter().map(|m| m.mapped_in_run_bytes).max(),
                verified_by: t.verified_by.iter().map(|c| c.name().to_string()).collect(),
            });
        }
        Ok(Join { dataset, runs, sweeps: Vec::new() })
    }
}
