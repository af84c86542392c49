//! What the TLB adds: where random climbs over page-local for good (the TLB's reach), what page
//! walks cost at the largest size, and on a random-only curve the climb past DRAM's tread.

use memwall_report::{Cause, LadderPoint, Level};

use super::curve::{CacheCurve, undisturb};
use super::evidence::{CurveView, Evidence};
use super::treads::{PLATEAU, Tread};
use crate::ladder::Pattern;
use crate::size::format_bytes;

/// A rise of random over page-local beyond this is the TLB's doing.
pub const TLB_GAP: f64 = 1.2;

/// On a random-only curve DRAM keeps climbing as page walks miss too: the climb past DRAM's
/// tread is a level of its own.
pub(super) fn dram_with_tlb_misses(
    curve: &CacheCurve,
    dram: Tread,
    levels: &mut Vec<Level>,
    verdict: &mut Vec<String>,
    cycles: &dyn Fn(f64) -> Option<f64>,
) {
    let last = curve.ns.len() - 1;
    let highest = curve.ns[last];
    if highest <= dram.ns * PLATEAU {
        return;
    }
    levels.push(Level {
        name: "DRAM + TLB misses".into(),
        size_bytes: curve.bytes[last],
        ns_per_load: highest,
        cycles_per_load: cycles(highest),
        cause: Cause::Tlb,
        declared_bytes: None,
        capacity_bytes: None,
        evidence: vec![format!("{}: {highest:.0} ns at {}", curve.label, format_bytes(curve.bytes[last]))],
    });
    verdict.push(format!(
        "in DRAM, latency keeps rising with the working set ({:.0} ns at {}, {:.0} ns at {}): page walks that miss \
         the caches too; huge pages would remove most of them",
        dram.ns,
        format_bytes(curve.bytes[dram.first]),
        highest,
        format_bytes(curve.bytes[last])
    ));
}

/// With random on small pages and page-local beside it: the size from which random stays
/// [`TLB_GAP`] above page-local is the TLB's reach, and the gap at the largest size is what page
/// walks cost there.
pub(super) fn tlb_levels(
    evidence: &Evidence<'_>,
    levels: &mut Vec<Level>,
    verdict: &mut Vec<String>,
    cycles: &dyn Fn(f64) -> Option<f64>,
) {
    let Some((random, local)) = small_page_pair(evidence) else { return };
    let (random_label, local_label) = (random.label(), local.label());
    let random = random.points;
    // Page-local read as the levels read it: a size noise held up throughout would open a gap
    // that is not the TLB's.
    let mut local: Vec<f64> = local.points.iter().map(|l| l.ns_per_load.min).collect();
    undisturb(&mut local);
    let gap: Vec<f64> = random.iter().zip(&local).map(|(r, l)| r.ns_per_load.min / l).collect();
    // From where random stays above page-local for good: one size read slower by noise, or a
    // first-level TLB miss that the second level catches, is not where page walks start.
    let first = gap.iter().rposition(|&g| g <= TLB_GAP).map_or(0, |i| i + 1);
    if first == gap.len() {
        verdict.push(
            "random and page-local read alike at the largest sizes: TLB misses cost nothing measurable here".into(),
        );
        return;
    }
    let at = &random[first];
    let reach = random[first.saturating_sub(1)].bytes;
    levels.push(Level {
        name: "TLB reach".into(),
        size_bytes: reach,
        ns_per_load: at.ns_per_load.min,
        cycles_per_load: cycles(at.ns_per_load.min),
        cause: Cause::Tlb,
        declared_bytes: None,
        capacity_bytes: None,
        evidence: vec![format!(
            "{} reads {:.1} ns at {} where {} reads {:.1}",
            random_label,
            at.ns_per_load.min,
            format_bytes(at.bytes),
            local_label,
            local[first]
        )],
    });
    let last = random.len() - 1;
    verdict.push(format!(
        "TLB misses start after {}: random reads {:.1} ns at {} where TLB-friendly page-local reads {:.1}; at {} page \
         walks are {:.0}% of the latency ({:.0} of {:.0} ns)",
        format_bytes(reach),
        at.ns_per_load.min,
        format_bytes(at.bytes),
        local[first],
        format_bytes(random[last].bytes),
        walk_share(random[last].ns_per_load.min, local[last]) * 100.0,
        random[last].ns_per_load.min - local[last],
        random[last].ns_per_load.min
    ));
}

/// Random on small pages and page-local at the same sizes (on the same pages where both were
/// measured, else on huge pages): their gap is the page walks.
pub(super) fn small_page_pair<'a>(evidence: &Evidence<'a>) -> Option<(CurveView<'a>, CurveView<'a>)> {
    evidence.curves.iter().filter(|c| c.pattern == Pattern::Random && !c.huge).find_map(|random| {
        let locals = || evidence.curves.iter().filter(|l| l.pattern == Pattern::PageLocal && l.same_sizes(random));
        let local = locals().find(|l| l.pages == random.pages).or_else(|| locals().next())?;
        Some((*random, *local))
    })
}

/// The share of a random chase's latency that page walks account for: (random - page-local) /
/// random, on the fastest samples, never below 0.
pub fn page_walk_share(random: &LadderPoint, page_local: &LadderPoint) -> f64 {
    walk_share(random.ns_per_load.min, page_local.ns_per_load.min)
}

pub(super) fn walk_share(random_ns: f64, page_local_ns: f64) -> f64 {
    if random_ns > 0.0 { ((random_ns - page_local_ns) / random_ns).max(0.0) } else { 0.0 }
}
