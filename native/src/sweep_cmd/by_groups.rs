//! The GROUP BY sweeps, by distinct keys and by partition count, each repeated per aggregate list.

use super::args::*;
use super::print::finish;

/// What every sweep's racer shares, whatever the aggregate list: kernels, memory rules, runs,
/// threads, clock and what each run is checked against.
pub(super) struct Sweeping<'a> {
    kernels: &'a [Kernel],
    common: &'a RaceArgs,
    threads: &'a Threads,
    clock: &'a NativeClock,
    truth: memwall_core::race::Truth,
}

/// Runs `one` per aggregate list with a racer for the list's config and value column (none for a
/// count, which reads no values); an error names the list when there are several.
pub(super) fn per_state(
    states: &StateArgs,
    config: GroupByConfig,
    values: Option<&ValueColumn>,
    sweeping: &Sweeping<'_>,
    one: &mut dyn FnMut(&Racer<'_>) -> Result<Sweep, SweepError>,
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
            let racer = Racer {
                kernels: sweeping.kernels,
                memory: &SCRATCH,
                policy: sweeping.common.rules.memory,
                runs: sweeping.common.runs,
                work: memwall_core::groupby::race::GroupByWork {
                    config,
                    exec: sweeping.threads,
                    clock: sweeping.clock,
                    truth: sweeping.truth,
                    phases: None,
                    values,
                },
            };
            one(&racer).map_err(|e| {
                let e = sweep_error(e);
                if several { e.context(&format!("--agg {}", config.aggregates.describe())) } else { e }
            })
        })
        .collect()
}

pub(super) fn cardinality(args: CardinalityArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    let config = cache_budget::groupby_config(args.partitions, &host, args.common.race.threads)?;
    let (budget, machine) = cache_budget::caches_and_model(config.budget, &args.kernel.0, &args.common.race, &host)?;
    let config = groupby::GroupByConfig { budget, host: machine.as_ref().map(|m| m.host), ..config };
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
    let sweeping =
        Sweeping { kernels: &args.kernel.0, common: &args.common.race, threads: &threads, clock: &clock, truth };
    let result = per_state(&args.states, config, values.as_ref(), &sweeping, &mut |sweeper| {
        sweeper.cardinality(args.rows, &distinct, args.skew, args.seed, &mut on_event(&bar))
    });
    bar.finish_and_clear();
    let mut sweeps = result?;
    if let Some(machine) = &machine {
        for (sweep, config) in sweeps.iter_mut().zip(&states) {
            memwall_core::cost::annotate_sweep(sweep, machine, config, args.common.race.threads);
        }
    }
    let dataset = memwall_report::Dataset {
        rows: args.rows,
        distinct_keys: most,
        generator: Some(memwall_report::Generator { preset: None, skew: args.skew.name(), shape: None }),
        input: None,
        seed: Some(args.seed),
        max_rows_per_key: None,
    };
    finish(&args.common, host, dataset, sweeps, "distinct keys")
}

/// Bytes the reference takes beside the data, when it runs, at the largest of the states.
pub(super) fn reference_bytes(reference: bool, rows: u64, states: &[GroupByConfig]) -> u64 {
    let most = states.iter().map(|c| groupby::reference_bytes(rows, c.aggregates)).max().unwrap_or(0);
    if reference { most } else { 0 }
}

pub(super) fn partitions(args: PartitionsArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    let threads = Threads::new(args.common.race.threads, args.common.race.pin)?;
    for (flag, p) in [("--min", args.min), ("--max", args.max)] {
        groupby::check_partitions(p).map_err(|e| CliError::usage(format!("{flag}: {e}")))?;
    }
    let counts: Vec<u32> =
        sweep::doublings(u64::from(args.min), u64::from(args.max)).into_iter().map(|p| p as u32).collect();
    let config = cache_budget::groupby_config(args.min, &host, args.common.race.threads)?;
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
    let truth = crate::groupby_race::truth(rules, &data.dataset);
    let sweeping = Sweeping { kernels, common: &args.common.race, threads: &threads, clock: &clock, truth };
    let result = per_state(&args.states, config, data.values.as_ref(), &sweeping, &mut |sweeper| {
        let mut sweep = sweeper.partitions(&data.keys, &counts, &mut on_event(&bar))?;
        if let Some(query) = sweep.query.as_mut()
            && sweeper.work.values != Values::None
        {
            query.value_column.clone_from(&data.value_column);
        }
        Ok(sweep)
    });
    bar.finish_and_clear();
    finish(&args.common, host, data.dataset, result?, "partitions")
}
