//! A short reading for someone choosing a server, every sentence carrying the figures of the
//! report it rests on. Only what was measured is said.

use memwall_report::{Bandwidth, BandwidthPoint, Cause, Ladder};

use super::evidence::{CurveView, Evidence};
use super::tlb::{TLB_GAP, small_page_pair, walk_share};
use crate::ladder::Pattern;
use crate::size::format_bytes;

pub fn advice(ladder: &Ladder, bandwidth: Option<&Bandwidth>) -> Vec<String> {
    let mut out = Vec::new();
    let cycles = |c: Option<f64>| c.map_or(String::new(), |c| format!(" ({c:.0} cycles)"));
    let dram = ladder.levels.iter().find(|l| l.cause == Cause::Dram);
    let last_fast = ladder
        .levels
        .iter()
        .rev()
        .find(|l| l.cause == Cause::Cache && dram.is_none_or(|d| l.size_bytes < d.size_bytes));
    if let Some(fast) = last_fast {
        let of_declared = fast
            .declared_bytes
            .filter(|&d| d > fast.size_bytes)
            .map_or(String::new(), |d| format!(" (of the {} {} the OS declares)", format_bytes(d), fast.name));
        out.push(format!(
            "Fast working set: up to ~{}{of_declared} a dependent load takes {:.1} ns{}; keep hot structures (hash \
             tables, partitions) under that",
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
    out.extend(pages(&Evidence::of(ladder, &[], None)));
    out.extend(parallelism(ladder));
    if let Some(b) = bandwidth {
        out.extend(streaming(b));
    }
    if let Some(why) = &ladder.cycles_unavailable {
        out.push(format!("No cycle figures: {why}"));
    }
    out
}

/// What a random read costs at the largest size measured, on small pages, TLB-friendly and on
/// huge pages: whichever of the three curves were measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageCosts {
    pub bytes: u64,
    /// Random on small pages, the fastest sample.
    pub random_small_ns: f64,
    /// Page-local at the same size (no page walks), where measured.
    pub page_local_ns: Option<f64>,
    /// Random on huge pages at the same size, where measured.
    pub random_huge_ns: Option<f64>,
}

impl PageCosts {
    /// The share of a random small-page load that page walks account for.
    pub fn page_walk_share(&self) -> Option<f64> {
        Some(walk_share(self.random_small_ns, self.page_local_ns?))
    }

    /// The share of a random small-page load that huge pages saved.
    pub fn huge_page_saving(&self) -> Option<f64> {
        let huge = self.random_huge_ns?;
        Some(if self.random_small_ns > 0.0 { (1.0 - huge / self.random_small_ns).max(0.0) } else { 0.0 })
    }
}

/// The page costs of a ladder at its largest size, or `None` without a random small-page curve.
pub fn page_costs(ladder: &Ladder) -> Option<PageCosts> {
    costs_of(&Evidence::of(ladder, &[], None))
}

fn costs_of(evidence: &Evidence<'_>) -> Option<PageCosts> {
    let last = |c: &CurveView<'_>| c.points.last().cloned();
    let random_small = evidence.curves.iter().find(|c| c.pattern == Pattern::Random && !c.huge).and_then(last)?;
    let random_huge = evidence.curves.iter().find(|c| c.pattern == Pattern::Random && c.huge).and_then(last);
    let local = small_page_pair(evidence).and_then(|(_, local)| last(&local));
    Some(PageCosts {
        bytes: random_small.bytes,
        random_small_ns: random_small.ns_per_load.min,
        page_local_ns: local.map(|p| p.ns_per_load.min),
        random_huge_ns: random_huge.map(|p| p.ns_per_load.min),
    })
}

/// What a random read costs at the largest size on small pages, how much of it page walks are,
/// and what huge pages save there.
fn pages(evidence: &Evidence<'_>) -> Option<String> {
    let costs = costs_of(evidence)?;
    let at = format_bytes(costs.bytes);
    let small_ns = costs.random_small_ns;
    let huge = |ns: f64| {
        format!(
            "on transparent huge pages it takes {ns:.0} ns ({:.0}% saved){}",
            costs.huge_page_saving().unwrap_or(0.0) * 100.0,
            if ns < small_ns / TLB_GAP {
                ": use them (madvise/THP) for large random-access structures"
            } else {
                ": little to gain from them here"
            }
        )
    };
    match (costs.page_local_ns, costs.page_walk_share(), costs.random_huge_ns) {
        (Some(local_ns), Some(share), huge_ns) => {
            // Below the TLB gap the difference is noise, not something huge pages would save.
            if share < 1.0 - 1.0 / TLB_GAP {
                return Some(format!(
                    "Page walks cost little up to {at}: random and TLB-friendly loads take about the same time there \
                     ({small_ns:.1} and {local_ns:.1} ns), so huge pages would not help a structure of that size"
                ));
            }
            Some(format!(
                "Random reads on small pages: at {at} one takes {small_ns:.0} ns, {:.0}% of it page walks ({:.0} ns){}",
                share * 100.0,
                small_ns - local_ns,
                huge_ns
                    .map_or_else(|| "; huge pages would save most of that".to_string(), |h| format!("; {}", huge(h)))
            ))
        }
        (_, _, Some(huge_ns)) => {
            Some(format!("Huge pages: at {at} a random load takes {small_ns:.0} ns on 4 KiB pages; {}", huge(huge_ns)))
        }
        _ => None,
    }
}

fn parallelism(ladder: &Ladder) -> Option<String> {
    let p = ladder.parallelism.as_ref()?;
    let one = p.points.iter().find(|c| c.chains == 1).map(|c| c.ns_per_load)?;
    Some(match p.knee_chains {
        Some(k) => {
            let at = p.points.iter().find(|c| c.chains == k).map_or(f64::NAN, |c| c.ns_per_load);
            format!(
                "Memory-level parallelism: about {k} misses in flight per core ({one:.0} ns per load with one chase, \
                 {at:.1} ns with {k}, {:.1}x at best): batch or prefetch independent lookups to use it",
                p.max_speedup
            )
        }
        None => format!(
            "Memory-level parallelism: still rising at {} chases ({one:.0} ns per load with one, {:.1}x at best)",
            p.points.last().map_or(0, |c| c.chains),
            p.max_speedup
        ),
    })
}

fn streaming(b: &Bandwidth) -> Vec<String> {
    let mut out = Vec::new();
    let one: Vec<&BandwidthPoint> = b.points.iter().filter(|p| p.threads == 1).collect();
    if let Some((small, large)) = one.first().zip(one.last()).filter(|(s, l)| s.bytes < l.bytes) {
        out.push(format!(
            "One thread streams {:.1} GB/s from {} and {:.1} GB/s within {}: a scan is bound by memory long before \
             the core",
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
    out
}
