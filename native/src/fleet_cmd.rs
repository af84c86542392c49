//! `memwall fleet`: many hosts' reports side by side, one row per report, to choose a server.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use memwall_core::fleet::prices::Prices;
use memwall_core::fleet::{self, Filter};
use memwall_report::fleet::{FLEET_COLUMNS, Fleet, FleetRow, Unreadable};
use memwall_report::index::{IndexedReport, ReportsIndex};

use crate::error::{CliError, CliResult};
use crate::output::{self, Table};

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Reports, or folders of them (every `*.json` directly inside that is not hidden).
    #[arg(required_unless_present_any = ["columns", "shelf"], value_name = "REPORT.json|DIR")]
    pub paths: Vec<PathBuf>,
    /// Sort by this column (see --columns, or a --prices column); numbers ascending, hosts
    /// without the figure last.
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    /// Sort descending.
    #[arg(long, requires = "sort")]
    pub desc: bool,
    /// Keep rows matching COLUMN=TEXT (case-insensitive substring, or a number equal),
    /// COLUMN<NUMBER or COLUMN>NUMBER; repeat to require all, e.g. --filter hypervisor=kvm.
    #[arg(long, value_name = "TERM")]
    pub filter: Vec<String>,
    /// Your own figures per host, joined as extra columns: a CSV whose header is a name column
    /// then numeric columns (e.g. name,usd_per_hour); each name is a report's file name without
    /// .json, else a host name. See docs/fleet.md.
    #[arg(long, value_name = "FILE.csv")]
    pub prices: Option<PathBuf>,
    /// Also write an index of the reports with their rows (every report named, unfiltered) to
    /// FILE, for a static host: the page's `?fleet=URL/FILE` then draws the table from it alone.
    /// Every report must be in FILE's folder or below it (its URL is relative to FILE).
    #[arg(long, value_name = "FILE.json")]
    pub index: Option<PathBuf>,
    /// Add the cloud shelf's instance types that match TERM (`memwall cloud`'s, in --filter's
    /// language) as rows beside the reports, e.g. --shelf provider=aws --shelf 'vcpus<=4'; repeat
    /// to require all.
    #[arg(long, value_name = "TERM")]
    pub shelf: Vec<String>,
    /// List the columns --sort and --filter take, then exit.
    #[arg(long)]
    pub columns: bool,
    /// --json writes the rows and the reports not read; --csv every field of every row.
    #[command(flatten)]
    pub export: output::ExportArgs,
}

/// The prices CSV, read before any report so that a bad file or column fails fast.
fn read_prices(path: &Path) -> CliResult<Prices> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::usage(format!("--prices {}: cannot be read ({e})", path.display())))?;
    Prices::parse(&text).map_err(|e| CliError::usage(format!("--prices {}: {e}", path.display())))
}

pub fn fleet(args: FleetArgs) -> CliResult {
    args.export.check()?;
    let mut out = args.export.human();
    if args.columns {
        for (name, about) in FLEET_COLUMNS {
            writeln!(out, "{name:<18} {about}").ok();
        }
        for (alias, column) in memwall_report::fleet::FLEET_ALIASES {
            writeln!(out, "{alias:<18} = {column}").ok();
        }
        return Ok(());
    }
    let prices = args.prices.as_deref().map(read_prices).transpose()?;
    let joined = prices.as_ref().map_or(&[][..], Prices::columns);
    let usage = |flag: &'static str| move |e: fleet::FleetError| CliError::usage(format!("--{flag}: {e}"));
    let sort = args.sort.as_deref().map(|name| fleet::column_among(name, joined)).transpose().map_err(usage("sort"))?;
    let filters = terms(&args.filter, joined).map_err(usage("filter"))?;
    let shelf_terms = terms(&args.shelf, &[]).map_err(usage("shelf"))?;
    let files = report_files(&args.paths)?;
    let urls = args.index.as_deref().map(|index| index_urls(index, &files)).transpose()?;
    let mut rows = Vec::new();
    let mut unreadable = Vec::new();
    let mut indexed = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let name = path.display().to_string();
        let read = output::read_report(path).map(|report| fleet::row(report, &name));
        if let Some(urls) = &urls {
            indexed.push(indexed_report(path, &urls[i], &read));
        }
        match read {
            Ok(row) => rows.push(row),
            Err(e) => unreadable.push(Unreadable { report: name, reason: e.message().to_owned() }),
        }
    }
    if let Some(index) = &args.index {
        let text = ReportsIndex { reports: indexed }.to_json();
        output::write_text(&output::Destination::File(index.clone()), &(text + "\n"))?;
    }
    let attribution = (!shelf_terms.is_empty()).then(|| shelf_rows(&shelf_terms, &mut rows)).transpose()?;
    if let (Some(prices), Some(path)) = (&prices, &args.prices) {
        join_prices(prices, path, &mut rows);
    }
    let read = rows.len();
    rows.retain(|row| filters.iter().all(|f| f.keeps(row)));
    if let Some(column) = &sort {
        fleet::sort(&mut rows, column, args.desc);
    }
    let mut table = table(&rows, joined);
    table.notes.extend(attribution.clone());
    write!(out, "{}", table.text()).ok();
    if read > rows.len() {
        writeln!(out, "{} of {read} reports left out by --filter", read - rows.len()).ok();
    }
    for u in &unreadable {
        writeln!(out, "{}: not read: {}", u.report, u.reason).ok();
    }
    if let Some(attribution) = &attribution {
        writeln!(out, "shelf rows: {}\n{attribution}", memwall_core::cloud::table::CLOUD_NOTE).ok();
    }
    if let Some(destination) = &args.export.csv {
        output::write_text(destination, &memwall_report::fleet_csv(&rows))?;
    }
    if let Some(destination) = &args.export.markdown {
        output::write_text(destination, &table.markdown())?;
    }
    let unread = unreadable.len();
    if let Some(destination) = &args.export.json {
        let fleet = Fleet { schema_version: memwall_report::SCHEMA_VERSION, rows, unreadable };
        let text = serde_json::to_string_pretty(&fleet).map_err(|e| CliError::runtime(e.to_string()))?;
        output::write_text(destination, &(text + "\n"))?;
    }
    match unread {
        0 => Ok(()),
        n => Err(CliError::usage(format!("{n} of {} reports could not be read (each is named above)", files.len()))),
    }
}

/// `--filter` (or `--shelf`) terms, the columns `joined` from the prices among those they name.
fn terms(terms: &[String], joined: &[String]) -> Result<Vec<Filter>, fleet::FleetError> {
    terms.iter().map(|term| Filter::parse_among(term, joined)).collect()
}

/// Joins the prices onto the rows, warning of the names no row took.
fn join_prices(prices: &Prices, path: &Path, rows: &mut [FleetRow]) {
    let unmatched = prices.join(rows);
    if !unmatched.is_empty() {
        eprintln!(
            "memwall: warning: --prices {}: no report or host is called {}",
            path.display(),
            unmatched.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        );
    }
}

/// The shelf's types that every term keeps, added to `rows`; returns the attribution they are
/// shown under.
fn shelf_rows(terms: &[Filter], rows: &mut Vec<FleetRow>) -> CliResult<String> {
    let (loaded, shelf) = memwall_core::cloud::shelf_rows(memwall_core::cloud::SHELF_JSON)
        .map_err(|e| CliError::runtime(format!("the built-in shelf: {e}")))?;
    rows.extend(shelf.into_iter().filter(|row| terms.iter().all(|t| t.keeps(row))));
    Ok(loaded.shelf.attribution())
}

/// Each report's URL relative to the index's folder, or why one is not under it.
fn index_urls(index: &Path, files: &[PathBuf]) -> CliResult<Vec<String>> {
    let folder = index.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = folder
        .canonicalize()
        .map_err(|e| CliError::usage(format!("--index {}: its folder cannot be used ({e})", index.display())))?;
    files
        .iter()
        .map(|file| {
            let outside = || {
                CliError::usage(format!(
                    "--index {}: {} is not in the index's folder or below it, so no URL relative to the index reaches it",
                    index.display(),
                    file.display()
                ))
            };
            let canonical = file.canonicalize().map_err(|_| outside())?;
            let relative = canonical.strip_prefix(&folder).map_err(|_| outside())?;
            let segments: Option<Vec<String>> = relative
                .components()
                .map(|c| c.as_os_str().to_str().map(crate::serve::url_segment))
                .collect();
            segments.map(|s| s.join("/")).ok_or_else(outside)
        })
        .collect()
}

/// A report's index entry with its row, named as the page names a report: by its file name.
fn indexed_report(path: &Path, url: &str, read: &CliResult<FleetRow>) -> IndexedReport {
    let name = path.file_name().map_or_else(|| url.to_string(), |n| n.to_string_lossy().into_owned());
    let entry = crate::serve::index_entry(&name, url.to_string(), path);
    match read {
        Ok(row) => IndexedReport { row: Some(FleetRow { report: name, ..row.clone() }), ..entry },
        Err(e) => IndexedReport { unreadable: Some(e.message().to_owned()), ..entry },
    }
}

/// The files named, with each folder replaced by its reports in name order (the files
/// `memwall serve --reports DIR` would list).
fn report_files(paths: &[PathBuf]) -> CliResult<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let names = crate::serve::report_names_in(path);
        if names.is_empty() {
            return Err(CliError::usage(format!(
                "{}: no *.json reports in this folder (or it cannot be read)",
                path.display()
            )));
        }
        files.extend(names.into_iter().map(|name| path.join(name)));
    }
    Ok(files)
}

/// The table both front ends show ([`fleet::table::TABLE`]), then the price columns joined; the
/// CSV and JSON carry every field.
fn table(rows: &[FleetRow], joined: &[String]) -> Table {
    use fleet::table::{TABLE, TABLE_NOTE, price_text};
    let rows = rows
        .iter()
        .map(|r| {
            let shown = TABLE.iter().map(|c| (c.text)(r));
            shown.chain(joined.iter().map(|c| price_text(r, c))).collect()
        })
        .collect();
    let header = TABLE
        .iter()
        .map(|c| c.header)
        // `Table` takes static headers; the few price column names live until `memwall fleet` exits.
        .chain(joined.iter().map(|c| &*Box::leak(c.clone().into_boxed_str())))
        .collect();
    Table { header, rows, notes: vec![TABLE_NOTE.to_string()] }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tables_dates_are_the_ones_memwall_writes_elsewhere() {
        for unix_s in [0, 951_782_400, 1_796_256_000, 1_796_255_999, 4_107_542_400] {
            assert_eq!(memwall_core::fleet::table::utc_date(unix_s), crate::output::utc_date(unix_s));
        }
    }
}
