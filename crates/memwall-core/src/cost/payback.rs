//! Whether one prefetched table still pays, asked of the model while adaptive runs: at each of
//! the table's looks (`groupby::prefetch`), the rows it has left through the table, against all
//! the rows through tuned (giving up throws away what the table took: adaptive starts over
//! partitioned). Each side is the model's price of a row (`costs.rs`, the same fixed costs the
//! race's predictions use) on this host's ladder, for the table it would grow to.

use super::costs::{Priced, Terms, cost_of, costs, overlapped_ns, prefetched_ns, tuned_loads};
use super::machine::Host;
use crate::groupby::tuned::{SCATTER_BITS, WC_BYTES_PER_PARTITION};

/// What a prefetched table knows at a look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Rows it has taken, and rows left for it.
    pub taken: u64,
    pub rows_left: u64,
    /// Groups it holds, those its counts foresee still to come over the rows left, and the bytes
    /// of the table once it holds them all.
    pub groups: u64,
    pub to_come: f64,
    pub table_bytes: u64,
    /// Where its rows keep to runs (each key's rows together), the rows left whose line is not
    /// in cache: a run's first row, one that starts a group or returns to a key. Every other row
    /// finds the line the row before it touched. `None` where the rows keep to no order: then
    /// any row's line is anywhere in the table.
    pub run_starts: Option<f64>,
    /// The cache the table is probed in without prefetches, and how many rows ahead it
    /// prefetches past it.
    pub per_core_bytes: u64,
    pub distance: usize,
    /// Bytes a row reads (its key and values).
    pub row_bytes: u64,
}

/// The model's price of each way on, in ns over the rows each reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// The rows left through the table, with the groups still to come.
    pub kept_ns: f64,
    /// Every row, taken and left, through tuned.
    pub given_up_ns: f64,
}

impl Prices {
    pub fn keeps(&self) -> bool {
        self.kept_ns <= self.given_up_ns
    }
}

/// Both ways on for `look` on `host`.
pub fn prices(host: &Host, look: &Look) -> Prices {
    let rows_left = look.rows_left.max(1) as f64;
    let row = look.row_bytes as f64;
    let random_ns = match look.run_starts {
        Some(starts) => in_runs_ns(host, look, starts.clamp(0.0, rows_left), rows_left),
        None => prefetched_ns(host, look.table_bytes, look.per_core_bytes, look.distance),
    };
    let table = Terms { random_ns, stream_bytes: row, groups_per_row: look.to_come / rows_left };
    let kept_ns = rows_left * cost_of(costs(Priced::Prefetch), host, table);
    // Tuned's tables take at most half the per-core cache each (`groupby::partitions_for`), and
    // its scatter keeps the write-combining lines of at most 2^SCATTER_BITS partitions open. Its
    // groups are the table's, over all the rows.
    let all_rows = rows_left + look.taken as f64;
    let (random_ns, stream_bytes) =
        tuned_loads(host, look.per_core_bytes / 2, WC_BYTES_PER_PARTITION << SCATTER_BITS, row);
    let tuned = Terms { random_ns, stream_bytes, groups_per_row: (look.groups as f64 + look.to_come) / all_rows };
    let given_up_ns = all_rows * cost_of(costs(Priced::Tuned), host, tuned);
    Prices { kept_ns, given_up_ns }
}

/// The expected ns of a row's load where the rows keep to runs and `starts` of the `rows_left`
/// start one (`Look::run_starts`):
/// * a row that starts none finds its line in L1 (the smallest plateau's latency: a working set
///   of one line);
/// * a run that starts a new group is a prefetched load, but the prefetch `distance` rows ahead
///   covers only the lines of the runs that start within it, `distance` times the starts a row:
///   as many overlap, not as many as the core keeps in flight. Priced with the core's full
///   overlap, 780,000 Zipf 0.9 keys in sessions (a 32 MiB table past the Zen 3 guest's 24 MiB)
///   came to 4.8 ns/row where the prefetch kernel took 9.8;
/// * a run that returns to a key seen before is priced as a load nothing overlaps: the table's
///   own latency. That is dear, on purpose. On the Zen 3 guest (a 24 MiB L3), a run's first row
///   cost about the same whether it returned or started a group: 24-39 ns, over the 4.5 ns of a
///   row that starts none (read off sorted runs of 10 and 20 rows). That is 9.8-13.0 ns/row at
///   0.22 starts a row on 780,000 Zipf 0.9 keys in sessions, 9.9-12.2 at 0.2 on 2,000,000
///   uniform keys sorted. A new group's start is priced at about that: its overlapped load and
///   its fitted group cycles. With returns at the overlapped load alone (~16 ns there) the
///   model put those sessions at 6.4 ns/row, under tuned's 7.2, and would keep a table that
///   lost to tuned's 8.8-11.3; priced so, at 10.5
///   (`docs/results/regret-zen3-2vcpu-kvm/past-llc/model.txt`).
fn in_runs_ns(host: &Host, look: &Look, starts: f64, rows_left: f64) -> f64 {
    let new = look.to_come.clamp(0.0, starts);
    let in_flight = look.distance as f64 * starts / rows_left;
    let far = overlapped_ns(host, look.table_bytes, look.per_core_bytes, in_flight);
    let returns_ns = (starts - new) * host.latency_ns(look.table_bytes);
    (new * far + returns_ns + (rows_left - starts) * host.latency_ns(crate::ladder::LINE_BYTES as u64)) / rows_left
}
