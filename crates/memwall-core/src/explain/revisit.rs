//! Measuring the last cache's end again, later in the run, and keeping each size's typical reading.
//!
//! A guest's share of a shared last-level cache moves while a ladder runs: in five back-to-back
//! `memwall run`s on the 2-vCPU EPYC dev guest (2026-12-06,
//! `docs/results/stability-epyc-2vcpu-kvm.md`), one run's page-local curve held cache speed to
//! 2 MiB and the random curve on huge pages a minute later to 8 MiB. A curve measured once per
//! size reads the share of its moment. So the front end measures the sizes around the last
//! cache's end again at a few moments spread over the run (after each TLB-friendly curve and
//! after the parallelism sweep). Which sizes are measured again comes from reading what was
//! measured so far, so the window follows the cache wherever it ends on the host at hand.
//!
//! Each size keeps its typical moment: the median of its readings (the faster of the middle two
//! where their number is even), each reading being one moment's fastest sample. Not the fastest
//! moment: the fastest of n readings of a share that moves is the largest share the guest held at
//! any of them, and grows with n, so it says how long the run looked more than what the host
//! gives. On the Xeon guest that declares 480 MiB of L3 it read the last cache's end as 64, 96,
//! 256, 128 and 96 MiB in five runs (`docs/results/stability-xeon-2vcpu-kvm.md`: 128 MiB read
//! 43 ns at best in one run and 22 ns in another). The median is what a kernel running at an
//! unknown moment can count on at least half the time. Within one moment, the least disturbed of
//! its attempts is still kept (`ladder::sampling`): over a fraction of a second noise only adds
//! time. Every moment's reading is kept in the point (`visits_ns_per_load`).

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

/// Every reading, so far, of the sizes of one curve that were measured again.
#[derive(Debug, Clone, Default)]
pub struct Visits {
    readings: Vec<(u64, Vec<LadderPoint>)>,
}

impl Visits {
    /// Adds the readings `again` of sizes of `curve` (the first reading of each is the curve's own)
    /// and sets each of those sizes to its typical reading so far (see the module's docs); the
    /// kept point counts every measurement of its size in `attempts` and lists each moment's
    /// fastest sample in `visits_ns_per_load`. Sizes the curve lacks are ignored.
    pub fn keep_typical(&mut self, curve: &mut Curve, again: Vec<LadderPoint>) {
        for point in again {
            let Some(kept) = curve.points.iter_mut().find(|p| p.bytes == point.bytes) else { continue };
            let at = match self.readings.iter().position(|(bytes, _)| *bytes == point.bytes) {
                Some(at) => at,
                None => {
                    self.readings.push((point.bytes, vec![kept.clone()]));
                    self.readings.len() - 1
                }
            };
            let readings = &mut self.readings[at].1;
            readings.push(point);
            *kept = typical(readings);
        }
    }
}

/// The median reading by fastest sample (the faster of the middle two of an even number), with
/// every reading's attempts and fastest sample.
fn typical(readings: &[LadderPoint]) -> LadderPoint {
    let mut order: Vec<&LadderPoint> = readings.iter().collect();
    order.sort_by(|a, b| a.ns_per_load.min.total_cmp(&b.ns_per_load.min));
    let mut kept = order[(order.len() - 1) / 2].clone();
    kept.attempts = readings.iter().map(|r| r.attempts).sum();
    kept.visits_ns_per_load = readings.iter().map(|r| r.ns_per_load.min).collect();
    kept
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
    fn each_size_keeps_its_typical_reading_and_counts_every_measurement() {
        let mut kept = curve("page-local", "thp", 1, vec![point(MIB, 12.0), point(2 * MIB, 100.0)]);
        let mut visits = Visits::default();
        let read = |c: &Curve| -> Vec<(u64, f64, u32, Vec<f64>)> {
            c.points.iter().map(|p| (p.bytes, p.ns_per_load.min, p.attempts, p.visits_ns_per_load.clone())).collect()
        };
        // Two readings: the faster of the two.
        visits.keep_typical(&mut kept, vec![point(MIB, 13.0), point(2 * MIB, 14.0), point(3 * MIB, 1.0)]);
        assert_eq!(read(&kept), [(MIB, 12.0, 2, vec![12.0, 13.0]), (2 * MIB, 14.0, 2, vec![100.0, 14.0])]);
        // Three: the middle one, not the lucky moment (2 MiB at 9 ns once).
        visits.keep_typical(&mut kept, vec![point(2 * MIB, 9.0)]);
        assert_eq!(read(&kept)[1], (2 * MIB, 14.0, 3, vec![100.0, 14.0, 9.0]));
        // Four: the faster of the middle two; a size not measured again keeps its readings.
        visits.keep_typical(&mut kept, vec![point(2 * MIB, 20.0)]);
        assert_eq!(read(&kept), [(MIB, 12.0, 2, vec![12.0, 13.0]), (2 * MIB, 14.0, 4, vec![100.0, 14.0, 9.0, 20.0])]);
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
