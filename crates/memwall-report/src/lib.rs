//! The report format that every memwall front end writes and reads.
//!
//! One set of types serves the native CLI (which writes `memwall-report.json`), the browser
//! (which saves its own runs with `source: "browser"`) and the viewer (which overlays reports
//! from several hosts). Field names carry their units, numbers stay raw numbers, and every
//! report carries [`SCHEMA_VERSION`] so a reader can refuse what it does not understand instead
//! of misreading it. Unknown *fields* are ignored, so later versions may add fields freely
//! without bumping the version; renaming or changing the meaning of a field bumps it.

use serde::{Deserialize, Serialize};

mod bandwidth;
mod check;
mod cores;
mod csv;
mod engines;
pub use check::{Implausible, MAX_ITEMS, MAX_REPORT_BYTES, Untrusted, check_size, too_large_stopped};
mod explain;
pub mod fleet;
mod groupby;
mod host;
pub mod index;
mod join;
mod ladder;
mod sensitivity;
pub mod shelf;
mod watch;
pub use bandwidth::{Bandwidth, BandwidthPoint, LoadedLatency};
pub use cores::{CorePair, CoreTier, Cores, DeclaredTopology};
pub use csv::{
    GROUPBY_CSV_HEADER, JOIN_CSV_HEADER, LADDER_CSV_HEADER, fleet_csv, groupby_csv, join_csv, ladder_csv, reports_csv,
};
pub use engines::{ADAPTIVE, EngineSweep, EngineSweepPoint, FIRST_WITHIN, MEMWALL_PREFIX, Standing};
pub use explain::{Cause, ChainsPoint, ClockCheck, ClockEstimate, Curve, Level, Parallelism};

pub use groupby::{
    AdaptiveChoice, BestPartitions, CostModel, Counters, Crossover, Dataset, Generator, GroupBy, GroupByRun, Input,
    KeyCount, PhaseTime, Query, Sweep, SweepPoint, Totals,
};
pub use host::{Cache, Host};
pub use join::{BuildSizeCrossover, BuildSizeFastest, Join, JoinDataset, JoinRun, JoinSweep, JoinSweepPoint};
pub use ladder::{Ladder, LadderPoint, Step, Summary, quantile};
pub use sensitivity::{PressureLevel, Sensitivity, SensitivityReading, ServerProbe};
pub use watch::{PointStability, Stability, Watch, WatchPoint, WatchSample};

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
    /// Core-to-core latencies (`memwall cores`). Added within schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<Cores>,
    /// Ladder points and steal time over a window (`memwall watch`). Added within schema 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<Watch>,
    /// Workloads' wall time under growing cache pressure (`memwall sensitivity`), one per
    /// workload. Added within schema 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensitivity: Vec<Sensitivity>,
    /// GROUP BY and join against SQL engines by cardinality (`bench/sweep.py`). Added within
    /// schema 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_sweeps: Vec<EngineSweep>,
    /// A short reading for someone choosing a server, each sentence backed by a figure above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<String>,
    /// Why the timings may describe something else than the hardware (instructions that look
    /// emulated); empty when nothing looked wrong. Added within schema 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timing_warnings: Vec<String>,
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
            cores: None,
            watch: None,
            sensitivity: Vec::new(),
            engine_sweeps: Vec::new(),
            advice: Vec::new(),
            timing_warnings: Vec::new(),
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
