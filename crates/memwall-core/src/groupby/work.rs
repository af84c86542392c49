//! How the kernels spread their work over the executor's threads.

use super::config::GroupByError;
use super::phases::{Phase, Phases};
use super::result::Groups;
use crate::exec::{self, Executor};

/// Splits partitions into `tasks` contiguous ranges holding about equal rows, aggregates each
/// range as one task with `aggregate`, and merges: partitions hold disjoint keys, so merging is
/// adding counts of groups and checksums and picking the top of the tops, never a table merge.
pub(crate) fn aggregate_partitions(
    exec: &dyn Executor,
    rows_per_partition: &[usize],
    phases: Phases<'_>,
    aggregate: impl Fn(core::ops::Range<usize>) -> Result<Groups, GroupByError> + Sync,
) -> Result<Groups, GroupByError> {
    let tasks = if exec.threads() > 1 { exec.threads() * exec::TASKS_PER_THREAD } else { 1 };
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
    let parts = exec::map(exec, ranges, |_, range| aggregate(range));
    let parts = parts.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(phases.time(Phase::Merge, || Groups::merge_all(parts)))
}

/// How many chunks the scatter phase cuts the input into: one per thread, unless the input is so
/// small that starting threads costs more than it saves.
pub(crate) fn chunks_for(rows: usize, exec: &dyn Executor) -> usize {
    if rows < 1 << 16 { 1 } else { exec.threads().max(1) }
}
