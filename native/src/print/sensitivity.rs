//! A sensitivity curve as the CLI prints it (`sensitivity`, and `explain` for a report with one).

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::{Counters, Sensitivity};

use crate::output::Table;

pub fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub fn pressure_text(bytes: u64) -> String {
    if bytes == 0 { "-".into() } else { format_bytes(bytes) }
}

/// The curve as a table, the reading, and the counters or why there are none. Also what
/// `memwall explain` prints for a report with sensitivity curves.
pub fn print_sensitivity(out: &mut dyn Write, curve: &Sensitivity) -> std::io::Result<()> {
    let server = curve.server_probe.as_ref();
    let (what, per_level) = match server {
        Some(p) => (
            format!("server {}, probed by '{}'", curve.command.join(" "), p.probe),
            format!(
                "{} s per level in {} window{}",
                p.window_seconds,
                curve.runs_per_level,
                plural(curve.runs_per_level)
            ),
        ),
        None => {
            (curve.command.join(" "), format!("{} run{} per level", curve.runs_per_level, plural(curve.runs_per_level)))
        }
    };
    writeln!(
        out,
        "sensitivity of {} ({what}), {per_level}, CPU {} beside pressure on CPU {}, LLC {}:",
        curve.workload,
        curve.workload_cpu,
        curve.pressure_cpu,
        format_bytes(curve.llc_bytes)
    )?;
    write!(out, "{}", table(curve).text())?;
    let reading = curve.reading.as_ref();
    if let Some(r) = reading {
        let basis = match (server, r.basis.as_str()) {
            (Some(_), _) => "the probe's wall time per run, over each window (the inverse of its rate)",
            (None, "cpu") => "the command's CPU time",
            (None, _) => "wall time",
        };
        writeln!(out, "slowdowns are of {basis}; noise (no pressure, max-min over median) {:.1}%", r.noise * 100.0)?;
        writeln!(out, "reading: {}", r.verdict)?;
    }
    let counters: Vec<&Counters> = curve.levels.iter().filter_map(|l| l.counters.as_ref()).collect();
    match counters.iter().find(|c| !c.available) {
        Some(c) => writeln!(
            out,
            "counters unavailable here: {}",
            c.unavailable.as_deref().unwrap_or("the PMU gave no figure")
        )?,
        None if !counters.is_empty() => {
            writeln!(out, "the command's own counters per level (children included):")?;
            for (l, c) in curve.levels.iter().zip(&counters) {
                let per_run = |v: Option<u64>| {
                    v.map_or("-".into(), |v| format!("{:.3e}", v as f64 / f64::from(curve.runs_per_level)))
                };
                writeln!(
                    out,
                    "  {:<12} ipc {}  llc load misses/run {}  cache misses/run {}",
                    l.name,
                    c.ipc.map_or("-".into(), |i| format!("{i:.2}")),
                    per_run(c.llc_load_misses),
                    per_run(c.cache_misses)
                )?;
            }
        }
        None if server.is_some() => {
            writeln!(out, "counters: not measured for a server (they would count the probe, not the server)")?
        }
        None => {}
    }
    Ok(())
}

/// One row per pressure level: the time at it, and the slowdown against none.
pub fn table(curve: &Sensitivity) -> Table {
    let server = curve.server_probe.as_ref();
    let reading = curve.reading.as_ref();
    let (wall, wall_range) = if server.is_some() {
        ("probe s/run (median)", "probe s/run min-max")
    } else {
        ("wall s (median)", "wall min-max")
    };
    let header = vec!["level", "pressure", wall, wall_range, "CPU s (median)", "CPU min-max", "slowdown", ""];
    let rows: Vec<Vec<String>> = curve
        .levels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let slow = reading.and_then(|r| r.slowdowns.get(i).copied());
            let beyond = reading.and_then(|r| r.beyond_noise.get(i).copied()).unwrap_or(false);
            vec![
                l.name.clone(),
                pressure_text(l.pressure_bytes),
                format!("{:.3}", l.seconds.median),
                format!("{:.3}-{:.3}", l.seconds.min, l.seconds.max),
                l.cpu_seconds.map_or("-".into(), |c| format!("{:.3}", c.median)),
                l.cpu_seconds.map_or("-".into(), |c| format!("{:.3}-{:.3}", c.min, c.max)),
                if i == 0 { "-".into() } else { slow.map_or("?".into(), |s| format!("{:+.1}%", s * 100.0)) },
                if beyond { "beyond noise".into() } else { String::new() },
            ]
        })
        .collect();
    Table { header, rows, notes: vec![] }
}
