use memwall_report::{Bandwidth, BandwidthPoint, Cache, Cause, Curve, Ladder, LadderPoint, Level};

use super::*;
use crate::fixtures::point;

const K: u64 = 1024;
const M: u64 = 1024 * 1024;
const GIB: u64 = 1024 * M;

/// The default ladder's sizes (two per octave) from 16 KiB to `max`, with latency from `ns(bytes)`.
fn curve(max: u64, mut ns: impl FnMut(u64) -> f64) -> Vec<LadderPoint> {
    crate::ladder::ladder_sizes(16 * K, max, 2).unwrap().into_iter().map(|b| point(b, ns(b))).collect()
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

/// A ladder whose main curve is random on small pages, with `others` beside it.
fn ladder(points: Vec<LadderPoint>, others: Vec<Curve>) -> Ladder {
    Ladder { ghz: Some(3.0), ..crate::fixtures::ladder("random-cycle", "off", points, others) }
}

fn other(pattern: &str, pages: &str, points: Vec<LadderPoint>) -> Curve {
    Curve { pattern: pattern.into(), huge_pages: pages.into(), chains: 1, points }
}

fn read_with(ladder: &Ladder, declared: &[Cache], ghz: Option<f64>) -> Reading {
    read(&Evidence { ghz, ..Evidence::of(ladder, declared, None) })
}

fn names(reading: &Reading) -> Vec<(String, u64, Cause)> {
    reading.levels.iter().map(|l| (l.name.clone(), l.size_bytes, l.cause)).collect()
}

fn level<'a>(reading: &'a Reading, name: &str) -> &'a Level {
    reading.levels.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no {name}: {:?}", names(reading)))
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
    let reading = read_with(&ladder(curve(GIB, clean), vec![]), &declared, Some(4.0));
    assert_eq!(
        names(&reading),
        [
            ("L1".into(), 32 * K, Cause::Cache),
            ("L2".into(), M, Cause::Cache),
            ("L3".into(), 32 * M, Cause::Cache),
            ("DRAM".into(), 48 * M, Cause::Dram)
        ]
    );
    let l2 = level(&reading, "L2");
    assert_eq!((l2.ns_per_load, l2.cycles_per_load, l2.declared_bytes), (4.0, Some(16.0), Some(M)));
    assert!(said(&reading, "DRAM is 100 ns (400 cycles) away from 48 MiB"), "{:?}", reading.verdict);
    // Each level says what placed it.
    assert!(l2.evidence.iter().any(|e| e.contains("random on 4 KiB pages: 4.0 ns from 48 KiB to 1 MiB")), "{l2:?}");
    assert!(level(&reading, "DRAM").evidence.iter().any(|e| e.contains("reaches past the declared 32 MiB L3")));
    // Nothing early, nothing missing: no sentence about a share or a TLB step, only the caveat
    // that a random curve alone cannot tell the TLB from the caches.
    assert!(!said(&reading, "gets ~") && !said(&reading, "inside the declared"), "{:?}", reading.verdict);
    assert!(said(&reading, "`--pattern page-local` tells them apart"), "{:?}", reading.verdict);
}

#[test]
fn noisy_steps_read_the_same() {
    // ±8% of seeded noise on every point and one lucky dip, as a busy shared host gives.
    let mut rng = fastrand::Rng::with_seed(9);
    let mut points = curve(GIB, |b| clean(b) * (1.0 + rng.f64() * 0.16 - 0.08));
    points[20].ns_per_load.min *= 0.7;
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let reading = read_with(&ladder(points, vec![]), &declared, None);
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
    for (level, declared) in reading.levels.iter().zip([32 * K, M, 32 * M]) {
        assert!(level.size_bytes * 3 / 2 >= declared && level.size_bytes <= declared, "{level:?}");
    }
}

/// A Zen 5 guest measured before (2 vCPUs, KVM) on its random curve: 48 KiB L1d declared (the step shows at
/// 32 -> 48 KiB), L2 1 MiB, ~8 MiB of the declared 32 MiB L3, DRAM 145-200 ns to 256 MiB and
/// 250 at 1 GiB as page walks miss too.
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
fn page_walks_raising_dram_in_steps_make_no_fourth_cache() {
    let declared = [cache(1, 48 * K), cache(2, M), cache(3, 32 * M)];
    let reading = read_with(&ladder(curve(GIB, zen5), vec![]), &declared, Some(4.0));
    assert_eq!(
        names(&reading),
        [
            ("L1".into(), 32 * K, Cause::Cache),
            ("L2".into(), M, Cause::Cache),
            ("L3".into(), 8 * M, Cause::Cache),
            ("DRAM".into(), 12 * M, Cause::Dram),
            ("DRAM + TLB misses".into(), GIB, Cause::Tlb),
        ]
    );
    // A 48 KiB ring in a 48 KiB L1 already misses: one ladder step is not an early step.
    assert!(!said(&reading, "L1 holds"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~8 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
    assert!(said(&reading, "page walks that miss the caches too"), "{:?}", reading.verdict);
}

/// Random climbs a little over page-local from 384 KiB on (the first TLB's reach) and more past
/// 6 MiB (the second's), and page-local shows an L3 share of 6 MiB with a slower part; DRAM from
/// 8 MiB.
fn zen4_local(bytes: u64) -> f64 {
    match bytes {
        b if b <= 32 * K => 1.1,
        b if b <= M => 3.8,
        b if b <= 3 * M => 12.0,
        b if b <= 6 * M => 14.5,
        _ => 110.0,
    }
}

fn zen4_random(bytes: u64) -> f64 {
    match bytes {
        b if b <= 256 * K => zen4_local(b),
        b if b <= M => zen4_local(b) * 1.6,
        b if b <= 6 * M => zen4_local(b) * 1.2,
        b => zen4_local(b) * (1.3 + (b / (64 * M)) as f64 * 0.05),
    }
}

#[test]
fn page_local_separates_the_tlb_from_the_caches() {
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let local = other("page-local", "off", curve(256 * M, zen4_local));
    let reading = read_with(&ladder(curve(256 * M, zen4_random), vec![local]), &declared, None);
    assert_eq!(
        names(&reading),
        [
            ("L1".into(), 32 * K, Cause::Cache),
            ("L2".into(), M, Cause::Cache),
            ("L3".into(), 6 * M, Cause::Cache),
            ("TLB reach".into(), 6 * M, Cause::Tlb),
            ("DRAM".into(), 8 * M, Cause::Dram),
        ]
    );
    // Random reads 1.2x page-local from 384 KiB (misses of the first TLB that the second one
    // catches) and more from 8 MiB on: page walks start there.
    assert!(said(&reading, "TLB misses start after 6 MiB"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~6 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
    assert!(!said(&reading, "`--pattern page-local` tells"), "{:?}", reading.verdict);
    let l3 = &level(&reading, "L3").evidence[0];
    assert!(l3.starts_with("page-local on 4 KiB pages: 12.9 ns from 1.5 MiB to 6 MiB"), "{l3}");
    // A huge-page page-local curve is read beside it, pointwise the fastest: here its L2 holds
    // to 1.5 MiB.
    let thp_local =
        other("page-local", "thp", curve(256 * M, |b| if b > M && b <= 3 * M / 2 { 3.8 } else { zen4_local(b) }));
    let local = other("page-local", "off", curve(256 * M, zen4_local));
    let reading = read_with(&ladder(curve(256 * M, zen4_random), vec![local, thp_local]), &declared, None);
    assert_eq!(level(&reading, "L2").size_bytes, 3 * M / 2);
    assert!(level(&reading, "L2").evidence[0].starts_with("page-local on 4 KiB pages and page-local on THP"));
    assert!((page_walk_share(&point(1, 150.0), &point(1, 100.0)) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(page_walk_share(&point(1, 90.0), &point(1, 100.0)), 0.0);
}

#[test]
fn a_step_inside_the_last_cache_is_its_slower_part_or_one_level() {
    // Page-local steps 1.6x at 3 MiB inside a declared 32 MiB L3: a slower part of L3, not an L4.
    let local = |b: u64| match b {
        b if b <= 32 * K => 1.1,
        b if b <= 512 * K => 3.8,
        b if b <= 3 * M => 12.0,
        b if b <= 12 * M => 19.5,
        _ => 112.0,
    };
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let points = curve(256 * M, local);
    let local_curve = other("page-local", "off", points.clone());
    let reading = read_with(&ladder(points, vec![local_curve]), &declared, None);
    let found: Vec<String> = reading.levels.iter().map(|l| l.name.clone()).collect();
    assert_eq!(found, ["L1", "L2", "L3", "L3 (slower part)", "DRAM"], "{:?}", reading.verdict);
    assert!(said(&reading, "L3 slows from 12.0 to 19.5 ns after 3 MiB"), "{:?}", reading.verdict);
    assert!(said(&reading, "this host gets ~12 MiB of the declared 32 MiB L3"), "{:?}", reading.verdict);
    // A smaller step (1.2x) is one level.
    let gentle = curve(256 * M, |b| if b > 3 * M && b <= 12 * M { 14.5 } else { local(b) });
    let local_curve = other("page-local", "off", gentle.clone());
    let reading = read_with(&ladder(gentle, vec![local_curve]), &declared, None);
    let found: Vec<String> = reading.levels.iter().map(|l| l.name.clone()).collect();
    assert_eq!(found, ["L1", "L2", "L3", "DRAM"], "{:?}", reading.verdict);
}

#[test]
fn a_browser_declares_nothing_and_a_short_ladder_reaches_no_dram() {
    // A browser declares nothing: levels are numbered in order; DRAM is the last tread because no
    // cache answers 100x slower than L1.
    let reading = read_with(&ladder(curve(GIB, clean), vec![]), &[], None);
    let found: Vec<&str> = reading.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(found, ["L1", "L2", "L3", "DRAM"]);
    // A first size faster than the rest (a timer or compiler artefact) is no level of its own.
    let mut points = curve(GIB, clean);
    points[0].ns_per_load.min = 0.72;
    let reading = read_with(&ladder(points, vec![]), &[], None);
    assert_eq!(level(&reading, "L1").size_bytes, 32 * K);
    assert_eq!(reading.levels.len(), 4, "{:?}", names(&reading));
    // A ladder that stops inside L3 reaches no DRAM and says so, declared or not.
    for declared in [&[cache(1, 32 * K), cache(2, M), cache(3, 32 * M)][..], &[]] {
        let reading = read_with(&ladder(curve(16 * M, clean), vec![]), declared, None);
        assert!(reading.levels.iter().all(|l| l.cause != Cause::Dram), "{:?}", names(&reading));
        assert!(said(&reading, "DRAM not reached"), "{:?}", reading.verdict);
    }
    // One that stops on the climb to DRAM says it is still climbing.
    let reading = read_with(&ladder(curve(48 * M, |b| if b > 32 * M { 60.0 } else { clean(b) }), vec![]), &[], None);
    assert!(said(&reading, "still climbs at the largest working set, 48 MiB"), "{:?}", reading.verdict);
    assert!(read_with(&ladder(vec![], vec![]), &[], None).levels.is_empty());
    assert!(read_with(&ladder(vec![point(16 * K, 1.0)], vec![]), &[], None).levels.is_empty());
}

/// The caches the busy 2-vCPU Xeon guest declares.
fn xeon_caches() -> [Cache; 3] {
    [cache(1, 48 * K), cache(2, 2 * M), cache(3, 105 * M)]
}

/// A short ladder of that guest, as `memwall groupby` reads one before sizing adaptive's tables
/// (page-local on THP, one size an octave): 16 and 32 KiB at `l1` ns, 16, 32 and 64 MiB at
/// `dram`, and between them the sizes every probe below read alike.
fn xeon_probe(l1: [f64; 2], dram: [f64; 3]) -> Ladder {
    let between = [
        (64 * K, 7.1),
        (128 * K, 7.1),
        (256 * K, 7.3),
        (512 * K, 7.2),
        (M, 7.6),
        (2 * M, 22.0),
        (4 * M, 25.8),
        (8 * M, 35.9),
    ];
    let measured = [(16 * K, l1[0]), (32 * K, l1[1])]
        .into_iter()
        .chain(between)
        .chain([16 * M, 32 * M, 64 * M].into_iter().zip(dram));
    let points = measured.map(|(b, ns)| point(b, ns)).collect();
    crate::fixtures::ladder("page-local", "thp", points, vec![])
}

#[test]
fn a_disturbed_l1_point_does_not_turn_dram_into_a_cache() {
    // A two-pass short ladder on a busy Xeon guest (page-local on THP, one size an octave), as
    // `memwall groupby` read it before sizing adaptive's tables: 32 KiB disturbed at 3.3 ns.
    let probe = xeon_probe([2.2, 3.3], [63.6, 63.5, 63.1]);
    let reading = read_with(&probe, &xeon_caches(), None);
    let last = reading.levels.last().expect("levels");
    assert_eq!((last.cause, last.size_bytes), (Cause::Dram, 16 * M), "{:?}", names(&reading));
    assert!(reading.levels.iter().all(|l| l.name != "L4"), "{:?}", names(&reading));
}

#[test]
fn dram_past_every_declared_cache_is_dram_however_near_l1_it_reads() {
    // The same guest's probe with L1 itself slow in both passes (2.6 ns): DRAM at 60 ns is 23x
    // an L1 hit, under the latency tie-break, but past the L3 tread and every declared level.
    let probe = xeon_probe([2.6, 2.7], [60.1, 60.4, 59.8]);
    let reading = read_with(&probe, &xeon_caches(), None);
    let last = reading.levels.last().expect("levels");
    assert_eq!((last.cause, last.size_bytes), (Cause::Dram, 16 * M), "{:?}", names(&reading));
    let why = "a level past every cache the OS declares (L3 the deepest): DRAM";
    assert!(last.evidence.iter().any(|e| e.ends_with(why)), "{:?}", last.evidence);
    // A declaration without an L3 is not complete enough for the rule (ARM guests declare L1
    // and L2 alone): whatever the reading, it does not say this.
    let reading = read_with(&probe, &xeon_caches()[..2], None);
    assert!(reading.levels.iter().flat_map(|l| &l.evidence).all(|e| !e.ends_with(why)), "{:?}", names(&reading));
}

#[test]
fn an_arm_guest_that_declares_only_l1_and_l2_gets_its_l3_named() {
    // Graviton-like: L1 64 KiB, L2 1 MiB declared, a 32 MiB system cache at 35 ns undeclared.
    let shape = |b: u64| match b {
        b if b <= 64 * K => 1.5,
        b if b <= M => 5.0,
        b if b <= 32 * M => 35.0,
        _ => 120.0,
    };
    let declared = [cache(1, 64 * K), cache(2, M)];
    let reading = read_with(&ladder(curve(GIB, shape), vec![]), &declared, None);
    assert_eq!(level(&reading, "L3").size_bytes, 32 * M);
    assert!(level(&reading, "L3").evidence.iter().any(|e| e == "the OS declares no L3"));
    assert_eq!(level(&reading, "DRAM").size_bytes, 48 * M);
    // Cut at 16 MiB, the system cache is where the ladder ends: not DRAM, however far past the
    // declared L2 it reaches.
    let reading = read_with(&ladder(curve(16 * M, shape), vec![]), &declared, None);
    assert!(said(&reading, "DRAM not reached: the largest working set, 16 MiB, still reads 35.0 ns"));
}

fn bandwidth(points: &[(u64, f64)]) -> Bandwidth {
    Bandwidth {
        points: points
            .iter()
            .map(|&(bytes, read)| BandwidthPoint {
                bytes,
                threads: 1,
                read_gb_per_s: read,
                write_gb_per_s: read / 2.0,
                copy_gb_per_s: read / 2.0,
                memcpy_gb_per_s: None,
            })
            .collect(),
        loaded_latency: vec![],
    }
}

#[test]
fn bandwidth_plateaus_are_evidence_of_their_levels() {
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let main = ladder(curve(GIB, clean), vec![]);
    let streams = bandwidth(&[(16 * K, 140.0), (M, 80.0), (4 * M, 28.0), (16 * M, 29.0), (256 * M, 17.0), (GIB, 16.5)]);
    let reading = read(&Evidence::of(&main, &declared, Some(&streams)));
    let l3 = level(&reading, "L3");
    assert!(l3.evidence.iter().any(|e| e == "one thread streams 28-29 GB/s of reads from 4 MiB to 16 MiB"), "{l3:?}");
    let dram = level(&reading, "DRAM");
    assert!(
        dram.evidence.iter().any(|e| e == "one thread streams 16-17 GB/s of reads from 256 MiB to 1 GiB"),
        "{dram:?}"
    );
}

#[test]
fn reread_replaces_levels_verdict_and_advice_and_nothing_measured() {
    let declared = vec![cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let mut report = memwall_report::Report::new(
        memwall_report::Source::Native,
        1,
        memwall_report::Host { caches: declared, ..Default::default() },
    );
    let mut old = ladder(curve(GIB, clean), vec![]);
    old.levels = vec![Level {
        name: "DRAM".into(),
        size_bytes: 2 * M,
        ns_per_load: 12.0,
        cycles_per_load: None,
        cause: Cause::Dram,
        declared_bytes: None,
        capacity_bytes: None,
        evidence: vec![],
    }];
    old.verdict = vec!["DRAM is 12 ns away from 2 MiB".into()];
    report.ladder = Some(old.clone());
    report.advice = vec!["stale".into()];
    reread(&mut report);
    let now = report.ladder.as_ref().unwrap();
    assert_eq!(now.points, old.points);
    assert_eq!(level(&Reading { levels: now.levels.clone(), verdict: vec![] }, "DRAM").size_bytes, 48 * M);
    assert!(!now.verdict.iter().any(|s| s.contains("12 ns")), "{:?}", now.verdict);
    assert!(report.advice.iter().any(|s| s.starts_with("Fast working set: up to ~32 MiB")), "{:?}", report.advice);
}

#[test]
fn emulated_timings_give_their_warning_instead_of_advice() {
    let mut report = memwall_report::Report::new(memwall_report::Source::Native, 1, memwall_report::Host::default());
    report.ladder = Some(ladder(curve(GIB, clean), vec![]));
    let warning = "this run looks emulated (a dependent floating-point add costs 24 integer adds)".to_string();
    report.timing_warnings = vec![warning.clone()];
    reread(&mut report);
    assert_eq!(report.advice, std::slice::from_ref(&warning));
    let verdict = &report.ladder.as_ref().unwrap().verdict;
    assert!(verdict.len() > 1 && verdict[0] == warning, "{verdict:?}");
}

/// A climb from L2 to L3 through sizes in between: L2 runs out where latency is halfway.
#[test]
fn a_gradual_climb_runs_out_where_latency_is_halfway() {
    let climb = |b: u64| match b {
        b if b <= 32 * K => 1.0,
        b if b <= M => 4.0,
        b if b <= 3 * M / 2 => 5.0,
        b if b <= 2 * M => 12.0,
        b if b <= 16 * M => 16.0,
        _ => 120.0,
    };
    let declared = [cache(1, 32 * K), cache(2, 2 * M), cache(3, 16 * M)];
    let reading = read_with(&ladder(curve(256 * M, climb), vec![]), &declared, None);
    // 5 ns at 1.5 MiB is still L2 (within 1.5x); halfway between 4 and 16 ns is 8 ns: between 5 ns
    // at 1.5 MiB and 12 ns at 2 MiB, nearer 2 MiB.
    let l2 = level(&reading, "L2");
    assert_eq!((l2.size_bytes, l2.capacity_bytes), (3 * M / 2, Some(2 * M)));
}

#[test]
fn advice_says_only_what_was_measured_with_its_figures() {
    let declared = [cache(1, 32 * K), cache(2, M), cache(3, 32 * M)];
    let mut main = ladder(curve(GIB, zen5), vec![]);
    let reading = read_with(&main, &declared, Some(3.0));
    main.levels = reading.levels;
    // The ladder alone: the fast working set and DRAM, nothing about pages, MLP or bandwidth.
    let said = advice(&main, None);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0].contains("up to ~8 MiB (of the 32 MiB L3 the OS declares) a dependent load takes 11.0 ns (33 cycles)"),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("DRAM is 164 ns (49") && said[1].ends_with("away from 12 MiB, 149x an L1 hit"),
        "{said:?}"
    );
    // With page-local and THP curves: what a random read costs on small pages, how much of it
    // page walks are, what huge pages save.
    main.curves.push(other("page-local", "off", curve(GIB, |b| zen5(b).min(150.0))));
    main.curves.push(other("random-cycle", "thp", curve(GIB, |b| zen5(b) * 0.72)));
    let all = advice(&main, None).join("\n");
    assert!(
        all.contains(
            "Random reads on small pages: at 1 GiB one takes 250 ns, 40% of it page walks (100 ns); on \
             transparent huge pages it takes 180 ns (28% saved): use them"
        ),
        "{all}"
    );
    // Page-local as fast as random: nothing for huge pages to save.
    main.curves = vec![other("page-local", "off", curve(GIB, |b| zen5(b) * 0.99))];
    let all = advice(&main, None).join("\n");
    assert!(all.contains("Page walks cost little up to 1 GiB") && !all.contains("would save"), "{all}");
    // MLP and bandwidth each get a sentence with their numbers; withheld cycles are said.
    main.parallelism = Some(crate::ladder::parallelism_from(
        256 * M,
        [(1, 400.0), (2, 200.0), (4, 100.0), (8, 50.0), (16, 40.0), (32, 39.0)]
            .iter()
            .map(|&(chains, ns)| memwall_report::ChainsPoint { chains, ns_per_load: ns, ns_per_load_median: None })
            .collect(),
    ));
    let mut streams = bandwidth(&[(16 * K, 138.0), (GIB, 11.0)]);
    streams.points.push(BandwidthPoint { threads: 2, read_gb_per_s: 18.7, ..streams.points[1].clone() });
    streams.loaded_latency = [(0, 230.0), (1, 265.0)]
        .iter()
        .map(|&(streaming_threads, ns)| memwall_report::LoadedLatency {
            bytes: 256 * M,
            stream_bytes: 256 * M,
            streaming_threads,
            ns_per_load: ns,
            ns_per_load_median: None,
        })
        .collect();
    main.cycles_unavailable = Some("L1 reads 7.1 cycles".into());
    let all = advice(&main, Some(&streams)).join("\n");
    for words in [
        "about 16 misses in flight per core (400 ns per load with one chase, 40.0 ns with 16",
        "One thread streams 11.0 GB/s from 1 GiB and 138.0 GB/s within 16 KiB",
        "2 threads stream 18.7 GB/s together from 1 GiB",
        "with 1 other thread(s) streaming, a DRAM miss takes 265 ns instead of 230 ns (+15%)",
        "No cycle figures: L1 reads 7.1 cycles",
    ] {
        assert!(all.contains(words), "{words}\n{all}");
    }
}
