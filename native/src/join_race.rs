//! The join race natively: its flags, the two sides generated and checked to fit, the core's race
//! with a progress bar, and the short race `memwall run` includes.

use std::ops::ControlFlow;

use clap::Args;
use memwall_core::budget::{self, CacheBudget};
use memwall_core::clock::Clock;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::join::data::{self, JoinData, JoinSpec};
use memwall_core::join::race::{JoinWork, RaceEvent};
use memwall_core::join::{self, JoinConfig, Kernel};
use memwall_core::size::parse_count;
use memwall_report::{Generator, Host, Join, JoinDataset};

use crate::dataset::{parse_preset, spinner};
use crate::error::{CliError, CliResult};
use crate::output::ExportArgs;
use crate::platform;
use crate::race_args::{self, KernelList, RaceArgs, RaceSetup, parse_kernels};
use crate::threads::Threads;

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
    #[arg(long, default_value_t = 0.0, value_parser = race_args::parse_rate)]
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

/// Everything a join race needs besides the data.
pub type JoinRace<'a> = RaceSetup<'a, Kernel, JoinConfig>;

impl<'a> JoinRace<'a> {
    /// The race the command line asks for, over the sides `dataset` describes.
    pub fn for_args(args: &'a JoinArgs, config: JoinConfig, threads: &'a Threads, dataset: &JoinDataset) -> Self {
        let truth = args.race.rules.truth(dataset.probe_rows, Some(dataset.probe_rows - dataset.misses));
        RaceSetup::new(&args.kernel.0, &args.race, config, threads, truth)
    }
}

/// Times every kernel (the core's race: kernels take turns and must agree), with a progress bar.
pub fn race(setup: &JoinRace<'_>, data: &JoinData, dataset: JoinDataset, clock: &dyn Clock) -> CliResult<Join> {
    let work = JoinWork { config: setup.config, exec: setup.threads, clock, truth: setup.truth };
    let (racer, bar) = setup.racer("join", work);
    let on_event = &mut |event: RaceEvent| {
        race_args::show(&bar, &event);
        ControlFlow::Continue(())
    };
    let result = racer.race(&data.build, &data.probe, dataset, on_event);
    bar.finish_and_clear();
    result.map_err(|e| CliError::runtime(e.to_string()))
}

/// Threads, config and the two sides for a race from the command line's arguments, sized and
/// checked by the caches `caches` makes of the declared ones (see [`crate::groupby_race::prepare`]).
pub fn prepare(
    args: &JoinArgs,
    host: &Host,
    caches: impl FnOnce(CacheBudget) -> CliResult<CacheBudget>,
) -> CliResult<(Threads, JoinConfig, JoinData, JoinDataset, String)> {
    let threads = Threads::new(args.race.threads, args.race.pin)?;
    let mut config = JoinConfig::with_budget(caches(budget::for_host(&host.caches, args.race.threads, None))?);
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
