use super::*;

const K: u64 = 1024;
const M: u64 = 1024 * K;

fn dram_past_25x(first: f64, last: f64, _: u8) -> bool {
    last / first >= 25.0
}

fn numbers(fit: &Fit) -> Vec<u8> {
    fit.levels.iter().map(|l| l.number).collect()
}

#[test]
fn a_sparse_curve_reads_one_level_per_cache_and_owns_its_transitions() {
    // AWS x8i.large (Xeon 6975P-C), as Spare Cores measured it.
    let bytes = [32 * K, 128 * K, M, 2 * M, 4 * M, 128 * M, 256 * M, 512 * M, 1024 * M, 2048 * M];
    let ns = [1.30, 3.6, 6.5, 12.9, 24.5, 39.7, 93.7, 121.0, 134.3, 142.5];
    let declared = [(1, 48 * K), (2, 2 * M), (3, 480 * M)];
    let fit = fit(&bytes, &ns, &declared, &dram_past_25x, false);
    // 128 KiB at 3.6 ns cannot be mostly L1 hits (a 48 KiB L1 serves at most 3/8 of a 128 KiB
    // cycle), so it is L2; 1 and 2 MiB, slower but inside the declared 2 MiB, are L2's slower part.
    assert_eq!(numbers(&fit), [1, 2, 2, 3, 4], "{fit:?}");
    assert!(fit.levels[2].slower && fit.levels[2].last == 3, "{fit:?}");
    // L3 reaches 128 MiB; DRAM starts after it, well above 100 ns.
    assert_eq!(fit.levels[3].last, 5, "{fit:?}");
    assert!(fit.levels[4].first >= 6 && fit.levels[4].ns > 110.0, "{fit:?}");
}

#[test]
fn a_slow_level_is_not_taken_for_a_climb() {
    // L2 to 1 MiB, then 13.8 and 26.5 ns, then DRAM: read as a climb from L2, 16 MiB at 26.5 ns
    // would need the 1.25 MiB L2 to hold about 12 MiB of it. It is a level of its own.
    let bytes = [32 * K, 128 * K, 512 * K, M, 2 * M, 16 * M, 32 * M, 64 * M, 128 * M, 256 * M];
    let ns = [1.5, 4.3, 6.2, 8.2, 13.8, 26.5, 81.3, 85.5, 89.9, 91.0];
    let declared = [(1, 48 * K), (2, 1280 * K), (3, 48 * M)];
    let fit = fit(&bytes, &ns, &declared, &dram_past_25x, false);
    assert_eq!(numbers(&fit), [1, 2, 3, 4], "{fit:?}");
    assert_eq!(fit.levels[2].last, 5, "{fit:?}");
    assert_eq!(fit.levels[3].first, 6, "{fit:?}");
}

#[test]
fn a_point_held_up_by_noise_is_set_aside_only_where_nothing_else_explains_it() {
    let bytes: Vec<u64> = (0..10).map(|i| (16 * K) << i).collect();
    let ns = [1.0, 1.0, 3.0, 3.1, 11.6, 233.6, 12.0, 241.8, 204.5, 210.0];
    assert!(aside_prices(&ns)[5].is_finite() && aside_prices(&ns)[4].is_infinite());
    let fit = fit(&bytes, &ns, &[], &dram_past_25x, false);
    assert_eq!(fit.aside, [5], "{fit:?}");
    assert_eq!(fit.levels.last().map(|l| l.first), Some(7), "{fit:?}");
    // A curve with nothing out of order sets nothing aside.
    let clean = [1.0, 1.0, 3.0, 3.1, 11.6, 12.0, 12.4, 241.8, 204.5, 210.0];
    assert!(super::fit(&bytes, &clean, &[], &dram_past_25x, false).aside.is_empty());
}

#[test]
fn nothing_to_fit_reads_nothing() {
    assert_eq!(fit(&[], &[], &[], &dram_past_25x, false), Fit::default());
    assert_eq!(fit(&[16 * K, 32 * K], &[1.0, f64::NAN], &[], &dram_past_25x, false), Fit::default());
    let one = fit(&[16 * K], &[1.0], &[], &dram_past_25x, false);
    assert_eq!(numbers(&one), [1]);
}

#[test]
#[ignore = "prints how long fits of dense curves take"]
fn time_dense_fits() {
    for per_octave in [1u32, 2, 3, 4] {
        let bytes = crate::ladder::ladder_sizes(16 * K, 64 << 30, per_octave).unwrap();
        let ns: Vec<f64> = bytes
            .iter()
            .map(|&b| match b {
                b if b <= 32 * K => 1.0,
                b if b <= M => 4.0,
                b if b <= 32 * M => 12.0,
                _ => 100.0 + (b as f64).log2(),
            })
            .collect();
        let start = std::time::Instant::now();
        let fit = fit(&bytes, &ns, &[(1, 32 * K), (2, M), (3, 32 * M)], &dram_past_25x, false);
        println!("{} points: {:?}, {} levels", bytes.len(), start.elapsed(), fit.levels.len());
    }
}

/// Each point is owned by exactly one level, on the climb into the last one, or set aside.
fn every_point_explained(fit: &Fit, n: usize) -> Result<(), String> {
    let mut seen = vec![0u32; n];
    for l in &fit.levels {
        if !(l.first <= l.core_first && l.core_first <= l.core_last && l.core_last <= l.last && l.last < n) {
            return Err(format!("level out of order: {l:?}"));
        }
        (l.first..=l.last).filter(|i| !fit.aside.contains(i)).for_each(|i| seen[i] += 1);
    }
    fit.climb.iter().chain(&fit.aside).for_each(|&i| seen[i] += 1);
    match seen.iter().position(|&s| s != 1) {
        Some(i) => Err(format!("point {i} explained {} times: {fit:?}", seen[i])),
        None => Ok(()),
    }
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
    #[test]
    fn any_curve_reads_without_panic_and_every_point_explained(
        ns in proptest::collection::vec(0.1f64..500.0, 1..40),
        l2 in 14u32..24,
        tlb_prone: bool,
        sorted: bool,
    ) {
        let mut ns = ns;
        if sorted {
            ns.sort_by(f64::total_cmp);
        }
        let bytes: Vec<u64> = crate::ladder::ladder_sizes(16 * K, 1 << 40, 2).unwrap().into_iter().take(ns.len()).collect();
        let declared = [(1, 32 * K), (2, 1 << l2), (3, 32 * M)];
        let fit = fit(&bytes, &ns, &declared, &dram_past_25x, tlb_prone);
        proptest::prop_assert!(!fit.levels.is_empty(), "no reading of {ns:?}");
        let explained = every_point_explained(&fit, ns.len());
        proptest::prop_assert!(explained.is_ok(), "{:?}", explained);
    }
}

#[test]
fn a_smooth_climb_with_no_plateau_still_reads() {
    let bytes: Vec<u64> = crate::ladder::ladder_sizes(16 * K, 1 << 40, 2).unwrap().into_iter().take(40).collect();
    for factor in [1.05, 1.1, 1.3, 2.0] {
        let ns: Vec<f64> = (0..40).map(|i| f64::powi(factor, i)).collect();
        let fit = fit(&bytes, &ns, &[], &dram_past_25x, false);
        assert!(!fit.levels.is_empty(), "{factor}");
        every_point_explained(&fit, ns.len()).unwrap();
    }
}

#[test]
fn the_cache_keeps_the_first_point_of_its_climb_into_dram_that_reads_near_it_on_a_tlb_friendly_curve() {
    // The EPYC guest's cache curve, run 3 of docs/results/stability-epyc-2vcpu-kvm/revisit/: the
    // page-local curve to 1 MiB (`run-3.json`), then the fastest reading of each size around the
    // L3 share (`edge.txt`): 6 MiB reads 17 ns against a 12-13 ns plateau, 8 MiB 67 ns (halfway
    // to DRAM), then DRAM.
    let bytes = [
        16 * K,
        32 * K,
        48 * K,
        64 * K,
        128 * K,
        256 * K,
        512 * K,
        768 * K,
        M,
        3 * M / 2,
        2 * M,
        3 * M,
        4 * M,
        6 * M,
        8 * M,
        12 * M,
        16 * M,
        24 * M,
    ];
    let ns = [1.1, 1.1, 3.9, 4.0, 4.1, 4.3, 4.0, 5.9, 7.5, 11.0, 12.0, 13.0, 13.0, 17.0, 67.0, 103.0, 117.0, 115.0];
    let declared = [(1, 32 * K), (2, M), (3, 32 * M)];
    let dram = |first: f64, last: f64, _: u8| last / first >= 20.0;
    let l3 = |fit: &Fit| fit.levels.iter().rev().find(|l| l.number == 3).copied();
    // 6 MiB, less than a level step over L3 and the first point of the climb, is L3's edge:
    // the share the guest got reached it. 8 MiB is on the climb, no level's.
    let friendly = fit(&bytes, &ns, &declared, &dram, false);
    assert_eq!(l3(&friendly).map(|l| (l.core_last, l.last)), Some((12, 13)), "{friendly:?}");
    assert_eq!(friendly.climb, [14], "{friendly:?}");
    // On a random chase on small pages the same climb may be page walks: no level keeps it.
    let walks = fit(&bytes, &ns, &declared, &dram, true);
    assert_eq!(l3(&walks).map(|l| l.last), Some(12), "{walks:?}");
    // A first climb point a level step or more over L3 is the climb's, never L3's.
    let mut far = ns;
    far[13] = 19.5;
    assert_eq!(l3(&fit(&bytes, &far, &declared, &dram, false)).map(|l| l.last), Some(12));
}
