//! The GROUP BY race and its sweeps.

use serde::{Deserialize, Serialize};

use crate::race::{Figures, RaceSweep, Run};

/// The GROUP BY race: `SELECT key, count(*) FROM t GROUP BY key` by several kernels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupBy {
    pub dataset: Dataset,
    #[serde(default)]
    pub runs: Vec<GroupByRun>,
    #[serde(default)]
    pub sweeps: Vec<Sweep>,
    /// What each group computed when more than `count(*)`; absent for a plain count (and in
    /// older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
    /// What the cost model (core's `cost`) predicted from the ladder and the data, and which of
    /// its inputs it lacked; each run's own prediction is its `predicted_ns_per_row`. Absent
    /// where no ladder was read (and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<CostModel>,
}

/// The inputs a race's predictions came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// The groups the model was given: a sample's estimate, and the upper end of its range.
    pub estimated_groups: u64,
    pub upper_groups: u64,
    /// The ladder's measurements it used, one a line ("L2 1 MiB at 3.1 ns", "DRAM 98 ns").
    pub inputs: Vec<String>,
    /// The inputs it lacked, each with what stood in for it.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Where the kernels' fixed costs were fitted (a CPU; the same constants on every host).
    pub fitted_on: String,
}

/// The aggregates of a GROUP BY beyond a count, and the value column they read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// "count", "sum", "min", "max", "avg", in that order.
    pub aggregates: Vec<String>,
    /// "i64" or "f64".
    pub value_type: String,
    /// The input's value column, when the values were read from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_column: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub rows: u64,
    pub distinct_keys: u64,
    /// Set when the keys were generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<Generator>,
    /// Set when the keys were read from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Input>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Rows of the most frequent key.
    #[serde(default)]
    pub max_rows_per_key: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generator {
    /// The preset name, if one was used ("small", "clickbench").
    #[serde(default)]
    pub preset: Option<String>,
    /// "uniform" or "zipf:<exponent>".
    pub skew: String,
    /// The rows' order and heavy key where not the generator's own shuffled rows: "sessions",
    /// "first-seen, heavy key 30%", ... (core's `shape`). Absent for shuffled rows (and in older
    /// reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub path: String,
    /// "parquet" or "bin" (raw little-endian i64).
    pub format: String,
    #[serde(default)]
    pub column: Option<String>,
}

/// One GROUP BY kernel's runs: the shared fields of every race's runs, and [`GroupByFigures`].
pub type GroupByRun = Run<GroupByFigures>;

/// What only a GROUP BY's runs have, beside the fields every race's runs share ([`Run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupByFigures {
    /// Median seconds divided by rows.
    pub ns_per_row: f64,
    pub groups: u64,
    /// The ten most frequent keys, count descending, ties by key ascending.
    #[serde(default)]
    pub top: Vec<KeyCount>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
    /// With `--phases`: where the run's time went, phase by phase, from timers in the kernel
    /// (the run nearest the median). Phases are "sample", "trial" (adaptive's timed try of its
    /// small tables on the first rows), "scatter", "split", "aggregate", "emit", "merge" and
    /// "given-up" (adaptive's abandoned attempts); a kernel reports those it
    /// has. On several threads a phase's time is summed over the threads that ran it. Absent
    /// when the phases were not timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Vec<PhaseTime>>,
    /// With aggregates over a value column: each aggregate summed over all groups, so another
    /// engine's answer can be checked without a group-by-group diff. Absent for a plain count
    /// (and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<Totals>,
    /// The cost model's ns per row for this kernel on this host and data (see
    /// [`GroupBy::model`]), beside the measured `ns_per_row`. Absent without a ladder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_ns_per_row: Option<f64>,
}

impl Figures for GroupByFigures {
    const ANSWER: &'static str = "groups";
    const PER_ROW: &'static str = "ns/row";
    fn median_ns_per_row(&self) -> f64 {
        self.ns_per_row
    }
    fn answer(&self) -> u64 {
        self.groups
    }
}

/// The totals of a run's aggregates over all groups. `count` is the rows counted; the others
/// are the sums over groups of each group's sum, min, max and avg, as decimal strings: exact
/// integers for an `i64` value column (they need up to 128 bits, past what JSON numbers keep),
/// and for `f64` the shortest text that reads back to the same `f64` ("NaN", "inf", "-inf"
/// included). Absent: not asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sum: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg: Option<String>,
}

/// Time one phase of a GROUP BY run took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseTime {
    pub phase: String,
    /// ns of the phase divided by the rows read.
    pub ns_per_row: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCount {
    pub key: i64,
    pub count: u64,
}

/// Hardware counters for one run. When the host offers none (most VMs), `available` is false and
/// `unavailable` says why; no figure is ever filled in by guess. A counter the PMU lacks is `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    #[serde(default)]
    pub cycles: Option<u64>,
    #[serde(default)]
    pub instructions: Option<u64>,
    #[serde(default)]
    pub ipc: Option<f64>,
    #[serde(default)]
    pub cache_misses: Option<u64>,
    #[serde(default)]
    pub llc_load_misses: Option<u64>,
    #[serde(default)]
    pub dtlb_load_misses: Option<u64>,
    /// Share of cycles the backend stalled (where the PMU offers stalled-cycles-backend).
    #[serde(default)]
    pub stalled_backend_share: Option<f64>,
    /// The raw stalled-cycles-backend count behind `stalled_backend_share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stalled_cycles_backend: Option<u64>,
    /// The smallest fraction of the run any counter was actually on the PMU. Below 1 the kernel
    /// time-sliced the counters and the counts were scaled by enabled / running time (as
    /// `perf stat` does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running_share: Option<f64>,
    /// What was counted, e.g. "user space; the starting thread and threads spawned after start".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Counters that could not be had on this host while others could, each as "name: reason".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_counted: Vec<String>,
}

impl Counters {
    /// No counters, and why.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        Self { available: false, unavailable: Some(reason.into()), ..Self::default() }
    }
}

/// A GROUP BY sweep: the fields every race's sweeps share, and [`GroupBySweepFigures`].
pub type Sweep = RaceSweep<SweepPoint, GroupBySweepFigures>;

/// What only a GROUP BY's sweeps have, beside the fields every race's sweeps share
/// ([`RaceSweep`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupBySweepFigures {
    pub rows: u64,
    /// Cardinality sweep: the smallest distinct-key count from which radix beat naive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossover_distinct_keys: Option<u64>,
    /// Cardinality sweep: the largest ratio, over its points, of adaptive's time to the best
    /// other kernel's (1.1 = adaptive was at worst 10% slower than the best choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_max_slowdown: Option<f64>,
    /// What each group computed ("count" alone included, with `value_type` "none"); absent in
    /// reports from before sweeps took `--agg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
    /// Bytes of aggregate state a group takes in the flat tables, the key not counted: the size
    /// that sweeps of several aggregate lists are compared by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_bytes_per_group: Option<u64>,
    /// Partitions sweep: each partitioning kernel's fastest point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub best_partitions: Vec<BestPartitions>,
    /// Cardinality sweep: for every other kernel, from which distinct-key count on it beat naive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crossovers: Vec<Crossover>,
}

/// A partitioning kernel's fastest partition count in a partitions sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestPartitions {
    pub kernel: String,
    pub partitions: u32,
    pub ns_per_row: f64,
}

/// Where, in a cardinality sweep, `kernel` began to beat `versus`: the smallest measured
/// distinct-key count from which it was faster at that point and every larger one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crossover {
    pub kernel: String,
    pub versus: String,
    /// `null`: it did not, in the range measured (slower at the largest point, or never faster).
    pub from_distinct_keys: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub x: u64,
    pub kernel: String,
    pub ns_per_row: f64,
    pub seconds: f64,
    /// The cost model's ns per row for this point, where a ladder was read (see
    /// [`GroupBy::model`]). Absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_ns_per_row: Option<f64>,
}
