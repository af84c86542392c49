//! Time, as the front end provides it.
//!
//! Natively this is `std::time::Instant`; in a browser, `performance.now()`, whose resolution is
//! deliberately coarsened (100 µs, or 5 µs when cross-origin isolated). Measurements ask the
//! clock for its resolution and size their samples so that it does not matter.

/// A monotonic clock reading in nanoseconds from an arbitrary origin.
pub trait Clock {
    fn now_ns(&self) -> f64;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ns(&self) -> f64 {
        (**self).now_ns()
    }
}

/// The smallest non-zero step the clock was seen to take (ns), over `tries` changes.
///
/// Spinning until the reading changes catches both a coarse tick (browsers) and the cost of
/// reading a fine one (native), whichever is larger: both bound what one sample can resolve.
pub fn resolution_ns(clock: &dyn Clock, tries: u32) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..tries.max(1) {
        let start = clock.now_ns();
        let mut now = clock.now_ns();
        // A clock that never advances would hang here; a billion reads is seconds, not forever.
        let mut spins = 0u32;
        while now <= start && spins < 1_000_000_000 {
            now = clock.now_ns();
            spins += 1;
        }
        if now > start {
            best = best.min(now - start);
        }
    }
    best
}

/// Time taken by `f`, in ns, with the result kept alive so the work is not optimized away.
pub fn time_ns<T>(clock: &dyn Clock, f: impl FnOnce() -> T) -> (f64, T) {
    let start = clock.now_ns();
    let out = core::hint::black_box(f());
    (clock.now_ns() - start, out)
}

/// A clock that advances 1 µs per reading, for tests of code that times things: timings are
/// fake, the plumbing is real.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Ticks(std::cell::Cell<f64>);

#[cfg(test)]
impl Clock for Ticks {
    fn now_ns(&self) -> f64 {
        self.0.set(self.0.get() + 1000.0);
        self.0.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A clock that advances by a fixed tick every `reads_per_tick` reads.
    struct SteppingClock {
        reads: Cell<u64>,
        reads_per_tick: u64,
        tick_ns: f64,
    }

    impl Clock for SteppingClock {
        fn now_ns(&self) -> f64 {
            let r = self.reads.get();
            self.reads.set(r + 1);
            (r / self.reads_per_tick) as f64 * self.tick_ns
        }
    }

    #[test]
    fn resolution_finds_the_tick() {
        let clock = SteppingClock { reads: Cell::new(0), reads_per_tick: 7, tick_ns: 100_000.0 };
        assert_eq!(resolution_ns(&clock, 5), 100_000.0);
    }
}
