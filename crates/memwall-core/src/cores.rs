//! Reading a core-to-core latency matrix: which CPUs answer each other fastest, the groups the
//! latencies form, and whether those are the groups sysfs declares.
//!
//! The tiers come from the matrix alone. Pair latencies are sorted, and a new tier starts where
//! the next latency is [`TIER_GAP`] times the previous one *and* the two pairs' p10-p90 ranges do
//! not overlap: a step relative to the matrix's own figures, never an absolute number of ns, so
//! that a slow VM and a fast bare-metal box are read by the same rule. Each tier's groups are the
//! CPUs connected by pairs of that tier or a faster one. Only then are the groups set against
//! sysfs's SMT siblings and last-level-cache groups; a hypervisor's declared topology is its
//! story, and this is where the story gets checked.

use memwall_report::{CorePair, CoreTier, Cores, DeclaredTopology};

/// Sorted pair latencies this many times apart (and with disjoint p10-p90 ranges) are in
/// different tiers. SMT siblings answer several times faster than cores sharing an L3, and those
/// about twice as fast as cores on another die or socket; noise within a tier on a busy VM stays
/// well under a third.
pub const TIER_GAP: f64 = 1.3;

/// How the topology sentence begins, so a reader can find it among the advice.
pub const TOPOLOGY_PREFIX: &str = "Core-to-core: ";

/// Parses a sysfs CPU list such as `0-3,8,10-11` into its CPUs, ascending.
pub fn parse_cpu_list(list: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("'{list}' is not a CPU list such as 0-3,8");
    let mut cpus = Vec::new();
    for part in list.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if a > b || b - a > 1 << 16 {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Fills `tiers`, `agreement` and `topology` from the measured pairs and the declared topology.
pub fn read(cores: &mut Cores) {
    cores.tiers = tiers(&cores.cpus, &cores.pairs);
    let declared = cores.declared.as_ref().map(|d| restricted(d, &cores.cpus));
    for tier in &mut cores.tiers {
        tier.matches = declared.as_ref().and_then(|d| {
            if !d.smt_siblings.is_empty() && tier.groups == d.smt_siblings {
                Some("smt".to_string())
            } else if !d.llc_groups.is_empty() && tier.groups == d.llc_groups {
                Some("llc".to_string())
            } else {
                None
            }
        });
    }
    cores.agreement = agreement(cores, declared.as_ref());
    cores.topology = topology(cores, declared.as_ref());
}

/// The latency tiers of a matrix, fastest first.
pub fn tiers(cpus: &[u32], pairs: &[CorePair]) -> Vec<CoreTier> {
    let mut sorted: Vec<&CorePair> = pairs.iter().filter(|p| p.one_way_median_ns.is_finite()).collect();
    sorted.sort_by(|a, b| a.one_way_median_ns.total_cmp(&b.one_way_median_ns));
    let mut tiers: Vec<Vec<&CorePair>> = Vec::new();
    for pair in sorted {
        let starts_tier = tiers.last().and_then(|t| t.last()).is_none_or(|prev| {
            pair.one_way_median_ns >= prev.one_way_median_ns * TIER_GAP && pair.one_way_p10_ns > prev.one_way_p90_ns
        });
        if starts_tier {
            tiers.push(vec![pair]);
        } else if let Some(tier) = tiers.last_mut() {
            tier.push(pair);
        }
    }
    let mut joined: Vec<&CorePair> = Vec::new();
    tiers
        .into_iter()
        .map(|tier| {
            joined.extend(tier.iter().copied());
            CoreTier {
                from_ns: tier[0].one_way_median_ns,
                to_ns: tier[tier.len() - 1].one_way_median_ns,
                pairs: tier.len() as u32,
                groups: connected_groups(cpus, &joined),
                matches: None,
            }
        })
        .collect()
}

/// The CPUs `pairs` connect, as groups of two or more, each ascending, ordered by first CPU.
fn connected_groups(cpus: &[u32], pairs: &[&CorePair]) -> Vec<Vec<u32>> {
    let index = |cpu: u32| cpus.iter().position(|&c| c == cpu);
    let mut parent: Vec<usize> = (0..cpus.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for pair in pairs {
        if let (Some(a), Some(b)) = (index(pair.cpu_a), index(pair.cpu_b)) {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let roots: Vec<usize> = (0..cpus.len()).map(|i| root(&mut parent, i)).collect();
    let groups = (0..cpus.len())
        .filter(|&r| roots[r] == r)
        .map(|r| (0..cpus.len()).filter(|&i| roots[i] == r).map(|i| cpus[i]).collect())
        .collect();
    normalized(groups)
}

/// Groups of two or more, each ascending, ordered by first CPU.
fn normalized(groups: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let mut groups: Vec<Vec<u32>> = groups
        .into_iter()
        .map(|mut g| {
            g.sort_unstable();
            g.dedup();
            g
        })
        .filter(|g| g.len() > 1)
        .collect();
    groups.sort();
    groups.dedup();
    groups
}

/// The declared groups restricted to the CPUs measured, singletons dropped.
fn restricted(declared: &DeclaredTopology, cpus: &[u32]) -> DeclaredTopology {
    let keep = |groups: &[Vec<u32>]| {
        normalized(groups.iter().map(|g| g.iter().copied().filter(|c| cpus.contains(c)).collect()).collect())
    };
    DeclaredTopology {
        smt_siblings: keep(&declared.smt_siblings),
        llc_groups: keep(&declared.llc_groups),
        llc_level: declared.llc_level,
    }
}

/// `0-3; 4-7` for groups, compressing runs.
pub fn groups_text(groups: &[Vec<u32>]) -> String {
    if groups.is_empty() {
        return "none".into();
    }
    groups.iter().map(|g| cpus_text(g)).collect::<Vec<_>>().join("; ")
}

/// `0-3,8` for one ascending list of CPUs.
pub fn cpus_text(cpus: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j > i + 1 {
            format!("{}-{}", cpus[i], cpus[j])
        } else if j == i + 1 {
            format!("{},{}", cpus[i], cpus[j])
        } else {
            cpus[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

fn ns_range(tier: &CoreTier) -> String {
    if (tier.to_ns - tier.from_ns).abs() < 0.5 {
        format!("{:.0} ns", tier.from_ns)
    } else {
        format!("{:.0}-{:.0} ns", tier.from_ns, tier.to_ns)
    }
}

fn llc_name(declared: &DeclaredTopology) -> String {
    declared.llc_level.map_or("last-level cache".into(), |l| format!("L{l}"))
}

/// What each tier means against the declared topology, one sentence each.
fn agreement(cores: &Cores, declared: Option<&DeclaredTopology>) -> Vec<String> {
    let mut out = Vec::new();
    if cores.cpus.len() < 2 || cores.tiers.is_empty() {
        return out;
    }
    let Some(declared) = declared else {
        out.push("sysfs declares no topology here: the tiers stand unchecked".into());
        return out;
    };
    let llc = llc_name(declared);
    let first = &cores.tiers[0];
    if declared.smt_siblings.is_empty() {
        out.push(format!("sysfs declares no SMT siblings among CPUs {}", cpus_text(&cores.cpus)));
    } else {
        match cores.tiers.iter().position(|t| t.matches.as_deref() == Some("smt")) {
            Some(0) => out.push(format!(
                "agrees: the fastest tier ({}) joins exactly the SMT siblings sysfs declares ({})",
                ns_range(first),
                groups_text(&declared.smt_siblings)
            )),
            Some(k) => out.push(format!(
                "partly agrees: tier {} ({}) joins the SMT siblings sysfs declares ({}), but faster pairs exist \
                 ({}), which sysfs does not declare",
                k + 1,
                ns_range(&cores.tiers[k]),
                groups_text(&declared.smt_siblings),
                groups_text(&first.groups)
            )),
            None => out.push(format!(
                "disagrees: sysfs declares SMT siblings {}, but no latency tier joins exactly those (the fastest, {}, \
                 joins {})",
                groups_text(&declared.smt_siblings),
                ns_range(first),
                groups_text(&first.groups)
            )),
        }
    }
    if declared.llc_groups.is_empty() {
        out.push(format!("sysfs declares no {llc} shared between any of these CPUs"));
    } else if declared.llc_groups == declared.smt_siblings {
        out.push(format!("sysfs declares the {llc} shared only by SMT siblings"));
    } else {
        match cores.tiers.iter().position(|t| t.matches.as_deref() == Some("llc")) {
            Some(k) => out.push(format!(
                "agrees: {} ({}) joins exactly the CPUs sysfs declares sharing an {llc} ({})",
                if k == 0 { "the fastest tier".to_string() } else { format!("tier {}", k + 1) },
                ns_range(&cores.tiers[k]),
                groups_text(&declared.llc_groups)
            )),
            None => out.push(format!(
                "disagrees: sysfs declares {llc} groups {}, but no latency tier joins exactly those (the tiers join {})",
                groups_text(&declared.llc_groups),
                cores.tiers.iter().map(|t| groups_text(&t.groups)).collect::<Vec<_>>().join(", then ")
            )),
        }
    }
    for (k, tier) in cores.tiers.iter().enumerate().skip(1) {
        if tier.matches.is_none() && tier.groups != cores.tiers[k - 1].groups {
            out.push(format!(
                "tier {} ({}) joins {}: farther than any cache sysfs declares shared (another die or socket)",
                k + 1,
                ns_range(tier),
                groups_text(&tier.groups)
            ));
        }
    }
    if cores.tiers.len() == 1 {
        out.push(
            "one tier only: the matrix has no faster or slower pairs to set these against, so it cannot tell SMT \
             siblings from cores sharing a cache by itself"
                .into(),
        );
    }
    out
}

/// The one sentence the advice carries.
fn topology(cores: &Cores, declared: Option<&DeclaredTopology>) -> String {
    let n = cores.cpus.len();
    if n < 2 {
        return format!(
            "{TOPOLOGY_PREFIX}{} usable here: no pair of CPUs to measure, nothing to compare",
            if n == 1 { "only one CPU is" } else { "no CPU is" }
        );
    }
    let tiers: Vec<String> = cores.tiers.iter().map(|t| tier_name(cores, t)).collect();
    let disagrees = cores.agreement.iter().any(|s| s.starts_with("disagrees"));
    let check = match declared {
        None => "sysfs declares nothing to check them against",
        Some(_) if disagrees => "sysfs declares otherwise (see the cores section)",
        Some(_) if cores.tiers.iter().any(|t| t.matches.is_some()) => "as sysfs declares",
        Some(_) => "sysfs declares no shared group to check them against",
    };
    format!(
        "{TOPOLOGY_PREFIX}{n} CPUs in {} latency tier{} ({} one way), {check}",
        tiers.len(),
        if tiers.len() == 1 { "" } else { "s" },
        tiers.join(", ")
    )
}

/// A tier as the topology sentence names it: "SMT siblings 15 ns", "shared L3 48-52 ns", or its
/// latency alone where it matches nothing sysfs declares.
pub fn tier_name(cores: &Cores, tier: &CoreTier) -> String {
    match (tier.matches.as_deref(), &cores.declared) {
        (Some("smt"), _) => format!("SMT siblings {}", ns_range(tier)),
        (Some("llc"), Some(d)) => format!("shared {} {}", llc_name(d), ns_range(tier)),
        _ => ns_range(tier),
    }
}

/// The measured pair of `a` and `b`, in whichever order it was measured.
pub fn pair_of(cores: &Cores, a: u32, b: u32) -> Option<&CorePair> {
    cores.pairs.iter().find(|p| (p.cpu_a, p.cpu_b) == (a, b) || (p.cpu_a, p.cpu_b) == (b, a))
}

/// The tier (an index into `cores.tiers`) whose latency range holds the pair's median.
pub fn tier_of(cores: &Cores, pair: &CorePair) -> Option<usize> {
    let ns = pair.one_way_median_ns;
    cores.tiers.iter().position(|t| ns >= t.from_ns && ns <= t.to_ns)
}

/// The fleet's `vcpu_topology`: "2 CPUs: 1 tier, 48 ns".
pub fn short(cores: &Cores) -> String {
    let ns: Vec<String> = cores.tiers.iter().map(|t| format!("{:.0}", (t.from_ns + t.to_ns) / 2.0)).collect();
    format!(
        "{} CPU{}: {} tier{}{}",
        cores.cpus.len(),
        if cores.cpus.len() == 1 { "" } else { "s" },
        ns.len(),
        if ns.len() == 1 { "" } else { "s" },
        if ns.is_empty() { String::new() } else { format!(", {} ns", ns.join("/")) }
    )
}

#[cfg(test)]
mod tests;
