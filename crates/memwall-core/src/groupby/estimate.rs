//! Estimating the groups of a column from a sample of rows: with `s` rows drawn from `G`
//! equally frequent groups, about `G (1 - e^(-s/G))` distinct keys show up; solving that for `G`
//! turns the sample's distinct count into an estimate. Skew makes the estimate low, which is what
//! caching sees too: a few hot keys behave like fewer groups.

use super::agg::{Count, State};
use super::flat::{Slot, capacity_for, upsert};
use super::hash::hash;

/// An estimate of the number of groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub groups: u64,
    /// An estimate skew cannot drag down: every key seen once in the sample stands for as many
    /// keys as rows per sampled row (the upper end of Charikar et al.'s GEE range). On uniform
    /// data it overshoots; on a heavy tail (most keys seen once, a few hot keys taking most
    /// rows) it is the one near the truth.
    pub upper_groups: u64,
    pub sampled_rows: u64,
    /// Distinct keys in the sample.
    pub sample_groups: u64,
}

/// Rows to sample: enough that 65,536 draws tell a few million groups from tens of millions
/// (by the repeats among them), few enough that the random reads (each a cache miss) cost well
/// under 1% of aggregating.
pub(crate) fn sample_size(rows: usize) -> usize {
    (rows / 1024).clamp(4096, 65_536).min(rows)
}

/// Estimates the groups of `keys` from a sample of rows.
pub fn estimate_groups(keys: &[i64]) -> Estimate {
    let rows = keys.len();
    let sampled = sample_size(rows);
    if sampled == 0 {
        return Estimate { groups: 0, upper_groups: 0, sampled_rows: 0, sample_groups: 0 };
    }
    let mut slots: Vec<Slot<Count>> = vec![(0, Count::EMPTY); capacity_for(sampled, 2)];
    let mut distinct = 0u64;
    // Random rows, not every n-th: a stride can alias with a period in the data (keys cycling
    // through a range, say) and see only a fraction of the groups.
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for i in 0..sampled {
        let key = if sampled == rows { keys[i] } else { keys[crate::datagen::below(&mut rng, rows)] };
        distinct += u64::from(upsert(&mut slots, key, hash(key), ()));
    }
    let (groups, upper_groups) = if sampled == rows {
        (distinct, distinct)
    } else {
        // Keys seen once and twice give Chao's bound, which skew cannot drag down the way it
        // drags the uniform model; take whichever says more.
        let (f1, f2) =
            slots.iter().fold((0u64, 0u64), |(f1, f2), s| (f1 + u64::from(s.1.0 == 1), f2 + u64::from(s.1.0 == 2)));
        let chao = chao(distinct, f1, f2);
        let groups = groups_from_sample(distinct, sampled as u64, rows as u64).max(chao.min(rows as u64));
        let upper = distinct.saturating_add(f1.saturating_mul((rows / sampled) as u64 - 1)).min(rows as u64);
        (groups, upper.max(groups))
    };
    Estimate { groups, upper_groups, sampled_rows: sampled as u64, sample_groups: distinct }
}

/// Chao's lower bound on the groups of which `distinct` were seen, `once` of them once and
/// `twice` twice: `d + f1 (f1 - 1) / (2 (f2 + 1))`. It ignores the keys seen more often, so a
/// few hot keys (skew) cannot drag it down.
pub(super) fn chao(distinct: u64, once: u64, twice: u64) -> u64 {
    distinct.saturating_add(once.saturating_mul(once.saturating_sub(1)) / (2 * (twice + 1)))
}

/// Solves `G (1 - e^(-s/G)) = d` for `G` in `[d, rows]`.
fn groups_from_sample(distinct: u64, sampled: u64, rows: u64) -> u64 {
    let expected = |g: f64| -g * (-(sampled as f64) / g).exp_m1();
    let (d, n) = (distinct as f64, rows as f64);
    // No repeat at all (or as many groups as rows would give): as many as can be.
    if distinct >= sampled || expected(n) <= d {
        return rows;
    }
    let (mut lo, mut hi) = (d.max(1.0), n);
    // `expected` grows with `g`: bisect, in log space because `G` spans many orders.
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if expected(mid) < d { lo = mid } else { hi = mid }
    }
    (hi.round() as u64).clamp(distinct, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_when_the_sample_is_everything() {
        let keys: Vec<i64> = (0..3000).map(|i| i % 700).collect();
        let estimate = estimate_groups(&keys);
        assert_eq!((estimate.groups, estimate.sampled_rows), (700, 3000));
        assert_eq!(estimate_groups(&[]).groups, 0);
    }

    #[test]
    fn the_model_inverts() {
        for (groups, sampled, rows) in
            [(1000u64, 4096u64, 1_000_000u64), (17_000_000, 65_536, 100_000_000), (50_000, 8192, 10_000_000)]
        {
            let g = groups as f64;
            let distinct = (-g * (-(sampled as f64) / g).exp_m1()).round() as u64;
            let back = groups_from_sample(distinct, sampled, rows) as f64;
            assert!((back / g - 1.0).abs() < 0.05, "{groups}: {back}");
        }
        assert_eq!(groups_from_sample(100, 100, 5000), 5000);
    }

    #[test]
    fn estimates_are_in_the_right_ballpark() {
        // 400,000 rows: sampled 4,096 of them.
        for groups in [100i64, 2_000, 50_000, 400_000] {
            let keys: Vec<i64> = (0..400_000).map(|i| hash(i % groups) as i64).collect();
            let estimate = estimate_groups(&keys);
            let ratio = estimate.groups as f64 / groups as f64;
            assert!((0.5..=2.0).contains(&ratio) || groups == 400_000, "{groups}: {estimate:?}");
            assert!(estimate.groups <= 400_000);
        }
    }
}
