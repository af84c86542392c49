//! Reading the ladder: which plateau is which level of the memory hierarchy, what makes each
//! step (a cache filling, the TLB's reach, DRAM), how that compares with the caches the OS
//! declares, and the plain sentences that say so.
//!
//! Everything is derived from the curve itself and the declared sizes, never from figures of a
//! particular machine: plateaus are runs of points within [`PLATEAU`] of their first, DRAM is
//! where the largest jump between plateaus lands, and a step is laid to the TLB when the
//! TLB-friendly `page-local` curve does not take it (or, without that curve, when it comes before
//! the current cache is full, and then the sentence says it could also be a shared cache).

use memwall_report::{Bandwidth, BandwidthPoint, Cache, Cause, Ladder, LadderPoint, Level};

use crate::size::format_bytes;

/// Points within this factor of a plateau's first point belong to it.
pub const PLATEAU: f64 = 1.2;
/// A rise of random over page-local beyond this is the TLB's doing.
pub const TLB_GAP: f64 = 1.2;
/// A rise counts as early when it comes before this share of the declared cache is used.
const EARLY: f64 = 0.75;

/// A run of points on one level.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Plateau {
    first: usize,
    last: usize,
    ns: f64,
}

/// `values` made non-decreasing by pooling adjacent violators (isotonic regression): a working set
/// never gets faster by growing, so a dip is noise, and pooling spreads it over its neighbours
/// instead of letting one lucky point start or end a plateau.
fn monotone(values: &[f64]) -> Vec<f64> {
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

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Plateaus of a curve (ns per load by index): a plateau has two points or more, or is the first
/// or last point; single points between plateaus are the climb from one to the next.
fn plateaus(ns: &[f64]) -> Vec<Plateau> {
    let fitted = monotone(ns);
    let mut out = Vec::new();
    let mut first = 0;
    while first < fitted.len() {
        let mut last = first;
        while last + 1 < fitted.len() && fitted[last + 1] <= fitted[first] * PLATEAU {
            last += 1;
        }
        if last > first || first == 0 || last + 1 == fitted.len() {
            out.push(Plateau { first, last, ns: median(ns[first..=last].to_vec()) });
        }
        first = last + 1;
    }
    out
}

/// Where the level of plateau `from` has run out on the way to plateau `to`: after a sharp step
/// (the next size already on `to`), that first size; after a climb through sizes in between, the
/// one nearest (in log latency) to where the monotone curve reaches the geometric mean of the
/// two plateaus, about where half the loads miss.
fn capacity(points: &[LadderPoint], fitted: &[f64], from: &Plateau, to: &Plateau) -> u64 {
    let target = (from.ns * to.ns).sqrt();
    let Some(i) = (from.last + 1..=to.first).find(|&i| fitted[i] >= target) else {
        return points[to.first].bytes;
    };
    if i == from.last + 1 {
        return points[i].bytes;
    }
    let (lo, hi) = (fitted[i - 1].max(f64::MIN_POSITIVE), fitted[i]);
    let past_halfway = hi > lo && (target / lo).ln() / (hi / lo).ln() > 0.5;
    points[if past_halfway { i } else { i - 1 }].bytes
}

/// The data and unified caches the OS declares, smallest level first.
fn data_caches(declared: &[Cache]) -> Vec<&Cache> {
    let mut caches: Vec<&Cache> = declared.iter().filter(|c| c.kind != "Instruction").collect();
    caches.sort_by_key(|c| c.level);
    caches.dedup_by_key(|c| c.level);
    caches
}

/// Which plateau DRAM starts at: the one after the largest jump between plateaus, if it lies
/// beyond the declared private caches (beyond 1 MiB when none are declared) and the jump is at
/// least 3x (no cache step on current hardware comes near the cache-to-DRAM one, and no TLB
/// step does either). `None` when the curve does not reach DRAM.
fn dram_plateau(points: &[LadderPoint], plateaus: &[Plateau], declared: &[&Cache]) -> Option<usize> {
    let private = declared.iter().filter(|c| c.level <= 2).map(|c| c.size_bytes).max().unwrap_or(1 << 20);
    (1..plateaus.len())
        .filter(|&k| points[plateaus[k].first].bytes > private)
        .map(|k| (k, plateaus[k].ns / plateaus[k - 1].ns))
        .filter(|&(_, jump)| jump >= 3.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

/// What was found, for [`verdict`] to put in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub levels: Vec<Level>,
    /// Sentences on what the levels mean, each with its numbers.
    pub verdict: Vec<String>,
}

/// The curves [`read_levels`] reads, all at the same sizes.
#[derive(Debug, Clone, Copy)]
pub struct Curves<'a> {
    /// The main curve: one random cycle over every line.
    pub random: &'a [LadderPoint],
    /// The same chase with TLB misses kept rare, on the same pages: its steps are the caches',
    /// and where random climbs above it the TLB is the cause.
    pub page_local: Option<&'a [LadderPoint]>,
    /// The curve to find the caches on, if not page-local: page-local on huge pages is best, as
    /// small pages scattered in physical memory crowd some cache sets before the cache is full.
    pub caches: Option<&'a [LadderPoint]>,
}

/// Names the levels of the curves against the `declared` caches; `ghz` turns ns into cycles.
pub fn read_levels(curves: Curves<'_>, declared: &[Cache], ghz: Option<f64>) -> Reading {
    let Curves { random, page_local, caches: cache_curve } = curves;
    let mut verdict = Vec::new();
    if random.len() < 2 {
        return Reading { levels: vec![], verdict };
    }
    let same_sizes =
        |p: &&[LadderPoint]| p.len() == random.len() && p.iter().zip(random).all(|(a, b)| a.bytes == b.bytes);
    let page_local = page_local.filter(same_sizes);
    // The caches are read from the curve the TLB disturbs least.
    let cache_curve = cache_curve.filter(same_sizes).or(page_local).unwrap_or(random);
    let ns: Vec<f64> = cache_curve.iter().map(|p| p.ns_per_load.min).collect();
    let fitted = monotone(&ns);
    let found = plateaus(&ns);
    let runs_out = |k: usize| found.get(k + 1).map(|next| capacity(cache_curve, &fitted, &found[k], next));
    let caches = data_caches(declared);
    let dram = dram_plateau(cache_curve, &found, &caches);
    let cycles = |ns: f64| ghz.map(|g| ns * g);
    let size = |i: usize| cache_curve[i].bytes;
    let mut levels = Vec::new();
    // Index into `caches` of the level the current plateau is served from.
    let mut serving = 0usize;
    for (k, plateau) in found.iter().enumerate() {
        if dram.is_some_and(|d| k >= d) {
            break;
        }
        let (name, cause, declared_bytes) = if k == 0 {
            ("L1".to_string(), Cause::Cache, caches.first().filter(|c| c.level == 1).map(|c| c.size_bytes))
        } else if caches.is_empty() {
            (format!("L{}", k + 1), Cause::Cache, None)
        } else {
            let start = size(plateau.first);
            let before = size(found[k - 1].last);
            // The first working set that read slower than the plateau before.
            let rose_at = size(found[k - 1].last + 1);
            let current = caches.get(serving).map(|c| c.size_bytes);
            if current.is_some_and(|c| start as f64 <= c as f64 * EARLY) && page_local.is_none() {
                // Well inside the declared cache (a ring as large as a cache already misses in it,
                // so only one clearly smaller counts), yet slower: the TLB's reach, or a cache
                // shared with someone else. Only a TLB-friendly curve tells which.
                let name = format!("L{} + TLB misses", caches[serving].level);
                verdict.push(format!(
                    "latency steps up from {:.1} to {:.1} ns after {}, inside the declared {} L{}: the TLB's reach \
                     or a share of that cache taken by another tenant (`--pattern page-local` tells which)",
                    found[k - 1].ns,
                    plateau.ns,
                    format_bytes(before),
                    format_bytes(current.unwrap_or(0)),
                    caches[serving].level
                ));
                (name, Cause::Tlb, None)
            } else {
                let was = serving;
                while serving + 1 < caches.len() && caches[serving].size_bytes < start {
                    serving += 1;
                }
                if serving == was && serving + 1 == caches.len() {
                    // A step inside the last declared cache that page-local takes too: the far
                    // part of a cache split between core complexes, or a share taken by others.
                    let last = caches[serving];
                    verdict.push(format!(
                        "L{} slows from {:.1} to {:.1} ns after {}, well inside its declared {}, with TLB misses kept \
                         rare: part of it is farther away or in use by others",
                        last.level,
                        found[k - 1].ns,
                        plateau.ns,
                        format_bytes(before),
                        format_bytes(last.size_bytes)
                    ));
                    levels.push(Level {
                        name: format!("L{} (slower part)", last.level),
                        size_bytes: size(plateau.last),
                        ns_per_load: plateau.ns,
                        cycles_per_load: cycles(plateau.ns),
                        cause: Cause::Cache,
                        declared_bytes: None,
                        capacity_bytes: runs_out(k),
                    });
                    continue;
                }
                if serving == was {
                    serving += 1;
                }
                let cache = caches[serving];
                let held = runs_out(k - 1).unwrap_or(rose_at);
                if (held as f64) < caches[was].size_bytes as f64 * EARLY {
                    verdict.push(format!(
                        "L{} holds about {} of the declared {} ({:.1} ns, then {:.1} ns in L{}){}",
                        caches[was].level,
                        format_bytes(held),
                        format_bytes(caches[was].size_bytes),
                        found[k - 1].ns,
                        plateau.ns,
                        cache.level,
                        if page_local.is_none() {
                            ": the TLB's reach or a cache shared with another tenant (`--pattern page-local` tells which)"
                        } else {
                            ""
                        }
                    ));
                }
                (format!("L{}", cache.level), Cause::Cache, Some(cache.size_bytes))
            }
        };
        levels.push(Level {
            name,
            size_bytes: size(plateau.last),
            ns_per_load: plateau.ns,
            cycles_per_load: cycles(plateau.ns),
            cause,
            declared_bytes,
            capacity_bytes: (cause == Cause::Cache).then(|| runs_out(k)).flatten(),
        });
    }
    if let Some(d) = dram {
        // The last level before DRAM, whatever made it: its end is how much cache this host gets.
        let last_cache = levels.last().cloned();
        let plateau = found[d];
        if let (Some(cache), Some(last)) = (&last_cache, caches.last()) {
            // The largest declared cache against what the curve shows of it.
            if (size(plateau.first) as f64) < last.size_bytes as f64 * EARLY {
                verdict.push(format!(
                    "this host gets ~{} of the declared {} L{}: {:.1} ns up to {}, DRAM-like {:.0} ns from {}",
                    format_bytes(cache.size_bytes),
                    format_bytes(last.size_bytes),
                    last.level,
                    cache.ns_per_load,
                    format_bytes(cache.size_bytes),
                    plateau.ns,
                    format_bytes(size(plateau.first))
                ));
            }
        }
        levels.push(Level {
            name: "DRAM".into(),
            size_bytes: size(plateau.first),
            ns_per_load: plateau.ns,
            cycles_per_load: cycles(plateau.ns),
            cause: Cause::Dram,
            declared_bytes: None,
            capacity_bytes: None,
        });
        verdict.push(match cycles(plateau.ns) {
            Some(c) => {
                format!("DRAM is {:.0} ns ({c:.0} cycles) away from {}", plateau.ns, format_bytes(size(plateau.first)))
            }
            None => format!("DRAM is {:.0} ns away from {}", plateau.ns, format_bytes(size(plateau.first))),
        });
        // On the random curve DRAM keeps climbing as page walks miss too.
        let last = random.last().expect("two points");
        let dram_ns = plateau.ns;
        if page_local.is_none() && last.ns_per_load.min > dram_ns * PLATEAU {
            levels.push(Level {
                name: "DRAM + TLB misses".into(),
                size_bytes: last.bytes,
                ns_per_load: last.ns_per_load.min,
                cycles_per_load: cycles(last.ns_per_load.min),
                cause: Cause::Tlb,
                declared_bytes: None,
                capacity_bytes: None,
            });
            verdict.push(format!(
                "in DRAM, latency keeps rising with the working set ({:.0} ns at {}, {:.0} ns at {}): page walks \
                 that miss the caches too; huge pages would remove most of them",
                dram_ns,
                format_bytes(random[plateau.first].bytes),
                last.ns_per_load.min,
                format_bytes(last.bytes)
            ));
        }
    } else if let Some(last) = random.last() {
        verdict.push(format!(
            "DRAM was not reached: the largest working set, {}, still reads {:.1} ns",
            format_bytes(last.bytes),
            last.ns_per_load.min
        ));
    }
    if let Some(local) = page_local {
        tlb_levels(random, local, &mut levels, &mut verdict, &cycles);
    }
    levels.sort_by_key(|l| (l.size_bytes, l.cause == Cause::Tlb));
    Reading { levels, verdict }
}

/// With both curves: the first size where random climbs [`TLB_GAP`] above page-local is the
/// TLB's reach, and the gap at the largest size is what page walks cost there.
fn tlb_levels(
    random: &[LadderPoint],
    local: &[LadderPoint],
    levels: &mut Vec<Level>,
    verdict: &mut Vec<String>,
    cycles: &dyn Fn(f64) -> Option<f64>,
) {
    let gap: Vec<f64> = random.iter().zip(local).map(|(r, l)| r.ns_per_load.min / l.ns_per_load.min).collect();
    let Some(first) = gap.iter().position(|&g| g > TLB_GAP) else {
        verdict.push("random and page-local read alike at every size: TLB misses cost nothing measurable here".into());
        return;
    };
    let at = &random[first];
    levels.push(Level {
        name: "TLB reach".into(),
        size_bytes: random[first.saturating_sub(1)].bytes,
        ns_per_load: at.ns_per_load.min,
        cycles_per_load: cycles(at.ns_per_load.min),
        cause: Cause::Tlb,
        declared_bytes: None,
        capacity_bytes: None,
    });
    let last = random.len() - 1;
    verdict.push(format!(
        "TLB misses start after {}: random reads {:.1} ns at {} where TLB-friendly page-local reads {:.1}; at {} page \
         walks are {:.0}% of the latency ({:.0} of {:.0} ns)",
        format_bytes(random[first.saturating_sub(1)].bytes),
        at.ns_per_load.min,
        format_bytes(at.bytes),
        local[first].ns_per_load.min,
        format_bytes(random[last].bytes),
        page_walk_share(&random[last], &local[last]) * 100.0,
        random[last].ns_per_load.min - local[last].ns_per_load.min,
        random[last].ns_per_load.min
    ));
}

/// The share of a random chase's latency that page walks account for: (random - page-local) /
/// random, on the fastest samples, never below 0.
pub fn page_walk_share(random: &LadderPoint, page_local: &LadderPoint) -> f64 {
    let r = random.ns_per_load.min;
    if r > 0.0 { ((r - page_local.ns_per_load.min) / r).max(0.0) } else { 0.0 }
}

/// A short reading for someone choosing a server, every sentence carrying the figure of the
/// report it rests on. Only what was measured is said.
pub fn advice(ladder: &Ladder, bandwidth: Option<&Bandwidth>) -> Vec<String> {
    let mut out = Vec::new();
    let cycles = |c: Option<f64>| c.map_or(String::new(), |c| format!(" ({c:.0} cycles)"));
    let dram = ladder.levels.iter().find(|l| l.cause == Cause::Dram);
    let last_fast =
        ladder.levels.iter().rev().find(|l| l.cause != Cause::Dram && dram.is_none_or(|d| l.size_bytes < d.size_bytes));
    if let Some(fast) = last_fast {
        out.push(format!(
            "Fast working set: up to ~{} a dependent load takes {:.1} ns{}; keep hot structures (hash tables, \
             partitions) under that",
            format_bytes(fast.size_bytes),
            fast.ns_per_load,
            cycles(fast.cycles_per_load)
        ));
    }
    if let Some(d) = dram {
        let l1 = ladder.levels.first().filter(|l| l.name == "L1");
        out.push(format!(
            "DRAM is {:.0} ns{} away from {}{}",
            d.ns_per_load,
            cycles(d.cycles_per_load),
            format_bytes(d.size_bytes),
            l1.map_or(String::new(), |l| format!(", {:.0}x an L1 hit", d.ns_per_load / l.ns_per_load))
        ));
    }
    let random_at = |pages: &str, i: usize| -> Option<f64> {
        if ladder.pattern == crate::ladder::Pattern::Random.name() && ladder.huge_pages == pages {
            return ladder.points.get(i).map(|p| p.ns_per_load.min);
        }
        let c = ladder
            .curves
            .iter()
            .find(|c| c.pattern == crate::ladder::Pattern::Random.name() && c.huge_pages == pages)?;
        c.points.get(i).map(|p| p.ns_per_load.min)
    };
    let last = ladder.points.len().checked_sub(1);
    if let Some(i) = last {
        let bytes = ladder.points[i].bytes;
        if let (Some(small), Some(huge)) = (random_at("off", i), random_at("thp", i)) {
            out.push(format!(
                "Huge pages: at {} a random load takes {huge:.0} ns on transparent huge pages against {small:.0} ns on \
                 4 KiB pages ({:.0}% saved); use them (madvise/THP) for large random-access structures",
                format_bytes(bytes),
                (1.0 - huge / small).max(0.0) * 100.0
            ));
        } else if let Some(l) = ladder
            .curves
            .iter()
            .find(|c| c.pattern == crate::ladder::Pattern::PageLocal.name() && c.huge_pages == ladder.huge_pages)
            .and_then(|local| local.points.get(i))
        {
            let share = page_walk_share(&ladder.points[i], l);
            // Below the TLB gap the difference is noise, not something huge pages would save.
            if share >= 1.0 - 1.0 / TLB_GAP {
                out.push(format!(
                    "Page walks are {:.0}% of a random load's latency at {} ({:.0} of {:.0} ns): huge pages would save \
                     most of that",
                    share * 100.0,
                    format_bytes(bytes),
                    ladder.points[i].ns_per_load.min - l.ns_per_load.min,
                    ladder.points[i].ns_per_load.min
                ));
            } else {
                out.push(format!(
                    "Page walks cost little up to {}: random and TLB-friendly loads take about the same time there \
                     ({:.1} and {:.1} ns), so huge pages would not help a structure of that size",
                    format_bytes(bytes),
                    ladder.points[i].ns_per_load.min,
                    l.ns_per_load.min
                ));
            }
        }
    }
    if let Some(p) = &ladder.parallelism {
        let one = p.points.iter().find(|c| c.chains == 1).map(|c| c.ns_per_load);
        match (p.knee_chains, one) {
            (Some(k), Some(one)) => {
                let at = p.points.iter().find(|c| c.chains == k).map_or(f64::NAN, |c| c.ns_per_load);
                out.push(format!(
                    "Memory-level parallelism: about {k} misses in flight per core ({one:.0} ns per load with one \
                     chase, {at:.1} ns with {k}, {:.1}x at best): batch or prefetch independent lookups to use it",
                    p.max_speedup
                ));
            }
            (None, Some(one)) => out.push(format!(
                "Memory-level parallelism: still rising at {} chases ({one:.0} ns per load with one, {:.1}x at best)",
                p.points.last().map_or(0, |c| c.chains),
                p.max_speedup
            )),
            _ => {}
        }
    }
    if let Some(b) = bandwidth {
        let one: Vec<&BandwidthPoint> = b.points.iter().filter(|p| p.threads == 1).collect();
        if let Some((small, large)) = one.first().zip(one.last()).filter(|(s, l)| s.bytes < l.bytes) {
            out.push(format!(
                "One thread streams {:.1} GB/s from {} and {:.1} GB/s within {}: a scan is bound by memory long \
                 before the core",
                large.read_gb_per_s,
                format_bytes(large.bytes),
                small.read_gb_per_s,
                format_bytes(small.bytes)
            ));
        }
        let idle = b.loaded_latency.iter().find(|l| l.streaming_threads == 0);
        if let Some((idle, busy)) = idle.zip(b.loaded_latency.iter().rfind(|l| l.streaming_threads > 0)) {
            out.push(format!(
                "Under load: with {} other thread(s) streaming, a DRAM miss takes {:.0} ns instead of {:.0} ns ({:+.0}%)",
                busy.streaming_threads,
                busy.ns_per_load,
                idle.ns_per_load,
                (busy.ns_per_load / idle.ns_per_load - 1.0) * 100.0
            ));
        }
        if let Some(many) = b.points.iter().filter(|p| p.threads > 1).max_by_key(|p| (p.bytes, p.threads)) {
            out.push(format!(
                "{} threads stream {:.1} GB/s together from {}",
                many.threads,
                many.read_gb_per_s,
                format_bytes(many.bytes)
            ));
        }
    }
    if let Some(why) = &ladder.cycles_unavailable {
        out.push(format!("No cycle figures: {why}"));
    }
    out
}

#[cfg(test)]
mod tests;
