//! Each kernel's working sets and streamed bytes, its fixed costs, and its predicted ns per row.

use super::costs::{Priced, Terms, cost_of, costs, prefetched_ns, tuned_loads};
use super::machine::Host;
use crate::groupby::adaptive::{partitions_for, thresholds_sharing};
use crate::groupby::estimate::sample_size;
use crate::groupby::prefetch::{DISTANCE, initial_capacity, stretched_limit};
use crate::groupby::tuned::{MIN_TABLE_SLOTS, SCATTER_BITS, WC_BYTES_PER_PARTITION, table_bytes_per_group};
use crate::groupby::{GroupByConfig, Kernel, ValueType};

impl Priced {
    pub fn of(kernel: Kernel) -> Option<Self> {
        match kernel {
            Kernel::Naive => Some(Self::Naive),
            Kernel::Radix => Some(Self::Radix),
            Kernel::Tuned => Some(Self::Tuned),
            Kernel::Prefetch => Some(Self::Prefetch),
            Kernel::Adaptive => None,
        }
    }
}

/// The data a prediction is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    pub rows: u64,
    /// The groups the data is expected to hold (a sample's estimate), and the upper end of the
    /// estimate's range.
    pub groups: u64,
    pub upper_groups: u64,
    pub threads: usize,
    /// The partitions, aggregates and cache budget the kernels run with.
    pub config: GroupByConfig,
}

impl Work {
    /// Bytes of aggregate state a group takes beside its key.
    fn state_bytes(&self) -> u64 {
        self.config.aggregates.state_bytes(ValueType::I64)
    }

    fn row_bytes(&self) -> f64 {
        self.config.aggregates.row_bytes() as f64
    }

    fn with_groups(&self, groups: u64) -> Self {
        Self { groups, upper_groups: self.upper_groups.max(groups), ..*self }
    }
}

/// A hashbrown table for `groups` entries of `entry` bytes: buckets at most 7/8 full, a power of
/// two, a control byte each.
fn hashbrown_bytes(groups: u64, entry: u64) -> u64 {
    (groups * 8 / 7 + 1).max(8).next_power_of_two() * (entry + 1)
}

/// The [`Terms`] of a row of `what` on `m` for `w`.
pub(super) fn terms(what: Priced, m: &Host, w: &Work) -> Terms {
    let (random_ns, stream_bytes) = loads(what, m, w);
    let groups_per_row = w.groups.min(w.rows) as f64 / w.rows.max(1) as f64;
    Terms { random_ns, stream_bytes, groups_per_row }
}

/// The expected ns of the random loads a row of `what` makes, and the bytes it streams.
fn loads(what: Priced, m: &Host, w: &Work) -> (f64, f64) {
    let (groups, state, row) = (w.groups.max(1), w.state_bytes(), w.row_bytes());
    let partitions = u64::from(w.config.partitions.max(1));
    let flat_slots = initial_capacity(usize::try_from(groups).unwrap_or(usize::MAX)) as u64;
    match what {
        Priced::Naive => (m.latency_ns(hashbrown_bytes(groups, 8 + state)), row),
        // Its keys apart from its states: the probe reads the keys, the update one state.
        Priced::Flat => (m.latency_ns(flat_slots * 8) + m.latency_ns(flat_slots * state.max(1)), row),
        Priced::Prefetch => {
            // Past the per-core cache its loads are prefetched DISTANCE rows ahead: what lies
            // beyond that cache is waited for once for as many rows as overlap (as many as the
            // core keeps in flight, or as the distance asks for).
            (prefetched_ns(m, flat_slots * (8 + state), w.config.budget.per_core_bytes, DISTANCE), row)
        }
        Priced::Radix => {
            // Per partition a hashbrown table of (hash, key, state); the scatter keeps a line
            // of each partition's vector open. Rows are written as (hash, key, value) and read back.
            let table = hashbrown_bytes(groups.div_ceil(partitions), 16 + state);
            let scatter = partitions * 64;
            (m.latency_ns(table) + m.latency_ns(scatter), row + 2.0 * (8.0 + row))
        }
        Priced::Tuned => {
            // A flat table a quarter full per partition (at least MIN_TABLE_SLOTS), the
            // write-combining lines of at most 2^SCATTER_BITS partitions; rows written and read back.
            let table = (groups.div_ceil(partitions) * table_bytes_per_group(state)).max(MIN_TABLE_SLOTS as u64 * 16);
            let scatter = partitions.min(1 << SCATTER_BITS) * WC_BYTES_PER_PARTITION;
            tuned_loads(m, table, scatter, row)
        }
    }
}

/// ns a row of `what` with its fixed costs, on `threads` threads where it splits its work.
fn priced(what: Priced, m: &Host, w: &Work) -> f64 {
    let one = cost_of(costs(what), m, terms(what, m, w));
    if what.parallel() { one / w.threads.max(1) as f64 } else { one }
}

/// The predicted ns per row of `kernel` on `m` for `work`.
pub fn predict(kernel: Kernel, m: &Host, work: &Work) -> f64 {
    match Priced::of(kernel) {
        Some(what) => priced(what, m, work),
        None => adaptive(m, work),
    }
}

/// Adaptive as it runs: its small tables while the groups fit them, else the rows it read
/// before giving each up, its sample, and tuned at the partitions it picks.
fn adaptive(m: &Host, w: &Work) -> f64 {
    let rows = w.rows.max(1);
    let threads = if rows < 1 << 16 { 1 } else { w.threads.max(1) };
    let limits = thresholds_sharing(&w.config, threads as u64);
    // Each thread keeps its own small table over its share of the rows.
    let small = |groups: u64| {
        let w = w.with_groups(groups);
        [Priced::Naive, Priced::Flat, Priced::Prefetch]
            .map(|p| priced(p, m, &w))
            .into_iter()
            .fold(f64::INFINITY, f64::min)
            / threads as f64
    };
    if w.groups <= limits.naive_groups {
        return small(w.groups);
    }
    // Rows read before `limit` distinct keys showed up, the groups spread evenly over the rows.
    let share_before = |limit: u64| {
        let g = w.groups as f64;
        ((-g * (1.0 - limit as f64 / g).ln()) / rows as f64).min(1.0)
    };
    let mut ns = share_before(limits.naive_groups) * small(limits.naive_groups);
    let sample = sample_size(rows as usize) as f64 * m.latency_ns(rows * 8) / rows as f64;
    let slot = 8 + w.state_bytes() as usize;
    let stretched = stretched_limit(usize::try_from(limits.single_table_groups).unwrap_or(usize::MAX), slot) as u64;
    let prefetched = |groups: u64| priced(Priced::Prefetch, m, &w.with_groups(groups)) / threads as f64;
    if w.groups <= stretched {
        if w.groups <= limits.single_table_groups {
            return ns + sample + prefetched(w.groups);
        }
        ns += share_before(limits.single_table_groups) * prefetched(limits.single_table_groups);
    }
    let partitions = partitions_for(w.groups.max(w.upper_groups.div_ceil(4)), &w.config);
    let tuned = Work { config: GroupByConfig { partitions, ..w.config }, ..*w };
    ns + sample + priced(Priced::Tuned, m, &tuned)
}
