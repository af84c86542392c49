//! Turning ns into core cycles, and knowing when not to.
//!
//! The core clock comes from a dependent chain of one-cycle operations that the front end
//! supplies (`chain(n)` runs n of them, one after another; natively an add chain in asm). The
//! chain is timed at n and 2n steps, many times each, and the clock is n over the difference of
//! the two *minimum* times: the fixed cost around a run cancels, and noise (an interrupt, another
//! tenant) only ever adds time to a run, so it cannot lower a minimum. It can raise one only by
//! hitting every run of a length, and that shows: the residual 2 t(n) - t(2n), which is the fixed
//! cost, leaves zero. Then the estimate falls back to the long runs alone, 2n / t(2n), which noise
//! can only lower. Either way a disturbance never reads as a faster clock.
//!
//! On a shared host the clock also moves during a run (turbo, another tenant's load), so the
//! ladder re-estimates it between working sets and gives each point the clock of its moment.
//! Last, the figure is checked against the one latency known in cycles: an L1 hit takes a whole
//! number of them.

use memwall_report::{ClockCheck, ClockEstimate, LadderPoint};

use crate::clock::{Clock, time_ns};

/// Runs of each length per estimate: enough that some run of each escapes a disturbance.
pub const DEFAULT_REPETITIONS: u32 = 9;
/// The spread and residual under which an estimate counts as stable.
pub const STABLE_SPREAD: f64 = 0.03;
pub const STABLE_RESIDUAL: f64 = 0.02;
/// A point whose clock moved more than this is flagged.
pub const CLOCK_MOVED: f64 = 0.05;

/// The injected chain and how long a run of it is.
#[derive(Clone, Copy)]
pub struct ClockProbe<'a> {
    /// Runs n dependent one-cycle operations.
    pub chain: &'a dyn Fn(u64),
    /// Steps of the short run (the long one is twice that).
    pub steps: u64,
    pub repetitions: u32,
}

impl core::fmt::Debug for ClockProbe<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClockProbe").field("steps", &self.steps).field("repetitions", &self.repetitions).finish()
    }
}

impl<'a> ClockProbe<'a> {
    /// Sizes the short run to take at least `target_ns`.
    pub fn calibrate(clock: &dyn Clock, chain: &'a dyn Fn(u64), target_ns: f64, repetitions: u32) -> Self {
        let mut steps: u64 = 1 << 12;
        loop {
            let (elapsed, ()) = time_ns(clock, || chain(steps));
            if elapsed >= target_ns || steps >= 1 << 40 {
                break;
            }
            // Jump straight to the target once the timer sees the work.
            steps = if elapsed > target_ns / 64.0 {
                ((steps as f64 * target_ns / elapsed * 1.1) as u64).max(steps * 2)
            } else {
                steps * 8
            };
        }
        Self { chain, steps, repetitions: repetitions.max(2) }
    }

    /// One estimate: `repetitions` runs of each length, interleaved so a slow phase of the host
    /// hits both alike. `None` when the timings make no sense (a frozen or coarse clock).
    pub fn estimate(&self, clock: &dyn Clock) -> Option<ClockEstimate> {
        let mut short = Vec::with_capacity(self.repetitions as usize);
        let mut long = Vec::with_capacity(self.repetitions as usize);
        for _ in 0..self.repetitions {
            short.push(time_ns(clock, || (self.chain)(self.steps)).0);
            long.push(time_ns(clock, || (self.chain)(2 * self.steps)).0);
        }
        from_timings(self.steps, &short, &long)
    }

    /// Up to `attempts` estimates until one is stable: the first stable one, or else the highest
    /// of the unstable ones (each of those read the long runs alone, which noise only slows, so
    /// the highest is the least disturbed).
    pub fn settle(&self, clock: &dyn Clock, attempts: u32) -> Option<ClockEstimate> {
        let mut unstable: Option<ClockEstimate> = None;
        for _ in 0..attempts.max(1) {
            let Some(estimate) = self.estimate(clock) else { continue };
            if estimate.stable {
                return Some(estimate);
            }
            if unstable.as_ref().is_none_or(|u| estimate.ghz > u.ghz) {
                unstable = Some(estimate);
            }
        }
        unstable
    }
}

/// The estimate from the timings (ns) of `short` runs of `steps` and `long` runs of twice that.
pub fn from_timings(steps: u64, short: &[f64], long: &[f64]) -> Option<ClockEstimate> {
    let (short_min, short_median) = min_median(short)?;
    let (long_min, long_median) = min_median(long)?;
    if !(short_min > 0.0 && long_min > 0.0) {
        return None;
    }
    let spread = ((short_median - short_min) / short_min).max((long_median - long_min) / long_min);
    let residual = (2.0 * short_min - long_min) / short_min;
    let difference = steps as f64 / (long_min - short_min);
    let long_only = 2.0 * steps as f64 / long_min;
    let consistent = residual.abs() <= STABLE_RESIDUAL && difference.is_finite() && difference > 0.0;
    // Inconsistent minima mean one length was disturbed in every run; the long runs alone then
    // give the figure noise can only have lowered.
    let ghz = if consistent { difference } else { long_only };
    if !(0.1..20.0).contains(&ghz) {
        return None;
    }
    Some(ClockEstimate {
        ghz,
        spread,
        residual,
        repetitions: short.len().min(long.len()) as u32,
        steps,
        stable: consistent && spread <= STABLE_SPREAD,
    })
}

fn min_median(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some((sorted[0], sorted[sorted.len() / 2]))
}

/// Gives each point the clock of its moment: `around[i]` is the estimate taken just before point
/// i and `around[i + 1]` the one just after, so `around` has one more entry than `points`. A
/// point's clock is the mean of the two; it is flagged when they differ by more than
/// [`CLOCK_MOVED`], or when it sits that far from `reference` (the ladder's first estimate).
pub fn assign_local_clock(points: &mut [LadderPoint], around: &[Option<f64>], reference: Option<f64>) {
    for (i, point) in points.iter_mut().enumerate() {
        let before = around.get(i).copied().flatten();
        let after = around.get(i + 1).copied().flatten();
        let ghz = match (before, after) {
            (Some(b), Some(a)) => Some((a + b) / 2.0),
            (one, other) => one.or(other).or(reference),
        };
        let moved = |x: f64, y: f64| (x - y).abs() / x.min(y) > CLOCK_MOVED;
        point.ghz = ghz;
        point.cycles_per_load = ghz.map(|g| point.ns_per_load.median * g);
        point.clock_moved = matches!((before, after), (Some(b), Some(a)) if moved(b, a))
            || matches!((ghz, reference), (Some(g), Some(r)) if moved(g, r));
    }
}

/// The smallest whole number of cycles an L1 hit takes on any current core, and the largest.
const L1_CYCLES: core::ops::RangeInclusive<u32> = 3..=6;
/// How far from a whole number an L1 reading may sit: the L1 minimum is the least noisy point of
/// the ladder, and 0.4 still tells 4 from 4.5 (a clock 12% off) and 5 from 5.5.
const L1_TOLERANCE: f64 = 0.4;

/// Reads the clock against the L1 latency: the smallest working set, if it fits well inside L1
/// (`l1_bytes`, the declared L1d; 16 KiB when unknown, which every current L1d holds), should take
/// a whole number of cycles from 3 to 6. `None` when no point qualifies or no clock is known.
pub fn check_clock(points: &[LadderPoint], l1_bytes: Option<u64>, ghz: Option<f64>) -> Option<ClockCheck> {
    let limit = l1_bytes.map_or(16 << 10, |b| b / 2).max(1);
    let point = points.iter().filter(|p| p.bytes <= limit).min_by_key(|p| p.bytes)?;
    let ghz = point.ghz.or(ghz)?;
    let ns = point.ns_per_load.min;
    let cycles = ns * ghz;
    let whole = cycles.round();
    let plausible = whole >= f64::from(*L1_CYCLES.start())
        && whole <= f64::from(*L1_CYCLES.end())
        && (cycles - whole).abs() <= L1_TOLERANCE;
    let size = crate::size::format_bytes(point.bytes);
    let note = if plausible {
        format!(
            "L1 ({size}) reads {cycles:.2} cycles ({ns:.2} ns at {ghz:.2} GHz): a whole number of cycles, as an L1 hit always is"
        )
    } else {
        format!(
            "L1 ({size}) reads {cycles:.2} cycles ({ns:.2} ns at {ghz:.2} GHz), not the whole {}-{} cycles an L1 hit \
             takes: the clock estimate does not match this core's clock at that moment, so cycles are left out",
            L1_CYCLES.start(),
            L1_CYCLES.end()
        )
    };
    Some(ClockCheck { bytes: point.bytes, ns_per_load: ns, ghz, cycles_per_load: cycles, plausible, note })
}

/// Drops every cycle figure when the check failed: a wrong clock makes every one of them wrong.
pub fn withhold_cycles_if_implausible(points: &mut [LadderPoint], check: Option<&ClockCheck>) -> Option<String> {
    let check = check.filter(|c| !c.plausible)?;
    for point in points {
        point.cycles_per_load = None;
    }
    Some(check.note.clone())
}

#[cfg(test)]
mod tests;
