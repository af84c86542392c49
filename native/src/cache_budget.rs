//! The cache budget a race runs by, acquired natively: declared by the OS, read by a short ladder
//! where adaptive will run, or taken from a saved report's ladder (`--caches-from`). The core's
//! [`memwall_core::budget`] turns the levels into the budget.

use std::path::Path;

use memwall_core::budget::{self, CacheBudget};
use memwall_core::cost::{Machine, Measured};
use memwall_core::explain;
use memwall_core::groupby::{GroupByConfig, Kernel};
use memwall_core::size::format_bytes;
use memwall_report::{Cache, Cause, Host, Report};

use crate::cache_probe::cache_probe;
use crate::error::{CliError, CliResult};
use crate::output;
use crate::platform::NativeClock;
use crate::race_args::RaceArgs;

/// The caches the kernels size their tables by, as this host declares them (see
/// [`CacheBudget::declared`]); `memwall run` and, for adaptive, `groupby` and `sweep` replace
/// them with what a ladder reads.
pub fn groupby_config(partitions: u32, host: &Host, threads: usize) -> CliResult<GroupByConfig> {
    let config =
        GroupByConfig { partitions, budget: budget::for_host(&host.caches, threads, None), ..GroupByConfig::default() };
    config.validate().map_err(|e| CliError::usage(format!("--partitions: {e}")))?;
    Ok(config)
}

/// `budget` with the caches this host really has where adaptive will run (it is the kernel that
/// decides by them): a short ladder names the levels (see `crate::cache_probe::cache_probe`), whose sizes
/// replace the declared ones (a VM's declared L3 is often many times what it gets). The declared
/// sizes stay if the ladder cannot run, or with `--declared-caches`; `--caches-from` takes the
/// levels of a saved report's ladder instead, for every kernel.
pub fn with_host_caches(
    budget: CacheBudget,
    kernels: &[Kernel],
    race: &RaceArgs,
    host: &Host,
) -> CliResult<CacheBudget> {
    if !sized_by_a_ladder(kernels, race) {
        return Ok(budget);
    }
    caches_and_model(budget, kernels, race, host).map(|(budget, _)| budget)
}

/// Whether the kernels' budget comes from a ladder (adaptive races, or `--caches-from`), and so
/// must be read before the data is loaded and its memory checked.
pub fn sized_by_a_ladder(kernels: &[Kernel], race: &RaceArgs) -> bool {
    race.caches_from.is_some() || (!race.declared_caches && kernels.contains(&Kernel::Adaptive))
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
    Ok(match cache_probe(host, &NativeClock::new()) {
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
fn saved_report(path: &Path, host: &Host) -> CliResult<Report> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_partition_counts_are_refused() {
        assert!(groupby_config(3, &Host::default(), 1).is_err());
        assert!(groupby_config(4096, &Host::default(), 1).is_ok());
    }
}
