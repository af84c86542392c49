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
//!   outgrow them.
//!
//! All return the same [`GroupResult`], which must equal [`reference`] exactly.

use memwall_report::AdaptiveChoice;

use crate::arch::Line;
use crate::exec::{self, Executor};

mod adaptive;
pub mod datagen;
mod flat;
mod hash;
mod naive;
mod prefetch;
pub mod race;
mod radix;
mod result;
pub mod sweep;
mod tuned;

// Property tests need proptest and threads, which wasm32 lacks; tests/wasm_groupby.rs covers wasm.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use adaptive::{Estimate, Thresholds, estimate_groups, partitions_for, thresholds};
pub use hash::partition_of;
pub use result::{GroupResult, TOP, reference};

/// The partition count radix and tuned use unless told otherwise (the published radix's 4096).
pub const DEFAULT_PARTITIONS: u32 = 4096;
pub const MIN_PARTITIONS: u32 = 2;
pub const MAX_PARTITIONS: u32 = 65536;

/// A way to compute the GROUP BY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    Naive,
    Radix,
    Tuned,
    Prefetch,
    Adaptive,
}

impl Kernel {
    pub const ALL: [Kernel; 5] = [Kernel::Naive, Kernel::Radix, Kernel::Tuned, Kernel::Prefetch, Kernel::Adaptive];

    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Radix => "radix",
            Self::Tuned => "tuned",
            Self::Prefetch => "prefetch",
            Self::Adaptive => "adaptive",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name().eq_ignore_ascii_case(name.trim()))
    }

    /// One line on what the kernel does, for help texts and the web page.
    pub fn description(self) -> &'static str {
        match self {
            Self::Naive => "one hashbrown HashMap (ahash): the textbook, a cache miss per row",
            Self::Radix => "scatter (hash, key) into partitions by hash, one small hashbrown table each",
            Self::Tuned => {
                "write-combined, non-temporal partitioning into pages, a flat cache-sized table per partition"
            }
            Self::Prefetch => "one flat table, software prefetch rows ahead to overlap DRAM misses",
            Self::Adaptive => {
                "tries naive, then one prefetched table, giving each up once the groups outgrow it; then tuned"
            }
        }
    }

    /// Whether the kernel may split its work over the executor's threads (adaptive does when it
    /// picks tuned; [`Outcome::threads`] says what a run did).
    pub fn uses_threads(self) -> bool {
        matches!(self, Self::Radix | Self::Tuned | Self::Adaptive)
    }

    /// Whether the kernel's work depends on [`GroupByConfig::partitions`].
    pub fn uses_partitions(self) -> bool {
        matches!(self, Self::Radix | Self::Tuned)
    }
}

/// Knobs of the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupByConfig {
    /// Partitions for radix and tuned: a power of two from [`MIN_PARTITIONS`] to
    /// [`MAX_PARTITIONS`].
    pub partitions: u32,
    /// The cache a hash table should fit in to be fast (adaptive's thresholds scale with it):
    /// the per-core L2 natively; a guess in a browser.
    pub cache_bytes: u64,
}

impl Default for GroupByConfig {
    fn default() -> Self {
        Self { partitions: DEFAULT_PARTITIONS, cache_bytes: 1 << 20 }
    }
}

impl GroupByConfig {
    pub fn validate(&self) -> Result<(), GroupByError> {
        check_partitions(self.partitions)
    }
}

/// Accepts a partition count the kernels can use: a power of two in range.
pub fn check_partitions(partitions: u32) -> Result<(), GroupByError> {
    if partitions.is_power_of_two() && (MIN_PARTITIONS..=MAX_PARTITIONS).contains(&partitions) {
        Ok(())
    } else {
        Err(GroupByError::Partitions(partitions))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupByError {
    #[error("partitions must be a power of two from {MIN_PARTITIONS} to {MAX_PARTITIONS}, got {0}")]
    Partitions(u32),
    #[error("{0}")]
    Allocation(String),
}

/// What a run produced, and for the adaptive kernel what it decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: GroupResult,
    /// Adaptive only: the kernel it ran and why.
    pub choice: Option<AdaptiveChoice>,
    /// The partition count the run used, if it partitioned.
    pub partitions: Option<u32>,
    /// Threads the run spread its work over (1 for the kernels that never split it).
    pub threads: usize,
}

/// Large scratch memory, obtained the way the front end wants it: a plain heap allocation in a
/// browser, huge-page backed mappings natively (where a 800 MB partition buffer in 4 KiB pages
/// would spend its time in TLB misses).
pub trait Memory {
    /// At least `lines` cache lines. Their contents are unspecified (a front end may hand back
    /// memory it used before); kernels that need zeros write them.
    fn lines(&self, lines: usize) -> Result<Box<dyn LineBuffer + '_>, String>;
}

pub trait LineBuffer {
    fn lines(&mut self) -> &mut [Line];
}

/// Fresh heap memory for every request.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeapMemory;

impl Memory for HeapMemory {
    fn lines(&self, lines: usize) -> Result<Box<dyn LineBuffer + '_>, String> {
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(lines)
            .map_err(|_| format!("could not allocate {}", crate::size::format_bytes(lines as u64 * 64)))?;
        buffer.resize(lines, Line::ZERO);
        Ok(Box::new(buffer))
    }
}

impl LineBuffer for Vec<Line> {
    fn lines(&mut self) -> &mut [Line] {
        self
    }
}

/// Runs `kernel` over `keys` with heap scratch memory.
pub fn run(kernel: Kernel, keys: &[i64], config: &GroupByConfig, exec: &dyn Executor) -> Result<Outcome, GroupByError> {
    run_in(kernel, keys, config, exec, &HeapMemory)
}

/// Runs `kernel` over `keys`, taking large scratch buffers from `memory`.
pub fn run_in(
    kernel: Kernel,
    keys: &[i64],
    config: &GroupByConfig,
    exec: &dyn Executor,
    memory: &dyn Memory,
) -> Result<Outcome, GroupByError> {
    config.validate()?;
    let single =
        |groups: result::Groups| Outcome { result: groups.finish(), choice: None, partitions: None, threads: 1 };
    let partitioned = |groups: result::Groups| Outcome {
        result: groups.finish(),
        choice: None,
        partitions: Some(config.partitions),
        threads: exec.threads(),
    };
    Ok(match kernel {
        Kernel::Naive => single(naive::aggregate(keys)),
        Kernel::Radix => partitioned(radix::aggregate(keys, config.partitions, exec)),
        Kernel::Tuned => partitioned(tuned::aggregate(keys, config.partitions, exec, memory)?),
        Kernel::Prefetch => single(prefetch::aggregate(keys, estimate_groups(keys).groups, memory)?),
        Kernel::Adaptive => adaptive::aggregate(keys, config, exec, memory)?,
    })
}

/// Bytes of scratch memory a kernel needs beyond the keys, roughly, for refusing plans that
/// cannot fit before anything is allocated. `groups` may be an upper bound.
pub fn scratch_bytes(kernel: Kernel, rows: u64, groups: u64, config: &GroupByConfig, threads: usize) -> u64 {
    let groups = groups.min(rows);
    let threads = threads.max(1) as u64;
    let partitions = u64::from(config.partitions);
    match kernel {
        // hashbrown: 16-byte entries plus a control byte, at most 7/8 full, power-of-two
        // buckets; growing holds the old table (half) and the new one at once.
        Kernel::Naive => (groups * 8 / 7).next_power_of_two() * 17 * 3 / 2,
        // (hash, key) per row in `Vec`s grown by doubling: up to twice that, plus the tables.
        Kernel::Radix => rows * 16 * 2 + groups * 40,
        // One key per row plus per-thread padding and buffers (see tuned.rs), tables in cache.
        Kernel::Tuned => rows * 8 + threads * partitions * 128 + (64 << 20),
        // The table at most half full, and the old one while growing.
        Kernel::Prefetch => (groups * 2).next_power_of_two() * 16 * 3 / 2,
        Kernel::Adaptive => [Kernel::Tuned, Kernel::Prefetch]
            .into_iter()
            .map(|k| scratch_bytes(k, rows, groups, config, threads as usize))
            .max()
            .unwrap_or(0),
    }
}

/// Splits partitions into `tasks` contiguous ranges holding about equal rows, aggregates each
/// range as one task with `aggregate`, and merges: partitions hold disjoint keys, so merging is
/// adding counts of groups and checksums and picking the top of the tops, never a table merge.
pub(crate) fn aggregate_partitions(
    exec: &dyn Executor,
    rows_per_partition: &[usize],
    aggregate: impl Fn(core::ops::Range<usize>) -> result::Groups + Sync,
) -> result::Groups {
    // Several tasks per thread even out partitions that turned out heavier (skew).
    let tasks = if exec.threads() > 1 { exec.threads() * 4 } else { 1 };
    let total: usize = rows_per_partition.iter().sum();
    let mut ranges = Vec::with_capacity(tasks);
    let (mut start, mut seen) = (0, 0usize);
    for (p, &rows) in rows_per_partition.iter().enumerate() {
        seen += rows;
        let last = p + 1 == rows_per_partition.len();
        if last || seen as u128 * tasks as u128 >= total as u128 * (ranges.len() as u128 + 1) {
            ranges.push(start..p + 1);
            start = p + 1;
        }
    }
    result::Groups::merge_all(exec::map(exec, ranges, |_, range| aggregate(range)))
}

/// How many chunks the scatter phase cuts the input into: one per thread, unless the input is so
/// small that starting threads costs more than it saves.
pub(crate) fn chunks_for(rows: usize, exec: &dyn Executor) -> usize {
    if rows < 1 << 16 { 1 } else { exec.threads().max(1) }
}
