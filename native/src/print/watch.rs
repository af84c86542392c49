//! `watch` as the CLI prints it: one line per interval, then the stability summary (which
//! `memwall explain` prints for a report with a watch section too).

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::{Watch, WatchPoint, WatchSample};

use crate::output::Table;

pub fn clock_text(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

pub fn sample_line(points: &[WatchPoint], sample: &WatchSample) -> String {
    let mut line = format!("  {:>6}", clock_text(sample.at_s));
    for (point, ns) in points.iter().zip(&sample.ns_per_load) {
        line += &match ns {
            Some(ns) => format!("  {} {:.1} ns", point.level, ns),
            None => format!("  {} unmeasured", point.level),
        };
    }
    line += &match (sample.steal_jiffies, sample.total_jiffies) {
        (Some(s), Some(t)) if t > 0 => format!("  steal {:.1}%", s as f64 / t as f64 * 100.0),
        _ => "  steal unavailable".to_string(),
    };
    line
}

/// The summary: per point min/median/max and spread, the worst minute, steal, the verdict. Also
/// what `memwall explain` prints for a report with a watch section.
pub fn print_watch(out: &mut dyn Write, watch: &Watch) -> std::io::Result<()> {
    let Some(s) = &watch.stability else { return Ok(()) };
    writeln!(
        out,
        "stability over {} interval{} of {}s{}:",
        s.intervals,
        if s.intervals == 1 { "" } else { "s" },
        watch.every_s,
        if watch.interrupted { " (interrupted)" } else { "" }
    )?;
    for p in &s.points {
        writeln!(
            out,
            "  {:<5} {:>9}: min {:.1}, median {:.1}, max {:.1} ns; spread {:.1}% (noise within an interval {:.1}%)",
            p.level,
            format_bytes(p.bytes),
            p.min_ns,
            p.median_ns,
            p.max_ns,
            p.spread * 100.0,
            p.noise * 100.0
        )?;
    }
    if let (Some(from), Some(slow)) = (s.worst_minute_from_s, s.worst_minute_slowdown) {
        writeln!(
            out,
            "  worst minute from {}: {:+.1}% against the window medians{}",
            clock_text(from),
            slow * 100.0,
            s.worst_minute_steal_share.map_or(String::new(), |w| format!(", steal {:.1}%", w * 100.0))
        )?;
    }
    match s.steal_share {
        Some(steal) => writeln!(out, "  steal: {:.2}% of CPU time over the window", steal * 100.0)?,
        None => writeln!(out, "  steal: unavailable ({})", watch.steal_unavailable.as_deref().unwrap_or("not read"))?,
    }
    writeln!(out, "  disturbed intervals: {} of {}", s.disturbed_intervals, s.intervals)?;
    writeln!(out, "{}", s.verdict)
}

/// One row per interval and point: when, which level, its ns per load, and the interval's steal.
pub fn table(watch: &Watch) -> Table {
    let mut rows = Vec::new();
    for sample in &watch.samples {
        let steal = match (sample.steal_jiffies, sample.total_jiffies) {
            (Some(s), Some(t)) if t > 0 => format!("{:.1}", s as f64 / t as f64 * 100.0),
            _ => "-".to_string(),
        };
        for (point, ns) in watch.points.iter().zip(&sample.ns_per_load) {
            rows.push(vec![
                format!("{:.0}", sample.at_s),
                point.level.clone(),
                point.bytes.to_string(),
                ns.map_or("-".into(), |ns| format!("{ns:.2}")),
                steal.clone(),
            ]);
        }
    }
    let header = vec!["at s", "level", "bytes", "ns per load", "steal %"];
    Table { header, rows, notes: vec![] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_line_says_when_steal_is_unavailable() {
        let points = [WatchPoint { level: "L2".into(), bytes: 1 << 19 }];
        let sample = |steal, total| WatchSample {
            at_s: 70.0,
            ns_per_load: vec![Some(3.12)],
            noise: vec![Some(0.0)],
            steal_jiffies: steal,
            total_jiffies: total,
        };
        assert_eq!(sample_line(&points, &sample(Some(5), Some(200))), "    1:10  L2 3.1 ns  steal 2.5%");
        assert_eq!(sample_line(&points, &sample(None, None)), "    1:10  L2 3.1 ns  steal unavailable");
        assert!(crate::watch_probe::read_steal().is_ok() || !std::path::Path::new("/proc/stat").exists());
    }
}
