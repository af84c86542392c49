//! Timing kernels against each other: one loop for the CLI's race, the browser's race and the
//! sweeps, so that all three take turns, check agreement and summarize the same way.
//!
//! Timing is the front end's clock; counters or progress bars hang off the events.

use core::ops::ControlFlow;

use memwall_report::{Dataset, GroupBy, GroupByRun, PhaseTime, Summary};

use super::phases::{Phase, PhaseClock, Phases};
use super::{GroupByConfig, GroupByError, GroupResult, Kernel, Outcome, Rows, Values, reference_rows, run_timed_in};
use crate::clock::{Clock, time_ns};
use crate::exec::Executor;
use crate::race::{self, Agreement};
use crate::scratch::{ChunkSource, MemoryPolicy, RunMemory, Scratch};

/// Below this many rows the race checks every run against [`reference`] by default: the
/// reference sorts a copy of the keys, which takes about as long as the slowest kernel.
pub const REFERENCE_BY_DEFAULT_MAX_ROWS: u64 = 20_000_000;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RaceError {
    #[error("{kernel}: {error}")]
    GroupBy { kernel: &'static str, error: GroupByError },
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
    /// Equal, groups, counts and all, to [`reference`] computed outside the timer.
    Reference,
    /// As many groups as the generator made distinct keys.
    KnownGroups,
    /// The counts add up to the rows read.
    RowTotal,
    /// Equal to every other kernel's result in this race.
    CrossKernel,
    /// Equal to the same kernel's other runs.
    Repeatable,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::KnownGroups => "known-groups",
            Self::RowTotal => "row-total",
            Self::CrossKernel => "cross-kernel",
            Self::Repeatable => "repeatable",
        }
    }

    /// What a run that passed did, to follow "every run of every kernel ...".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Reference => "matched a sort-and-count reference",
            Self::KnownGroups => "found as many groups as keys were generated",
            Self::RowTotal => "counted every row read exactly once",
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
    /// Distinct keys, when the data was generated with a known number.
    pub groups: Option<u64>,
    /// Whether to compute [`reference`] (outside the timer) and compare every run with it.
    pub reference: bool,
}

impl Truth {
    /// The checks a front end runs by default: the reference below
    /// [`REFERENCE_BY_DEFAULT_MAX_ROWS`], and the generator's key count when there is one.
    pub fn by_default(rows: u64, generated_groups: Option<u64>) -> Self {
        Self { groups: generated_groups, reference: rows < REFERENCE_BY_DEFAULT_MAX_ROWS }
    }
}

/// Progress of a GROUP BY race (see [`crate::race::RaceEvent`]).
pub type RaceEvent = race::RaceEvent<Kernel>;

/// Every timed run of one kernel, and what its last run produced.
#[derive(Debug, Clone)]
pub struct Timings {
    pub kernel: Kernel,
    pub seconds: Vec<f64>,
    /// The kernel's very first run: the warm-up under the warm policy (scratch faulted in inside
    /// its timer), the first timed run under the cold one.
    pub first_seconds: f64,
    pub outcome: Outcome,
    /// Scratch taken by each timed run.
    pub memory: Vec<RunMemory>,
    /// With [`Racer::phases`], ns spent in each phase, per timed run.
    pub phases: Vec<Vec<(Phase, f64)>>,
    pub verified_by: Vec<Check>,
}

/// How one run of one kernel is made; [`run_timed_in`] but for tests of the checks themselves.
pub type KernelRunner<'r> = dyn Fn(Kernel, Rows<'_>, &GroupByConfig, &dyn Executor, &Scratch<'_>, Phases<'_>) -> Result<Outcome, GroupByError>
    + 'r;

/// What a race runs with.
pub struct Racer<'a> {
    pub kernels: &'a [Kernel],
    pub config: GroupByConfig,
    pub exec: &'a dyn Executor,
    /// Where scratch regions come from; one pool serves every kernel of the race.
    pub memory: &'a dyn ChunkSource,
    pub policy: MemoryPolicy,
    pub clock: &'a dyn Clock,
    /// Timed runs per kernel.
    pub runs: u32,
    pub truth: Truth,
    /// Time each run's phases with this clock (see [`super::phases`]); `None`: no timers at all.
    pub phases: Option<&'a (dyn Clock + Sync)>,
    /// The value column the aggregates of `config` read, as long as the keys.
    pub values: Values<'a>,
}

impl core::fmt::Debug for Racer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Racer")
            .field("kernels", &self.kernels)
            .field("config", &self.config)
            .field("policy", &self.policy)
            .field("runs", &self.runs)
            .field("truth", &self.truth)
            .field("phases", &self.phases.is_some())
            .finish()
    }
}

impl Racer<'_> {
    /// Times every kernel `runs` times over `keys`, the kernels taking turns so that a change in
    /// the machine's load hits all of them alike, and checks every run of every kernel (see
    /// [`Check`]).
    pub fn time(
        &self,
        keys: &[i64],
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<Vec<Timings>, RaceError> {
        self.time_with(keys, on_event, &run_timed_in)
    }

    /// [`Racer::time`] with the kernels run by `runner`.
    pub fn time_with(
        &self,
        keys: &[i64],
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
        runner: &KernelRunner<'_>,
    ) -> Result<Vec<Timings>, RaceError> {
        let runs = self.runs.max(1);
        let rows = Rows { keys, values: self.values };
        rows.check(self.config.aggregates).map_err(|error| RaceError::GroupBy { kernel: "every kernel", error })?;
        let expected = if self.truth.reference {
            race::go_on(on_event(RaceEvent::Checking), || RaceError::Cancelled)?;
            Some(reference_rows(rows, self.config.aggregates))
        } else {
            None
        };
        let warm_up = self.policy == MemoryPolicy::Warm;
        let (cross_kernel, repeatable) = race::comparisons(self.kernels.len(), runs, warm_up);
        let mut checks = vec![Check::RowTotal];
        checks.extend(self.truth.groups.map(|_| Check::KnownGroups));
        checks.extend(expected.as_ref().map(|_| Check::Reference));
        checks.extend(cross_kernel.then_some(Check::CrossKernel));
        checks.extend(repeatable.then_some(Check::Repeatable));
        let verifier = Verifier { rows: keys.len() as u64, groups: self.truth.groups, expected };
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
                let phase_clock = self.phases.map(PhaseClock::new);
                let phases = phase_clock.as_ref().map_or(Phases::OFF, PhaseClock::phases);
                let (ns, outcome) =
                    time_ns(self.clock, || runner(kernel, rows, &self.config, self.exec, &scratch, phases));
                let outcome = outcome.map_err(|error| RaceError::GroupBy { kernel: kernel.name(), error })?;
                verifier.check(kernel, &outcome.result)?;
                if let Err(differs) = agreement.check(kernel, &outcome.result) {
                    let check = if differs.same_kernel { Check::Repeatable } else { Check::CrossKernel };
                    let detail = format!("its result differs from {}'s", differs.with.name());
                    return Err(RaceError::Wrong { kernel: kernel.name(), check, detail });
                }
                let phases = phase_clock.as_ref().map_or_else(Vec::new, PhaseClock::times);
                Ok((ns / 1e9, (outcome, scratch.run_memory(), phases)))
            },
        )?;
        let mut timings = Vec::with_capacity(self.kernels.len());
        for (&kernel, turns) in self.kernels.iter().zip(turns) {
            let mut memory = Vec::with_capacity(turns.outputs.len());
            let mut phases = Vec::with_capacity(turns.outputs.len());
            let mut last = None;
            for (outcome, used, spent) in turns.outputs {
                memory.push(used);
                phases.push(spent);
                last = Some(outcome);
            }
            let Some(outcome) = last else { continue };
            timings.push(Timings {
                kernel,
                first_seconds: turns.first_seconds,
                seconds: turns.seconds,
                outcome,
                memory,
                phases,
                verified_by: checks.clone(),
            });
        }
        Ok(timings)
    }

    /// The race as a report: every kernel's runs summarized, and the dataset's distinct keys and
    /// hottest key filled in from the (agreed) result. Counters are left for the front end.
    pub fn race(
        &self,
        keys: &[i64],
        mut dataset: Dataset,
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<GroupBy, RaceError> {
        let timings = self.time(keys, on_event)?;
        let rows = keys.len().max(1) as f64;
        let mut runs = Vec::with_capacity(timings.len());
        for Timings { kernel, seconds, first_seconds, outcome, memory, phases, verified_by } in timings {
            let summary = Summary::of(&seconds).ok_or(RaceError::Unmeasurable { kernel: kernel.name() })?;
            let last = memory.last().copied().unwrap_or_default();
            // The phases of the run that stands for the others, as its counters do.
            let phases = self.phases.and_then(|_| median_sample(&seconds, summary.median)).map(|i| {
                phases[i]
                    .iter()
                    .map(|&(phase, ns)| PhaseTime { phase: phase.name().into(), ns_per_row: ns / rows })
                    .collect()
            });
            runs.push(GroupByRun {
                kernel: kernel.name().into(),
                threads: outcome.threads as u32,
                partitions: outcome.partitions,
                seconds: summary,
                ns_per_row: summary.median * 1e9 / rows,
                samples_seconds: seconds,
                groups: outcome.result.groups,
                checksum: memwall_report::checksum_hex(outcome.result.checksum),
                top: outcome.result.top.clone(),
                choice: outcome.choice,
                counters: None,
                memory: Some(self.policy.name().into()),
                first_run_seconds: Some(first_seconds),
                scratch_bytes: memory.iter().map(|m| m.carved_bytes).max(),
                mapped_in_run_bytes: memory.iter().map(|m| m.mapped_in_run_bytes).max(),
                huge_page_share: last.huge_page_share(),
                verified_by: verified_by.iter().map(|c| c.name().to_string()).collect(),
                phases,
                totals: (self.config.aggregates != super::Aggregates::COUNT || self.values != Values::None)
                    .then(|| report_totals(&outcome.result.totals)),
            });
            dataset.distinct_keys = outcome.result.groups;
            dataset.max_rows_per_key = outcome.result.top.first().map(|kc| kc.count);
        }
        let query = self.config.aggregates.needs_values().then(|| memwall_report::Query {
            aggregates: self.config.aggregates.names().iter().map(|n| n.to_string()).collect(),
            value_type: self.values.value_type().map_or("none", |t| t.name()).into(),
            value_column: None,
        });
        Ok(GroupBy { dataset, runs, sweeps: Vec::new(), query })
    }
}

/// A result's totals as the report writes them.
pub fn report_totals(totals: &super::Totals) -> memwall_report::Totals {
    let text = |total: Option<super::Total>| total.map(|t| t.to_string());
    memwall_report::Totals {
        count: totals.count,
        sum: text(totals.sum),
        min: text(totals.min),
        max: text(totals.max),
        avg: text(totals.avg),
    }
}

/// The checks that need no other run.
struct Verifier {
    rows: u64,
    groups: Option<u64>,
    expected: Option<GroupResult>,
}

impl Verifier {
    fn check(&self, kernel: Kernel, result: &GroupResult) -> Result<(), RaceError> {
        let wrong = |check: Check, detail: String| Err(RaceError::Wrong { kernel: kernel.name(), check, detail });
        if result.rows != self.rows {
            return wrong(
                Check::RowTotal,
                format!("its counts add up to {} rows, not the {} read", result.rows, self.rows),
            );
        }
        if let Some(groups) = self.groups
            && result.groups != groups
        {
            return wrong(Check::KnownGroups, format!("it found {} groups, the data has {groups}", result.groups));
        }
        if let Some(expected) = &self.expected
            && expected != result
        {
            let detail = if expected.groups != result.groups {
                format!("it found {} groups, the reference {}", result.groups, expected.groups)
            } else if expected.top != result.top {
                "its most frequent keys differ from the reference's".to_string()
            } else {
                "its checksum over (key, count) differs from the reference's: some count is wrong".to_string()
            };
            return wrong(Check::Reference, detail);
        }
        Ok(())
    }
}

/// The index of the sample closest to the median: the run that stands for the rest (whose
/// counters a report shows).
pub fn median_sample(seconds: &[f64], median: f64) -> Option<usize> {
    (0..seconds.len()).min_by(|&a, &b| (seconds[a] - median).abs().total_cmp(&(seconds[b] - median).abs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Ticks;
    use crate::exec::Sequential;
    use crate::groupby::{HeapChunks, reference};

    fn dataset(rows: usize) -> Dataset {
        Dataset {
            rows: rows as u64,
            distinct_keys: 0,
            generator: None,
            input: None,
            seed: None,
            max_rows_per_key: None,
        }
    }

    fn racer<'a>(kernels: &'a [Kernel], clock: &'a Ticks, runs: u32) -> Racer<'a> {
        let config = GroupByConfig { partitions: 16, ..GroupByConfig::default() };
        Racer {
            kernels,
            config,
            exec: &Sequential,
            memory: &HeapChunks,
            policy: MemoryPolicy::Cold,
            clock,
            runs,
            truth: Truth { groups: None, reference: true },
            phases: None,
            values: Values::None,
        }
    }

    fn keys() -> Vec<i64> {
        let mut keys: Vec<i64> = (0..5000).map(|i| i % 700 - 350).collect();
        keys.extend([i64::MIN, i64::MAX, 0, 0, i64::MIN]);
        keys
    }

    #[test]
    fn kernels_take_turns_and_report_the_reference_result() {
        let keys = keys();
        let expected = reference(&keys);
        let clock = Ticks::default();
        let mut events = Vec::new();
        let groupby = racer(&Kernel::ALL, &clock, 3)
            .race(&keys, dataset(keys.len()), &mut |event| {
                events.push(event);
                ControlFlow::Continue(())
            })
            .unwrap();

        // The reference first, then Running and Timed for every run, all kernels once per
        // round, rounds in order.
        assert_eq!(events[0], RaceEvent::Checking);
        let events = &events[1..];
        assert_eq!(events.len(), 2 * 3 * Kernel::ALL.len());
        for (i, pair) in events.chunks(2).enumerate() {
            let (round, kernel) = ((i / Kernel::ALL.len()) as u32, Kernel::ALL[i % Kernel::ALL.len()]);
            assert_eq!(pair[0], RaceEvent::Running { kernel, run: round, runs: 3 });
            assert!(
                matches!(pair[1], RaceEvent::Timed { kernel: k, run, seconds } if k == kernel && run == round && seconds > 0.0)
            );
        }
        assert_eq!(groupby.runs.len(), Kernel::ALL.len());
        for (run, kernel) in groupby.runs.iter().zip(Kernel::ALL) {
            assert_eq!(run.kernel, kernel.name());
            assert_eq!(run.samples_seconds.len(), 3);
            assert_eq!(run.groups, expected.groups);
            assert_eq!(run.checksum, memwall_report::checksum_hex(expected.checksum));
            assert_eq!(run.top, expected.top);
            assert!(run.seconds.min <= run.seconds.median && run.seconds.median <= run.seconds.max);
            assert_eq!(run.ns_per_row, run.seconds.median * 1e9 / keys.len() as f64);
            assert!(run.counters.is_none());
            assert_eq!(run.verified_by, ["row-total", "reference", "cross-kernel", "repeatable"]);
            assert_eq!(run.memory.as_deref(), Some("cold"));
            assert_eq!(run.first_run_seconds, Some(run.samples_seconds[0]));
            // Cold: every run mapped what it used.
            assert!(run.scratch_bytes.unwrap() > 0 && run.mapped_in_run_bytes.unwrap() >= run.scratch_bytes.unwrap());
        }
        assert_eq!(groupby.dataset.distinct_keys, expected.groups);
        assert_eq!(groupby.dataset.max_rows_per_key, Some(expected.top[0].count));
    }

    #[test]
    fn warm_races_warm_up_every_kernel_first_and_then_map_nothing() {
        let keys = keys();
        let clock = Ticks::default();
        let mut racer = racer(&Kernel::ALL, &clock, 2);
        racer.policy = MemoryPolicy::Warm;
        let mut events = Vec::new();
        let groupby = racer
            .race(&keys, dataset(keys.len()), &mut |event| {
                events.push(event);
                ControlFlow::Continue(())
            })
            .unwrap();
        let warm_ups: Vec<RaceEvent> = Kernel::ALL.iter().map(|&kernel| RaceEvent::WarmingUp { kernel }).collect();
        assert_eq!(events[1..=Kernel::ALL.len()], warm_ups[..], "warm-ups come before any timed run");
        for run in &groupby.runs {
            assert_eq!(run.memory.as_deref(), Some("warm"));
            assert_eq!(run.samples_seconds.len(), 2);
            assert_eq!(run.mapped_in_run_bytes, Some(0), "{}: the warm-up mapped everything", run.kernel);
            assert!(run.first_run_seconds.unwrap() > 0.0);
        }
    }

    /// A kernel that is right except for `sabotage`.
    fn sabotaged(
        sabotage: fn(&mut GroupResult),
    ) -> impl Fn(Kernel, Rows<'_>, &GroupByConfig, &dyn Executor, &Scratch<'_>, Phases<'_>) -> Result<Outcome, GroupByError>
    {
        move |kernel, rows, config, exec, scratch, phases| {
            let mut outcome = run_timed_in(kernel, rows, config, exec, scratch, phases)?;
            if kernel == Kernel::Tuned {
                sabotage(&mut outcome.result);
            }
            Ok(outcome)
        }
    }

    #[test]
    fn a_wrong_kernel_is_caught_by_each_check_alone() {
        let keys = keys();
        let clock = Ticks::default();
        let groups = reference(&keys).groups;
        // (what the kernel gets wrong, the only check enabled, the check that must catch it)
        type Case = (fn(&mut GroupResult), Truth, Check);
        let cases: [Case; 3] = [
            (|r| r.rows += 1, Truth { groups: None, reference: false }, Check::RowTotal),
            (|r| r.groups -= 1, Truth { groups: Some(groups), reference: false }, Check::KnownGroups),
            (|r| r.checksum ^= 1, Truth { groups: None, reference: true }, Check::Reference),
        ];
        for (sabotage, truth, check) in cases {
            // Alone: nothing to compare with but what is known.
            let mut alone = racer(&[Kernel::Tuned], &clock, 1);
            alone.truth = truth;
            let error = alone.time_with(&keys, &mut |_| ControlFlow::Continue(()), &sabotaged(sabotage)).unwrap_err();
            assert!(matches!(error, RaceError::Wrong { kernel: "tuned", check: c, .. } if c == check), "{error}");
            assert!(error.to_string().starts_with("tuned is wrong: "), "{error}");
        }
        // With nothing known, another kernel still catches it.
        let mut pair = racer(&[Kernel::Naive, Kernel::Tuned], &clock, 1);
        pair.truth = Truth::default();
        let error =
            pair.time_with(&keys, &mut |_| ControlFlow::Continue(()), &sabotaged(|r| r.checksum ^= 1)).unwrap_err();
        assert!(matches!(error, RaceError::Wrong { check: Check::CrossKernel, .. }), "{error}");
        assert_eq!(error.to_string(), "tuned is wrong: its result differs from naive's (check: cross-kernel)");
    }

    #[test]
    fn one_kernel_alone_says_what_checked_it() {
        let keys = keys();
        let clock = Ticks::default();
        let mut alone = racer(&[Kernel::Tuned], &clock, 1);
        alone.truth = Truth::default();
        let groupby = alone.race(&keys, dataset(keys.len()), &mut |_| ControlFlow::Continue(())).unwrap();
        assert_eq!(groupby.runs[0].verified_by, ["row-total"]);
        assert_eq!(Truth::by_default(1000, Some(7)), Truth { groups: Some(7), reference: true });
        assert!(!Truth::by_default(REFERENCE_BY_DEFAULT_MAX_ROWS, None).reference);
    }

    #[test]
    fn empty_input_races_to_zero_groups() {
        let clock = Ticks::default();
        let groupby = racer(&Kernel::ALL, &clock, 1).race(&[], dataset(0), &mut |_| ControlFlow::Continue(())).unwrap();
        assert!(groupby.runs.iter().all(|r| r.groups == 0 && r.top.is_empty() && r.ns_per_row.is_finite()));
        assert_eq!(groupby.dataset.max_rows_per_key, None);
    }

    #[test]
    fn breaking_cancels_the_race() {
        let clock = Ticks::default();
        let mut timed = 0;
        let result = racer(&[Kernel::Naive, Kernel::Tuned], &clock, 5).race(&[1, 2, 3], dataset(3), &mut |event| {
            if matches!(event, RaceEvent::Timed { .. }) {
                timed += 1;
            }
            if timed == 3 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        assert_eq!(result.unwrap_err(), RaceError::Cancelled);
        assert_eq!(timed, 3);
    }

    #[test]
    fn the_median_sample_is_the_closest_one() {
        assert_eq!(median_sample(&[3.0, 1.0, 2.1, 9.0], 2.0), Some(2));
        assert_eq!(median_sample(&[], 2.0), None);
    }
}
