//! `memwall groupby`: the GROUP BY race, `SELECT key, count(*) FROM t GROUP BY key`, timed per
//! kernel over generated or real keys.

use std::io::Write;

use memwall_core::groupby::GroupByConfig;
use memwall_report::Report;

use crate::cache_budget::{caches_and_model, sized_by_a_ladder};
use crate::error::{CliError, CliResult};
use crate::groupby_race::{GroupByArgs, Race, prepare, race};
use crate::output;
use crate::platform::NativeClock;
use crate::print::groupby::{print_race, table};

pub fn groupby(args: GroupByArgs) -> CliResult {
    let clock = NativeClock::new();
    args.export.check()?;
    let host = if args.export.json.is_some() { crate::host::measured(&clock) } else { crate::host::describe() };
    // The model's ladder is read before the data only where the kernels are sized by it; else
    // after, so that bad input is refused before a second of probing.
    let early = sized_by_a_ladder(&args.kernel.0, &args.race);
    let mut machine = None;
    let (threads, config, mut data) = prepare(&args, &host, |declared| {
        if !early {
            return Ok(declared);
        }
        let (budget, model) = caches_and_model(declared, &args.kernel.0, &args.race, &host)?;
        machine = model;
        Ok(budget)
    })?;
    if !early {
        machine = caches_and_model(config.budget, &args.kernel.0, &args.race, &host)?.1;
    }
    // Adaptive prices its choices with the model where a ladder measured the host.
    let config = GroupByConfig { host: machine.as_ref().map(|m| m.host), ..config };
    let mut out = args.export.human();
    if args.counters
        && let Err(why) = crate::counters::probe()
    {
        writeln!(out, "counters unavailable: {why}").ok();
    }
    let race_setup = Race::for_args(&args, config, &threads, &data.dataset);
    let mut result = race(&race_setup, &mut data, &clock)?;
    if let Some(machine) = &machine {
        memwall_core::cost::annotate(&mut result, &data.keys, machine, &config);
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
