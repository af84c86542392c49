//! `memwall sensitivity`: a command's wall time while a neighbour on another CPU holds growing
//! shares of the last-level cache, then streams DRAM (the "bubble" of Mars et al., Bubble-Up,
//! MICRO 2011).

use serde::{Deserialize, Serialize};

use crate::groupby::Counters;
use crate::ladder::Summary;

/// One workload's curve. Added within schema 1: absent in older reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sensitivity {
    /// The command and its arguments, as run (a server's, when `server_probe` is there).
    pub command: Vec<String>,
    /// Server mode (`memwall sensitivity --for W --probe PROBE -- SERVER...`): the command ran
    /// once, as a server, and the probe was timed against it for a window per level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_probe: Option<ServerProbe>,
    /// A short name for the workload (the fleet's column): `--name`, or the command's file name.
    pub workload: String,
    pub workload_cpu: u32,
    pub pressure_cpu: u32,
    pub runs_per_level: u32,
    /// The last-level cache the pressure levels are shares of, and where that size came from.
    pub llc_bytes: u64,
    pub llc_source: String,
    /// No pressure first, then each share of the LLC, then the DRAM stream.
    pub levels: Vec<PressureLevel>,
    /// The reading (derived: read again by `memwall explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<SensitivityReading>,
}

/// How a server was probed: each level's `samples_seconds` are then the probe's mean wall time
/// per run over each of `runs_per_level` windows, and there is no CPU time or counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerProbe {
    /// The probe's shell command line (`sh -c`), one unit of work per run.
    pub probe: String,
    /// How long it was run at each level (`--for`).
    pub window_seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PressureLevel {
    /// "none", "1/4 LLC", "1/2 LLC", "1x LLC", "2x LLC", "DRAM stream".
    pub name: String,
    /// The pressure thread's buffer (0: no pressure thread).
    pub pressure_bytes: u64,
    /// Wall time of each run, in order.
    pub samples_seconds: Vec<f64>,
    pub seconds: Summary,
    /// The command's own CPU time (user + system, its children included) of each run, and their
    /// summary, where the OS reports it: unlike wall time it does not count waiting for a CPU
    /// that other processes hold, which on a shared host can dwarf what the pressure does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_cpu_seconds: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<Summary>,
    /// Passes the pressure thread made over its buffer during this level's runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure_passes: Option<u64>,
    /// The workload's own counters over this level's runs (children included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
}

impl PressureLevel {
    /// A level of wall times alone (no CPU times, passes or counters); `None` without a run.
    pub fn timed(name: impl Into<String>, pressure_bytes: u64, samples_seconds: Vec<f64>) -> Option<Self> {
        Some(Self {
            name: name.into(),
            pressure_bytes,
            seconds: Summary::of(&samples_seconds)?,
            samples_seconds,
            samples_cpu_seconds: Vec::new(),
            cpu_seconds: None,
            pressure_passes: None,
            counters: None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitivityReading {
    /// What the slowdowns are of: "cpu" (the command's CPU time, when every level has it) or
    /// "wall" (wall time).
    #[serde(default = "wall")]
    pub basis: String,
    /// (max - min) / median of the no-pressure runs (on `basis`): what counts as noise.
    pub noise: f64,
    /// Per level (same order as `levels`, "none" first at 0): median over the no-pressure
    /// median, minus 1.
    pub slowdowns: Vec<f64>,
    /// Per level: whether its runs all ran slower than every no-pressure run did and its
    /// median slowdown exceeds `noise`.
    pub beyond_noise: Vec<bool>,
    /// "flat", "cache-sensitive" or "bandwidth-sensitive".
    pub class: String,
    /// The largest slowdown beyond noise (0 when none).
    pub worst_slowdown: f64,
    pub verdict: String,
}

fn wall() -> String {
    "wall".into()
}
