//! The latency ladder: its points (with the samples' summary), steps and curves.

use serde::{Deserialize, Serialize};

use crate::explain::ClockCheck;
use crate::explain::ClockEstimate;
use crate::explain::Level;
use crate::explain::Parallelism;

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
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
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

impl Ladder {
    /// A `pattern` ladder on `huge_pages` of `points`, its lines `line_bytes` apart, from
    /// generator `seed`, samples aimed at `target_sample_ns`: not pinned, no clock, nothing read
    /// from its points yet, no other curve.
    pub fn new(
        pattern: impl Into<String>,
        huge_pages: impl Into<String>,
        line_bytes: u32,
        seed: u64,
        target_sample_ns: f64,
        points: Vec<LadderPoint>,
    ) -> Self {
        Self {
            pattern: pattern.into(),
            huge_pages: huge_pages.into(),
            pinned_cpu: None,
            line_bytes,
            seed,
            ghz: None,
            cycles_unavailable: None,
            target_sample_ns,
            timer_resolution_ns: None,
            duration_s: None,
            points,
            steps: Vec::new(),
            clock: None,
            clock_check: None,
            levels: Vec::new(),
            verdict: Vec::new(),
            parallelism: None,
            curves: Vec::new(),
        }
    }
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
    /// Where the size was measured at several moments of one run (the sizes around the last
    /// cache's end, which a guest shares with its neighbours): each moment's fastest sample, in
    /// the order measured. The point itself is the typical moment's reading (see
    /// `memwall_core::explain::revisit`). Empty where the size was measured at one moment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visits_ns_per_load: Vec<f64>,
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

/// A further curve of the ladder: another pattern, page size or number of chases. The ladder's
/// own `pattern`, `huge_pages` and `points` are the main curve; `curves` holds the others.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// "random", "page-local", "page-stride" or "sequential".
    pub pattern: String,
    /// "off", "thp", "on" or "default".
    pub huge_pages: String,
    /// Independent chases interleaved (1: pure latency).
    pub chains: u32,
    pub points: Vec<LadderPoint>,
}
