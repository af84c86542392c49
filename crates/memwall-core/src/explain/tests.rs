use super::*;
use crate::fixtures::point;

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

/// The default ladder's sizes (two per octave) from 16 KiB to `max`, with latency from `ns(bytes)`.
fn curve(max: u64, mut ns: impl FnMut(u64) -> f64) -> Vec<LadderPoint> {
    crate::ladder::ladder_sizes(16 * K, max, 2).unwrap().into_iter().map(|b| point(b, ns(b))).collect()
}

fn only(random: &[LadderPoint]) -> Curves<'_> {
    Curves { random, page_local: None, caches: None }
}

fn cache(level: u8, size_bytes: u64) -> Cache {
    Cache {
        level,
        kind: if level == 1 { "Data" } else { "Unified" }.into(),
        size_bytes,
        line_bytes: Some(64),
        shared_by_cpus: None,
    }
}

fn names(reading: &Reading) -> Vec<(String, u64, Cause)> {
    reading.levels.iter().map(|l| (l.name.clone(), l.size_bytes, l.cause)).collect()
}

fn said(reading: &Reading, words: &str) -> bool {
    reading.verdict.iter().any(|s| s.contains(words))
}

/// A bare-metal-like host whose steps sit exactly at its declared caches.
fn clean(bytes: u64) -> f64 {
    match bytes {
        b if b <= 32 * K => 1.0,
        b if b <= M => 4.0,
        b if b <= 32 * M => 12.0,
        _ => 100.0,
    }
}

#[test]
fn clean_steps_are_the_declared_caches() {
    let declared = [cache(1, 32 * K), cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let reading = read_levels(only(&curve(GIB, clean)), &declared, Some(4.0));
    assert_eq!(
        names(&reading),
        [
            ("L1".into(), 32 * K, Cause::Cache),
            ("L2".into(), M, Cause::Cache),
            ("L3".into(), 32 * M, Cause::Cache),
            ("DRAM".into(), 48 * M, Cause::Dram)
        ]
    );
    let l2 = &reading.levels[1];
    assert_eq!((l2.ns_per_load, l2.cycles_per_load, l2.declared_bytes), (4.0, Some(16.0), Some(M)));
    assert!(said(&reading, "DRAM is 100 ns (400 cycles) away from 48 MiB"), "{:?}", reading.verdict);
    // Nothing early, nothing missing: no sentence about a slice or a TLB.
    assert!(!said(&reading, "gets ~") && !said(&reading, "TLB"), "{:?}", reading.verdict);
}

const GIB: u64 = 1024 * M;

#[test]
fn noisy_steps_read_the_same() {
    // ±8% of seeded noise on every point and one lucky dip, as a busy shared host gives.
    let mut rng = fastrand::Rng::with_seed(9);
    let mut points = curve(GIB, |b| clean(b) * (1.0 + rng.f64() * 0.16 - 0.08));
    points[20].ns_per_load.min *= 0.7;
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let reading = read_levels(only(&points), &declared, None);
    let found: Vec<(String, Cause)> = reading.levels.iter().map(|l| (l.name.clone(), l.cause)).collect();
    assert_eq!(
        found,
        [
            ("L1".into(), Cause::Cache),
            ("L2".into(), Cause::Cache),
            ("L3".into(), Cause::Cache),
            ("DRAM".into(), Cause::Dram)
        ]
    );
    // Within one ladder step of the declared sizes.
    for (level, declared) in reading.levels.iter().zip([32 * K, M, 32 * M]) {
        assert!(level.size_bytes * 3 / 2 >= declared && level.size_bytes <= declared, "{level:?}");
    }
}

/// The Zen 3 guest of HOSTS.md: L2 steps at 256 -> 384 KiB with 512 KiB declared (the L1 dTLB's
/// reach or a shared L2), and DRAM from 4 MiB with 32 MiB of L3 declared.
fn zen3(bytes: u64) -> f64 {
    match bytes {
        b if b <= 32 * K => 1.4,
        b if b <= 256 * K => 4.3,
        b if b <= M => 13.1,
        b if b <= 3 * M => 17.5,
        b if b <= 64 * M => 170.0 + 2.0 * (b / M) as f64,
        _ => 450.0,
    }
}

#[test]
fn a_vm_like_early_tlb_step_and_an_l3_slice() {
    let declared = [cache(1, 32 * K), cache(2, 512 * K), cache(3, 32 * M)];
    let reading = read_levels(only(&curve(GIB, zen3)), &declared, Some(3.0));
    assert_eq!(
        names(&reading),
        [
            ("L1".into(), 32 * K, Cause::Cache),
            ("L2".into(), 256 * K, Cause::Cache),
            ("L2 + TLB misses".into(), M, Cause::Tlb),
            ("L3".into(), 3 * M, Cause::Cache),
            ("DRAM".into(), 4 * M, Cause::Dram),
            ("DRAM + TLB misses".into(), GIB, Cause::Tlb),
        ]
    );
    assert!(said(&reading, "after 256 KiB, inside the declared 512 KiB L2"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~3 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
    assert!(said(&reading, "page walks"), "{:?}", reading.verdict);
}

/// The Zen 5 guest of HOSTS.md: 48 KiB L1d declared (the step shows at 32 -> 48 KiB), L2 1 MiB,
/// ~8 MiB of the declared 32 MiB L3, DRAM 145-200 ns to 256 MiB and 250 at 1 GiB.
fn zen5(bytes: u64) -> f64 {
    match bytes {
        b if b <= 32 * K => 1.1,
        b if b <= M => 3.7,
        b if b <= 8 * M => 11.0,
        b if b <= 12 * M => 95.0,
        b if b <= 256 * M => 150.0 + 50.0 * (b as f64 / (256 * M) as f64),
        _ => 250.0,
    }
}

#[test]
fn the_zen5_guest_gets_a_third_of_its_l3() {
    let declared = [cache(1, 48 * K), cache(2, M), cache(3, 32 * M)];
    let reading = read_levels(only(&curve(GIB, zen5)), &declared, Some(4.0));
    let found = names(&reading);
    assert_eq!(found[0], ("L1".into(), 32 * K, Cause::Cache));
    assert_eq!(found[1], ("L2".into(), M, Cause::Cache));
    assert_eq!(found[2], ("L3".into(), 8 * M, Cause::Cache));
    assert_eq!(found[3].2, Cause::Dram);
    // A 48 KiB ring in a 48 KiB L1 already misses: one ladder step is not an early step.
    assert!(!said(&reading, "L1 holds"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~8 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
}

#[test]
fn page_local_separates_the_tlb_from_the_caches() {
    // This machine's shape (Zen 4 guest): random climbs from 384 KiB while page-local stays on
    // L2 up to the declared 1 MiB.
    let local = |b: u64| match b {
        b if b <= 32 * K => 1.1,
        b if b <= M => 3.8,
        b if b <= 3 * M => 12.0,
        _ => 110.0,
    };
    let random = |b: u64| match b {
        b if b <= 256 * K => local(b),
        b if b <= M => local(b) * 1.6,
        b if b <= 3 * M => local(b) * 1.2,
        b => local(b) * (1.3 + (b / (64 * M)) as f64 * 0.05),
    };
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let local_curve = curve(256 * M, local);
    let reading = read_levels(
        Curves { random: &curve(256 * M, random), page_local: Some(&local_curve), caches: None },
        &declared,
        None,
    );
    let found = names(&reading);
    assert!(found.contains(&("L2".into(), M, Cause::Cache)), "{found:?}");
    assert!(found.contains(&("TLB reach".into(), 256 * K, Cause::Tlb)), "{found:?}");
    assert!(found.contains(&("L3".into(), 3 * M, Cause::Cache)), "{found:?}");
    assert!(said(&reading, "TLB misses start after 256 KiB"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~3 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
    // A huge-page page-local curve, when there is one, is where the caches are read: here its L2
    // holds to 1.5 MiB.
    let thp_local = curve(256 * M, |b| if b > M && b <= 3 * M / 2 { 3.8 } else { local(b) });
    let reading = read_levels(
        Curves { random: &curve(256 * M, random), page_local: Some(&local_curve), caches: Some(&thp_local) },
        &declared,
        None,
    );
    assert!(names(&reading).contains(&("L2".into(), 3 * M / 2, Cause::Cache)), "{:?}", names(&reading));
    // Page walks at 256 MiB: 1 - 1/1.5.
    assert!((page_walk_share(&point(1, 150.0), &point(1, 100.0)) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(page_walk_share(&point(1, 90.0), &point(1, 100.0)), 0.0);
}

#[test]
fn no_declared_caches_and_short_curves() {
    // A browser declares nothing: levels are numbered in order, DRAM still found by its jump.
    let reading = read_levels(only(&curve(GIB, clean)), &[], None);
    assert_eq!(reading.levels.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["L1", "L2", "L3", "DRAM"]);
    // A ladder that stops inside L2 reaches no DRAM and says so.
    let reading = read_levels(only(&curve(512 * K, clean)), &[cache(1, 32 * K), cache(2, M)], None);
    assert_eq!(names(&reading).len(), 2);
    assert!(said(&reading, "DRAM was not reached"), "{:?}", reading.verdict);
    assert!(read_levels(only(&[]), &[], None).levels.is_empty());
    assert!(read_levels(only(&[point(16 * K, 1.0)]), &[], None).levels.is_empty());
}

#[test]
fn monotone_pools_dips_and_keeps_rises() {
    assert_eq!(monotone(&[1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
    assert_eq!(monotone(&[1.0, 3.0, 2.0, 4.0]), [1.0, 2.5, 2.5, 4.0]);
    assert_eq!(monotone(&[3.0, 2.0, 1.0]), [2.0, 2.0, 2.0]);
    assert!(monotone(&[]).is_empty());
}

fn ladder_of(points: Vec<LadderPoint>, reading: Reading) -> Ladder {
    Ladder {
        pattern: "random-cycle".into(),
        huge_pages: "off".into(),
        pinned_cpu: None,
        line_bytes: 64,
        seed: 1,
        ghz: Some(3.0),
        cycles_unavailable: None,
        target_sample_ns: 5e6,
        timer_resolution_ns: None,
        duration_s: None,
        points,
        steps: vec![],
        clock: None,
        clock_check: None,
        levels: reading.levels,
        verdict: reading.verdict,
        parallelism: None,
        curves: vec![],
    }
}

#[test]
fn advice_says_only_what_was_measured_with_its_figures() {
    let declared = [cache(1, 32 * K), cache(2, 512 * K), cache(3, 32 * M)];
    let points = curve(GIB, zen3);
    let reading = read_levels(only(&points), &declared, Some(3.0));
    let mut ladder = ladder_of(points.clone(), reading);
    // The ladder alone: the fast working set and DRAM, nothing about huge pages, MLP or bandwidth.
    let said = advice(&ladder, None);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("up to ~3 MiB a dependent load takes 17.5 ns (52 cycles)"), "{said:?}");
    assert!(said[1].contains("DRAM is 186 ns (558 cycles) away from 4 MiB, 133x an L1 hit"), "{said:?}");
    // With a THP curve, MLP and bandwidth, each gets its sentence and its numbers.
    ladder.curves.push(memwall_report::Curve {
        pattern: "random-cycle".into(),
        huge_pages: "thp".into(),
        chains: 1,
        points: points.iter().map(|p| point(p.bytes, p.ns_per_load.min * 0.6)).collect(),
    });
    ladder.parallelism = Some(crate::ladder::parallelism_from(
        256 * M,
        [(1, 400.0), (2, 200.0), (4, 100.0), (8, 50.0), (16, 40.0), (32, 39.0)]
            .iter()
            .map(|&(chains, ns)| memwall_report::ChainsPoint { chains, ns_per_load: ns, ns_per_load_median: None })
            .collect(),
    ));
    let bandwidth = Bandwidth {
        points: [(16 * K, 1, 138.0), (GIB, 1, 11.0), (GIB, 2, 18.7)]
            .iter()
            .map(|&(bytes, threads, read)| BandwidthPoint {
                bytes,
                threads,
                read_gb_per_s: read,
                write_gb_per_s: read / 2.0,
                copy_gb_per_s: read / 2.0,
                memcpy_gb_per_s: None,
            })
            .collect(),
        loaded_latency: [(0, 230.0), (1, 265.0)]
            .iter()
            .map(|&(streaming_threads, ns)| memwall_report::LoadedLatency {
                bytes: 256 * M,
                stream_bytes: 256 * M,
                streaming_threads,
                ns_per_load: ns,
                ns_per_load_median: None,
            })
            .collect(),
    };
    let said = advice(&ladder, Some(&bandwidth));
    let all = said.join("\n");
    assert!(all.contains("270 ns on transparent huge pages against 450 ns on 4 KiB pages (40% saved)"), "{all}");
    assert!(
        all.contains("about 16 misses in flight per core (400 ns per load with one chase, 40.0 ns with 16"),
        "{all}"
    );
    assert!(all.contains("One thread streams 11.0 GB/s from 1 GiB and 138.0 GB/s within 16 KiB"), "{all}");
    assert!(all.contains("2 threads stream 18.7 GB/s together from 1 GiB"), "{all}");
    assert!(
        all.contains("with 1 other thread(s) streaming, a DRAM miss takes 265 ns instead of 230 ns (+15%)"),
        "{all}"
    );
    // Withheld cycles are said, not papered over.
    ladder.cycles_unavailable = Some("L1 reads 7.1 cycles".into());
    assert!(advice(&ladder, None).last().unwrap().contains("No cycle figures: L1 reads 7.1 cycles"));
}

#[test]
fn a_step_inside_the_last_cache_is_not_a_second_l3() {
    // Page-local itself steps at 3 MiB inside a declared 32 MiB L3 (as on this project's VM).
    let local = |b: u64| match b {
        b if b <= 32 * K => 1.1,
        b if b <= 512 * K => 3.8,
        b if b <= 3 * M => 12.0,
        b if b <= 6 * M => 14.5,
        _ => 112.0,
    };
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let points = curve(256 * M, local);
    let reading = read_levels(Curves { random: &points, page_local: Some(&points), caches: None }, &declared, None);
    let found: Vec<String> = reading.levels.iter().map(|l| l.name.clone()).collect();
    assert_eq!(found, ["L1", "L2", "L3", "L3 (slower part)", "DRAM"], "{:?}", reading.verdict);
    assert!(said(&reading, "L3 slows from 12.0 to 14.5 ns after 3 MiB"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~6 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
}

/// The 16-core Sapphire-Rapids-class KVM guest measured on 2026-11-30 (`memwall run --thorough`:
/// L1d 48 KiB, L2 2 MiB, L3 300 MiB shared by 16 declared), its random and page-local curves on
/// small pages, ns min per size from 16 KiB to 64 MiB.
const XEON_RANDOM: [f64; 25] = [
    1.68, 1.69, 1.64, 1.69, 5.29, 5.21, 5.17, 5.48, 5.62, 6.09, 6.40, 6.75, 7.18, 8.14, 13.85, 38.43, 38.80, 39.21,
    40.58, 68.14, 121.53, 132.11, 123.90, 124.85, 126.76,
];
const XEON_PAGE_LOCAL: [f64; 25] = [
    1.64, 1.62, 1.63, 1.62, 5.25, 5.32, 5.37, 5.37, 5.16, 5.13, 5.17, 5.11, 5.22, 6.51, 9.56, 16.91, 17.17, 17.21,
    17.30, 18.14, 17.76, 35.10, 53.97, 53.20, 51.97,
];

#[test]
fn a_cache_that_misses_before_it_is_full_runs_out_at_its_declared_size() {
    let sizes = crate::ladder::ladder_sizes(16 * K, 64 * M, 2).unwrap();
    let random: Vec<LadderPoint> = sizes.iter().zip(XEON_RANDOM).map(|(&b, ns)| point(b, ns)).collect();
    let local: Vec<LadderPoint> = sizes.iter().zip(XEON_PAGE_LOCAL).map(|(&b, ns)| point(b, ns)).collect();
    let declared = [cache(1, 48 * K), cache(2, 2 * M), cache(3, 300 * M)];
    let curves = Curves { random: &random, page_local: Some(&local), caches: None };
    let reading = read_levels(curves, &declared, None);
    let level = |name: &str| {
        reading.levels.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("{name}: {:?}", reading.levels))
    };
    // L2 starts missing at 1.5 MiB (random-ish replacement) but is halfway to L3 only at 2 MiB.
    assert_eq!((level("L2").size_bytes, level("L2").capacity_bytes), (M, Some(2 * M)));
    // L1's step is sharp: it has run out by the next size, one ladder step past 48 KiB.
    assert_eq!(level("L1").capacity_bytes, Some(64 * K));
    assert!(!said(&reading, "L2 holds"), "{:?}", reading.verdict);
    assert!(level("DRAM").capacity_bytes.is_none());
    // The TLB is told apart: random climbs above page-local from a few hundred KiB on.
    assert!(reading.levels.iter().any(|l| l.cause == Cause::Tlb), "{:?}", reading.levels);
}

#[test]
fn a_gradual_climb_runs_out_where_latency_is_halfway() {
    // L2 of 1 MiB at 4 ns, climbing through 1.5 and 2 MiB to an L3 of 16 ns from 3 MiB.
    let climb = |b: u64| match b {
        b if b <= 32 * K => 1.0,
        b if b <= M => 4.0,
        b if b <= 3 * M / 2 => 5.0,
        b if b <= 2 * M => 12.0,
        b if b <= 16 * M => 16.0,
        _ => 120.0,
    };
    let reading =
        read_levels(only(&curve(256 * M, climb)), &[cache(1, 32 * K), cache(2, 2 * M), cache(3, 16 * M)], None);
    let l2 = reading.levels.iter().find(|l| l.name == "L2").unwrap();
    // Halfway between 4 and 16 ns is 8 ns: between 5 ns at 1.5 MiB and 12 ns at 2 MiB, nearer 2 MiB.
    assert_eq!((l2.size_bytes, l2.capacity_bytes), (M, Some(2 * M)));
}

#[test]
fn page_walks_are_advised_on_only_where_they_cost_something() {
    let local = |scale: f64| memwall_report::Curve {
        pattern: "page-local".into(),
        huge_pages: "off".into(),
        chains: 1,
        points: curve(GIB, zen3).iter().map(|p| point(p.bytes, p.ns_per_load.min * scale)).collect(),
    };
    let declared = [cache(1, 32 * K), cache(2, 512 * K), cache(3, 32 * M)];
    let points = curve(GIB, zen3);
    let mut ladder = ladder_of(points.clone(), read_levels(only(&points), &declared, None));
    ladder.huge_pages = "off".into();
    // Page-local at 60% of random at 1 GiB: 40% of the latency is page walks.
    ladder.curves = vec![local(0.6)];
    let all = advice(&ladder, None).join("\n");
    assert!(all.contains("Page walks are 40% of a random load's latency at 1 GiB (180 of 450 ns)"), "{all}");
    // As fast as random: nothing for huge pages to save.
    ladder.curves = vec![local(0.99)];
    let all = advice(&ladder, None).join("\n");
    assert!(all.contains("Page walks cost little up to 1 GiB") && !all.contains("would save"), "{all}");
}
