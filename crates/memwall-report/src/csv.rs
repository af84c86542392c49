//! Reports as CSV: the native `--csv` files and the page's exports write the same columns, and
//! every field goes through the csv crate, so a label with a comma, a quote or a newline (a host
//! name typed into the page, a report file's name) stays one field.
//!
//! A report may come from anyone, and its text lands in a spreadsheet: a field that is not a
//! number and starts as a formula would (`=`, `+`, `-`, `@`, tab, carriage return) is written with
//! a leading `'`, so it is shown, never run ("CSV injection").

use crate::groupby::GroupBy;
use crate::join::Join;
use crate::ladder::LadderPoint;
use crate::report::Report;
use crate::report::Source;

/// The columns of a ladder: one row per working set.
pub const LADDER_CSV_HEADER: [&str; 10] = [
    "bytes",
    "ns_per_load_min",
    "ns_per_load_median",
    "ns_per_load_p90",
    "ns_per_load_max",
    "cycles_per_load",
    "loads_per_sample",
    "samples",
    "huge_page_bytes",
    "attempts",
];

/// The columns of a GROUP BY race: one row per kernel and thread count.
pub const GROUPBY_CSV_HEADER: [&str; 15] = [
    "rows",
    "distinct_keys",
    "kernel",
    "threads",
    "partitions",
    "memory",
    "first_run_seconds",
    "seconds_min",
    "seconds_median",
    "seconds_max",
    "ns_per_row",
    "scratch_bytes",
    "groups",
    "checksum",
    "verified_by",
];

/// The columns of a join race: one row per kernel; build and probe seconds are medians.
pub const JOIN_CSV_HEADER: [&str; 18] = [
    "build_keys",
    "probe_rows",
    "kernel",
    "threads",
    "partitions",
    "memory",
    "build_seconds_median",
    "probe_seconds_median",
    "seconds_min",
    "seconds_median",
    "seconds_max",
    "ns_per_probe",
    "scratch_bytes",
    "matches",
    "checksum",
    "verified_by",
    "key_sum",
    "payload_sum",
];

/// Unknown values are empty fields, never zero.
fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

impl LadderPoint {
    fn csv_fields(&self) -> Vec<String> {
        let ns = &self.ns_per_load;
        vec![
            self.bytes.to_string(),
            ns.min.to_string(),
            ns.median.to_string(),
            ns.p90.to_string(),
            ns.max.to_string(),
            opt(self.cycles_per_load),
            self.loads_per_sample.to_string(),
            self.samples.to_string(),
            opt(self.huge_page_bytes),
            self.attempts.to_string(),
        ]
    }
}

fn groupby_rows(groupby: &GroupBy) -> impl Iterator<Item = Vec<String>> + '_ {
    groupby.runs.iter().map(|run| {
        vec![
            groupby.dataset.rows.to_string(),
            groupby.dataset.distinct_keys.to_string(),
            run.kernel.clone(),
            run.threads.to_string(),
            opt(run.partitions),
            run.memory.clone().unwrap_or_default(),
            opt(run.first_run_seconds),
            run.seconds.min.to_string(),
            run.seconds.median.to_string(),
            run.seconds.max.to_string(),
            run.ns_per_row.to_string(),
            opt(run.scratch_bytes),
            run.groups.to_string(),
            run.checksum.clone(),
            run.verified_by.join(" "),
        ]
    })
}

/// `field`, with a `'` in front when a spreadsheet would run it as a formula. Numbers (a negative
/// one starts with `-`) are left as they are: a spreadsheet reads them as numbers.
fn defused(field: String) -> String {
    let formula = field.starts_with(['=', '+', '-', '@', '\t', '\r']) && field.parse::<f64>().is_err();
    if formula { format!("'{field}") } else { field }
}

/// Rows under a header, each field defused and quoted where it must be.
fn table<S: AsRef<str>>(header: &[S], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut writer = ::csv::WriterBuilder::new().flexible(false).from_writer(Vec::new());
    let header: Vec<&str> = header.iter().map(AsRef::as_ref).collect();
    // Writing to a Vec cannot fail, and every row has as many fields as the header by construction.
    writer.write_record(&header).expect("a CSV header");
    for row in rows {
        let row: Vec<String> = row.into_iter().map(defused).collect();
        writer.write_record(&row).expect("a CSV row as wide as its header");
    }
    String::from_utf8(writer.into_inner().expect("a Vec takes every write")).expect("UTF-8 fields give UTF-8 CSV")
}

/// One join race's runs.
pub fn join_csv(join: &Join) -> String {
    let rows = join.runs.iter().map(|run| {
        vec![
            join.dataset.build_keys.to_string(),
            join.dataset.probe_rows.to_string(),
            run.kernel.clone(),
            run.threads.to_string(),
            opt(run.partitions),
            run.memory.clone().unwrap_or_default(),
            run.build_seconds.median.to_string(),
            run.probe_seconds.median.to_string(),
            run.seconds.min.to_string(),
            run.seconds.median.to_string(),
            run.seconds.max.to_string(),
            run.ns_per_probe.to_string(),
            opt(run.scratch_bytes),
            run.matches.to_string(),
            run.checksum.clone(),
            run.verified_by.join(" "),
            run.key_sum.clone().unwrap_or_default(),
            run.payload_sum.clone().unwrap_or_default(),
        ]
    });
    table(&JOIN_CSV_HEADER, rows)
}

/// Any table's rows under its header, each field defused as every export's is.
pub fn rows_csv(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    table(header, rows)
}

/// One ladder's points.
pub fn ladder_csv(points: &[LadderPoint]) -> String {
    table(&LADDER_CSV_HEADER, points.iter().map(LadderPoint::csv_fields))
}

/// One GROUP BY race's runs.
pub fn groupby_csv(groupby: &GroupBy) -> String {
    table(&GROUPBY_CSV_HEADER, groupby_rows(groupby))
}

impl Source {
    /// The name reports and exports use.
    pub fn name(self) -> &'static str {
        match self {
            Source::Native => "native",
            Source::Browser => "browser",
        }
    }
}

/// Several labelled reports side by side: their ladders in one table, then, after a blank line,
/// their GROUP BY races in another, each row led by the report's label and source.
pub fn reports_csv(reports: &[(&str, &Report)]) -> String {
    let labelled = |extra: &[&'static str]| -> Vec<&'static str> {
        ["report", "source"].into_iter().chain(extra.iter().copied()).collect()
    };
    let lead = |label: &str, source: Source| vec![label.to_string(), source.name().to_string()];
    let ladder_rows = reports.iter().flat_map(|(label, report)| {
        report.ladder.iter().flat_map(|l| &l.points).map(move |p| [lead(label, report.source), p.csv_fields()].concat())
    });
    let mut out = table(&labelled(&LADDER_CSV_HEADER), ladder_rows);
    let races: Vec<_> = reports.iter().filter_map(|(label, r)| Some((label, r.source, r.groupby.as_ref()?))).collect();
    if !races.is_empty() {
        let rows = races
            .into_iter()
            .flat_map(|(label, source, g)| groupby_rows(g).map(move |row| [lead(label, source), row].concat()));
        out.push('\n');
        out += &table(&labelled(&GROUPBY_CSV_HEADER), rows);
    }
    out
}

/// The fleet's rows, one per report, then every price column any row was joined with (by name;
/// empty where a row has no figure for it).
pub fn fleet_csv(rows: &[crate::fleet::FleetRow]) -> String {
    let prices: std::collections::BTreeSet<&String> = rows.iter().flat_map(|r| r.prices.keys()).collect();
    let header = crate::fleet::FLEET_CSV_HEADER.iter().copied().chain(prices.iter().map(|p| p.as_str()));
    let header: Vec<&str> = header.collect();
    let fields = |r: &crate::fleet::FleetRow| {
        let extra = prices.iter().map(|p| r.prices.get(*p).map_or(String::new(), f64::to_string));
        r.csv_fields().into_iter().chain(extra).collect()
    };
    table(&header, rows.iter().map(fields))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::Ladder;
    use crate::ladder::Summary;

    fn point(bytes: u64) -> LadderPoint {
        LadderPoint {
            bytes,
            ns_per_load: Summary { min: 1.0, median: 1.5, p90: 2.0, max: 3.0 },
            cycles_per_load: None,
            ghz: None,
            clock_moved: false,
            loads_per_sample: 1000,
            samples: 15,
            samples_ns_per_load: vec![],
            attempts: 2,
            visits_ns_per_load: Vec::new(),
            huge_page_bytes: Some(0),
        }
    }

    #[test]
    fn a_ladder_row_has_a_field_per_column_and_unknowns_are_empty() {
        let csv = ladder_csv(&[point(16384)]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines, [LADDER_CSV_HEADER.join(","), "16384,1,1.5,2,3,,1000,15,0,2".to_string()]);
    }

    #[test]
    fn labels_are_escaped_so_each_stays_one_field() {
        let mut report = Report::new(Source::Browser, 0, Default::default());
        let mut ladder: Ladder = serde_json::from_value(serde_json::json!({
            "pattern": "random-cycle", "huge_pages": "default", "line_bytes": 64, "seed": 1,
            "target_sample_ns": 1.0, "points": [], "steps": []
        }))
        .unwrap();
        ladder.points = vec![point(16384)];
        report.ladder = Some(ladder);
        let nasty = "vm, \"big\"\nbox";
        let csv = reports_csv(&[(nasty, &report)]);
        let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
        let rows: Vec<::csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(&rows[0][0], nasty);
        assert_eq!(&rows[0][1], "browser");
        assert_eq!(rows[0].len(), 2 + LADDER_CSV_HEADER.len());
    }

    #[test]
    fn formulas_from_a_stranger_s_report_are_defused_and_numbers_kept() {
        assert_eq!(defused("=HYPERLINK(\"http://x\")".into()), "'=HYPERLINK(\"http://x\")");
        assert_eq!(defused("@SUM(A1)".into()), "'@SUM(A1)");
        assert_eq!(defused("-2+3".into()), "'-2+3");
        assert_eq!(defused("\tx".into()), "'\tx");
        assert_eq!(defused("-1.5".into()), "-1.5");
        assert_eq!(defused("1e-7".into()), "1e-7");
        assert_eq!(defused("vm".into()), "vm");
        assert_eq!(defused(String::new()), "");

        let mut report: Report = serde_json::from_str(include_str!("../tests/corpus/ok-groupby.json")).unwrap();
        let groupby = report.groupby.as_mut().unwrap();
        groupby.runs[0].kernel = "=cmd|' /C calc'!A0,\"x\"\nnext".into();
        groupby.runs[0].checksum = "+1+1".into();
        let csv = groupby_csv(groupby);
        let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
        let rows: Vec<::csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), groupby.runs.len());
        assert!(rows.iter().all(|r| r.len() == GROUPBY_CSV_HEADER.len()));
        assert_eq!(&rows[0][2], "'=cmd|' /C calc'!A0,\"x\"\nnext");
        assert_eq!(&rows[0][13], "'+1+1");
        assert_eq!(&rows[1][2], "radix");
    }
}
