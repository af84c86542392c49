//! The GROUP BY race natively: its flags, the data and budget it runs over, the core's race with
//! a progress bar and hardware counters, and the race `memwall run` includes.

use std::ops::ControlFlow;

use clap::Args;
use memwall_core::budget::CacheBudget;
use memwall_core::clock::Clock;
use memwall_core::cost::{self, Machine, Measured};
use memwall_core::groupby::race::{RaceEvent, Truth, median_sample};
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, Values};
use memwall_report::{Counters, Dataset, GroupBy, Host};

use crate::cache_budget::groupby_config;
use crate::counters::CounterSession;
use crate::dataset::{Data, DataArgs, load};
use crate::error::{CliError, CliResult};
use crate::output::ExportArgs;
use crate::race_args::{self, KernelList, RaceArgs, RaceSetup, RuleArgs, parse_kernels};
use crate::threads::Threads;

#[derive(Debug, Clone, Args)]
pub struct GroupByArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Kernels to race: naive, radix, tuned, prefetch, adaptive, all, or a comma list.
    #[arg(long, default_value = "all", value_parser = parse_kernels::<Kernel>)]
    pub kernel: KernelList<Kernel>,
    /// What to compute per group: a comma list of count, sum, min, max, avg (sum, min, max
    /// and avg read the value column: generated with --value-type, or --value-column of an
    /// --input). Every kernel computes every aggregate; runs[].totals holds their sums over
    /// all groups.
    #[arg(long, default_value = "count", value_parser = Aggregates::parse)]
    pub agg: Aggregates,
    /// Partitions for radix and tuned: a power of two from 2 to 65536.
    #[arg(long, default_value_t = groupby::DEFAULT_PARTITIONS)]
    pub partitions: u32,
    #[command(flatten)]
    pub race: RaceArgs,
    /// Count cycles, instructions and cache misses per run (perf_event_open), where the host
    /// offers them; otherwise say why and carry on.
    #[arg(long)]
    pub counters: bool,
    /// Time each kernel's phases (scatter, per-partition aggregation, emit, merge, ...) with
    /// timers that stay in the kernels, and print them as ns/row beside the total (and in the
    /// report's runs[].phases). Off, the timers cost nothing.
    #[arg(long)]
    pub phases: bool,
    #[command(flatten)]
    pub export: ExportArgs,
}

/// Everything a GROUP BY race needs besides the data: what every race needs, and whether to
/// count and to time phases.
pub struct Race<'a> {
    pub setup: RaceSetup<'a, Kernel, GroupByConfig>,
    pub counters: bool,
    pub phases: bool,
}

impl<'a> Race<'a> {
    /// The race the command line asks for, over data described by `dataset`.
    pub fn for_args(args: &'a GroupByArgs, config: GroupByConfig, threads: &'a Threads, dataset: &Dataset) -> Self {
        let truth = truth(&args.race.rules, dataset);
        let setup = RaceSetup::new(&args.kernel.0, &args.race, config, threads, truth);
        Race { setup, counters: args.counters, phases: args.phases }
    }
}

/// Times every kernel over `data` (the core's race: kernels take turns and must agree), with a
/// progress bar and, if asked, hardware counters around each timed run.
pub fn race(race: &Race<'_>, data: &mut Data, clock: &(dyn Clock + Sync)) -> CliResult<GroupBy> {
    let setup = &race.setup;
    let work = groupby::race::GroupByWork {
        config: setup.config,
        exec: setup.threads,
        clock,
        truth: setup.truth,
        phases: race.phases.then_some(clock),
        values: data.values.as_ref().map_or(Values::None, ValueColumn::values),
    };
    let (racer, bar) = setup.racer("group by", work);
    // Counters per kernel, one entry per run, in run order (the order of `samples_seconds`).
    let mut counters: Vec<Vec<Counters>> = vec![Vec::new(); setup.kernels.len()];
    let mut session: Option<CounterSession> = None;
    let on_event = &mut |event: RaceEvent| {
        race_args::show(&bar, &event);
        match event {
            RaceEvent::Running { .. } => session = race.counters.then(CounterSession::start),
            RaceEvent::Timed { kernel, .. } => {
                if let (Some(session), Some(k)) = (session.take(), setup.kernels.iter().position(|&k| k == kernel)) {
                    counters[k].push(session.stop());
                }
            }
            RaceEvent::Checking | RaceEvent::WarmingUp { .. } => {}
        }
        ControlFlow::Continue(())
    };
    let result = racer.race(&data.keys, data.dataset.clone(), on_event);
    bar.finish_and_clear();
    let mut groupby = result.map_err(|e| CliError::runtime(e.to_string()))?;
    for (run, counters) in groupby.runs.iter_mut().zip(counters) {
        run.counters = median_sample(&run.samples_seconds, run.seconds.median).and_then(|i| counters.get(i).cloned());
    }
    data.dataset = groupby.dataset.clone();
    if let Some(query) = &mut groupby.query {
        query.value_column = data.dataset.input.as_ref().and(data.value_column.clone());
    }
    Ok(groupby)
}

/// Threads, config, pool and data for a race from the command line's arguments. `caches` turns
/// the declared cache budget into the one the race runs by, before the memory check: the
/// kernels' scratch follows the budget, and a guest's declared L3 (480 MiB on the 2-vCPU Xeon)
/// made the check refuse 10^8 keys at 2 threads for 22 GiB the run would never take.
pub fn prepare(
    args: &GroupByArgs,
    host: &Host,
    caches: impl FnOnce(CacheBudget) -> CliResult<CacheBudget>,
) -> CliResult<(Threads, GroupByConfig, Data)> {
    let threads = Threads::new(args.race.threads, args.race.pin)?;
    let config = GroupByConfig { aggregates: args.agg, ..groupby_config(args.partitions, host, args.race.threads)? };
    let config = GroupByConfig { budget: caches(config.budget)?, ..config };
    let kernels = &args.kernel.0;
    let scratch = |rows: u64, groups: u64| -> u64 {
        // One pool serves every kernel, each run from its start: it holds the largest kernel's
        // scratch. The reference sorts a copy of the keys.
        let each = kernels.iter().map(|&k| groupby::scratch_bytes(k, rows, groups, &config, args.race.threads));
        let reference =
            if args.race.rules.truth(rows, None).reference { groupby::reference_bytes(rows, args.agg) } else { 0 };
        each.max().unwrap_or(0).saturating_add(reference)
    };
    let data = load(&args.data, &threads, &scratch, args.agg.needs_values())?;
    if data.keys.is_empty() {
        return Err(CliError::usage("no rows to group"));
    }
    Ok((threads, config, data))
}

/// What is known of the right answer: the generator's key count, when the keys were generated.
pub fn truth(rules: &RuleArgs, dataset: &Dataset) -> Truth {
    rules.truth(dataset.rows, dataset.generator.as_ref().map(|_| dataset.distinct_keys))
}

/// The race `memwall run` includes: the small preset, every kernel, one thread (on the CPU the
/// caller is pinned to, if it is), under the default rules, with the caches the ladder found.
pub fn default_race(
    host: &Host,
    levels: &[memwall_report::Level],
    measured: Measured,
    clock: &(dyn Clock + Sync),
) -> CliResult<(GroupBy, String)> {
    let args = GroupByArgs {
        data: DataArgs::preset("small"),
        kernel: KernelList(Kernel::ALL.to_vec()),
        agg: Aggregates::COUNT,
        partitions: groupby::DEFAULT_PARTITIONS,
        race: RaceArgs::defaults(3),
        counters: false,
        phases: false,
        export: ExportArgs::default(),
    };
    let (threads, config, mut data) = prepare(&args, host, |declared| Ok(declared.measured(levels)))?;
    let machine = Machine::from_ladder(levels, measured);
    let config = GroupByConfig { host: machine.as_ref().map(|m| m.host), ..config };
    let setup = Race::for_args(&args, config, &threads, &data.dataset);
    let mut result = race(&setup, &mut data, clock)?;
    if let Some(machine) = &machine {
        cost::annotate(&mut result, &data.keys, machine, &config);
    }
    Ok((result, data.label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_check_sizes_the_kernels_by_the_caches_the_race_runs_by() {
        // tuned sizes its table by the last-level cache, so a cache of 64 TiB asks for terabytes
        // even for a thousand rows: the check must see the budget the race gets, not the declared.
        let args = GroupByArgs {
            data: DataArgs {
                generate: crate::dataset::GenArgs {
                    preset: None,
                    rows: Some(1000),
                    keys: Some(100),
                    ..crate::dataset::GenArgs::preset("small")
                },
                ..DataArgs::preset("small")
            },
            kernel: KernelList(vec![Kernel::Tuned]),
            agg: Aggregates::COUNT,
            partitions: groupby::DEFAULT_PARTITIONS,
            race: RaceArgs::defaults(1),
            counters: false,
            phases: false,
            export: ExportArgs::default(),
        };
        let host = Host::default();
        let huge = CacheBudget::sized(1 << 20, 64 << 40);
        let refused = prepare(&args, &host, |_| Ok(huge)).expect_err("refused").message;
        assert!(refused.contains("needs about"), "{refused}");
        let small = CacheBudget::sized(1 << 20, 8 << 20);
        let (_, config, data) = prepare(&args, &host, |_| Ok(small)).expect("fits");
        assert_eq!((config.budget, data.keys.len()), (small, 1000));
    }
}
