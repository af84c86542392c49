//! Where the levels are: the curve the caches are read from, its treads numbered as levels, and
//! how it ends (in DRAM, on a climb, or still in a cache).

use memwall_report::Cache;

use super::evidence::{CurveView, Evidence};
use super::treads::{MIN_TREAD_WIDTH, NEW_LEVEL_STEP, PLATEAU, Tread};
use crate::ladder::Pattern;
use crate::size::format_bytes;

/// A step counts as inside a declared cache when it comes before this share of it is used (a
/// ring as large as a cache already misses in it, so only one clearly smaller counts).
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
    /// The sizes that read clearly slower than a larger one did, as (index, ns measured), now
    /// read at the larger one's latency.
    pub disturbed: Vec<(usize, f64)>,
}

impl CacheCurve {
    fn new(bytes: Vec<u64>, mut ns: Vec<f64>, label: String, tlb_prone: bool) -> Self {
        let disturbed = undisturb(&mut ns);
        Self { bytes, ns, label, tlb_prone, disturbed }
    }
}

/// A working set never gets faster by growing (a larger ring misses wherever a smaller one does),
/// and a fastest sample can only be slowed by noise, never sped up: so a size that read more than
/// [`PLATEAU`] slower than larger sizes did was disturbed throughout (a busy neighbour, a
/// descheduled vCPU), and the larger sizes' latency bounds its own. Two larger sizes must agree
/// (the bound is the second fastest of them), so that one lucky reading lowers nothing. Such a
/// size is lowered to that bound; smaller wiggles are left to the tread finder's pooling. Without
/// this, a few disturbed sizes among DRAM-bound ones read as a cache level followed by a slower
/// DRAM. Returns the sizes lowered, with what they read.
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

/// The TLB-friendliest curve: every page-local curve at the main curve's sizes, pointwise fastest
/// (each is caches and DRAM alone; the fastest of them is the least disturbed); else random on
/// huge pages; else the main random curve.
pub(super) fn cache_curve(evidence: &Evidence<'_>) -> Result<CacheCurve, String> {
    let main = evidence.curves.first().ok_or("the ladder has no curve")?;
    let same: Vec<&CurveView<'_>> = evidence.curves.iter().filter(|c| c.same_sizes(main)).collect();
    let local: Vec<&CurveView<'_>> = same.iter().copied().filter(|c| c.pattern == Pattern::PageLocal).collect();
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

/// How the cache curve ends.
pub(super) enum End {
    /// Its last tread is DRAM; why.
    Dram { tread: usize, evidence: Vec<String> },
    /// It ends on a climb.
    Climbing,
    /// It ends on a tread that reads like a cache.
    InCache(String),
}

pub(super) fn the_end(curve: &CacheCurve, found: &[Tread], declared: &[&Cache]) -> End {
    let (Some(last), Some(l1)) = (found.last(), found.first()) else { return End::Climbing };
    if found.len() < 2 {
        return End::InCache("the whole ladder reads as one level".into());
    }
    if last.width(&curve.bytes) < MIN_TREAD_WIDTH * 0.999 {
        return End::Climbing;
    }
    let (first_bytes, last_bytes) = (curve.bytes[last.first], curve.bytes[last.last]);
    // An L1 hit is the tread's fastest point, not its median: on a tread of two points one
    // disturbed one (32 KiB at 3.3 ns after 2.2 at 16 KiB, in a short ladder on a busy Xeon
    // guest) is the median, and DRAM at 63 ns then read as 19x an L1 hit: "an L4 cache to 64
    // MiB", which adaptive sized its single tables by.
    let l1_ns = curve.ns[l1.first..=l1.last].iter().copied().fold(l1.ns, f64::min);
    let over_l1 = last.ns / l1_ns;
    let mut evidence = vec![format!(
        "{}: flat at {:.0} ns from {} to {}, where the curve stops rising",
        curve.label,
        last.ns,
        format_bytes(first_bytes),
        format_bytes(last_bytes)
    )];
    // The OS's list is only trusted to name the last cache when it goes past L2: ARM guests often
    // declare L1 and L2 alone.
    let largest = declared.last().filter(|c| c.level >= 3);
    if let Some(cache) = largest.filter(|c| last_bytes > c.size_bytes) {
        evidence.push(format!("reaches past the declared {} L{}", format_bytes(cache.size_bytes), cache.level));
        return End::Dram { tread: found.len() - 1, evidence };
    }
    if over_l1 >= DRAM_OVER_L1 {
        evidence.push(format!(
            "{over_l1:.0}x an L1 hit: DRAM's latency, not a cache's (tie-break: no cache publishes more than \
             {DRAM_OVER_L1:.0}x){}",
            largest.map_or(String::new(), |c| format!(
                "; inside the declared {} L{}, so the host keeps the rest of it from this one",
                format_bytes(c.size_bytes),
                c.level
            ))
        ));
        return End::Dram { tread: found.len() - 1, evidence };
    }
    End::InCache(format!(
        "DRAM was not reached: the largest working set, {}, still reads {:.1} ns, {over_l1:.0}x an L1 hit: a cache's \
         latency{}",
        format_bytes(last_bytes),
        last.ns,
        largest.map_or(String::new(), |c| format!(" (the declared L{} is {})", c.level, format_bytes(c.size_bytes)))
    ))
}

/// The level number each cache tread gets, and whether it is a slower part of the level before:
/// less than [`NEW_LEVEL_STEP`] slower than it, and starting well inside its declared size (its
/// far slices, or on a random curve the TLB). Levels are counted in order of size; the
/// declared sizes only tell a slower part of one level from the next level.
pub(super) fn number_treads(found: &[Tread], bytes: &[u64], caches: &[&Cache]) -> Vec<(u8, bool)> {
    let declared_of = |n: u8| caches.iter().find(|c| c.level == n).map(|c| c.size_bytes);
    let mut out: Vec<(u8, bool)> = Vec::with_capacity(found.len());
    for (k, tread) in found.iter().enumerate() {
        let previous = out.last().map_or(0, |&(n, _)| n);
        let inside = k > 0
            && tread.ns < found[k - 1].ns * NEW_LEVEL_STEP
            && declared_of(previous).is_some_and(|d| bytes[tread.first] as f64 <= d as f64 * EARLY);
        out.push(if k == 0 {
            (1, false)
        } else if inside {
            (previous, true)
        } else {
            (previous + 1, false)
        });
    }
    out
}

/// On a random curve, where page walks raise DRAM in steps of their own, the first tread past every
/// level a complete declaration (one that names an L3 or beyond) lists is DRAM already.
pub(super) fn first_undeclared(numbers: &[(u8, bool)], caches: &[&Cache]) -> Option<usize> {
    let largest = caches.last().filter(|c| c.level >= 3)?;
    numbers.iter().position(|&(n, _)| n > largest.level)
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
