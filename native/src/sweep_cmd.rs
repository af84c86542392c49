//! `memwall sweep cardinality|partitions`: ns per row as the groups, or the partitions, grow.

use std::io::Write;
use std::ops::ControlFlow;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::datagen::{self, Skew};
use memwall_core::groupby::race::Racer;
use memwall_core::groupby::sweep::{self, SweepError, SweepEvent};
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, ValueType, Values};
use memwall_report::{GroupBy, Report, Source, Sweep};

use crate::arena::SCRATCH;
use crate::dataset::DataArgs;
use crate::groupby_cmd;
use crate::output::{self, Destination};
use crate::platform::{self, NativeClock};
use crate::race_args::{KernelList, RaceArgs, parse_kernels};
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
    #[arg(long, default_value = "all", value_parser = parse_kernels::<memwall_core::join::Kernel>)]
    pub kernel: KernelList<memwall_core::join::Kernel>,
    /// How much slower than the fastest kernel prefetch may be (0 to 1, 0.1 = 10%) and still
    /// count as enough, for the verdict on where prefetching alone suffices.
    #[arg(long, default_value_t = memwall_core::join::sweep::DEFAULT_PREFETCH_TOLERANCE,
          value_parser = crate::join_cmd::parse_rate)]
    pub tolerance: f64,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// What every sweep shares.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    pub race: RaceArgs,
    /// Write the report as JSON to PATH, or to stdout with `-` (the table then goes to stderr).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<Destination>,
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
    #[arg(long, default_value = "all", value_parser = parse_kernels::<Kernel>)]
    pub kernel: KernelList<Kernel>,
    /// Partitions for radix and tuned.
    #[arg(long, default_value_t = groupby::DEFAULT_PARTITIONS)]
    pub partitions: u32,
    #[command(flatten)]
    pub states: StateArgs,
    /// Type of the generated value column that sum, min, max and avg read: i64 or f64.
    #[arg(long, default_value = "i64", value_parser = ValueType::parse)]
    pub value_type: ValueType,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The aggregate lists a GROUP BY sweep is repeated for, each a state size per group.
#[derive(Debug, Clone, Args)]
pub struct StateArgs {
    /// What each group computes, as for `groupby --agg` (a comma list of count, sum, min, max,
    /// avg; all but count read the value column). Repeat the flag to sweep several states in one
    /// run, e.g. `--agg count --agg sum --agg sum,min,max,count`: one sweep per list, then one
    /// table of how the result moves with the state's bytes per group.
    #[arg(long = "agg", value_name = "LIST", default_value = "count", value_parser = Aggregates::parse,
          action = clap::ArgAction::Append)]
    pub lists: Vec<Aggregates>,
}

impl StateArgs {
    fn need_values(&self) -> bool {
        self.lists.iter().any(|a| a.needs_values())
    }

    /// The configs of the sweeps, one per list, in the order given.
    fn configs(&self, config: GroupByConfig) -> Vec<GroupByConfig> {
        self.lists.iter().map(|&aggregates| GroupByConfig { aggregates, ..config }).collect()
    }
}

/// Runs `one` per aggregate list, giving it the list's config and value column (none for a count,
/// which reads no values); an error names the list when there are several.
fn per_state(
    states: &StateArgs,
    config: GroupByConfig,
    values: Option<&ValueColumn>,
    one: &mut dyn FnMut(GroupByConfig, Values<'_>) -> Result<Sweep, SweepError>,
) -> CliResult<Vec<Sweep>> {
    let several = states.lists.len() > 1;
    states
        .configs(config)
        .into_iter()
        .map(|config| {
            let values = match values {
                Some(column) if config.aggregates.needs_values() => column.values(),
                _ => Values::None,
            };
            one(config, values).map_err(|e| {
                let e = sweep_error(e);
                if several { e.context(&format!("--agg {}", config.aggregates.describe())) } else { e }
            })
        })
        .collect()
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
    #[arg(long, default_value = "radix,tuned", value_parser = parse_kernels::<Kernel>)]
    pub kernel: KernelList<Kernel>,
    /// A larger state moves the best partition count (the values are those of --value-type,
    /// or --value-column of an --input file).
    #[command(flatten)]
    pub states: StateArgs,
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
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    let config = groupby_cmd::groupby_config(args.partitions, &host, args.common.race.threads)?;
    let budget = groupby_cmd::with_host_caches(config.budget, &args.kernel.0, args.common.race.declared_caches, &host);
    let config = groupby::GroupByConfig { budget, ..config };
    let distinct = sweep::doublings(args.min_keys, args.max_keys.min(args.rows));
    if distinct.is_empty() {
        return Err(CliError::usage(format!(
            "no power of two between --min-keys {} and --max-keys {} (at most --rows {})",
            args.min_keys, args.max_keys, args.rows
        )));
    }
    let most = *distinct.last().unwrap_or(&1);
    let truth = args.common.race.rules.truth(args.rows, None);
    let states = args.states.configs(config);
    // The keys and values, the one pool's largest kernel at the largest state, and the
    // reference's sorted copy if it runs.
    let scratch = states
        .iter()
        .flat_map(|config| {
            args.kernel.0.iter().map(|&k| groupby::scratch_bytes(k, args.rows, most, config, args.common.race.threads))
        })
        .max()
        .unwrap_or(0);
    let input = states.iter().map(|c| groupby::input_bytes(args.rows, c.aggregates)).max().unwrap_or(0);
    let needed = input.saturating_add(scratch).saturating_add(reference_bytes(truth.reference, args.rows, &states));
    platform::check_fits_in_memory(needed, &format!("--rows {} with --max-keys {most}", args.rows))?;
    // The values depend on the row and the seed, not on the keys: one column serves every point.
    let values = args.states.need_values().then(|| {
        let spec = datagen::DataSpec { rows: args.rows, keys: 1, skew: args.skew, seed: args.seed };
        memwall_core::groupby::values::generate_values(&spec, args.value_type, &threads)
    });
    let bar = progress((states.len() * distinct.len() * args.kernel.0.len()) as u64);
    let result = per_state(&args.states, config, values.as_ref(), &mut |config, values| {
        let sweeper = Racer {
            kernels: &args.kernel.0,
            memory: &SCRATCH,
            policy: args.common.race.rules.memory,
            runs: args.common.race.runs,
            work: memwall_core::groupby::race::GroupByWork {
                config,
                exec: &threads,
                clock: &clock,
                truth,
                phases: None,
                values,
            },
        };
        sweeper.cardinality(args.rows, &distinct, args.skew, args.seed, &mut on_event(&bar))
    });
    bar.finish_and_clear();
    let sweeps = result?;
    let dataset = memwall_report::Dataset {
        rows: args.rows,
        distinct_keys: most,
        generator: Some(memwall_report::Generator { preset: None, skew: args.skew.name() }),
        input: None,
        seed: Some(args.seed),
        max_rows_per_key: None,
    };
    finish(&args.common, host, dataset, sweeps, "distinct keys")
}

/// Bytes the reference takes beside the data, when it runs, at the largest of the states.
fn reference_bytes(reference: bool, rows: u64, states: &[GroupByConfig]) -> u64 {
    let most = states.iter().map(|c| groupby::reference_bytes(rows, c.aggregates)).max().unwrap_or(0);
    if reference { most } else { 0 }
}

fn partitions(args: PartitionsArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::ladder_cmd::measured_host(&clock);
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    for (flag, p) in [("--min", args.min), ("--max", args.max)] {
        groupby::check_partitions(p).map_err(|e| CliError::usage(format!("{flag}: {e}")))?;
    }
    let counts: Vec<u32> =
        sweep::doublings(u64::from(args.min), u64::from(args.max)).into_iter().map(|p| p as u32).collect();
    let config = groupby_cmd::groupby_config(args.min, &host, args.common.race.threads)?;
    let states = args.states.configs(config);
    let kernels = &args.kernel.0;
    let rules = &args.common.race.rules;
    let scratch = |rows: u64, groups: u64| -> u64 {
        let most = counts
            .iter()
            .flat_map(|&p| {
                states.iter().flat_map(move |&config| {
                    let config = GroupByConfig { partitions: p, ..config };
                    kernels
                        .iter()
                        .map(move |&k| groupby::scratch_bytes(k, rows, groups, &config, args.common.race.threads))
                })
            })
            .max()
            .unwrap_or(0);
        most.saturating_add(reference_bytes(rules.truth(rows, None).reference, rows, &states))
    };
    let data = crate::dataset::load(&args.data, &threads, &scratch, args.states.need_values())?;
    let partitioning = kernels.iter().filter(|k| k.uses_partitions()).count();
    let bar = progress((states.len() * counts.len() * partitioning) as u64);
    let truth = groupby_cmd::truth(rules, &data.dataset);
    let result = per_state(&args.states, config, data.values.as_ref(), &mut |config, values| {
        let sweeper = Racer {
            kernels,
            memory: &SCRATCH,
            policy: rules.memory,
            runs: args.common.race.runs,
            work: memwall_core::groupby::race::GroupByWork {
                config,
                exec: &threads,
                clock: &clock,
                truth,
                phases: None,
                values,
            },
        };
        let mut sweep = sweeper.partitions(&data.keys, &counts, &mut on_event(&bar))?;
        if let Some(query) = sweep.query.as_mut()
            && values != Values::None
        {
            query.value_column.clone_from(&data.value_column);
        }
        Ok(sweep)
    });
    bar.finish_and_clear();
    finish(&args.common, host, data.dataset, result?, "partitions")
}

fn build_size(args: BuildSizeArgs) -> CliResult {
    use memwall_core::join::{self, JoinConfig, race, sweep as join_sweep};
    let clock = NativeClock::new();
    let host = crate::ladder_cmd::measured_host(&clock);
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    let declared = memwall_core::budget::CacheBudget::declared(&host.caches, args.common.race.threads);
    let config = JoinConfig::with_budget(groupby_cmd::with_host_caches(
        declared,
        &[Kernel::Adaptive],
        args.common.race.declared_caches,
        &host,
    ));
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
    let json_on_stdout = args.common.json == Some(Destination::Stdout);
    let mut out = output::human(json_on_stdout);
    print_build_sweep(&mut *out, &sweep).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out, "caches the tables are sized by: {}", config.budget.describe()).ok();
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

fn finish(
    common: &CommonArgs,
    host: memwall_report::Host,
    dataset: memwall_report::Dataset,
    sweeps: Vec<Sweep>,
    x_name: &str,
) -> CliResult {
    let json_on_stdout = common.json == Some(Destination::Stdout);
    let mut out = output::human(json_on_stdout);
    print_sweeps(&mut *out, &sweeps, x_name).map_err(|e| CliError::runtime(e.to_string()))?;
    if let Some(destination) = &common.json {
        let mut report = Report::new(Source::Native, output::unix_now(), host);
        // One list keeps the query where a race's report has it; several are each in their sweep.
        let query = match sweeps.as_slice() {
            [one] => one.query.clone().filter(|q| q.value_type != "none"),
            _ => None,
        };
        report.groupby = Some(GroupBy { dataset, runs: Vec::new(), sweeps, query });
        output::write_report(destination, &report)?;
    }
    Ok(())
}

/// Every sweep's table, each headed by its aggregates when there are several or more than a
/// count, then, with several, the one table of how the result moved with the state.
pub fn print_sweeps(out: &mut dyn Write, sweeps: &[Sweep], x_name: &str) -> std::io::Result<()> {
    let plain_count = |s: &Sweep| s.query.as_ref().is_none_or(|q| q.value_type == "none");
    for (i, sweep) in sweeps.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        if sweeps.len() > 1 || !plain_count(sweep) {
            writeln!(out, "aggregates: {}", describe_state(sweep))?;
        }
        print_sweep(out, sweep, x_name)?;
    }
    if sweeps.len() > 1 {
        writeln!(out)?;
        print_state_table(out, sweeps)?;
    }
    Ok(())
}

/// "sum,min,max over i64 values (40 bytes of state a group)".
fn describe_state(sweep: &Sweep) -> String {
    let (aggregates, values) = match &sweep.query {
        Some(q) if q.value_type != "none" => {
            let column = q.value_column.as_ref().map(|c| format!(" of column {c}")).unwrap_or_default();
            (q.aggregates.join(","), format!(" over {} values{column}", q.value_type))
        }
        Some(q) => (q.aggregates.join(","), String::new()),
        None => ("count".into(), String::new()),
    };
    let state = sweep.state_bytes_per_group.map(|b| format!(" ({b} bytes of state a group)")).unwrap_or_default();
    format!("{aggregates}{values}{state}")
}

/// One row per sweep (per state size): each partitioning kernel's best partition count, or
/// each kernel's crossover against naive, as measured.
pub fn print_state_table(out: &mut dyn Write, sweeps: &[Sweep]) -> std::io::Result<()> {
    let aggregates = |s: &Sweep| s.query.as_ref().map_or("count".into(), |q| q.aggregates.join(","));
    let state = |s: &Sweep| s.state_bytes_per_group.map_or("-".into(), |b| b.to_string());
    let mut kernels: Vec<&str> = Vec::new();
    for sweep in sweeps {
        let names = sweep
            .best_partitions
            .iter()
            .map(|b| b.kernel.as_str())
            .chain(sweep.crossovers.iter().map(|c| c.kernel.as_str()));
        for name in names {
            if !kernels.contains(&name) {
                kernels.push(name);
            }
        }
    }
    let mut header = vec!["aggregates".to_string(), "state B/group".to_string()];
    let partitions = sweeps.iter().any(|s| s.kind == "partitions");
    let rows: Vec<Vec<String>> = sweeps
        .iter()
        .map(|sweep| {
            let mut row = vec![aggregates(sweep), state(sweep)];
            for &k in &kernels {
                if partitions {
                    match sweep.best_partitions.iter().find(|b| b.kernel == k) {
                        Some(b) => {
                            let edge = if at_edge(sweep, b.partitions) { " (edge)" } else { "" };
                            row.extend([format!("{}{edge}", b.partitions), format!("{:.2}", b.ns_per_row)])
                        }
                        None => row.extend(["-".to_string(), "-".to_string()]),
                    }
                } else {
                    row.push(match sweep.crossovers.iter().find(|c| c.kernel == k) {
                        Some(c) => c.from_distinct_keys.map_or("none in range".into(), |x| x.to_string()),
                        None => "-".into(),
                    });
                }
            }
            row
        })
        .collect();
    for &k in &kernels {
        if partitions {
            header.extend([format!("{k} best P"), format!("{k} ns/row")]);
        } else {
            header.push(format!("{k} beats naive from (keys)"));
        }
    }
    if partitions {
        writeln!(
            out,
            "best partition count by state size (each kernel's fastest point above; (edge): at an end of the range, the best may lie beyond):"
        )?;
    } else {
        writeln!(
            out,
            "crossover by state size: the fewest distinct keys from which each kernel beat naive at that and every larger point:"
        )?;
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    write!(out, "{}", output::table(&header, &rows))
}

/// Whether `partitions` is the sweep's smallest or largest point: a best there may lie beyond.
fn at_edge(sweep: &Sweep, partitions: u32) -> bool {
    let xs = || sweep.points.iter().map(|p| p.x);
    let x = u64::from(partitions);
    sweep.points.len() > 1 && (xs().min() == Some(x) || xs().max() == Some(x))
}

/// One row per x, one ns/row column per kernel, the fastest marked with `*`.
pub fn print_sweep(out: &mut dyn Write, sweep: &Sweep, x_name: &str) -> std::io::Result<()> {
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_row)).collect();
    let (_, header, rows) = kernel_columns(&points, x_name, "ns/row");
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    writeln!(out, "{} rows per point, each the fastest of its runs; * marks the fastest kernel", sweep.rows)?;
    write!(out, "{}", output::table(&header, &rows))?;
    if sweep.kind == "cardinality" {
        for c in &sweep.crossovers {
            match c.from_distinct_keys {
                Some(x) => writeln!(out, "{} beats {} from {x} distinct keys on", c.kernel, c.versus)?,
                None => writeln!(out, "{} never beat {} for good in this range", c.kernel, c.versus)?,
            }
        }
        if let Some(slowdown) = sweep.adaptive_max_slowdown {
            writeln!(out, "adaptive was at worst {:.1}% slower than the best kernel", (slowdown - 1.0) * 100.0)?;
        }
    }
    for best in &sweep.best_partitions {
        let edge = if at_edge(sweep, best.partitions) {
            " (at an end of the range: widen --min/--max to see the bottom of the U)"
        } else {
            ""
        };
        writeln!(
            out,
            "{} is fastest at {} partitions ({:.2} ns/row){edge}",
            best.kernel, best.partitions, best.ns_per_row
        )?;
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

    fn fake_sweep(kind: &str, aggregates: &str, state: u64, points: &[(u64, &str, f64)]) -> Sweep {
        let points: Vec<memwall_report::SweepPoint> = points
            .iter()
            .map(|&(x, k, ns)| memwall_report::SweepPoint { x, kernel: k.into(), ns_per_row: ns, seconds: ns })
            .collect();
        Sweep {
            kind: kind.into(),
            rows: 100,
            best_partitions: if kind == "partitions" { sweep::best_partitions(&points) } else { Vec::new() },
            crossovers: if kind == "cardinality" { sweep::crossovers(&points, Kernel::Naive) } else { Vec::new() },
            points,
            crossover_distinct_keys: None,
            adaptive_max_slowdown: None,
            memory: None,
            verified_by: Vec::new(),
            query: Some(memwall_report::Query {
                aggregates: aggregates.split(',').map(str::to_string).collect(),
                value_type: if aggregates == "count" { "none" } else { "i64" }.into(),
                value_column: None,
            }),
            state_bytes_per_group: Some(state),
        }
    }

    fn printed(sweeps: &[Sweep], x_name: &str) -> String {
        let mut out = Vec::new();
        print_sweeps(&mut out, sweeps, x_name).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_state_table_follows_a_best_fan_out_that_moves() {
        let sweeps = [
            fake_sweep("partitions", "count", 8, &[(256, "tuned", 5.0), (1024, "tuned", 4.0), (4096, "tuned", 4.5)]),
            fake_sweep("partitions", "sum", 24, &[(256, "tuned", 6.0), (1024, "tuned", 5.5), (4096, "tuned", 7.0)]),
            fake_sweep(
                "partitions",
                "count,sum,min,max",
                40,
                &[(256, "tuned", 6.0), (1024, "tuned", 7.0), (4096, "tuned", 9.0)],
            ),
        ];
        let text = printed(&sweeps, "partitions");
        let table: Vec<Vec<&str>> = text
            .lines()
            .skip_while(|l| !l.starts_with("best partition count by state size"))
            .skip(3)
            .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
            .collect();
        assert_eq!(
            table,
            [
                ["count", "8", "1024", "4.00"],
                ["sum", "24", "1024", "5.50"],
                ["count,sum,min,max", "40", "256 (edge)", "6.00"],
            ],
            "{text}"
        );
        assert!(text.contains("aggregates: sum over i64 values (24 bytes of state a group)"), "{text}");
        // One list alone prints no state table.
        assert!(!printed(&sweeps[..1], "partitions").contains("by state size"));
    }

    #[test]
    fn the_state_table_says_none_in_range_when_there_is_no_crossover() {
        let sweeps = [
            fake_sweep(
                "cardinality",
                "count",
                8,
                &[(1024, "naive", 2.0), (1024, "tuned", 3.0), (2048, "naive", 9.0), (2048, "tuned", 4.0)],
            ),
            fake_sweep(
                "cardinality",
                "sum",
                24,
                &[(1024, "naive", 2.0), (1024, "tuned", 3.0), (2048, "naive", 3.0), (2048, "tuned", 4.0)],
            ),
        ];
        let text = printed(&sweeps, "distinct keys");
        let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("crossover by state size")).skip(3).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(rows[0].starts_with("count") && rows[0].ends_with("2048"), "{text}");
        assert!(rows[1].starts_with("sum") && rows[1].ends_with("none in range"), "{text}");
        assert!(text.contains("tuned beats naive from 2048 distinct keys on"), "{text}");
        assert!(text.contains("tuned never beat naive for good in this range"), "{text}");
    }
}
