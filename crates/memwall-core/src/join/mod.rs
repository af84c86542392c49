//! The hash-join probe race: `SELECT count(*), sum(mix(key, payload)) FROM probe JOIN build
//! USING (key)`, the build side's keys distinct (a primary key), by kernels that meet the memory
//! wall head on or go around it, the way [`crate::groupby`] races GROUP BY:
//!
//! * [`Kernel::Naive`]: one `hashbrown::HashMap`, probed row by row: with millions of build keys
//!   nearly every probe waits for DRAM.
//! * [`Kernel::Partitioned`]: radix-partition both sides by the hash's top bits, so that each
//!   partition's table fits the cache, then probe each partition's rows against its own table.
//! * [`Kernel::Prefetch`]: one flat table, probed with software prefetches rows ahead, so that
//!   the misses overlap (memory-level parallelism instead of locality).
//! * [`Kernel::Tuned`]: see `tuned.rs`.
//! * [`Kernel::Adaptive`]: one table (hashbrown in cache, else the prefetched flat one) probed on
//!   every thread while it fits the last-level cache, else tuned.
//!
//! Every kernel times its build (everything that reads only the build side) and its probe
//! (everything after) separately, and returns the same [`JoinResult`], which must equal
//! [`reference`] exactly.
//!
//! **Duplicate build keys are rejected**: every kernel, and the reference, returns
//! [`JoinError::DuplicateBuildKey`] instead of a result, because a probe row would then match
//! several build rows, which the flat tables (one payload per key) cannot represent and which a
//! primary-key build side never has. A kernel finds a duplicate where it inserts it, so which of
//! several duplicated keys it names may differ between kernels; that it refuses may not.

use memwall_report::AdaptiveChoice;

use crate::clock::{Clock, time_ns};
use crate::exec::Executor;
use crate::scratch::Scratch;

mod config;
pub mod data;
mod naive;
mod partitioned;
mod prefetch;
pub mod race;
pub mod summary;
pub mod sweep;
mod table;
mod tuned;

pub use config::{BuildRow, JoinConfig, JoinError, MAX_PARTITIONS};

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

/// The partition (of `partitions`, a power of two) the partitioning kernels put `key` in: the
/// top bits of the join's hash, for drawing how the sides spread.
pub fn partition_of(key: i64, partitions: u32) -> u32 {
    table::partition_of_hash(table::hash(key), partitions.trailing_zeros()) as u32
}

/// The key value the flat tables mark an empty slot with. It is a key like any other (kept
/// apart when it occurs); tests use it as one.
pub const EMPTY_SLOT_KEY: i64 = table::EMPTY as i64;

/// A way to compute the join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    Naive,
    Partitioned,
    Prefetch,
    Tuned,
    Adaptive,
}

impl Kernel {
    pub const ALL: [Kernel; 5] =
        [Kernel::Naive, Kernel::Partitioned, Kernel::Prefetch, Kernel::Tuned, Kernel::Adaptive];

    pub fn name(self) -> &'static str {
        match self {
            Self::Naive => "naive",
            Self::Partitioned => "partitioned",
            Self::Prefetch => "prefetch",
            Self::Tuned => "tuned",
            Self::Adaptive => "adaptive",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name().eq_ignore_ascii_case(name.trim()))
    }

    /// One line on what the kernel does, for help texts and the web page.
    pub fn description(self) -> &'static str {
        match self {
            Self::Naive => "one hashbrown HashMap (ahash), probed row by row: a cache miss per probe",
            Self::Partitioned => "radix-partition both sides by hash, then a cache-sized flat table per partition",
            Self::Prefetch => "one flat table, probes prefetched rows ahead so that DRAM misses overlap",
            Self::Tuned => tuned::DESCRIPTION,
            Self::Adaptive => {
                "one table probed on every thread (hashbrown in cache, else prefetched) while it fits the last-level cache it measured, else tuned"
            }
        }
    }
}

/// The answer, condensed so kernels can be compared exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JoinResult {
    /// Probe rows that found their key on the build side.
    pub matches: u64,
    /// Wrapping sum over the matches of a mix of (key, payload): independent of the order
    /// matches are found in, changed by a missed or invented match or a wrong payload.
    pub checksum: u64,
    /// Exact sum of the matched probe rows' keys: what `SELECT sum(key)` over the join returns
    /// in an engine that sums in 128 bits, so engines can be checked against memwall.
    pub key_sum: i128,
    /// Exact sum of the matched rows' payloads (as unsigned 64-bit values), likewise.
    pub payload_sum: u128,
}

impl From<table::Matches> for JoinResult {
    fn from(m: table::Matches) -> Self {
        Self { matches: m.matches, checksum: m.checksum, key_sum: m.key_sum, payload_sum: m.payload_sum }
    }
}

/// What a run produced and how long its phases took.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: JoinResult,
    pub build_ns: f64,
    pub probe_ns: f64,
    /// Adaptive only: the kernel it ran and why.
    pub choice: Option<AdaptiveChoice>,
    /// The partition count, for the kernels that partitioned.
    pub partitions: Option<u32>,
    /// Threads the run spread its work over.
    pub threads: usize,
}

/// The oracle: sort copies of both sides, refuse adjacent equal build keys, and merge: every
/// probe key equal to a build key is a match. Obviously right and slow (a sort of the probe side
/// costs about a naive probe of it, far less than binary-searching every probe key, which waits
/// on a cache miss per step); every kernel must equal it exactly. The checksum does not depend
/// on the order matches are found in, so the sorted order gives the same one.
pub fn reference(build: &[BuildRow], probe: &[i64]) -> Result<JoinResult, JoinError> {
    let mut sorted = build.to_vec();
    sorted.sort_unstable_by_key(|row| row.key);
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0].key == pair[1].key) {
        return Err(JoinError::DuplicateBuildKey(pair[0].key));
    }
    let mut keys = probe.to_vec();
    keys.sort_unstable();
    let mut matches = table::Matches::default();
    let mut rows = sorted.iter().peekable();
    for key in keys {
        while rows.next_if(|row| row.key < key).is_some() {}
        if let Some(row) = rows.peek().filter(|row| row.key == key) {
            matches.add(key, row.payload);
        }
    }
    Ok(matches.into())
}

/// Runs `kernel` with scratch memory from the heap, fresh for this run.
pub fn run(
    kernel: Kernel,
    build: &[BuildRow],
    probe: &[i64],
    config: &JoinConfig,
    exec: &dyn Executor,
    clock: &dyn Clock,
) -> Result<Outcome, JoinError> {
    let mut scratch = Scratch::new(&crate::scratch::HeapChunks, crate::scratch::MemoryPolicy::Cold);
    scratch.begin_run();
    run_in(kernel, build, probe, config, exec, &scratch, clock)
}

/// Runs `kernel`, taking every piece of scratch memory from `scratch`, timing build and probe.
pub fn run_in(
    kernel: Kernel,
    build: &[BuildRow],
    probe: &[i64],
    config: &JoinConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    clock: &dyn Clock,
) -> Result<Outcome, JoinError> {
    config.validate()?;
    let partitions = config.partitions_for(build.len() as u64);
    let (result, build_ns, probe_ns) = match kernel {
        Kernel::Naive => phases(clock, || naive::build(build, scratch), |t| Ok(naive::probe(t, probe)))?,
        Kernel::Prefetch => phases(clock, || prefetch::build(build, scratch), |t| Ok(prefetch::probe(t, probe)))?,
        // The partitioning kernels: each scatters the probe keys and probes a partition its own
        // way, the partitions probed on the threads alike.
        Kernel::Partitioned => phases(
            clock,
            || partitioned::build(build, partitions, exec, scratch),
            |t| {
                let keys = partitioned::scatter_probe(t, probe, scratch)?;
                Ok(partitioned::probe_tables(t, exec, keys, partitioned::probe_partition))
            },
        )?,
        Kernel::Tuned => phases(
            clock,
            || tuned::build(build, config, exec, scratch),
            |t| {
                let keys = tuned::scatter_probe(t, probe, exec, scratch)?;
                Ok(partitioned::probe_tables(t, exec, keys, tuned::probe_partition))
            },
        )?,
        Kernel::Adaptive => return adaptive(build, probe, config, exec, scratch, clock),
    };
    let partitioned = matches!(kernel, Kernel::Partitioned | Kernel::Tuned);
    Ok(Outcome {
        result,
        build_ns,
        probe_ns,
        choice: None,
        partitions: match kernel {
            Kernel::Partitioned => Some(partitions),
            Kernel::Tuned => tuned::partitions(build.len(), config),
            _ => None,
        },
        threads: if partitioned { exec.threads() } else { 1 },
    })
}

/// Times a build, then a probe of what it built.
fn phases<T>(
    clock: &dyn Clock,
    build: impl FnOnce() -> Result<T, JoinError>,
    probe: impl FnOnce(&T) -> Result<table::Matches, JoinError>,
) -> Result<(JoinResult, f64, f64), JoinError> {
    let (build_ns, built) = time_ns(clock, build);
    let built = built?;
    let (probe_ns, matches) = time_ns(clock, || probe(&built));
    Ok((matches?.into(), build_ns, probe_ns))
}

/// Picks by the build size, which a join knows exactly before it starts (no sample needed, as
/// GROUP BY's groups are), and probes the one table it keeps on every thread (the table is only
/// read, so the threads' matches add up exactly):
///
/// * hashbrown while its table fits the per-core cache, or the last-level cache's first quarter
///   (GROUP BY's rule, `groupby::adaptive::thresholds`): there its SIMD probes mispredict no
///   branch, and independent probes overlap what misses there are. On a 2-vCPU Xeon guest the
///   flat table probed 1.3-1.5x slower at 1,000 and 10,000 build keys, with or without
///   prefetches (`memwall join --build-keys 1000 --probe-rows 10M --kernel naive,prefetch`);
/// * then the flat table with prefetches, while it fits the last-level cache;
/// * past it, tuned's partitions.
fn adaptive(
    build: &[BuildRow],
    probe: &[i64],
    config: &JoinConfig,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    clock: &dyn Clock,
) -> Result<Outcome, JoinError> {
    let keys = build.len() as u64;
    let caches = config.budget.describe();
    let threads = exec.threads();
    let (hashbrown_limit, flat_limit) = (config.hashbrown_keys(), config.single_table_keys());
    let (kernel, reason, (result, build_ns, probe_ns)) = if keys <= hashbrown_limit {
        let reason = format!(
            "{keys} build keys: one hashbrown table for at most {hashbrown_limit} stays in cache, probed on {threads} thread(s) (caches: {caches})"
        );
        (Kernel::Naive, reason, one_table(clock, || naive::build(build, scratch), probe, exec, naive::probe)?)
    } else if keys <= flat_limit {
        let reason = format!(
            "{keys} build keys: one prefetched flat table for at most {flat_limit} fits the last-level cache, probed on {threads} thread(s) (caches: {caches})"
        );
        (Kernel::Prefetch, reason, one_table(clock, || prefetch::build(build, scratch), probe, exec, prefetch::probe)?)
    } else {
        let reason = format!(
            "{keys} build keys: one table for more than {flat_limit} outgrows the last-level cache (caches: {caches}); \
             partitioned so that each table fits half of {}",
            crate::size::format_bytes(config.budget.per_core_bytes)
        );
        let mut outcome = run_in(Kernel::Tuned, build, probe, config, exec, scratch, clock)?;
        outcome.choice = Some(choice(Kernel::Tuned, keys, reason));
        return Ok(outcome);
    };
    Ok(Outcome { result, build_ns, probe_ns, choice: Some(choice(kernel, keys, reason)), partitions: None, threads })
}

/// One table built by `build` and probed on every thread by `probe_rows` (see
/// [`probe_on_threads`]), each phase timed.
fn one_table<T: Sync>(
    clock: &dyn Clock,
    build: impl FnOnce() -> Result<T, JoinError>,
    probe: &[i64],
    exec: &dyn Executor,
    probe_rows: impl Fn(&T, &[i64]) -> table::Matches + Sync,
) -> Result<(JoinResult, f64, f64), JoinError> {
    phases(clock, build, |t| Ok(probe_on_threads(probe, exec, |rows| probe_rows(t, rows))))
}

/// `probe` cut into tasks the executor's threads take as they finish one, each probed by
/// `probe_rows`, their matches summed. More tasks than threads, so that a slower vCPU (its host
/// core shared with another tenant) takes fewer rows rather than holding up the rest, as in
/// GROUP BY's tables per thread (`groupby/per_thread.rs`).
fn probe_on_threads(
    probe: &[i64],
    exec: &dyn Executor,
    probe_rows: impl Fn(&[i64]) -> table::Matches + Sync,
) -> table::Matches {
    // Under 64 Ki rows a thread's start costs more than its share of the probe.
    let threads = if probe.len() < 1 << 16 { 1 } else { exec.threads().max(1) };
    let tasks = if threads > 1 { threads * crate::exec::TASKS_PER_THREAD } else { 1 };
    let shares = crate::exec::split_even(probe.len(), tasks);
    crate::exec::map(exec, shares, |_, rows| probe_rows(&probe[rows]))
        .into_iter()
        .fold(Default::default(), table::Matches::merge)
}

fn choice(kernel: Kernel, keys: u64, reason: String) -> AdaptiveChoice {
    AdaptiveChoice { kernel: kernel.name().into(), estimated_groups: keys, sampled_rows: keys, reason }
}

/// An upper bound of the scratch memory a run of `kernel` takes (blocks as handed out), for
/// refusing plans that cannot fit before anything is allocated.
pub fn scratch_bytes(kernel: Kernel, build_keys: u64, probe_rows: u64, config: &JoinConfig, threads: usize) -> u64 {
    let rounded = crate::scratch::rounded;
    let flat = rounded((table::capacity_for(build_keys as usize) as u64).saturating_mul(16));
    match kernel {
        Kernel::Naive => {
            // hashbrown: buckets for 8/7 of the keys, a power of two, 16 bytes and a control byte each.
            let buckets = (build_keys.saturating_mul(8) / 7 + 1).max(8).checked_next_power_of_two().unwrap_or(u64::MAX);
            rounded(buckets.saturating_mul(17) + 64)
        }
        Kernel::Prefetch => flat,
        Kernel::Partitioned => {
            partitioned::scratch_bytes(build_keys, probe_rows, u64::from(config.partitions_for(build_keys)))
        }
        Kernel::Tuned => tuned::scratch_bytes(build_keys, probe_rows, config, threads),
        Kernel::Adaptive => scratch_bytes(Kernel::Naive, build_keys, probe_rows, config, threads)
            .max(flat)
            .max(tuned::scratch_bytes(build_keys, probe_rows, config, threads)),
    }
}
