//! Which level of the memory hierarchy each part of the ladder is, what placed it there, and the
//! sentences that say so.
//!
//! The caches are read from the curve the TLB disturbs least (page-local, on huge pages where the
//! host granted them), as one fit of the whole curve ([`super::fit`]): its levels are numbered in
//! order, the declared sizes a prior on where each ends. DRAM is the last level, where latency
//! stops rising, once the ladder has shown it got past the caches: at a latency no cache answers
//! in, or past every level a complete declaration lists. A level the random curve adds on top of
//! those is the TLB's.

use memwall_report::{Cache, Cause, Level};

use super::curve::{CacheCurve, DRAM_OVER_L1, EARLY, cache_curve};
use super::evidence::{Evidence, data_caches, streams};
use super::fit::{Fit, FitLevel, fit};
use super::tlb::{dram_with_tlb_misses, tlb_levels};
use super::treads::{self, Tread};
use crate::size::format_bytes;

/// What was found, for the report and the page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub levels: Vec<Level>,
    /// Sentences on what the levels mean, each with its numbers.
    pub verdict: Vec<String>,
}

/// Names the levels the evidence shows.
pub fn read(evidence: &Evidence<'_>) -> Reading {
    let curve = match cache_curve(evidence) {
        Ok(curve) if curve.bytes.len() >= 2 => curve,
        Ok(_) => return Reading::default(),
        Err(why) => return Reading { levels: vec![], verdict: vec![why] },
    };
    let reader = Reader::new(evidence, curve);
    let mut verdict = Vec::new();
    let mut levels: Vec<Level> = (0..reader.caches_read()).map(|k| reader.cache_level(k, &mut verdict)).collect();
    holds_less_than_declared(&levels, &mut verdict, reader.curve.tlb_prone);
    match reader.dram {
        Some(k) => reader.dram(k, &mut levels, &mut verdict),
        None => verdict.push(reader.not_reached()),
    }
    verdict.extend(reader.aside_note());
    if reader.curve.tlb_prone {
        verdict.push(format!(
            "these levels are read from one random curve ({}), where TLB misses add to cache misses: `--pattern \
             page-local` tells them apart",
            reader.curve.label
        ));
    }
    tlb_levels(evidence, &mut levels, &mut verdict, &|ns| reader.cycles(ns));
    levels.sort_by_key(|l| (l.size_bytes, l.cause == Cause::Tlb));
    Reading { levels, verdict }
}

/// Which part of the level it is named by a level of the fit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The level itself.
    Own,
    /// A slower part of it, well inside its declared size.
    Inside,
    /// A level past every one a complete declaration lists, read as a slower part of the deepest.
    Past,
}

/// The curve, its fit, and what the OS declares: what every level is named from.
struct Reader<'a, 'e> {
    evidence: &'a Evidence<'e>,
    curve: CacheCurve,
    fit: Fit,
    caches: Vec<&'a Cache>,
    /// The deepest level of a declaration complete enough to end the caches (L3 or beyond).
    deepest: Option<u8>,
    /// The fit's level that is DRAM.
    dram: Option<usize>,
}

impl<'a, 'e> Reader<'a, 'e> {
    fn new(evidence: &'a Evidence<'e>, curve: CacheCurve) -> Self {
        let caches = data_caches(evidence.declared);
        let deepest = caches.last().map(|c| c.level).filter(|&l| l >= 3);
        let declared: Vec<(u8, u64)> = caches.iter().map(|c| (c.level, c.size_bytes)).collect();
        let past_declared = |number: u8| deepest.is_some_and(|d| number > d);
        let is_dram = |l1: f64, last: f64, number: u8| last / l1 >= DRAM_OVER_L1 || past_declared(number);
        let fit = fit(&curve.bytes, &curve.ns, &declared, &is_dram, curve.tlb_prone);
        let levels = &fit.levels;
        // On a random curve page walks raise DRAM in steps of their own: DRAM starts at the first
        // level past a complete declaration, and what follows it is DRAM with TLB misses.
        let first_past = levels.iter().position(|l| past_declared(l.number)).filter(|&k| k > 0);
        let dram = match (curve.tlb_prone, first_past) {
            (true, Some(k)) => Some(k),
            _ => (levels.len() > 1)
                .then(|| levels.len() - 1)
                .filter(|&k| is_dram(levels[0].ns, levels[k].ns, levels[k].number)),
        };
        Self { evidence, curve, fit, caches, deepest, dram }
    }

    fn cycles(&self, ns: f64) -> Option<f64> {
        self.evidence.ghz.map(|g| ns * g)
    }

    fn size(&self, i: usize) -> u64 {
        self.curve.bytes[i]
    }

    fn declared_of(&self, level: u8) -> Option<u64> {
        self.caches.iter().find(|c| c.level == level).map(|c| c.size_bytes)
    }

    /// How many levels are caches: those before DRAM.
    fn caches_read(&self) -> usize {
        self.dram.unwrap_or(self.fit.levels.len())
    }

    /// Level `k`'s core, as a tread.
    fn tread(&self, k: usize) -> Tread {
        let l = &self.fit.levels[k];
        Tread { first: l.core_first, last: l.core_last, ns: l.ns }
    }

    /// Where level `k` runs out, when a level follows it: where the climb is halfway.
    fn runs_out(&self, k: usize) -> Option<u64> {
        let next = (k + 1 < self.fit.levels.len()).then(|| self.tread(k + 1))?;
        let out = treads::runs_out(&self.curve.bytes, &self.curve.ns, &self.tread(k), &next);
        Some(out.max(self.size(self.fit.levels[k].last)))
    }

    /// The name of level `k`, the number it is named by, and which part of that level it is.
    fn name(&self, k: usize) -> (String, u8, Part) {
        let l = &self.fit.levels[k];
        match self.deepest.filter(|&d| l.number > d) {
            Some(d) => (format!("L{d} (slower part)"), d, Part::Past),
            None if l.slower => (format!("L{} (slower part)", l.number), l.number, Part::Inside),
            None => (format!("L{}", l.number), l.number, Part::Own),
        }
    }

    /// "random on THP: 4.5 ns from 64 KiB to 1 MiB (1.5 MiB on the climb to L3)".
    fn placed(&self, l: &FitLevel) -> String {
        let mut out = format!(
            "{}: {:.1} ns from {} to {}",
            self.curve.label,
            l.ns,
            format_bytes(self.size(l.core_first)),
            format_bytes(self.size(l.core_last))
        );
        let edges: Vec<String> =
            [(l.first < l.core_first).then_some(l.first), (l.last > l.core_last).then_some(l.last)]
                .into_iter()
                .flatten()
                .map(|i| format!("{} at {:.1} ns", format_bytes(self.size(i)), self.curve.ns[i]))
                .collect();
        if !edges.is_empty() {
            out.push_str(&format!(" (on the climb at its edge: {})", edges.join(", ")));
        }
        out
    }

    /// Level `k` as a cache level, with the sentences it calls for.
    fn cache_level(&self, k: usize, verdict: &mut Vec<String>) -> Level {
        let l = self.fit.levels[k];
        let (name, number, part) = self.name(k);
        let declared_bytes = self.declared_of(number);
        let capacity_bytes = self.runs_out(k);
        let mut placed = vec![self.placed(&l)];
        match (declared_bytes, part) {
            (Some(d), Part::Past) => {
                placed.push(format!("past the levels the OS declares (L{number}: {})", format_bytes(d)));
                verdict.push(self.slower_part(k, number, "a level past every cache the OS declares"));
            }
            (Some(d), Part::Inside) => {
                placed.push(format!("well inside the {} of L{number} the OS declares", format_bytes(d)));
                verdict.push(self.slower_part(k, number, &format!("well inside its declared {}", format_bytes(d))));
            }
            (Some(d), Part::Own) => placed.push(format!("the OS declares {} of L{number}", format_bytes(d))),
            (None, _) if !self.caches.is_empty() => {
                placed.push(format!("the OS declares no L{number}"));
                verdict.push(format!(
                    "the OS declares no L{number}, yet the curve holds one: {:.1} ns up to {}{}, a system-level cache \
                     or one the hypervisor does not list",
                    l.ns,
                    format_bytes(self.size(l.last)),
                    capacity_bytes.map_or(String::new(), |c| format!(", run out by {}", format_bytes(c)))
                ));
            }
            (None, _) => {}
        }
        placed.extend(capacity_bytes.map(|c| format!("runs out by {}", format_bytes(c))));
        placed.extend(streams(self.evidence, self.size(l.first), self.size(l.last)));
        Level {
            name,
            size_bytes: self.size(l.last),
            ns_per_load: l.ns,
            cycles_per_load: self.cycles(l.ns),
            cause: Cause::Cache,
            declared_bytes: declared_bytes.filter(|_| part != Part::Past),
            capacity_bytes,
            evidence: placed,
        }
    }

    /// The sentence for level `k`, a slower part of L`number`, `where` said.
    fn slower_part(&self, k: usize, number: u8, place: &str) -> String {
        let (before, l) = (&self.fit.levels[k - 1], &self.fit.levels[k]);
        let why = if self.curve.tlb_prone {
            "the TLB's reach, far slices of it, or a share of it in use by others (`--pattern page-local` tells which)"
        } else {
            "far slices of it, a share of it in use by others, or a cache the hypervisor does not list"
        };
        format!(
            "L{number} slows from {:.1} to {:.1} ns after {}, {place}: {why}",
            before.ns,
            l.ns,
            format_bytes(self.size(before.last))
        )
    }

    /// Why level `k` is DRAM.
    fn why_dram(&self, k: usize) -> Vec<String> {
        let (l, l1) = (&self.fit.levels[k], &self.fit.levels[0]);
        let l1_ns = self.curve.ns[l1.core_first..=l1.core_last].iter().copied().fold(l1.ns, f64::min);
        let over_l1 = l.ns / l1_ns;
        let mut why = vec![format!(
            "{}: {:.0} ns from {} to {}, where the curve stops rising",
            self.curve.label,
            l.ns,
            format_bytes(self.size(l.first)),
            format_bytes(self.size(l.last))
        )];
        if let Some(cache) = self.caches.last().filter(|c| c.level >= 3 && self.size(l.last) > c.size_bytes) {
            why.push(format!("reaches past the declared {} L{}", format_bytes(cache.size_bytes), cache.level));
        } else if let Some(d) = self.deepest.filter(|&d| l.number > d) {
            why.push(format!("a level past every cache the OS declares (L{d} the deepest): DRAM"));
        }
        if over_l1 >= DRAM_OVER_L1 {
            why.push(format!(
                "{over_l1:.0}x an L1 hit: DRAM's latency, not a cache's (no cache publishes more than \
                 {DRAM_OVER_L1:.0}x)"
            ));
        }
        why
    }

    /// DRAM from level `k`; the last cache's share of the declared one and DRAM's distance said.
    fn dram(&self, k: usize, levels: &mut Vec<Level>, verdict: &mut Vec<String>) {
        let dram = self.fit.levels[k];
        let from = self.size(dram.first);
        if let Some(cache) = levels.iter().rev().find(|l| l.cause == Cause::Cache) {
            verdict.extend(self.share_of_declared(cache, dram.ns, from));
        }
        verdict.push(match self.cycles(dram.ns) {
            Some(c) => format!("DRAM is {:.0} ns ({c:.0} cycles) away from {}", dram.ns, format_bytes(from)),
            None => format!("DRAM is {:.0} ns away from {}", dram.ns, format_bytes(from)),
        });
        let mut why = self.why_dram(k);
        why.extend(streams(self.evidence, from, u64::MAX));
        levels.push(Level {
            name: "DRAM".into(),
            size_bytes: from,
            ns_per_load: dram.ns,
            cycles_per_load: self.cycles(dram.ns),
            cause: Cause::Dram,
            declared_bytes: None,
            capacity_bytes: None,
            evidence: why,
        });
        if self.curve.tlb_prone {
            let tread = Tread { first: dram.core_first, last: dram.core_last, ns: dram.ns };
            dram_with_tlb_misses(&self.curve, tread, levels, verdict, &|ns| self.cycles(ns));
        }
    }

    /// How the last cache compares with the largest one declared: none of it seen, or a share.
    fn share_of_declared(&self, cache: &Level, dram_ns: f64, dram_from: u64) -> Option<String> {
        let largest = self.caches.last()?;
        let read_as = cache.name.strip_prefix('L').and_then(|n| n.split(' ').next()?.parse::<u8>().ok());
        if read_as.is_some_and(|n| n < largest.level) {
            return Some(format!(
                "no step for the declared {} L{}: after {} ({:.1} ns up to {}) loads go to DRAM ({dram_ns:.0} ns \
                 from {})",
                format_bytes(largest.size_bytes),
                largest.level,
                cache.name,
                cache.ns_per_load,
                format_bytes(cache.size_bytes),
                format_bytes(dram_from)
            ));
        }
        ((dram_from as f64) < largest.size_bytes as f64 * EARLY).then(|| {
            format!(
                "this host gets ~{} of the declared {} L{}: {:.1} ns up to {}, DRAM-like {dram_ns:.0} ns from {}",
                format_bytes(cache.size_bytes),
                format_bytes(largest.size_bytes),
                largest.level,
                cache.ns_per_load,
                format_bytes(cache.size_bytes),
                format_bytes(dram_from)
            )
        })
    }

    /// Where the curve ends without reaching DRAM: still climbing, or on a level that reads like
    /// a cache.
    fn not_reached(&self) -> String {
        let last = self.curve.ns.len() - 1;
        let (bytes, ns) = (format_bytes(self.size(last)), self.curve.ns[last]);
        let declared = self
            .caches
            .last()
            .filter(|c| c.level >= 3)
            .map_or(String::new(), |c| format!(" (the declared L{} is {})", c.level, format_bytes(c.size_bytes)));
        match self.fit.levels.last() {
            Some(l) if l.last == last && l.core_last < last => {
                format!("DRAM not reached: latency still climbs at the largest working set, {bytes} ({ns:.1} ns)")
            }
            Some(l) if l.last < last => {
                format!("DRAM not reached: latency still climbs at the largest working set, {bytes} ({ns:.1} ns)")
            }
            Some(l) => format!(
                "DRAM not reached: the largest working set, {bytes}, still reads {:.1} ns, {:.0}x an L1 hit: a \
                 cache's latency{declared}",
                l.ns,
                l.ns / self.fit.levels[0].ns
            ),
            None => format!("DRAM not reached: no level could be read from {}", self.curve.label),
        }
    }

    /// The points the fit set aside as noise, said with what they read.
    fn aside_note(&self) -> Option<String> {
        let curve = &self.curve;
        let &worst = self.fit.aside.iter().max_by(|&&a, &&b| curve.ns[a].total_cmp(&curve.ns[b]))?;
        let sizes: Vec<String> = self.fit.aside.iter().map(|&i| format_bytes(curve.bytes[i])).collect();
        Some(format!(
            "set aside as noise: {} of {} ({}), each read far slower than two larger working sets did (the worst, \
             {}, read {:.1} ns); no level explains them",
            sizes.len(),
            curve.label,
            sizes.join(", "),
            format_bytes(curve.bytes[worst]),
            curve.ns[worst]
        ))
    }
}

/// A cache before the last that runs out well before its declared size: said, with the TLB named
/// as a suspect where the curve cannot rule it out. (The last cache's share is said against DRAM.)
fn holds_less_than_declared(levels: &[Level], verdict: &mut Vec<String>, tlb_prone: bool) {
    let caches: Vec<&Level> = levels.iter().filter(|l| l.cause == Cause::Cache).collect();
    for pair in caches.windows(2) {
        let [level, next] = pair else { continue };
        // A slower part of the same level says its own sentence.
        if next.name.starts_with(&format!("{} ", level.name)) {
            continue;
        }
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
