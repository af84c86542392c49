//! The cost model: each GROUP BY kernel's ns per row on this host, predicted from what the ladder
//! measured (its levels' sizes and latencies, DRAM's latency, the memory-level-parallelism knee,
//! read bandwidth) and from the data (rows, the estimated groups, the aggregate state, threads).
//!
//! A kernel's row costs `work + exposure × random + stream / bandwidth`:
//! * `random` is the expected latency of the kernel's random accesses, from the ladder: a random
//!   access into `W` bytes hits a cache of `C` bytes with chance `min(1, C / W)` (the working set
//!   spread evenly), and costs each level's latency for the share that hits there first
//!   ([`Machine::latency_ns`]). The working sets are the kernel's own: its table for all groups,
//!   or a partition's table and the scatter's open lines.
//! * `stream` is the bytes a row moves sequentially (reading the input, writing and reading back
//!   partitions), at the bandwidth the host reads.
//! * `work` (cycles a row) and `exposure` (the share of a random access's latency the core does
//!   not hide) are the kernel's own: the fixed costs in [`COSTS`], the same on every host, fitted
//!   once ([`fit`]) on kept data and never timed on the data at hand.
//!
//! Where the ladder lacks an input, the model uses what it has and names what it lacked
//! ([`Machine::missing`]).

mod costs;
pub mod fit;
mod kernels;
pub(crate) mod machine;
pub mod payback;
mod race;

pub use costs::{Costs, Priced, costs};
pub use kernels::{Work, predict};
pub use machine::{FIT_HOST, FitHost, Host, Machine, Measured};
pub use race::{annotate, annotate_sweep, describe, describe_sweep, model, model_error};

#[cfg(test)]
mod tests;
