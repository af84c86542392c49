//! Measuring the last cache's end again, later in the run, and keeping each size's fastest.
//!
//! A guest's share of a shared last-level cache moves while a ladder runs: in five back-to-back
//! `memwall run`s on the 2-vCPU EPYC dev guest (2026-12-06,
//! `docs/results/stability-epyc-2vcpu-kvm.md`), one run's page-local curve held cache speed to
//! 2 MiB and the random curve on huge pages a minute later to 8 MiB. A curve measured once per
//! size reads the share of its moment. So the front end measures the sizes around the last
//! cache's end again at a few moments spread over the run (after each TLB-friendly curve and
//! after the parallelism sweep), and each size keeps its fastest reading: a neighbour's traffic
//! can only evict, never add cache, so the fastest reading is the nearest to what the host gives.
//! Which sizes are measured again comes from reading what was measured so far, so the window
//! follows the cache wherever it ends on the host at hand.

use memwall_report::{Cause, Curve, Ladder, LadderPoint};

use super::CurveView;

/// Whether the caches are read from `curve` (page-local, or random on huge pages granted), so
/// that measuring it again can move them.
pub fn reads_caches(curve: &Curve) -> bool {
    CurveView::of_curve(curve).is_some_and(|c| c.reads_caches())
}

/// The sizes of `ladder` worth measuring again: past the level before the last cache, up to one
/// octave past where DRAM begins. Empty where no cache level runs into DRAM on this curve (DRAM
/// not reached, or no cache read before it).
pub fn around_last_cache(ladder: &Ladder) -> Vec<u64> {
    let levels = &ladder.levels;
    let Some(dram) = levels.iter().position(|l| l.cause == Cause::Dram) else { return Vec::new() };
    let Some(last) = levels[..dram].iter().rposition(|l| l.cause == Cause::Cache) else { return Vec::new() };
    let from = if last == 0 { 0 } else { levels[last - 1].size_bytes };
    let to = levels[dram].size_bytes.saturating_mul(2);
    ladder.points.iter().map(|p| p.bytes).filter(|&b| b > from && b <= to).collect()
}

/// Keeps, for each size of `curve` measured `again`, the reading with the lower minimum; the
/// kept point counts every measurement of its size in `attempts`. Sizes the curve lacks are
/// ignored.
pub fn keep_fastest(curve: &mut Curve, again: Vec<LadderPoint>) {
    for point in again {
        let Some(old) = curve.points.iter_mut().find(|p| p.bytes == point.bytes) else { continue };
        let attempts = old.attempts + point.attempts;
        if point.ns_per_load.min < old.ns_per_load.min {
            *old = point;
        }
        old.attempts = attempts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{ladder, level, point};

    const MIB: u64 = 1 << 20;

    fn curve(pattern: &str, huge_pages: &str, chains: u32, points: Vec<LadderPoint>) -> Curve {
        Curve { pattern: pattern.into(), huge_pages: huge_pages.into(), chains, points }
    }

    #[test]
    fn the_window_runs_from_past_the_level_before_the_last_cache_to_an_octave_into_dram() {
        let sizes = [MIB / 2, MIB, 3 * MIB / 2, 2 * MIB, 3 * MIB, 4 * MIB, 6 * MIB, 8 * MIB, 12 * MIB];
        let mut read = ladder("random-cycle", "off", sizes.iter().map(|&b| point(b, 1.0)).collect(), Vec::new());
        read.levels = vec![
            level("L2", MIB, Cause::Cache),
            level("L3", 2 * MIB, Cause::Cache),
            level("DRAM", 3 * MIB, Cause::Dram),
            level("TLB reach", 8 * MIB, Cause::Tlb),
        ];
        assert_eq!(around_last_cache(&read), [3 * MIB / 2, 2 * MIB, 3 * MIB, 4 * MIB, 6 * MIB]);
        // One cache only: the window starts at the smallest size.
        read.levels = vec![level("L1", MIB, Cause::Cache), level("DRAM", 3 * MIB, Cause::Dram)];
        assert_eq!(around_last_cache(&read), &sizes[..7]);
        // DRAM not reached: nothing to measure again.
        read.levels = vec![level("L2", MIB, Cause::Cache), level("L3", 2 * MIB, Cause::Cache)];
        assert!(around_last_cache(&read).is_empty());
        // DRAM first of all: no cache to find the end of.
        read.levels = vec![level("DRAM", MIB, Cause::Dram)];
        assert!(around_last_cache(&read).is_empty());
    }

    #[test]
    fn each_size_keeps_its_fastest_reading_and_counts_every_measurement() {
        let mut kept = curve("page-local", "thp", 1, vec![point(MIB, 12.0), point(2 * MIB, 100.0)]);
        keep_fastest(&mut kept, vec![point(MIB, 13.0), point(2 * MIB, 14.0), point(3 * MIB, 1.0)]);
        let read: Vec<(u64, f64, u32)> = kept.points.iter().map(|p| (p.bytes, p.ns_per_load.min, p.attempts)).collect();
        assert_eq!(read, [(MIB, 12.0, 2), (2 * MIB, 14.0, 2)]);
    }

    #[test]
    fn the_caches_are_read_again_from_page_local_and_random_on_huge_pages_only() {
        let kinds = [
            ("page-local", "off", 1, true),
            ("page-local", "thp", 1, true),
            ("random", "thp", 1, true),
            ("random", "on", 1, true),
            ("random", "off", 1, false),
            ("random", "thp", 4, false),
            ("sequential", "thp", 1, false),
        ];
        for (pattern, pages, chains, reads) in kinds {
            assert_eq!(
                reads_caches(&curve(pattern, pages, chains, vec![point(MIB, 1.0)])),
                reads,
                "{pattern} {pages} {chains}"
            );
        }
    }
}
