//! The adaptive kernel on a heavy tail of keys, run whole (`groupby::run`).

use super::*;
use crate::budget::CacheBudget;
use crate::groupby::hash::hash;

/// Shaped like a real ClickBench-like column: a Zipf head of hot keys and a long tail of
/// keys seen once (72% of the keys, 12% of the rows).
fn heavy_tailed(rows: usize) -> (Vec<i64>, u64) {
    let tail = rows * 12 / 100;
    let head_keys = (tail * 28 / 72).max(1) as u64;
    let spec = crate::datagen::DataSpec {
        rows: (rows - tail) as u64,
        keys: head_keys,
        skew: crate::datagen::Skew::Zipf(1.05),
        seed: 11,
    };
    let mut keys = crate::datagen::generate(&spec).unwrap();
    keys.extend((0..tail as i64).map(|i| hash(i ^ 0x7a11) as i64));
    let mut rng = fastrand::Rng::with_seed(3);
    rng.shuffle(&mut keys);
    let groups = crate::groupby::reference(&keys).groups;
    (keys, groups)
}

#[test]
fn adaptive_is_right_on_a_heavy_tail_whatever_the_cache() {
    let (keys, groups) = heavy_tailed(1_000_000);
    let expected = crate::groupby::reference(&keys);
    // The sample sees the hot keys again and again: the point estimate is far low, the
    // upper one is not (and partitions are split further where their real groups show
    // more, see tuned::Fit).
    let estimate = estimate_groups(&keys);
    assert!(estimate.groups < groups / 4, "{estimate:?}");
    assert!(estimate.upper_groups >= groups / 2 && estimate.upper_groups <= keys.len() as u64, "{estimate:?}");
    // Caches of a small core, this project's VMs, and a big server's.
    for cache_bytes in [256 << 10, 1 << 20, 32 << 20] {
        let config =
            GroupByConfig { budget: CacheBudget::sized(cache_bytes, cache_bytes * 8), ..GroupByConfig::default() };
        let outcome = crate::groupby::run(Kernel::Adaptive, &keys, &config, &crate::exec::Sequential).unwrap();
        assert_eq!(outcome.result, expected, "cache {cache_bytes}");
        let choice = outcome.choice.unwrap();
        // The choice follows the real groups against this cache, not the low estimate. A
        // table past the per-core cache would take all of them at 1 MiB, but the tail's keys
        // seen once make a new group of 12% of the rows to the end, more than such a table
        // pays back (`PAYBACK_ROWS`): partitioned.
        let limits = thresholds(&config);
        let tail_pays_back = 12 * PAYBACK_ROWS <= 100;
        let right = if groups <= limits.naive_groups {
            "naive"
        } else if groups <= limits.single_table_groups && tail_pays_back {
            "prefetch"
        } else {
            "tuned"
        };
        assert_eq!(choice.kernel, right, "cache {cache_bytes}: {}", choice.reason);
    }
}
