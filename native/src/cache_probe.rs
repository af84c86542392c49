//! The short ladder adaptive kernels and `watch` read the host's cache levels from.

use std::io::Write;
use std::path::Path;

use memwall_core::ladder;
use memwall_report::{Host, Ladder, Level};

use crate::arena::HugePages;
use crate::error::CliResult;
use crate::ladder_measure::{LadderArgs, PatternArg, measure};
use crate::output::{self, ExportArgs};
use crate::platform::{self, NativeClock};

/// The short ladder adaptive kernels size their caches by: page-local (the caches without TLB
/// misses; on THP where the host grants it), 16 KiB to 64 MiB at one size per doubling, five
/// samples of 2 ms each, twice over, each size keeping the pass that read it faster: about two
/// seconds. Noise only ever adds time, and a burst from the host's other guests can hold up all
/// of one size's samples: on a busy 2-vCPU Xeon guest, single passes read 8 MiB at 81-98 ns
/// between 27 ns at 4 MiB and 57 ns at 16 MiB, or 64 MiB at 103 ns after 57-62 from 8 MiB, and
/// named an "L4 to 32 MiB" or no L3 at all; the budget adaptive sized its tables by swung
/// between 4 and 64 MiB from one run to the next.
pub fn cache_probe(host: &Host, clock: &NativeClock) -> CliResult<Ladder> {
    let mut ladder = cache_probe_best_of_two(host, clock, 16 << 10, QUICK_MAX)?;
    let reading = memwall_core::explain::read_ladder(&ladder, &host.caches);
    ladder.levels = reading.levels;
    ladder.verdict = reading.verdict;
    Ok(ladder)
}

/// The cache levels a saved report's ladder read (read again by today's rules), or else, with no
/// report, those of a quick ladder measured now ([`cache_probe_to_dram`] where `to_dram`), after
/// a line on `out` saying what it is measured for (`why`), since it takes seconds.
pub fn levels(
    report: Option<&Path>,
    host: &Host,
    clock: &NativeClock,
    to_dram: bool,
    out: &mut dyn Write,
    why: &str,
) -> CliResult<Vec<Level>> {
    if let Some(path) = report {
        let mut report = output::read_report(path).map_err(|e| e.context(&path.display().to_string()))?;
        memwall_core::explain::reread(&mut report);
        return Ok(report.ladder.map(|l| l.levels).unwrap_or_default());
    }
    writeln!(out, "measuring a quick ladder {why}...").ok();
    let ladder = if to_dram { cache_probe_to_dram(host, clock)? } else { cache_probe(host, clock)? };
    Ok(ladder.levels)
}

/// Where the quick ladder stops unless it must reach DRAM.
const QUICK_MAX: u64 = 64 << 20;

/// The quick ladder, extended a doubling at a time (best of two passes each) until its levels
/// reach DRAM, which `watch` places a point in: on a guest that declares a socket's L3 (480 MiB
/// on a Xeon), DRAM may begin at 64 MiB and be read only from the sizes after it. It goes no
/// further than twice the largest cache the OS declares, past which no cache holds the working
/// set, nor beyond what this process may allocate.
pub fn cache_probe_to_dram(host: &Host, clock: &NativeClock) -> CliResult<Ladder> {
    let mut ladder = cache_probe(host, clock)?;
    let declared = memwall_core::explain::data_caches(&host.caches).last().map_or(0, |c| c.size_bytes);
    let mut max = QUICK_MAX;
    while !ladder.levels.iter().any(|l| l.cause == memwall_report::Cause::Dram) && max < declared.saturating_mul(2) {
        max *= 2;
        if platform::check_fits_in_memory(ladder::bytes_needed(max) + (2 << 20), "").is_err() {
            break;
        }
        ladder.points.extend(cache_probe_best_of_two(host, clock, max, max)?.points);
        let reading = memwall_core::explain::read_ladder(&ladder, &host.caches);
        ladder.levels = reading.levels;
        ladder.verdict = reading.verdict;
    }
    Ok(ladder)
}

/// Two quick passes over `min..=max`, each size keeping the pass that read it faster.
fn cache_probe_best_of_two(host: &Host, clock: &NativeClock, min: u64, max: u64) -> CliResult<Ladder> {
    let mut ladder = cache_probe_pass(host, clock, min, max)?;
    let again = cache_probe_pass(host, clock, min, max)?;
    for (point, other) in ladder.points.iter_mut().zip(again.points) {
        if other.bytes == point.bytes && other.ns_per_load.min < point.ns_per_load.min {
            *point = other;
        }
    }
    Ok(ladder)
}

fn cache_probe_pass(host: &Host, clock: &NativeClock, min: u64, max: u64) -> CliResult<Ladder> {
    let thp = matches!(host.thp.as_deref(), Some("always" | "madvise"));
    let probe = LadderArgs {
        min,
        max,
        points_per_octave: 1,
        pin: None,
        huge_pages: vec![if thp { HugePages::Thp } else { HugePages::Off }],
        pattern: vec![PatternArg::PageLocal],
        runs: 5,
        sample_ms: 2.0,
        attempts: 1,
        chains: vec![],
        chains_at: None,
        seed: ladder::DEFAULT_SEED,
        export: ExportArgs::default(),
        extra_curves: vec![],
    };
    measure(&probe, host, clock)
}
