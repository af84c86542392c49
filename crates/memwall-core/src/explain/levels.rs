//! Which tread of the ladder is which level of the memory hierarchy, what placed it there, and
//! the sentences that say so.
//!
//! The caches are read from the curve the TLB disturbs least (page-local, on huge pages where the
//! host granted them). DRAM is that curve's last tread, where latency stops rising, once the
//! ladder has shown it got past the caches: beyond the largest cache the OS declares, or, where
//! nothing declares one (a browser, an ARM guest that lists only L1 and L2), at a latency no cache
//! answers in. A level the random curve adds on top of those is the TLB's.

use memwall_report::{Cache, Cause, Level};

use super::curve::{CacheCurve, EARLY, End, cache_curve, first_undeclared, number_treads, the_end};
use super::evidence::{Evidence, data_caches, streams};
use super::tlb::{dram_with_tlb_misses, tlb_levels};
use super::treads::{self, PLATEAU, Tread};
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
    let end = reader.end();
    let mut levels: Vec<Level> = (0..reader.cache_treads(&end)).map(|k| reader.cache_level(k, &mut verdict)).collect();
    holds_less_than_declared(&levels, &mut verdict, reader.curve.tlb_prone);
    match end {
        End::Dram { tread, evidence: why } => reader.dram(tread, why, &mut levels, &mut verdict),
        End::Climbing => {
            let last = reader.curve.ns.len() - 1;
            verdict.push(format!(
                "DRAM was not reached: latency still climbs at the largest working set, {} ({:.1} ns)",
                format_bytes(reader.size(last)),
                reader.curve.ns[last]
            ));
        }
        End::InCache(why) => verdict.push(why),
    }
    if let Some(note) = reader.disturbed_note() {
        verdict.push(note);
    }
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

/// The curve, its treads and their numbers, and what the OS declares: what every level is named
/// from.
struct Reader<'a, 'e> {
    evidence: &'a Evidence<'e>,
    curve: CacheCurve,
    found: Vec<Tread>,
    caches: Vec<&'a Cache>,
    /// Each tread's level number, and whether it is a slower part of the level before.
    numbers: Vec<(u8, bool)>,
}

impl<'a, 'e> Reader<'a, 'e> {
    /// What the levels were read past: sizes disturbed throughout, the worst of them named.
    fn disturbed_note(&self) -> Option<String> {
        let curve = &self.curve;
        let &(worst, measured) =
            curve.disturbed.iter().max_by(|a, b| (a.1 / curve.ns[a.0]).total_cmp(&(b.1 / curve.ns[b.0])))?;
        Some(format!(
            "{} size(s) of {} read more than {:.0}% slower than a larger working set did, so noise held them up \
             throughout (the worst, {}, read {:.1} ns where a larger one read {:.1}): the levels read each at the \
             larger one's latency",
            curve.disturbed.len(),
            curve.label,
            (PLATEAU - 1.0) * 100.0,
            format_bytes(curve.bytes[worst]),
            measured,
            curve.ns[worst]
        ))
    }

    fn new(evidence: &'a Evidence<'e>, curve: CacheCurve) -> Self {
        let found = treads::treads(&curve.bytes, &curve.ns, !curve.tlb_prone);
        let caches = data_caches(evidence.declared);
        let numbers = number_treads(&found, &curve.bytes, &caches);
        Self { evidence, curve, found, caches, numbers }
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

    /// Where the level of tread `k` runs out, when a tread follows it.
    fn runs_out(&self, k: usize) -> Option<u64> {
        let next = self.found.get(k + 1)?;
        Some(treads::runs_out(&self.curve.bytes, &self.curve.ns, &self.found[k], next))
    }

    /// How the curve ends; on a random curve, DRAM starts already at the first tread past every
    /// declared cache (page walks raise DRAM in steps of their own).
    fn end(&self) -> End {
        let end = the_end(&self.curve, &self.found, &self.caches);
        let past_declared = first_undeclared(&self.numbers, &self.caches);
        // A last tread past every level of a complete declaration is DRAM, however near L1's
        // latency it reads: the tie-break by latency alone (DRAM_OVER_L1) is thin where DRAM is
        // fast. A busy 2-vCPU Xeon guest's short ladders read DRAM at 57-63 ns over L1 hits of
        // 2.2-2.6 ns, 22-29x; read under 25x it was "an L4 to 64 MiB", and adaptive at two threads
        // kept one prefetched table of 10^6 groups (24.06 ns/row against tuned's 7.17).
        let last = self.found.len().saturating_sub(1);
        if !self.curve.tlb_prone && matches!(end, End::InCache(_)) && past_declared == Some(last) {
            let deepest = self.caches.last().map_or(0, |c| c.level);
            return self
                .dram_at(last, &format!("a level past every cache the OS declares (L{deepest} the deepest): DRAM"));
        }
        let Some(k) = past_declared.filter(|_| self.curve.tlb_prone) else {
            return end;
        };
        if matches!(end, End::Dram { tread, .. } if tread <= k) {
            return end;
        }
        self.dram_at(k, "the first tread past every cache the OS declares; page walks raise it further")
    }

    /// DRAM from tread `k`, for the reason `why`.
    fn dram_at(&self, k: usize, why: &str) -> End {
        let (label, tread) = (&self.curve.label, &self.found[k]);
        let from = format_bytes(self.size(tread.first));
        End::Dram { tread: k, evidence: vec![format!("{label}: {:.0} ns from {from}, {why}", tread.ns)] }
    }

    /// How many treads are caches: those before DRAM's, or before a curve's closing climb (a lone
    /// point, which is no level).
    fn cache_treads(&self, end: &End) -> usize {
        match end {
            End::Dram { tread, .. } => *tread,
            End::Climbing if self.found.len() > 1 => self.found.len() - 1,
            _ => self.found.len(),
        }
    }

    /// Tread `k` as a cache level (or, on a random curve, a TLB step inside one), with the
    /// sentences it calls for.
    fn cache_level(&self, k: usize, verdict: &mut Vec<String>) -> Level {
        let tread = self.found[k];
        let (number, slower_part) = self.numbers[k];
        let (name, cause) = match (slower_part, self.curve.tlb_prone) {
            (false, _) => (format!("L{number}"), Cause::Cache),
            (true, tlb_prone) => {
                verdict.push(self.slower_part(k, tlb_prone));
                if tlb_prone {
                    (format!("L{number} + TLB misses"), Cause::Tlb)
                } else {
                    (format!("L{number} (slower part)"), Cause::Cache)
                }
            }
        };
        let declared_bytes = (!slower_part).then(|| self.declared_of(number)).flatten();
        let capacity_bytes = (cause == Cause::Cache).then(|| self.runs_out(k)).flatten();
        let mut placed = vec![format!(
            "{}: {:.1} ns from {} to {}",
            self.curve.label,
            tread.ns,
            format_bytes(self.size(tread.first)),
            format_bytes(self.size(tread.last))
        )];
        match declared_bytes {
            Some(d) => placed.push(format!("the OS declares {} of L{number}", format_bytes(d))),
            None if !slower_part && !self.caches.is_empty() => {
                placed.push(format!("the OS declares no L{number}"));
                verdict.push(format!(
                    "the OS declares no L{number}, yet the curve holds one: {:.1} ns up to {}{}, a system-level cache \
                     or one the hypervisor does not list",
                    tread.ns,
                    format_bytes(self.size(tread.last)),
                    self.runs_out(k).map_or(String::new(), |c| format!(", run out by {}", format_bytes(c)))
                ));
            }
            None => {}
        }
        placed.extend(capacity_bytes.map(|c| format!("runs out by {}", format_bytes(c))));
        placed.extend(streams(self.evidence, self.size(tread.first), self.size(tread.last)));
        Level {
            name,
            size_bytes: self.size(tread.last),
            ns_per_load: tread.ns,
            cycles_per_load: self.cycles(tread.ns),
            cause,
            declared_bytes,
            capacity_bytes,
            evidence: placed,
        }
    }

    /// The sentence for tread `k`, a step inside the declared size of the level before.
    fn slower_part(&self, k: usize, tlb_prone: bool) -> String {
        let (before, tread, number) = (self.found[k - 1], self.found[k], self.numbers[k].0);
        let (from, declared) =
            (format_bytes(self.size(before.last)), format_bytes(self.declared_of(number).unwrap_or(0)));
        if tlb_prone {
            format!(
                "latency steps up from {:.1} to {:.1} ns after {from}, inside the declared {declared} L{number}: the \
                 TLB's reach or a share of that cache taken by another tenant (`--pattern page-local` tells which)",
                before.ns, tread.ns
            )
        } else {
            format!(
                "L{number} slows from {:.1} to {:.1} ns after {from}, well inside its declared {declared}, with TLB \
                 misses kept rare: part of it is farther away or in use by others",
                before.ns, tread.ns
            )
        }
    }

    /// DRAM from tread `k`, placed by `why`; the last cache's share of the declared one and
    /// DRAM's distance said.
    fn dram(&self, k: usize, mut why: Vec<String>, levels: &mut Vec<Level>, verdict: &mut Vec<String>) {
        let dram = self.found[k];
        let from = self.size(dram.first);
        if let Some(cache) = levels.iter().rev().find(|l| l.cause == Cause::Cache) {
            verdict.extend(self.share_of_declared(k, cache, dram.ns, from));
        }
        verdict.push(match self.cycles(dram.ns) {
            Some(c) => format!("DRAM is {:.0} ns ({c:.0} cycles) away from {}", dram.ns, format_bytes(from)),
            None => format!("DRAM is {:.0} ns away from {}", dram.ns, format_bytes(from)),
        });
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
            dram_with_tlb_misses(&self.curve, dram, levels, verdict, &|ns| self.cycles(ns));
        }
    }

    /// How the last cache compares with the largest one declared: none of it seen, or a share.
    /// `dram_tread` is DRAM's tread: the one before it is the last cache's.
    fn share_of_declared(&self, dram_tread: usize, cache: &Level, dram_ns: f64, dram_from: u64) -> Option<String> {
        let largest = self.caches.last()?;
        let last_number = dram_tread.checked_sub(1).map_or(0, |i| self.numbers[i].0);
        if cache.name != format!("L{}", largest.level) && largest.level > last_number {
            return Some(format!(
                "no step for the declared {} L{}: after {} ({:.1} ns up to {}) loads go to DRAM",
                format_bytes(largest.size_bytes),
                largest.level,
                cache.name,
                cache.ns_per_load,
                format_bytes(cache.size_bytes)
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
