//! The join's inputs and settings, shared by [`super`]'s entry points and every kernel: a build
//! row, the config the kernels are sized by, and the errors they return.

use crate::budget::CacheBudget;
use crate::scratch::OutOfScratch;

/// One build row: a key and its 8-byte payload.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BuildRow {
    pub key: i64,
    pub payload: u64,
}

/// The most partitions a join kernel scatters into: past 64 Ki, a partition's write-combining
/// buffers no longer fit the L2 of any current core.
pub const MAX_PARTITIONS: u32 = 1 << 16;

/// Knobs of the kernels: the caches their tables are sized by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JoinConfig {
    /// The caches: a partition's table fits half the per-core L2, and adaptive keeps one table
    /// while it fits the last-level cache this core really gets.
    pub budget: CacheBudget,
    /// A partition count to use instead of the one sized by the cache (a power of two from 1
    /// to [`MAX_PARTITIONS`]), for sweeps.
    pub partitions: Option<u32>,
}

impl JoinConfig {
    pub fn with_budget(budget: CacheBudget) -> Self {
        Self { budget, partitions: None }
    }
}

impl JoinConfig {
    pub fn validate(&self) -> Result<(), JoinError> {
        match self.partitions {
            Some(p) if !p.is_power_of_two() || p > MAX_PARTITIONS => Err(JoinError::Partitions(p)),
            _ => Ok(()),
        }
    }

    /// Partitions for a build side of `build_keys`: the fewest (a power of two) that bring each
    /// partition's table (16-byte slots, at most half full, so up to 64 bytes a key after
    /// rounding to a power of two) under half the per-core cache, leaving the other half to the
    /// probe keys streaming through and to the partition being built.
    pub fn partitions_for(&self, build_keys: u64) -> u32 {
        if let Some(p) = self.partitions {
            return p;
        }
        let per_partition = (self.budget.per_core_bytes.max(1 << 14) / 2 / 64).max(1);
        build_keys.div_ceil(per_partition).max(1).next_power_of_two().min(u64::from(MAX_PARTITIONS)) as u32
    }

    /// Build keys up to which adaptive keeps hashbrown: its table fits the per-core cache or the
    /// last-level cache's first quarter, at 32 bytes a key (a 16-byte entry in a table that
    /// doubles once 7/8 full), the figure GROUP BY's naive limit takes for a count.
    pub fn hashbrown_keys(&self) -> u64 {
        self.budget.per_core_bytes.max(self.budget.last_level_bytes / 4) / 32
    }

    /// Build keys up to which one flat table (32-64 bytes a key) fits the last-level cache.
    pub fn single_table_keys(&self) -> u64 {
        self.budget.last_level_bytes.max(self.budget.per_core_bytes) / 64
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    #[error("the build side has key {0} more than once: its keys must be distinct")]
    DuplicateBuildKey(i64),
    #[error("partitions must be a power of two from 1 to {MAX_PARTITIONS}, got {0}")]
    Partitions(u32),
    #[error("{0}")]
    Allocation(String),
}

impl From<OutOfScratch> for JoinError {
    fn from(error: OutOfScratch) -> Self {
        Self::Allocation(error.0)
    }
}
