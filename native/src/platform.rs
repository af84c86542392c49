//! What the host gives the core natively: a clock, pinning, a core-clock estimate, and how much
//! memory may be asked for.

use memwall_core::clock::Clock;
use memwall_core::cycles::ClockProbe;
use memwall_report::ClockEstimate;

use crate::error::CliError;

/// `std::time::Instant`, read as nanoseconds since the clock was made.
#[derive(Debug, Clone, Copy)]
pub struct NativeClock(std::time::Instant);

impl NativeClock {
    pub fn new() -> Self {
        Self(std::time::Instant::now())
    }
}

impl Clock for NativeClock {
    fn now_ns(&self) -> f64 {
        self.0.elapsed().as_nanos() as f64
    }
}

/// Pins the calling thread to `cpu`, refusing CPUs this process may not run on.
pub fn pin_current_thread(cpu: u32) -> Result<(), CliError> {
    let allowed = core_affinity::get_core_ids().unwrap_or_default();
    if !allowed.iter().any(|core| core.id == cpu as usize) {
        let list: Vec<String> = allowed.iter().map(|core| core.id.to_string()).collect();
        return Err(CliError::usage(format!(
            "--pin {cpu}: no such CPU here (this process may run on CPUs {})",
            if list.is_empty() { "?".into() } else { list.join(",") }
        )));
    }
    if core_affinity::set_for_current(core_affinity::CoreId { id: cpu as usize }) {
        Ok(())
    } else {
        Err(CliError::runtime(format!("--pin {cpu}: sched_setaffinity refused")))
    }
}

/// `add_chain` for one architecture: eight dependent adds (`$add`, spelled for it) a loop, the
/// loop counted down by `$count` and closed by `$branch`.
macro_rules! add_chain {
    ($arch:literal, $add:literal, $count:literal, $branch:literal) => {
        #[cfg(target_arch = $arch)]
        pub fn add_chain(steps: u64) {
            let iterations = steps.div_ceil(8).max(1);
            let one: u64 = core::hint::black_box(1);
            let mut x: u64 = 0;
            // SAFETY: pure register arithmetic; touches no memory and no other state than the flags.
            unsafe {
                core::arch::asm!(
                    "2:",
                    $add, $add, $add, $add, $add, $add, $add, $add,
                    $count,
                    $branch,
                    x = inout(reg) x,
                    n = inout(reg) iterations => _,
                    one = in(reg) one,
                    options(nomem, nostack),
                );
            }
            core::hint::black_box(x);
        }
    };
}

// Runs `steps` dependent one-cycle adds: the chain `cycles::ClockProbe` times.
//
// The addend is a register whose value the core cannot know ahead: on a 16-vCPU Intel Xeon
// guest a chain of `add reg, imm` read as an 8.6-11.5 GHz clock, several adds a cycle, which
// points at recent Intel cores folding immediate adds early. Whether the register form reads
// true there is not yet measured (the L1 cross-check withholds cycles if it does not); on a
// Zen 4 guest both forms read 3.69 GHz.
add_chain!("x86_64", "add {x}, {one}", "dec {n}", "jnz 2b");
add_chain!("aarch64", "add {x}, {x}, {one}", "subs {n}, {n}, 1", "b.ne 2b");

/// The add chain as the core's clock probe, its runs about `target_ns` long, or why there is none.
pub fn clock_probe(clock: &dyn Clock, target_ns: f64, repetitions: u32) -> Result<ClockProbe<'static>, String> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        Ok(ClockProbe::calibrate(clock, &add_chain, target_ns, repetitions))
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (clock, target_ns, repetitions);
        Err(format!("no calibration chain for {}", std::env::consts::ARCH))
    }
}

/// Core clock from a dependent add chain (runs of 0.5 and 1 ms, fifteen of each), or why it could
/// not be had. Short runs: a timer tick every few ms lands in most runs of 2-4 ms, and the minimum
/// then has no clean run to find; 0.5 ms is still 20,000 timer resolutions.
pub fn core_clock(clock: &dyn Clock) -> Result<ClockEstimate, String> {
    clock_probe(clock, 5e5, 15)?.settle(clock, 3).ok_or_else(|| "the add-chain timings were inconsistent".to_string())
}

pub fn total_memory_bytes() -> Option<u64> {
    use procfs::Current;
    procfs::Meminfo::current().ok().map(|info| info.mem_total)
}

/// Refuses, before anything is allocated, a plan that needs more memory than this process can
/// get: the least of MemAvailable and its cgroup's headroom (see [`crate::headroom`]).
/// `what` names the flag or input responsible so the message says what to change.
pub fn check_fits_in_memory(needed_bytes: u64, what: &str) -> Result<(), CliError> {
    let Some(headroom) = crate::headroom::headroom() else { return Ok(()) };
    crate::headroom::fits(needed_bytes, what, &headroom)
}

/// CPU time the calling thread has used, in seconds; `None` where the OS does not say (then a
/// caller counts wall time, which is never less).
pub fn thread_cpu_seconds() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes one timespec, which `now` is, and keeps no pointer to it.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        (rc == 0).then_some(now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
