//! The hash-join race and its build-size sweep.

use serde::{Deserialize, Serialize};

use crate::groupby::Generator;
use crate::ladder::Summary;
use crate::race::{Figures, RaceSweep, Run};

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

/// One join kernel's runs: the shared fields of every race's runs, and [`JoinFigures`].
pub type JoinRun = Run<JoinFigures>;

/// What only a join's runs have, beside the fields every race's runs share ([`Run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinFigures {
    /// Probe rows that found their key.
    pub matches: u64,
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
}

impl Figures for JoinFigures {
    const ANSWER: &'static str = "matches";
    const PER_ROW: &'static str = "ns/probe";
    fn median_ns_per_row(&self) -> f64 {
        self.ns_per_probe
    }
    fn answer(&self) -> u64 {
        self.matches
    }
}

/// A build-size sweep: ns per probe row as the build side doubles, the probe side fixed; the
/// fields every race's sweeps share, and [`JoinSweepFigures`].
pub type JoinSweep = RaceSweep<JoinSweepPoint, JoinSweepFigures>;

/// What only a join's sweeps have, beside the fields every race's sweeps share ([`RaceSweep`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinSweepFigures {
    pub probe_rows: u64,
    /// The smallest build size from which partitioned beat naive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioned_beats_naive_from: Option<u64>,
    /// The smallest build size from which partitioned beat prefetch (up to it, prefetching alone
    /// suffices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioned_beats_prefetch_from: Option<u64>,
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
