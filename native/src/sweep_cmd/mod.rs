//! `memwall sweep cardinality|partitions|build-size`: ns per row as the groups or the partitions
//! grow, or ns per probe as the join's build side does. The flags and the dispatch are here; each
//! sweep's run, and the tables they print, have a file of their own.

mod build_size;
mod by_groups;
mod print;

use build_size::build_size;
use by_groups::{StateArgs, cardinality, partitions};
#[cfg(test)]
use print::print_sweeps;
use print::{finish, kernel_columns};

use crate::arena::SCRATCH;
use crate::dataset::DataArgs;
use crate::groupby_cmd;
use crate::output::{self, Destination};
use crate::platform::{self, NativeClock};
use crate::race_args::{KernelList, RaceArgs, parse_kernels};
use crate::threads::Threads;
use crate::{CliError, CliResult};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::datagen::{self, Skew};
use memwall_core::groupby::race::Racer;
use memwall_core::groupby::sweep::{self, SweepError, SweepEvent};
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, ValueType, Values};
use memwall_core::size::parse_count;
use memwall_report::{GroupBy, Sweep};
use std::io::Write;
use std::ops::ControlFlow;

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
            .map(|&(x, k, ns)| memwall_report::SweepPoint {
                x,
                kernel: k.into(),
                ns_per_row: ns,
                seconds: ns,
                predicted_ns_per_row: None,
            })
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
