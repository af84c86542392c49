//! The sweeps' flags, and the progress and errors every sweep shares.

pub(super) use crate::arena::SCRATCH;
pub(super) use crate::cache_budget;
pub(super) use crate::dataset::DataArgs;
pub(super) use crate::error::{CliError, CliResult};
pub(super) use crate::output::{self, ExportArgs, Table};
pub(super) use crate::platform::{self, NativeClock};
pub(super) use crate::race_args::{KernelList, RaceArgs, parse_kernels};
pub(super) use crate::threads::Threads;
pub(super) use clap::{Args, Subcommand};
pub(super) use indicatif::{ProgressBar, ProgressStyle};
pub(super) use memwall_core::datagen::{self, Skew};
pub(super) use memwall_core::groupby::race::Racer;
pub(super) use memwall_core::groupby::sweep::{self, SweepError, SweepEvent};
pub(super) use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, ValueType, Values};
pub(super) use memwall_core::size::parse_count;
pub(super) use memwall_report::{GroupBy, Sweep};
pub(super) use std::io::Write;
pub(super) use std::ops::ControlFlow;

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
    #[arg(long, default_value_t = 0.0, value_parser = crate::race_args::parse_rate)]
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
          value_parser = crate::race_args::parse_rate)]
    pub tolerance: f64,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// What every sweep shares.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    pub race: RaceArgs,
    #[command(flatten)]
    pub export: ExportArgs,
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

pub(super) fn progress(total: u64) -> ProgressBar {
    ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{spinner} sweep [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    )
}

pub(super) fn on_event(bar: &ProgressBar) -> impl FnMut(SweepEvent) -> ControlFlow<()> + '_ {
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

pub(super) fn sweep_error(e: SweepError) -> CliError {
    match e {
        SweepError::Invalid(_) | SweepError::Data(_) | SweepError::GroupBy(groupby::GroupByError::Partitions(_)) => {
            CliError::usage(e.to_string())
        }
        _ => CliError::runtime(e.to_string()),
    }
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
    pub(super) fn need_values(&self) -> bool {
        self.lists.iter().any(|a| a.needs_values())
    }

    /// The configs of the sweeps, one per list, in the order given.
    pub(super) fn configs(&self, config: GroupByConfig) -> Vec<GroupByConfig> {
        self.lists.iter().map(|&aggregates| GroupByConfig { aggregates, ..config }).collect()
    }
}
