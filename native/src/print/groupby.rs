//! The GROUP BY race as the CLI prints it: the table, the rules, choices, counters, phases.

use std::io::Write;

use memwall_core::groupby::summary;
use memwall_core::size::format_bytes;
use memwall_report::{Counters, GroupBy};

use crate::output::{self, Table};

/// One row per kernel: its times, speedup over naive, scratch, groups and checksum.
pub fn table(groupby: &GroupBy) -> Table {
    let rows = groupby
        .runs
        .iter()
        .map(|r| {
            let mut cells = output::kernel_cells(&r.kernel, r.threads, r.partitions);
            cells.extend([
                r.first_run_seconds.map_or("-".into(), |s| format!("{s:.3}")),
                format!("{:.3}", r.seconds.min),
                format!("{:.3}", r.seconds.median),
                format!("{:.3}", r.seconds.max),
                format!("{:.2}", r.ns_per_row),
                r.predicted_ns_per_row.map_or("-".into(), |ns| format!("{ns:.2}")),
                summary::speedup_over_naive(groupby, r).map_or("-".into(), |x| format!("{x:.2}x")),
                r.scratch_bytes.map_or("-".into(), format_bytes),
                r.groups.to_string(),
                r.checksum.clone(),
            ]);
            cells
        })
        .collect();
    let header = vec![
        "kernel",
        "threads",
        "P",
        "first s",
        "min s",
        "median s",
        "max s",
        "ns/row",
        "predicted",
        "vs naive",
        "scratch",
        "groups",
        "checksum",
    ];
    Table { header, rows, notes: summary::rules(groupby, false) }
}

/// The race as a table, with each kernel's speedup over naive, the rules it was measured
/// under and how it was checked, then the top keys.
pub fn print_race(out: &mut dyn Write, groupby: &GroupBy, label: &str) -> std::io::Result<()> {
    let d = &groupby.dataset;
    writeln!(
        out,
        "{label}: {} rows, {} distinct keys{}",
        d.rows,
        d.distinct_keys,
        d.max_rows_per_key.map_or(String::new(), |m| format!(", most frequent key {m} rows"))
    )?;
    write!(out, "{}", table(groupby).text())?;
    for line in summary::rules(groupby, false) {
        writeln!(out, "{line}")?;
    }
    if let Some(line) = summary::regret_line(groupby) {
        writeln!(out, "{line}")?;
    }
    for line in memwall_core::cost::describe(groupby) {
        writeln!(out, "{line}")?;
    }
    for run in &groupby.runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
        if let Some(counters) = &run.counters {
            writeln!(out, "{} counters: {}", run.kernel, counters_line(counters))?;
        }
        if let Some(phases) = &run.phases {
            writeln!(out, "{} phases: {}", run.kernel, summary::phases_line(run, phases))?;
        }
    }
    if let Some(query) = &groupby.query {
        let column = query.value_column.as_ref().map_or(String::new(), |c| format!(" ({c})"));
        writeln!(out, "aggregates: {} over {} values{column}", query.aggregates.join(", "), query.value_type)?;
    }
    if let Some(line) = summary::totals_line(groupby) {
        writeln!(out, "{line}")?;
    }
    if let Some(run) = groupby.runs.first() {
        let top: Vec<String> = run.top.iter().map(|kc| format!("{} x{}", kc.key, kc.count)).collect();
        writeln!(out, "top keys: {}", top.join(", "))?;
    }
    Ok(())
}

fn counters_line(c: &Counters) -> String {
    if !c.available {
        return format!("unavailable: {}", c.unavailable.as_deref().unwrap_or("unknown reason"));
    }
    let mut parts = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            parts.push(format!("{name} {v}"));
        }
    };
    add("cycles", c.cycles.map(|v| v.to_string()));
    add("instructions", c.instructions.map(|v| v.to_string()));
    add("IPC", c.ipc.map(|v| format!("{v:.2}")));
    add("cache misses", c.cache_misses.map(|v| v.to_string()));
    add("LLC load misses", c.llc_load_misses.map(|v| v.to_string()));
    add("dTLB load misses", c.dtlb_load_misses.map(|v| v.to_string()));
    add("backend stalls", c.stalled_backend_share.map(|v| format!("{:.1}%", v * 100.0)));
    parts.join(", ")
}
