//! Reports as CSV, one row per ladder working set or GROUP BY run: the native `--csv` file and the
//! web page's exports write the same columns, escaped the same way.
//!
//! A report may come from anyone, so every text field is escaped: quoted when it holds a
//! separator, a quote or a line break, and defused when a spreadsheet would read it as a formula
//! (`=`, `+`, `-`, `@`, tab or carriage return first: "CSV injection").

use crate::{GroupBy, LadderPoint};

/// The columns of [`LadderPoint::csv_row`].
pub const LADDER_CSV_HEADER: &str = "bytes,ns_per_load_min,ns_per_load_median,ns_per_load_p90,ns_per_load_max,cycles_per_load,loads_per_sample,samples,huge_page_bytes,attempts";

/// The columns of [`GroupBy::csv_rows`].
pub const GROUPBY_CSV_HEADER: &str =
    "rows,distinct_keys,kernel,threads,partitions,seconds_min,seconds_median,seconds_max,ns_per_row,groups,checksum";

/// One CSV field holding `text`, escaped (RFC 4180 quoting, plus a leading `'` before what a
/// spreadsheet would run as a formula).
pub fn csv_field(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let text = if formula { format!("'{text}") } else { text.to_string() };
    if formula || text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

/// A number as a field: `f64`'s shortest round-trip form, which holds only digits, `.`, `e`, `-`
/// (or "NaN", "inf"): nothing to quote, and a spreadsheet reads a leading `-` as a number here.
fn number(value: f64) -> String {
    value.to_string()
}

impl LadderPoint {
    /// One CSV row (no newline); unknown values are empty fields.
    pub fn csv_row(&self) -> String {
        let ns = &self.ns_per_load;
        [
            self.bytes.to_string(),
            number(ns.min),
            number(ns.median),
            number(ns.p90),
            number(ns.max),
            self.cycles_per_load.map_or(String::new(), number),
            self.loads_per_sample.to_string(),
            self.samples.to_string(),
            self.huge_page_bytes.map_or(String::new(), |b| b.to_string()),
            self.attempts.to_string(),
        ]
        .join(",")
    }
}

impl GroupBy {
    /// One CSV row per run (no newlines); unknown values are empty fields.
    pub fn csv_rows(&self) -> Vec<String> {
        self.runs
            .iter()
            .map(|run| {
                [
                    self.dataset.rows.to_string(),
                    self.dataset.distinct_keys.to_string(),
                    csv_field(&run.kernel),
                    run.threads.to_string(),
                    run.partitions.map_or(String::new(), |p| p.to_string()),
                    number(run.seconds.min),
                    number(run.seconds.median),
                    number(run.seconds.max),
                    number(run.ns_per_row),
                    run.groups.to_string(),
                    csv_field(&run.checksum),
                ]
                .join(",")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::{GROUPBY_CSV_HEADER, LADDER_CSV_HEADER, LadderPoint, Summary, csv_field};

    #[test]
    fn a_row_has_a_field_per_column() {
        let point = LadderPoint {
            bytes: 16384,
            ns_per_load: Summary { min: 1.0, median: 1.5, p90: 2.0, max: 3.0 },
            cycles_per_load: None,
            ghz: None,
            clock_moved: false,
            loads_per_sample: 1000,
            samples: 15,
            samples_ns_per_load: vec![],
            attempts: 2,
            huge_page_bytes: Some(0),
        };
        assert_eq!(point.csv_row(), "16384,1,1.5,2,3,,1000,15,0,2");
        assert_eq!(point.csv_row().split(',').count(), LADDER_CSV_HEADER.split(',').count());
    }

    #[test]
    fn fields_are_quoted_when_they_must_be() {
        assert_eq!(csv_field("vm"), "vm");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\r\nlines"), "\"two\r\nlines\"");
        assert_eq!(csv_field(""), "");
    }

    #[test]
    fn formulas_are_defused() {
        assert_eq!(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(csv_field("+1"), "\"'+1\"");
        assert_eq!(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
        assert_eq!(csv_field("\tx"), "\"'\tx\"");
    }

    #[test]
    fn a_stranger_s_groupby_run_stays_in_its_columns() {
        let report = crate::Report::from_json(include_str!("../tests/corpus/ok-groupby.json")).unwrap();
        let mut groupby = report.groupby.unwrap();
        groupby.runs[0].kernel = "=cmd|' /C calc'!A0,\"x\"\nnext".into();
        groupby.runs[0].checksum = "-2+3".into();
        let rows = groupby.csv_rows();
        let header = GROUPBY_CSV_HEADER.split(',').count();
        for row in &rows {
            assert_eq!(parse_row(row).len(), header, "{row}");
        }
        let fields = parse_row(&rows[0]);
        assert_eq!(fields[2], "'=cmd|' /C calc'!A0,\"x\"\nnext");
        assert_eq!(fields[10], "'-2+3");
    }

    /// A minimal RFC 4180 reader: what a spreadsheet does with a row.
    fn parse_row(row: &str) -> Vec<String> {
        let mut fields = vec![String::new()];
        let (mut quoted, mut chars) = (false, row.chars().peekable());
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    fields.last_mut().unwrap().push('"');
                }
                (_, '"') => quoted = !quoted,
                (false, ',') => fields.push(String::new()),
                (_, c) => fields.last_mut().unwrap().push(c),
            }
        }
        fields
    }
}
