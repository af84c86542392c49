//! `memwall cores`: core-to-core latency, one cache line bounced between two pinned threads for
//! every pair of CPUs this process may use (as `c2clat` and `core-to-core-latency` measure it),
//! read into tiers by the core and checked against sysfs.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::cores::{self, cpus_text, parse_cpu_list};
use memwall_report::{CorePair, Cores, DeclaredTopology, Report, quantile};

use crate::error::{CliError, CliResult};
use crate::output::{self, ExportArgs};
use crate::print::cores::{print_cores, table};

#[derive(Debug, Args)]
pub struct CoresArgs {
    /// Timed samples per pair; the median and p10-p90 are over these.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(3..=100_000))]
    pub samples: u32,
    /// Round trips per sample (one-way = sample time / round trips / 2).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub round_trips: u32,
    /// The CPUs to measure, as a list such as 0-3,8 (default: every CPU this process may use).
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,
    #[command(flatten)]
    pub export: ExportArgs,
}

/// What the responder writes when it cannot go on; never a round-trip count.
const STOP: u64 = u64::MAX;

/// One cache line to itself, so that nothing else on it moves with the bounces.
#[repr(align(128))]
struct Line(AtomicU64);

pub fn cores(args: CoresArgs) -> CliResult {
    args.export.check()?;
    let allowed = allowed_cpus();
    let cpus = match &args.cpus {
        None => allowed.clone(),
        Some(list) => {
            let asked = parse_cpu_list(list).map_err(|e| CliError::usage(format!("--cpus: {e}")))?;
            if let Some(cpu) = asked.iter().find(|c| !allowed.contains(c)) {
                return Err(CliError::usage(format!(
                    "--cpus: CPU {cpu} is not one this process may use ({})",
                    cpus_text(&allowed)
                )));
            }
            asked
        }
    };
    let mut result = Cores {
        cpus: cpus.clone(),
        round_trips_per_sample: args.round_trips,
        pairs: Vec::new(),
        declared: declared_topology(Path::new("/sys/devices/system/cpu"), &cpus),
        tiers: vec![],
        agreement: vec![],
        topology: String::new(),
    };
    let pairs: Vec<(u32, u32)> =
        cpus.iter().enumerate().flat_map(|(i, &a)| cpus[i + 1..].iter().map(move |&b| (a, b))).collect();
    let bar = ProgressBar::new(pairs.len() as u64).with_style(
        ProgressStyle::with_template("{spinner} cores [{bar:30}] {pos}/{len} pairs {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    for &(a, b) in &pairs {
        bar.set_message(format!("{a}-{b}"));
        result.pairs.push(measure_pair(a, b, args.samples, args.round_trips)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    cores::read(&mut result);
    print_cores(&mut *args.export.human(), &result).map_err(|e| CliError::runtime(e.to_string()))?;
    args.export.write(
        || Report { cores: Some(result.clone()), ..output::new_report(crate::host::describe()) },
        || table(&result).csv(),
        || table(&result),
    )
}

fn allowed_cpus() -> Vec<u32> {
    let mut cpus: Vec<u32> = core_affinity::get_core_ids().unwrap_or_default().iter().map(|c| c.id as u32).collect();
    cpus.sort_unstable();
    cpus
}

/// Bounces a line between a thread on `a` (which times) and one on `b` (which answers).
fn measure_pair(a: u32, b: u32, samples: u32, round_trips: u32) -> CliResult<CorePair> {
    let line = Line(AtomicU64::new(0));
    let line = &line.0;
    let timed = std::thread::scope(|scope| {
        scope.spawn(move || {
            if !core_affinity::set_for_current(core_affinity::CoreId { id: b as usize }) {
                line.store(STOP, Ordering::Release);
                return;
            }
            // Answers each odd value with the next even one until told to stop.
            let mut expect = 1u64;
            loop {
                let seen = loop {
                    let v = line.load(Ordering::Acquire);
                    if v == expect || v == STOP {
                        break v;
                    }
                };
                if seen == STOP {
                    return;
                }
                line.store(expect + 1, Ordering::Release);
                expect += 2;
            }
        });
        scope
            .spawn(move || -> Result<Vec<f64>, String> {
                if !core_affinity::set_for_current(core_affinity::CoreId { id: a as usize }) {
                    line.store(STOP, Ordering::Release);
                    return Err(format!("could not pin a thread to CPU {a}"));
                }
                let mut value = 0u64;
                let mut bounce = |n: u32| -> Result<(), String> {
                    for _ in 0..n {
                        line.store(value + 1, Ordering::Release);
                        loop {
                            match line.load(Ordering::Acquire) {
                                v if v == value + 2 => break,
                                STOP => return Err(format!("could not pin a thread to CPU {b}")),
                                _ => {}
                            }
                        }
                        value += 2;
                    }
                    Ok(())
                };
                // Untimed first: both threads on their CPUs and the line in play.
                let warm = bounce(round_trips.saturating_mul(10).min(100_000));
                let mut one_way = Vec::with_capacity(samples as usize);
                if warm.is_ok() {
                    for _ in 0..samples {
                        let start = Instant::now();
                        if let Err(e) = bounce(round_trips) {
                            line.store(STOP, Ordering::Release);
                            return Err(e);
                        }
                        one_way.push(start.elapsed().as_nanos() as f64 / f64::from(round_trips) / 2.0);
                    }
                }
                line.store(STOP, Ordering::Release);
                warm.map(|()| one_way)
            })
            .join()
            .unwrap_or_else(|_| Err("the timing thread stopped unexpectedly".into()))
    })
    .map_err(|e| CliError::runtime(format!("cores {a}-{b}: {e}")))?;
    let mut sorted = timed;
    sorted.sort_by(f64::total_cmp);
    Ok(CorePair {
        cpu_a: a,
        cpu_b: b,
        one_way_median_ns: quantile(&sorted, 0.5),
        one_way_p10_ns: quantile(&sorted, 0.1),
        one_way_p90_ns: quantile(&sorted, 0.9),
        samples: sorted.len() as u32,
    })
}

/// SMT siblings and last-level-cache groups of `cpus` as sysfs (under `root`) lists them, or
/// `None` where it lists neither.
pub fn declared_topology(root: &Path, cpus: &[u32]) -> Option<DeclaredTopology> {
    let read_list = |path: &Path| std::fs::read_to_string(path).ok().and_then(|t| parse_cpu_list(&t).ok());
    let mut smt: Vec<Vec<u32>> = Vec::new();
    let mut llc: Vec<Vec<u32>> = Vec::new();
    let mut llc_level = None;
    for &cpu in cpus {
        let dir = root.join(format!("cpu{cpu}"));
        if let Some(list) = read_list(&dir.join("topology/thread_siblings_list")) {
            smt.push(list);
        }
        let caches = std::fs::read_dir(dir.join("cache")).into_iter().flatten().filter_map(Result::ok);
        let highest = caches
            .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
            .filter_map(|e| {
                let path = e.path();
                let kind = std::fs::read_to_string(path.join("type")).ok()?;
                let level: u8 = std::fs::read_to_string(path.join("level")).ok()?.trim().parse().ok()?;
                (kind.trim() != "Instruction").then_some((level, path))
            })
            .max_by_key(|(level, _)| *level);
        if let Some((level, path)) = highest
            && let Some(list) = read_list(&path.join("shared_cpu_list"))
        {
            llc.push(list);
            llc_level = Some(level);
        }
    }
    if smt.is_empty() && llc.is_empty() {
        return None;
    }
    let dedup = |mut groups: Vec<Vec<u32>>| {
        groups.sort();
        groups.dedup();
        groups
    };
    Some(DeclaredTopology { smt_siblings: dedup(smt), llc_groups: dedup(llc), llc_level })
}

/// The matrix (medians), every pair with its spread, the tiers and what sysfs says: also what
/// `memwall explain` prints for a report with a cores section.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_topology_from_a_fake_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        for cpu in 0..4u32 {
            let base = dir.path().join(format!("cpu{cpu}"));
            std::fs::create_dir_all(base.join("topology")).unwrap();
            std::fs::write(base.join("topology/thread_siblings_list"), if cpu < 2 { "0-1\n" } else { "2-3\n" })
                .unwrap();
            for (index, level, kind, shared) in
                [(0, "1", "Data", "x"), (1, "1", "Instruction", "x"), (3, "3", "Unified", "0-3")]
            {
                let shared = if shared == "x" { cpu.to_string() } else { shared.to_string() };
                let cache = base.join(format!("cache/index{index}"));
                std::fs::create_dir_all(&cache).unwrap();
                std::fs::write(cache.join("level"), level).unwrap();
                std::fs::write(cache.join("type"), kind).unwrap();
                std::fs::write(cache.join("shared_cpu_list"), shared).unwrap();
            }
        }
        let declared = declared_topology(dir.path(), &[0, 1, 2, 3]).unwrap();
        assert_eq!(declared.smt_siblings, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(declared.llc_groups, vec![vec![0, 1, 2, 3]]);
        assert_eq!(declared.llc_level, Some(3));
        assert_eq!(declared_topology(&dir.path().join("none"), &[0]), None);
    }

    #[test]
    fn a_pair_of_this_hosts_cpus_gives_positive_ordered_figures() {
        let cpus = allowed_cpus();
        let [a, b, ..] = cpus[..] else { return };
        let pair = measure_pair(a, b, 20, 50).unwrap();
        assert_eq!((pair.cpu_a, pair.cpu_b, pair.samples), (a, b, 20));
        assert!(pair.one_way_p10_ns > 0.0, "{pair:?}");
        assert!(pair.one_way_p10_ns <= pair.one_way_median_ns && pair.one_way_median_ns <= pair.one_way_p90_ns);
    }
}
