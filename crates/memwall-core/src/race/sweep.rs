//! What the GROUP BY and join sweeps share: the points they sweep, a race at each point that keeps
//! every kernel's fastest run, and where one kernel starts to beat another for good.

use core::ops::ControlFlow;

use super::{RaceError, RaceEvent, Racer, Timings, Workload};

/// Progress of a sweep, for a bar or a page; returning `Break` cancels it.
#[derive(Debug, Clone, Copy)]
pub enum SweepEvent<K> {
    /// Generating the data of the point at `x`.
    Generating { x: u64 },
    /// About to time `kernel` at `x`, run `run` of `runs`.
    Running { x: u64, kernel: K, run: u32, runs: u32 },
    /// One kernel's point is done.
    Measured { x: u64, kernel: K, ns_per_row: f64 },
}

/// Powers of two from `min` (rounded up to one) to `max`.
pub fn doublings(min: u64, max: u64) -> Vec<u64> {
    let mut x = min.max(1).checked_next_power_of_two().unwrap_or(1 << 63);
    let mut out = Vec::new();
    while x <= max {
        out.push(x);
        let Some(next) = x.checked_mul(2) else { break };
        x = next;
    }
    out
}

/// The smallest `x` from which `fast` beats `slow` at every larger `x` too, over points of
/// (x, kernel name, time).
pub fn crossover(points: &[(u64, &str, f64)], fast: &str, slow: &str) -> Option<u64> {
    let mut xs: Vec<u64> = points.iter().map(|p| p.0).collect();
    xs.sort_unstable();
    xs.dedup();
    let time = |x: u64, kernel: &str| points.iter().find(|p| p.0 == x && p.1 == kernel).map(|p| p.2);
    let mut from = None;
    for &x in xs.iter().rev() {
        match (time(x, fast), time(x, slow)) {
            (Some(f), Some(s)) if f < s => from = Some(x),
            (Some(_), Some(_)) => break,
            _ => {}
        }
    }
    from
}

/// The index of the fastest run: on a shared machine noise only ever adds time, and a sweep
/// compares kernels point by point, where a median of few runs swings by tens of %.
pub fn fastest_run(seconds: &[f64]) -> usize {
    (0..seconds.len()).min_by(|&a, &b| seconds[a].total_cmp(&seconds[b])).unwrap_or(0)
}

impl<W: Workload> Racer<'_, W> {
    /// The race at the sweep's point `x`: every kernel's runs, their start told to `on_event`.
    pub fn time_at(
        &self,
        x: u64,
        input: W::Input<'_>,
        on_event: &mut dyn FnMut(SweepEvent<W::Kernel>) -> ControlFlow<()>,
    ) -> Result<Vec<Timings<W>>, RaceError<W::Error>> {
        self.time(input, &mut |event| match event {
            RaceEvent::Running { kernel, run, runs } => on_event(SweepEvent::Running { x, kernel, run, runs }),
            RaceEvent::Checking | RaceEvent::WarmingUp { .. } | RaceEvent::Timed { .. } => ControlFlow::Continue(()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doublings_and_crossovers() {
        assert_eq!(doublings(1000, 10_000), vec![1024, 2048, 4096, 8192]);
        assert_eq!(doublings(16, 16), vec![16]);
        assert!(doublings(100, 10).is_empty());
        assert_eq!(doublings(1 << 63, u64::MAX), vec![1 << 63]);
        assert_eq!(doublings(0, 1), [1]);
        // b beats a from 4 on, though it won at 1 too; never the other way round for good.
        let points = [(1, "a", 2.0), (1, "b", 1.0), (2, "a", 1.0), (2, "b", 2.0), (4, "a", 3.0), (4, "b", 1.0)];
        assert_eq!(crossover(&points, "b", "a"), Some(4));
        assert_eq!(crossover(&points, "a", "b"), None);
        assert_eq!(fastest_run(&[3.0, 1.0, 2.0]), 1);
    }
}
