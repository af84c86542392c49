//! Each kernel's fixed costs, fitted once ([`super::fit`]), and what a row costs with them on a
//! host: the part of the model that knows no kernel's sizes, so that adaptive's policy can price
//! with it while it runs (`super::payback`).

use super::machine::Host;

/// A kernel's fixed costs: the same on every host, fitted once ([`super::fit`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// Core cycles a row takes besides waiting on memory (hashing, probing, branches).
    pub work_cycles: f64,
    /// The share of a random load's expected latency a row waits out: 1 where every access
    /// waits, less where the core overlaps rows' misses (out-of-order execution, prefetches).
    pub exposure: f64,
    /// Core cycles each group costs besides its rows' (its insert, the table growing for it, its
    /// emit), spread over the rows: a row pays it times the groups a row.
    pub group_cycles: f64,
}

/// What has fixed costs of its own: the kernels but adaptive (priced as what it runs), and the
/// flat table adaptive's first try may keep (`groupby/split.rs`), which no kernel runs alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priced {
    Naive,
    Radix,
    Tuned,
    Prefetch,
    Flat,
}

impl Priced {
    pub const ALL: [Priced; 5] = [Priced::Naive, Priced::Radix, Priced::Tuned, Priced::Prefetch, Priced::Flat];

    /// Whether it splits its rows over the threads.
    pub(super) fn parallel(self) -> bool {
        matches!(self, Self::Radix | Self::Tuned)
    }
}

/// The fitted fixed costs. Printed by `cargo test -p memwall-core --lib cost::fit::tests::refit
/// -- --nocapture` from the kept data; that test fails when these drift from what the data gives.
const COSTS: [(Priced, Costs); 5] = [
    (Priced::Naive, Costs { work_cycles: 6.0, exposure: 0.408, group_cycles: 118.8 }),
    (Priced::Radix, Costs { work_cycles: 55.3, exposure: 0.000, group_cycles: 72.5 }),
    (Priced::Tuned, Costs { work_cycles: 17.7, exposure: 0.000, group_cycles: 14.3 }),
    (Priced::Prefetch, Costs { work_cycles: 2.2, exposure: 0.878, group_cycles: 93.8 }),
    (Priced::Flat, Costs { work_cycles: 5.8, exposure: 0.319, group_cycles: 2485.7 }),
];

/// The fixed costs of `what`.
pub fn costs(what: Priced) -> Costs {
    let unknown = Costs { work_cycles: f64::NAN, exposure: f64::NAN, group_cycles: f64::NAN };
    COSTS.iter().find(|(p, _)| *p == what).map_or(unknown, |&(_, c)| c)
}

/// What a row of a kernel costs besides its fixed costs: the expected ns of its random loads,
/// the bytes it streams, and the groups a row (each paid for once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Terms {
    pub random_ns: f64,
    pub stream_bytes: f64,
    pub groups_per_row: f64,
}

/// ns a row of one thread with fixed costs `c` and terms `t` on `m`.
pub(crate) fn cost_of(c: Costs, m: &Host, t: Terms) -> f64 {
    (c.work_cycles + c.group_cycles * t.groups_per_row) / m.ghz()
        + c.exposure * t.random_ns
        + t.stream_bytes / m.read_bytes_per_ns()
}

/// A tuned row's random loads into its partition's table of `table_bytes` and the scatter's open
/// lines of `scatter_bytes`, and the bytes it streams: each row written out and read back.
pub(crate) fn tuned_loads(m: &Host, table_bytes: u64, scatter_bytes: u64, row_bytes: f64) -> (f64, f64) {
    (m.latency_ns(table_bytes) + m.latency_ns(scatter_bytes), 3.0 * row_bytes)
}

/// The expected ns of a prefetched table's load into `table_bytes`: what lies past the per-core
/// cache is waited for once for as many rows as overlap (as many as the core keeps in flight, or
/// as the prefetch `distance` asks for).
pub(crate) fn prefetched_ns(m: &Host, table_bytes: u64, per_core_bytes: u64, distance: usize) -> f64 {
    overlapped_ns(m, table_bytes, per_core_bytes, distance as f64)
}

/// [`prefetched_ns`] where `lines` distinct lines are in flight at once (at most the core's knee,
/// at least one).
pub(crate) fn overlapped_ns(m: &Host, table_bytes: u64, per_core_bytes: u64, lines: f64) -> f64 {
    let (near, all) = (m.latency_ns(per_core_bytes.min(table_bytes)), m.latency_ns(table_bytes));
    near + (all - near) / m.knee().min(lines).max(1.0)
}
