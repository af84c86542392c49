//! A user's own figures joined onto the fleet's rows: a CSV whose first column names a host
//! (`memwall fleet --prices`, or a CSV dropped on the page's Fleet tab) and whose other columns
//! are numbers, e.g. what the instance costs:
//!
//! ```csv
//! name,usd_per_hour
//! zen3-2vcpu-kvm-run,0.085
//! xeon-box,0.12
//! ```
//!
//! A row takes the line naming its report (its file name without `.json`, see
//! [`super::report_stem`]), else the line naming its host (so one line can price every report of
//! a host). Both ignore ASCII case. Names that match no row are returned, for the caller to
//! warn about; they are not an error (a price list usually covers more instance types than were
//! measured).

use memwall_report::fleet::{FLEET_COLUMNS, FleetRow};

use super::report_stem;

/// A parsed prices CSV: its column names (after the first) and one line per name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prices {
    columns: Vec<String>,
    lines: Vec<(String, Vec<Option<f64>>)>,
}

/// Why a prices CSV cannot be used, in one line; `line` counts from 1, the header included.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PricesError {
    #[error("the file is empty: the first line must be a header such as name,usd_per_hour")]
    Empty,
    #[error("the header {0:?} names no column after the host's name (e.g. name,usd_per_hour)")]
    NoPriceColumn(String),
    #[error(
        "the header {0:?} looks like data, not column names: the first line must be a header such as name,usd_per_hour"
    )]
    NoHeader(String),
    #[error("column {0:?} is named twice, or is already a fleet column")]
    DuplicateColumn(String),
    #[error("line {line}: {value:?} in column {column} is not a number")]
    NotANumber { line: u64, column: String, value: String },
    #[error("line {line}: {found} fields where the header has {expected}")]
    Ragged { line: u64, found: usize, expected: usize },
    #[error("line {line}: {name:?} is named twice")]
    DuplicateName { line: u64, name: String },
    #[error("line {line}: no name in the first column")]
    NoName { line: u64 },
    #[error("not CSV: {0}")]
    Csv(String),
}

impl Prices {
    /// Reads a prices CSV: a header, then a name and numbers per line (an empty field is a
    /// figure not known; anything else that is not a number is an error).
    pub fn parse(text: &str) -> Result<Self, PricesError> {
        let mut reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(::csv::Trim::All)
            .from_reader(text.as_bytes());
        let mut records = reader.records();
        let header = records.next().ok_or(PricesError::Empty)?.map_err(|e| PricesError::Csv(e.to_string()))?;
        let header: Vec<String> = header.iter().map(str::to_owned).collect();
        let joined = header.join(",");
        if header.iter().skip(1).any(|h| h.parse::<f64>().is_ok()) {
            return Err(PricesError::NoHeader(joined));
        }
        let columns: Vec<String> = header.iter().skip(1).cloned().collect();
        if columns.is_empty() || columns.iter().all(String::is_empty) {
            return Err(PricesError::NoPriceColumn(joined));
        }
        for (i, column) in columns.iter().enumerate() {
            let clash = FLEET_COLUMNS.iter().any(|(c, _)| c.eq_ignore_ascii_case(column));
            if column.is_empty() || clash || columns[..i].iter().any(|c| c.eq_ignore_ascii_case(column)) {
                return Err(PricesError::DuplicateColumn(column.clone()));
            }
        }
        let mut lines: Vec<(String, Vec<Option<f64>>)> = Vec::new();
        for (i, record) in records.enumerate() {
            let line = i as u64 + 2;
            let record = record.map_err(|e| PricesError::Csv(e.to_string()))?;
            if record.iter().all(str::is_empty) {
                continue;
            }
            if record.len() != header.len() {
                return Err(PricesError::Ragged { line, found: record.len(), expected: header.len() });
            }
            let name = record[0].to_owned();
            if name.is_empty() {
                return Err(PricesError::NoName { line });
            }
            if lines.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
                return Err(PricesError::DuplicateName { line, name });
            }
            let figures =
                record
                    .iter()
                    .skip(1)
                    .zip(&columns)
                    .map(|(value, column)| match value {
                        "" => Ok(None),
                        v => v.parse::<f64>().ok().filter(|f| f.is_finite()).map(Some).ok_or_else(|| {
                            PricesError::NotANumber { line, column: column.clone(), value: v.to_owned() }
                        }),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
            lines.push((name, figures));
        }
        Ok(Self { columns, lines })
    }

    /// The columns joined, as the header spells them.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Sets each row's prices from the line naming its report, else from the line naming its
    /// host (replacing any joined before); returns the names no row took, in the file's order.
    pub fn join<'a>(&self, rows: impl IntoIterator<Item = &'a mut FleetRow>) -> Vec<String> {
        let mut used = vec![false; self.lines.len()];
        for row in rows {
            row.prices.clear();
            let named = |name: &str| self.lines.iter().position(|(n, _)| n.eq_ignore_ascii_case(name));
            let Some(line) = named(report_stem(&row.report)).or_else(|| named(&row.host)) else { continue };
            used[line] = true;
            for (column, figure) in self.columns.iter().zip(&self.lines[line].1) {
                if let Some(figure) = figure {
                    row.prices.insert(column.clone(), *figure);
                }
            }
        }
        self.lines.iter().zip(used).filter(|(_, used)| !used).map(|((name, _), _)| name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::{Filter, row, sort};
    use memwall_report::Report;

    fn rows() -> Vec<FleetRow> {
        let zen3 = include_str!("../../../../examples/reports/zen3-2vcpu-kvm-run.json");
        let xeon = include_str!("../../../../examples/reports/xeon-2vcpu-kvm-ladder-4curves.json");
        vec![
            row(Report::from_untrusted_json(zen3).unwrap(), "reports/zen3-2vcpu-kvm-run.json"),
            row(Report::from_untrusted_json(xeon).unwrap(), "reports/xeon.json"),
        ]
    }

    #[test]
    fn prices_join_by_report_name_then_by_host_and_sort_and_filter() {
        let mut rows = rows();
        let xeon_host = rows[1].host.clone();
        let text =
            format!("name,usd_per_hour,spot\n\"ZEN3-2vcpu-kvm-run\",0.085,\n{xeon_host},0.12,0.04\nnot-measured,1,1\n");
        let prices = Prices::parse(&text).unwrap();
        assert_eq!(prices.columns(), ["usd_per_hour", "spot"]);
        assert_eq!(prices.join(&mut rows), ["not-measured"]);
        assert_eq!(rows[0].prices.get("usd_per_hour"), Some(&0.085));
        assert_eq!(rows[0].prices.get("spot"), None, "an empty field is not known, not zero");
        assert_eq!(rows[1].prices.get("spot"), Some(&0.04));

        sort(&mut rows, "usd_per_hour", true);
        assert_eq!(rows[0].report, "reports/xeon.json");
        let cheap = Filter::parse_among("USD_per_hour<0.1", prices.columns()).unwrap();
        assert_eq!(rows.iter().filter(|r| cheap.keeps(r)).count(), 1);
        assert!(Filter::parse("usd_per_hour<0.1").is_err(), "only once joined");

        let csv = memwall_report::fleet_csv(&rows);
        let mut lines = csv.lines();
        assert!(lines.next().unwrap().ends_with(",measured_by,spot,usd_per_hour"));
        assert!(lines.next().unwrap().ends_with(",0.04,0.12"));
        assert!(lines.next().unwrap().ends_with(",,0.085"));
    }

    #[test]
    fn unusable_csvs_say_why_in_one_line() {
        let err = |text: &str| Prices::parse(text).unwrap_err();
        assert_eq!(err(""), PricesError::Empty);
        assert!(matches!(err("name\nzen3\n"), PricesError::NoPriceColumn(_)));
        assert!(matches!(err("zen3,0.085\nxeon,0.12\n"), PricesError::NoHeader(_)));
        assert_eq!(err("name,usd,USD\n"), PricesError::DuplicateColumn("USD".into()));
        assert_eq!(err("name,dram_ns\n"), PricesError::DuplicateColumn("dram_ns".into()));
        assert_eq!(
            err("name,usd_per_hour\nzen3,cheap\n"),
            PricesError::NotANumber { line: 2, column: "usd_per_hour".into(), value: "cheap".into() }
        );
        assert_eq!(err("name,usd\nzen3,1,2\n"), PricesError::Ragged { line: 2, found: 3, expected: 2 });
        assert_eq!(err("name,usd\nzen3,1\nZen3,2\n"), PricesError::DuplicateName { line: 3, name: "Zen3".into() });
        assert_eq!(err("name,usd\n,1\n"), PricesError::NoName { line: 2 });
        for e in [err("zen3,0.085\n"), err("name,usd\nzen3,NaN\n")] {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        // Blank lines and spaces around fields are not errors.
        let ok = Prices::parse("name , usd\n\n zen3 , 1.5 \n").unwrap();
        assert_eq!(ok.lines, vec![("zen3".to_string(), vec![Some(1.5)])]);
    }
}
