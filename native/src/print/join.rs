//! The join race as the CLI prints it: the table, the rules and checks, the exact sums, choices.

use std::io::Write;

use memwall_core::join::{self, Kernel};
use memwall_core::scratch::MemoryPolicy;
use memwall_core::size::format_bytes;
use memwall_report::Join;

use crate::output::{self, Table};

/// One row per kernel: build, probe and total times, speedup over naive, scratch, matches.
pub fn table(join: &Join) -> Table {
    let naive = join.runs.iter().find(|r| r.kernel == Kernel::Naive.name()).map(|r| r.seconds.median);
    let rows = join
        .runs
        .iter()
        .map(|r| {
            let mut cells = output::kernel_cells(&r.kernel, r.threads, r.partitions);
            cells.extend([
                format!("{:.3}", r.build_seconds.median),
                format!("{:.3}", r.probe_seconds.median),
                format!("{:.3}", r.seconds.min),
                format!("{:.3}", r.seconds.median),
                format!("{:.2}", r.ns_per_probe),
                naive
                    .filter(|_| r.seconds.median > 0.0)
                    .map_or("-".into(), |n| format!("{:.2}x", n / r.seconds.median)),
                r.scratch_bytes.map_or("-".into(), format_bytes),
                r.matches.to_string(),
                r.checksum.clone(),
            ]);
            cells
        })
        .collect();
    let header = vec![
        "kernel", "threads", "P", "build s", "probe s", "min s", "median s", "ns/probe", "vs naive", "scratch",
        "matches", "checksum",
    ];
    Table { header, rows, notes: vec![] }
}

/// The race as a table with each kernel's speedup over naive (build and probe are medians of
/// their own), then the rules and checks.
pub fn print_race(out: &mut dyn Write, join: &Join, label: &str) -> std::io::Result<()> {
    let d = &join.dataset;
    writeln!(
        out,
        "{label}: {} build keys (8-byte payloads), {} probe rows, {} of them missing from the build side",
        d.build_keys, d.probe_rows, d.misses
    )?;
    write!(out, "{}", table(join).text())?;
    if let Some(run) = join.runs.first() {
        if let Some(policy) = run.memory.as_deref().and_then(MemoryPolicy::parse) {
            writeln!(out, "memory: {} for every kernel: {}", policy.name(), policy.description())?;
        }
        let checks: Vec<&str> = run
            .verified_by
            .iter()
            .filter_map(|name| {
                [
                    join::race::Check::Reference(memwall_core::race::Reference::SortAndMerge),
                    join::race::Check::KnownMatches,
                    join::race::Check::CrossKernel,
                    join::race::Check::Repeatable,
                ]
                .into_iter()
                .find(|c| c.name() == name)
                .map(|c| c.describe())
            })
            .collect();
        if !checks.is_empty() {
            writeln!(out, "checked: every run of every kernel {}", checks.join(", "))?;
        }
    }
    if let Some(run) = join.runs.first()
        && let (Some(keys), Some(payloads)) = (&run.key_sum, &run.payload_sum)
    {
        // Every kernel agreed with the first (the race checks it), so one line serves them all.
        writeln!(
            out,
            "exact sums over the matches (as SQL's sum(key), sum(payload) in 128 bits): keys {keys}, payloads {payloads}"
        )?;
    }
    for run in &join.runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
    }
    Ok(())
}
