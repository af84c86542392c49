//! `memwall fleet`: many hosts' reports side by side, one row per report, to choose a server.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use memwall_core::fleet::{self, Filter};
use memwall_core::size::format_bytes;
use memwall_report::fleet::{FLEET_COLUMNS, Fleet, FleetRow, Unreadable};

use crate::output::{self, Table};
use crate::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Reports, or folders of them (every `*.json` directly inside that is not hidden).
    #[arg(required_unless_present = "columns", value_name = "REPORT.json|DIR")]
    pub paths: Vec<PathBuf>,
    /// Sort by this column (see --columns); numbers ascending, hosts without the figure last.
    #[arg(long, value_name = "COLUMN", value_parser = parse_column)]
    pub sort: Option<&'static str>,
    /// Sort descending.
    #[arg(long, requires = "sort")]
    pub desc: bool,
    /// Keep rows matching COLUMN=TEXT (case-insensitive substring, or a number equal),
    /// COLUMN<NUMBER or COLUMN>NUMBER; repeat to require all, e.g. --filter hypervisor=kvm.
    #[arg(long, value_name = "TERM", value_parser = parse_filter)]
    pub filter: Vec<Filter>,
    /// List the columns --sort and --filter take, then exit.
    #[arg(long)]
    pub columns: bool,
    /// --json writes the rows and the reports not read; --csv every field of every row.
    #[command(flatten)]
    pub export: output::ExportArgs,
}

fn parse_column(name: &str) -> Result<&'static str, String> {
    fleet::column(name).map_err(|e| e.to_string())
}

fn parse_filter(term: &str) -> Result<Filter, String> {
    Filter::parse(term).map_err(|e| e.to_string())
}

pub fn fleet(args: FleetArgs) -> CliResult {
    args.export.check()?;
    let mut out = args.export.human();
    if args.columns {
        for (name, about) in FLEET_COLUMNS {
            writeln!(out, "{name:<18} {about}").ok();
        }
        return Ok(());
    }
    let files = report_files(&args.paths)?;
    let mut rows = Vec::new();
    let mut unreadable = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        match output::read_report(path) {
            Ok(report) => rows.push(fleet::row(report, &name)),
            Err(e) => unreadable.push(Unreadable { report: name, reason: e.message().to_owned() }),
        }
    }
    let read = rows.len();
    rows.retain(|row| args.filter.iter().all(|f| f.keeps(row)));
    if let Some(column) = args.sort {
        fleet::sort(&mut rows, column, args.desc);
    }
    let table = table(&rows);
    write!(out, "{}", table.text()).ok();
    if read > rows.len() {
        writeln!(out, "{} of {read} reports left out by --filter", read - rows.len()).ok();
    }
    for u in &unreadable {
        writeln!(out, "{}: not read: {}", u.report, u.reason).ok();
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

/// The columns a buyer reads first; the CSV and JSON carry every field.
fn table(rows: &[FleetRow]) -> Table {
    let num = |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    let share = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0));
    let bytes = |v: Option<u64>| v.map_or("-".to_string(), format_bytes);
    let rows = rows
        .iter()
        .map(|r| {
            vec![
                Path::new(&r.report).file_stem().map_or_else(|| r.report.clone(), |s| s.to_string_lossy().into_owned()),
                r.host.clone(),
                r.cpu.clone().unwrap_or_else(|| "-".into()),
                r.vcpus.map_or("-".into(), |v| v.to_string()),
                match r.hypervisor.as_deref() {
                    Some("none") => "bare metal".into(),
                    Some(h) => h.to_owned(),
                    None => "-".into(),
                },
                format!("{} / {}", bytes(r.declared_llc_bytes), bytes(r.effective_llc_bytes)),
                num(r.dram_ns, 0),
                match (r.random_small_pages_ns, r.largest_bytes) {
                    (Some(ns), Some(at)) => format!("{ns:.0} @ {}", format_bytes(at)),
                    _ => "-".into(),
                },
                share(r.page_walk_share),
                share(r.huge_page_saving),
                r.mlp_knee_chains.map_or("-".into(), |k| k.to_string()),
                format!("{} / {}", num(r.read_gb_per_s_one_thread, 1), num(r.read_gb_per_s_all_threads, 1)),
                format!("{} / {}", num(r.groupby_tuned_ns_per_row, 1), num(r.groupby_adaptive_ns_per_row, 1)),
                format!("{} / {}", num(r.join_tuned_ns_per_probe, 1), num(r.join_adaptive_ns_per_probe, 1)),
                output::utc_date(r.created_unix_s),
                r.memwall_version.clone(),
            ]
        })
        .collect();
    let header = vec![
        "report",
        "host",
        "cpu",
        "vCPUs",
        "hypervisor",
        "LLC declared / cache-like",
        "DRAM ns",
        "random 4K ns",
        "page walks",
        "THP saves",
        "MLP",
        "read GB/s 1T / all",
        "GROUP BY ns/row tuned / adaptive",
        "join ns/probe tuned / adaptive",
        "date",
        "version",
    ];
    let notes = vec![
        "DRAM ns: the DRAM level on the curve the caches were read from (page-local where measured); random 4K: a \
         random load on small pages at the largest size measured; page walks: its share spent walking page tables; \
         GROUP BY and join: one thread, on the data each report names (see --csv)"
            .to_string(),
    ];
    Table { header, rows, notes }
}
