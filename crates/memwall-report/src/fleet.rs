//! One row per host for choosing a server: what a buyer compares across many reports. Rows are
//! derived from reports (by `memwall_core::fleet`), never stored in them; this is their shape for
//! `memwall fleet --json` and the page.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::Source;

/// A host's figures, each `None` where its report did not measure it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetRow {
    /// Where the report came from (a file name or URL), to open it again.
    pub report: String,
    pub host: String,
    pub cpu: Option<String>,
    pub vcpus: Option<u32>,
    /// The hypervisor the host names, `none` on bare metal.
    pub hypervisor: Option<String>,
    pub source: Source,
    /// The largest data cache the OS declares, and its level.
    pub declared_llc_bytes: Option<u64>,
    pub declared_llc_level: Option<u8>,
    /// How far the last cache level the ladder found behaves like cache.
    pub effective_llc_bytes: Option<u64>,
    /// That last cache level's latency, ns per load: what a dependent load takes within the fast
    /// working set. Added within schema 1.
    #[serde(default)]
    pub effective_llc_ns: Option<f64>,
    /// The DRAM level: latency on the curve the caches were read from (page-local where
    /// measured), and where it begins.
    pub dram_ns: Option<f64>,
    pub dram_from_bytes: Option<u64>,
    /// A random load on small pages at the largest size measured, and that size.
    pub random_small_pages_ns: Option<f64>,
    pub largest_bytes: Option<u64>,
    /// Share of that load that page walks account for, and share huge pages saved.
    pub page_walk_share: Option<f64>,
    pub huge_page_saving: Option<f64>,
    pub mlp_knee_chains: Option<u32>,
    /// Streaming reads at the largest working set, one thread and the most threads measured.
    pub read_gb_per_s_one_thread: Option<f64>,
    pub read_gb_per_s_all_threads: Option<f64>,
    pub read_threads: Option<u32>,
    /// The GROUP BY race's data (a preset name, or rows and keys) and two kernels' ns per row.
    pub groupby_data: Option<String>,
    pub groupby_tuned_ns_per_row: Option<f64>,
    pub groupby_adaptive_ns_per_row: Option<f64>,
    pub join_data: Option<String>,
    pub join_tuned_ns_per_probe: Option<f64>,
    pub join_adaptive_ns_per_probe: Option<f64>,
    /// The core-to-core tiers in short ("2 CPUs: 1 tier, 48 ns"), where `memwall cores` ran.
    #[serde(default)]
    pub vcpu_topology: Option<String>,
    /// The largest spread of a watched ladder point over a `memwall watch` window.
    #[serde(default)]
    pub stability_spread: Option<f64>,
    /// Steal time's share of that window.
    #[serde(default)]
    pub steal_share: Option<f64>,
    /// The first workload `memwall sensitivity` measured, and its largest slowdown beyond noise.
    #[serde(default)]
    pub sensitivity_workload: Option<String>,
    #[serde(default)]
    pub sensitivity_slowdown: Option<f64>,
    pub created_unix_s: u64,
    pub memwall_version: String,
    /// Figures a user joined onto the row from a CSV of their own (`memwall fleet --prices`,
    /// e.g. `usd_per_hour`), by that CSV's column names; a column a row has no figure for is
    /// absent. Never read from a report.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, f64>,
    /// Set on a row of the cloud shelf (an instance type another tool measured, see
    /// `memwall_core::cloud`), never on a report's row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shelf: Option<ShelfFacts>,
}

/// Who sells a shelf row's instance type and who measured it: a shelf figure is never shown
/// without them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShelfFacts {
    /// `aws`, `azure`, `gcp`, ...
    pub provider: String,
    /// `x86_64` or `aarch64`.
    pub arch: String,
    /// Bare metal, a VM, or not said (see `crate::shelf::ShelfEntry::metal`).
    pub metal: Option<bool>,
    /// The measuring tool, its pattern and the day: "sc-membench 1.2.2, random over 16-byte
    /// nodes on huge pages where granted, 2026-04-04".
    pub measured_by: String,
}

/// The columns, by the names `--sort` and `--filter` take, with what each holds.
pub const FLEET_COLUMNS: &[(&str, &str)] = &[
    ("report", "where the report came from (file name or URL)"),
    ("host", "host name"),
    ("cpu", "CPU model"),
    ("vcpus", "logical CPUs"),
    ("hypervisor", "hypervisor, or none on bare metal"),
    ("source", "native or browser"),
    ("declared_llc", "largest declared data cache, bytes"),
    ("effective_llc", "how far the last cache level behaves like cache, bytes (the fast working set)"),
    ("fast_ns", "that last cache level's latency, ns"),
    ("dram_ns", "DRAM latency, ns (page-local where measured)"),
    ("random_ns", "random load on small pages at the largest size, ns"),
    ("page_walks", "page walks' share of that load"),
    ("huge_saving", "share of it huge pages saved"),
    ("mlp", "memory-level parallelism knee, chases"),
    ("read_1t", "one-thread read GB/s at the largest size"),
    ("read_all", "all-thread read GB/s at the largest size"),
    ("groupby_tuned", "GROUP BY tuned, ns/row"),
    ("groupby_adaptive", "GROUP BY adaptive, ns/row"),
    ("join_tuned", "join tuned, ns/probe"),
    ("join_adaptive", "join adaptive, ns/probe"),
    ("vcpu_topology", "core-to-core latency tiers, in short"),
    ("stability_spread", "largest spread of a watched ladder point over the window"),
    ("steal", "steal time's share of the watch window"),
    ("sensitivity_workload", "the workload memwall sensitivity measured"),
    ("sensitivity_slowdown", "its largest slowdown under cache or DRAM pressure, beyond noise"),
    ("date", "when the report was made"),
    ("version", "memwall version"),
    ("provider", "cloud provider (shelf rows)"),
    ("arch", "x86_64 or aarch64 (shelf rows)"),
    ("measured_by", "the tool, pattern and day a shelf row was measured"),
];

/// Other names `--sort` and `--filter` take for a column: (alias, column).
pub const FLEET_ALIASES: &[(&str, &str)] = &[("fast", "effective_llc"), ("dram", "dram_ns"), ("type", "host")];

/// A column's value in a row, as a number where it is one (for sorting) and as text.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Number(f64),
    Text(String),
    Missing,
}

impl FleetRow {
    /// The value of column `name` (one of [`FLEET_COLUMNS`], else a joined price column), or
    /// `None` for a name that is neither, or a price column this row has no figure for.
    pub fn cell(&self, name: &str) -> Option<Cell> {
        let num = |v: Option<f64>| v.map_or(Cell::Missing, Cell::Number);
        let int = |v: Option<u64>| num(v.map(|v| v as f64));
        let text = |v: Option<&String>| v.map_or(Cell::Missing, |s| Cell::Text(s.clone()));
        Some(match name {
            "report" => Cell::Text(self.report.clone()),
            "host" => Cell::Text(self.host.clone()),
            "cpu" => text(self.cpu.as_ref()),
            "vcpus" => int(self.vcpus.map(u64::from)),
            "hypervisor" => text(self.hypervisor.as_ref()),
            "source" => Cell::Text(format!("{:?}", self.source).to_lowercase()),
            "declared_llc" => int(self.declared_llc_bytes),
            "effective_llc" => int(self.effective_llc_bytes),
            "fast_ns" => num(self.effective_llc_ns),
            "dram_ns" => num(self.dram_ns),
            "random_ns" => num(self.random_small_pages_ns),
            "page_walks" => num(self.page_walk_share),
            "huge_saving" => num(self.huge_page_saving),
            "mlp" => int(self.mlp_knee_chains.map(u64::from)),
            "read_1t" => num(self.read_gb_per_s_one_thread),
            "read_all" => num(self.read_gb_per_s_all_threads),
            "groupby_tuned" => num(self.groupby_tuned_ns_per_row),
            "groupby_adaptive" => num(self.groupby_adaptive_ns_per_row),
            "join_tuned" => num(self.join_tuned_ns_per_probe),
            "join_adaptive" => num(self.join_adaptive_ns_per_probe),
            "vcpu_topology" => text(self.vcpu_topology.as_ref()),
            "stability_spread" => num(self.stability_spread),
            "steal" => num(self.steal_share),
            "sensitivity_workload" => text(self.sensitivity_workload.as_ref()),
            "sensitivity_slowdown" => num(self.sensitivity_slowdown),
            "date" => int(Some(self.created_unix_s)),
            "version" => Cell::Text(self.memwall_version.clone()),
            "provider" => text(self.shelf.as_ref().map(|s| &s.provider)),
            "arch" => text(self.shelf.as_ref().map(|s| &s.arch)),
            "measured_by" => text(self.shelf.as_ref().map(|s| &s.measured_by)),
            _ => return self.prices.get(name).map(|&v| Cell::Number(v)),
        })
    }
}

/// `memwall fleet --json`: the rows, and every report that could not be read with its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fleet {
    pub schema_version: u32,
    pub rows: Vec<FleetRow>,
    #[serde(default)]
    pub unreadable: Vec<Unreadable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unreadable {
    pub report: String,
    pub reason: String,
}

impl FleetRow {
    /// Every field as CSV text, in [`FLEET_CSV_HEADER`]'s order; unknown values are empty.
    pub fn csv_fields(&self) -> Vec<String> {
        fn opt<T: ToString>(v: Option<T>) -> String {
            v.map_or(String::new(), |v| v.to_string())
        }
        vec![
            self.report.clone(),
            self.host.clone(),
            opt(self.cpu.as_ref()),
            opt(self.vcpus),
            opt(self.hypervisor.as_ref()),
            format!("{:?}", self.source).to_lowercase(),
            opt(self.declared_llc_bytes),
            opt(self.declared_llc_level),
            opt(self.effective_llc_bytes),
            opt(self.dram_ns),
            opt(self.dram_from_bytes),
            opt(self.random_small_pages_ns),
            opt(self.largest_bytes),
            opt(self.page_walk_share),
            opt(self.huge_page_saving),
            opt(self.mlp_knee_chains),
            opt(self.read_gb_per_s_one_thread),
            opt(self.read_gb_per_s_all_threads),
            opt(self.read_threads),
            opt(self.groupby_data.as_ref()),
            opt(self.groupby_tuned_ns_per_row),
            opt(self.groupby_adaptive_ns_per_row),
            opt(self.join_data.as_ref()),
            opt(self.join_tuned_ns_per_probe),
            opt(self.join_adaptive_ns_per_probe),
            opt(self.vcpu_topology.as_ref()),
            opt(self.stability_spread),
            opt(self.steal_share),
            opt(self.sensitivity_workload.as_ref()),
            opt(self.sensitivity_slowdown),
            self.created_unix_s.to_string(),
            self.memwall_version.clone(),
            opt(self.effective_llc_ns),
            opt(self.shelf.as_ref().map(|s| &s.provider)),
            opt(self.shelf.as_ref().map(|s| &s.arch)),
            opt(self.shelf.as_ref().and_then(|s| s.metal)),
            opt(self.shelf.as_ref().map(|s| &s.measured_by)),
        ]
    }
}

pub const FLEET_CSV_HEADER: &[&str] = &[
    "report",
    "host",
    "cpu",
    "vcpus",
    "hypervisor",
    "source",
    "declared_llc_bytes",
    "declared_llc_level",
    "effective_llc_bytes",
    "dram_ns",
    "dram_from_bytes",
    "random_small_pages_ns",
    "largest_bytes",
    "page_walk_share",
    "huge_page_saving",
    "mlp_knee_chains",
    "read_gb_per_s_one_thread",
    "read_gb_per_s_all_threads",
    "read_threads",
    "groupby_data",
    "groupby_tuned_ns_per_row",
    "groupby_adaptive_ns_per_row",
    "join_data",
    "join_tuned_ns_per_probe",
    "join_adaptive_ns_per_probe",
    "vcpu_topology",
    "stability_spread",
    "steal_share",
    "sensitivity_workload",
    "sensitivity_slowdown",
    "created_unix_s",
    "memwall_version",
    "effective_llc_ns",
    "provider",
    "arch",
    "metal",
    "measured_by",
];
