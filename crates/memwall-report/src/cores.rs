//! `memwall cores`: how long one cache line takes to travel between two CPUs, for every pair of
//! CPUs memwall may use, and the groups those latencies form, set against what sysfs declares.

use serde::{Deserialize, Serialize};

/// The core-to-core matrix and its reading. Added within schema 1: absent in older reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cores {
    /// The CPUs measured (OS numbering), in the order of the matrix.
    pub cpus: Vec<u32>,
    /// Round trips timed per sample; each sample's one-way figure is its time / round trips / 2.
    pub round_trips_per_sample: u32,
    /// Every unordered pair of `cpus`, measured once each.
    pub pairs: Vec<CorePair>,
    /// What sysfs declares about the same CPUs, where it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<DeclaredTopology>,
    /// Latency tiers found in the matrix, fastest first (derived: read again by `memwall explain`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<CoreTier>,
    /// Sentences saying where the tiers agree or disagree with `declared`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agreement: Vec<String>,
    /// One sentence on the topology, the one the report's advice carries.
    #[serde(default)]
    pub topology: String,
}

/// One pair's one-way latency over many samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorePair {
    pub cpu_a: u32,
    pub cpu_b: u32,
    pub one_way_median_ns: f64,
    pub one_way_p10_ns: f64,
    pub one_way_p90_ns: f64,
    pub samples: u32,
}

/// The CPU groups sysfs declares: SMT siblings (`topology/thread_siblings_list`) and CPUs sharing
/// one last-level cache (`cache/index*/shared_cpu_list` of the highest level), each restricted to
/// the CPUs measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeclaredTopology {
    #[serde(default)]
    pub smt_siblings: Vec<Vec<u32>>,
    #[serde(default)]
    pub llc_groups: Vec<Vec<u32>>,
    /// The level of the cache `llc_groups` share (3 on most servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llc_level: Option<u8>,
}

/// Pairs whose latencies cluster together, and the CPU groups they join.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoreTier {
    /// The fastest and slowest pair medians in this tier.
    pub from_ns: f64,
    pub to_ns: f64,
    /// Pairs in the tier.
    pub pairs: u32,
    /// CPUs joined by pairs of this tier or a faster one: connected groups, singletons left out.
    pub groups: Vec<Vec<u32>>,
    /// Which declared grouping these groups match: "smt", "llc", or absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
}
