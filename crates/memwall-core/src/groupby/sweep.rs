//! Sweeps: how each kernel's ns per row moves with the number of groups (where partitioning
//! starts to pay) and with the partition count (the U: too few partitions and each table
//! overflows cache, too many and the scatter's write streams do).
//!
//! Timing is the front end's clock; everything else is here so that the browser sweeps the same
//! way the CLI does.

use core::ops::ControlFlow;

use memwall_report::{Sweep, SweepPoint};

use super::datagen::{self, DataError, DataSpec, Skew};
use super::race::{Check, RaceError, RaceEvent, Racer, Timings, Truth};
use super::{GroupByConfig, GroupByError, Kernel};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    GroupBy(#[from] GroupByError),
    #[error("{0}")]
    Data(#[from] DataError),
    #[error("at x = {x}: {error}")]
    Wrong { x: u64, error: String },
    #[error("{0}")]
    Invalid(String),
    #[error("cancelled")]
    Cancelled,
}

/// Progress, for a bar or a page; returning `Break` cancels the sweep.
#[derive(Debug, Clone, Copy)]
pub enum SweepEvent {
    /// Generating the data of the point at `x` (cardinality sweeps).
    Generating { x: u64 },
    /// About to time `kernel` at `x`, run `run` of `runs`.
    Running { x: u64, kernel: Kernel, run: u32, runs: u32 },
    /// One point is done.
    Measured { x: u64, kernel: Kernel, ns_per_row: f64 },
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

/// A racer sweeps too: the same kernels, clock and runs, raced at every point.
impl Racer<'_> {
    /// ns per row as the number of distinct keys grows, at a fixed number of rows.
    pub fn cardinality(
        &self,
        rows: u64,
        distinct: &[u64],
        skew: Skew,
        seed: u64,
        on_event: &mut dyn FnMut(SweepEvent) -> ControlFlow<()>,
    ) -> Result<Sweep, SweepError> {
        if let Some(&too_many) = distinct.iter().find(|&&d| d > rows || d == 0) {
            return Err(SweepError::Invalid(format!(
                "{too_many} distinct keys do not fit {rows} rows, at least one each"
            )));
        }
        let mut points = Vec::new();
        let mut checks = None;
        for &x in distinct {
            flow(on_event(SweepEvent::Generating { x }))?;
            let keys = datagen::generate_with(&DataSpec { rows, keys: x, skew, seed }, self.exec)?;
            // The generator makes every one of the `x` keys appear: a check every run gets.
            let truth = Truth { groups: Some(x), ..self.truth };
            points.extend(self.measure(&keys, &self.config, self.kernels, x, truth, &mut checks, on_event)?);
        }
        let crossover_distinct_keys = crossover(&points, Kernel::Radix, Kernel::Naive);
        let adaptive_max_slowdown = adaptive_max_slowdown(&points);
        Ok(Sweep {
            kind: "cardinality".into(),
            rows,
            points,
            crossover_distinct_keys,
            adaptive_max_slowdown,
            memory: Some(self.policy.name().into()),
            verified_by: names(checks),
        })
    }

    /// ns per row of the partitioning kernels as the partition count grows, over `keys`.
    pub fn partitions(
        &self,
        keys: &[i64],
        partitions: &[u32],
        on_event: &mut dyn FnMut(SweepEvent) -> ControlFlow<()>,
    ) -> Result<Sweep, SweepError> {
        let kernels: Vec<Kernel> = self.kernels.iter().copied().filter(|k| k.uses_partitions()).collect();
        if kernels.is_empty() {
            return Err(SweepError::Invalid("a partitions sweep needs radix or tuned among the kernels".into()));
        }
        let mut points = Vec::new();
        let mut checks = None;
        for &p in partitions {
            let config = GroupByConfig { partitions: p, ..self.config };
            config.validate()?;
            points.extend(self.measure(keys, &config, &kernels, u64::from(p), self.truth, &mut checks, on_event)?);
        }
        Ok(Sweep {
            kind: "partitions".into(),
            rows: keys.len() as u64,
            points,
            crossover_distinct_keys: None,
            adaptive_max_slowdown: None,
            memory: Some(self.policy.name().into()),
            verified_by: names(checks),
        })
    }

    /// Times every kernel at one point (the race's loop) and keeps each kernel's fastest run;
    /// `checks` keeps the checks that every run so far passed.
    #[allow(clippy::too_many_arguments)]
    fn measure(
        &self,
        keys: &[i64],
        config: &GroupByConfig,
        kernels: &[Kernel],
        x: u64,
        truth: Truth,
        checks: &mut Option<Vec<Check>>,
        on_event: &mut dyn FnMut(SweepEvent) -> ControlFlow<()>,
    ) -> Result<Vec<SweepPoint>, SweepError> {
        let racer = Racer { kernels, config: *config, truth, ..*self };
        let timings = racer
            .time(keys, &mut |event| match event {
                RaceEvent::Running { kernel, run, runs } => on_event(SweepEvent::Running { x, kernel, run, runs }),
                RaceEvent::Checking | RaceEvent::WarmingUp { .. } | RaceEvent::Timed { .. } => {
                    ControlFlow::Continue(())
                }
            })
            .map_err(|error| match error {
                RaceError::GroupBy { error, .. } => SweepError::GroupBy(error),
                RaceError::Cancelled => SweepError::Cancelled,
                other @ RaceError::Wrong { .. } => SweepError::Wrong { x, error: other.to_string() },
                other => SweepError::Invalid(other.to_string()),
            })?;
        let rows = keys.len().max(1) as f64;
        let mut points = Vec::with_capacity(timings.len());
        for Timings { kernel, seconds, verified_by, .. } in timings {
            let all = checks.get_or_insert_with(|| verified_by.clone());
            all.retain(|c| verified_by.contains(c));
            // The fastest run: on a shared machine noise only ever adds time, and a sweep
            // compares kernels point by point, where a median of few runs swings by tens of %.
            let best = seconds.iter().copied().fold(f64::INFINITY, f64::min);
            let point = SweepPoint { x, kernel: kernel.name().into(), ns_per_row: best * 1e9 / rows, seconds: best };
            flow(on_event(SweepEvent::Measured { x, kernel, ns_per_row: point.ns_per_row }))?;
            points.push(point);
        }
        Ok(points)
    }
}

fn names(checks: Option<Vec<Check>>) -> Vec<String> {
    checks.unwrap_or_default().iter().map(|c| c.name().to_string()).collect()
}

fn flow(control: ControlFlow<()>) -> Result<(), SweepError> {
    match control {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(SweepError::Cancelled),
    }
}

/// The smallest `x` from which `fast` beats `slow` at every larger `x` too.
pub fn crossover(points: &[SweepPoint], fast: Kernel, slow: Kernel) -> Option<u64> {
    let mut xs: Vec<u64> = points.iter().map(|p| p.x).collect();
    xs.sort_unstable();
    xs.dedup();
    let time =
        |x: u64, kernel: Kernel| points.iter().find(|p| p.x == x && p.kernel == kernel.name()).map(|p| p.ns_per_row);
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

/// The largest ratio, over the sweep's points, of adaptive's time to the best other kernel's.
pub fn adaptive_max_slowdown(points: &[SweepPoint]) -> Option<f64> {
    let adaptive = Kernel::Adaptive.name();
    points
        .iter()
        .filter(|p| p.kernel == adaptive)
        .filter_map(|a| {
            let best = points
                .iter()
                .filter(|p| p.x == a.x && p.kernel != adaptive)
                .map(|p| p.ns_per_row)
                .min_by(f64::total_cmp)?;
            Some(a.ns_per_row / best)
        })
        .max_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Ticks;
    use crate::exec::Sequential;
    use crate::groupby::race::Truth;
    use crate::groupby::{HeapChunks, MemoryPolicy};

    fn point(x: u64, kernel: Kernel, ns: f64) -> SweepPoint {
        SweepPoint { x, kernel: kernel.name().into(), ns_per_row: ns, seconds: ns }
    }

    #[test]
    fn doublings_cover_the_range() {
        assert_eq!(doublings(1000, 10_000), vec![1024, 2048, 4096, 8192]);
        assert_eq!(doublings(16, 16), vec![16]);
        assert!(doublings(100, 10).is_empty());
        assert_eq!(doublings(1 << 63, u64::MAX), vec![1 << 63]);
    }

    #[test]
    fn crossover_is_where_radix_wins_for_good() {
        let points = [
            point(1, Kernel::Naive, 1.0),
            point(1, Kernel::Radix, 2.0),
            point(2, Kernel::Naive, 3.0),
            point(2, Kernel::Radix, 2.0),
            point(4, Kernel::Naive, 3.0),
            point(4, Kernel::Radix, 4.0),
            point(8, Kernel::Naive, 9.0),
            point(8, Kernel::Radix, 5.0),
            point(16, Kernel::Naive, 20.0),
            point(16, Kernel::Radix, 6.0),
        ];
        assert_eq!(crossover(&points, Kernel::Radix, Kernel::Naive), Some(8));
        assert_eq!(crossover(&points[..6], Kernel::Radix, Kernel::Naive), None);
    }

    #[test]
    fn adaptive_slowdown_is_against_the_best() {
        let points = [
            point(1, Kernel::Naive, 1.0),
            point(1, Kernel::Tuned, 2.0),
            point(1, Kernel::Adaptive, 1.05),
            point(2, Kernel::Naive, 4.0),
            point(2, Kernel::Tuned, 2.0),
            point(2, Kernel::Adaptive, 2.4),
        ];
        assert!((adaptive_max_slowdown(&points).unwrap() - 1.2).abs() < 1e-12);
        assert_eq!(adaptive_max_slowdown(&points[..2]), None);
    }

    #[test]
    fn sweeps_produce_a_point_per_x_and_kernel() {
        let clock = Ticks::default();
        let kernels = [Kernel::Naive, Kernel::Radix, Kernel::Adaptive];
        let sweeper = Racer {
            kernels: &kernels,
            config: GroupByConfig::default(),
            exec: &Sequential,
            memory: &HeapChunks,
            policy: MemoryPolicy::Cold,
            clock: &clock,
            runs: 2,
            truth: Truth { groups: None, reference: true },
            phases: None,
            values: crate::groupby::Values::None,
        };
        let mut events = 0;
        let sweep = sweeper
            .cardinality(5000, &[10, 1000], Skew::Uniform, 1, &mut |_| {
                events += 1;
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(sweep.points.len(), 6);
        assert_eq!(events, 2 + 2 * 3 * 2 + 6);
        assert!(sweep.points.iter().all(|p| p.ns_per_row > 0.0 && p.seconds > 0.0));
        assert!(sweep.adaptive_max_slowdown.is_some());

        let keys = datagen::generate(&DataSpec { rows: 3000, keys: 500, skew: Skew::Uniform, seed: 3 }).unwrap();
        let sweep = sweeper.partitions(&keys, &[16, 256], &mut |_| ControlFlow::Continue(())).unwrap();
        assert_eq!(
            sweep.points.iter().map(|p| (p.x, p.kernel.as_str())).collect::<Vec<_>>(),
            [(16, "radix"), (256, "radix")]
        );

        let cancelled = sweeper.cardinality(5000, &[10], Skew::Uniform, 1, &mut |_| ControlFlow::Break(()));
        assert_eq!(cancelled.unwrap_err(), SweepError::Cancelled);
        assert!(matches!(
            sweeper.cardinality(10, &[11], Skew::Uniform, 1, &mut |_| ControlFlow::Continue(())),
            Err(SweepError::Invalid(_))
        ));
        assert!(matches!(
            sweeper.partitions(&keys, &[3], &mut |_| ControlFlow::Continue(())),
            Err(SweepError::GroupBy(GroupByError::Partitions(3)))
        ));
    }
}
