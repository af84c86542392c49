//! `memwall watch`: a few ladder points and the hypervisor's steal time, measured again and again
//! over a window, and how stable they stayed.

use serde::{Deserialize, Serialize};

/// The timeline and its reading. Added within schema 1: absent in older reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Watch {
    /// The interval asked for, and the window asked for.
    pub every_s: f64,
    pub window_s: f64,
    /// The working sets watched, each named by the level it sits in.
    pub points: Vec<WatchPoint>,
    /// One entry per interval, in order.
    pub samples: Vec<WatchSample>,
    /// Why steal time could not be read, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_unavailable: Option<String>,
    /// True when the window ended early (Ctrl-C).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The reading of the timeline (derived: read again by `memwall explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
}

impl Watch {
    /// A watch of `points` every `every_s` for `window_s`, its intervals `samples`: not
    /// interrupted, steal time read, nothing read from it yet.
    pub fn new(every_s: f64, window_s: f64, points: Vec<WatchPoint>, samples: Vec<WatchSample>) -> Self {
        Self { every_s, window_s, points, samples, steal_unavailable: None, interrupted: false, stability: None }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchPoint {
    /// "L2", "L3", "DRAM": the level of the ladder this working set was chosen inside.
    pub level: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchSample {
    /// Seconds since the watch began, at the start of the interval's measurement.
    pub at_s: f64,
    /// Per watched point (same order as `points`): the median of the interval's samples, and
    /// their (median - min) / min. `None` where the point could not be measured.
    pub ns_per_load: Vec<Option<f64>>,
    #[serde(default)]
    pub noise: Vec<Option<f64>>,
    /// `steal` and all jiffies (user to steal) that /proc/stat's `cpu` line advanced by over
    /// the interval; absent where /proc/stat could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_jiffies: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_jiffies: Option<u64>,
}

/// How stable the host was over the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    pub points: Vec<PointStability>,
    /// The largest `spread` of any point: the fleet's `stability_spread`.
    pub spread: f64,
    /// The minute (from `worst_minute_from_s`) whose points ran slowest against their window
    /// medians, and by how much (0.12: 12% slower on average).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_minute_from_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_minute_slowdown: Option<f64>,
    /// Steal jiffies over all jiffies in the whole window, where /proc/stat was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_minute_steal_share: Option<f64>,
    /// Intervals in which some point ran disturbed, of all intervals.
    pub disturbed_intervals: u32,
    pub intervals: u32,
    /// "steady", "one bad minute", "unsteady" or "too short".
    pub class: String,
    /// The plain-words reading.
    pub verdict: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointStability {
    pub level: String,
    pub bytes: u64,
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
    /// (max - min) / median of the interval medians.
    pub spread: f64,
    /// The median within-interval noise, (median - min) / min of one interval's samples.
    pub noise: f64,
}
