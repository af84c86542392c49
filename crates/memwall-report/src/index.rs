//! `reports/index.json`: the reports `memwall serve` offers, in the one shape the server writes
//! and the page reads.
//!
//! The index is built on every request (a report written into a `--reports` folder while the
//! server runs is listed on the next reload), so it carries only what a listing needs; the page
//! fetches each report from its `url` and checks it like any other report. Fields after `url`
//! are optional: an index from an older `memwall serve` lacks them and still parses, and a
//! reader that does not know a later field ignores it (serde's default), as with reports.

use serde::{Deserialize, Serialize};

/// Where the index is, relative to the page (so that the page works under any path).
pub const INDEX_PATH: &str = "reports/index.json";

/// Every report the server offers, in the order it lists them: the `--report` files as given,
/// then each `--reports` folder's files by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportsIndex {
    pub reports: Vec<IndexedReport>,
}

/// One report in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedReport {
    /// The file name, as the page shows where a report came from.
    pub name: String,
    /// Where to fetch it, relative to the page, e.g. `reports/0/memwall-report.json`.
    pub url: String,
    /// Its size when listed; the page can skip what is past [`crate::MAX_REPORT_BYTES`] unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Its last modification (Unix seconds) when listed, so a fleet view can sort by freshness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_unix_s: Option<u64>,
}

impl ReportsIndex {
    pub fn to_json(&self) -> String {
        // Plain strings and integers: serializing cannot fail.
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
                },
                IndexedReport {
                    name: "c.json".into(),
                    url: "reports/dir/0/c.json".into(),
                    bytes: None,
                    modified_unix_s: None,
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
}
