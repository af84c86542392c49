//! Pre-aggregating while scattering: the rows go through the scatter in rounds, and after each
//! round every partition's rows are counted into that partition's own table, kept across
//! rounds. Scratch is then bounded by one round, not by the rows: on 100 M rows of one key the
//! whole scatter took 845 MiB beside the 763 MiB of keys
//! (`docs/results/shapes-epyc-2vcpu-kvm.md`).
//!
//! The sizes come from the host's caches (the budget, see `budget.rs`) and the round's own
//! costs:
//! - the kept tables together may take the per-core cache: while they fit it, counting a
//!   round's rows into them costs what counting a partition's rows after a scatter costs (a
//!   table in the core's own cache);
//! - the first round is one in which every row could be a new group and the tables still fit
//!   the per-core cache (`per-core bytes / table bytes per group` rows); each later round is
//!   sized from the new groups a row the last one found, so that at that rate the tables fill
//!   the room left;
//! - a round pays a fixed cost for every partition it hands rows to, whatever their number:
//!   the partition's last, partly filled write-combining buffer and page, and the first touch
//!   of its table and pages: ~230 ns on the 2-vCPU Xeon guest, against ~6 ns a row (rounds of
//!   the per-core cache's rows, 64 a partition, took 50M rows of 10,000 keys from 6.0 ns/row
//!   without rounds to 9.6-9.7: 3.7 ns/row over 191 rounds of 4,096 partitions;
//!   `docs/results/rss-xeon-2vcpu-kvm/round-size/`). A round therefore scatters at least
//!   `ROWS_PER_PARTITION` rows a partition (`fanout * ROWS_PER_PARTITION` rows), so that this
//!   cost stays a few percent of the rows' (the same input: 5.9-6.3 ns/row, the same folder);
//! - above that, a round scatters at most what the last-level cache holds, and at most
//!   `rows / ROUND_SHARE` rows (an eighth of the input): the scatter streams past the caches
//!   anyway, so the last-level cache is no floor, and rounds sized by a large declared cache
//!   alone (480 MiB on the Xeon guest, 240 MiB a thread) took 620 MiB of regions on 100 M rows
//!   and two threads, and 1.31 GB of peak RSS (`docs/results/rss-xeon-2vcpu-kvm.md`). A
//!   round's region is then at most about a fifth of the input (pages are half a partition's
//!   rows: a page a partition more), whatever the host declares. The largest round's region is
//!   only taken once a round needs it: with many groups the rounds stop after the first
//!   (clickbench's 17.6 M), and taking it anyway cost 165 MiB more there, and 6% of the time.
//!
//! The kept tables are small (16 slots each with 4,096 partitions and a 2 MiB cache), so a
//! table often has room for only a few more groups: it is then counted a row at a time with a
//! check of its load (`GroupTable::count`), not in blocks of a few rows (with those, 50M rows
//! of 10,000 keys took 6.3-6.6 ns/row against 5.8-6.0 without rounds, and 5.8-6.1 with the
//! check: `docs/results/rss-xeon-2vcpu-kvm.md`). With rounds of 1,024 rows a partition, few
//! groups cost no more than a single scatter; many groups stop the rounds after the first,
//! whose fixed cost is one partition visit each: the rounds need no clock to stop early.
//!
//! Once the tables outgrow the per-core cache (many groups), counting into them would cost a
//! cache miss a row more than the aggregation after a scatter: the rest of the rows are
//! scattered at once, as before, and each partition's kept groups go into its table first
//! (`Aggregator::aggregate`'s `carried`), so the first rounds are never counted twice. Groups
//! are counted in row order either way, so any state (a float sum too) ends exactly as a single
//! pass would leave it.

use super::layout::{LOAD_INVERSE, MIN_TABLE_SLOTS, WC_LINES, page_words, region_lines};
use super::partition::GroupTable;
use super::scatter::scatter;
use crate::arch::Line;
use crate::exec::{self, Executor, split_even};
use crate::groupby::agg::State;
use crate::groupby::config::{GroupByConfig, GroupByError};
use crate::groupby::flat::Slot;
use crate::groupby::phases::{Phase, Phases};
use crate::groupby::work::chunks_for;
use crate::scratch::{Scratch, rounded, rounded_each};

/// One partition's table kept across rounds (`None`: the partition had no rows yet).
pub(super) type Kept<'a, 's, S> = Option<GroupTable<'a, 's, S>>;

/// Rows a round hands each partition at least, so that its fixed cost a partition (~40 rows'
/// worth) stays a few percent (see the module docs).
pub(super) const ROWS_PER_PARTITION: usize = 1024;

/// A round scatters at most this fraction of the input's rows (see the module docs).
pub(super) const ROUND_SHARE: usize = 8;

/// How rounds are sized on one host, from its caches, for one input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rounds {
    /// Bytes the kept tables may take together: the per-core cache.
    pub tables_bytes: usize,
    /// The first round's rows: every one of them a new group, the tables still fit.
    pub first_rows: usize,
    /// The most rows a round scatters: as many as fill the last-level cache, at most an eighth
    /// of the input, at least enough to pay each partition's fixed cost.
    pub most_rows: usize,
    /// Slots a partition's table starts with: all partitions' first tables fill half the
    /// tables' bytes at most, so that each can double once before they outgrow them (and a
    /// table holds at least a few groups, at most the smallest table of the scatter at once).
    pub first_slots: usize,
}

impl Rounds {
    pub(super) fn new(config: &GroupByConfig, rows: usize, row_words: usize, slot_bytes: usize, fanout: usize) -> Self {
        let bytes = |b: u64| usize::try_from(b).unwrap_or(usize::MAX).max(1);
        let tables_bytes = bytes(config.budget.per_core_bytes);
        let last_level = bytes(config.budget.last_level_bytes).max(tables_bytes);
        let first_rows = (tables_bytes / Self::group_bytes(slot_bytes)).max(1);
        let slot_and_listing = slot_bytes + size_of::<u32>() / LOAD_INVERSE;
        let first_slots = (tables_bytes / 2 / slot_and_listing / fanout).clamp(16, MIN_TABLE_SLOTS);
        let cached = last_level / (row_words * 8);
        let amortized = fanout.saturating_mul(ROWS_PER_PARTITION);
        Self {
            tables_bytes,
            first_rows,
            most_rows: cached.min(rows / ROUND_SHARE).max(amortized).max(first_rows),
            first_slots: 1 << first_slots.ilog2(),
        }
    }

    /// Bytes of a table per group it holds at most (slots at the table's load, and the list).
    pub(super) fn group_bytes(slot_bytes: usize) -> usize {
        slot_bytes * LOAD_INVERSE + size_of::<u32>()
    }

    /// An upper bound of the scratch the rounds take, `groups` groups in all, over `chunks`
    /// chunks a round: the regions (the first round's, and the largest round's), and the tables. Before the last round the tables fit the
    /// per-core cache; the last adds at most a group a row. A table grows to twice what its groups
    /// need at its load, every smaller size on its way kept, in blocks rounded up: eight times
    /// the groups' bytes, plus the first tables.
    pub(super) fn scratch_bytes(
        &self,
        rows: u64,
        groups: u64,
        row_words: u64,
        slot_bytes: u64,
        fanout: u64,
        chunks: u64,
    ) -> u64 {
        let most_rows = (self.most_rows as u64).min(rows);
        let chunks = chunks.max(1);
        let words = most_rows.div_ceil(chunks) * row_words;
        let page = page_words(words as usize, fanout as usize) as u64;
        let first_words = (self.first_rows as u64).min(rows).div_ceil(chunks) * row_words;
        let first_page = page_words(first_words as usize, fanout as usize);
        let first = region_lines(first_words as usize, first_page, fanout as usize) as u64;
        let largest = region_lines(words as usize, page as usize, fanout as usize) as u64;
        let regions = rounded(chunks * largest * 64) + rounded(chunks * first * 64);
        let group_bytes = Self::group_bytes(slot_bytes as usize) as u64;
        let kept_groups = groups.min(self.tables_bytes as u64 / group_bytes + most_rows);
        let first = rounded_each(fanout.min(groups) * 2, self.first_slots as u64 * slot_bytes);
        // Each round's scatter: its page chains and ends (u32), its write-combining buffers.
        let scatter = chunks * (rounded(words / page * 4 + fanout * 4) * 2 + rounded(fanout * WC_LINES as u64 * 64));
        regions + scatter + first + 8 * rounded(kept_groups * group_bytes)
    }

    /// Rows of the round after one of `rows` rows that found `new_groups` groups, with tables
    /// of `table_bytes` in all: at that rate, the tables fill the room they have left.
    pub(super) fn next(&self, rows: usize, new_groups: usize, table_bytes: usize, group_bytes: usize) -> usize {
        let room = self.tables_bytes.saturating_sub(table_bytes) as f64;
        let bytes_per_row = new_groups as f64 / rows.max(1) as f64 * group_bytes as f64;
        let rows = if bytes_per_row > 0.0 { room / bytes_per_row } else { f64::INFINITY };
        (rows.min(self.most_rows as f64) as usize).max(self.first_rows)
    }
}

/// Counts rows round by round into a table per partition while the tables fit the per-core
/// cache.
/// Returns the tables and the first row not counted (`keys.len()` when all were).
pub(super) fn preaggregate<'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    scatter_bits: u32,
    rounds: Rounds,
    exec: &dyn Executor,
    scratch: &'a Scratch<'s>,
    phases: Phases<'_>,
) -> Result<(Vec<Kept<'a, 's, S>>, usize), GroupByError> {
    let fanout = 1usize << scatter_bits;
    let mut kept: Vec<Kept<'a, 's, S>> = (0..fanout).map(|_| None).collect();
    // One region per chunk, first for the first round, then, once a round is larger, for the
    // largest round, reused by every round after: input whose tables soon outgrow the cache
    // (many groups) never takes the largest round's region.
    let chunks = chunks_for(rounds.most_rows.min(keys.len()), exec);
    let regions_for = |rows: usize| -> Result<(usize, Vec<&'a mut [Line]>), GroupByError> {
        let words = rows.min(keys.len()).div_ceil(chunks) * S::WORDS;
        let lines = region_lines(words, page_words(words, fanout), fanout);
        Ok((rows, scratch.lines(lines * chunks)?.chunks_mut(lines.max(1)).collect()))
    };
    let (mut region_rows, mut regions) = regions_for(rounds.first_rows)?;
    let group_bytes = Rounds::group_bytes(size_of::<Slot<S>>());
    let (mut start, mut round) = (0, rounds.first_rows);
    while start < keys.len() {
        let end = start.saturating_add(round).min(keys.len());
        if end - start > region_rows {
            (region_rows, regions) = regions_for(rounds.most_rows)?;
        }
        let before: usize = kept.iter().flatten().map(|t| t.groups).sum();
        kept =
            one_round::<S>(keys, values, start..end, scatter_bits, &mut regions, kept, rounds, exec, scratch, phases)?;
        let groups: usize = kept.iter().flatten().map(|t| t.groups).sum();
        let table_bytes: usize = kept.iter().flatten().map(GroupTable::bytes).sum();
        if table_bytes > rounds.tables_bytes {
            return Ok((kept, end));
        }
        round = rounds.next(end - start, groups - before, table_bytes, group_bytes);
        start = end;
    }
    Ok((kept, start))
}

/// Scatters rows `range` over the partitions and counts each partition's rows into its table.
#[allow(clippy::too_many_arguments)]
fn one_round<'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    range: core::ops::Range<usize>,
    scatter_bits: u32,
    regions: &mut [&mut [Line]],
    kept: Vec<Kept<'a, 's, S>>,
    rounds: Rounds,
    exec: &dyn Executor,
    scratch: &'a Scratch<'s>,
    phases: Phases<'_>,
) -> Result<Vec<Kept<'a, 's, S>>, GroupByError> {
    let fanout = 1usize << scatter_bits;
    let chunks = split_even(range.len(), regions.len());
    let page_words = page_words(range.len() / regions.len() * S::WORDS, fanout);
    let jobs: Vec<_> = chunks.into_iter().zip(regions.iter_mut()).collect();
    let scattered = exec::map(exec, jobs, |_, (chunk, region)| {
        let rows = range.start + chunk.start..range.start + chunk.end;
        let (keys, values) = (&keys[rows.clone()], &values[rows]);
        phases.time(Phase::Scatter, || scatter::<S>(keys, values, scatter_bits, page_words, region, scratch))
    });
    let scattered = scattered.into_iter().collect::<Result<Vec<_>, _>>()?;
    let tasks = if exec.threads() > 1 { exec.threads() * exec::TASKS_PER_THREAD } else { 1 };
    let mut kept = kept.into_iter();
    let jobs: Vec<_> =
        split_even(fanout, tasks).into_iter().map(|ps| (ps.clone(), kept.by_ref().take(ps.len()).collect())).collect();
    let counted = exec::map(exec, jobs, |_, (ps, mut tables): (core::ops::Range<usize>, Vec<Kept<'a, 's, S>>)| {
        for (p, table) in ps.zip(tables.iter_mut()) {
            if scattered.iter().all(|s| s.words(p) == 0) {
                continue;
            }
            let pages = scattered.iter().flat_map(|s| s.pages(p));
            let table = match table {
                Some(table) => table,
                None => {
                    let mut fresh = GroupTable::new(scratch);
                    fresh.start(rounds.first_slots)?;
                    table.insert(fresh)
                }
            };
            phases.time(Phase::Aggregate, || table.count(pages))?;
        }
        Ok::<_, GroupByError>(tables)
    });
    let mut all = Vec::with_capacity(fanout);
    for tables in counted {
        all.extend(tables?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests;
