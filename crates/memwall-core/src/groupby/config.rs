//! What a run is asked to do (the kernel, and the knobs the kernels share), and why it can fail.

use super::agg::Aggregates;
use crate::budget::CacheBudget;
use crate::cost::machine::Host;
use crate::scratch::Scratch;

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
                "one small table a thread (hashbrown or flat: a trial on the first rows picks), then one prefetched table, each given up once the groups outgrow it; then tuned"
            }
        }
    }

    /// Whether the kernel may split its work over the executor's threads (adaptive does when it
    /// picks tuned; [`Outcome::threads`](super::Outcome::threads) says what a run did).
    pub fn uses_threads(self) -> bool {
        matches!(self, Self::Radix | Self::Tuned | Self::Adaptive)
    }

    /// Whether the kernel's work depends on [`GroupByConfig::partitions`].
    pub fn uses_partitions(self) -> bool {
        matches!(self, Self::Radix | Self::Tuned)
    }
}

/// Knobs of the kernels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupByConfig {
    /// Partitions for radix and tuned: a power of two from [`MIN_PARTITIONS`] to
    /// [`MAX_PARTITIONS`].
    pub partitions: u32,
    /// The caches tuned's tables and adaptive's thresholds are sized by: as the ladder read them
    /// where it ran, else as declared; a guess in a browser that has not run its ladder.
    pub budget: CacheBudget,
    /// What to compute per group (see `agg.rs`); anything past `count` needs a value column.
    pub aggregates: Aggregates,
    /// The host's figures as its ladder measured them, where one did: adaptive prices with the
    /// cost model while it runs (`cost::payback`). `None`: no ladder (a guessed or declared
    /// budget), and adaptive goes by its rules alone.
    pub host: Option<Host>,
}

impl Default for GroupByConfig {
    fn default() -> Self {
        Self { partitions: DEFAULT_PARTITIONS, budget: CacheBudget::GUESS, aggregates: Aggregates::COUNT, host: None }
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
    #[error("{0}")]
    Values(String),
}

impl From<crate::scratch::OutOfScratch> for GroupByError {
    fn from(error: crate::scratch::OutOfScratch) -> Self {
        Self::Allocation(error.0)
    }
}

/// The error of a hash table that could not grow past `groups` groups.
pub(super) fn allocation_error(scratch: &Scratch<'_>, groups: usize) -> GroupByError {
    let why = scratch.last_error().unwrap_or_else(|| "the table's size overflows".into());
    GroupByError::Allocation(format!("growing a hash table past {groups} groups: {why}"))
}
