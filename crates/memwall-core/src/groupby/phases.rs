//! Where a kernel's time goes, without a PMU: timers around its phases that stay in the code.
//!
//! A kernel is handed a [`Phases`]; with timing off (the default) it holds nothing and
//! [`Phases::time`] is a plain call of its closure, so the timed code compiles to what it was
//! before. With timing on it reads the front end's clock (the injected [`Clock`], so it runs
//! the same natively and in a browser) around each phase and adds the time up per phase. A
//! phase is timed where it runs: on several threads a phase's figure is the sum over the
//! threads that ran it (about `threads` times its wall time when they all did).
//!
//! Phases are timed coarsely (a whole scatter, one partition's aggregation), never per row: a
//! clock read costs tens of ns, and the 4096 partitions of a clickbench run take ~12,000 reads,
//! well under 0.1% of the run.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::clock::Clock;

/// A phase of a GROUP BY kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Estimating the groups from a sample of rows (prefetch, adaptive).
    Sample,
    /// Adaptive only: its trial of the small tables on the first rows (each table's warm-up and
    /// timed slices, `small.rs`), whichever table then takes the rest.
    Trial,
    /// Hashing every row and writing it to its partition (radix, tuned).
    Scatter,
    /// Splitting a scattered partition further, in cache (tuned with more partitions than it
    /// scatters to, adaptive's tuned when a partition outgrows the cache).
    Split,
    /// Probing and updating the hash tables: one per partition, or one for all rows.
    Aggregate,
    /// Reading the groups out of the tables into the result (and emptying them for reuse).
    Emit,
    /// Combining the results of tasks that aggregated disjoint partitions.
    Merge,
    /// Adaptive only: attempts given up because the groups outgrew them.
    GivenUp,
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Sample,
        Phase::Trial,
        Phase::Scatter,
        Phase::Split,
        Phase::Aggregate,
        Phase::Emit,
        Phase::Merge,
        Phase::GivenUp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Sample => "sample",
            Self::Trial => "trial",
            Self::Scatter => "scatter",
            Self::Split => "split",
            Self::Aggregate => "aggregate",
            Self::Emit => "emit",
            Self::Merge => "merge",
            Self::GivenUp => "given-up",
        }
    }
}

/// Time per phase over one run, in ns, filled in by the kernel's [`Phases`].
pub struct PhaseClock<'c> {
    clock: &'c (dyn Clock + Sync),
    ns: [AtomicU64; Phase::ALL.len()],
    entered: [AtomicU64; Phase::ALL.len()],
}

impl core::fmt::Debug for PhaseClock<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PhaseClock").field("ns", &self.times()).finish()
    }
}

impl<'c> PhaseClock<'c> {
    pub fn new(clock: &'c (dyn Clock + Sync)) -> Self {
        Self { clock, ns: Default::default(), entered: Default::default() }
    }

    /// The handle kernels time their phases with.
    pub fn phases(&self) -> Phases<'_> {
        Phases(Some(self))
    }

    /// ns spent in each phase the run entered, in [`Phase::ALL`]'s order.
    pub fn times(&self) -> Vec<(Phase, f64)> {
        Phase::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.entered[*i].load(Ordering::Relaxed) > 0)
            .map(|(i, &phase)| (phase, self.ns[i].load(Ordering::Relaxed) as f64))
            .collect()
    }

    fn add(&self, phase: Phase, ns: f64) {
        // Whole ns: a clock step finer than that is noise at these durations.
        self.ns[phase as usize].fetch_add(ns.max(0.0).round() as u64, Ordering::Relaxed);
        self.entered[phase as usize].fetch_add(1, Ordering::Relaxed);
    }

    fn snapshot(&self) -> [u64; Phase::ALL.len()] {
        core::array::from_fn(|i| self.ns[i].load(Ordering::Relaxed))
    }
}

/// A kernel's phase timer: nothing at all when timing is off.
#[derive(Debug, Clone, Copy, Default)]
pub struct Phases<'p>(Option<&'p PhaseClock<'p>>);

impl<'p> Phases<'p> {
    /// No timing: every [`Phases::time`] is a plain call.
    pub const OFF: Phases<'static> = Phases(None);

    /// Runs `f`, adding its time to `phase` when timing is on.
    #[inline(always)]
    pub fn time<T>(self, phase: Phase, f: impl FnOnce() -> T) -> T {
        match self.0 {
            None => f(),
            Some(clock) => {
                let start = clock.clock.now_ns();
                let out = f();
                clock.add(phase, clock.clock.now_ns() - start);
                out
            }
        }
    }

    /// The start of a phase whose code does not fit one closure; see [`Phases::stop`].
    #[inline(always)]
    pub fn start(self) -> Option<f64> {
        self.0.map(|clock| clock.clock.now_ns())
    }

    /// Ends the phase [`Phases::start`] began.
    #[inline(always)]
    pub fn stop(self, phase: Phase, start: Option<f64>) {
        if let (Some(clock), Some(start)) = (self.0, start) {
            clock.add(phase, clock.clock.now_ns() - start);
        }
    }

    /// Times an attempt that may be given up (adaptive's cheap kernels): if `f` returns `None`,
    /// all it spent, in whatever phases but [`Phase::Sample`], is moved to [`Phase::GivenUp`].
    /// A sample taken within the attempt is kept as one: adaptive uses it after.
    pub fn attempt<T, E>(self, f: impl FnOnce() -> Result<Option<T>, E>) -> Result<Option<T>, E> {
        let Some(clock) = self.0 else { return f() };
        let before = clock.snapshot();
        let start = clock.clock.now_ns();
        let out = f();
        if matches!(out, Ok(None)) {
            let sample = Phase::Sample as usize;
            let sampled = clock.ns[sample].load(Ordering::Relaxed).saturating_sub(before[sample]);
            for (i, &was) in before.iter().enumerate().filter(|&(i, _)| i != sample) {
                clock.ns[i].store(was, Ordering::Relaxed);
            }
            clock.add(Phase::GivenUp, clock.clock.now_ns() - start - sampled as f64);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 µs a reading, and `Sync` (the race's clock must be, for kernels on threads).
    #[derive(Default)]
    struct Ticks(AtomicU64);

    impl Clock for Ticks {
        fn now_ns(&self) -> f64 {
            (self.0.fetch_add(1000, Ordering::Relaxed) + 1000) as f64
        }
    }

    #[test]
    fn phases_add_up_and_off_records_nothing() {
        let ticks = Ticks::default();
        let clock = PhaseClock::new(&ticks);
        let phases = clock.phases();
        assert_eq!(phases.time(Phase::Scatter, || 7), 7);
        phases.time(Phase::Aggregate, || ());
        phases.time(Phase::Aggregate, || ticks.now_ns());
        assert_eq!(clock.times(), vec![(Phase::Scatter, 1000.0), (Phase::Aggregate, 3000.0)]);
        assert_eq!(Phases::OFF.time(Phase::Scatter, || 3), 3);
        assert!(format!("{clock:?}").contains("Scatter"));
    }

    #[test]
    fn a_given_up_attempt_moves_its_time() {
        let ticks = Ticks::default();
        let clock = PhaseClock::new(&ticks);
        let phases = clock.phases();
        phases.time(Phase::Sample, || ());
        let gave_up: Result<Option<()>, ()> = phases.attempt(|| {
            phases.time(Phase::Aggregate, || ());
            phases.time(Phase::Sample, || ());
            Ok(None)
        });
        assert_eq!(gave_up, Ok(None));
        let kept: Result<Option<u8>, ()> = phases.attempt(|| Ok(Some(phases.time(Phase::Emit, || 1))));
        assert_eq!(kept, Ok(Some(1)));
        // The attempt's aggregation went to given-up (its own two reads plus the inner four, less
        // the sample's one), its sample stayed a sample.
        let times = clock.times();
        assert_eq!(times[0], (Phase::Sample, 2000.0));
        assert!(times.contains(&(Phase::Aggregate, 0.0)));
        assert!(times.contains(&(Phase::GivenUp, 4000.0)));
        assert!(times.contains(&(Phase::Emit, 1000.0)));
    }
}
