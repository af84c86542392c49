//! `reports/index.json`: the reports `memwall serve` offers, in the one shape the server writes
//! and the page reads.
//!
//! The index is built on every request (a report written into a `--reports` folder while the
//! server runs is listed on the next reload), so it carries only what a listing needs; the page
//! fetches each report from its `url` and checks it like any other report. Fields after `url`
//! are optional: an index from an older `memwall serve` lacks them and still parses, and a
//! reader that does not know a later field ignores it (serde's default), as with reports.
//!
//! An index may also carry each report's fleet row (or why the report could not be read): a
//! fleet view then draws a thousand hosts from one small file instead of fetching a thousand
//! reports of ~100 KB each, and fetches a report only when its row is opened. `memwall serve`
//! answers [`FLEET_PATH`] that way; `memwall fleet --index FILE` writes one for a static host.

use serde::{Deserialize, Serialize};

use crate::fleet::FleetRow;

/// Where the index is, relative to the page (so that the page works under any path).
pub const INDEX_PATH: &str = "reports/index.json";
/// The same index with every report's fleet row, relative to the page.
pub const FLEET_PATH: &str = "reports/fleet.json";

/// Every report the server offers, in the order it lists them: the `--report` files as given,
/// then each `--reports` folder's files by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportsIndex {
    pub reports: Vec<IndexedReport>,
}

/// One report in the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedReport {
    /// The file name, as the page shows where a report came from.
    pub name: String,
    /// Where to fetch it, relative to the page, e.g. `reports/0/memwall-report.json`.
    pub url: String,
    /// Its size when listed; the page can skip what is past [`crate::check::MAX_REPORT_BYTES`] unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Its last modification (Unix seconds) when listed, so a fleet view can sort by freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_unix_s: Option<u64>,
    /// The report's fleet row, read by `memwall_core::fleet::row` when the index was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<FleetRow>,
    /// Why the report could not be read into a row, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl ReportsIndex {
    pub fn to_json(&self) -> String {
        // Strings, integers and finite figures (reports with others are refused): serializing
        // cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| r#"{"reports":[]}"#.to_string())
    }

    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_round_trips_and_reads_the_older_shape() {
        let index = ReportsIndex {
            reports: vec![
                IndexedReport {
                    name: "a b.json".into(),
                    url: "reports/0/a%20b.json".into(),
                    bytes: Some(1234),
                    modified_unix_s: Some(1_700_000_000),
                    row: None,
                    unreadable: None,
                },
                IndexedReport {
                    name: "c.json".into(),
                    url: "reports/dir/0/c.json".into(),
                    bytes: None,
                    modified_unix_s: None,
                    row: None,
                    unreadable: Some("not JSON".into()),
                },
            ],
        };
        let json = index.to_json();
        assert!(!json.contains("null"), "absent fields are left out: {json}");
        assert_eq!(ReportsIndex::from_json(&json).unwrap(), index);
        // What `memwall serve` wrote before the index had sizes and times.
        let older = ReportsIndex::from_json(r#"{"reports":[{"name":"r.json","url":"reports/0/r.json"}]}"#).unwrap();
        assert_eq!(older.reports[0].url, "reports/0/r.json");
        assert_eq!(older.reports[0].bytes, None);
        assert!(ReportsIndex::from_json(r#"{"reports":[{"name":"r.json"}]}"#).is_err(), "a url is required");
    }

    #[test]
    fn an_index_with_rows_round_trips_them() {
        let row = FleetRow {
            report: "a.json".into(),
            host: "db-7".into(),
            cpu: Some("AMD EPYC".into()),
            vcpus: Some(2),
            hypervisor: Some("KVM".into()),
            source: crate::report::Source::Native,
            declared_llc_bytes: Some(32 << 20),
            declared_llc_level: Some(3),
            effective_llc_bytes: Some(2 << 20),
            effective_llc_ns: Some(13.4),
            dram_ns: Some(101.9),
            dram_from_bytes: Some(3 << 20),
            random_small_pages_ns: Some(259.0),
            largest_bytes: Some(1 << 30),
            page_walk_share: Some(0.63),
            huge_page_saving: None,
            mlp_knee_chains: Some(16),
            read_gb_per_s_one_thread: Some(18.4),
            read_gb_per_s_all_threads: None,
            read_threads: None,
            groupby_data: Some("small".into()),
            groupby_tuned_ns_per_row: Some(12.7),
            groupby_adaptive_ns_per_row: Some(13.0),
            join_data: None,
            join_tuned_ns_per_probe: None,
            join_adaptive_ns_per_probe: None,
            vcpu_topology: None,
            stability_spread: None,
            steal_share: None,
            sensitivity_workload: None,
            sensitivity_slowdown: None,
            created_unix_s: 1_796_256_000,
            memwall_version: "0.1.0".into(),
            prices: Default::default(),
            shelf: None,
        };
        let entry = |name: &str| IndexedReport {
            name: name.into(),
            url: format!("reports/dir/0/{name}"),
            bytes: Some(100_000),
            modified_unix_s: None,
            row: None,
            unreadable: None,
        };
        let index = ReportsIndex {
            reports: vec![
                IndexedReport { row: Some(row), ..entry("a.json") },
                IndexedReport { unreadable: Some("not JSON: expected value at line 1".into()), ..entry("b.json") },
            ],
        };
        assert_eq!(ReportsIndex::from_json(&index.to_json()).unwrap(), index);
    }
}
