//! Picking a kernel from a cheap look at the data.
//!
//! What decides between one table and partitioning is whether one table for all groups fits in
//! cache. The number of groups is estimated from a sample of rows: with `s`
//! rows drawn from `G` equally frequent groups, about `G (1 - e^(-s/G))` distinct keys show up;
//! solving that for `G` turns the sample's distinct count into an estimate. Skew makes the
//! estimate low, which is what caching sees too: a few hot keys behave like fewer groups.

use memwall_report::AdaptiveChoice;

use super::flat::{Slot, capacity_for, upsert};
use super::hash::hash;
use super::{GroupByConfig, GroupByError, Kernel, Memory, Outcome, prefetch, tuned};
use crate::exec::Executor;

/// An estimate of the number of groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub groups: u64,
    pub sampled_rows: u64,
    /// Distinct keys in the sample.
    pub sample_groups: u64,
}

/// Rows to sample: enough that 65,536 draws tell a few million groups from tens of millions
/// (by the repeats among them), few enough that the random reads (each a cache miss) cost well
/// under 1% of aggregating.
fn sample_size(rows: usize) -> usize {
    (rows / 1024).clamp(4096, 65_536).min(rows)
}

/// Estimates the groups of `keys` from a sample of rows.
pub fn estimate_groups(keys: &[i64]) -> Estimate {
    let rows = keys.len();
    let sampled = sample_size(rows);
    if sampled == 0 {
        return Estimate { groups: 0, sampled_rows: 0, sample_groups: 0 };
    }
    let mut slots: Vec<Slot> = vec![[0, 0]; capacity_for(sampled, 2)];
    let mut distinct = 0u64;
    // Random rows, not every n-th: a stride can alias with a period in the data (keys cycling
    // through a range, say) and see only a fraction of the groups.
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for i in 0..sampled {
        let key = if sampled == rows { keys[i] } else { keys[rng.usize(..rows)] };
        distinct += u64::from(upsert(&mut slots, key, hash(key), 1));
    }
    let groups = if sampled == rows { distinct } else { groups_from_sample(distinct, sampled as u64, rows as u64) };
    Estimate { groups, sampled_rows: sampled as u64, sample_groups: distinct }
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

/// What the adaptive kernel decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// One flat table (the prefetch kernel), sized for this many groups.
    SingleTable { groups_hint: u64 },
    /// The tuned kernel with this many partitions.
    Partitioned { partitions: u32 },
}

/// Bytes of a flat table for `groups` at the load the single-table kernel keeps.
fn table_bytes(groups: u64) -> u64 {
    capacity_for(usize::try_from(groups).unwrap_or(usize::MAX), 2) as u64 * 16
}

/// Chooses from an estimate: one table if a table for all groups fits in `cache_bytes`;
/// otherwise partitions enough that each partition's table does. Returns the plan and why.
pub fn plan(estimate: &Estimate, config: &GroupByConfig) -> (Plan, String) {
    let bytes = table_bytes(estimate.groups);
    let cache = config.cache_bytes.max(1 << 16);
    if bytes <= cache {
        let reason = format!(
            "~{} groups: one {} table fits in the {} cache",
            estimate.groups,
            crate::size::format_bytes(bytes),
            crate::size::format_bytes(cache)
        );
        return (Plan::SingleTable { groups_hint: estimate.groups }, reason);
    }
    let partitions = (bytes.div_ceil(cache).next_power_of_two())
        .clamp(u64::from(super::MIN_PARTITIONS), u64::from(super::DEFAULT_PARTITIONS)) as u32;
    let reason = format!(
        "~{} groups: one table would be {}, past the {} cache; {} partitions of ~{} each",
        estimate.groups,
        crate::size::format_bytes(bytes),
        crate::size::format_bytes(cache),
        partitions,
        crate::size::format_bytes(bytes / u64::from(partitions))
    );
    (Plan::Partitioned { partitions }, reason)
}

pub(super) fn aggregate(
    keys: &[i64],
    config: &GroupByConfig,
    exec: &dyn Executor,
    memory: &dyn Memory,
) -> Result<Outcome, GroupByError> {
    let estimate = estimate_groups(keys);
    let (plan, reason) = plan(&estimate, config);
    let (kernel, groups, partitions) = match plan {
        Plan::SingleTable { groups_hint } => (Kernel::Prefetch, prefetch::aggregate(keys, groups_hint, memory)?, None),
        Plan::Partitioned { partitions } => {
            (Kernel::Tuned, tuned::aggregate(keys, partitions, exec, memory)?, Some(partitions))
        }
    };
    Ok(Outcome {
        result: groups.finish(),
        choice: Some(AdaptiveChoice {
            kernel: kernel.name().into(),
            estimated_groups: estimate.groups,
            sampled_rows: estimate.sampled_rows,
            reason,
        }),
        partitions,
    })
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
        for (groups, sampled, rows) in [(1000u64, 4096u64, 1_000_000u64), (17_000_000, 65_536, 100_000_000), (50_000, 8192, 10_000_000)]
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

    #[test]
    fn plans_follow_the_cache() {
        let config = GroupByConfig { cache_bytes: 1 << 20, ..GroupByConfig::default() };
        let few = Estimate { groups: 10_000, sampled_rows: 4096, sample_groups: 3000 };
        assert!(matches!(plan(&few, &config).0, Plan::SingleTable { groups_hint: 10_000 }));
        let many = Estimate { groups: 17_000_000, sampled_rows: 65536, sample_groups: 65000 };
        let (chosen, reason) = plan(&many, &config);
        assert!(matches!(chosen, Plan::Partitioned { partitions } if partitions.is_power_of_two() && partitions > 16), "{chosen:?}");
        assert!(reason.contains("partitions"), "{reason}");
    }
}
