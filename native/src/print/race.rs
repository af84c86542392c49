//! What the GROUP BY and join races print alike: one table row per kernel (its times, speedup
//! over naive, scratch, answer and checksum) and the lines on what adaptive chose. Each
//! workload's own columns come from its [`Columns`].

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::{Figures, GroupByFigures, JoinFigures, Run, speedup_over};

use crate::output::Table;

/// The columns a workload's runs add to the shared ones.
pub trait Columns: Figures {
    /// Before the shared times: the parts a run's time is split into.
    const PARTS: &'static [&'static str];
    fn part_cells(&self) -> Vec<String>;
    /// After the measured ns per row: what a model predicted for it.
    const MODEL: &'static [&'static str];
    fn model_cells(&self) -> Vec<String>;
}

impl Columns for GroupByFigures {
    const PARTS: &'static [&'static str] = &[];
    fn part_cells(&self) -> Vec<String> {
        Vec::new()
    }
    const MODEL: &'static [&'static str] = &["predicted"];
    fn model_cells(&self) -> Vec<String> {
        vec![self.predicted_ns_per_row.map_or("-".into(), |ns| format!("{ns:.2}"))]
    }
}

impl Columns for JoinFigures {
    /// Build and probe, each the median of its own.
    const PARTS: &'static [&'static str] = &["build s", "probe s"];
    fn part_cells(&self) -> Vec<String> {
        vec![format!("{:.3}", self.build_seconds.median), format!("{:.3}", self.probe_seconds.median)]
    }
    const MODEL: &'static [&'static str] = &[];
    fn model_cells(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One row per kernel: its first run, min, median and max seconds, ns per row, speedup over
/// naive, scratch, the answer's count and checksum, with the workload's own columns; `notes`
/// below it.
pub fn table<A: Columns>(runs: &[Run<A>], notes: Vec<String>) -> Table {
    let rows = runs
        .iter()
        .map(|r| {
            let mut cells =
                vec![r.kernel.clone(), r.threads.to_string(), r.partitions.map_or("-".into(), |p| p.to_string())];
            cells.extend(r.part_cells());
            cells.push(r.first_run_seconds.map_or("-".into(), |s| format!("{s:.3}")));
            cells.extend([r.seconds.min, r.seconds.median, r.seconds.max].map(|s| format!("{s:.3}")));
            cells.push(format!("{:.2}", r.median_ns_per_row()));
            cells.extend(r.model_cells());
            cells.extend([
                speedup_over(runs, r, "naive").map_or("-".into(), |x| format!("{x:.2}x")),
                r.scratch_bytes.map_or("-".into(), format_bytes),
                r.answer().to_string(),
                r.checksum.clone(),
            ]);
            cells
        })
        .collect();
    let mut header = vec!["kernel", "threads", "P"];
    header.extend(A::PARTS);
    header.extend(["first s", "min s", "median s", "max s", A::PER_ROW]);
    header.extend(A::MODEL);
    header.extend(["vs naive", "scratch", A::ANSWER, "checksum"]);
    Table { header, rows, notes }
}

/// The table, then its notes a line each.
pub fn write_table(out: &mut dyn Write, table: &Table) -> std::io::Result<()> {
    write!(out, "{}", table.text())?;
    table.notes.iter().try_for_each(|line| writeln!(out, "{line}"))
}

/// What adaptive chose and why, a line a run that chose.
pub fn choices<A>(out: &mut dyn Write, runs: &[Run<A>]) -> std::io::Result<()> {
    for run in runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
    }
    Ok(())
}
