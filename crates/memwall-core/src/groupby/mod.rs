//! The GROUP BY race: `SELECT key, count(*) FROM t GROUP BY key` by kernels that meet the memory
//! wall head on, or go around it.
//!
//! * [`Kernel::Naive`]: one `hashbrown::HashMap` with ahash, the textbook. With millions of
//!   groups the table is far larger than any cache, so almost every row waits for DRAM.
//! * [`Kernel::Radix`]: hash once, scatter `(hash, key)` into partitions by the hash's top bits,
//!   then aggregate each partition in its own small `hashbrown::HashTable`: more work, but the
//!   random accesses now hit cache.
//! * [`Kernel::Tuned`]: radix partitioning done carefully (see `tuned.rs`).
//! * [`Kernel::Prefetch`]: the other way around the wall, as a control: one big flat table, with
//!   software prefetches issued rows ahead so that many DRAM misses overlap.
//! * [`Kernel::Adaptive`]: tries the cheap kernels first and moves on as soon as the groups
//!   outgrow them; which small table it tries first is timed on the host (`small.rs`).
//!
//! All return the same [`GroupResult`], which must equal [`reference`] exactly.

use crate::clock::Clock;
use crate::exec::Executor;
use crate::scratch::{HeapChunks, MemoryPolicy, Scratch, rounded};

pub(crate) mod adaptive;
pub mod agg;
mod arrivals;
mod config;
pub(crate) mod estimate;
mod flat;
mod hash;
mod naive;
mod pay_back;
mod per_thread;
pub mod phases;
pub(crate) mod prefetch;
pub mod race;
mod radix;
mod result;
mod small;
mod split;
pub mod summary;
pub mod sweep;
pub(crate) mod tuned;
pub mod values;
mod work;

// Property tests need proptest and threads, which wasm32 lacks; tests/wasm_groupby.rs covers wasm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use adaptive::{Thresholds, partitions_for, thresholds};
pub use agg::{Aggregates, ValueColumn, ValueType, Values};
pub use config::{
    DEFAULT_PARTITIONS, GroupByConfig, GroupByError, Kernel, MAX_PARTITIONS, MIN_PARTITIONS, check_partitions,
};
pub use estimate::{Estimate, estimate_groups};
pub use hash::partition_of;
pub use phases::{Phase, PhaseClock, Phases};
pub use result::{GroupResult, Outcome, TOP, Total, Totals, reference, reference_query};
pub use tuned::{TABLE_BYTES_PER_GROUP, WC_BYTES_PER_PARTITION, table_bytes_per_group};

/// Runs `kernel` over `keys` with scratch memory from the heap, fresh for this run.
pub fn run(kernel: Kernel, keys: &[i64], config: &GroupByConfig, exec: &dyn Executor) -> Result<Outcome, GroupByError> {
    let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
    scratch.begin_run();
    run_in(kernel, keys, config, exec, &scratch)
}

/// Runs `kernel` over `keys`, taking every piece of scratch memory from `scratch`.
pub fn run_in(
    kernel: Kernel,
    keys: &[i64],
    config: &GroupByConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
) -> Result<Outcome, GroupByError> {
    run_timed_in(kernel, Rows::keys(keys), config, exec, scratch, Phases::OFF, None)
}

/// The rows of a query: keys, and the value column if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rows<'a> {
    pub keys: &'a [i64],
    pub values: Values<'a>,
}

impl<'a> Rows<'a> {
    pub fn keys(keys: &'a [i64]) -> Self {
        Self { keys, values: Values::None }
    }

    /// Whether these rows can answer `aggregates`: a value column of as many rows when any
    /// aggregate needs one.
    pub fn check(&self, aggregates: Aggregates) -> Result<(), GroupByError> {
        match self.values.rows() {
            None if aggregates.needs_values() => Err(GroupByError::Values(format!(
                "the aggregates {} need a value column, and there is none",
                aggregates.describe()
            ))),
            Some(n) if n != self.keys.len() => {
                Err(GroupByError::Values(format!("the value column has {n} rows, the keys {}", self.keys.len())))
            }
            _ => Ok(()),
        }
    }
}

impl<'a> From<&'a [i64]> for Rows<'a> {
    fn from(keys: &'a [i64]) -> Self {
        Self::keys(keys)
    }
}

impl<'a> From<&'a Vec<i64>> for Rows<'a> {
    fn from(keys: &'a Vec<i64>) -> Self {
        Self::keys(keys)
    }
}

/// The reference result of a query (see [`reference_query`]).
pub fn reference_rows(rows: Rows<'_>, aggregates: Aggregates) -> GroupResult {
    reference_query(rows.keys, rows.values, aggregates)
}

/// [`run_in`] over keys and values, timing the kernel's phases with `phases`. With a `clock`,
/// adaptive times its two small tables on the first rows and keeps the faster (`small.rs`);
/// without one it tries hashbrown first.
pub fn run_timed_in(
    kernel: Kernel,
    rows: Rows<'_>,
    config: &GroupByConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
    clock: Option<&dyn Clock>,
) -> Result<Outcome, GroupByError> {
    config.validate()?;
    let aggregates = config.aggregates;
    rows.check(aggregates)?;
    use agg::{Count, Full, MinMax, StateKind, Sum};
    let keys = rows.keys;
    // avg's total costs a conversion, a division and an exact float sum per group: only when asked.
    let avg = aggregates.contains(Aggregates::AVG);
    match (aggregates.kind(), rows.values) {
        (StateKind::Count, _) => {
            run_state::<Count>(kernel, keys, &vec![(); keys.len()], config, exec, scratch, phases, clock)
        }
        (StateKind::Sum, Values::I64(v)) if avg => {
            run_state::<Sum<i64, true>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Sum, Values::F64(v)) if avg => {
            run_state::<Sum<f64, true>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Sum, Values::I64(v)) => {
            run_state::<Sum<i64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Sum, Values::F64(v)) => {
            run_state::<Sum<f64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::MinMax, Values::I64(v)) => {
            run_state::<MinMax<i64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::MinMax, Values::F64(v)) => {
            run_state::<MinMax<f64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Full, Values::I64(v)) if avg => {
            run_state::<Full<i64, true>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Full, Values::F64(v)) if avg => {
            run_state::<Full<f64, true>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Full, Values::I64(v)) => {
            run_state::<Full<i64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (StateKind::Full, Values::F64(v)) => {
            run_state::<Full<f64>>(kernel, keys, v, config, exec, scratch, phases, clock)
        }
        (_, Values::None) => unreachable!("checked above"),
    }
}

/// One kernel, monomorphized for one aggregate state.
#[allow(clippy::too_many_arguments)]
fn run_state<S: agg::State>(
    kernel: Kernel,
    keys: &[i64],
    values: &[S::Value],
    config: &GroupByConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
    clock: Option<&dyn Clock>,
) -> Result<Outcome, GroupByError> {
    let finish = |groups: result::Groups| groups.finish_with(config.aggregates, S::VALUE_TYPE);
    let single =
        |groups: result::Groups| Outcome { result: finish(groups), choice: None, partitions: None, threads: 1 };
    let partitioned = |groups: result::Groups| Outcome {
        result: finish(groups),
        choice: None,
        partitions: Some(config.partitions),
        threads: exec.threads(),
    };
    Ok(match kernel {
        Kernel::Naive => single(naive::aggregate::<S>(keys, values, scratch, phases)?),
        Kernel::Radix => partitioned(radix::aggregate::<S>(keys, values, config.partitions, exec, scratch, phases)?),
        Kernel::Tuned => {
            partitioned(tuned::aggregate::<S>(keys, values, config.partitions, config, None, exec, scratch, phases)?)
        }
        Kernel::Prefetch => {
            let hint = phases.time(Phase::Sample, || estimate_groups(keys).groups);
            single(prefetch::aggregate::<S>(keys, values, hint, config.budget.per_core_bytes, scratch, phases)?)
        }
        Kernel::Adaptive => adaptive::aggregate::<S>(keys, values, config, exec, scratch, phases, clock)?,
    })
}

/// An upper bound of the scratch memory a run of `kernel` takes from its [`Scratch`] (blocks as
/// handed out, so an upper bound of what it touches beyond the keys), for refusing plans that
/// cannot fit before anything is allocated. `groups` must bound the distinct keys (and the
/// kernels' estimate of them: an estimate is within a factor of two of the truth).
pub fn scratch_bytes(kernel: Kernel, rows: u64, groups: u64, config: &GroupByConfig, threads: usize) -> u64 {
    let groups = groups.min(rows);
    let threads = threads.max(1) as u64;
    let chunks = if rows < 1 << 16 { 1 } else { threads };
    // A group's key and state (16 bytes for a count), a row's key and value (8 or 16 bytes).
    let group_bytes = 8 + config.aggregates.state_bytes(ValueType::I64);
    let row_bytes = config.aggregates.row_bytes();
    match kernel {
        Kernel::Naive => hashbrown_chain_bytes(groups + naive::BLOCK_ROWS as u64, group_bytes),
        Kernel::Radix => {
            let partitions = u64::from(config.partitions);
            // Per chunk, its partitions' vectors (32 bytes each) and their rows: each vector
            // at most twice its rows (at least 4), and, while one grows, its old buffer.
            let vectors =
                chunks * rounded(partitions * 32) + rounded((2 * rows + 4 * partitions * chunks) * (8 + row_bytes));
            let growing = rounded(2 * rows * (8 + row_bytes));
            // Per thread, one table at a time (tables of equal size reuse each other's blocks),
            // for at most all groups in one partition: hashes spread groups evenly, so the
            // largest partition holds far fewer than twice its share.
            let most_groups = groups.min(2 * groups / partitions + 1024);
            let tables = threads * hashbrown_chain_bytes(most_groups + radix::BLOCK_ROWS as u64, 8 + group_bytes);
            vectors + growing + tables
        }
        Kernel::Tuned => tuned::scratch_bytes(rows, groups, config.partitions, config, threads),
        Kernel::Prefetch => prefetch_chain_bytes(2 * groups, groups, group_bytes),
        Kernel::Adaptive => {
            // With a table per thread (per_thread.rs) each chunk's is at most the one-thread
            // size (its limits only shrink with threads), plus the parts and the merged table.
            // The small tables: with a trial (small.rs) a hashbrown, a flat and a prefetched
            // table besides the chunks' tables, all merged; the prefetched one may go on past
            // the limit on skewed keys.
            let limits = thresholds(config);
            let most = limits.naive_groups.min(groups);
            let naive_limit = usize::try_from(limits.naive_groups).unwrap_or(usize::MAX);
            let most_prefetched = (prefetch::stretched_limit(naive_limit, group_bytes as usize) as u64).min(groups);
            let small_table = hashbrown_chain_bytes(most + 2 * naive::BLOCK_ROWS as u64, group_bytes)
                .max(split::chain_bytes(most, group_bytes))
                .max(prefetch_chain_bytes(0, most_prefetched + 1, group_bytes));
            let naive = (chunks + 2) * small_table + per_thread::merge_bytes(most_prefetched, chunks + 3, group_bytes);
            // A prefetched table may go on past its limit on skewed keys (its slot is a group's bytes).
            let limit = usize::try_from(limits.single_table_groups).unwrap_or(usize::MAX);
            let single = (prefetch::stretched_limit(limit, group_bytes as usize) as u64).min(groups);
            let prefetch = chunks * prefetch_chain_bytes(single, single + 1, group_bytes)
                + if chunks > 1 { per_thread::merge_bytes(single, chunks, group_bytes) } else { 0 };
            let tuned = [64, DEFAULT_PARTITIONS]
                .into_iter()
                .map(|p| {
                    tuned::scratch_bytes(rows, groups, p, config, threads)
                        + tuned::fit_scratch_bytes(rows, p, threads, row_bytes)
                })
                .max()
                .unwrap_or(0);
            // Each attempt it gives up keeps its blocks until the run ends.
            naive + prefetch + tuned
        }
    }
}

/// Bytes the reference check takes beside the input, for refusing plans before anything is
/// allocated: a sorted copy of the keys, or with a value column each key beside its row number.
pub fn reference_bytes(rows: u64, aggregates: Aggregates) -> u64 {
    let per_row = if aggregates.needs_values() { size_of::<(i64, usize)>() } else { size_of::<i64>() };
    rows.saturating_mul(per_row as u64)
}

/// Bytes the input takes: the keys, and the value column when the aggregates read one.
pub fn input_bytes(rows: u64, aggregates: Aggregates) -> u64 {
    rows.saturating_mul(aggregates.row_bytes())
}

/// A hashbrown table grown by doubling to hold `items` of `entry` bytes, with every smaller
/// table on the way (freed, but not reusable by a larger one): twice the last.
fn hashbrown_chain_bytes(items: u64, entry: u64) -> u64 {
    let buckets = (items.saturating_mul(8) / 7 + 1).max(8).checked_next_power_of_two().unwrap_or(u64::MAX / 64);
    rounded(2 * buckets.saturating_mul(entry + 1) + 64)
}

/// The prefetching table from a hint of `hint` groups, grown by doubling to `groups`, with
/// every smaller table on the way.
fn prefetch_chain_bytes(hint: u64, groups: u64, slot_bytes: u64) -> u64 {
    let start = prefetch::initial_capacity(usize::try_from(hint).unwrap_or(usize::MAX)) as u64;
    let mut last = start;
    while (prefetch::groups_before_growing(last as usize) as u64) < groups {
        last *= 2;
    }
    rounded(2 * last * slot_bytes)
}
