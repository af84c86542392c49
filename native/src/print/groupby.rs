//! The GROUP BY race as the CLI prints it: the table, the rules, choices, counters, phases.

use std::io::Write;

use memwall_core::groupby::summary;
use memwall_report::{Counters, GroupBy};

use super::race;
use crate::output::Table;

/// One row per kernel (see [`race::table`]), the rules below it.
pub fn table(groupby: &GroupBy) -> Table {
    race::table(&groupby.runs, summary::rules(groupby, false))
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
    race::write_table(out, &table(groupby))?;
    if let Some(line) = summary::regret_line(groupby) {
        writeln!(out, "{line}")?;
    }
    for line in memwall_core::cost::describe(groupby) {
        writeln!(out, "{line}")?;
    }
    race::choices(out, &groupby.runs)?;
    for run in &groupby.runs {
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
