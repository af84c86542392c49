//! Picking a kernel from a cheap look at the data.
//!
//! What decides between one table and partitioning is whether one table for all groups fits in
//! cache; the groups are estimated from a sample of rows (`estimate.rs`).

use memwall_report::AdaptiveChoice;

use super::agg::State;
use super::config::{DEFAULT_PARTITIONS, GroupByConfig, GroupByError, Kernel};
use super::estimate::{Estimate, estimate_groups};
use super::flat::Slot;
use super::pay_back::{PAYBACK_ROWS, PayBack};
use super::phases::{Phase, Phases};
use super::result::{GroupResult, Outcome};
use super::work::chunks_for;
use super::{per_thread, prefetch, small, tuned};
use crate::clock::Clock;
use crate::exec::Executor;
use crate::scratch::Scratch;

/// Where the adaptive kernel switches strategy, in groups, for a given cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Up to here, the textbook `hashbrown` table: it fits in cache, and its SIMD probing never
    /// mispredicts a branch, so nothing else beats it there.
    pub naive_groups: u64,
    /// Up to here, one flat table with software prefetches: past the cache, but not so far that
    /// the misses cannot overlap; beyond it, partitioning wins.
    pub single_table_groups: u64,
}

/// Thresholds for the host's caches. hashbrown keeps at most 7/8 of its buckets full and
/// doubles them, so `g` groups of 16 bytes take up to 32g bytes: naive is kept while that fits
/// the per-core L2 (`cache_bytes`). The prefetching table's 16-byte slots are at most half full,
/// also 32 bytes a group: it is kept while it fits the last-level cache the core really gets
/// (`llc_bytes`), where prefetches hide the latency; past it, partitioning wins. Measured with
/// `memwall sweep cardinality --rows 16Mi --max-keys 16Mi --runs 2`: on a Zen 5 guest (1 MiB
/// L2, ~8 MiB of L3 really usable) naive led up to 32,768 groups and the prefetched table up to
/// 262,144; on a Zen 4 guest (a 1 MiB L2 that reads as 256 KiB, 4 MiB of L3) naive up to
/// 65,536 groups (2.2 MB of table, in L3), the table up to 131,072.
pub fn thresholds(config: &GroupByConfig) -> Thresholds {
    thresholds_sharing(config, 1)
}

/// [`thresholds`] for `tables` tables at once, one per thread: each has its core's cache to
/// itself and a share of what lies beyond it. Not a share of all of it: the last level as the
/// ladder reads it (one thread) includes that thread's own L2, and every other thread brings
/// its own. On the 2-vCPU Xeon guest (L2 2 MiB, DRAM from 4-8 MiB) a share of all gave each of
/// 2 tables 1-2 MiB, and adaptive partitioned 100,000 Zipf 1.1 keys over 100M rows: 4.76 ns/row
/// against ClickHouse's 3.36; with this share (and `prefetch::Bounded::stretch`) it kept a table
/// per thread, 2.83 against 3.47 (`bench/sweep.sh --keys 1e4,1e5 --skews zipf:1.1 --threads 2`).
pub(crate) fn thresholds_sharing(config: &GroupByConfig, tables: u64) -> Thresholds {
    let cache = config.budget.per_core_bytes.max(1 << 16);
    let llc = last_level_share(config, tables);
    // Both tables take twice a group's bytes (its key and state): 32 for a count, and as much
    // more as the aggregates' state takes, so a larger state gives up the single table sooner.
    let group = 2 * group_bytes(config);
    // hashbrown's probes of different rows are independent, so the core overlaps their misses:
    // on Zen 4 a table in the last-level cache's first eighth still beat the prefetched one. On
    // the Xeon guest (L3 at ~19 ns) it did not, so there the trial (small.rs) times the
    // prefetched table beside the small ones and keeps what this host runs faster.
    Thresholds { naive_groups: (cache / group).max(llc / (4 * group)), single_table_groups: llc / group }
}

/// The cache one of `tables` tables at once may fill: its core's own, and its share of the rest
/// of the last level.
fn last_level_share(config: &GroupByConfig, tables: u64) -> u64 {
    let cache = config.budget.per_core_bytes.max(1 << 16);
    cache + (config.budget.last_level_bytes.saturating_sub(cache)) / tables.max(1)
}

/// Bytes a group takes in a table: its key and the largest state its aggregates can need.
fn group_bytes(config: &GroupByConfig) -> u64 {
    8 + config.aggregates.state_bytes(super::agg::ValueType::I64)
}

/// Partitions for tuned so that each partition's table (16-byte slots, a quarter full) takes
/// at most half the cache, from 64 (a cheaper scatter) up to the default 4096. The estimate is
/// taken four times over: skew makes it low (the clickbench preset's 17.6 M groups sample as
/// ~3 M), and too few partitions (tables spilling out of cache) cost more than too many.
pub fn partitions_for(groups: u64, config: &GroupByConfig) -> u32 {
    let per_partition =
        (config.budget.per_core_bytes.max(1 << 16) / 2 / tuned::table_bytes_per_group(group_bytes(config) - 8)).max(1);
    groups.saturating_mul(4).div_ceil(per_partition).next_power_of_two().clamp(64, u64::from(DEFAULT_PARTITIONS)) as u32
}

/// Tries the cheap kernels first and gives each up as soon as the groups outgrow it, so a wrong
/// guess costs only the rows read before it showed (a few hundred thousand at most, against a
/// run over all rows). Skewed data cannot fool it: whatever the sample suggests, a single table
/// is kept only if every group really fit, or, for the prefetched table, if its own counts show
/// the rows keep to a hot set the cache holds (`prefetch::Bounded::stretch`). With a `clock`, the first try's table is the one a
/// trial on the first rows found faster (`small.rs`); without, hashbrown.
#[allow(clippy::too_many_arguments)]
pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    config: &GroupByConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
    clock: Option<&dyn Clock>,
) -> Result<Outcome, GroupByError> {
    let rows = keys.len() as u64;
    // One table per thread, merged, where the state merges exactly; else one table on one thread.
    let own_tables = per_thread::applies::<S>(keys.len(), exec);
    let (limits, threads) = if own_tables {
        (thresholds_sharing(config, exec.threads() as u64), chunks_for(keys.len(), exec))
    } else {
        (thresholds_per_thread(config, exec.threads()), 1)
    };
    let caches = config.budget.describe();
    let cache = config.budget.per_core_bytes;
    let on_threads = if threads > 1 { format!(", one on each of {threads} threads, merged") } else { String::new() };
    let naive_limit = usize::try_from(limits.naive_groups).unwrap_or(usize::MAX);
    let single_limit = usize::try_from(limits.single_table_groups).unwrap_or(usize::MAX);
    // The trial's parts merge with the rest, so it needs a state that merges exactly.
    let trial_clock = clock.filter(|_| S::MERGES_EXACTLY && small::slice_rows(keys.len(), threads) > 0);
    // The sample of rows, taken once: by the trial where its first rows foresee too many groups
    // for it, else after the first try.
    let sampled = core::cell::OnceCell::new();
    let estimate = || *sampled.get_or_init(|| phases.time(Phase::Sample, || estimate_groups(keys)));
    if let Some(clock) = trial_clock {
        let more = || estimate().groups > limits.naive_groups;
        let tried = || {
            small::aggregate_bounded::<S>(
                keys,
                values,
                naive_limit,
                single_limit,
                PayBack::of(config),
                cache,
                clock,
                exec,
                scratch,
                phases,
                &more,
            )
        };
        if let Some((groups, table, trial)) = phases.attempt(tried)? {
            let exact = groups.len();
            let (kernel, name) = match table {
                small::Table::Hashbrown => (Kernel::Naive, "one hashbrown table"),
                small::Table::Flat => (
                    Kernel::Prefetch,
                    "one flat table (as the prefetch kernel's, its keys apart from its states, no prefetches; handed to a prefetched table where it would outgrow the per-core cache)",
                ),
                small::Table::Prefetched => (Kernel::Prefetch, "one prefetched table (the prefetch kernel's)"),
            };
            let within = if table == small::Table::Prefetched {
                format!("within its limit of {} (one table in the last level's share)", limits.single_table_groups)
            } else {
                format!(
                    "within the first try's {} (what the per-core cache holds, or a quarter of the last level's share)",
                    limits.naive_groups
                )
            };
            let reason =
                format!("all {exact} groups fit {name}{on_threads}, {within}; {} (caches: {caches})", trial.describe());
            let result = groups.finish_with(config.aggregates, S::VALUE_TYPE);
            return Ok(single_table(result, choice(kernel, exact, rows, reason), threads));
        }
    } else {
        let naive = || {
            if own_tables {
                per_thread::aggregate_bounded::<S, _>(keys, values, Vec::new(), exec, scratch, phases, || {
                    Ok(super::naive::Bounded::<S>::new(naive_limit, scratch))
                })
            } else {
                super::naive::aggregate_bounded::<S>(keys, values, naive_limit, scratch, phases)
            }
        };
        if let Some(groups) = phases.attempt(naive)? {
            let exact = groups.len();
            let reason = format!(
                "all {exact} groups fit one hashbrown table in the per-core cache{on_threads} (caches: {caches})"
            );
            let result = groups.finish_with(config.aggregates, S::VALUE_TYPE);
            return Ok(single_table(result, choice(Kernel::Naive, exact, rows, reason), threads));
        }
    }
    let estimate = estimate();
    let stretched_limit = prefetch::stretched_limit(single_limit, size_of::<Slot<S>>());
    // Skew only ever makes the estimate low, so one above what the table may stretch to is safe
    // to believe, and saves setting up a table that would be given up anyway.
    let worth_trying = estimate.groups <= stretched_limit as u64;
    let pay_back = Some(PayBack::of(config));
    let attempt = || {
        if own_tables {
            let rows_per_thread = keys.len().div_ceil(threads);
            per_thread::aggregate_bounded::<S, _>(keys, values, Vec::new(), exec, scratch, phases, || {
                prefetch::Bounded::<S>::new(rows_per_thread, estimate.groups, single_limit, cache, scratch, pay_back)
            })
        } else {
            prefetch::aggregate_bounded::<S>(
                keys,
                values,
                estimate.groups,
                single_limit,
                pay_back,
                cache,
                scratch,
                phases,
            )
        }
    };
    if worth_trying && let Some(groups) = phases.attempt(attempt)? {
        let exact = groups.len();
        let reason = format!(
            "{exact} groups: more than fit the per-core cache, few enough for one prefetched table in the last-level cache{on_threads} ({} groups a table at most, or {stretched_limit}, four times the keys the cache holds lines for, where the hottest half of its keys took 3/4 of its rows, or as many as come where its rows keep to runs that rarely return to a key) (caches: {caches})",
            limits.single_table_groups,
        );
        let result = groups.finish_with(config.aggregates, S::VALUE_TYPE);
        return Ok(single_table(result, choice(Kernel::Prefetch, exact, rows, reason), threads));
    }
    // Too few partitions (tables spilling out of cache) cost more than too many, so the count
    // follows the estimate that skew cannot pull down.
    let partitions = partitions_for(estimate.groups.max(estimate.upper_groups.div_ceil(4)), config);
    let pays_back = if config.host.is_some() {
        "fewer where the cost model, from the ladder, prices the rows left through it, with the new groups its counts foresee, above every row through tuned".to_string()
    } else {
        format!(
            "fewer where its counts foresee new groups in more than one of every {PAYBACK_ROWS} of its rows, those left and those taken (no ladder: no model)"
        )
    };
    let reason = format!(
        "more groups than one table pays back ({} a table at most, {pays_back}; a sample of {} rows suggests ~{}, at most ~{}): partitioned, {partitions} partitions, each split further in cache if its groups outgrow half the last-level cache (caches: {caches})",
        limits.single_table_groups, estimate.sampled_rows, estimate.groups, estimate.upper_groups
    );
    let fit = split_in_cache(config, &estimate, rows);
    let groups = tuned::aggregate::<S>(keys, values, partitions, config, Some(fit), exec, scratch, phases)?;
    Ok(Outcome {
        result: groups.finish_with(config.aggregates, S::VALUE_TYPE),
        choice: Some(choice(Kernel::Tuned, estimate.groups, estimate.sampled_rows, reason)),
        partitions: Some(partitions),
        threads: exec.threads(),
    })
}

/// Where the threads cannot each keep a table (a float sum, whose parts do not merge exactly),
/// the single tables run on one thread while partitioning gets faster with more: their ranges
/// shrink accordingly.
fn thresholds_per_thread(config: &GroupByConfig, threads: usize) -> Thresholds {
    let full = thresholds(config);
    let threads = threads.max(1) as u64;
    Thresholds { naive_groups: full.naive_groups / threads, single_table_groups: full.single_table_groups / threads }
}

fn choice(kernel: Kernel, estimated_groups: u64, sampled_rows: u64, reason: String) -> AdaptiveChoice {
    AdaptiveChoice { kernel: kernel.name().into(), estimated_groups, sampled_rows, reason }
}

fn single_table(result: GroupResult, choice: AdaptiveChoice, threads: usize) -> Outcome {
    Outcome { result, choice: Some(choice), partitions: None, threads }
}

/// The estimate sets how far to scatter; each partition is then split further in cache if it
/// turns out to hold more groups than half the last-level cache takes, so a low estimate
/// (skew) costs an extra pass over cache rather than tables in DRAM. Not the L2: a table in
/// L3 costs less per row than the pass that would split it (measured: splitting to fit a
/// 256 KiB L2 made adaptive 50% slower than tuned at 8Mi groups).
fn split_in_cache(config: &GroupByConfig, estimate: &Estimate, rows: u64) -> tuned::Fit {
    let cache = config.budget.last_level_bytes.max(config.budget.per_core_bytes).max(1 << 16);
    tuned::Fit {
        groups_per_table: usize::try_from(cache / 2 / tuned::table_bytes_per_group(group_bytes(config) - 8))
            .unwrap_or(usize::MAX),
        groups_per_row: estimate.upper_groups as f64 / rows.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::CacheBudget;

    #[test]
    fn thresholds_and_partitions_follow_the_cache() {
        let config = GroupByConfig { budget: CacheBudget::sized(1 << 20, 8 << 20), ..GroupByConfig::default() };
        assert_eq!(thresholds(&config), Thresholds { naive_groups: 65_536, single_table_groups: 262_144 });
        // A guest that gets 3 MiB of its L3 (a Zen 3 guest measured before), and a big server's 96 MiB.
        let slice = GroupByConfig { budget: CacheBudget::sized(512 << 10, 3 << 20), ..config };
        assert_eq!(thresholds(&slice), Thresholds { naive_groups: 24_576, single_table_groups: 98_304 });
        let big = GroupByConfig { budget: CacheBudget { last_level_bytes: 96 << 20, ..config.budget }, ..config };
        assert_eq!(thresholds(&big).single_table_groups, 3 << 20);
        // Two tables: each keeps its core's 1 MiB and half of the other 7 MiB.
        assert_eq!(
            thresholds_sharing(&config, 2),
            Thresholds { naive_groups: 36_864, single_table_groups: ((1 << 20) + (7 << 19)) / 32 }
        );
        // No cache beyond L2: no room for the prefetched table.
        let flat = GroupByConfig { budget: CacheBudget { last_level_bytes: 0, ..config.budget }, ..config };
        assert_eq!(thresholds(&flat).single_table_groups, thresholds(&flat).naive_groups);
        assert_eq!(partitions_for(17_630_976, &config), 4096);
        assert_eq!(partitions_for(1_000_000, &config), 512);
        assert_eq!(partitions_for(3_222_051, &config), 2048);
        assert_eq!(partitions_for(10, &config), 64);
        let small = GroupByConfig { budget: CacheBudget::sized(256 << 10, 2 << 20), ..config };
        assert!(thresholds(&small).naive_groups < thresholds(&config).naive_groups);
        // A group of sum, min, max and count takes 48 bytes with its key, three times a count's
        // 16: a third as many groups fit, and partitions are three times as many (rounded up).
        let full =
            GroupByConfig { aggregates: super::super::agg::Aggregates::parse("count,sum,min,max").unwrap(), ..config };
        assert_eq!(thresholds(&full), Thresholds { naive_groups: 65_536 / 3, single_table_groups: 262_144 / 3 });
        assert_eq!(partitions_for(1_000_000, &full), 2048);
    }
}

#[cfg(test)]
mod heavy_tail;
