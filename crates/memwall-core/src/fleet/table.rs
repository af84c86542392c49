//! The fleet as a table a buyer reads: the columns `memwall fleet` prints and the page's Fleet
//! tab draws, with the text of each cell, so both show the same table. CSV and JSON carry every
//! field instead (`memwall_report::fleet_csv`).

use memwall_report::fleet::FleetRow;

use super::report_stem;
use crate::size::format_bytes;

/// One column of the table.
#[derive(Debug, Clone, Copy)]
pub struct TableColumn {
    /// The header, as `memwall fleet` prints it.
    pub header: &'static str,
    /// What the cell shows, by (label, column of [`memwall_report::fleet::FLEET_COLUMNS`]): one
    /// for most columns, two where a cell shows two figures (declared / cache-like). The page
    /// sorts by these.
    pub sorts: &'static [(&'static str, &'static str)],
    /// The cell's text; `-` where the report did not measure it.
    pub text: fn(&FleetRow) -> String,
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.digits$}"))
}

fn share(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0))
}

fn bytes(v: Option<u64>) -> String {
    v.map_or("-".to_string(), format_bytes)
}

fn pair(a: String, b: String) -> String {
    format!("{a} / {b}")
}

/// Bare metal is what a buyer compares VMs against: named so, not as the report's `none`.
pub fn hypervisor_text(row: &FleetRow) -> String {
    match row.hypervisor.as_deref() {
        Some("none") => "bare metal".into(),
        Some(h) => h.to_owned(),
        None => "-".into(),
    }
}

/// Whether the host is a virtual machine: `None` where its report does not say.
pub fn is_vm(row: &FleetRow) -> Option<bool> {
    row.hypervisor.as_deref().map(|h| h != "none")
}

/// The text of a price column joined onto the row, `-` where it has no figure.
pub fn price_text(row: &FleetRow, column: &str) -> String {
    row.prices.get(column).map_or("-".into(), f64::to_string)
}

/// The table's columns, in order; the price columns joined (if any) follow them.
pub const TABLE: &[TableColumn] = &[
    TableColumn { header: "report", sorts: &[("report", "report")], text: |r| report_stem(&r.report).to_owned() },
    TableColumn { header: "host", sorts: &[("host", "host")], text: |r| r.host.clone() },
    TableColumn { header: "cpu", sorts: &[("cpu", "cpu")], text: |r| r.cpu.clone().unwrap_or_else(|| "-".into()) },
    TableColumn {
        header: "vCPUs",
        sorts: &[("vCPUs", "vcpus")],
        text: |r| r.vcpus.map_or("-".into(), |v| v.to_string()),
    },
    TableColumn { header: "hypervisor", sorts: &[("hypervisor", "hypervisor")], text: hypervisor_text },
    TableColumn {
        header: "LLC declared / cache-like",
        sorts: &[("declared", "declared_llc"), ("cache-like", "effective_llc")],
        text: |r| pair(bytes(r.declared_llc_bytes), bytes(r.effective_llc_bytes)),
    },
    TableColumn { header: "DRAM ns", sorts: &[("DRAM ns", "dram_ns")], text: |r| num(r.dram_ns, 0) },
    TableColumn {
        header: "random 4K ns",
        sorts: &[("random 4K ns", "random_ns")],
        text: |r| match (r.random_small_pages_ns, r.largest_bytes) {
            (Some(ns), Some(at)) => format!("{ns:.0} @ {}", format_bytes(at)),
            _ => "-".into(),
        },
    },
    TableColumn { header: "page walks", sorts: &[("page walks", "page_walks")], text: |r| share(r.page_walk_share) },
    TableColumn { header: "THP saves", sorts: &[("THP saves", "huge_saving")], text: |r| share(r.huge_page_saving) },
    TableColumn {
        header: "MLP",
        sorts: &[("MLP", "mlp")],
        text: |r| r.mlp_knee_chains.map_or("-".into(), |k| k.to_string()),
    },
    TableColumn {
        header: "read GB/s 1T / all",
        sorts: &[("1T", "read_1t"), ("all", "read_all")],
        text: |r| pair(num(r.read_gb_per_s_one_thread, 1), num(r.read_gb_per_s_all_threads, 1)),
    },
    TableColumn {
        header: "GROUP BY ns/row tuned / adaptive",
        sorts: &[("tuned", "groupby_tuned"), ("adaptive", "groupby_adaptive")],
        text: |r| pair(num(r.groupby_tuned_ns_per_row, 1), num(r.groupby_adaptive_ns_per_row, 1)),
    },
    TableColumn {
        header: "join ns/probe tuned / adaptive",
        sorts: &[("tuned", "join_tuned"), ("adaptive", "join_adaptive")],
        text: |r| pair(num(r.join_tuned_ns_per_probe, 1), num(r.join_adaptive_ns_per_probe, 1)),
    },
    TableColumn { header: "date", sorts: &[("date", "date")], text: |r| utc_date(r.created_unix_s) },
    TableColumn { header: "version", sorts: &[("version", "version")], text: |r| r.memwall_version.clone() },
];

/// What the table's figures mean, printed under it.
pub const TABLE_NOTE: &str = "DRAM ns: the DRAM level on the curve the caches were read from (page-local where \
     measured); random 4K: a random load on small pages at the largest size measured; page walks: its share spent \
     walking page tables; GROUP BY and join: one thread, on the data each report names (see --csv)";

/// `YYYY-MM-DD` (UTC) of a Unix time: the proleptic Gregorian calendar from days since
/// 1970-01-01 (Howard Hinnant's `civil_from_days`), so the core needs no date library.
pub fn utc_date(unix_s: u64) -> String {
    let days = (unix_s / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_report::fleet::FLEET_COLUMNS;

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(utc_date(1_796_256_000 - 1), "2026-12-02");
        assert_eq!(utc_date(4_107_542_400), "2100-03-01");
    }

    #[test]
    fn every_sort_is_a_fleet_column() {
        // (the cloud table's columns are checked beside it, in cloud/table.rs)
        for column in TABLE {
            for (_, name) in column.sorts {
                assert!(FLEET_COLUMNS.iter().any(|(c, _)| c == name), "{}: {name}", column.header);
            }
        }
    }
}
