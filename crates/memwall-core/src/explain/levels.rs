//! Which tread of the ladder is which level of the memory hierarchy, what placed it there, and
//! the sentences that say so.
//!
//! The caches are read from the curve the TLB disturbs least (page-local, on huge pages where the
//! host granted them). DRAM is that curve's last tread, where latency stops rising, once the
//! ladder has shown it got past the caches: beyond the largest cache the OS declares, or, where
//! nothing declares one (a browser, an ARM guest that lists only L1 and L2), at a latency no cache
//! answers in. A level the random curve adds on top of those is the TLB's.

use memwall_report::{Cause, Level};

use super::evidence::{CurveView, Evidence, data_caches};
use super::treads::{self, MIN_TREAD_WIDTH, NEW_LEVEL_STEP, PLATEAU, Tread};
use crate::ladder::Pattern;
use crate::size::format_bytes;

/// A rise of random over page-local beyond this is the TLB's doing.
pub const TLB_GAP: f64 = 1.2;

/// A step counts as inside a declared cache when it comes before this share of it is used (a
/// ring as large as a cache already misses in it, so only one clearly smaller counts).
const EARLY: f64 = 0.75;

/// The tie-break, for a ladder that ends on a tread nothing else places: DRAM answers at least
/// this many times slower than an L1 hit. Published pointer-chase figures put every last-level
/// cache under it (AMD's L3 ~12x at 46-50 cycles against 4, Intel's mesh L3 ~20x at ~100 against
/// 5, Apple's and Graviton's system caches ~20-25x) and DRAM above it (~60x on a fast desktop,
/// 80-130x on servers and in VMs; a TLB-friendly chase that a spatial prefetcher half serves
/// still reads 30x and more). It breaks a tie; it never overrides a declared cache.
pub const DRAM_OVER_L1: f64 = 25.0;

/// What was found, for the report and the page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub levels: Vec<Level>,
    /// Sentences on what the levels mean, each with its numbers.
    pub verdict: Vec<String>,
}

/// The curve the caches are read from.
struct CacheCurve {
    bytes: Vec<u64>,
    /// Fastest sample per size (pointwise the fastest of the curves it was made from).
    ns: Vec<f64>,
    label: String,
    /// A random chase on small pages: TLB misses add to the cache misses in every step.
    tlb_prone: bool,
}

/// The TLB-friendliest curve: every page-local curve at the main curve's sizes, pointwise fastest
/// (each is caches and DRAM alone; the fastest of them is the least disturbed); else random on
/// huge pages; else the main random curve.
fn cache_curve(evidence: &Evidence<'_>) -> Result<CacheCurve, String> {
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
        return Ok(CacheCurve {
            bytes: main.bytes(),
            ns: fastest(&local),
            label: labels.join(" and "),
            tlb_prone: false,
        });
    }
    let random =
        same.iter().copied().filter(|c| c.pattern == Pattern::Random).min_by_key(|c| !c.huge).ok_or_else(|| {
            format!("levels are read from a random or page-local curve; this ladder has {}", main.label())
        })?;
    Ok(CacheCurve { bytes: random.bytes(), ns: fastest(&[random]), label: random.label(), tlb_prone: !random.huge })
}

/// How the cache curve ends.
enum End {
    /// Its last tread is DRAM; why.
    Dram { tread: usize, evidence: Vec<String> },
    /// It ends on a climb.
    Climbing,
    /// It ends on a tread that reads like a cache.
    InCache(String),
}

fn the_end(curve: &CacheCurve, found: &[Tread], declared: &[&memwall_report::Cache]) -> End {
    let (Some(last), Some(l1)) = (found.last(), found.first()) else { return End::Climbing };
    if found.len() < 2 {
        return End::InCache("the whole ladder reads as one level".into());
    }
    if last.width(&curve.bytes) < MIN_TREAD_WIDTH * 0.999 {
        return End::Climbing;
    }
    let (first_bytes, last_bytes) = (curve.bytes[last.first], curve.bytes[last.last]);
    let over_l1 = last.ns / l1.ns;
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
fn number_treads(found: &[Tread], bytes: &[u64], caches: &[&memwall_report::Cache]) -> Vec<(u8, bool)> {
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
fn first_undeclared(numbers: &[(u8, bool)], caches: &[&memwall_report::Cache]) -> Option<usize> {
    let largest = caches.last().filter(|c| c.level >= 3)?;
    numbers.iter().position(|&(n, _)| n > largest.level)
}

/// "one thread streams 27-29 GB/s of reads from 4 MiB to 64 MiB", over the bandwidth points
/// that fall within `lo..=hi`.
fn streams(evidence: &Evidence<'_>, lo: u64, hi: u64) -> Option<String> {
    let points: Vec<f64> = evidence
        .bandwidth?
        .points
        .iter()
        .filter(|p| p.threads == 1 && (lo..=hi).contains(&p.bytes))
        .map(|p| p.read_gb_per_s)
        .collect();
    let sizes: Vec<u64> = evidence
        .bandwidth?
        .points
        .iter()
        .filter(|p| p.threads == 1 && (lo..=hi).contains(&p.bytes))
        .map(|p| p.bytes)
        .collect();
    let (low, high) = points.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &g| (l.min(g), h.max(g)));
    let (&from, &to) = (sizes.first()?, sizes.last()?);
    let rate = if high - low < 0.5 { format!("{high:.0}") } else { format!("{low:.0}-{high:.0}") };
    Some(if from == to {
        format!("one thread streams {rate} GB/s of reads at {}", format_bytes(from))
    } else {
        format!("one thread streams {rate} GB/s of reads from {} to {}", format_bytes(from), format_bytes(to))
    })
}

/// Names the levels the evidence shows.
pub fn read(evidence: &Evidence<'_>) -> Reading {
    let mut verdict = Vec::new();
    let curve = match cache_curve(evidence) {
        Ok(curve) if curve.bytes.len() >= 2 => curve,
        Ok(_) => return Reading::default(),
        Err(why) => return Reading { levels: vec![], verdict: vec![why] },
    };
    let found = treads::treads(&curve.bytes, &curve.ns, !curve.tlb_prone);
    let caches = data_caches(evidence.declared);
    let numbers = number_treads(&found, &curve.bytes, &caches);
    let mut end = the_end(&curve, &found, &caches);
    if curve.tlb_prone
        && let Some(k) = first_undeclared(&numbers, &caches)
        && !matches!(end, End::Dram { tread, .. } if tread <= k)
    {
        end = End::Dram {
            tread: k,
            evidence: vec![format!(
                "{}: {:.0} ns from {}, the first tread past every cache the OS declares; page walks raise it further",
                curve.label,
                found[k].ns,
                format_bytes(curve.bytes[found[k].first])
            )],
        };
    }
    let cycles = |ns: f64| evidence.ghz.map(|g| ns * g);
    let size = |i: usize| curve.bytes[i];
    let cache_treads = match &end {
        End::Dram { tread, .. } => &found[..*tread],
        // A curve ending on a climb ends on a lone point, which is no level.
        End::Climbing if found.len() > 1 => &found[..found.len() - 1],
        _ => &found[..],
    };
    let next_tread = |k: usize| found.get(k + 1);
    let runs_out = |k: usize| next_tread(k).map(|next| treads::runs_out(&curve.bytes, &curve.ns, &found[k], next));
    let declared_of = |n: u8| caches.iter().find(|c| c.level == n).map(|c| c.size_bytes);
    let mut levels: Vec<Level> = Vec::new();
    let mut number = 0u8;
    for (k, tread) in cache_treads.iter().enumerate() {
        let start = size(tread.first);
        let placed = format!(
            "{}: {:.1} ns from {} to {}",
            curve.label,
            tread.ns,
            format_bytes(start),
            format_bytes(size(tread.last))
        );
        let (inside_previous, before) = (numbers[k].1, found[k.saturating_sub(1)]);
        number = numbers[k].0;
        let (name, cause) = if !inside_previous {
            (format!("L{number}"), Cause::Cache)
        } else if curve.tlb_prone {
            verdict.push(format!(
                "latency steps up from {:.1} to {:.1} ns after {}, inside the declared {} L{number}: the TLB's reach \
                 or a share of that cache taken by another tenant (`--pattern page-local` tells which)",
                before.ns,
                tread.ns,
                format_bytes(size(before.last)),
                format_bytes(declared_of(number).unwrap_or(0))
            ));
            (format!("L{number} + TLB misses"), Cause::Tlb)
        } else {
            verdict.push(format!(
                "L{number} slows from {:.1} to {:.1} ns after {}, well inside its declared {}, with TLB misses kept \
                 rare: part of it is farther away or in use by others",
                before.ns,
                tread.ns,
                format_bytes(size(before.last)),
                format_bytes(declared_of(number).unwrap_or(0))
            ));
            (format!("L{number} (slower part)"), Cause::Cache)
        };
        let declared_bytes = (!inside_previous).then(|| declared_of(number)).flatten();
        let capacity_bytes = (cause == Cause::Cache).then(|| runs_out(k)).flatten();
        let mut placed = vec![placed];
        match declared_bytes {
            Some(d) => placed.push(format!("the OS declares {} of L{number}", format_bytes(d))),
            None if !inside_previous && !caches.is_empty() => {
                placed.push(format!("the OS declares no L{number}"));
                verdict.push(format!(
                    "the OS declares no L{number}, yet the curve holds one: {:.1} ns up to {}{}, a system-level cache \
                     or one the hypervisor does not list",
                    tread.ns,
                    format_bytes(size(tread.last)),
                    runs_out(k).map_or(String::new(), |c| format!(", run out by {}", format_bytes(c)))
                ));
            }
            None => {}
        }
        placed.extend(capacity_bytes.map(|c| format!("runs out by {}", format_bytes(c))));
        placed.extend(streams(evidence, start, size(tread.last)));
        levels.push(Level {
            name,
            size_bytes: size(tread.last),
            ns_per_load: tread.ns,
            cycles_per_load: cycles(tread.ns),
            cause,
            declared_bytes,
            capacity_bytes,
            evidence: placed,
        });
    }
    holds_less_than_declared(&levels, &mut verdict, curve.tlb_prone);
    let last_cache = levels.iter().rev().find(|l| l.cause == Cause::Cache).cloned();
    match end {
        End::Dram { tread, evidence: mut why } => {
            let dram = found[tread];
            let from = size(dram.first);
            if let Some(cache) = &last_cache {
                match caches.last() {
                    Some(largest) if cache.name != format!("L{}", largest.level) && largest.level > number => {
                        verdict.push(format!(
                            "no step for the declared {} L{}: after {} ({:.1} ns up to {}) loads go to DRAM",
                            format_bytes(largest.size_bytes),
                            largest.level,
                            cache.name,
                            cache.ns_per_load,
                            format_bytes(cache.size_bytes)
                        ));
                    }
                    Some(largest) if (from as f64) < largest.size_bytes as f64 * EARLY => {
                        verdict.push(format!(
                            "this host gets ~{} of the declared {} L{}: {:.1} ns up to {}, DRAM-like {:.0} ns from {}",
                            format_bytes(cache.size_bytes),
                            format_bytes(largest.size_bytes),
                            largest.level,
                            cache.ns_per_load,
                            format_bytes(cache.size_bytes),
                            dram.ns,
                            format_bytes(from)
                        ));
                    }
                    _ => {}
                }
            }
            verdict.push(match cycles(dram.ns) {
                Some(c) => format!("DRAM is {:.0} ns ({c:.0} cycles) away from {}", dram.ns, format_bytes(from)),
                None => format!("DRAM is {:.0} ns away from {}", dram.ns, format_bytes(from)),
            });
            why.extend(streams(evidence, from, u64::MAX));
            levels.push(Level {
                name: "DRAM".into(),
                size_bytes: from,
                ns_per_load: dram.ns,
                cycles_per_load: cycles(dram.ns),
                cause: Cause::Dram,
                declared_bytes: None,
                capacity_bytes: None,
                evidence: why,
            });
            if curve.tlb_prone {
                dram_with_tlb_misses(&curve, dram, &mut levels, &mut verdict, &cycles);
            }
        }
        End::Climbing => {
            let last = curve.ns.len() - 1;
            verdict.push(format!(
                "DRAM was not reached: latency still climbs at the largest working set, {} ({:.1} ns)",
                format_bytes(size(last)),
                curve.ns[last]
            ));
        }
        End::InCache(why) => verdict.push(why),
    }
    if curve.tlb_prone {
        verdict.push(format!(
            "these levels are read from one random curve ({}), where TLB misses add to cache misses: `--pattern \
             page-local` tells them apart",
            curve.label
        ));
    }
    tlb_levels(evidence, &mut levels, &mut verdict, &cycles);
    levels.sort_by_key(|l| (l.size_bytes, l.cause == Cause::Tlb));
    Reading { levels, verdict }
}

/// A cache before the last that runs out well before its declared size: said, with the TLB named
/// as a suspect where the curve cannot rule it out. (The last cache's share is said against DRAM.)
fn holds_less_than_declared(levels: &[Level], verdict: &mut Vec<String>, tlb_prone: bool) {
    let caches: Vec<&Level> = levels.iter().filter(|l| l.cause == Cause::Cache).collect();
    for pair in caches.windows(2) {
        let [level, next] = pair else { continue };
        let (Some(held), Some(declared)) = (level.capacity_bytes, level.declared_bytes) else { continue };
        if (held as f64) < declared as f64 * EARLY {
            verdict.push(format!(
                "{} holds about {} of the declared {} ({:.1} ns, then {:.1} ns in {}){}",
                level.name,
                format_bytes(held),
                format_bytes(declared),
                level.ns_per_load,
                next.ns_per_load,
                next.name,
                if tlb_prone {
                    ": the TLB's reach or a cache shared with another tenant (`--pattern page-local` tells which)"
                } else {
                    ""
                }
            ));
        }
    }
}

/// On a random-only curve DRAM keeps climbing as page walks miss too: the climb past DRAM's
/// tread is a level of its own.
fn dram_with_tlb_misses(
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
fn tlb_levels(
    evidence: &Evidence<'_>,
    levels: &mut Vec<Level>,
    verdict: &mut Vec<String>,
    cycles: &dyn Fn(f64) -> Option<f64>,
) {
    let Some((random, local)) = small_page_pair(evidence) else { return };
    let (random_label, local_label) = (random.label(), local.label());
    let (random, local) = (random.points, local.points);
    let gap: Vec<f64> = random.iter().zip(local).map(|(r, l)| r.ns_per_load.min / l.ns_per_load.min).collect();
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
            local[first].ns_per_load.min
        )],
    });
    let last = random.len() - 1;
    verdict.push(format!(
        "TLB misses start after {}: random reads {:.1} ns at {} where TLB-friendly page-local reads {:.1}; at {} page \
         walks are {:.0}% of the latency ({:.0} of {:.0} ns)",
        format_bytes(reach),
        at.ns_per_load.min,
        format_bytes(at.bytes),
        local[first].ns_per_load.min,
        format_bytes(random[last].bytes),
        page_walk_share(&random[last], &local[last]) * 100.0,
        random[last].ns_per_load.min - local[last].ns_per_load.min,
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
pub fn page_walk_share(random: &memwall_report::LadderPoint, page_local: &memwall_report::LadderPoint) -> f64 {
    let r = random.ns_per_load.min;
    if r > 0.0 { ((r - page_local.ns_per_load.min) / r).max(0.0) } else { 0.0 }
}
