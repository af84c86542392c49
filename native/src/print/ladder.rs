//! The ladder as the terminal shows it: the table of points, the curves side by side, the
//! clock, the steps, memory-level parallelism, the levels with what placed them, the verdict.

use std::io::Write;

use memwall_core::cycles;
use memwall_core::describe::{self, steps_summary};
use memwall_core::explain;
use memwall_core::ladder::{self, Pattern};
use memwall_core::size::format_bytes;
use memwall_report::{Cache, Cause, ClockEstimate, Curve, Ladder, LadderPoint, Level, Parallelism};

use crate::output::{self, Table};

fn row(point: &LadderPoint) -> Vec<String> {
    let ns = &point.ns_per_load;
    let mut row = vec![
        format_bytes(point.bytes),
        format!("{:.2}", ns.min),
        format!("{:.2}", ns.median),
        format!("{:.2}", ns.p90),
        point.cycles_per_load.map_or("-".into(), |c| format!("{c:.1}")),
        point.ghz.map_or("-".into(), |g| format!("{g:.2}{}", if point.clock_moved { "*" } else { "" })),
        format!("{:.1}%", ns.spread() * 100.0),
        point.attempts.to_string(),
    ];
    if let Some(huge) = point.huge_page_bytes.filter(|&b| b > 0) {
        row.push(format!("{:.0}%", huge as f64 / point.bytes as f64 * 100.0));
    } else {
        row.push(if point.huge_page_bytes.is_some() { "0%".into() } else { "-".into() });
    }
    row
}

const HEADER: [&str; 9] =
    ["working set", "ns min", "ns median", "ns p90", "cycles", "GHz", "spread", "attempts", "huge pages"];

/// The clock estimate in one line: its figure, spread and whether it held still.
pub fn clock_summary(estimate: &ClockEstimate) -> String {
    let verdict = if estimate.stable {
        "stable".to_string()
    } else {
        format!(
            "UNSTABLE: {}; cycles figures are uncertain",
            if estimate.residual.abs() > cycles::STABLE_RESIDUAL {
                format!(
                    "the {} runs were all disturbed (residual {:+.1}%), so the long runs alone were used",
                    if estimate.residual > 0.0 { "short" } else { "long" },
                    estimate.residual * 100.0
                )
            } else {
                format!("runs spread over {:.0}%", cycles::STABLE_SPREAD * 100.0)
            }
        )
    };
    format!(
        "{:.2} GHz (dependent add chain, fastest of {} runs at each of two lengths; spread {:.1}%, {verdict})",
        estimate.ghz,
        estimate.repetitions,
        estimate.spread * 100.0
    )
}

pub fn print_ladder(out: &mut dyn Write, ladder: &Ladder, declared: &[Cache]) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = ladder.points.iter().map(row).collect();
    write!(out, "{}", output::table(&HEADER, &rows))?;
    if let Some((header, rows)) = curves_table(ladder) {
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        writeln!(out)?;
        write!(out, "{}", output::table(&header, &rows))?;
        writeln!(
            out,
            "ns min per curve; page walks = (random - page-local) / random; THP saves = (random off - random thp) / random off"
        )?;
    }
    let tracked: Vec<f64> = ladder.points.iter().filter_map(|p| p.ghz).collect();
    match (ladder.ghz, &ladder.clock) {
        (Some(_), Some(estimate)) if !tracked.is_empty() => {
            let (low, high) = tracked.iter().fold((f64::MAX, f64::MIN), |(l, h), &g| (l.min(g), h.max(g)));
            writeln!(out, "core clock at the start: {}", clock_summary(estimate))?;
            writeln!(
                out,
                "cycles = median ns x the clock re-estimated around each size ({low:.2}-{high:.2} GHz, column GHz)"
            )?;
            let moved: Vec<String> =
                ladder.points.iter().filter(|p| p.clock_moved).map(|p| format_bytes(p.bytes)).collect();
            if !moved.is_empty() {
                writeln!(
                    out,
                    "* the clock moved more than {:.0}% at {} size(s) ({}): their cycles are less certain than their ns",
                    cycles::CLOCK_MOVED * 100.0,
                    moved.len(),
                    moved.join(", ")
                )?;
            }
        }
        (Some(ghz), _) => writeln!(out, "cycles at {ghz:.2} GHz (dependent add chain)")?,
        (None, _) => writeln!(
            out,
            "cycles unavailable: {}",
            ladder.cycles_unavailable.as_deref().unwrap_or("core clock unknown")
        )?,
    }
    if let Some(check) = ladder.clock_check.as_ref().filter(|c| c.plausible) {
        writeln!(out, "clock check: {}", check.note)?;
    }
    writeln!(out, "spread = (median - min) / min")?;
    let remeasured = ladder.points.iter().filter(|p| p.attempts > 1).count();
    if remeasured > 0 {
        writeln!(
            out,
            "{remeasured} size(s) spread over {:.0}% (disturbed) and were measured again; the least disturbed attempt is shown",
            ladder::SETTLED_SPREAD * 100.0
        )?;
    }
    writeln!(out, "{}", steps_summary(&ladder.steps))?;
    if let Some(p) = &ladder.parallelism {
        writeln!(out, "{}", parallelism_summary(p))?;
    }
    if !ladder.levels.is_empty() {
        writeln!(out, "levels:")?;
        for level in &ladder.levels {
            writeln!(out, "  {}", level_line(level))?;
            if let Some(placed) = level.evidence.first() {
                writeln!(out, "      placed by {placed}")?;
            }
        }
    }
    for sentence in &ladder.verdict {
        writeln!(out, "- {sentence}")?;
    }
    if !declared.is_empty() {
        let caches: Vec<String> = describe::data_caches(declared).into_iter().map(describe::cache_label).collect();
        writeln!(out, "declared caches: {}", caches.join(", "))?;
    }
    if let Some(seconds) = ladder.duration_s {
        writeln!(out, "measured in {seconds:.1} s")?;
    }
    Ok(())
}

/// Every curve's fastest ns per size side by side, with the page-walk share (random against
/// page-local on the same pages) and what THP saves (random on small pages against random on THP)
/// where both halves were measured.
pub fn curves_table(ladder: &Ladder) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    if ladder.curves.is_empty() {
        return None;
    }
    let main = Curve {
        pattern: ladder.pattern.clone(),
        huge_pages: ladder.huge_pages.clone(),
        chains: 1,
        points: ladder.points.clone(),
    };
    let all: Vec<&Curve> = std::iter::once(&main).chain(&ladder.curves).collect();
    let find = |pattern: Pattern, pages: &str| {
        all.iter().find(|c| c.pattern == pattern.name() && c.huge_pages == pages).copied()
    };
    let walks = ["off", "thp", "on", "default"]
        .into_iter()
        .find_map(|pages| Some((pages, find(Pattern::Random, pages)?, find(Pattern::PageLocal, pages)?)));
    let thp = find(Pattern::Random, "off").zip(find(Pattern::Random, "thp"));
    let mut header = vec!["working set".to_string()];
    header.extend(all.iter().map(|c| format!("{} {}", c.pattern.trim_end_matches("-cycle"), c.huge_pages)));
    if let Some((pages, ..)) = walks {
        header.push(format!("page walks ({pages})"));
    }
    if thp.is_some() {
        header.push("THP saves".into());
    }
    let rows = ladder
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let at = |c: &Curve| c.points.get(i).filter(|q| q.bytes == p.bytes).cloned();
            let mut row = vec![format_bytes(p.bytes)];
            row.extend(all.iter().map(|c| at(c).map_or("-".into(), |q| format!("{:.2}", q.ns_per_load.min))));
            if let Some((_, random, local)) = walks {
                row.push(match (at(random), at(local)) {
                    (Some(r), Some(l)) => format!("{:.0}%", explain::page_walk_share(&r, &l) * 100.0),
                    _ => "-".into(),
                });
            }
            if let Some((off, on)) = thp {
                row.push(match (at(off), at(on)) {
                    (Some(off), Some(on)) => format!("{:.0}%", explain::page_walk_share(&off, &on) * 100.0),
                    _ => "-".into(),
                });
            }
            row
        })
        .collect();
    Some((header, rows))
}

pub fn level_line(level: &Level) -> String {
    let cycles = level.cycles_per_load.map_or(String::new(), |c| format!(" ({c:.0} cycles)"));
    let reach = if level.cause == Cause::Dram { "from" } else { "to" };
    format!(
        "{:<18} {reach} {:>8}: {:>7.1} ns{cycles}  [{}]",
        level.name,
        format_bytes(level.size_bytes),
        level.ns_per_load,
        describe::level_notes(level)
    )
}

pub fn parallelism_summary(p: &Parallelism) -> String {
    let curve: Vec<String> = p.points.iter().map(|c| format!("{}: {:.1}", c.chains, c.ns_per_load)).collect();
    let knee = match p.knee_chains {
        Some(k) => format!(
            "knee at {k} chase(s): about {k} misses in flight per core, the parallelism prefetching and radix \
             kernels can use"
        ),
        None => "no knee in range: more chases still paid at the largest count".into(),
    };
    format!(
        "memory-level parallelism at {} (ns/load by chases: {}): {:.1}x faster at best; {knee}",
        format_bytes(p.bytes),
        curve.join(", "),
        p.max_speedup
    )
}

/// The ladder's points as a table, the steps under it.
pub fn table(ladder: &Ladder) -> Table {
    Table {
        header: HEADER.to_vec(),
        rows: ladder.points.iter().map(row).collect(),
        notes: vec![steps_summary(&ladder.steps)],
    }
}
