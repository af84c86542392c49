//! The native [`Executor`]: scoped threads that take tasks from a shared counter, optionally
//! pinned one per CPU.
//!
//! Threads are started per `run` rather than kept in a pool: a kernel calls `run` three times
//! per aggregation, and starting a thread costs tens of microseconds against runs of tenths of
//! seconds. In exchange nothing outlives a run, and hardware counters (which follow threads
//! spawned after they start) see every worker.

use std::sync::atomic::{AtomicUsize, Ordering};

use memwall_core::exec::Executor;

use crate::error::{CliError, CliResult};
use crate::platform::pin_current_thread;

/// More threads than this only time the scheduler (and multiply per-thread scratch memory, and
/// a typo such as 1000000 would try to start that many): 4 per CPU, and never fewer than 1024
/// so that oversubscription can still be studied on a small host.
fn max_threads(cpus: usize) -> usize {
    cpus.saturating_mul(4).max(1024)
}

#[derive(Debug)]
pub struct Threads {
    threads: usize,
    /// CPU of each worker (worker 0 is the calling thread), when pinning.
    cpus: Option<Vec<usize>>,
}

impl Threads {
    /// `threads` workers; with `pin`, worker `i` runs on the `i`-th CPU this process may use,
    /// counting from `pin` and wrapping around. Pins the calling thread (worker 0) right away.
    pub fn new(threads: usize, pin: Option<u32>) -> CliResult<Self> {
        if threads == 0 {
            return Err(CliError::usage("--threads must be at least 1"));
        }
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = max_threads(cpus);
        if threads > most {
            return Err(CliError::usage(format!(
                "--threads {threads}: at most {most} (this process may use {cpus} CPUs); each thread also takes its own scratch memory"
            )));
        }
        let Some(first) = pin else { return Ok(Self { threads, cpus: None }) };
        // Read before pinning: afterwards this thread may run on `first` alone.
        let mut allowed: Vec<usize> = core_affinity::get_core_ids().unwrap_or_default().iter().map(|c| c.id).collect();
        pin_current_thread(first)?;
        allowed.sort_unstable();
        let start = allowed.iter().position(|&cpu| cpu == first as usize).unwrap_or(0);
        let cpus = (0..threads).map(|i| allowed[(start + i) % allowed.len()]).collect();
        Ok(Self { threads, cpus: Some(cpus) })
    }

    /// The CPUs workers are pinned to, if they are.
    pub fn cpus(&self) -> Option<&[usize]> {
        self.cpus.as_deref()
    }
}

impl Executor for Threads {
    fn threads(&self) -> usize {
        self.threads
    }

    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        let workers = self.threads.min(tasks);
        if workers <= 1 {
            (0..tasks).for_each(task);
            return;
        }
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tasks {
                    break;
                }
                task(i);
            }
        };
        std::thread::scope(|scope| {
            for worker in 1..workers {
                let cpu = self.cpus.as_ref().map(|cpus| cpus[worker]);
                let work = &work;
                scope.spawn(move || {
                    if let Some(id) = cpu {
                        // A refused pin leaves the worker unpinned: slower, never wrong.
                        core_affinity::set_for_current(core_affinity::CoreId { id });
                    }
                    work();
                });
            }
            work();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn every_task_runs_once_on_several_threads() {
        let threads = Threads::new(3, None).unwrap();
        let seen = Mutex::new(Vec::new());
        let ids = Mutex::new(std::collections::HashSet::new());
        threads.run(100, &|i| {
            seen.lock().unwrap().push(i);
            ids.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_micros(200));
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        assert!(ids.into_inner().unwrap().len() > 1);
        threads.run(0, &|_| panic!("no tasks"));
    }

    #[test]
    fn zero_threads_is_a_usage_error() {
        assert_eq!(Threads::new(0, None).unwrap_err().code, 2);
    }

    #[test]
    fn pinning_wraps_over_allowed_cpus() {
        let allowed = core_affinity::get_core_ids().unwrap_or_default();
        let Some(first) = allowed.first() else { return };
        let threads = Threads::new(allowed.len() + 1, Some(first.id as u32)).unwrap();
        let cpus = threads.cpus().unwrap();
        assert_eq!(cpus.len(), allowed.len() + 1);
        assert_eq!(cpus[0], first.id);
        assert_eq!(cpus[allowed.len()], cpus[0]);
        let mut distinct = cpus.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), allowed.len(), "{cpus:?} should cover {allowed:?}");
        assert!(Threads::new(1, Some(100_000)).is_err());
    }
}
