//! Core-to-core latency as the CLI prints it (`cores`, and `explain` for a report with cores).

use std::io::Write;

use memwall_core::cores::groups_text;
use memwall_report::Cores;

use crate::output::Table;

pub fn print_cores(out: &mut dyn Write, cores: &Cores) -> std::io::Result<()> {
    writeln!(
        out,
        "core-to-core latency, one way, ns (median of {} round trips per sample):",
        cores.round_trips_per_sample
    )?;
    if cores.cpus.len() >= 2 {
        let width = cores.cpus.iter().map(|c| format!("cpu{c}").len()).max().unwrap_or(4).max(6);
        write!(out, "  {:>width$}", "")?;
        for cpu in &cores.cpus {
            write!(out, " {:>width$}", format!("cpu{cpu}"))?;
        }
        writeln!(out)?;
        for &a in &cores.cpus {
            write!(out, "  {:>width$}", format!("cpu{a}"))?;
            for &b in &cores.cpus {
                let pair = cores.pairs.iter().find(|p| (p.cpu_a, p.cpu_b) == (a, b) || (p.cpu_a, p.cpu_b) == (b, a));
                match pair {
                    _ if a == b => write!(out, " {:>width$}", "-")?,
                    Some(p) => write!(out, " {:>width$.1}", p.one_way_median_ns)?,
                    None => write!(out, " {:>width$}", "?")?,
                }
            }
            writeln!(out)?;
        }
        writeln!(out, "pairs (median, p10-p90, samples):")?;
        for p in &cores.pairs {
            writeln!(
                out,
                "  {}-{}: {:.1} ns ({:.1}-{:.1}), {}",
                p.cpu_a, p.cpu_b, p.one_way_median_ns, p.one_way_p10_ns, p.one_way_p90_ns, p.samples
            )?;
        }
    }
    if !cores.tiers.is_empty() {
        writeln!(out, "tiers (from the matrix alone):")?;
        for (k, tier) in cores.tiers.iter().enumerate() {
            let matches = match tier.matches.as_deref() {
                Some("smt") => " = SMT siblings as declared",
                Some("llc") => " = shared last-level cache as declared",
                _ => "",
            };
            writeln!(
                out,
                "  {}: {:.1}-{:.1} ns, {} pair{}, groups {}{matches}",
                k + 1,
                tier.from_ns,
                tier.to_ns,
                tier.pairs,
                if tier.pairs == 1 { "" } else { "s" },
                groups_text(&tier.groups)
            )?;
        }
    }
    match &cores.declared {
        Some(d) => {
            let shared = |groups: &[Vec<u32>]| {
                let shared: Vec<Vec<u32>> = groups.iter().filter(|g| g.len() > 1).cloned().collect();
                if shared.is_empty() { "none".to_string() } else { groups_text(&shared) }
            };
            writeln!(
                out,
                "sysfs declares: SMT siblings {}; {} shared by {}",
                shared(&d.smt_siblings),
                d.llc_level.map_or("last-level cache".to_string(), |l| format!("L{l}")),
                shared(&d.llc_groups)
            )?
        }
        None => writeln!(out, "sysfs declares no topology for these CPUs")?,
    }
    for sentence in &cores.agreement {
        writeln!(out, "- {sentence}")?;
    }
    writeln!(out, "{}", cores.topology)
}

/// One row per pair of CPUs: the one-way latency's median and p10-p90, and the samples.
pub fn table(cores: &Cores) -> Table {
    let rows = cores
        .pairs
        .iter()
        .map(|p| {
            vec![
                p.cpu_a.to_string(),
                p.cpu_b.to_string(),
                format!("{:.1}", p.one_way_median_ns),
                format!("{:.1}", p.one_way_p10_ns),
                format!("{:.1}", p.one_way_p90_ns),
                p.samples.to_string(),
            ]
        })
        .collect();
    let header = vec!["cpu a", "cpu b", "one-way ns (median)", "p10 ns", "p90 ns", "samples"];
    Table { header, rows, notes: vec![] }
}
