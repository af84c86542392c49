//! The host as `info` and `run` print it.

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::Host;

use crate::output::Table;

/// The host's facts, one per line, as declared and as measured.
pub fn print_host(out: &mut dyn Write, host: &Host) -> std::io::Result<()> {
    for [label, value] in facts(host) {
        let label = format!("{label}:");
        writeln!(out, "{label:<12} {value}")?;
    }
    Ok(())
}

/// The host's facts as a table (`info --csv`, `--markdown`).
pub fn table(host: &Host) -> Table {
    Table { header: vec!["fact", "value"], rows: facts(host).into_iter().map(Vec::from).collect(), notes: vec![] }
}

/// Each fact of the host: its label and its value, in the order `info` prints them.
fn facts(host: &Host) -> Vec<[String; 2]> {
    let unknown = || "unknown".to_string();
    let mut facts = Vec::new();
    let mut fact = |label: &str, value: String| facts.push([label.to_string(), value]);
    fact("host", host.name.clone().unwrap_or_else(unknown));
    fact("cpu", host.cpu_model.clone().unwrap_or_else(unknown));
    fact("logical cpus", host.logical_cpus.map_or_else(unknown, |n| n.to_string()));
    if host.caches.is_empty() {
        // Common on Arm cloud guests: the ladder's curve still finds the levels.
        fact("cache", "not declared (the system lists no cache sizes; the ladder's curve finds the levels)".into());
    }
    for cache in &host.caches {
        let shared = cache.shared_by_cpus.map_or(String::new(), |n| format!(", shared by {n} cpu(s)"));
        fact("cache", format!("L{} {:<11} {}{}", cache.level, cache.kind, format_bytes(cache.size_bytes), shared));
    }
    let hypervisor = match host.hypervisor.as_deref() {
        Some("none") => "none (bare metal)".to_string(),
        Some(name) => name.to_string(),
        None => unknown(),
    };
    fact("hypervisor", hypervisor);
    fact("emulated", crate::emulation::detected().describe());
    fact("os", host.os.clone().unwrap_or_else(unknown));
    fact("memory", host.memory_bytes.map_or_else(unknown, format_bytes));
    fact("page size", host.page_bytes.map_or_else(unknown, format_bytes));
    fact("THP mode", host.thp.clone().unwrap_or_else(unknown));
    fact("timer", host.timer_resolution_ns.map_or_else(unknown, |ns| format!("{ns:.0} ns resolution")));
    let clock = match (host.core_ghz, &host.core_ghz_unavailable) {
        (Some(ghz), _) => match &host.core_clock {
            Some(estimate) => super::ladder::clock_summary(estimate),
            None => format!("{ghz:.2} GHz (dependent add chain)"),
        },
        (None, why) => format!("unavailable: {}", why.as_deref().unwrap_or("unknown")),
    };
    fact("core clock", clock);
    facts
}
