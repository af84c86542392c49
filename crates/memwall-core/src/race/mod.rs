//! One race for every workload: the kernels take turns run after run, so that a change in the
//! machine's load hits all of them alike; under the warm policy each first runs once untimed; a
//! front end follows the race by its events; every run is checked against what is known of the
//! answer and against the race's first result. A [`Workload`] (the GROUP BY, the join) says what
//! its kernels run on, how one run is made and how a result is checked; [`Racer`] does the rest.

use core::ops::ControlFlow;

use memwall_report::AdaptiveChoice;

use crate::scratch::{ChunkSource, MemoryPolicy, RunMemory, Scratch};

mod report;
pub mod rules;
pub mod sweep;
mod turns;

pub use turns::RaceEvent;
pub(crate) use turns::go_on;
use turns::{Agreement, comparisons, take_turns};

/// Below this many rows a race checks every run against its workload's reference by default:
/// the reference sorts a copy of the input, which takes about as long as the slowest kernel.
pub const REFERENCE_BY_DEFAULT_MAX_ROWS: u64 = 20_000_000;

/// A kernel of a race, by the names the command line, the page and the reports give it.
pub trait Named: Copy + PartialEq + core::fmt::Debug + 'static {
    /// Every kernel, in the order a race runs them.
    const ALL: &'static [Self];
    /// What the command line calls this kind of kernel ("kernel", "join kernel").
    const KIND: &'static str;
    fn name(self) -> &'static str;
}

/// The kernels of a comma list ("all" for every one), in the order given, each once; an unknown
/// name is refused with the names there are.
pub fn parse_kernels<K: Named>(text: &str) -> Result<Vec<K>, String> {
    let mut kernels = Vec::new();
    for name in text.split(',').map(str::trim) {
        let more: &[K] = if name.eq_ignore_ascii_case("all") {
            K::ALL
        } else {
            let found = K::ALL.iter().find(|k| k.name().eq_ignore_ascii_case(name)).ok_or_else(|| {
                let names: Vec<&str> = K::ALL.iter().map(|k| k.name()).collect();
                format!("unknown {} '{name}': expected {} or all", K::KIND, names.join(", "))
            })?;
            core::slice::from_ref(found)
        };
        for &kernel in more {
            if !kernels.contains(&kernel) {
                kernels.push(kernel);
            }
        }
    }
    Ok(kernels)
}

/// What is known of the right answer before any kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Truth {
    /// What the generator says the answer counts, when the data was generated: distinct keys for
    /// a GROUP BY, matching probe rows for a join.
    pub known: Option<u64>,
    /// Whether to compute the workload's reference (outside the timer) and hold every run to it.
    pub reference: bool,
}

impl Truth {
    /// The checks a front end runs by default: the reference below
    /// [`REFERENCE_BY_DEFAULT_MAX_ROWS`] rows, and the generator's count when there is one.
    pub fn by_default(rows: u64, generated: Option<u64>) -> Self {
        Self { known: generated, reference: rows < REFERENCE_BY_DEFAULT_MAX_ROWS }
    }
}

/// A way a run's result is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Equal to a reference computed outside the timer, in the way it names.
    Reference(Reference),
    /// As many groups as the generator made distinct keys.
    KnownGroups,
    /// As many matches as the generator made matching probe rows.
    KnownMatches,
    /// The counts add up to the rows read.
    RowTotal,
    /// Equal to every other kernel's result in this race.
    CrossKernel,
    /// Equal to the same kernel's other runs.
    Repeatable,
}

/// How a reference result is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// Sort the keys, count the runs (GROUP BY).
    SortAndCount,
    /// Sort both sides, merge them (join).
    SortAndMerge,
}

impl Check {
    /// The name reports give the check (`runs[].verified_by`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Reference(_) => "reference",
            Self::KnownGroups => "known-groups",
            Self::KnownMatches => "known-matches",
            Self::RowTotal => "row-total",
            Self::CrossKernel => "cross-kernel",
            Self::Repeatable => "repeatable",
        }
    }

    /// What a run that passed did, to follow "every run of every kernel ...".
    pub fn describe(self) -> &'static str {
        match self {
            Self::Reference(Reference::SortAndCount) => "matched a sort-and-count reference",
            Self::Reference(Reference::SortAndMerge) => "matched a sort-and-merge reference",
            Self::KnownGroups => "found as many groups as keys were generated",
            Self::KnownMatches => "found as many matches as the generator made matching rows",
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

/// Why a race stopped. `E` is the workload's own error (a kernel that could not run).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RaceError<E> {
    #[error("{kernel}: {error}")]
    Kernel { kernel: &'static str, error: E },
    #[error("{kernel} is wrong: {detail} (check: {check})")]
    Wrong { kernel: &'static str, check: Check, detail: String },
    #[error("{kernel}: a run took no measurable time")]
    Unmeasurable { kernel: &'static str },
    #[error("cancelled")]
    Cancelled,
}

/// What a run's outcome says that every race's report keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// Threads the run spread its work over.
    pub threads: usize,
    /// The partition count, for the kernels that partitioned.
    pub partitions: Option<u32>,
    /// The answer's order-independent checksum.
    pub checksum: u64,
    /// Adaptive only: the kernel it ran and why.
    pub choice: Option<AdaptiveChoice>,
}

/// A kind of race: what its kernels run on, how one run is made, and how a result is checked.
pub trait Workload {
    type Kernel: Named;
    /// What every kernel runs on (the keys; the two sides of a join).
    type Input<'i>: Copy;
    /// What one run gives besides its time.
    type Outcome;
    /// The part of an outcome every run must agree on.
    type Result: Clone + PartialEq;
    type Error;

    fn result(outcome: &Self::Outcome) -> &Self::Result;
    /// What an outcome says that every race's report keeps.
    fn ran(outcome: &Self::Outcome) -> Ran;
    /// Refuses an input no kernel could run on, before anything else.
    fn check_input(&self, _input: Self::Input<'_>) -> Result<(), RaceError<Self::Error>> {
        Ok(())
    }
    /// Whether every run is held to a reference result.
    fn wants_reference(&self) -> bool;
    /// The reference result, computed outside every timer.
    fn reference(&self, input: Self::Input<'_>) -> Result<Self::Result, RaceError<Self::Error>>;
    /// The checks every run gets before any comparison with other runs, `reference` among them
    /// when there is one.
    fn checks(&self, reference: bool) -> Vec<Check>;
    /// One run of `kernel` in `scratch`, timed: its seconds and what it gave.
    fn run(
        &self,
        kernel: Self::Kernel,
        input: Self::Input<'_>,
        scratch: &Scratch<'_>,
    ) -> Result<(f64, Self::Outcome), Self::Error>;
    /// A result against what is known (the reference, when there is one): the failed check and
    /// why.
    fn verify(
        &self,
        input: Self::Input<'_>,
        result: &Self::Result,
        expected: Option<&Self::Result>,
    ) -> Result<(), (Check, String)>;
    /// Why `result` is not `agreed`, the result `with` gave first.
    fn differs(result: &Self::Result, agreed: &Self::Result, with: &'static str) -> String;
}

/// What a race runs with: the kernels, the memory they share and its policy, how many timed runs
/// each, and the workload.
pub struct Racer<'a, W: Workload> {
    pub kernels: &'a [W::Kernel],
    /// Where scratch regions come from; one pool serves every kernel of the race.
    pub memory: &'a dyn ChunkSource,
    pub policy: MemoryPolicy,
    /// Timed runs per kernel.
    pub runs: u32,
    pub work: W,
}

impl<W: Workload + core::fmt::Debug> core::fmt::Debug for Racer<'_, W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Racer")
            .field("kernels", &self.kernels)
            .field("policy", &self.policy)
            .field("runs", &self.runs)
            .field("work", &self.work)
            .finish()
    }
}

/// Every timed run of one kernel.
#[derive(Debug)]
pub struct Timings<W: Workload> {
    pub kernel: W::Kernel,
    pub seconds: Vec<f64>,
    /// The kernel's very first run: the warm-up under the warm policy (scratch faulted in inside
    /// its timer), the first timed run under the cold one.
    pub first_seconds: f64,
    /// What each timed run gave.
    pub outcomes: Vec<W::Outcome>,
    /// Scratch taken by each timed run.
    pub memory: Vec<RunMemory>,
    pub verified_by: Vec<Check>,
}

impl<W: Workload> Racer<'_, W> {
    /// Times every kernel `runs` times over `input`, the kernels taking turns, and checks every
    /// run of every kernel.
    pub fn time(
        &self,
        input: W::Input<'_>,
        on_event: &mut dyn FnMut(RaceEvent<W::Kernel>) -> ControlFlow<()>,
    ) -> Result<Vec<Timings<W>>, RaceError<W::Error>> {
        let runs = self.runs.max(1);
        self.work.check_input(input)?;
        let expected = if self.work.wants_reference() {
            go_on(on_event(RaceEvent::Checking), || RaceError::Cancelled)?;
            Some(self.work.reference(input)?)
        } else {
            None
        };
        let warm_up = self.policy == MemoryPolicy::Warm;
        let (cross_kernel, repeatable) = comparisons(self.kernels.len(), runs, warm_up);
        let mut checks = self.work.checks(expected.is_some());
        checks.extend(cross_kernel.then_some(Check::CrossKernel));
        checks.extend(repeatable.then_some(Check::Repeatable));
        let mut agreement = Agreement::new();
        let mut scratch = Scratch::new(self.memory, self.policy);
        let turns = take_turns(
            self.kernels,
            runs,
            warm_up,
            on_event,
            || RaceError::Cancelled,
            |kernel| {
                scratch.begin_run();
                let name = kernel.name();
                let (seconds, outcome) = self
                    .work
                    .run(kernel, input, &scratch)
                    .map_err(|error| RaceError::Kernel { kernel: name, error })?;
                let result = W::result(&outcome);
                self.work.verify(input, result, expected.as_ref()).map_err(|(check, detail)| RaceError::Wrong {
                    kernel: name,
                    check,
                    detail,
                })?;
                if let Err(differs) = agreement.check(kernel, result) {
                    let check = if differs.same_kernel { Check::Repeatable } else { Check::CrossKernel };
                    let detail = W::differs(result, differs.agreed, differs.with.name());
                    return Err(RaceError::Wrong { kernel: name, check, detail });
                }
                Ok((seconds, (outcome, scratch.run_memory())))
            },
        )?;
        Ok(self
            .kernels
            .iter()
            .zip(turns)
            .map(|(&kernel, turns)| {
                let (outcomes, memory) = turns.outputs.into_iter().unzip();
                Timings {
                    kernel,
                    seconds: turns.seconds,
                    first_seconds: turns.first_seconds,
                    outcomes,
                    memory,
                    verified_by: checks.clone(),
                }
            })
            .collect())
    }
}

/// `work` with every outcome of `kernel` changed by `spoil` after its run: a wrong kernel, which
/// the checks of a race must catch (their tests use it, natively and in the browser).
#[derive(Debug)]
pub struct Spoiled<W: Workload> {
    pub work: W,
    pub kernel: W::Kernel,
    pub spoil: fn(&mut W::Outcome),
}

impl<W: Workload> Workload for Spoiled<W> {
    type Kernel = W::Kernel;
    type Input<'i> = W::Input<'i>;
    type Outcome = W::Outcome;
    type Result = W::Result;
    type Error = W::Error;

    fn result(outcome: &Self::Outcome) -> &Self::Result {
        W::result(outcome)
    }
    fn ran(outcome: &Self::Outcome) -> Ran {
        W::ran(outcome)
    }
    fn check_input(&self, input: Self::Input<'_>) -> Result<(), RaceError<Self::Error>> {
        self.work.check_input(input)
    }
    fn wants_reference(&self) -> bool {
        self.work.wants_reference()
    }
    fn reference(&self, input: Self::Input<'_>) -> Result<Self::Result, RaceError<Self::Error>> {
        self.work.reference(input)
    }
    fn checks(&self, reference: bool) -> Vec<Check> {
        self.work.checks(reference)
    }
    fn run(
        &self,
        kernel: Self::Kernel,
        input: Self::Input<'_>,
        scratch: &Scratch<'_>,
    ) -> Result<(f64, Self::Outcome), Self::Error> {
        let (seconds, mut outcome) = self.work.run(kernel, input, scratch)?;
        if kernel == self.kernel {
            (self.spoil)(&mut outcome);
        }
        Ok((seconds, outcome))
    }
    fn verify(
        &self,
        input: Self::Input<'_>,
        result: &Self::Result,
        expected: Option<&Self::Result>,
    ) -> Result<(), (Check, String)> {
        self.work.verify(input, result, expected)
    }
    fn differs(result: &Self::Result, agreed: &Self::Result, with: &'static str) -> String {
        W::differs(result, agreed, with)
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

    #[test]
    fn the_median_sample_is_the_closest_one() {
        assert_eq!(median_sample(&[3.0, 1.0, 2.1, 9.0], 2.0), Some(2));
        assert_eq!(median_sample(&[], 2.0), None);
    }
}
