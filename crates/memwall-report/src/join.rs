//! The hash-join race and its build-size sweep.

use serde::{Deserialize, Serialize};

use crate::groupby::AdaptiveChoice;
use crate::groupby::Generator;
use crate::ladder::Summary;

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
    /// Per build size, the fastest kernel (adaptive aside: it runs one of the others) and how
    /// prefetch fared against it; absent in reports from before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fastest: Vec<BuildSizeFastest>,
    /// How much slower than the fastest prefetch may be and still count as enough (0.1: 10%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefetch_tolerance_share: Option<f64>,
    /// The smallest build size from which prefetch was more than the tolerance slower than the
    /// fastest at that size and every larger one: below it one prefetched table suffices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefetch_falls_behind_from: Option<u64>,
    /// Each partitioning kernel (partitioned, tuned) against each single table (naive,
    /// prefetch): the build size from which it was faster at that size and every larger one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crossovers: Vec<BuildSizeCrossover>,
}

/// Where, in a build-size sweep, `kernel` began to beat `versus` for good.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildSizeCrossover {
    pub kernel: String,
    pub versus: String,
    /// `null`: not within the build sizes measured.
    pub from_build_keys: Option<u64>,
}

/// One build size of a build-size sweep: which kernel was fastest, and prefetch against it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildSizeFastest {
    pub build_keys: u64,
    pub kernel: String,
    pub ns_per_probe: f64,
    /// Prefetch's ns per probe over the fastest's (1.0 when prefetch was the fastest); absent
    /// when prefetch was not swept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefetch_over_fastest: Option<f64>,
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
