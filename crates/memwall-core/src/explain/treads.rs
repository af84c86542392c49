//! The staircase of a latency curve: its treads (working sets that read alike: one level of the
//! hierarchy) and the climbs between them.
//!
//! Nothing here knows a machine. A tread is a run of points within [`PLATEAU`] of its first; one
//! in the middle of the curve must span at least [`MIN_TREAD_WIDTH`] of working set or stand
//! [`NEW_LEVEL_STEP`] apart from the treads on both sides, or it is a pause in a climb (a gradual
//! climb from L3 to DRAM passes through sizes that are half in each); treads less than
//! [`MIN_LEVEL_STEP`] apart are one level.

/// Points within this factor of a tread's first point belong to it.
pub const PLATEAU: f64 = 1.2;

/// A tread between two others spans at least this factor of working set. A cache serves working
/// sets from where the one before it runs out up to its own size, and no two levels of any
/// hierarchy measured or published differ by less than 2x in size; narrower runs are the middle
/// of a climb, where part of the working set still hits the level below.
pub const MIN_TREAD_WIDTH: f64 = 2.0;

/// Two treads closer than this in latency are one level. Each level of a memory hierarchy answers
/// at least 2x slower than the one before it (L1 to L2: 4-5 cycles to 9-18 on every x86 and ARM
/// core published, Cortex-A76's 9 the closest; L2 to L3 or a system cache, and a last-level cache
/// to DRAM: 3x and more), while the smaller steps are something else: a TLB miss that hits the
/// next TLB, the far slices of one cache, a browser's timer or tiering compiler moving the
/// smallest sizes.
pub const MIN_LEVEL_STEP: f64 = 1.5;

/// A tread at least this much slower than the one before is a new level for certain: no level of
/// any hierarchy answers less than 2x slower than the one before it (see [`MIN_LEVEL_STEP`]).
pub const NEW_LEVEL_STEP: f64 = 2.0;

/// One tread: points `first..=last` of the curve, and its typical latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tread {
    pub first: usize,
    pub last: usize,
    /// The median of its points' fastest samples.
    pub ns: f64,
}

impl Tread {
    /// How many times larger its last working set is than its first.
    pub fn width(&self, bytes: &[u64]) -> f64 {
        bytes[self.last] as f64 / bytes[self.first].max(1) as f64
    }
}

/// `values` made non-decreasing by pooling adjacent violators (isotonic regression): a working set
/// never gets faster by growing, so a dip is noise, and pooling spreads it over its neighbours
/// instead of letting one lucky point start or end a tread.
pub fn monotone(values: &[f64]) -> Vec<f64> {
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for &v in values {
        blocks.push((v, 1));
        while blocks.len() > 1 {
            let (b, nb) = blocks[blocks.len() - 1];
            let (a, na) = blocks[blocks.len() - 2];
            if a <= b {
                break;
            }
            blocks.pop();
            let merged = (a * na as f64 + b * nb as f64) / (na + nb) as f64;
            *blocks.last_mut().expect("two blocks") = (merged, na + nb);
        }
    }
    blocks.into_iter().flat_map(|(v, n)| std::iter::repeat_n(v, n)).collect()
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// The treads of a curve (`ns` per load at working sets `bytes`, ascending), smallest first;
/// `narrow_levels` lets a narrow run that stands apart from both sides be one (not on random
/// curves, whose climbs pause where page walks step up).
/// The first and the last point always belong to a tread, so a curve that ends on a climb ends
/// on a tread of one point, narrower than [`MIN_TREAD_WIDTH`].
pub fn treads(bytes: &[u64], ns: &[f64], narrow_levels: bool) -> Vec<Tread> {
    debug_assert_eq!(bytes.len(), ns.len());
    let fitted = monotone(ns);
    let mut runs: Vec<Tread> = Vec::new();
    let mut first = 0;
    while first < fitted.len() {
        let mut last = first;
        while last + 1 < fitted.len() && fitted[last + 1] <= fitted[first] * PLATEAU {
            last += 1;
        }
        runs.push(Tread { first, last, ns: median(&ns[first..=last]) });
        first = last + 1;
    }
    let end = runs.len().saturating_sub(1);
    // Wide runs and the two ends are treads for sure; with `narrow_levels`, a narrow run of two
    // points or more is one too when it stands apart (NEW_LEVEL_STEP) from the sure treads on both
    // sides, as a small cache between two far larger ones does (a 48 MiB system cache after a
    // 12 MiB L2); in the middle of a climb it is near one of them. A random curve's climb to DRAM
    // pauses where page walks step up, so there only wide runs count.
    let sure: Vec<bool> =
        runs.iter().enumerate().map(|(i, r)| i == 0 || i == end || r.width(bytes) >= MIN_TREAD_WIDTH * 0.999).collect();
    let apart = |i: usize| {
        let before = runs[..i].iter().zip(&sure).rev().find(|(_, s)| **s).map(|(r, _)| r.ns);
        let after = runs[i + 1..].iter().zip(&sure[i + 1..]).find(|(_, s)| **s).map(|(r, _)| r.ns);
        let ns = runs[i].ns;
        before.is_some_and(|b| ns >= b * NEW_LEVEL_STEP) && after.is_some_and(|a| a >= ns * NEW_LEVEL_STEP)
    };
    let keep: Vec<bool> =
        (0..runs.len()).map(|i| sure[i] || (narrow_levels && runs[i].last > runs[i].first && apart(i))).collect();
    let mut kept: Vec<Tread> = Vec::new();
    // Whether the run before was kept (or joined a kept tread): a run too narrow to stand alone
    // only joins the tread right before it, never one across a climb.
    let mut after_kept = false;
    for (run, keep) in runs.into_iter().zip(keep) {
        match kept.last_mut() {
            // Close to the tread before it: the same level.
            Some(prev) if run.ns < prev.ns * MIN_LEVEL_STEP && (after_kept || keep) => {
                prev.last = run.last;
                prev.ns = median(&ns[prev.first..=prev.last]);
                after_kept = true;
            }
            _ if keep => {
                kept.push(run);
                after_kept = true;
            }
            _ => after_kept = false,
        }
    }
    kept
}

/// Where the level of tread `from` has run out on the way to tread `to`: after a sharp step (the
/// next size already on `to`), that first size; after a climb through sizes in between, the one
/// nearest to where the monotone curve is halfway from one tread's latency to the other's, which
/// is where half the loads miss (latency there is the mean of the two).
pub fn runs_out(bytes: &[u64], ns: &[f64], from: &Tread, to: &Tread) -> u64 {
    let fitted = monotone(ns);
    let target = (from.ns + to.ns) / 2.0;
    let Some(i) = (from.last + 1..=to.first).find(|&i| fitted[i] >= target) else {
        return bytes[to.first];
    };
    if i == from.last + 1 {
        return bytes[i];
    }
    let (lo, hi) = (fitted[i - 1].max(f64::MIN_POSITIVE), fitted[i]);
    let past_halfway = hi > lo && (target - lo) / (hi - lo) > 0.5;
    bytes[if past_halfway { i } else { i - 1 }]
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1024;

    fn sizes(n: usize) -> Vec<u64> {
        crate::ladder::ladder_sizes(16 * K, 1 << 40, 2).unwrap().into_iter().take(n).collect()
    }

    #[test]
    fn monotone_pools_dips_and_keeps_rises() {
        assert_eq!(monotone(&[1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
        assert_eq!(monotone(&[1.0, 3.0, 2.0, 4.0]), [1.0, 2.5, 2.5, 4.0]);
        assert_eq!(monotone(&[3.0, 2.0, 1.0]), [2.0, 2.0, 2.0]);
        assert!(monotone(&[]).is_empty());
    }

    #[test]
    fn a_pause_in_a_climb_is_not_a_tread() {
        // 16 KiB .. 96 KiB flat, a climb with two close points in the middle (too narrow to be a
        // level, and nearer the tread after it than twice), then flat again to the end.
        let ns = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 12.0, 12.5, 16.0, 20.0, 20.0, 20.5, 20.0];
        let bytes = sizes(ns.len());
        let found = treads(&bytes, &ns, true);
        let spans: Vec<(usize, usize)> = found.iter().map(|t| (t.first, t.last)).collect();
        assert_eq!(spans, [(0, 5), (10, 13)]);
        // Halfway from 1 to 20 ns is 10.5 ns, past halfway from 3 to 12 ns.
        assert_eq!(runs_out(&bytes, &ns, &found[0], &found[1]), bytes[7]);
        // Standing twice apart from both sides, the same two points are a small level of their
        // own, unless the curve is a random one (whose climbs pause where page walks step up).
        let apart = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 6.0, 6.5, 12.0, 20.0, 20.0, 20.5, 20.0];
        assert_eq!(treads(&bytes, &apart, true).len(), 3);
        assert_eq!(treads(&bytes, &apart, false).len(), 2);
    }

    #[test]
    fn close_treads_are_one_level_and_lone_end_points_join_it() {
        // A first point faster than the rest (a browser's smallest size), a small step inside the
        // second level, and a last point a little above the last tread.
        let ns = [1.0, 1.4, 1.4, 1.4, 4.5, 4.5, 4.5, 5.5, 5.5, 5.6, 50.0, 50.0, 51.0, 65.0];
        let bytes = sizes(ns.len());
        let found = treads(&bytes, &ns, true);
        let spans: Vec<(usize, usize)> = found.iter().map(|t| (t.first, t.last)).collect();
        assert_eq!(spans, [(0, 3), (4, 9), (10, 13)]);
        assert_eq!(found[0].ns, 1.4);
        assert_eq!(found[2].ns, 51.0);
        // A curve ending on a climb ends on a single-point tread.
        let climbing = [1.0, 1.0, 1.0, 4.0, 4.0, 4.0, 9.0, 20.0];
        let found = treads(&sizes(8), &climbing, true);
        assert_eq!(found.last().map(|t| (t.first, t.last)), Some((7, 7)));
    }
}
