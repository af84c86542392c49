//! Every one of 1,798 real cloud curves (Spare Cores, CC BY-SA 4.0) reads right by the five plain
//! rules of `cloud/mod.rs`, but the misses listed here by hand, each with its reason. The pass
//! rate is printed overall and per CPU model.
#![cfg(not(target_arch = "wasm32"))]

mod cloud;

use std::collections::BTreeMap;

/// The curves the reading gets wrong by the rules, and why. Each was looked at; none is a
/// silent allow-list: a curve that starts reading right, or one more that reads wrong, fails the
/// test until this list says so.
const MISSES: &[(&str, &str)] = &[
    (
        "azure:Standard_DC1ds_v3",
        "L2 (6.9 ns) owns a transition at each edge: 128 KiB at 4.3 ns and 2 MiB at 14.1 ns each serve most loads \
         from L2 (nearer 6.9 than the 1.5 ns L1 or the 24.3 ns L3); rule 5 allows one",
    ),
    (
        "azure:Standard_L48s_v2",
        "16, 64 and 256 KiB read 3.5, 3.0 and 4.4 ns, within 1.5x of each other: no two levels a level step apart fit \
         them, so L1 reads to 256 KiB, past 4x its declared 32 KiB (rule 4)",
    ),
    (
        "azure:Standard_L80s_v2",
        "16, 64 and 256 KiB read 2.7, 3.0 and 3.9 ns, within 1.5x of each other: no two levels a level step apart fit \
         them, so L1 reads to 256 KiB, past 4x its declared 32 KiB (rule 4)",
    ),
    (
        "upcloud:32xCPU-128GB",
        "DRAM reads 281 and 298 ns at 16 and 32 MiB, then 211 at the largest size: DRAM at 259 ns is within 25% of all \
         three, 22% above the last (rule 2 takes the last as T)",
    ),
    (
        "upcloud:CLOUDNATIVE-12xCPU-32GB",
        "DRAM falls from 184 to 159 to 131 ns over 16-64 MiB: 159 ns reads all three within 25%, 21% above the last",
    ),
    (
        "upcloud:CLOUDNATIVE-4xCPU-24GB",
        "DRAM reads 251 and 246 ns at 16 and 32 MiB, then 170 at the largest size: 208 ns reads them within 25%, 22% \
         above the last",
    ),
    (
        "upcloud:PREMIUM-38xCPU-192GB",
        "DRAM reads 272, 268 and 311 ns from 8 to 32 MiB, then 153 at the largest size, half the rest: 283 ns reads \
         DRAM, 85% above the last",
    ),
    (
        "upcloud:PREMIUM-48xCPU-96GB",
        "DRAM reads 257 and 292 ns at 16 and 32 MiB, then 197 at the largest size: 241 ns reads all three within 25%, \
         22% above the last",
    ),
    (
        "vultr:vhp-4c-12gb-amd",
        "L2 (4.7 ns) owns a transition at each edge: 64 KiB at 3.1 ns and 512 KiB at 8.3 ns each serve most loads from \
         L2 (nearer 4.7 than the 1.5 ns L1 or the 21.1 ns L3); rule 5 allows one",
    ),
];

#[test]
fn every_cloud_curve_reads_right_but_the_listed_misses() {
    let hosts = cloud::hosts();
    assert_eq!(hosts.len(), 1798);
    let mut by_model: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for host in &hosts {
        let mut report = host.report.clone();
        memwall_core::explain::reread(&mut report);
        let ladder = report.ladder.as_ref().unwrap();
        let wrong = cloud::wrong(host, &ladder.levels, &ladder.verdict);
        let entry = by_model.entry(host.cpu.as_str()).or_default();
        entry.0 += 1;
        if wrong.is_empty() {
            entry.1 += 1;
        } else {
            let levels: Vec<String> = ladder
                .levels
                .iter()
                .map(|l| format!("{} {} B {:.1} ns", l.name, l.size_bytes, l.ns_per_load))
                .collect();
            misses.push((host.name.clone(), format!("{}\n    levels: {}", wrong.join("; "), levels.join(" | "))));
        }
    }
    let right = hosts.len() - misses.len();
    println!("{right} of {} cloud curves read right ({:.1}%)", hosts.len(), 100.0 * right as f64 / hosts.len() as f64);
    let mut models: Vec<(&&str, &(usize, usize))> = by_model.iter().collect();
    models.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (model, (n, ok)) in &models {
        println!("  {ok:>4} of {n:>4} ({:>5.1}%)  {model}", 100.0 * *ok as f64 / *n as f64);
    }
    let listed: Vec<&str> = MISSES.iter().map(|(name, _)| *name).collect();
    let unlisted: Vec<String> = misses
        .iter()
        .filter(|(name, _)| !listed.contains(&name.as_str()))
        .map(|(n, why)| format!("{n}: {why}"))
        .collect();
    let now_right: Vec<&str> = listed.iter().copied().filter(|l| !misses.iter().any(|(n, _)| n == l)).collect();
    assert!(unlisted.is_empty(), "{} curves misread and not listed:\n{}", unlisted.len(), unlisted.join("\n"));
    assert!(now_right.is_empty(), "listed as misses but read right now: {now_right:?}");
    assert!(right * 100 >= hosts.len() * 95, "{right} of {} right", hosts.len());
}
