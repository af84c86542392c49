//! The host as `info` and `run` print it.

use std::io::Write;

use memwall_core::size::format_bytes;
use memwall_report::Host;

/// The host's facts, one per line, as declared and as measured.
pub fn print_host(out: &mut dyn Write, host: &Host) -> std::io::Result<()> {
    let unknown = || "unknown".to_string();
    writeln!(out, "host:        {}", host.name.clone().unwrap_or_else(unknown))?;
    writeln!(out, "cpu:         {}", host.cpu_model.clone().unwrap_or_else(unknown))?;
    writeln!(out, "logical cpus: {}", host.logical_cpus.map_or_else(unknown, |n| n.to_string()))?;
    if host.caches.is_empty() {
        // Common on Arm cloud guests: the ladder's curve still finds the levels.
        writeln!(
            out,
            "cache:       not declared (the system lists no cache sizes; the ladder's curve finds the levels)"
        )?;
    }
    for cache in &host.caches {
        let shared = cache.shared_by_cpus.map_or(String::new(), |n| format!(", shared by {n} cpu(s)"));
        writeln!(out, "cache:       L{} {:<11} {}{}", cache.level, cache.kind, format_bytes(cache.size_bytes), shared)?;
    }
    let hypervisor = match host.hypervisor.as_deref() {
        Some("none") => "none (bare metal)".to_string(),
        Some(name) => name.to_string(),
        None => unknown(),
    };
    writeln!(out, "hypervisor:  {hypervisor}")?;
    writeln!(out, "emulated:    {}", crate::emulation::detected().describe())?;
    writeln!(out, "os:          {}", host.os.clone().unwrap_or_else(unknown))?;
    writeln!(out, "memory:      {}", host.memory_bytes.map_or_else(unknown, format_bytes))?;
    writeln!(out, "page size:   {}", host.page_bytes.map_or_else(unknown, format_bytes))?;
    writeln!(out, "THP mode:    {}", host.thp.clone().unwrap_or_else(unknown))?;
    writeln!(
        out,
        "timer:       {}",
        host.timer_resolution_ns.map_or_else(unknown, |ns| format!("{ns:.0} ns resolution"))
    )?;
    match (host.core_ghz, &host.core_ghz_unavailable) {
        (Some(ghz), _) => match &host.core_clock {
            Some(estimate) => writeln!(out, "core clock:  {}", super::ladder::clock_summary(estimate))?,
            None => writeln!(out, "core clock:  {ghz:.2} GHz (dependent add chain)")?,
        },
        (None, why) => writeln!(out, "core clock:  unavailable: {}", why.as_deref().unwrap_or("unknown"))?,
    }
    Ok(())
}
