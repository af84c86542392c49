//! The cache budget a race runs by, acquired natively: declared by the OS, read by a short ladder
//! where adaptive will run, or taken from a saved report's ladder (`--caches-from`). The core's
//! [`memwall_core::budget`] turns the levels into the budget.

use std::path::Path;

use memwall_core::budget::{self, CacheBudget};
use memwall_core::explain;
use memwall_core::groupby::{GroupByConfig, Kernel};
use memwall_core::size::format_bytes;
use memwall_report::{Cache, Cause, Host, Level};

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
    if let Some(path) = &race.caches_from {
        return saved_levels(path, host).map(|levels| budget.measured(&levels));
    }
    if race.declared_caches || !kernels.contains(&Kernel::Adaptive) {
        return Ok(budget);
    }
    Ok(match cache_probe(host, &NativeClock::new()) {
        Ok(ladder) => budget.measured(&ladder.levels),
        Err(_) => budget,
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

/// The levels of `path`'s ladder as today's rules read them; refused when the report is of
/// another CPU (by name or by the caches it declares), or its ladder names neither a cache nor
/// DRAM (nothing to size by).
fn saved_levels(path: &Path, host: &Host) -> CliResult<Vec<Level>> {
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
    let Some(levels) = report.ladder.map(|ladder| ladder.levels) else {
        return Err(context(CliError::usage("no ladder in this report: nothing to size the tables by")));
    };
    if !levels.iter().any(|l| matches!(l.cause, Cause::Cache | Cause::Dram)) {
        return Err(context(CliError::usage("its ladder names no cache and no DRAM: nothing to size the tables by")));
    }
    Ok(levels)
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
