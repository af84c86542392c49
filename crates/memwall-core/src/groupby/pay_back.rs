//! Whether a prefetched table that adaptive tries still pays, at each of its looks
//! (`prefetch::Bounded::new`'s `paying_back`): giving up throws away the rows it took, and
//! adaptive starts over partitioned. Where a ladder measured the host, the cost model prices both
//! ways on (`cost::payback`); where none did, a rule on the new groups to come decides.

use super::config::GroupByConfig;
use crate::cost::machine::Host;
use crate::cost::payback::{self, Look};

/// How a table pays back: priced by the model on the host's ladder where one measured it
/// (`host`, with the bytes a row reads), else by the rule of [`PAYBACK_ROWS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PayBack {
    pub host: Option<Host>,
    pub row_bytes: u64,
}

/// What a table knows at a look, and the misses the rule counts (the new groups to come, and in
/// runs the rows that return to a key).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct At {
    pub look: Look,
    pub rule_misses: f64,
}

impl PayBack {
    /// As `config`'s host and aggregates ask.
    pub fn of(config: &GroupByConfig) -> Self {
        Self { host: config.host, row_bytes: config.aggregates.row_bytes() }
    }

    /// By the rule alone, as where no ladder ran.
    #[cfg(test)]
    pub const RULE: Self = Self { host: None, row_bytes: 8 };

    /// Whether the model prices the look at `at` (see [`PayBack::keeps`]): a host's figures and
    /// rows in runs.
    pub fn priced(&self, at: &At) -> bool {
        self.host.is_some() && at.look.run_starts.is_some()
    }

    /// Whether the table goes on from `at`: the model's price of its rows left, with the groups
    /// to come, no more than tuned's over every row, where the rows keep to runs (`run_starts`).
    /// The rule decides elsewhere:
    /// * without a host's figures;
    /// * where the rows keep to no order, its foresight is Chao's bound, a lower bound that a
    ///   heavy tail keeps far low, and a price of the table it foresees keeps tables that should
    ///   go: on 1,000,000 Zipf 1.1 keys over 10M rows, shuffled, the model kept the table past
    ///   the looks where the rule gave it up, and adaptive's given-up phase went from 0.60 to
    ///   1.07-1.24 ns/row (`docs/results/regret-zen3-2vcpu-kvm/zipf1m-given-up.txt`). Where rows
    ///   keep to runs the foresight is the groups' growth (Heaps' law, `arrivals.rs`), not a
    ///   bound.
    ///
    /// A table past the last-level cache is priced too, since the model prices what rows in runs
    /// leave to prefetch (`cost::payback`, `in_runs_ns`): sorted keys, 1,000,000 of them in runs
    /// of 20 (a 64 MiB table on the Zen 3 guest, whose ladder read 24 MiB of L3), the table took
    /// 5.4-7.0 ns/row against tuned's 8.3-10.6, where the rule gave it up and adaptive's regret
    /// read 1.33-1.69; priced, 0.96-1.12 (`docs/results/regret-zen3-2vcpu-kvm/past-llc/`).
    pub fn keeps(&self, at: &At) -> bool {
        let Some(host) = self.host.as_ref().filter(|_| self.priced(at)) else {
            return at.rule_misses * PAYBACK_ROWS as f64 <= at.look.rows_left.saturating_add(at.look.taken) as f64;
        };
        payback::prices(host, &at.look).keeps()
    }
}

/// A table past the per-core cache goes on only while the groups still to come are at most
/// one in this many of its rows, left and taken (`prefetch::Bounded::new`'s `paying_back`). Measured on the 2-vCPU Xeon
/// guest with Zipf 1.1 keys, at each doubling past its 2 MiB L2 (a debug print, not kept;
/// `memwall groupby --rows R --keys K --skew zipf:1.1 --threads T --kernel adaptive,tuned
/// --caches-from C`, C a ladder that read L3 to 16 MiB): 10^6 keys over 100M rows, 1 thread,
/// where the table beat tuned (6.73 against 7.04 ns/row), foresaw 0.28%-0.41% of the rows left
/// as new groups; 10^5 keys over 100M rows, 2 threads (1.90 against 4.09), 0.05%. Over 10M rows,
/// 10^6 keys, where a table lost (forced on, 11.06 against tuned's 7.24; adaptive, giving up at
/// its limit after 3.2M rows, 15.0), 3.2% at 1 thread and 6.5% at 2. Near 0.7%-0.8% it went
/// either way (2 threads: 10^6 keys over 100M rows and 10^5 over 10M, the table 8% and 22% behind
/// tuned for a count, 10% ahead for a sum). One in 64 (1.6%) lies between the clear cases, a
/// factor of two from each, and leaves the mixed ones as they were.
pub(super) const PAYBACK_ROWS: u64 = 64;
