//! What the ladder means, as the core reads it: how far the cycle figures can be trusted, the
//! levels of the memory hierarchy and what causes each, memory-level parallelism, and the plain
//! sentences a person reads. Every type here was added after schema 1 was first written, so every
//! field that holds one is `#[serde(default)]`: reports without them still open.

use serde::{Deserialize, Serialize};

/// The core clock from a dependent add chain, and how much to believe it.
///
/// The chain is timed at two lengths, n and 2n steps, many times each; `ghz` is n over the
/// difference of the two *minimum* times. An interrupt only ever adds time to a run, so it cannot
/// lower a minimum; it can only raise it when every run of a length was disturbed, and then
/// `residual` leaves zero and `stable` turns false.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockEstimate {
    pub ghz: f64,
    /// (median - min) / min of the timed runs, the larger of the two lengths: how far a typical
    /// run sat above the fastest.
    pub spread: f64,
    /// (2 t(n) - t(2n)) / t(n): the fixed cost around a run, which the difference cancels. It is
    /// tens of ns against milliseconds, so anything far from 0 means one length was disturbed in
    /// every run (positive: the short runs; negative: the long ones).
    pub residual: f64,
    /// Runs of each length.
    pub repetitions: u32,
    /// Chain steps in the short run.
    pub steps: u64,
    /// Spread and residual both small: the figure is the core's clock at that moment.
    pub stable: bool,
}

/// The cross-check of the clock against the one latency whose cycle count is known in advance:
/// an L1 hit takes a whole number of cycles, 3 to 6 on current cores (4 or 5 on x86).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockCheck {
    /// The working set the check read (the smallest one, well inside L1).
    pub bytes: u64,
    /// Its fastest sample, ns per load.
    pub ns_per_load: f64,
    /// The clock it was read with (the point's own, when the ladder tracked the clock).
    pub ghz: f64,
    pub cycles_per_load: f64,
    /// Whether that is within 0.4 of a whole number of cycles from 3 to 6.
    pub plausible: bool,
    /// One sentence saying what was found, with its numbers.
    pub note: String,
}

/// What makes a level of the curve slower than the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cause {
    /// The working set left a cache.
    Cache,
    /// The working set outgrew what the TLB maps, and page walks join the latency.
    Tlb,
    /// The working set lives in main memory.
    Dram,
}

/// One plateau of the ladder, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// "L1", "L2", "L3", "TLB reach", "DRAM", ...
    pub name: String,
    /// The largest working set measured on this plateau (for DRAM: the first one measured there).
    pub size_bytes: u64,
    /// The plateau's typical latency (median of its points' minima).
    pub ns_per_load: f64,
    #[serde(default)]
    pub cycles_per_load: Option<f64>,
    /// Why the latency rises *into* this level (for L1: `cache`).
    pub cause: Cause,
    /// The size the OS declares for the cache of this name, when it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_bytes: Option<u64>,
    /// Where a cache level has run out: after a sharp step, the first working set on the next
    /// plateau; after a gradual climb, the measured size nearest to where latency is halfway
    /// (the mean of the two plateaus), where half the loads miss. A cache whose
    /// replacement is not LRU starts missing before it is full, so this, not `size_bytes`, is
    /// what compares with a declared size. Absent for DRAM, TLB levels and a curve's last plateau.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
    /// What placed this level, one finding a line: which curve showed it and where, what the OS
    /// declares beside it, what the bandwidth plateaus say. Added within schema 1: empty in older
    /// reports until they are read again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

/// ns per load with K independent chases interleaved, over one working set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parallelism {
    pub bytes: u64,
    pub points: Vec<ChainsPoint>,
    /// The smallest K past which adding chases buys less than 10% per doubling: about the
    /// number of misses the core keeps in flight. `None` when the curve had no knee in range.
    #[serde(default)]
    pub knee_chains: Option<u32>,
    /// 1-chain ns per load over the best K's.
    pub max_speedup: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainsPoint {
    pub chains: u32,
    /// Fastest sample's ns per load (all chases' loads counted).
    pub ns_per_load: f64,
    #[serde(default)]
    pub ns_per_load_median: Option<f64>,
}
