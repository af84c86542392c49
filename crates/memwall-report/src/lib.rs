//! The report format that every memwall front end writes and reads.
//!
//! One set of types serves the native CLI (which writes `memwall-report.json`), the browser
//! (which saves its own runs with `source: "browser"`) and the viewer (which overlays reports
//! from several hosts). Field names carry their units, numbers stay raw numbers, and every
//! report carries [`SCHEMA_VERSION`] so a reader can refuse what it does not understand instead
//! of misreading it. Unknown *fields* are ignored, so later versions may add fields freely
//! without bumping the version; renaming or changing the meaning of a field bumps it.

use serde::{Deserialize, Serialize};

mod check;
mod csv;
pub use check::{Implausible, MAX_ITEMS, MAX_REPORT_BYTES, Untrusted, check_size, too_large_stopped};
mod explain;
pub use csv::{GROUPBY_CSV_HEADER, JOIN_CSV_HEADER, LADDER_CSV_HEADER, groupby_csv, join_csv, ladder_csv, reports_csv};
pub use explain::{
    Bandwidth, BandwidthPoint, Cause, ChainsPoint, ClockCheck, ClockEstimate, Curve, Level, LoadedLatency, Parallelism,
};

/// The version of the schema this crate writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole memwall report: who measured, on what host, and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub tool: Tool,
    pub source: Source,
    pub created_unix_s: u64,
    pub host: Host,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<Ladder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groupby: Option<GroupBy>,
    /// Streaming bandwidth per working set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Bandwidth>,
    /// The hash-join probe race. Added within schema 1: absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<Join>,
    /// A short reading for someone choosing a server, each sentence backed by a figure above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    /// This build of memwall.
    pub fn memwall() -> Self {
        Self { name: "memwall".into(), version: env!("CARGO_PKG_VERSION").into() }
    }
}

/// Where the measurement ran: full precision on the host, or inside a browser's wasm sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Native,
    Browser,
}

/// What is known of the machine. Every field is optional because a browser sees little of it
/// and a VM may hide some; `None` means "not known", never "zero".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// A label for the host: the hostname natively, or what the user typed.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub cpu_model: Option<String>,
    #[serde(default)]
    pub logical_cpus: Option<u32>,
    /// Caches as the OS (or hypervisor) declares them, which is not always what the silicon has.
    #[serde(default)]
    pub caches: Vec<Cache>,
    /// The hypervisor's name (e.g. "KVM"), `"none"` on bare metal, `None` when unknown.
    #[serde(default)]
    pub hypervisor: Option<String>,
    #[serde(default)]
    pub os: Option<String>,
    #[serde(default)]
    pub page_bytes: Option<u64>,
    /// Transparent huge page mode: "always", "madvise" or "never".
    #[serde(default)]
    pub thp: Option<String>,
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    /// Core clock estimated from a dependent add chain (not the nominal or TSC frequency).
    #[serde(default)]
    pub core_ghz: Option<f64>,
    /// How `core_ghz` was had and how far it can be trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_clock: Option<ClockEstimate>,
    /// Why `core_ghz` is missing, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_ghz_unavailable: Option<String>,
    /// The smallest step the clock used for timing was seen to take.
    #[serde(default)]
    pub timer_resolution_ns: Option<f64>,
    /// Browser only: the user agent string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Browser only: whether the page was cross-origin isolated (which buys finer timers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_origin_isolated: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u8,
    /// "Data", "Instruction" or "Unified", as Linux spells them.
    pub kind: String,
    pub size_bytes: u64,
    #[serde(default)]
    pub line_bytes: Option<u32>,
    /// How many logical CPUs share one instance of this cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by_cpus: Option<u32>,
}

/// min / median / p90 / max of a set of samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub min: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

impl Summary {
    /// Summarizes samples; `None` for an empty set or one holding a NaN.
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() || samples.iter().any(|s| s.is_nan()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Self {
            min: sorted[0],
            median: quantile(&sorted, 0.5),
            p90: quantile(&sorted, 0.9),
            max: sorted[sorted.len() - 1],
        })
    }

    /// (median - min) / min: how far a typical sample sits above the best one.
    pub fn spread(&self) -> f64 {
        if self.min > 0.0 { (self.median - self.min) / self.min } else { 0.0 }
    }
}

/// Linear interpolation between closest ranks of an already sorted, non-empty slice.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// The latency ladder: one pointer chase per working-set size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ladder {
    /// How the chain visits memory; "random-cycle" is one random cycle over all cache lines.
    pub pattern: String,
    /// What was asked for: "off", "thp", "on", or "default" (the allocator's choice, as in a browser).
    pub huge_pages: String,
    #[serde(default)]
    pub pinned_cpu: Option<u32>,
    pub line_bytes: u32,
    pub seed: u64,
    /// The core clock used for `cycles_per_load`, when it could be estimated.
    #[serde(default)]
    pub ghz: Option<f64>,
    /// Why cycles are missing, when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_unavailable: Option<String>,
    /// The length each timed sample was calibrated to.
    pub target_sample_ns: f64,
    #[serde(default)]
    pub timer_resolution_ns: Option<f64>,
    /// Time the whole ladder took, setup included.
    #[serde(default)]
    pub duration_s: Option<f64>,
    pub points: Vec<LadderPoint>,
    /// Where latency jumps, found in `points` by the core's step detector.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// The clock estimate at the start of the ladder (`ghz` is its figure, when trusted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockEstimate>,
    /// The L1 cross-check of the clock. When it fails, `ghz` and every `cycles_per_load` are left
    /// out and `cycles_unavailable` says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_check: Option<ClockCheck>,
    /// The plateaus of the curve, named and explained.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<Level>,
    /// Plain sentences on what the levels mean, each with its numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdict: Vec<String>,
    /// Memory-level parallelism: K interleaved chases over one large working set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<Parallelism>,
    /// Curves beyond the main one (other patterns or page sizes), same point shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<Curve>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderPoint {
    pub bytes: u64,
    pub ns_per_load: Summary,
    /// Median ns per load times the core clock of this point's moment (`ghz`).
    #[serde(default)]
    pub cycles_per_load: Option<f64>,
    /// The core clock around this point: the mean of estimates just before and just after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ghz: Option<f64>,
    /// The clock moved more than 5% while this point was measured, or sits more than 5% from the
    /// ladder's first estimate: its cycles are less certain than its ns.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clock_moved: bool,
    pub loads_per_sample: u64,
    /// How many samples were kept.
    pub samples: u32,
    /// Every kept sample, in the order measured.
    #[serde(default)]
    pub samples_ns_per_load: Vec<f64>,
    /// How many times the working set was measured: more than one when an attempt's samples
    /// spread too far (a disturbed run); the samples are those of the least disturbed attempt.
    #[serde(default = "one")]
    pub attempts: u32,
    /// Bytes of the buffer the kernel reported as backed by transparent huge pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_bytes: Option<u64>,
}

fn one() -> u32 {
    1
}

/// A rise in latency between two adjacent plateaus of the ladder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The largest working set still on the lower plateau.
    pub from_bytes: u64,
    /// The smallest working set on the higher plateau.
    pub to_bytes: u64,
    pub ns_per_load_before: f64,
    pub ns_per_load_after: f64,
}

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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub path: String,
    /// "parquet" or "bin" (raw little-endian i64).
    pub format: String,
    #[serde(default)]
    pub column: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupByRun {
    /// "naive", "radix", "tuned", "prefetch", or "adaptive".
    pub kernel: String,
    pub threads: u32,
    #[serde(default)]
    pub partitions: Option<u32>,
    pub seconds: Summary,
    /// Median seconds divided by rows.
    pub ns_per_row: f64,
    #[serde(default)]
    pub samples_seconds: Vec<f64>,
    pub groups: u64,
    /// Order-independent checksum over (key, count), as 16 hex digits: equal across kernels.
    pub checksum: String,
    /// The ten most frequent keys, count descending, ties by key ascending.
    #[serde(default)]
    pub top: Vec<KeyCount>,
    /// Adaptive only: which kernel it picked and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<AdaptiveChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
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
    /// it touched beyond the keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_bytes: Option<u64>,
    /// The most scratch a timed run had to map (and fault) inside its timer: all of it under
    /// "cold", none under "warm" unless a run needed more than the warm-up did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapped_in_run_bytes: Option<u64>,
    /// Share of the scratch pool backed by huge pages, 0 to 1, where the host can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_share: Option<f64>,
    /// How every run's result was checked: "reference" (equal to a sort-and-count reference),
    /// "known-groups" (as many groups as keys generated), "row-total" (counts summing to the
    /// rows read), "cross-kernel" (equal to the other kernels'), "repeatable" (equal across its
    /// runs). Empty only when nothing could be checked (and in reports from before checks were
    /// recorded).
    #[serde(default)]
    pub verified_by: Vec<String>,
    /// With `--phases`: where the run's time went, phase by phase, from timers in the kernel
    /// (the run nearest the median). Phases are "sample", "scatter", "split", "aggregate",
    /// "emit", "merge" and "given-up" (adaptive's abandoned attempts); a kernel reports those it
    /// has. On several threads a phase's time is summed over the threads that ran it. Absent
    /// when the phases were not timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Vec<PhaseTime>>,
    /// With aggregates over a value column: each aggregate summed over all groups, so another
    /// engine's answer can be checked without a group-by-group diff. Absent for a plain count
    /// (and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<Totals>,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveChoice {
    pub kernel: String,
    pub estimated_groups: u64,
    pub sampled_rows: u64,
    pub reason: String,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// "cardinality" (x = distinct keys) or "partitions" (x = partition count).
    pub kind: String,
    pub rows: u64,
    pub points: Vec<SweepPoint>,
    /// Cardinality sweep: the smallest distinct-key count from which radix beat naive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossover_distinct_keys: Option<u64>,
    /// Cardinality sweep: the largest ratio, over its points, of adaptive's time to the best
    /// other kernel's (1.1 = adaptive was at worst 10% slower than the best choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_max_slowdown: Option<f64>,
    /// The memory policy every point was timed under ("warm" or "cold", see
    /// [`GroupByRun::memory`]); absent in reports from before the policy existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The checks every run at every point passed (see [`GroupByRun::verified_by`]).
    #[serde(default)]
    pub verified_by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub x: u64,
    pub kernel: String,
    pub ns_per_row: f64,
    pub seconds: f64,
}

/// The hash-join race: `SELECT count(*), sum(mix(key, payload)) FROM probe JOIN build USING (key)`
/// by several kernels, the build side's keys distinct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Join {
    pub dataset: JoinDataset,
    #[serde(default)]
    pub runs: Vec<JoinRun>,
    #[serde(default)]
    pub sweeps: Vec<JoinSweep>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinDataset {
    /// Distinct keys of the build side, each with an 8-byte payload.
    pub build_keys: u64,
    pub probe_rows: u64,
    /// The share of probe rows whose key is absent from the build side, as asked for.
    pub miss_rate: f64,
    /// Probe rows generated with such a key: `probe_rows - misses` rows must match.
    pub misses: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<Generator>,
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinRun {
    /// "naive", "partitioned", "prefetch", "tuned" or "adaptive".
    pub kernel: String,
    pub threads: u32,
    /// The partition count, for the kernels that partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<u32>,
    /// Probe rows that found their key.
    pub matches: u64,
    /// Order-independent checksum over (key, payload) of every match, as 16 hex digits.
    pub checksum: String,
    /// Exact sum of the matched probe rows' keys, as a decimal integer (it needs up to 128
    /// bits): what `SELECT sum(key)` over the join gives, so SQL engines, which cannot compute
    /// the checksum, can be checked against memwall. Absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_sum: Option<String>,
    /// Exact sum of the matched rows' payloads (unsigned 64-bit values), as a decimal integer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_sum: Option<String>,
    /// Median total seconds divided by probe rows.
    pub ns_per_probe: f64,
    /// Building the hash table(s): everything that reads only the build side.
    pub build_seconds: Summary,
    /// Probing: everything after the build.
    pub probe_seconds: Summary,
    /// Build and probe together, per run.
    pub seconds: Summary,
    #[serde(default)]
    pub samples_seconds: Vec<f64>,
    /// Adaptive only: which kernel it picked and why (`estimated_groups` is the build size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<AdaptiveChoice>,
    /// "warm" or "cold", as for [`GroupByRun::memory`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_run_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapped_in_run_bytes: Option<u64>,
    /// How every run's result was checked: "reference" (equal to a sort-and-merge
    /// reference), "known-matches" (as many matches as the generator made matching rows),
    /// "cross-kernel", "repeatable".
    #[serde(default)]
    pub verified_by: Vec<String>,
}

/// A build-size sweep: ns per probe row as the build side doubles, the probe side fixed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinSweep {
    /// "build-size" (x = build keys).
    pub kind: String,
    pub probe_rows: u64,
    pub points: Vec<JoinSweepPoint>,
    /// The smallest build size from which partitioned beat naive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioned_beats_naive_from: Option<u64>,
    /// The smallest build size from which partitioned beat prefetch (up to it, prefetching alone
    /// suffices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioned_beats_prefetch_from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(default)]
    pub verified_by: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinSweepPoint {
    pub x: u64,
    pub kernel: String,
    pub ns_per_probe: f64,
    pub build_seconds: f64,
    pub probe_seconds: f64,
    pub seconds: f64,
}

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("not a memwall report: {0}")]
    Malformed(String),
    #[error("not a memwall report: it has no schema_version")]
    MissingVersion,
    #[error("unsupported report schema_version {found}: this memwall reads version {SCHEMA_VERSION}")]
    UnsupportedVersion { found: String },
}

impl Report {
    /// A report with no measurements yet.
    pub fn new(source: Source, created_unix_s: u64, host: Host) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            tool: Tool::memwall(),
            source,
            created_unix_s,
            host,
            ladder: None,
            groupby: None,
            bandwidth: None,
            join: None,
            advice: Vec::new(),
        }
    }

    /// Parses a report, checking the version before the shape so that a report from a newer
    /// memwall says so instead of failing on whichever field changed.
    pub fn from_json(text: &str) -> Result<Self, ReportError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ReportError::Malformed(e.to_string()))?;
        let Some(object) = value.as_object() else {
            return Err(ReportError::Malformed("the top level is not a JSON object".into()));
        };
        match object.get("schema_version") {
            None => return Err(ReportError::MissingVersion),
            Some(v) if v.as_u64() == Some(u64::from(SCHEMA_VERSION)) => {}
            Some(v) => return Err(ReportError::UnsupportedVersion { found: v.to_string() }),
        }
        serde_json::from_value(value).map_err(|e| ReportError::Malformed(e.to_string()))
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("report types always serialize")
    }
}

/// Formats a checksum the way reports store it.
pub fn checksum_hex(checksum: u64) -> String {
    format!("{checksum:016x}")
}

#[cfg(test)]
mod tests;
