//! What every race's runs and sweeps share, GROUP BY and join alike: one shape, the workload's
//! own figures flattened beside the shared ones, so that the JSON of each stays as it was written
//! before the two shared a type, and logic over the shared fields is written once.

use core::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};

use crate::ladder::Summary;

/// One kernel's runs in a race. `A` holds what only its workload measures (a GROUP BY's groups
/// and top keys, a join's matches and build and probe times); a run derefs to it, so that
/// `run.groups` reads as it did before the shapes were shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run<A> {
    /// The kernel's name: GROUP BY "naive", "radix", "tuned", "prefetch" or "adaptive"; join
    /// "naive", "partitioned", "prefetch", "tuned" or "adaptive".
    pub kernel: String,
    pub threads: u32,
    /// The partition count, for the kernels that partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u32>,
    /// Every timed run (a join's: build and probe together).
    pub seconds: Summary,
    #[serde(default)]
    pub samples_seconds: Vec<f64>,
    /// Order-independent checksum of the answer, as 16 hex digits: equal across kernels. A
    /// GROUP BY's is over (key, count), a join's over (key, payload) of every match.
    pub checksum: String,
    /// Adaptive only: which kernel it picked and why (for a join, `estimated_groups` is the
    /// build size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<AdaptiveChoice>,
    /// The memory policy the run was timed under: "warm" (scratch reused from run to run,
    /// already faulted in) or "cold" (every run maps and faults its scratch inside the timer).
    /// Absent in reports from before the policy existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The kernel's very first run: under "warm" the untimed warm-up that faulted its scratch
    /// in, under "cold" the first of `samples_seconds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_run_seconds: Option<f64>,
    /// The most scratch memory a timed run took (blocks as handed out): an upper bound of what
    /// it touched beyond the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_bytes: Option<u64>,
    /// The most scratch a timed run had to map (and fault) inside its timer: all of it under
    /// "cold", none under "warm" unless a run needed more than the warm-up did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapped_in_run_bytes: Option<u64>,
    /// Share of the scratch pool backed by huge pages, 0 to 1, where the host can tell (joins
    /// from before the shapes were shared leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_share: Option<f64>,
    /// How every run's result was checked: "reference" (equal to a reference computed outside
    /// the timer: sort and count, sort and merge), "known-groups" or "known-matches" (as many as
    /// the generator made), "row-total" (counts summing to the rows read), "cross-kernel" (equal
    /// to the other kernels'), "repeatable" (equal across its runs). Empty only when nothing
    /// could be checked (and in reports from before checks were recorded).
    #[serde(default)]
    pub verified_by: Vec<String>,
    /// What only this workload's runs have.
    #[serde(flatten)]
    pub own: A,
}

/// What adaptive picked, GROUP BY or join: the kernel it ran and why (`estimated_groups` is a
/// join's build size).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveChoice {
    pub kernel: String,
    pub estimated_groups: u64,
    pub sampled_rows: u64,
    pub reason: String,
}

/// What a workload's own figures tell the logic shared between races.
pub trait Figures {
    /// What the answer counts, as tables head it ("groups", "matches").
    const ANSWER: &'static str;
    /// The unit of [`Figures::median_ns_per_row`] as tables head it ("ns/row", "ns/probe").
    const PER_ROW: &'static str;
    /// The median run's ns per row of the input the race is timed by (a join's probe rows).
    fn median_ns_per_row(&self) -> f64;
    /// The answer's count: groups, matches.
    fn answer(&self) -> u64;
}

impl<A> Deref for Run<A> {
    type Target = A;
    fn deref(&self) -> &A {
        &self.own
    }
}

impl<A> DerefMut for Run<A> {
    fn deref_mut(&mut self) -> &mut A {
        &mut self.own
    }
}

/// How many times faster than `versus`'s median (naive's, say) `run`'s median was, when
/// `versus` ran too.
pub fn speedup_over<A>(runs: &[Run<A>], run: &Run<A>, versus: &str) -> Option<f64> {
    let base = runs.iter().find(|r| r.kernel == versus)?;
    (run.seconds.median > 0.0).then(|| base.seconds.median / run.seconds.median)
}

/// A sweep of a race: each kernel's fastest run at every point `x`. `P` is the workload's point,
/// `A` what only its sweeps say (the verdicts drawn from the points); a sweep derefs to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceSweep<P, A> {
    /// What `x` is: a GROUP BY's "cardinality" (distinct keys) or "partitions" (partition
    /// count), a join's "build-size" (build keys).
    pub kind: String,
    pub points: Vec<P>,
    /// The memory policy every point was timed under ("warm" or "cold", see [`Run::memory`]);
    /// absent in reports from before the policy existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The checks every run at every point passed (see [`Run::verified_by`]).
    #[serde(default)]
    pub verified_by: Vec<String>,
    /// What only this workload's sweeps have.
    #[serde(flatten)]
    pub own: A,
}

impl<P, A> Deref for RaceSweep<P, A> {
    type Target = A;
    fn deref(&self) -> &A {
        &self.own
    }
}

impl<P, A> DerefMut for RaceSweep<P, A> {
    fn deref_mut(&mut self) -> &mut A {
        &mut self.own
    }
}
