//! The staircase of a latency curve: its treads (working sets that read alike: one level of the
//! hierarchy, as [`super::fit`] finds them), where each runs out, and the physical facts the
//! reading rests on.

/// A size that reads more than this factor slower than larger sizes did was held up by noise
/// (see `curve::undisturb`), and on a random-only curve DRAM climbing past it is page walks.
pub const PLATEAU: f64 = 1.2;

/// The least latency step between two levels of a hierarchy. Each level answers about 2x slower
/// than the one before it or more (L1 to L2: 4-5 cycles to 9-18 on every x86 and ARM core
/// published, Cortex-A76's 9 the closest; L2 to L3 or a system cache, and a last-level cache to
/// DRAM: 3x and more), while smaller steps are something else: a TLB miss that hits the next TLB,
/// the far slices of one cache, a browser's timer moving the smallest sizes. 1.5 leaves the
/// closest published step room for noise; a level's band is half of it (see [`super::fit`]).
pub const MIN_LEVEL_STEP: f64 = 1.5;

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
    fn a_level_runs_out_where_latency_is_halfway_or_at_a_sharp_step() {
        let ns = [1.0, 1.0, 1.0, 3.0, 12.0, 16.0, 20.0, 20.0];
        let bytes = sizes(ns.len());
        let (l1, l2) = (Tread { first: 0, last: 2, ns: 1.0 }, Tread { first: 6, last: 7, ns: 20.0 });
        // Halfway from 1 to 20 ns is 10.5 ns, past halfway from 3 to 12 ns.
        assert_eq!(runs_out(&bytes, &ns, &l1, &l2), bytes[4]);
        let sharp = [1.0, 1.0, 1.0, 20.0, 20.0];
        assert_eq!(runs_out(&sizes(5), &sharp, &l1, &Tread { first: 3, last: 4, ns: 20.0 }), sizes(5)[3]);
    }
}
