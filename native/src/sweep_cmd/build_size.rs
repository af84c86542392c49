//! The join's build-size sweep, and its table.

use super::args::*;
use super::print::{kernel_columns, long_table};

pub(super) fn build_size(args: BuildSizeArgs) -> CliResult {
    args.common.export.check()?;
    use memwall_core::join::{self, JoinConfig, race, sweep as join_sweep};
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    let declared = memwall_core::budget::CacheBudget::declared(&host.caches, args.common.race.threads);
    let config = JoinConfig::with_budget(cache_budget::with_host_caches(
        declared,
        &[Kernel::Adaptive],
        &args.common.race,
        &host,
    )?);
    let builds = join_sweep::doublings(args.min_keys, args.max_keys.min(args.probe_rows));
    let Some(&most) = builds.last() else {
        return Err(CliError::usage(format!(
            "no power of two between --min-keys {} and --max-keys {} (at most --probe-rows {})",
            args.min_keys, args.max_keys, args.probe_rows
        )));
    };
    let truth = race::Truth { known: None, reference: args.common.race.rules.truth(args.probe_rows, None).reference };
    let scratch =
        args.kernel.0.iter().map(|&k| join::scratch_bytes(k, most, args.probe_rows, &config, args.common.race.threads));
    // Both sides, the pool's largest kernel, and the reference's sorted copies of both.
    let sides = args.probe_rows.saturating_mul(8).saturating_add(most.saturating_mul(16));
    let reference = if truth.reference { sides } else { 0 };
    let needed = sides.saturating_add(scratch.max().unwrap_or(0)).saturating_add(reference);
    platform::check_fits_in_memory(needed, &format!("--probe-rows {} with --max-keys {most}", args.probe_rows))?;
    let sweeper = race::Racer {
        kernels: &args.kernel.0,
        memory: &SCRATCH,
        policy: args.common.race.rules.memory,
        runs: args.common.race.runs,
        work: race::JoinWork { config, exec: &threads, clock: &clock, truth },
    };
    let bar = progress((builds.len() * args.kernel.0.len()) as u64);
    let result = sweeper.build_size(args.probe_rows, &builds, args.skew, args.seed, args.miss_rate, &mut |event| {
        match event {
            join_sweep::SweepEvent::Generating { x } => bar.set_message(format!("generating {x} build keys")),
            join_sweep::SweepEvent::Running { x, kernel, run, runs } => {
                bar.set_message(format!("{x} build keys: {} run {}/{runs}", kernel.name(), run + 1));
            }
            join_sweep::SweepEvent::Measured { .. } => bar.inc(1),
        }
        ControlFlow::Continue(())
    });
    bar.finish_and_clear();
    let mut sweep = result.map_err(|e| match e {
        join_sweep::SweepError::Data(_) => CliError::usage(e.to_string()),
        _ => CliError::runtime(e.to_string()),
    })?;
    join_sweep::judge(&mut sweep, args.tolerance);
    let mut out = args.common.export.human();
    print_build_sweep(&mut *out, &sweep).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out, "caches the tables are sized by: {}", config.budget.describe()).ok();
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_probe)).collect();
    let table = || long_table(&points, "ns per probe");
    let report = || {
        let dataset = memwall_report::JoinDataset {
            build_keys: most,
            probe_rows: args.probe_rows,
            miss_rate: args.miss_rate,
            misses: 0,
            generator: Some(memwall_report::Generator { preset: None, skew: args.skew.name(), shape: None }),
            seed: Some(args.seed),
        };
        let join = memwall_report::Join { dataset, runs: Vec::new(), sweeps: vec![sweep.clone()] };
        memwall_report::Report { join: Some(join), ..output::new_report(host.clone()) }
    };
    args.common.export.write(report, || table().csv(), table)
}

/// One row per build size, one ns/probe column per kernel (the fastest marked with `*`), the
/// fastest kernel and prefetch against it; then where partitioning began to pay and where
/// prefetching alone stopped being enough.
pub fn print_build_sweep(out: &mut dyn Write, sweep: &memwall_report::JoinSweep) -> std::io::Result<()> {
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_probe)).collect();
    let (kernels, mut header, mut rows) = kernel_columns(&points, "build keys", "ns/probe");
    let has = |k: &str| kernels.contains(&k);
    let tolerance = sweep.prefetch_tolerance_share;
    header.push("fastest kernel".into());
    if tolerance.is_some() {
        header.push("prefetch vs fastest".into());
    }
    for row in &mut rows {
        let fastest = sweep.fastest.iter().find(|f| f.build_keys.to_string() == row[0]);
        row.push(fastest.map_or("-".into(), |f| f.kernel.clone()));
        if let Some(tolerance) = tolerance {
            row.push(match fastest.and_then(|f| f.prefetch_over_fastest) {
                Some(r) if r <= 1.0 => "fastest".into(),
                Some(r) => format!("+{:.0}%{}", (r - 1.0) * 100.0, if r > 1.0 + tolerance { "" } else { " (enough)" }),
                None => "-".into(),
            });
        }
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    writeln!(
        out,
        "{} probe rows per point, build and probe together, each the fastest of its runs; * marks the fastest \
         column, `fastest kernel` leaves adaptive out (it runs one of the others)",
        sweep.probe_rows
    )?;
    write!(out, "{}", output::table(&header, &rows))?;
    if sweep.crossovers.is_empty() {
        // A report from before the crossovers were kept.
        for (from, slow) in
            [(sweep.partitioned_beats_naive_from, "naive"), (sweep.partitioned_beats_prefetch_from, "prefetch")]
        {
            match from {
                Some(x) => writeln!(out, "partitioned beats {slow} from {x} build keys on")?,
                None if has("partitioned") && has(slow) => {
                    writeln!(out, "partitioned never beat {slow} for good in this range")?
                }
                None => {}
            }
        }
    }
    for c in &sweep.crossovers {
        match c.from_build_keys {
            Some(x) => writeln!(out, "{} beats {} from {x} build keys on", c.kernel, c.versus)?,
            None => writeln!(out, "{} never beat {} for good in this range", c.kernel, c.versus)?,
        }
    }
    if let Some(tolerance) = tolerance {
        let pct = tolerance * 100.0;
        match sweep.prefetch_falls_behind_from {
            Some(x) => writeln!(
                out,
                "prefetch alone is more than {pct:.0}% behind the fastest from {x} build keys on; below that, at the sizes marked (enough), one prefetched table suffices"
            )?,
            None => writeln!(
                out,
                "prefetch alone did not fall more than {pct:.0}% behind the fastest for good in this range"
            )?,
        }
    }
    writeln!(out, "checked: {}", sweep.verified_by.join(", "))?;
    Ok(())
}
