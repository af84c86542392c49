//! A report turned into the row a buyer compares hosts by. Every figure comes from the report,
//! read again by the current rules first (as `memwall explain` and the page read it), so reports
//! from older versions line up with new ones. A user's own figures (prices) are joined onto the
//! rows by [`prices`].

pub mod prices;
pub mod table;

use memwall_report::fleet::{Cell, FLEET_ALIASES, FLEET_COLUMNS, FleetRow};
use memwall_report::{Cause, GroupBy, Join, Level, Report};

use crate::explain;

/// The row for `report`, which came from `name`.
pub fn row(mut report: Report, name: &str) -> FleetRow {
    explain::reread(&mut report);
    let host = &report.host;
    let declared = explain::data_caches(&host.caches).last().map(|c| (c.size_bytes, c.level));
    let levels = report.ladder.as_ref().map_or(&[][..], |l| &l.levels[..]);
    let dram = levels.iter().find(|l| l.cause == Cause::Dram);
    let last_cache = last_cache_level(levels);
    let costs = report.ladder.as_ref().and_then(explain::page_costs);
    let reads = report.bandwidth.as_ref().map(|b| &b.points[..]).unwrap_or_default();
    let largest_read = reads.iter().map(|p| p.bytes).max();
    let read_at = |threads: u32| {
        reads.iter().filter(|p| Some(p.bytes) == largest_read && p.threads == threads).map(|p| p.read_gb_per_s).next()
    };
    let most_threads = reads.iter().filter(|p| Some(p.bytes) == largest_read).map(|p| p.threads).max();
    let stability = report.watch.as_ref().and_then(|w| w.stability.as_ref());
    FleetRow {
        report: name.to_owned(),
        host: host.name.clone().unwrap_or_else(|| "unnamed host".into()),
        cpu: host.cpu_model.clone(),
        vcpus: host.logical_cpus,
        hypervisor: host.hypervisor.clone(),
        source: report.source,
        declared_llc_bytes: declared.map(|(bytes, _)| bytes),
        declared_llc_level: declared.map(|(_, level)| level),
        effective_llc_bytes: last_cache.map(|l| l.size_bytes),
        effective_llc_ns: last_cache.map(|l| l.ns_per_load),
        dram_ns: dram.map(|d| d.ns_per_load),
        dram_from_bytes: dram.map(|d| d.size_bytes),
        random_small_pages_ns: costs.map(|c| c.random_small_ns),
        largest_bytes: costs.map(|c| c.bytes),
        page_walk_share: costs.and_then(|c| c.page_walk_share()),
        huge_page_saving: costs.and_then(|c| c.huge_page_saving()),
        mlp_knee_chains: report.ladder.as_ref().and_then(|l| l.parallelism.as_ref()).and_then(|p| p.knee_chains),
        read_gb_per_s_one_thread: read_at(1),
        read_gb_per_s_all_threads: most_threads.filter(|&t| t > 1).and_then(read_at),
        read_threads: most_threads,
        groupby_data: report.groupby.as_ref().map(groupby_data),
        groupby_tuned_ns_per_row: report.groupby.as_ref().and_then(|g| groupby_ns(g, "tuned")),
        groupby_adaptive_ns_per_row: report.groupby.as_ref().and_then(|g| groupby_ns(g, "adaptive")),
        join_data: report.join.as_ref().map(join_data),
        join_tuned_ns_per_probe: report.join.as_ref().and_then(|j| join_ns(j, "tuned")),
        join_adaptive_ns_per_probe: report.join.as_ref().and_then(|j| join_ns(j, "adaptive")),
        vcpu_topology: report.cores.as_ref().map(crate::cores::short),
        stability_spread: stability.map(|s| s.spread),
        steal_share: stability.and_then(|s| s.steal_share),
        sensitivity_workload: report.sensitivity.first().map(|s| s.workload.clone()),
        sensitivity_slowdown: report.sensitivity.first().and_then(|s| s.reading.as_ref()).map(|r| r.worst_slowdown),
        created_unix_s: report.created_unix_s,
        memwall_version: report.tool.version.clone(),
        prices: Default::default(),
        shelf: None,
    }
}

/// The last level read as cache before DRAM: how far the last cache level behaves like cache
/// (the `effective_llc` column, and `memwall watch --listen`'s `memwall_effective_llc_bytes`).
pub fn last_cache_level(levels: &[Level]) -> Option<&Level> {
    let dram = levels.iter().find(|l| l.cause == Cause::Dram);
    levels.iter().rev().find(|l| l.cause == Cause::Cache && dram.is_none_or(|d| l.size_bytes < d.size_bytes))
}

/// A report's name without its folder, URL path or `.json`: what a row is called in tables,
/// and what a prices CSV names it by.
pub fn report_stem(report: &str) -> &str {
    let file = report.rsplit(['/', '\\']).next().unwrap_or(report);
    match file.len().checked_sub(".json".len()) {
        Some(cut) if cut > 0 && file.is_char_boundary(cut) && file[cut..].eq_ignore_ascii_case(".json") => &file[..cut],
        _ => file,
    }
}

/// The fastest one-thread run of `kernel` (a race may hold runs on several thread counts).
fn groupby_ns(groupby: &GroupBy, kernel: &str) -> Option<f64> {
    groupby.runs.iter().filter(|r| r.kernel == kernel && r.threads == 1).map(|r| r.ns_per_row).reduce(f64::min)
}

fn join_ns(join: &Join, kernel: &str) -> Option<f64> {
    join.runs.iter().filter(|r| r.kernel == kernel && r.threads == 1).map(|r| r.ns_per_probe).reduce(f64::min)
}

fn groupby_data(groupby: &GroupBy) -> String {
    let d = &groupby.dataset;
    match d.generator.as_ref().and_then(|g| g.preset.as_ref()) {
        Some(preset) => format!("{preset} preset"),
        None => format!("{} rows, {} keys", d.rows, d.distinct_keys),
    }
}

fn join_data(join: &Join) -> String {
    let d = &join.dataset;
    format!("{} build keys, {} probe rows", d.build_keys, d.probe_rows)
}

/// A `--filter` term: `column=value` (text: case-insensitive substring; number: equal), or
/// `column<value`, `column<=value`, `column>value`, `column>=value` for numbers. A number may be
/// a size with its unit (`fast>=32MiB`, as `--min` and `--max` take them).
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    column: String,
    op: Op,
    value: String,
    /// The value as a number (or a size in bytes), where it reads as one.
    number: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Matches,
    Below,
    AtMost,
    Above,
    AtLeast,
}

/// Why a column name or filter was refused; the message lists what is accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FleetError {
    #[error("no column {0:?}: the columns are {cols}{1}", cols = column_names())]
    UnknownColumn(String, String),
    #[error("filter {0:?} is not COLUMN=VALUE, or COLUMN<, <=, >, >= a number")]
    BadFilter(String),
    #[error("filter {0:?} compares a column with something that is not a number or a size (e.g. 100, 32MiB)")]
    NotANumber(String),
}

fn column_names() -> String {
    let aliases = FLEET_ALIASES.iter().map(|(alias, column)| format!("{alias} (= {column})"));
    FLEET_COLUMNS.iter().map(|(name, _)| (*name).to_owned()).chain(aliases).collect::<Vec<_>>().join(", ")
}

/// The column named `name` (or by one of [`FLEET_ALIASES`]), as [`FLEET_COLUMNS`] spells it.
pub fn column(name: &str) -> Result<&'static str, FleetError> {
    let alias = FLEET_ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)).map(|(_, column)| *column);
    FLEET_COLUMNS
        .iter()
        .map(|(c, _)| *c)
        .find(|c| c.eq_ignore_ascii_case(name))
        .or(alias)
        .ok_or_else(|| FleetError::UnknownColumn(name.to_owned(), String::new()))
}

/// The column named `name`: one of [`FLEET_COLUMNS`], else one of `joined` (the price columns
/// joined onto the rows), as they spell it.
pub fn column_among(name: &str, joined: &[String]) -> Result<String, FleetError> {
    column(name).map(str::to_owned).or_else(|_| {
        joined.iter().find(|c| c.eq_ignore_ascii_case(name)).cloned().ok_or_else(|| {
            let extra =
                if joined.is_empty() { String::new() } else { format!(", and from the prices {}", joined.join(", ")) };
            FleetError::UnknownColumn(name.to_owned(), extra)
        })
    })
}

/// A filter's value as a number: a plain one, else a size with its unit in bytes.
fn number(value: &str) -> Option<f64> {
    value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .or_else(|| crate::size::parse_size(value).ok().map(|b| b as f64))
}

impl Filter {
    pub fn parse(term: &str) -> Result<Self, FleetError> {
        Self::parse_among(term, &[])
    }

    /// As [`Filter::parse`], also taking the price columns `joined` onto the rows.
    pub fn parse_among(term: &str, joined: &[String]) -> Result<Self, FleetError> {
        let at = term.find(['=', '<', '>']).ok_or_else(|| FleetError::BadFilter(term.to_owned()))?;
        let (name, rest) = term.split_at(at);
        let (op, width) = match (&rest[..1], rest[1..].starts_with('=')) {
            ("=", _) => (Op::Matches, 1),
            ("<", true) => (Op::AtMost, 2),
            ("<", false) => (Op::Below, 1),
            (_, true) => (Op::AtLeast, 2),
            (_, false) => (Op::Above, 1),
        };
        let value = rest[width..].trim().to_owned();
        if name.trim().is_empty() || value.is_empty() || value.starts_with(['=', '<', '>']) {
            return Err(FleetError::BadFilter(term.to_owned()));
        }
        let number = number(&value);
        if op != Op::Matches && number.is_none() {
            return Err(FleetError::NotANumber(term.to_owned()));
        }
        Ok(Self { column: column_among(name.trim(), joined)?, op, value, number })
    }

    pub fn keeps(&self, row: &FleetRow) -> bool {
        let Some(cell) = row.cell(&self.column) else { return false };
        match (cell, self.op) {
            (Cell::Missing, _) => false,
            (Cell::Text(text), Op::Matches) => text.to_lowercase().contains(&self.value.to_lowercase()),
            (Cell::Text(_), _) => false,
            (Cell::Number(n), op) => self.number.is_some_and(|v| match op {
                Op::Matches => n == v,
                Op::Below => n < v,
                Op::AtMost => n <= v,
                Op::Above => n > v,
                Op::AtLeast => n >= v,
            }),
        }
    }
}

/// Sorts `rows` by `column` (a name from [`FLEET_COLUMNS`], or a joined price column): numbers
/// ascending, text alphabetically, rows missing the figure last; `descending` reverses all but
/// the missing.
pub fn sort(rows: &mut [FleetRow], column: &str, descending: bool) {
    rows.sort_by(|a, b| compare(a, b, column, descending));
}

/// The order [`sort`] puts two rows in (for a front end that sorts references to its rows).
pub fn compare(a: &FleetRow, b: &FleetRow, column: &str, descending: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let key = |row: &FleetRow| row.cell(column).unwrap_or(Cell::Missing);
    let order = match (key(a), key(b)) {
        (Cell::Missing, Cell::Missing) => return Ordering::Equal,
        (Cell::Missing, _) => return Ordering::Greater,
        (_, Cell::Missing) => return Ordering::Less,
        (Cell::Number(x), Cell::Number(y)) => x.total_cmp(&y),
        (Cell::Text(x), Cell::Text(y)) => x.to_lowercase().cmp(&y.to_lowercase()),
        (Cell::Number(_), Cell::Text(_)) => Ordering::Less,
        (Cell::Text(_), Cell::Number(_)) => Ordering::Greater,
    };
    if descending { order.reverse() } else { order }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(text: &str) -> Report {
        Report::from_untrusted_json(text).unwrap()
    }

    fn zen3_run() -> FleetRow {
        row(report(include_str!("../../../../examples/reports/zen3-2vcpu-kvm-run.json")), "zen3.json")
    }

    fn xeon_ladder() -> FleetRow {
        row(report(include_str!("../../../../examples/reports/xeon-2vcpu-kvm-ladder-4curves.json")), "xeon.json")
    }

    #[test]
    fn a_full_run_fills_every_figure_it_measured() {
        let r = zen3_run();
        assert_eq!((r.report.as_str(), r.vcpus, r.hypervisor.as_deref()), ("zen3.json", Some(2), Some("KVM")));
        assert_eq!((r.declared_llc_bytes, r.declared_llc_level), (Some(32 << 20), Some(3)));
        // As `memwall explain` reads this report: L3 to 2 MiB at 12.9 ns, DRAM 100.5 ns from 3 MiB.
        assert_eq!(r.effective_llc_bytes, Some(2 << 20));
        assert!((r.effective_llc_ns.unwrap() - 12.88).abs() < 0.01, "{:?}", r.effective_llc_ns);
        assert_eq!(r.dram_from_bytes, Some(3 << 20));
        assert!((r.dram_ns.unwrap() - 100.49).abs() < 0.01, "{:?}", r.dram_ns);
        assert_eq!(r.largest_bytes, Some(1 << 30));
        assert!((r.page_walk_share.unwrap() - 0.633).abs() < 0.001);
        assert_eq!(r.huge_page_saving, None, "no random curve on huge pages in this run");
        assert_eq!(r.mlp_knee_chains, Some(16));
        assert_eq!(r.groupby_data.as_deref(), Some("small preset"));
        assert!((r.groupby_tuned_ns_per_row.unwrap() - 12.72).abs() < 0.01);
        assert!(r.join_adaptive_ns_per_probe.is_some());
        assert_eq!(r.read_gb_per_s_all_threads, None, "one thread streamed, no all-CPU run");
    }

    #[test]
    fn a_ladder_alone_leaves_the_races_empty() {
        let r = xeon_ladder();
        assert_eq!(r.effective_llc_bytes, Some(16 << 20));
        assert!((r.dram_ns.unwrap() - 73.3).abs() < 0.1, "{:?}", r.dram_ns);
        assert!((r.huge_page_saving.unwrap() - 0.29).abs() < 0.01);
        assert_eq!(
            (r.groupby_tuned_ns_per_row, r.join_tuned_ns_per_probe, r.read_gb_per_s_one_thread),
            (None, None, None)
        );
    }

    #[test]
    fn filters_and_sorting() {
        let rows = [zen3_run(), xeon_ladder()];
        let keep = |term: &str| rows.iter().filter(|r| Filter::parse(term).unwrap().keeps(r)).count();
        assert_eq!(keep("cpu=xeon"), 1);
        assert_eq!(keep("hypervisor=KVM"), 2);
        assert_eq!(keep("dram_ns<90"), 1);
        assert_eq!(keep("dram_ns>90"), 1);
        assert_eq!(keep("vcpus=2"), 2);
        // A host without the figure never passes a filter on it.
        assert_eq!(keep("groupby_tuned>0"), 1);
        assert!(matches!(Filter::parse("nonsense=1"), Err(FleetError::UnknownColumn(..))));
        assert!(matches!(Filter::parse("dram_ns"), Err(FleetError::BadFilter(_))));
        assert!(matches!(Filter::parse("dram_ns<fast"), Err(FleetError::NotANumber(_))));
        assert!(matches!(Filter::parse("=3"), Err(FleetError::BadFilter(_))));
        assert!(matches!(Filter::parse("dram_ns<"), Err(FleetError::BadFilter(_))));
        assert!(matches!(Filter::parse("dram_ns<=>3"), Err(FleetError::BadFilter(_))));
        assert!(matches!(Filter::parse("fast>=lots"), Err(FleetError::NotANumber(_))));
        // Or-equal, sizes with their units, and the short names the cloud shelf's examples use.
        assert_eq!(keep("fast>=16MiB"), 1);
        assert_eq!(keep("effective_llc>=2MiB"), 2);
        assert_eq!(keep("effective_llc>2MiB"), 1);
        assert_eq!(keep("fast<=2 MiB"), 1);
        assert_eq!(keep("effective_llc=2097152"), 1);
        assert_eq!(keep("fast=2MiB"), 1);
        assert_eq!(keep("dram<=90"), 1);
        assert_eq!(keep("type=zen"), 0, "the host column, by its other name");
        assert_eq!(keep("fast_ns<100"), 2);

        let mut sorted = rows.to_vec();
        sort(&mut sorted, "dram_ns", false);
        assert_eq!(sorted[0].report, "xeon.json");
        sort(&mut sorted, "dram_ns", true);
        assert_eq!(sorted[0].report, "zen3.json");
        // Missing figures go last either way.
        for descending in [false, true] {
            sort(&mut sorted, "groupby_tuned", descending);
            assert_eq!(sorted[1].report, "xeon.json");
        }
        assert_eq!(column("DRAM_NS"), Ok("dram_ns"));
        assert_eq!(column("Fast"), Ok("effective_llc"));
    }

    #[test]
    fn a_report_is_named_by_its_file_without_json() {
        assert_eq!(report_stem("examples/reports/zen3-run.json"), "zen3-run");
        assert_eq!(report_stem("reports/dir/0/a%20b.JSON"), "a%20b");
        assert_eq!(report_stem("C:\\r\\x.json"), "x");
        assert_eq!(report_stem("plain"), "plain");
        assert_eq!(report_stem(".json"), ".json");
    }

    #[test]
    fn cores_watch_and_sensitivity_fill_their_columns_and_the_topology_joins_the_advice() {
        use memwall_report::{CorePair, Cores, PressureLevel, Sensitivity, Watch, WatchPoint, WatchSample};
        let mut report = report(include_str!("../../../../examples/reports/zen3-2vcpu-kvm-run.json"));
        report.cores = Some(Cores {
            cpus: vec![0, 1],
            round_trips_per_sample: 200,
            pairs: vec![CorePair {
                cpu_a: 0,
                cpu_b: 1,
                one_way_median_ns: 72.0,
                one_way_p10_ns: 71.0,
                one_way_p90_ns: 73.0,
                samples: 300,
            }],
            declared: None,
            tiers: vec![],
            agreement: vec![],
            topology: String::new(),
        });
        let sample = |at_s: f64, ns: f64, steal: u64| WatchSample {
            at_s,
            ns_per_load: vec![Some(ns)],
            noise: vec![Some(0.01)],
            steal_jiffies: Some(steal),
            total_jiffies: Some(100),
        };
        let points = vec![WatchPoint { level: "DRAM".into(), bytes: 12 << 20 }];
        let samples = vec![sample(0.0, 90.0, 0), sample(10.0, 99.0, 1), sample(20.0, 90.0, 2)];
        report.watch = Some(Watch::new(10.0, 30.0, points, samples));
        let level = |name: &str, bytes: u64, secs: &[f64]| PressureLevel::timed(name, bytes, secs.to_vec()).unwrap();
        report.sensitivity = vec![Sensitivity {
            command: vec!["awk".into()],
            server_probe: None,
            workload: "awk-loop".into(),
            workload_cpu: 0,
            pressure_cpu: 1,
            runs_per_level: 2,
            llc_bytes: 2 << 20,
            llc_source: "test".into(),
            levels: vec![level("none", 0, &[1.0, 1.02]), level("1x LLC", 2 << 20, &[1.5, 1.52])],
            reading: None,
        }];
        let r = row(report.clone(), "zen3.json");
        assert_eq!(r.vcpu_topology.as_deref(), Some("2 CPUs: 1 tier, 72 ns"));
        assert!((r.stability_spread.unwrap() - 0.1).abs() < 1e-9, "{:?}", r.stability_spread);
        assert!((r.steal_share.unwrap() - 0.01).abs() < 1e-9);
        assert_eq!(r.sensitivity_workload.as_deref(), Some("awk-loop"));
        assert!((r.sensitivity_slowdown.unwrap() - 0.4951).abs() < 0.001, "{:?}", r.sensitivity_slowdown);
        assert_eq!(r.cell("vcpu_topology"), Some(Cell::Text("2 CPUs: 1 tier, 72 ns".into())));
        explain::reread(&mut report);
        let topology =
            "Core-to-core: 2 CPUs in 1 latency tier (72 ns one way), sysfs declares nothing to check them against";
        assert_eq!(report.advice.iter().filter(|s| *s == topology).count(), 1, "{:?}", report.advice);
        // Read twice, still said once; and without a ladder the line is the advice's too.
        explain::reread(&mut report);
        report.ladder = None;
        explain::reread(&mut report);
        assert_eq!(report.advice.iter().filter(|s| *s == topology).count(), 1, "{:?}", report.advice);
    }

    #[test]
    fn every_column_has_a_cell() {
        let r = zen3_run();
        for (name, _) in FLEET_COLUMNS {
            assert!(r.cell(name).is_some(), "{name}");
        }
        assert_eq!(r.cell("nonsense"), None);
    }
}
