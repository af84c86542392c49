//! `memwall join`: the hash-join probe race, a build side of distinct keys with 8-byte payloads
//! against a probe side of rows, timed per kernel, build and probe apart and together.

use std::io::Write;

use memwall_core::groupby;
use memwall_report::Report;

use crate::cache_budget::with_host_caches;
use crate::error::{CliError, CliResult};
use crate::join_race::{JoinArgs, JoinRace, prepare, race};
use crate::output;
use crate::platform::NativeClock;
use crate::print::join::{print_race, table};

pub fn join(args: JoinArgs) -> CliResult {
    let clock = NativeClock::new();
    args.export.check()?;
    let host = if args.export.json.is_some() { crate::host::measured(&clock) } else { crate::host::describe() };
    // The tables and adaptive's limit are sized by the caches this host's short ladder finds.
    let (threads, config, data, dataset, label) =
        prepare(&args, &host, |declared| with_host_caches(declared, &[groupby::Kernel::Adaptive], &args.race, &host))?;
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
