//! What the cost model knows of a host: the ladder's plateaus, DRAM, the parallelism knee, read
//! bandwidth and the clock, with the fit host's figures standing in, named, where one is missing.

use memwall_report::{Bandwidth, Cause, Ladder, Level};

use crate::size::format_bytes;

/// The hosts the fixed costs were fitted on, and what stands in where another host's ladder
/// lacks a figure they measured: the mean of theirs (a test holds it to the kept data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitHost {
    pub cpu: &'static str,
    pub ghz: f64,
    pub knee: f64,
    pub read_gb_per_s: f64,
}

/// See `docs/results/cost-fit-emr-2vcpu-kvm.md` for the data of the three hosts, the commands
/// and the fit.
pub const FIT_HOST: FitHost = FitHost {
    cpu: "an AMD EPYC and two Intel Xeon 2-vCPU KVM guests (dev VMs)",
    ghz: 3.49,
    knee: 26.7,
    read_gb_per_s: 17.1,
};

/// What the model knows of a host: the ladder's plateaus and what else was measured, with the
/// inputs it used and lacked, for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// The figures themselves (see [`Host`]).
    pub host: Host,
    /// The ladder's measurements used, one a line.
    pub inputs: Vec<String>,
    /// The inputs it lacked, each with what stood in.
    pub missing: Vec<String>,
}

/// The most cache plateaus a [`Host`] keeps, smallest first (a ladder reads L1, L2, L3 and at
/// most a slower part of each).
const MOST_PLATEAUS: usize = 8;

/// The figures the model prices with, as plain numbers: small enough to travel with a
/// kernel's configuration (`GroupByConfig::host`), so that adaptive asks the model while it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Host {
    /// Every plateau before DRAM, `(bytes it held, ns a random load)`, by size; the first
    /// `plateaus` are set.
    caches: [(u64, f64); MOST_PLATEAUS],
    plateaus: usize,
    dram_ns: f64,
    /// Misses one core keeps in flight (the ladder's parallelism knee).
    knee: f64,
    /// One thread's read bandwidth, bytes per ns (= GB/s).
    read_bytes_per_ns: f64,
    ghz: f64,
}

/// What else a host's reports hold beside the ladder's levels, where they hold it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Measured {
    /// The ladder's memory-level-parallelism knee, chases in flight; where its curve had no
    /// knee (more chases still paid at the most it ran), that most, a lower bound.
    pub knee_chains: Option<u32>,
    /// One thread's sequential read bandwidth, GB/s.
    pub read_gb_per_s: Option<f64>,
    /// The core clock the ladder read.
    pub ghz: Option<f64>,
}

impl Measured {
    /// What a ladder and a bandwidth run measured: the knee, the clock, and one thread's read
    /// bandwidth from the largest buffer it read (past every cache).
    pub fn of(ladder: Option<&Ladder>, bandwidth: Option<&Bandwidth>) -> Self {
        let read = bandwidth
            .and_then(|b| b.points.iter().filter(|p| p.threads == 1).max_by_key(|p| p.bytes).map(|p| p.read_gb_per_s));
        Self {
            knee_chains: ladder.and_then(|l| {
                let curve = l.parallelism.as_ref()?;
                curve.knee_chains.or_else(|| curve.points.iter().map(|p| p.chains).max())
            }),
            read_gb_per_s: read,
            ghz: ladder.and_then(|l| l.clock.as_ref().filter(|c| c.stable).map(|c| c.ghz).or(l.ghz)),
        }
    }
}

impl Machine {
    /// The model's view of a host whose ladder read `levels`. `None` when no level was read.
    pub fn from_ladder(levels: &[Level], measured: Measured) -> Option<Self> {
        let mut caches: Vec<(u64, f64)> =
            levels.iter().filter(|l| l.cause != Cause::Dram).map(|l| (l.size_bytes, l.ns_per_load)).collect();
        caches.sort_by_key(|&(bytes, _)| bytes);
        let slowest = caches.iter().map(|&(_, ns)| ns).fold(f64::NAN, f64::max);
        let dram = levels.iter().filter(|l| l.cause == Cause::Dram).min_by_key(|l| l.size_bytes);
        if caches.is_empty() && dram.is_none() {
            return None;
        }
        let mut inputs: Vec<String> = levels
            .iter()
            .map(|l| format!("{} {} at {:.1} ns", l.name, format_bytes(l.size_bytes), l.ns_per_load))
            .collect();
        let mut missing = Vec::new();
        let dram_ns = match dram {
            Some(level) => level.ns_per_load,
            None => {
                missing.push(format!(
                    "DRAM latency (the ladder stopped before DRAM): its slowest level's {slowest:.1} ns stands in"
                ));
                slowest
            }
        };
        let fit = FIT_HOST;
        let mut or_fit = |value: Option<f64>, what: &str, fallback: f64, unit: &str| match value {
            Some(v) if v.is_finite() && v > 0.0 => {
                inputs.push(format!("{what} {v:.1}{unit}"));
                v
            }
            _ => {
                missing.push(format!("{what} (not measured): the fit host's {fallback:.1}{unit} stands in"));
                fallback
            }
        };
        let knee = or_fit(measured.knee_chains.map(f64::from), "parallelism knee", fit.knee, " misses in flight");
        let read = or_fit(measured.read_gb_per_s, "read bandwidth", fit.read_gb_per_s, " GB/s");
        let ghz = or_fit(measured.ghz, "core clock", fit.ghz, " GHz");
        let mut plateaus = [(0, 0.0); MOST_PLATEAUS];
        // The largest plateaus where a ladder read more: a smaller one left out prices its loads
        // at the next one's latency, the safe side.
        let kept = &caches[caches.len().saturating_sub(MOST_PLATEAUS)..];
        plateaus[..kept.len()].copy_from_slice(kept);
        let host = Host { caches: plateaus, plateaus: kept.len(), dram_ns, knee, read_bytes_per_ns: read, ghz };
        Some(Self { host, inputs, missing })
    }
}

/// The model prices with the figures; the inputs and what was missing are for people.
impl core::ops::Deref for Machine {
    type Target = Host;

    fn deref(&self) -> &Host {
        &self.host
    }
}

impl Host {
    /// The expected ns of a random load into `bytes` of working set: each plateau's latency for
    /// the share of loads that hit there first, the working set spread evenly over its bytes.
    pub fn latency_ns(&self, bytes: u64) -> f64 {
        let bytes = bytes.max(1) as f64;
        let (mut ns, mut held) = (0.0, 0.0);
        for &(size, level_ns) in &self.caches[..self.plateaus] {
            let share = (size as f64 / bytes).min(1.0);
            ns += (share - held) * level_ns;
            held = share;
        }
        ns + (1.0 - held) * self.dram_ns
    }

    pub fn dram_ns(&self) -> f64 {
        self.dram_ns
    }

    pub fn knee(&self) -> f64 {
        self.knee
    }

    pub fn read_bytes_per_ns(&self) -> f64 {
        self.read_bytes_per_ns
    }

    pub fn ghz(&self) -> f64 {
        self.ghz
    }
}
