//! The shelf as a table, as `memwall cloud` prints it and the Cloud tab draws it: the fleet's
//! table shape ([`TableColumn`]) with the columns that tell instance types apart.

use memwall_report::fleet::FleetRow;

use crate::fleet::table::{TableColumn, utc_date};
use crate::size::format_bytes;

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.digits$}"))
}

fn bytes(v: Option<u64>) -> String {
    v.map_or("-".to_string(), format_bytes)
}

/// "bare metal", the hypervisor a VM names, or "VM?" for a type whose `lscpu` said neither.
pub fn metal_text(row: &FleetRow) -> String {
    match (row.shelf.as_ref().and_then(|s| s.metal), row.hypervisor.as_deref()) {
        (Some(true), _) | (None, Some("none")) => "bare metal".into(),
        (_, Some(h)) => h.to_owned(),
        (_, None) => "VM?".into(),
    }
}

fn shelf_text(row: &FleetRow, field: fn(&memwall_report::fleet::ShelfFacts) -> &String) -> String {
    row.shelf.as_ref().map_or_else(|| "-".into(), |s| field(s).clone())
}

/// The shelf's columns, in order (the type first: the page's table names a row by its first cell).
pub const CLOUD_TABLE: &[TableColumn] = &[
    TableColumn { header: "type", sorts: &[("type", "host")], text: |r| r.host.clone() },
    TableColumn { header: "provider", sorts: &[("provider", "provider")], text: |r| shelf_text(r, |s| &s.provider) },
    TableColumn { header: "cpu", sorts: &[("cpu", "cpu")], text: |r| r.cpu.clone().unwrap_or_else(|| "-".into()) },
    TableColumn { header: "arch", sorts: &[("arch", "arch")], text: |r| shelf_text(r, |s| &s.arch) },
    TableColumn {
        header: "vCPUs",
        sorts: &[("vCPUs", "vcpus")],
        text: |r| r.vcpus.map_or("-".into(), |v| v.to_string()),
    },
    TableColumn { header: "metal", sorts: &[("metal", "hypervisor")], text: metal_text },
    TableColumn {
        header: "LLC declared / fast",
        sorts: &[("declared", "declared_llc"), ("fast", "effective_llc")],
        text: |r| format!("{} / {}", bytes(r.declared_llc_bytes), bytes(r.effective_llc_bytes)),
    },
    TableColumn { header: "fast ns", sorts: &[("fast ns", "fast_ns")], text: |r| num(r.effective_llc_ns, 1) },
    TableColumn { header: "DRAM ns", sorts: &[("DRAM ns", "dram_ns")], text: |r| num(r.dram_ns, 0) },
    TableColumn {
        header: "read GB/s all",
        sorts: &[("read GB/s all", "read_all")],
        text: |r| match (r.read_gb_per_s_all_threads, r.read_threads) {
            (Some(gb), Some(t)) => format!("{gb:.0} ({t}T)"),
            _ => "-".into(),
        },
    },
    TableColumn { header: "measured", sorts: &[("measured", "date")], text: |r| utc_date(r.created_unix_s) },
];

/// What the shelf's figures mean, printed under its table.
pub const CLOUD_NOTE: &str = "fast: how far the last cache level behaves like cache, and fast ns its latency; DRAM ns: \
     the curve's last level; both read by memwall from each type's curve as measured by sc-membench (a random chase \
     over 16-byte nodes, on huge pages where granted) on the day shown; read GB/s: every thread streaming at the \
     largest size";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cloud_sort_is_a_fleet_column() {
        for column in CLOUD_TABLE {
            for (_, name) in column.sorts {
                let known = memwall_report::fleet::FLEET_COLUMNS.iter().any(|(c, _)| c == name);
                assert!(known, "{}: {name}", column.header);
            }
        }
    }
}
