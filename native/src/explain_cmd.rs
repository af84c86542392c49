//! `memwall explain`: reports read again by the current rules, so an old report gets today's
//! levels, verdict and advice without being measured again.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use memwall_core::explain;
use memwall_core::size::format_bytes;
use memwall_report::Report;

use crate::error::{CliError, CliResult};
use crate::output::{self, ExportArgs, Table};

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Reports to read again (written by `memwall run`, `memwall ladder --json` or the page).
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    // `--json`: the report written back out with `ladder.levels`, `ladder.verdict` and `advice`
    // replaced (nothing measured changes, the schema neither); one report only. `--csv`,
    // `--markdown`: every report's levels, one row each.
    #[command(flatten)]
    pub export: ExportArgs,
}

pub fn explain(args: ExplainArgs) -> CliResult {
    args.export.check()?;
    if args.export.json.is_some() && args.reports.len() > 1 {
        return Err(CliError::usage("--json writes one report: give one REPORT.json"));
    }
    let mut out = args.export.human();
    let mut unreadable = Vec::new();
    let mut read = Vec::new();
    for path in &args.reports {
        let mut report = match output::read_report(path) {
            Ok(report) => report,
            Err(e) => {
                let e = e.context(&path.display().to_string());
                writeln!(out, "{}: not read: {}\n", path.display(), e.message()).ok();
                unreadable.push(e);
                continue;
            }
        };
        explain::reread(&mut report);
        print_reading(&mut *out, &path.display().to_string(), &report).map_err(|e| CliError::runtime(e.to_string()))?;
        read.push((path.display().to_string(), report));
    }
    if let Some((_, first)) = read.first() {
        args.export.write(|| first.clone(), || levels_table(&read).csv(), || levels_table(&read))?;
    }
    match unreadable.len() {
        0 => Ok(()),
        1 => Err(unreadable.remove(0)),
        n => Err(CliError::usage(format!(
            "{n} of {} reports could not be read (each is named above)",
            args.reports.len()
        ))),
    }
}

/// Every report's levels, one row each, as the current rules read them.
fn levels_table(reports: &[(String, Report)]) -> Table {
    let mut rows = Vec::new();
    for (name, report) in reports {
        for level in report.ladder.iter().flat_map(|l| &l.levels) {
            let cause = match level.cause {
                memwall_report::Cause::Cache => "cache",
                memwall_report::Cause::Tlb => "tlb",
                memwall_report::Cause::Dram => "dram",
            };
            rows.push(vec![
                name.clone(),
                level.name.clone(),
                level.size_bytes.to_string(),
                cause.to_string(),
                format!("{:.2}", level.ns_per_load),
            ]);
        }
    }
    Table { header: vec!["report", "level", "bytes", "cause", "ns per load"], rows, notes: vec![] }
}

/// The host line, then the levels, verdict and advice as the current rules read them.
pub fn print_reading(out: &mut dyn Write, name: &str, report: &Report) -> std::io::Result<()> {
    let host = &report.host;
    let mut about = vec![host.name.clone().unwrap_or_else(|| "unnamed host".into())];
    about.extend(host.cpu_model.clone());
    about.extend(host.hypervisor.as_ref().map(|h| if h == "none" { "bare metal".into() } else { h.clone() }));
    about.push(format!("{:?} report by memwall {}", report.source, report.tool.version).to_lowercase());
    writeln!(out, "{name}: {}", about.join(", "))?;
    match &report.ladder {
        Some(ladder) => print_ladder(out, ladder)?,
        None => writeln!(out, "  no ladder in this report: no levels to read")?,
    }
    if !report.advice.is_empty() {
        writeln!(out, "for someone choosing a server:")?;
        for sentence in &report.advice {
            writeln!(out, "- {sentence}")?;
        }
    }
    if let Some(cores) = &report.cores {
        crate::print::cores::print_cores(out, cores)?;
    }
    if let Some(watch) = &report.watch {
        crate::print::watch::print_watch(out, watch)?;
    }
    for curve in &report.sensitivity {
        crate::print::sensitivity::print_sensitivity(out, curve)?;
    }
    writeln!(out)
}

/// The ladder's curves, levels with what placed them, and verdict.
fn print_ladder(out: &mut dyn Write, ladder: &memwall_report::Ladder) -> std::io::Result<()> {
    let curves: Vec<String> = std::iter::once(format!("{} {}", ladder.pattern, ladder.huge_pages))
        .chain(ladder.curves.iter().filter(|c| c.chains == 1).map(|c| format!("{} {}", c.pattern, c.huge_pages)))
        .collect();
    writeln!(
        out,
        "  curves: {} ({} sizes, {} to {})",
        curves.join(", "),
        ladder.points.len(),
        ladder.points.first().map_or("-".into(), |p| format_bytes(p.bytes)),
        ladder.points.last().map_or("-".into(), |p| format_bytes(p.bytes))
    )?;
    writeln!(out, "levels:")?;
    for level in &ladder.levels {
        writeln!(out, "  {}", crate::print::ladder::level_line(level))?;
        for placed in &level.evidence {
            writeln!(out, "      {placed}")?;
        }
    }
    for sentence in &ladder.verdict {
        writeln!(out, "- {sentence}")?;
    }
    Ok(())
}
