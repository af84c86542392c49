//! `memwall sweep cardinality|partitions`: ns per row as the groups, or the partitions, grow.

use std::io::Write;
use std::ops::ControlFlow;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::groupby::datagen::{self, Skew};
use memwall_core::groupby::race::Racer;
use memwall_core::groupby::sweep::{self, SweepError, SweepEvent};
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, Values};
use memwall_report::{GroupBy, Report, Source, Sweep};

use crate::arena::SCRATCH;
use crate::dataset::DataArgs;
use crate::groupby_cmd::{self, KernelList, RuleArgs, parse_kernels};
use crate::output::{self, Destination};
use crate::platform::{self, NativeClock};
use crate::threads::Threads;
use crate::{CliError, CliResult};
use memwall_core::size::parse_count;

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub kind: SweepKind,
}

#[derive(Debug, Subcommand)]
pub enum SweepKind {
    /// ns/row per kernel as distinct keys double at a fixed number of rows, and the crossover
    /// from which radix beats naive.
    Cardinality(CardinalityArgs),
    /// ns/row of radix and tuned as the partition count doubles: the U between tables too big
    /// for cache and too many write streams.
    Partitions(PartitionsArgs),
    /// ns per probe row of the join kernels as the build side doubles, the probe side's rows
    /// fixed: where partitioning starts to beat one table, and where prefetching alone suffices.
    BuildSize(BuildSizeArgs),
}

#[derive(Debug, Clone, Args)]
pub struct BuildSizeArgs {
    /// Probe rows at every point; at least --max-keys (every build key is probed).
    #[arg(long, default_value = "32Mi", value_parser = parse_count)]
    pub probe_rows: u64,
    /// Fewest build keys (rounded up to a power of two).
    #[arg(long, default_value = "1Ki", value_parser = parse_count)]
    pub min_keys: u64,
    /// Most build keys; at most --probe-rows.
    #[arg(long, default_value = "16Mi", value_parser = parse_count)]
    pub max_keys: u64,
    /// How probe rows spread over the build keys: uniform, or zipf:S.
    #[arg(long, default_value = "uniform", value_parser = Skew::parse)]
    pub skew: Skew,
    /// Share of probe rows (0 to 1) replaced by keys that are not on the build side.
    #[arg(long, default_value_t = 0.0, value_parser = crate::join_cmd::parse_rate)]
    pub miss_rate: f64,
    /// Seed of the generator.
    #[arg(long, default_value_t = datagen::DEFAULT_SEED)]
    pub seed: u64,
    /// Join kernels to sweep: naive, partitioned, prefetch, tuned, adaptive, all, or a comma list.
    #[arg(long, default_value = "all", value_parser = crate::join_cmd::parse_kernels)]
    pub kernel: crate::join_cmd::JoinKernels,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// What both sweeps share.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// Threads for radix, tuned and adaptive.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Pin the first thread to this CPU (and further threads to the next CPUs).
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    /// Timed runs per point (the point is the fastest: noise only ever adds time).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Write the report as JSON to PATH, or to stdout with `-` (the table then goes to stderr).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<Destination>,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Size adaptive's limits by the caches the OS declares instead of measuring them first
    /// with a short ladder (about a second).
    #[arg(long)]
    pub declared_caches: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CardinalityArgs {
    /// Rows at every point (e.g. 64Mi).
    #[arg(long, default_value = "64Mi", value_parser = parse_count)]
    pub rows: u64,
    /// Fewest distinct keys (rounded up to a power of two).
    #[arg(long, default_value = "1Ki", value_parser = parse_count)]
    pub min_keys: u64,
    /// Most distinct keys; at most --rows.
    #[arg(long, default_value = "64Mi", value_parser = parse_count)]
    pub max_keys: u64,
    /// How rows spread over keys: uniform, or zipf:S.
    #[arg(long, default_value = "uniform", value_parser = Skew::parse)]
    pub skew: Skew,
    /// Seed of the generator.
    #[arg(long, default_value_t = datagen::DEFAULT_SEED)]
    pub seed: u64,
    /// Kernels to sweep: naive, radix, tuned, prefetch, adaptive, all, or a comma list.
    #[arg(long, default_value = "all", value_parser = parse_kernels)]
    pub kernel: KernelList,
    /// Partitions for radix and tuned.
    #[arg(long, default_value_t = groupby::DEFAULT_PARTITIONS)]
    pub partitions: u32,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Debug, Clone, Args)]
pub struct PartitionsArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Fewest partitions (a power of two, at least 2).
    #[arg(long, default_value_t = 16)]
    pub min: u32,
    /// Most partitions (a power of two, at most 65536).
    #[arg(long, default_value_t = 65536)]
    pub max: u32,
    /// Kernels to sweep (those that partition): radix, tuned, or both.
    #[arg(long, default_value = "radix,tuned", value_parser = parse_kernels)]
    pub kernel: KernelList,
    /// What each group computes, as for `groupby --agg`: a larger state moves the best
    /// partition count (sum, min, max and avg read the value column of --value-type).
    #[arg(long, default_value = "count", value_parser = Aggregates::parse)]
    pub agg: Aggregates,
    #[command(flatten)]
    pub common: CommonArgs,
}

pub fn sweep(args: SweepArgs) -> CliResult {
    match args.kind {
        SweepKind::Cardinality(args) => cardinality(args),
        SweepKind::Partitions(args) => partitions(args),
        SweepKind::BuildSize(args) => build_size(args),
    }
}

fn progress(total: u64) -> ProgressBar {
    ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{spinner} sweep [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    )
}

fn on_event(bar: &ProgressBar) -> impl FnMut(SweepEvent) -> ControlFlow<()> + '_ {
    move |event| {
        match event {
            SweepEvent::Generating { x } => bar.set_message(format!("generating data, x = {x}")),
            SweepEvent::Running { x, kernel, run, runs } => {
                bar.set_message(format!("x = {x}: {} run {}/{runs}", kernel.name(), run + 1));
            }
            SweepEvent::Measured { .. } => bar.inc(1),
        }
        ControlFlow::Continue(())
    }
}

fn sweep_error(e: SweepError) -> CliError {
    match e {
        SweepError::Invalid(_) | SweepError::Data(_) | SweepError::GroupBy(groupby::GroupByError::Partitions(_)) => {
            CliError::usage(e.to_string())
        }
        _ => CliError::runtime(e.to_string()),
    }
}

fn cardinality(args: CardinalityArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::ladder_cmd::measured_host(&clock);
    let threads = Threads::new(args.common.threads, args.common.pin)?;
    let config = groupby_cmd::groupby_config(args.partitions, &host, args.common.threads)?;
    let config = groupby_cmd::with_host_caches(config, &args.kernel.0, args.common.declared_caches, &host);
    let distinct = sweep::doublings(args.min_keys, args.max_keys.min(args.rows));
    if distinct.is_empty() {
        return Err(CliError::usage(format!(
            "no power of two between --min-keys {} and --max-keys {} (at most --rows {})",
            args.min_keys, args.max_keys, args.rows
        )));
    }
    let most = *distinct.last().unwrap_or(&1);
    let scratch =
        args.kernel.0.iter().map(|&k| groupby::scratch_bytes(k, args.rows, most, &config, args.common.threads));
    // The keys, the one pool's largest kernel, and the reference's sorted copy if it runs.
    let truth = args.common.rules.truth(args.rows, None);
    let reference = if truth.reference { args.rows.saturating_mul(8) } else { 0 };
    let needed = args.rows.saturating_mul(8).saturating_add(scratch.max().unwrap_or(0)).saturating_add(reference);
    platform::check_fits_in_memory(needed, &format!("--rows {} with --max-keys {most}", args.rows))?;
    let sweeper = Racer {
        kernels: &args.kernel.0,
        config,
        exec: &threads,
        memory: &SCRATCH,
        policy: args.common.rules.memory,
        clock: &clock,
        runs: args.common.runs,
        truth,
        phases: None,
        values: Values::None,
    };
    let bar = progress((distinct.len() * args.kernel.0.len()) as u64);
    let result = sweeper.cardinality(args.rows, &distinct, args.skew, args.seed, &mut on_event(&bar));
    bar.finish_and_clear();
    let result = result.map_err(sweep_error)?;
    let dataset = memwall_report::Dataset {
        rows: args.rows,
        distinct_keys: most,
        generator: Some(memwall_report::Generator { preset: None, skew: args.skew.name() }),
        input: None,
        seed: Some(args.seed),
        max_rows_per_key: None,
    };
    finish(&args.common, host, dataset, result, "distinct keys", None)
}

fn partitions(args: PartitionsArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::ladder_cmd::measured_host(&clock);
    let threads = Threads::new(args.common.threads, args.common.pin)?;
    for (flag, p) in [("--min", args.min), ("--max", args.max)] {
        groupby::check_partitions(p).map_err(|e| CliError::usage(format!("{flag}: {e}")))?;
    }
    let counts: Vec<u32> =
        sweep::doublings(u64::from(args.min), u64::from(args.max)).into_iter().map(|p| p as u32).collect();
    let config =
        GroupByConfig { aggregates: args.agg, ..groupby_cmd::groupby_config(args.min, &host, args.common.threads)? };
    let kernels = &args.kernel.0;
    let rules = &args.common.rules;
    let scratch = |rows: u64, groups: u64| -> u64 {
        let most = counts
            .iter()
            .flat_map(|&p| {
                let config = GroupByConfig { partitions: p, ..config };
                kernels.iter().map(move |&k| groupby::scratch_bytes(k, rows, groups, &config, args.common.threads))
            })
            .max()
            .unwrap_or(0);
        let reference = if rules.truth(rows, None).reference { rows.saturating_mul(8) } else { 0 };
        most.saturating_add(reference)
    };
    let data = crate::dataset::load(&args.data, &threads, &scratch, args.agg.needs_values())?;
    let sweeper = Racer {
        kernels,
        config,
        exec: &threads,
        memory: &SCRATCH,
        policy: rules.memory,
        clock: &clock,
        runs: args.common.runs,
        truth: groupby_cmd::truth(rules, &data.dataset),
        phases: None,
        values: data.values.as_ref().map_or(Values::None, ValueColumn::values),
    };
    let bar = progress((counts.len() * kernels.iter().filter(|k| k.uses_partitions()).count()) as u64);
    let result = sweeper.partitions(&data.keys, &counts, &mut on_event(&bar));
    bar.finish_and_clear();
    let result = result.map_err(sweep_error)?;
    let query = args.agg.needs_values().then(|| memwall_report::Query {
        aggregates: args.agg.names().iter().map(|n| n.to_string()).collect(),
        value_type: data.values.as_ref().map_or("none", |v| v.value_type().name()).into(),
        value_column: data.value_column.clone(),
    });
    finish(&args.common, host, data.dataset, result, "partitions", query)
}

fn build_size(args: BuildSizeArgs) -> CliResult {
    use memwall_core::join::{self, JoinConfig, race, sweep as join_sweep};
    let clock = NativeClock::new();
    let host = crate::ladder_cmd::measured_host(&clock);
    let threads = Threads::new(args.common.threads, args.common.pin)?;
    let config = groupby_cmd::groupby_config(groupby::DEFAULT_PARTITIONS, &host, args.common.threads)?;
    let config = JoinConfig::from(groupby_cmd::with_host_caches(
        config,
        &[Kernel::Adaptive],
        args.common.declared_caches,
        &host,
    ));
    let builds = join_sweep::doublings(args.min_keys, args.max_keys.min(args.probe_rows));
    let Some(&most) = builds.last() else {
        return Err(CliError::usage(format!(
            "no power of two between --min-keys {} and --max-keys {} (at most --probe-rows {})",
            args.min_keys, args.max_keys, args.probe_rows
        )));
    };
    let truth = race::Truth { matches: None, reference: args.common.rules.truth(args.probe_rows, None).reference };
    let scratch =
        args.kernel.0.iter().map(|&k| join::scratch_bytes(k, most, args.probe_rows, &config, args.common.threads));
    // Both sides, the pool's largest kernel, and the reference's sorted copies of both.
    let sides = args.probe_rows.saturating_mul(8).saturating_add(most.saturating_mul(16));
    let reference = if truth.reference { sides } else { 0 };
    let needed = sides.saturating_add(scratch.max().unwrap_or(0)).saturating_add(reference);
    platform::check_fits_in_memory(needed, &format!("--probe-rows {} with --max-keys {most}", args.probe_rows))?;
    let sweeper = race::Racer {
        kernels: &args.kernel.0,
        config,
        exec: &threads,
        memory: &SCRATCH,
        policy: args.common.rules.memory,
        clock: &clock,
        runs: args.common.runs,
        truth,
    };
    let bar = progress((builds.len() * args.kernel.0.len()) as u64);
    let result = sweeper.build_size(args.probe_rows, &builds, args.skew, args.seed, args.miss_rate, &mut |event| {
        match event {
            join_sweep::SweepEvent::Generating { x } => bar.set_message(format!("generating {x} build keys")),
            join_sweep::SweepEvent::Running { x, kernel, run, runs } => {
                if run == 0 {
                    bar.inc(1);
                }
                bar.set_message(format!("{x} build keys: {} run {}/{runs}", kernel.name(), run + 1));
            }
        }
        ControlFlow::Continue(())
    });
    bar.finish_and_clear();
    let sweep = result.map_err(|e| match e {
        join_sweep::SweepError::Data(_) => CliError::usage(e.to_string()),
        _ => CliError::runtime(e.to_string()),
    })?;
    let json_on_stdout = args.common.json == Some(Destination::Stdout);
    let mut out = output::human(json_on_stdout);
    print_build_sweep(&mut *out, &sweep).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(
        out,
        "caches the tables are sized by: {} per core, {} last level ({})",
        memwall_core::size::format_bytes(config.cache_bytes),
        memwall_core::size::format_bytes(config.llc_bytes),
        config.caches_from.describe()
    )
    .ok();
    if let Some(destination) = &args.common.json {
        let mut report = Report::new(Source::Native, output::unix_now(), host);
        let dataset = memwall_report::JoinDataset {
            build_keys: most,
            probe_rows: args.probe_rows,
            miss_rate: args.miss_rate,
            misses: 0,
            generator: Some(memwall_report::Generator { preset: None, skew: args.skew.name() }),
            seed: Some(args.seed),
        };
        report.join = Some(memwall_report::Join { dataset, runs: Vec::new(), sweeps: vec![sweep] });
        output::write_report(destination, &report)?;
    }
    Ok(())
}

/// A sweep as a table: one row per x, one column per kernel (in the order first seen), the
/// fastest of each row marked with `*`. Returns the kernels, the header and the rows.
fn kernel_columns<'a>(
    points: &[(u64, &'a str, f64)],
    x_name: &str,
    unit: &str,
) -> (Vec<&'a str>, Vec<String>, Vec<Vec<String>>) {
    let mut kernels: Vec<&str> = Vec::new();
    let mut xs: Vec<u64> = Vec::new();
    for &(x, kernel, _) in points {
        if !kernels.contains(&kernel) {
            kernels.push(kernel);
        }
        if !xs.contains(&x) {
            xs.push(x);
        }
    }
    let rows = xs
        .iter()
        .map(|&x| {
            let at = |k: &str| points.iter().find(|p| p.0 == x && p.1 == k).map(|p| p.2);
            let best = kernels.iter().filter_map(|k| at(k)).min_by(f64::total_cmp);
            let mut row = vec![x.to_string()];
            row.extend(kernels.iter().map(|k| match at(k) {
                Some(ns) if Some(ns) == best && kernels.len() > 1 => format!("*{ns:.2}"),
                Some(ns) => format!("{ns:.2}"),
                None => "-".into(),
            }));
            row
        })
        .collect();
    let mut header = vec![x_name.to_string()];
    header.extend(kernels.iter().map(|k| format!("{k} {unit}")));
    (kernels, header, rows)
}

/// One row per build size, one ns/probe column per kernel (the fastest marked with `*`), and
/// where partitioning began to pay.
pub fn print_build_sweep(out: &mut dyn Write, sweep: &memwall_report::JoinSweep) -> std::io::Result<()> {
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_probe)).collect();
    let (kernels, header, rows) = kernel_columns(&points, "build keys", "ns/probe");
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    writeln!(
        out,
        "{} probe rows per point, build and probe together, each the fastest of its runs; * marks the fastest kernel",
        sweep.probe_rows
    )?;
    write!(out, "{}", output::table(&header, &rows))?;
    let has = |k: &str| kernels.contains(&k);
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
    writeln!(out, "checked: {}", sweep.verified_by.join(", "))?;
    Ok(())
}

fn finish(
    common: &CommonArgs,
    host: memwall_report::Host,
    dataset: memwall_report::Dataset,
    sweep: Sweep,
    x_name: &str,
    query: Option<memwall_report::Query>,
) -> CliResult {
    let json_on_stdout = common.json == Some(Destination::Stdout);
    let mut out = output::human(json_on_stdout);
    print_sweep(&mut *out, &sweep, x_name).map_err(|e| CliError::runtime(e.to_string()))?;
    if let Some(query) = &query {
        writeln!(out, "aggregates: {} over {} values", query.aggregates.join(", "), query.value_type).ok();
    }
    if let Some(destination) = &common.json {
        let mut report = Report::new(Source::Native, output::unix_now(), host);
        report.groupby = Some(GroupBy { dataset, runs: Vec::new(), sweeps: vec![sweep], query });
        output::write_report(destination, &report)?;
    }
    Ok(())
}

/// One row per x, one ns/row column per kernel, the fastest marked with `*`.
pub fn print_sweep(out: &mut dyn Write, sweep: &Sweep, x_name: &str) -> std::io::Result<()> {
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_row)).collect();
    let (kernels, header, rows) = kernel_columns(&points, x_name, "ns/row");
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    writeln!(out, "{} rows per point, each the fastest of its runs; * marks the fastest kernel", sweep.rows)?;
    write!(out, "{}", output::table(&header, &rows))?;
    if sweep.kind == "cardinality" {
        match sweep.crossover_distinct_keys {
            Some(x) => writeln!(out, "radix beats naive from {x} distinct keys on")?,
            None if kernels.contains(&Kernel::Radix.name()) && kernels.contains(&Kernel::Naive.name()) => {
                writeln!(out, "radix never beat naive for good in this range")?
            }
            None => {}
        }
        if let Some(slowdown) = sweep.adaptive_max_slowdown {
            writeln!(out, "adaptive was at worst {:.1}% slower than the best kernel", (slowdown - 1.0) * 100.0)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_table_has_a_column_per_kernel_and_stars_the_fastest() {
        let points = [
            (1024, "naive", 5.0),
            (1024, "tuned", 7.5),
            (2048, "naive", 9.0),
            (2048, "tuned", 8.0),
            (4096, "tuned", 8.5),
        ];
        let (kernels, header, rows) = kernel_columns(&points, "build keys", "ns/probe");
        assert_eq!(kernels, ["naive", "tuned"]);
        assert_eq!(header, ["build keys", "naive ns/probe", "tuned ns/probe"]);
        assert_eq!(rows, [["1024", "*5.00", "7.50"], ["2048", "9.00", "*8.00"], ["4096", "-", "*8.50"]]);
    }
}
