//! The GROUP BY race: its kernels over one key column (and the value column its aggregates read),
//! raced by the one [`crate::race::Racer`] for the CLI's race, the browser's race and the sweeps,
//! and the race as a report.
//!
//! Timing is the front end's clock; counters or progress bars hang off the events.

use core::ops::ControlFlow;

use memwall_report::{Dataset, GroupBy, GroupByFigures, GroupByRun, PhaseTime};

use super::phases::{Phase, PhaseClock, Phases};
use super::{GroupByConfig, GroupByError, GroupResult, Kernel, Outcome, Rows, Values, reference_rows, run_timed_in};
use crate::clock::{Clock, time_ns};
use crate::exec::Executor;
use crate::race::{self, Named, Ran, Reference, Workload};
pub use crate::race::{Check, REFERENCE_BY_DEFAULT_MAX_ROWS, Truth, median_sample};
use crate::scratch::Scratch;

/// Why a GROUP BY race stopped.
pub type RaceError = race::RaceError<GroupByError>;
/// Progress of a GROUP BY race (see [`crate::race::RaceEvent`]).
pub type RaceEvent = race::RaceEvent<Kernel>;
/// A GROUP BY race: its kernels, memory and runs, and the [`GroupByWork`].
pub type Racer<'a> = race::Racer<'a, GroupByWork<'a>>;
/// Every timed run of one kernel.
pub type Timings<'a> = race::Timings<GroupByWork<'a>>;

/// The checks a GROUP BY's runs may pass, in the order a summary names them.
pub const CHECKS: [Check; 5] = [
    Check::Reference(Reference::SortAndCount),
    Check::KnownGroups,
    Check::RowTotal,
    Check::CrossKernel,
    Check::Repeatable,
];

/// What the GROUP BY kernels run with, besides the keys.
#[derive(Clone, Copy)]
pub struct GroupByWork<'a> {
    pub config: GroupByConfig,
    pub exec: &'a dyn Executor,
    pub clock: &'a dyn Clock,
    pub truth: Truth,
    /// Time each run's phases with this clock (see [`super::phases`]); `None`: no timers at all.
    pub phases: Option<&'a (dyn Clock + Sync)>,
    /// The value column the aggregates of `config` read, as long as the keys.
    pub values: Values<'a>,
}

impl core::fmt::Debug for GroupByWork<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GroupByWork")
            .field("config", &self.config)
            .field("truth", &self.truth)
            .field("phases", &self.phases.is_some())
            .finish()
    }
}

/// One run: what the kernel produced, and with phase timers on, ns spent in each phase.
#[derive(Debug, Clone)]
pub struct Run {
    pub outcome: Outcome,
    pub phases: Vec<(Phase, f64)>,
}

impl<'a> Workload for GroupByWork<'a> {
    type Kernel = Kernel;
    type Input<'i> = &'i [i64];
    type Outcome = Run;
    type Result = GroupResult;
    type Error = GroupByError;

    fn result(run: &Run) -> &GroupResult {
        &run.outcome.result
    }

    fn ran(run: &Run) -> Ran {
        let o = &run.outcome;
        Ran { threads: o.threads, partitions: o.partitions, checksum: o.result.checksum, choice: o.choice.clone() }
    }

    fn check_input(&self, keys: &[i64]) -> Result<(), RaceError> {
        Rows { keys, values: self.values }
            .check(self.config.aggregates)
            .map_err(|error| RaceError::Kernel { kernel: "every kernel", error })
    }

    fn wants_reference(&self) -> bool {
        self.truth.reference
    }

    fn reference(&self, keys: &[i64]) -> Result<GroupResult, RaceError> {
        Ok(reference_rows(Rows { keys, values: self.values }, self.config.aggregates))
    }

    fn checks(&self, reference: bool) -> Vec<Check> {
        let mut checks = vec![Check::RowTotal];
        checks.extend(self.truth.known.map(|_| Check::KnownGroups));
        checks.extend(reference.then_some(Check::Reference(Reference::SortAndCount)));
        checks
    }

    fn run(&self, kernel: Kernel, keys: &[i64], scratch: &Scratch<'_>) -> Result<(f64, Run), GroupByError> {
        let phase_clock = self.phases.map(PhaseClock::new);
        let phases = phase_clock.as_ref().map_or(Phases::OFF, PhaseClock::phases);
        let rows = Rows { keys, values: self.values };
        let (ns, outcome) = time_ns(self.clock, || {
            run_timed_in(kernel, rows, &self.config, self.exec, scratch, phases, Some(self.clock))
        });
        let phases = phase_clock.as_ref().map_or_else(Vec::new, PhaseClock::times);
        Ok((ns / 1e9, Run { outcome: outcome?, phases }))
    }

    fn verify(
        &self,
        keys: &[i64],
        result: &GroupResult,
        expected: Option<&GroupResult>,
    ) -> Result<(), (Check, String)> {
        let rows = keys.len() as u64;
        if result.rows != rows {
            return Err((Check::RowTotal, format!("its counts add up to {} rows, not the {rows} read", result.rows)));
        }
        if let Some(groups) = self.truth.known
            && result.groups != groups
        {
            return Err((Check::KnownGroups, format!("it found {} groups, the data has {groups}", result.groups)));
        }
        if let Some(expected) = expected
            && expected != result
        {
            let detail = if expected.groups != result.groups {
                format!("it found {} groups, the reference {}", result.groups, expected.groups)
            } else if expected.top != result.top {
                "its most frequent keys differ from the reference's".to_string()
            } else {
                "its checksum over (key, count) differs from the reference's: some count is wrong".to_string()
            };
            return Err((Check::Reference(Reference::SortAndCount), detail));
        }
        Ok(())
    }

    fn differs(_result: &GroupResult, _agreed: &GroupResult, with: &'static str) -> String {
        format!("its result differs from {with}'s")
    }
}

impl Named for Kernel {
    const ALL: &'static [Self] = &Kernel::ALL;
    const KIND: &'static str = "kernel";
    fn name(self) -> &'static str {
        Kernel::name(self)
    }
}

impl Racer<'_> {
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
        for timings in timings {
            let run = self.report_run(timings, rows)?;
            dataset.distinct_keys = run.groups;
            dataset.max_rows_per_key = run.top.first().map(|kc| kc.count);
            runs.push(run);
        }
        let work = &self.work;
        let query = work.config.aggregates.needs_values().then(|| memwall_report::Query {
            aggregates: work.config.aggregates.names().iter().map(|n| n.to_string()).collect(),
            value_type: work.values.value_type().map_or("none", |t| t.name()).into(),
            value_column: None,
        });
        Ok(GroupBy { dataset, runs, sweeps: Vec::new(), query, model: None })
    }

    /// One kernel's runs as the report keeps them.
    fn report_run(&self, timings: Timings<'_>, rows: f64) -> Result<GroupByRun, RaceError> {
        let (work, kernel) = (&self.work, timings.kernel.name());
        timings.report(self.policy, |summary, seconds, outcomes| {
            // The phases of the run that stands for the others, as its counters do.
            let phases = work.phases.and_then(|_| median_sample(seconds, summary.median)).map(|i| {
                outcomes[i]
                    .phases
                    .iter()
                    .map(|&(phase, ns)| PhaseTime { phase: phase.name().into(), ns_per_row: ns / rows })
                    .collect()
            });
            let outcome = outcomes.into_iter().last().ok_or(RaceError::Unmeasurable { kernel })?.outcome;
            let config = &work.config;
            Ok(GroupByFigures {
                ns_per_row: summary.median * 1e9 / rows,
                groups: outcome.result.groups,
                top: outcome.result.top.clone(),
                counters: None,
                phases,
                totals: (config.aggregates != super::Aggregates::COUNT || work.values != Values::None)
                    .then(|| report_totals(&outcome.result.totals)),
                predicted_ns_per_row: None,
            })
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Ticks;
    use crate::exec::Sequential;
    use crate::groupby::reference;
    use crate::scratch::{HeapChunks, MemoryPolicy};

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

    fn work(clock: &Ticks) -> GroupByWork<'_> {
        GroupByWork {
            config: GroupByConfig { partitions: 16, ..GroupByConfig::default() },
            exec: &Sequential,
            clock,
            truth: Truth { known: None, reference: true },
            phases: None,
            values: Values::None,
        }
    }

    fn racer<'a>(kernels: &'a [Kernel], clock: &'a Ticks, runs: u32) -> Racer<'a> {
        race::Racer { kernels, memory: &HeapChunks, policy: MemoryPolicy::Cold, runs, work: work(clock) }
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

    /// A race of `kernels` whose tuned gives results spoiled by `sabotage`: the checks must catch it.
    fn sabotaged<'a>(
        kernels: &'a [Kernel],
        clock: &'a Ticks,
        truth: Truth,
        spoil: fn(&mut Run),
    ) -> race::Racer<'a, race::Spoiled<GroupByWork<'a>>> {
        let work = race::Spoiled { work: GroupByWork { truth, ..work(clock) }, kernel: Kernel::Tuned, spoil };
        race::Racer { kernels, memory: &HeapChunks, policy: MemoryPolicy::Cold, runs: 1, work }
    }

    #[test]
    fn a_wrong_kernel_is_caught_by_each_check_alone() {
        let keys = keys();
        let clock = Ticks::default();
        let groups = reference(&keys).groups;
        // (what the kernel gets wrong, the only check enabled, the check that must catch it)
        type Case = (fn(&mut Run), Truth, Check);
        let cases: [Case; 3] = [
            (|r| r.outcome.result.rows += 1, Truth { known: None, reference: false }, Check::RowTotal),
            (|r| r.outcome.result.groups -= 1, Truth { known: Some(groups), reference: false }, Check::KnownGroups),
            (
                |r| r.outcome.result.checksum ^= 1,
                Truth { known: None, reference: true },
                Check::Reference(Reference::SortAndCount),
            ),
        ];
        for (sabotage, truth, check) in cases {
            // Alone: nothing to compare with but what is known.
            let error = sabotaged(&[Kernel::Tuned], &clock, truth, sabotage)
                .time(&keys, &mut |_| ControlFlow::Continue(()))
                .unwrap_err();
            assert!(matches!(error, race::RaceError::Wrong { kernel: "tuned", check: c, .. } if c == check), "{error}");
            assert!(error.to_string().starts_with("tuned is wrong: "), "{error}");
        }
        // With nothing known, another kernel still catches it.
        let error =
            sabotaged(&[Kernel::Naive, Kernel::Tuned], &clock, Truth::default(), |r| r.outcome.result.checksum ^= 1)
                .time(&keys, &mut |_| ControlFlow::Continue(()))
                .unwrap_err();
        assert!(matches!(error, race::RaceError::Wrong { check: Check::CrossKernel, .. }), "{error}");
        assert_eq!(error.to_string(), "tuned is wrong: its result differs from naive's (check: cross-kernel)");
    }

    #[test]
    fn one_kernel_alone_says_what_checked_it() {
        let keys = keys();
        let clock = Ticks::default();
        let mut alone = racer(&[Kernel::Tuned], &clock, 1);
        alone.work.truth = Truth::default();
        let groupby = alone.race(&keys, dataset(keys.len()), &mut |_| ControlFlow::Continue(())).unwrap();
        assert_eq!(groupby.runs[0].verified_by, ["row-total"]);
        assert_eq!(Truth::by_default(1000, Some(7)), Truth { known: Some(7), reference: true });
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
}
