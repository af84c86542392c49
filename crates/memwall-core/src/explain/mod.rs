//! Reading the ladder: which tread of the curve is which level of the memory hierarchy, what
//! makes each step (a cache filling, the TLB's reach, DRAM), how that compares with the caches the
//! OS declares, and the plain sentences that say so.
//!
//! Everything is derived from the host's own curves and declared sizes, never from figures of a
//! particular machine: the treads of the TLB-friendliest curve are the caches (see [`treads`]),
//! DRAM is its last tread once the ladder has shown it got past every cache (see [`levels`]), and
//! the random curve's climb over page-local is the TLB's. A native run and a browser run are read
//! by the same code, and so is every report opened again ([`reread`]), so old reports get the
//! current reading.

mod advice;
mod curve;
mod evidence;
mod fit;
mod levels;
pub mod measured;
pub mod revisit;
mod tlb;
pub mod treads;

pub use advice::{PageCosts, advice, page_costs};
pub use curve::DRAM_OVER_L1;
pub use evidence::{CurveView, Evidence, data_caches};
pub use levels::{Reading, read};
use memwall_report::{Cache, Ladder, Report};
pub use tlb::{TLB_GAP, page_walk_share};

/// The levels and verdict of `ladder` on a host declaring `declared`, from its curves alone.
pub fn read_ladder(ladder: &Ladder, declared: &[Cache]) -> Reading {
    read(&Evidence::of(ladder, declared, None))
}

/// Reads `report` again by the current rules: its ladder's levels and verdict and the report's
/// advice are replaced, everything measured is left as it was. The bandwidth run, when the
/// report has one, is evidence too.
pub fn reread(report: &mut Report) {
    reread_sections(report);
    let Some(ladder) = report.ladder.as_mut() else {
        // Without a ladder the advice is whatever was written; only the topology line is ours.
        report.advice.retain(|s| !s.starts_with(crate::cores::TOPOLOGY_PREFIX));
        report.advice.extend(report.cores.iter().map(|c| c.topology.clone()));
        return;
    };
    let reading = read(&Evidence::of(ladder, &report.host.caches, report.bandwidth.as_ref()));
    ladder.levels = reading.levels;
    ladder.verdict = reading.verdict;
    report.advice = advice(ladder, report.bandwidth.as_ref());
    // The core-to-core reading is one more fact for someone placing work on this host.
    report.advice.extend(report.cores.iter().map(|c| c.topology.clone()));
    // Timings of an emulator say nothing for choosing a server: its warning heads the verdict
    // and stands in for the advice.
    if !report.timing_warnings.is_empty() {
        ladder.verdict.splice(0..0, report.timing_warnings.iter().cloned());
        report.advice.clone_from(&report.timing_warnings);
    }
}

/// The readings of the cores, watch and sensitivity sections, by the current rules.
fn reread_sections(report: &mut Report) {
    if let Some(cores) = report.cores.as_mut() {
        crate::cores::read(cores);
    }
    if let Some(watch) = report.watch.as_mut() {
        watch.stability = Some(crate::stability::read(watch));
    }
    for curve in &mut report.sensitivity {
        curve.reading = crate::sensitivity::read(&curve.levels, curve.llc_bytes);
    }
}

#[cfg(test)]
mod tests;
