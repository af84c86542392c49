//! The report itself: its version, who wrote it and where, its sections, reading it back.

use serde::{Deserialize, Serialize};

use crate::bandwidth::Bandwidth;
use crate::cores::Cores;
use crate::engines::EngineSweep;
use crate::groupby::GroupBy;
use crate::host::Host;
use crate::join::Join;
use crate::ladder::Ladder;
use crate::sensitivity::Sensitivity;
use crate::watch::Watch;

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
