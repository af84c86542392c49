//! Bandwidth as the CLI prints it: GB/s per working set against memcpy, and loaded latency.

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::Bandwidth;

use crate::output::Table;

/// One row per working set and thread count.
pub fn table(bandwidth: &Bandwidth) -> Table {
    let header = vec!["working set", "threads", "read GB/s", "write GB/s", "copy GB/s", "memcpy GB/s", "read / memcpy"];
    let rows: Vec<Vec<String>> = bandwidth
        .points
        .iter()
        .map(|p| {
            vec![
                format_bytes(p.bytes),
                p.threads.to_string(),
                format!("{:.1}", p.read_gb_per_s),
                format!("{:.1}", p.write_gb_per_s),
                format!("{:.1}", p.copy_gb_per_s),
                p.memcpy_gb_per_s.map_or("-".into(), |m| format!("{m:.1}")),
                p.memcpy_gb_per_s.map_or("-".into(), |m| format!("{:.2}", p.read_gb_per_s / m)),
            ]
        })
        .collect();
    let notes = vec![NOTE.to_string()];
    Table { header, rows, notes }
}

const NOTE: &str = "GB/s = 10^9 bytes/s, fastest sample; copy and memcpy count bytes read plus bytes written";

pub fn print_bandwidth(out: &mut dyn Write, bandwidth: &Bandwidth) -> std::io::Result<()> {
    write!(out, "{}", table(bandwidth).text())?;
    writeln!(out, "{NOTE}")?;
    if let Some(idle) = bandwidth.loaded_latency.iter().find(|l| l.streaming_threads == 0) {
        for loaded in bandwidth.loaded_latency.iter().filter(|l| l.streaming_threads > 0) {
            writeln!(
                out,
                "loaded latency at {}: {:.1} ns per load idle, {:.1} ns while {} thread(s) stream reads ({:+.0}%)",
                format_bytes(idle.bytes),
                idle.ns_per_load,
                loaded.ns_per_load,
                loaded.streaming_threads,
                (loaded.ns_per_load / idle.ns_per_load - 1.0) * 100.0
            )?;
        }
    }
    Ok(())
}
