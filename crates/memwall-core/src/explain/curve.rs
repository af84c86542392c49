//! The curve the caches are read from.

use super::evidence::{CurveView, Evidence};
use super::treads::PLATEAU;
use crate::ladder::Pattern;

/// A cache runs out early when DRAM starts before this share of its declared size (a ring as
/// large as a cache already misses in it, so only one clearly smaller counts).
pub(super) const EARLY: f64 = 0.75;

/// The tie-break, for a ladder that ends on a tread nothing else places: DRAM answers at least
/// this many times slower than an L1 hit. Published pointer-chase figures put every last-level
/// cache under it (AMD's L3 ~12x at 46-50 cycles against 4, Intel's mesh L3 ~20x at ~100 against
/// 5, Apple's and Graviton's system caches ~20-25x) and DRAM above it (~60x on a fast desktop,
/// 80-130x on servers and in VMs; a TLB-friendly chase that a spatial prefetcher half serves
/// still reads 30x and more). It breaks a tie; it never overrides a declared cache.
pub const DRAM_OVER_L1: f64 = 25.0;

/// The curve the caches are read from.
pub(super) struct CacheCurve {
    pub bytes: Vec<u64>,
    /// Fastest sample per size (pointwise the fastest of the curves it was made from).
    pub ns: Vec<f64>,
    pub label: String,
    /// A random chase on small pages: TLB misses add to the cache misses in every step.
    pub tlb_prone: bool,
}

impl CacheCurve {
    fn new(bytes: Vec<u64>, ns: Vec<f64>, label: String, tlb_prone: bool) -> Self {
        Self { bytes, ns, label, tlb_prone }
    }
}

/// A working set never gets faster by growing (a larger ring misses wherever a smaller one does),
/// and a fastest sample can only be slowed by noise, never sped up: so a size that read more than
/// [`PLATEAU`] slower than larger sizes did was disturbed throughout (a busy neighbour, a
/// descheduled vCPU), and the larger sizes' latency bounds its own. Two larger sizes must agree
/// (the bound is the second fastest of them), so that one lucky reading lowers nothing. Such a
/// size is lowered to that bound (the TLB's gap is read on curves so lowered). Returns the sizes
/// lowered, with what they read.
pub(super) fn undisturb(ns: &mut [f64]) -> Vec<(usize, f64)> {
    let mut lowered = Vec::new();
    // The fastest and second fastest reading beyond the size at hand.
    let (mut fastest, mut second) = (f64::INFINITY, f64::INFINITY);
    for i in (0..ns.len()).rev() {
        if ns[i] > second * PLATEAU {
            lowered.push((i, ns[i]));
            ns[i] = second;
        }
        if ns[i] < fastest {
            (fastest, second) = (ns[i], fastest);
        } else if ns[i] < second {
            second = ns[i];
        }
    }
    lowered.reverse();
    lowered
}

/// The TLB-friendliest curve: every page-local curve at the main curve's sizes and every random
/// curve on huge pages beside them, pointwise fastest (each is caches and DRAM alone; the fastest
/// of them is the least disturbed); else random on huge pages; else the main random curve.
///
/// Each curve is measured at another moment, and on a shared host the cache a guest gets moves
/// between them: in five back-to-back `memwall run`s on the 2-vCPU EPYC dev guest (2026-12-06,
/// `docs/results/stability-epyc-2vcpu-kvm.md`), the page-local curve held cache speed to 2, 3 or
/// 6 MiB while the random curve on huge pages, measured after it, held it to 8 MiB. Away from
/// that edge the pointwise fastest is the curve whose page walks cost least; at the edge each
/// curve already holds the typical one of the moments it was measured at (`revisit.rs`).
pub(super) fn cache_curve(evidence: &Evidence<'_>) -> Result<CacheCurve, String> {
    let main = evidence.curves.first().ok_or("the ladder has no curve")?;
    let same: Vec<&CurveView<'_>> = evidence.curves.iter().filter(|c| c.same_sizes(main)).collect();
    let has_local = same.iter().any(|c| c.pattern == Pattern::PageLocal);
    let local: Vec<&CurveView<'_>> =
        if has_local { same.iter().copied().filter(|c| c.reads_caches()).collect() } else { Vec::new() };
    let fastest = |curves: &[&CurveView<'_>]| -> Vec<f64> {
        (0..main.points.len())
            .map(|i| curves.iter().map(|c| c.points[i].ns_per_load.min).fold(f64::INFINITY, f64::min))
            .collect()
    };
    if !local.is_empty() {
        let labels: Vec<String> = local.iter().map(|c| c.label()).collect();
        return Ok(CacheCurve::new(main.bytes(), fastest(&local), labels.join(" and "), false));
    }
    let random =
        same.iter().copied().filter(|c| c.pattern == Pattern::Random).min_by_key(|c| !c.huge).ok_or_else(|| {
            format!("levels are read from a random or page-local curve; this ladder has {}", main.label())
        })?;
    Ok(CacheCurve::new(random.bytes(), fastest(&[random]), random.label(), !random.huge))
}

#[cfg(test)]
mod tests {
    use super::undisturb;

    #[test]
    fn sizes_slower_than_two_larger_ones_are_lowered_and_one_lucky_reading_lowers_nothing() {
        // DRAM at 80 ns with two sizes held up (200 and 160 ns) and a 10% wiggle left alone.
        let mut ns = [1.5, 4.0, 13.0, 80.0, 200.0, 82.0, 160.0, 88.0, 80.0, 81.0];
        let lowered = undisturb(&mut ns);
        assert_eq!(lowered, [(4, 200.0), (6, 160.0)]);
        assert_eq!(ns, [1.5, 4.0, 13.0, 80.0, 81.0, 82.0, 81.0, 88.0, 80.0, 81.0]);
        // One reading far below the rest (a lucky or broken sample) is not enough to lower others.
        let mut lucky = [1.5, 4.0, 13.0, 100.0, 104.0, 40.0, 102.0];
        assert!(undisturb(&mut lucky).is_empty());
        assert_eq!(lucky, [1.5, 4.0, 13.0, 100.0, 104.0, 40.0, 102.0]);
        assert!(undisturb(&mut []).is_empty());
    }
}
