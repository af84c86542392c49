//! Hardware counters around a timed region, through Linux `perf_event_open` (the `perf-event2`
//! crate).
//!
//! What is counted: **user-space** events (the kernel and hypervisor are excluded, which is
//! also what an unprivileged process may count under `perf_event_paranoid` = 2) of the thread
//! that called [`CounterSession::start`] and of every thread it, or its descendants, spawn
//! *after* `start` (the counters are opened with `inherit`; the kernel adds a child's counts to
//! the parent's counter, also once the child has exited). Threads that already existed at
//! `start` (a pre-spawned pool) are *not* counted: spawn the workers inside the region, e.g.
//! with `std::thread::scope`, to count them.
//!
//! Each event is opened on its own, not as a group: a group is only ever scheduled whole, so one
//! event the PMU lacks or one counter too many would zero them all. When the PMU has fewer
//! counters than events the kernel time-slices them; the counts are then scaled by
//! enabled / running time, as `perf stat` does, and `running_share` in the report says how much
//! of the run the least-scheduled counter actually ran.
//!
//! An event that fails to open is simply `None` (and listed in `not_counted` with the OS's
//! reason). If none opens, the session is unavailable and says why in the OS's words; no figure
//! is ever estimated or filled in.

use memwall_report::Counters;

/// What the report's `scope` says was counted.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const SCOPE: &str = "user space; the starting thread and threads spawned after start";

/// Counters running around a timed region. `start` never fails: a host without counters gives a
/// session whose `stop` reports them unavailable.
#[derive(Debug)]
pub struct CounterSession {
    inner: imp::Session,
}

impl CounterSession {
    /// Opens and enables every counter the PMU offers.
    pub fn start() -> Self {
        Self { inner: imp::Session::start() }
    }

    /// Disables the counters and reads them.
    pub fn stop(self) -> Counters {
        self.inner.stop()
    }
}

/// Whether this host can count at all: `Err` carries the reason in the OS's words.
pub fn probe() -> Result<(), String> {
    let counters = CounterSession::start().stop();
    if counters.available { Ok(()) } else { Err(counters.unavailable.unwrap_or_else(|| "counters unavailable".into())) }
}

/// Fills the derived ratios from the raw counts.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn derive(counters: &mut Counters) {
    if let (Some(cycles), Some(instructions)) = (counters.cycles, counters.instructions)
        && cycles > 0
    {
        counters.ipc = Some(instructions as f64 / cycles as f64);
    }
    if let (Some(cycles), Some(stalled)) = (counters.cycles, counters.stalled_cycles_backend)
        && cycles > 0
    {
        counters.stalled_backend_share = Some(stalled as f64 / cycles as f64);
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;

    use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Event, Hardware};
    use perf_event::{Builder, Counter};

    use memwall_report::Counters;

    /// The events counted, in the order they are opened and reported.
    #[derive(Debug, Clone, Copy)]
    enum Which {
        Cycles,
        Instructions,
        CacheMisses,
        LlcLoadMisses,
        DtlbLoadMisses,
        StalledCyclesBackend,
    }

    const ALL: [Which; 6] = [
        Which::Cycles,
        Which::Instructions,
        Which::CacheMisses,
        Which::LlcLoadMisses,
        Which::DtlbLoadMisses,
        Which::StalledCyclesBackend,
    ];

    impl Which {
        fn name(self) -> &'static str {
            match self {
                Which::Cycles => "cycles",
                Which::Instructions => "instructions",
                Which::CacheMisses => "cache_misses",
                Which::LlcLoadMisses => "llc_load_misses",
                Which::DtlbLoadMisses => "dtlb_load_misses",
                Which::StalledCyclesBackend => "stalled_cycles_backend",
            }
        }

        fn open(self) -> io::Result<Counter> {
            fn build(event: impl Event) -> io::Result<Counter> {
                // Builder defaults: this thread, any CPU, user space only, created disabled.
                Builder::new(event).inherit(true).build()
            }
            let load_miss = |which| Cache { which, operation: CacheOp::READ, result: CacheResult::MISS };
            match self {
                Which::Cycles => build(Hardware::CPU_CYCLES),
                Which::Instructions => build(Hardware::INSTRUCTIONS),
                Which::CacheMisses => build(Hardware::CACHE_MISSES),
                Which::LlcLoadMisses => build(load_miss(CacheId::LL)),
                Which::DtlbLoadMisses => build(load_miss(CacheId::DTLB)),
                Which::StalledCyclesBackend => build(Hardware::STALLED_CYCLES_BACKEND),
            }
        }

        fn slot(self, counters: &mut Counters) -> &mut Option<u64> {
            match self {
                Which::Cycles => &mut counters.cycles,
                Which::Instructions => &mut counters.instructions,
                Which::CacheMisses => &mut counters.cache_misses,
                Which::LlcLoadMisses => &mut counters.llc_load_misses,
                Which::DtlbLoadMisses => &mut counters.dtlb_load_misses,
                Which::StalledCyclesBackend => &mut counters.stalled_cycles_backend,
            }
        }
    }

    #[derive(Debug)]
    pub struct Session {
        open: Vec<(Which, Counter)>,
        /// Events that failed to open or enable, with the OS error.
        failed: Vec<(Which, io::Error)>,
    }

    impl Session {
        pub fn start() -> Self {
            let mut open = Vec::new();
            let mut failed = Vec::new();
            for which in ALL {
                match which.open() {
                    Ok(counter) => open.push((which, counter)),
                    Err(e) => failed.push((which, e)),
                }
            }
            // Enabled last and back to back, so the counters cover (nearly) the same span and
            // none of the opening work.
            let mut enabled = Vec::with_capacity(open.len());
            for (which, mut counter) in open {
                match counter.enable() {
                    Ok(()) => enabled.push((which, counter)),
                    Err(e) => failed.push((which, e)),
                }
            }
            Self { open: enabled, failed }
        }

        pub fn stop(mut self) -> Counters {
            for (_, counter) in &mut self.open {
                // A failed disable only means the counter ran a few instructions longer.
                let _ = counter.disable();
            }
            let mut counters = Counters { scope: Some(super::SCOPE.into()), ..Counters::default() };
            let mut least_share: Option<f64> = None;
            for (which, counter) in &mut self.open {
                match counter.read_count_and_time() {
                    // Never scheduled on the PMU (all its counters taken): no figure at all.
                    Ok(read) if read.time_running == 0 => counters
                        .not_counted
                        .push(format!("{}: never scheduled on the PMU (its counters were all in use)", which.name())),
                    Ok(read) => {
                        let share = read.time_running as f64 / read.time_enabled.max(1) as f64;
                        let share = share.min(1.0);
                        least_share = Some(least_share.map_or(share, |s: f64| s.min(share)));
                        let count = if read.time_running < read.time_enabled {
                            (read.count as f64 * read.time_enabled as f64 / read.time_running as f64).round() as u64
                        } else {
                            read.count
                        };
                        *which.slot(&mut counters) = Some(count);
                    }
                    Err(e) => counters.not_counted.push(format!("{}: {e}", which.name())),
                }
            }
            for (which, e) in &self.failed {
                counters.not_counted.push(format!("{}: {}", which.name(), explain(e)));
            }
            counters.running_share = least_share;
            counters.available = least_share.is_some();
            if !counters.available {
                counters.unavailable = Some(match self.failed.first() {
                    Some((which, e)) => format!("perf_event_open({}): {}", which.name(), explain(e)),
                    None => "no counter could be read".into(),
                });
                counters.not_counted.clear();
                counters.scope = None;
            }
            super::derive(&mut counters);
            counters
        }
    }

    /// The OS error, plus what it usually means for perf_event_open.
    fn explain(e: &io::Error) -> String {
        let hint = match e.raw_os_error() {
            // ENOENT and EOPNOTSUPP: the event does not exist here, which for the generic
            // hardware events means the CPU exposes no PMU (the usual case in a VM).
            Some(2 | 95) => Some("no hardware PMU is exposed to this OS (usual in VMs)".to_string()),
            Some(1 | 13) => Some(match std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid") {
                Ok(level) => format!("not permitted (kernel.perf_event_paranoid = {})", level.trim()),
                Err(_) => "not permitted".to_string(),
            }),
            Some(38) => Some("this kernel has no perf_event_open".to_string()),
            _ => None,
        };
        match hint {
            Some(hint) => format!("{e}: {hint}"),
            None => e.to_string(),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use memwall_report::Counters;

    #[derive(Debug)]
    pub struct Session;

    impl Session {
        pub fn start() -> Self {
            Session
        }

        pub fn stop(self) -> Counters {
            Counters::unavailable(format!(
                "hardware counters need Linux perf_event_open; this is {}",
                std::env::consts::OS
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(iterations: u64) -> u64 {
        let mut x = 0u64;
        for i in 0..iterations {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        x
    }

    /// Either real counts for real work, or an honest "unavailable" with the reason; never a
    /// made-up figure.
    #[test]
    fn a_busy_loop_is_counted_or_the_reason_is_given() {
        let session = CounterSession::start();
        std::hint::black_box(busy(20_000_000));
        let counters = session.stop();
        if counters.available {
            let cycles = counters.cycles.or(counters.instructions);
            assert!(cycles.is_some_and(|c| c > 1_000_000), "{counters:?}");
            if let Some(instructions) = counters.instructions {
                // At least one instruction per iteration of the loop.
                assert!(instructions >= 20_000_000, "{counters:?}");
            }
            assert!(counters.unavailable.is_none());
            let share = counters.running_share.expect("a share when available");
            assert!(share > 0.0 && share <= 1.0);
        } else {
            let reason = counters.unavailable.as_deref().unwrap_or("");
            assert!(!reason.trim().is_empty(), "{counters:?}");
            eprintln!("counters unavailable here: {reason}");
            for figure in [
                counters.cycles,
                counters.instructions,
                counters.cache_misses,
                counters.llc_load_misses,
                counters.dtlb_load_misses,
                counters.stalled_cycles_backend,
            ] {
                assert_eq!(figure, None, "{counters:?}");
            }
            assert_eq!((counters.ipc, counters.stalled_backend_share, counters.running_share), (None, None, None));
        }
        assert_eq!(probe().is_ok(), counters.available);
    }

    /// Work done by a thread spawned after `start` is in the counts.
    #[test]
    fn threads_spawned_after_start_are_counted() {
        let session = CounterSession::start();
        std::thread::scope(|s| {
            s.spawn(|| std::hint::black_box(busy(30_000_000)));
        });
        let counters = session.stop();
        match counters.instructions {
            // The starting thread itself only spawned and joined: the bulk is the child's.
            Some(instructions) => assert!(instructions >= 30_000_000, "{counters:?}"),
            None => assert!(!counters.available || counters.not_counted.iter().any(|n| n.starts_with("instructions"))),
        }
    }

    #[test]
    fn derived_ratios_come_only_from_counts() {
        let mut counters = Counters::unavailable("x");
        derive(&mut counters);
        assert_eq!((counters.ipc, counters.stalled_backend_share), (None, None));
        counters.cycles = Some(1000);
        counters.instructions = Some(500);
        counters.stalled_cycles_backend = Some(250);
        derive(&mut counters);
        assert_eq!(counters.ipc, Some(0.5));
        assert_eq!(counters.stalled_backend_share, Some(0.25));
        counters.cycles = Some(0);
        counters.ipc = None;
        counters.stalled_backend_share = None;
        derive(&mut counters);
        assert_eq!((counters.ipc, counters.stalled_backend_share), (None, None));
    }
}
