//! `memwall join`: the hash-join probe race, a build side of distinct keys with 8-byte payloads
//! against a probe side of rows, timed per kernel, build and probe apart and together.

use std::io::Write;
use std::ops::ControlFlow;

use clap::Args;
use memwall_core::budget::CacheBudget;
use memwall_core::clock::Clock;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::groupby;
use memwall_core::join::data::{self, JoinData, JoinSpec};
use memwall_core::join::race::{RaceEvent, Racer, Truth};
use memwall_core::join::{self, JoinConfig, Kernel};
use memwall_core::scratch::MemoryPolicy;
use memwall_core::size::format_bytes;
use memwall_report::{Generator, Host, Join, JoinDataset, Report};

use memwall_core::size::parse_count;

use crate::arena::SCRATCH;
use crate::dataset::{parse_preset, spinner};
use crate::groupby_cmd;
use crate::output::{self, ExportArgs, Table};
use crate::platform::{self, NativeClock};
use crate::race_args::{self, KernelList, RaceArgs, parse_kernels};
use crate::threads::Threads;
use crate::{CliError, CliResult};

/// The two sides: a preset, or sizes.
#[derive(Debug, Clone, Args)]
pub struct JoinDataArgs {
    /// A named data set: the build side is its distinct keys, the probe side its rows: small
    /// (1,700,000 build keys, 10,000,000 probe rows) or clickbench (17,630,976 build keys,
    /// 99,997,497 probe rows, shaped like ClickBench's hits.UserID). Without --build-keys,
    /// clickbench.
    #[arg(long, value_parser = parse_preset, conflicts_with_all = ["build_keys", "probe_rows", "skew"])]
    pub preset: Option<String>,
    /// Distinct keys on the build side, each with an 8-byte payload (e.g. 1Mi, 17.6M).
    #[arg(long, value_parser = parse_count, requires = "probe_rows")]
    pub build_keys: Option<u64>,
    /// Probe rows, at least --build-keys: the generator gives every build key a row (before
    /// --miss-rate replaces some rows).
    #[arg(long, value_parser = parse_count, requires = "build_keys")]
    pub probe_rows: Option<u64>,
    /// How probe rows spread over the build keys: uniform, or zipf:S (key i weighs (i+1)^-S).
    #[arg(long, value_parser = Skew::parse)]
    pub skew: Option<Skew>,
    /// Share of probe rows (0 to 1) replaced by keys that are not on the build side.
    #[arg(long, default_value_t = 0.0, value_parser = parse_rate)]
    pub miss_rate: f64,
    /// Seed of the generator: the same seed gives the same sides.
    #[arg(long, default_value_t = datagen::DEFAULT_SEED)]
    pub seed: u64,
}

#[derive(Debug, Clone, Args)]
pub struct JoinArgs {
    #[command(flatten)]
    pub data: JoinDataArgs,
    /// Kernels to race: naive, partitioned, prefetch, tuned, adaptive, all, or a comma list.
    #[arg(long, default_value = "all", value_parser = parse_kernels::<Kernel>)]
    pub kernel: KernelList<Kernel>,
    /// Partitions for partitioned and tuned, a power of two up to 65536, instead of the count
    /// sized so that each partition's table fits half the per-core cache.
    #[arg(long)]
    pub partitions: Option<u32>,
    #[command(flatten)]
    pub race: RaceArgs,
    #[command(flatten)]
    pub export: ExportArgs,
}

pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && (0.0..=1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("invalid miss rate '{text}': expected a share from 0 to 1, e.g. 0.1")),
    }
}

/// The sides as the arguments ask for them, checked, before anything big is allocated.
pub fn spec(args: &JoinDataArgs) -> CliResult<(JoinSpec, Option<String>)> {
    let (data, preset) = match (&args.preset, args.build_keys, args.probe_rows) {
        (Some(name), _, _) => (datagen::preset(name).expect("checked by clap"), Some(name.clone())),
        (None, Some(keys), Some(rows)) => {
            (DataSpec { rows, keys, skew: args.skew.unwrap_or(Skew::Uniform), seed: args.seed }, None)
        }
        _ => (datagen::preset("clickbench").expect("a built-in preset"), Some("clickbench".to_string())),
    };
    let spec = JoinSpec { data: DataSpec { seed: args.seed, ..data }, miss_rate: args.miss_rate };
    spec.check().map_err(|e| {
        let flags = match &preset {
            Some(name) => format!("--preset {name}"),
            None => format!("--build-keys {} --probe-rows {}", spec.data.keys, spec.data.rows),
        };
        let e = e.to_string().replace(" keys cannot fit in ", " build keys cannot all be probed by ");
        CliError::usage(format!("{flags}: {e}"))
    })?;
    if spec.data.keys == 0 {
        return Err(CliError::usage("nothing to join: --build-keys and --probe-rows are 0"));
    }
    Ok((spec, preset))
}

/// Generates both sides, refusing up front what cannot fit: the sides plus `scratch`.
pub fn generate(
    spec: &JoinSpec,
    preset: Option<&str>,
    scratch: u64,
    exec: &Threads,
) -> CliResult<(JoinData, JoinDataset)> {
    let what = match preset {
        Some(name) => format!("--preset {name}"),
        None => format!("--build-keys {} --probe-rows {}", spec.data.keys, spec.data.rows),
    };
    platform::check_fits_in_memory(spec.bytes().saturating_add(scratch), &what)?;
    let bar = spinner(format!("generating {} build keys and {} probe rows", spec.data.keys, spec.data.rows));
    let data = data::generate_with(spec, exec).map_err(|e| CliError::usage(e.to_string()))?;
    bar.finish_and_clear();
    let dataset = JoinDataset {
        build_keys: spec.data.keys,
        probe_rows: spec.data.rows,
        miss_rate: spec.miss_rate,
        misses: data.misses,
        generator: Some(Generator { preset: preset.map(str::to_string), skew: spec.data.skew.name(), shape: None }),
        seed: Some(spec.data.seed),
    };
    Ok((data, dataset))
}

/// Everything a race needs besides the data.
pub struct JoinRace<'a> {
    pub kernels: &'a [Kernel],
    pub config: JoinConfig,
    pub threads: &'a Threads,
    pub policy: MemoryPolicy,
    pub truth: Truth,
    pub runs: u32,
}

impl<'a> JoinRace<'a> {
    /// The race the command line asks for, over the sides `dataset` describes.
    pub fn for_args(args: &'a JoinArgs, config: JoinConfig, threads: &'a Threads, dataset: &JoinDataset) -> Self {
        JoinRace {
            kernels: &args.kernel.0,
            config,
            threads,
            policy: args.race.rules.memory,
            truth: args.race.rules.truth(dataset.probe_rows, Some(dataset.probe_rows - dataset.misses)),
            runs: args.race.runs,
        }
    }
}

/// Times every kernel (the core's race: kernels take turns and must agree), with a progress bar.
pub fn race(setup: &JoinRace<'_>, data: &JoinData, dataset: JoinDataset, clock: &dyn Clock) -> CliResult<Join> {
    let runs = setup.runs.max(1);
    let bar = race_args::race_bar("join", u64::from(runs) * setup.kernels.len() as u64);
    let racer = Racer {
        kernels: setup.kernels,
        memory: &SCRATCH,
        policy: setup.policy,
        runs,
        work: memwall_core::join::race::JoinWork {
            config: setup.config,
            exec: setup.threads,
            clock,
            truth: setup.truth,
        },
    };
    let on_event = &mut |event: RaceEvent| {
        race_args::show(&bar, &event);
        ControlFlow::Continue(())
    };
    let result = racer.race(&data.build, &data.probe, dataset, on_event);
    bar.finish_and_clear();
    result.map_err(|e| CliError::runtime(e.to_string()))
}

/// One row per kernel: build, probe and total times, speedup over naive, scratch, matches.
pub fn table(join: &Join) -> Table {
    let naive = join.runs.iter().find(|r| r.kernel == Kernel::Naive.name()).map(|r| r.seconds.median);
    let rows = join
        .runs
        .iter()
        .map(|r| {
            let mut cells = output::kernel_cells(&r.kernel, r.threads, r.partitions);
            cells.extend([
                format!("{:.3}", r.build_seconds.median),
                format!("{:.3}", r.probe_seconds.median),
                format!("{:.3}", r.seconds.min),
                format!("{:.3}", r.seconds.median),
                format!("{:.2}", r.ns_per_probe),
                naive
                    .filter(|_| r.seconds.median > 0.0)
                    .map_or("-".into(), |n| format!("{:.2}x", n / r.seconds.median)),
                r.scratch_bytes.map_or("-".into(), format_bytes),
                r.matches.to_string(),
                r.checksum.clone(),
            ]);
            cells
        })
        .collect();
    let header = vec![
        "kernel", "threads", "P", "build s", "probe s", "min s", "median s", "ns/probe", "vs naive", "scratch",
        "matches", "checksum",
    ];
    Table { header, rows, notes: vec![] }
}

/// The race as a table with each kernel's speedup over naive (build and probe are medians of
/// their own), then the rules and checks.
pub fn print_race(out: &mut dyn Write, join: &Join, label: &str) -> std::io::Result<()> {
    let d = &join.dataset;
    writeln!(
        out,
        "{label}: {} build keys (8-byte payloads), {} probe rows, {} of them missing from the build side",
        d.build_keys, d.probe_rows, d.misses
    )?;
    write!(out, "{}", table(join).text())?;
    if let Some(run) = join.runs.first() {
        if let Some(policy) = run.memory.as_deref().and_then(MemoryPolicy::parse) {
            writeln!(out, "memory: {} for every kernel: {}", policy.name(), policy.description())?;
        }
        let checks: Vec<&str> = run
            .verified_by
            .iter()
            .filter_map(|name| {
                [
                    join::race::Check::Reference(memwall_core::race::Reference::SortAndMerge),
                    join::race::Check::KnownMatches,
                    join::race::Check::CrossKernel,
                    join::race::Check::Repeatable,
                ]
                .into_iter()
                .find(|c| c.name() == name)
                .map(|c| c.describe())
            })
            .collect();
        if !checks.is_empty() {
            writeln!(out, "checked: every run of every kernel {}", checks.join(", "))?;
        }
    }
    if let Some(run) = join.runs.first()
        && let (Some(keys), Some(payloads)) = (&run.key_sum, &run.payload_sum)
    {
        // Every kernel agreed with the first (the race checks it), so one line serves them all.
        writeln!(
            out,
            "exact sums over the matches (as SQL's sum(key), sum(payload) in 128 bits): keys {keys}, payloads {payloads}"
        )?;
    }
    for run in &join.runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
    }
    Ok(())
}

/// Threads, config and the two sides for a race from the command line's arguments, sized and
/// checked by the caches `caches` makes of the declared ones (see `groupby_cmd::prepare`).
pub fn prepare(
    args: &JoinArgs,
    host: &Host,
    caches: impl FnOnce(CacheBudget) -> CliResult<CacheBudget>,
) -> CliResult<(Threads, JoinConfig, JoinData, JoinDataset, String)> {
    let threads = Threads::new(args.race.threads, args.race.pin)?;
    let mut config = JoinConfig::with_budget(caches(CacheBudget::declared(&host.caches, args.race.threads))?);
    config.partitions = args.partitions;
    config.validate().map_err(|e| CliError::usage(format!("--partitions: {e}")))?;
    let (spec, preset) = spec(&args.data)?;
    let (keys, rows) = (spec.data.keys, spec.data.rows);
    let reference =
        if args.race.rules.truth(rows, None).reference { keys.saturating_mul(16) + rows.saturating_mul(8) } else { 0 };
    let scratch = args
        .kernel
        .0
        .iter()
        .map(|&k| join::scratch_bytes(k, keys, rows, &config, args.race.threads))
        .max()
        .unwrap_or(0);
    let (data, dataset) = generate(&spec, preset.as_deref(), scratch.saturating_add(reference), &threads)?;
    let label = match &preset {
        Some(name) => format!("{name} preset"),
        None => format!("generated, {}", spec.data.skew.name()),
    };
    Ok((threads, config, data, dataset, label))
}

pub fn join(args: JoinArgs) -> CliResult {
    let clock = NativeClock::new();
    args.export.check()?;
    let host =
        if args.export.json.is_some() { crate::ladder_cmd::measured_host(&clock) } else { crate::host::describe() };
    // The tables and adaptive's limit are sized by the caches this host's short ladder finds.
    let (threads, config, data, dataset, label) = prepare(&args, &host, |declared| {
        groupby_cmd::with_host_caches(declared, &[groupby::Kernel::Adaptive], &args.race, &host)
    })?;
    let mut out = args.export.human();
    let setup = JoinRace::for_args(&args, config, &threads, &dataset);
    let result = race(&setup, &data, dataset, &clock)?;
    print_race(&mut *out, &result, &label).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out, "caches the tables are sized by: {}", config.budget.describe()).ok();
    args.export.write(
        || Report { join: Some(result.clone()), ..output::new_report(host.clone()) },
        || memwall_report::join_csv(&result),
        || table(&result),
    )
}

/// The short join race `memwall run` includes: the small preset's sides, every kernel, one
/// thread, one timed run each after the warm-up, with the caches the ladder found.
pub fn default_race(host: &Host, levels: &[memwall_report::Level], clock: &dyn Clock) -> CliResult<(Join, String)> {
    let args = JoinArgs {
        data: JoinDataArgs {
            preset: Some("small".into()),
            build_keys: None,
            probe_rows: None,
            skew: None,
            miss_rate: 0.0,
            seed: datagen::DEFAULT_SEED,
        },
        kernel: KernelList(Kernel::ALL.to_vec()),
        partitions: None,
        race: RaceArgs::defaults(1),
        export: ExportArgs::default(),
    };
    let (threads, config, data, dataset, label) = prepare(&args, host, |declared| Ok(declared.measured(levels)))?;
    let setup = JoinRace::for_args(&args, config, &threads, &dataset);
    let result = race(&setup, &data, dataset, clock)?;
    Ok((result, label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("0.25"), Ok(0.25));
        for bad in ["-0.1", "1.01", "NaN", "inf", "lots"] {
            assert!(parse_rate(bad).unwrap_err().contains("from 0 to 1"), "{bad}");
        }
    }
}
