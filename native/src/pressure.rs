//! Cache pressure from a neighbour CPU: a pinned thread streaming a buffer while something else
//! runs (`memwall sensitivity`'s levels).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use memwall_core::bandwidth::{read_words, write_words};

/// The CPUs a `cpu_set_t` can name.
const CPU_SET_BITS: u32 = 1024;

/// What the pressure thread did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PressureStats {
    /// Full passes (read, then write) over the buffer.
    pub passes: u64,
    /// The thread saw the stop flag and left its loop (it was joined after).
    pub stopped: bool,
}

/// Sets the flag when dropped: the pressure stops even if `body` panics.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Runs `body` while a thread pinned to `cpu` streams a buffer of `bytes`; the thread has made
/// one full pass (every page touched, the buffer in the caches) before `body` starts, and is
/// stopped and joined before this returns, whatever `body` returned. `Err` when the thread could
/// not start; `body` has then not run.
pub fn with_pressure<R>(cpu: u32, bytes: u64, body: impl FnOnce() -> R) -> Result<(R, PressureStats), String> {
    let stop = AtomicBool::new(false);
    let passes = AtomicU64::new(0);
    let (ready_tx, ready_rx) = mpsc::channel::<Result<(), String>>();
    std::thread::scope(|scope| {
        let thread = scope.spawn(|| -> bool {
            // Checked first: core_affinity indexes glibc's 1024-bit cpu_set_t without a bound check
            // (this thread's own mask may be narrower than the process's: its spawner is pinned).
            if cpu >= CPU_SET_BITS || !core_affinity::set_for_current(core_affinity::CoreId { id: cpu as usize }) {
                let _ = ready_tx.send(Err(format!("could not pin the pressure thread to CPU {cpu}")));
                return false;
            }
            let words = usize::try_from(bytes / 8).unwrap_or(usize::MAX).max(1);
            let mut buffer = vec![1u64; words];
            write_words(&mut buffer, 2);
            let _ = ready_tx.send(Ok(()));
            while !stop.load(Ordering::Relaxed) {
                let sum = read_words(&buffer);
                write_words(&mut buffer, std::hint::black_box(sum));
                passes.fetch_add(1, Ordering::Relaxed);
            }
            true
        });
        let stopper = StopOnDrop(&stop);
        let ready = ready_rx.recv().unwrap_or_else(|_| Err("the pressure thread stopped before it began".into()));
        let result = ready.map(|()| body());
        drop(stopper);
        let stopped = thread.join().unwrap_or(false);
        result.map(|r| (r, PressureStats { passes: passes.load(Ordering::Relaxed), stopped }))
    })
}
