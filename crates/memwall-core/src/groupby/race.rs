//! Timing kernels against each other: one loop for the CLI's race, the browser's race and the
//! sweeps, so that all three take turns, check agreement and summarize the same way.
//!
//! Timing is the front end's clock; counters or progress bars hang off the events.

use core::ops::ControlFlow;

use memwall_report::{Dataset, GroupBy, GroupByRun, Summary};

use super::{GroupByConfig, GroupByError, GroupResult, Kernel, Memory, Outcome, run_in};
use crate::clock::{Clock, time_ns};
use crate::exec::Executor;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RaceError {
    #[error("{kernel}: {error}")]
    GroupBy { kernel: &'static str, error: GroupByError },
    #[error("{first} and {kernel} disagree on the result: a kernel is wrong")]
    Mismatch { kernel: &'static str, first: &'static str },
    #[error("{kernel}: a run took no measurable time")]
    Unmeasurable { kernel: &'static str },
    #[error("cancelled")]
    Cancelled,
}

/// Progress; returning `Break` cancels the race. `Running` comes right before the timed region
/// and `Timed` right after it, with nothing else in between, so a front end may bracket a run
/// with hardware counters from these two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RaceEvent {
    /// About to time `kernel`, run `run` (from 0) of `runs`.
    Running { kernel: Kernel, run: u32, runs: u32 },
    /// `kernel`'s run `run` took `seconds`.
    Timed { kernel: Kernel, run: u32, seconds: f64 },
}

/// Every timed run of one kernel, and what its last run produced.
#[derive(Debug, Clone)]
pub struct Timings {
    pub kernel: Kernel,
    pub seconds: Vec<f64>,
    pub outcome: Outcome,
}

/// What a race runs with.
pub struct Racer<'a> {
    pub kernels: &'a [Kernel],
    pub config: GroupByConfig,
    pub exec: &'a dyn Executor,
    pub memory: &'a dyn Memory,
    pub clock: &'a dyn Clock,
    /// Timed runs per kernel.
    pub runs: u32,
}

impl core::fmt::Debug for Racer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Racer")
            .field("kernels", &self.kernels)
            .field("config", &self.config)
            .field("runs", &self.runs)
            .finish()
    }
}

impl Racer<'_> {
    /// Times every kernel `runs` times over `keys`, the kernels taking turns so that a change in
    /// the machine's load hits all of them alike, and checks that every run of every kernel
    /// gives exactly the same result.
    pub fn time(
        &self,
        keys: &[i64],
        on_event: &mut dyn FnMut(RaceEvent) -> ControlFlow<()>,
    ) -> Result<Vec<Timings>, RaceError> {
        let runs = self.runs.max(1);
        let mut seconds = vec![Vec::with_capacity(runs as usize); self.kernels.len()];
        let mut outcomes: Vec<Option<Outcome>> = vec![None; self.kernels.len()];
        let mut first: Option<(Kernel, GroupResult)> = None;
        for run in 0..runs {
            for (k, &kernel) in self.kernels.iter().enumerate() {
                flow(on_event(RaceEvent::Running { kernel, run, runs }))?;
                let (ns, outcome) = time_ns(self.clock, || run_in(kernel, keys, &self.config, self.exec, self.memory));
                let outcome = outcome.map_err(|error| RaceError::GroupBy { kernel: kernel.name(), error })?;
                flow(on_event(RaceEvent::Timed { kernel, run, seconds: ns / 1e9 }))?;
                match &first {
                    None => first = Some((kernel, outcome.result.clone())),
                    Some((by, expected)) if *expected != outcome.result => {
                        return Err(RaceError::Mismatch { kernel: kernel.name(), first: by.name() });
                    }
                    Some(_) => {}
                }
                seconds[k].push(ns / 1e9);
                outcomes[k] = Some(outcome);
            }
        }
        Ok(self
            .kernels
            .iter()
            .zip(seconds)
            .zip(outcomes)
            .filter_map(|((&kernel, seconds), outcome)| Some(Timings { kernel, seconds, outcome: outcome? }))
            .collect())
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
        for Timings { kernel, seconds, outcome } in timings {
            let summary = Summary::of(&seconds).ok_or(RaceError::Unmeasurable { kernel: kernel.name() })?;
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
            });
            dataset.distinct_keys = outcome.result.groups;
            dataset.max_rows_per_key = outcome.result.top.first().map(|kc| kc.count);
        }
        Ok(GroupBy { dataset, runs, sweeps: Vec::new() })
    }
}

/// The index of the sample closest to the median: the run that stands for the rest (whose
/// counters a report shows).
pub fn median_sample(seconds: &[f64], median: f64) -> Option<usize> {
    (0..seconds.len()).min_by(|&a, &b| (seconds[a] - median).abs().total_cmp(&(seconds[b] - median).abs()))
}

fn flow(control: ControlFlow<()>) -> Result<(), RaceError> {
    match control {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(RaceError::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Ticks;
    use crate::exec::Sequential;
    use crate::groupby::{HeapMemory, reference};

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
        Racer { kernels, config, exec: &Sequential, memory: &HeapMemory, clock, runs }
    }

    #[test]
    fn kernels_take_turns_and_report_the_reference_result() {
        let mut keys: Vec<i64> = (0..5000).map(|i| i % 700 - 350).collect();
        keys.extend([i64::MIN, i64::MAX, 0, 0, i64::MIN]);
        let expected = reference(&keys);
        let clock = Ticks::default();
        let mut events = Vec::new();
        let groupby = racer(&Kernel::ALL, &clock, 3)
            .race(&keys, dataset(keys.len()), &mut |event| {
                events.push(event);
                ControlFlow::Continue(())
            })
            .unwrap();

        // Running then Timed for every run, all kernels once per round, rounds in order.
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
        }
        assert_eq!(groupby.dataset.distinct_keys, expected.groups);
        assert_eq!(groupby.dataset.max_rows_per_key, Some(expected.top[0].count));
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
