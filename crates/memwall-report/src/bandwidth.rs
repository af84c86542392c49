//! Streaming bandwidth per working set, and the chase's latency under streaming load.

use serde::{Deserialize, Serialize};

/// Streaming bandwidth per working set (`memwall bandwidth`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    pub points: Vec<BandwidthPoint>,
    /// The chase's latency idle and under streaming load, idle first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_latency: Vec<LoadedLatency>,
}

/// GB/s (10^9 bytes per second) over one working set, best of the samples. Copy counts the bytes
/// read and the bytes written (the STREAM convention), so it compares with read and write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandwidthPoint {
    pub bytes: u64,
    pub threads: u32,
    /// Summing every word (several independent accumulators, vectorized).
    pub read_gb_per_s: f64,
    /// Storing every word.
    pub write_gb_per_s: f64,
    /// A plain element-by-element copy loop from one half of the working set to the other.
    pub copy_gb_per_s: f64,
    /// The C library's memcpy over the same halves, timed in the same run: the yardstick the
    /// other figures are held against.
    #[serde(default)]
    pub memcpy_gb_per_s: Option<f64>,
}

/// Loaded latency: the pointer chase's ns per load while other threads stream reads (what Intel
/// MLC calls loaded latency), against the same chase with nobody streaming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedLatency {
    /// The chase's working set.
    pub bytes: u64,
    /// Each streaming thread's working set.
    pub stream_bytes: u64,
    /// Threads streaming reads while the chase ran (0: idle).
    pub streaming_threads: u32,
    /// Fastest sample's ns per load.
    pub ns_per_load: f64,
    #[serde(default)]
    pub ns_per_load_median: Option<f64>,
}
