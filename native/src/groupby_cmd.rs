//! `memwall groupby`: the GROUP BY race, `SELECT key, count(*) FROM t GROUP BY key`, timed per
//! kernel over generated or real keys.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

use clap::Args;
use memwall_core::budget::CacheBudget;
use memwall_core::clock::Clock;
use memwall_core::cost::{self, Machine, Measured};
use memwall_core::explain;
use memwall_core::groupby::race::{RaceEvent, Racer, Truth, median_sample};
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, Values, summary};
use memwall_core::scratch::MemoryPolicy;
use memwall_core::size::format_bytes;
use memwall_report::{Cache, Cause, Counters, Dataset, GroupBy, Host, Report};

use crate::arena::SCRATCH;
use crate::counters::CounterSession;
use crate::dataset::{Data, DataArgs, load};
use crate::output::{self, ExportArgs, Table};
use crate::platform::NativeClock;
use crate::race_args::{self, KernelList, RaceArgs, RuleArgs, parse_kernels};
use crate::threads::Threads;
use crate::{CliError, CliResult};

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

/// The caches the kernels size their tables by, as this host declares them (see
/// [`CacheBudget::declared`]); `memwall run` and, for adaptive, `groupby` and `sweep` replace
/// them with what a ladder reads.
pub fn groupby_config(partitions: u32, host: &Host, threads: usize) -> CliResult<GroupByConfig> {
    let config =
        GroupByConfig { partitions, budget: CacheBudget::declared(&host.caches, threads), ..GroupByConfig::default() };
    config.validate().map_err(|e| CliError::usage(format!("--partitions: {e}")))?;
    Ok(config)
}

/// `budget` with the caches this host really has where adaptive will run (it is the kernel that
/// decides by them): a short ladder names the levels (see `ladder_cmd::cache_probe`), whose sizes
/// replace the declared ones (a VM's declared L3 is often many times what it gets). The declared
/// sizes stay if the ladder cannot run, or with `--declared-caches`; `--caches-from` takes the
/// levels of a saved report's ladder instead, for every kernel.
pub fn with_host_caches(
    budget: CacheBudget,
    kernels: &[Kernel],
    race: &RaceArgs,
    host: &Host,
) -> CliResult<CacheBudget> {
    if race.caches_from.is_none() && !kernels.contains(&Kernel::Adaptive) {
        return Ok(budget);
    }
    caches_and_model(budget, kernels, race, host).map(|(budget, _)| budget)
}

/// [`with_host_caches`], and the cost model's view of the host from the same ladder (see
/// `memwall_core::cost`), for any kernels: `None` with `--declared-caches` or where the ladder
/// could not run, and then nothing is predicted.
pub fn caches_and_model(
    budget: CacheBudget,
    kernels: &[Kernel],
    race: &RaceArgs,
    host: &Host,
) -> CliResult<(CacheBudget, Option<Machine>)> {
    if let Some(path) = &race.caches_from {
        let report = saved_report(path, host)?;
        let ladder = report.ladder.as_ref();
        let levels = ladder.map_or(&[][..], |l| &l.levels[..]);
        let machine = Machine::from_ladder(levels, Measured::of(ladder, report.bandwidth.as_ref()));
        return Ok((budget.measured(levels), machine));
    }
    if race.declared_caches {
        return Ok((budget, None));
    }
    Ok(match crate::ladder_cmd::cache_probe(host, &NativeClock::new()) {
        Ok(ladder) => {
            let machine = Machine::from_ladder(&ladder.levels, Measured::of(Some(&ladder), None));
            (if kernels.contains(&Kernel::Adaptive) { budget.measured(&ladder.levels) } else { budget }, machine)
        }
        Err(_) => (budget, None),
    })
}

/// The data and unified caches a host declares, `(level, size)` in order: what tells two hosts
/// of one CPU name apart (how many CPUs share a cache changes with a guest's size, not its CPU).
fn declared_sizes(caches: &[Cache]) -> Vec<(u8, u64)> {
    let mut sizes: Vec<(u8, u64)> =
        caches.iter().filter(|c| c.kind != "Instruction").map(|c| (c.level, c.size_bytes)).collect();
    sizes.sort_unstable();
    sizes
}

fn describe_sizes(sizes: &[(u8, u64)]) -> String {
    let each: Vec<String> = sizes.iter().map(|&(level, bytes)| format!("L{level} {}", format_bytes(bytes))).collect();
    each.join(", ")
}

/// `path`'s report, its ladder's levels as today's rules read them; refused when the report is of
/// another CPU (by name or by the caches it declares), or its ladder names neither a cache nor
/// DRAM (nothing to size by).
fn saved_report(path: &Path, host: &Host) -> CliResult<memwall_report::Report> {
    let context = |e: CliError| e.context(&format!("--caches-from {}", path.display()));
    let mut report = output::read_report(path).map_err(context)?;
    if let (Some(theirs), Some(ours)) = (&report.host.cpu_model, &host.cpu_model)
        && theirs != ours
    {
        return Err(context(CliError::usage(format!("measured on another CPU ({theirs}; this one is {ours})"))));
    }
    // Cloud guests often name only the CPU's family ("Intel(R) Xeon(R) Processor"): two guests
    // of that name here declared a 105 MiB and a 480 MiB L3, and their ladders read 4 and 16 MiB.
    let (theirs, ours) = (declared_sizes(&report.host.caches), declared_sizes(&host.caches));
    if !theirs.is_empty() && !ours.is_empty() && theirs != ours {
        return Err(context(CliError::usage(format!(
            "measured on a CPU that declares other caches ({}; this one declares {})",
            describe_sizes(&theirs),
            describe_sizes(&ours)
        ))));
    }
    explain::reread(&mut report);
    let Some(levels) = report.ladder.as_ref().map(|ladder| &ladder.levels) else {
        return Err(context(CliError::usage("no ladder in this report: nothing to size the tables by")));
    };
    if !levels.iter().any(|l| matches!(l.cause, Cause::Cache | Cause::Dram)) {
        return Err(context(CliError::usage("its ladder names no cache and no DRAM: nothing to size the tables by")));
    }
    Ok(report)
}

/// Everything a race needs besides the data.
pub struct Race<'a> {
    pub kernels: &'a [Kernel],
    pub config: GroupByConfig,
    pub threads: &'a Threads,
    pub policy: MemoryPolicy,
    pub truth: Truth,
    pub runs: u32,
    pub counters: bool,
    pub phases: bool,
}

impl<'a> Race<'a> {
    /// The race the command line asks for, over data described by `dataset`.
    pub fn for_args(args: &'a GroupByArgs, config: GroupByConfig, threads: &'a Threads, dataset: &Dataset) -> Self {
        Race {
            kernels: &args.kernel.0,
            config,
            threads,
            policy: args.race.rules.memory,
            truth: truth(&args.race.rules, dataset),
            runs: args.race.runs,
            counters: args.counters,
            phases: args.phases,
        }
    }
}

/// Times every kernel over `data` (the core's race: kernels take turns and must agree), with a
/// progress bar and, if asked, hardware counters around each timed run.
pub fn race(race: &Race<'_>, data: &mut Data, clock: &(dyn Clock + Sync)) -> CliResult<GroupBy> {
    let runs = race.runs.max(1);
    let bar = race_args::race_bar("group by", u64::from(runs) * race.kernels.len() as u64);
    let racer = Racer {
        kernels: race.kernels,
        memory: &SCRATCH,
        policy: race.policy,
        runs,
        work: groupby::race::GroupByWork {
            config: race.config,
            exec: race.threads,
            clock,
            truth: race.truth,
            phases: race.phases.then_some(clock),
            values: data.values.as_ref().map_or(Values::None, ValueColumn::values),
        },
    };
    // Counters per kernel, one entry per run, in run order (the order of `samples_seconds`).
    let mut counters: Vec<Vec<Counters>> = vec![Vec::new(); race.kernels.len()];
    let mut session: Option<CounterSession> = None;
    let on_event = &mut |event: RaceEvent| {
        race_args::show(&bar, &event);
        match event {
            RaceEvent::Running { .. } => session = race.counters.then(CounterSession::start),
            RaceEvent::Timed { kernel, .. } => {
                if let (Some(session), Some(k)) = (session.take(), race.kernels.iter().position(|&k| k == kernel)) {
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

/// One row per kernel: its times, speedup over naive, scratch, groups and checksum.
pub fn table(groupby: &GroupBy) -> Table {
    let rows = groupby
        .runs
        .iter()
        .map(|r| {
            let mut cells = output::kernel_cells(&r.kernel, r.threads, r.partitions);
            cells.extend([
                r.first_run_seconds.map_or("-".into(), |s| format!("{s:.3}")),
                format!("{:.3}", r.seconds.min),
                format!("{:.3}", r.seconds.median),
                format!("{:.3}", r.seconds.max),
                format!("{:.2}", r.ns_per_row),
                r.predicted_ns_per_row.map_or("-".into(), |ns| format!("{ns:.2}")),
                summary::speedup_over_naive(groupby, r).map_or("-".into(), |x| format!("{x:.2}x")),
                r.scratch_bytes.map_or("-".into(), format_bytes),
                r.groups.to_string(),
                r.checksum.clone(),
            ]);
            cells
        })
        .collect();
    let header = vec![
        "kernel",
        "threads",
        "P",
        "first s",
        "min s",
        "median s",
        "max s",
        "ns/row",
        "predicted",
        "vs naive",
        "scratch",
        "groups",
        "checksum",
    ];
    Table { header, rows, notes: summary::rules(groupby, false) }
}

/// The race as a table, with each kernel's speedup over naive, the rules it was measured
/// under and how it was checked, then the top keys.
pub fn print_race(out: &mut dyn Write, groupby: &GroupBy, label: &str) -> std::io::Result<()> {
    let d = &groupby.dataset;
    writeln!(
        out,
        "{label}: {} rows, {} distinct keys{}",
        d.rows,
        d.distinct_keys,
        d.max_rows_per_key.map_or(String::new(), |m| format!(", most frequent key {m} rows"))
    )?;
    write!(out, "{}", table(groupby).text())?;
    for line in summary::rules(groupby, false) {
        writeln!(out, "{line}")?;
    }
    if let Some(line) = summary::regret_line(groupby) {
        writeln!(out, "{line}")?;
    }
    for line in cost::describe(groupby) {
        writeln!(out, "{line}")?;
    }
    for run in &groupby.runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
        if let Some(counters) = &run.counters {
            writeln!(out, "{} counters: {}", run.kernel, counters_line(counters))?;
        }
        if let Some(phases) = &run.phases {
            writeln!(out, "{} phases: {}", run.kernel, summary::phases_line(run, phases))?;
        }
    }
    if let Some(query) = &groupby.query {
        let column = query.value_column.as_ref().map_or(String::new(), |c| format!(" ({c})"));
        writeln!(out, "aggregates: {} over {} values{column}", query.aggregates.join(", "), query.value_type)?;
    }
    if let Some(line) = summary::totals_line(groupby) {
        writeln!(out, "{line}")?;
    }
    if let Some(run) = groupby.runs.first() {
        let top: Vec<String> = run.top.iter().map(|kc| format!("{} x{}", kc.key, kc.count)).collect();
        writeln!(out, "top keys: {}", top.join(", "))?;
    }
    Ok(())
}

fn counters_line(c: &Counters) -> String {
    if !c.available {
        return format!("unavailable: {}", c.unavailable.as_deref().unwrap_or("unknown reason"));
    }
    let mut parts = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            parts.push(format!("{name} {v}"));
        }
    };
    add("cycles", c.cycles.map(|v| v.to_string()));
    add("instructions", c.instructions.map(|v| v.to_string()));
    add("IPC", c.ipc.map(|v| format!("{v:.2}")));
    add("cache misses", c.cache_misses.map(|v| v.to_string()));
    add("LLC load misses", c.llc_load_misses.map(|v| v.to_string()));
    add("dTLB load misses", c.dtlb_load_misses.map(|v| v.to_string()));
    add("backend stalls", c.stalled_backend_share.map(|v| format!("{:.1}%", v * 100.0)));
    parts.join(", ")
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
    let setup = Race::for_args(&args, config, &threads, &data.dataset);
    let mut result = race(&setup, &mut data, clock)?;
    if let Some(machine) = Machine::from_ladder(levels, Measured::default()) {
        cost::annotate(&mut result, &data.keys, &machine, &config);
    }
    Ok((result, data.label))
}

pub fn groupby(args: GroupByArgs) -> CliResult {
    let clock = NativeClock::new();
    args.export.check()?;
    let host =
        if args.export.json.is_some() { crate::ladder_cmd::measured_host(&clock) } else { crate::host::describe() };
    let mut machine = None;
    let (threads, config, mut data) = prepare(&args, &host, |declared| {
        let (budget, model) = caches_and_model(declared, &args.kernel.0, &args.race, &host)?;
        machine = model;
        Ok(budget)
    })?;
    let mut out = args.export.human();
    if args.counters
        && let Err(why) = crate::counters::probe()
    {
        writeln!(out, "counters unavailable: {why}").ok();
    }
    let race_setup = Race::for_args(&args, config, &threads, &data.dataset);
    let mut result = race(&race_setup, &mut data, &clock)?;
    if let Some(machine) = &machine {
        cost::annotate(&mut result, &data.keys, machine, &config);
    }
    print_race(&mut *out, &result, &data.label).map_err(|e| CliError::runtime(e.to_string()))?;
    if let Some(cpus) = threads.cpus() {
        let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
        writeln!(out, "threads pinned to CPUs {}", list.join(",")).ok();
    }
    args.export.write(
        || Report { groupby: Some(result.clone()), ..output::new_report(host.clone()) },
        || memwall_report::groupby_csv(&result),
        || table(&result),
    )
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

    #[test]
    fn bad_partition_counts_are_refused() {
        assert!(groupby_config(3, &Host::default(), 1).is_err());
        assert!(groupby_config(4096, &Host::default(), 1).is_ok());
    }
}
