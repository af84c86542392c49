//! Sweeps: how each kernel's ns per row moves with the number of groups (where partitioning
//! starts to pay) and with the partition count (the U: too few partitions and each table
//! overflows cache, too many and the scatter's write streams do).
//!
//! Timing is the front end's clock; everything else is here so that the browser sweeps the same
//! way the CLI does.

use core::ops::ControlFlow;

use memwall_report::{BestPartitions, Crossover, GroupBySweepFigures, Query, Sweep, SweepPoint};

use super::race::{Check, RaceError, Racer, Truth};
use super::{GroupByConfig, GroupByError, Kernel, ValueType};
use crate::datagen::{self, DataError, DataSpec, Skew};
pub use crate::race::sweep::doublings;
use crate::race::sweep::fastest_run;

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

/// Progress of a GROUP BY sweep.
pub type SweepEvent = crate::race::sweep::SweepEvent<Kernel>;

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
            let keys = datagen::generate_with(&DataSpec { rows, keys: x, skew, seed }, self.work.exec)?;
            // The generator makes every one of the `x` keys appear: a check every run gets.
            let truth = Truth { known: Some(x), ..self.work.truth };
            points.extend(self.measure(&keys, &self.work.config, self.kernels, x, truth, &mut checks, on_event)?);
        }
        let crossover_distinct_keys = crossover(&points, Kernel::Radix, Kernel::Naive);
        let adaptive_max_slowdown = adaptive_max_slowdown(&points);
        Ok(Sweep {
            kind: "cardinality".into(),
            memory: Some(self.policy.name().into()),
            verified_by: names(checks),
            own: GroupBySweepFigures {
                rows,
                crossovers: crossovers(&points, Kernel::Naive),
                crossover_distinct_keys,
                adaptive_max_slowdown,
                query: Some(self.query()),
                state_bytes_per_group: Some(self.state_bytes_per_group()),
                best_partitions: Vec::new(),
            },
            points,
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
            let config = GroupByConfig { partitions: p, ..self.work.config };
            config.validate()?;
            points.extend(self.measure(
                keys,
                &config,
                &kernels,
                u64::from(p),
                self.work.truth,
                &mut checks,
                on_event,
            )?);
        }
        Ok(Sweep {
            kind: "partitions".into(),
            memory: Some(self.policy.name().into()),
            verified_by: names(checks),
            own: GroupBySweepFigures {
                rows: keys.len() as u64,
                best_partitions: best_partitions(&points),
                crossover_distinct_keys: None,
                adaptive_max_slowdown: None,
                query: Some(self.query()),
                state_bytes_per_group: Some(self.state_bytes_per_group()),
                crossovers: Vec::new(),
            },
            points,
        })
    }

    /// What each group computes, as the report names it ("none" for a count without values).
    fn query(&self) -> Query {
        Query {
            aggregates: self.work.config.aggregates.names().iter().map(|n| n.to_string()).collect(),
            value_type: self.work.values.value_type().map_or("none", ValueType::name).into(),
            value_column: None,
        }
    }

    /// The state the sweep's tables hold per group; a count is the same whatever the values.
    fn state_bytes_per_group(&self) -> u64 {
        self.work.config.aggregates.state_bytes(self.work.values.value_type().unwrap_or(ValueType::I64))
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
        let racer = Racer { kernels, work: super::race::GroupByWork { config: *config, truth, ..self.work }, ..*self };
        let timings = racer.time_at(x, keys, on_event).map_err(|error| match error {
            RaceError::Kernel { error, .. } => SweepError::GroupBy(error),
            RaceError::Cancelled => SweepError::Cancelled,
            other @ RaceError::Wrong { .. } => SweepError::Wrong { x, error: other.to_string() },
            other => SweepError::Invalid(other.to_string()),
        })?;
        let rows = keys.len().max(1) as f64;
        let mut points = Vec::with_capacity(timings.len());
        for timings in timings {
            let all = checks.get_or_insert_with(|| timings.verified_by.clone());
            all.retain(|c| timings.verified_by.contains(c));
            let best = timings.seconds[fastest_run(&timings.seconds)];
            let point = SweepPoint {
                x,
                kernel: timings.kernel.name().into(),
                ns_per_row: best * 1e9 / rows,
                seconds: best,
                predicted_ns_per_row: None,
            };
            flow(on_event(SweepEvent::Measured { x, kernel: timings.kernel, ns_per_row: point.ns_per_row }))?;
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
    let points: Vec<(u64, &str, f64)> = points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_row)).collect();
    crate::race::sweep::crossover(&points, fast.name(), slow.name())
}

/// For every kernel but `versus` (in the order first measured), the [`crossover`] from which it
/// beat `versus`; `None` in a crossover when it did not within the points measured.
pub fn crossovers(points: &[SweepPoint], versus: Kernel) -> Vec<Crossover> {
    if !points.iter().any(|p| p.kernel == versus.name()) {
        return Vec::new();
    }
    let mut kernels: Vec<Kernel> = Vec::new();
    for p in points {
        if let Some(k) = Kernel::parse(&p.kernel)
            && k != versus
            && !kernels.contains(&k)
        {
            kernels.push(k);
        }
    }
    kernels
        .into_iter()
        .map(|k| Crossover {
            kernel: k.name().into(),
            versus: versus.name().into(),
            from_distinct_keys: crossover(points, k, versus),
        })
        .collect()
}

/// Each kernel's fastest point of a partitions sweep (the smaller count on a tie: fewer
/// partitions is less scratch for the same time), in the order the kernels were measured.
pub fn best_partitions(points: &[SweepPoint]) -> Vec<BestPartitions> {
    let mut best: Vec<BestPartitions> = Vec::new();
    for p in points {
        let partitions = u32::try_from(p.x).unwrap_or(u32::MAX);
        match best.iter_mut().find(|b| b.kernel == p.kernel) {
            Some(b) => {
                let faster = p.ns_per_row < b.ns_per_row || (p.ns_per_row == b.ns_per_row && partitions < b.partitions);
                if faster {
                    (b.partitions, b.ns_per_row) = (partitions, p.ns_per_row);
                }
            }
            None => best.push(BestPartitions { kernel: p.kernel.clone(), partitions, ns_per_row: p.ns_per_row }),
        }
    }
    best
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
        SweepPoint { x, kernel: kernel.name().into(), ns_per_row: ns, seconds: ns, predicted_ns_per_row: None }
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
    fn crossovers_name_every_kernel_against_naive_and_none_when_absent() {
        let points = [
            point(1024, Kernel::Naive, 2.0),
            point(1024, Kernel::Radix, 6.0),
            point(1024, Kernel::Tuned, 3.0),
            point(1024, Kernel::Prefetch, 2.5),
            point(2048, Kernel::Naive, 9.0),
            point(2048, Kernel::Radix, 7.0),
            point(2048, Kernel::Tuned, 3.5),
            point(2048, Kernel::Prefetch, 9.5),
            point(4096, Kernel::Naive, 20.0),
            point(4096, Kernel::Radix, 8.0),
            point(4096, Kernel::Tuned, 4.0),
            point(4096, Kernel::Prefetch, 21.0),
        ];
        let found: Vec<(String, String, Option<u64>)> = crossovers(&points, Kernel::Naive)
            .into_iter()
            .map(|c| (c.kernel, c.versus, c.from_distinct_keys))
            .collect();
        assert_eq!(
            found,
            [
                ("radix".to_string(), "naive".to_string(), Some(2048)),
                ("tuned".into(), "naive".into(), Some(2048)),
                ("prefetch".into(), "naive".into(), None),
            ]
        );
        // Faster from the first point on: the crossover is the smallest point, not "none".
        let early = [point(8, Kernel::Naive, 5.0), point(8, Kernel::Tuned, 1.0)];
        assert_eq!(crossovers(&early, Kernel::Naive)[0].from_distinct_keys, Some(8));
        // Without naive there is nothing to cross.
        assert!(crossovers(&points[1..4], Kernel::Naive).is_empty());
    }

    #[test]
    fn the_best_fan_out_is_each_kernels_fastest_point() {
        // Fake partitions sweeps for three states: the U's bottom moves to fewer partitions as
        // the state grows (what the sweep is there to show); the function must follow it.
        let sweep = |bottom: u64| -> Vec<SweepPoint> {
            [256u64, 512, 1024, 2048, 4096]
                .iter()
                .flat_map(|&p| {
                    let distance = (p as f64 / bottom as f64).log2().abs();
                    [point(p, Kernel::Radix, 10.0 + distance), point(p, Kernel::Tuned, 4.0 + 2.0 * distance)]
                })
                .collect()
        };
        for bottom in [4096, 1024, 512] {
            let best = best_partitions(&sweep(bottom));
            let found: Vec<(&str, u32, f64)> =
                best.iter().map(|b| (b.kernel.as_str(), b.partitions, b.ns_per_row)).collect();
            assert_eq!(found, [("radix", bottom as u32, 10.0), ("tuned", bottom as u32, 4.0)]);
        }
        // A tie goes to fewer partitions.
        let tie = [point(64, Kernel::Tuned, 3.0), point(32, Kernel::Tuned, 3.0), point(128, Kernel::Tuned, 3.0)];
        assert_eq!(best_partitions(&tie)[0].partitions, 32);
        assert!(best_partitions(&[]).is_empty());
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
        let work = super::super::race::GroupByWork {
            config: GroupByConfig::default(),
            exec: &Sequential,
            clock: &clock,
            truth: Truth { known: None, reference: true },
            phases: None,
            values: crate::groupby::Values::None,
        };
        let sweeper = Racer { kernels: &kernels, memory: &HeapChunks, policy: MemoryPolicy::Cold, runs: 2, work };
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
        assert_eq!(
            sweep.crossovers.iter().map(|c| c.kernel.as_str()).collect::<Vec<_>>(),
            ["radix", "adaptive"],
            "every kernel but naive, against naive"
        );
        assert_eq!(sweep.state_bytes_per_group, Some(8));
        assert_eq!(sweep.query.as_ref().map(|q| q.value_type.as_str()), Some("none"));

        let keys = datagen::generate(&DataSpec { rows: 3000, keys: 500, skew: Skew::Uniform, seed: 3 }).unwrap();
        let sweep = sweeper.partitions(&keys, &[16, 256], &mut |_| ControlFlow::Continue(())).unwrap();
        assert_eq!(
            sweep.points.iter().map(|p| (p.x, p.kernel.as_str())).collect::<Vec<_>>(),
            [(16, "radix"), (256, "radix")]
        );
        assert_eq!(sweep.best_partitions.len(), 1);
        assert!([16, 256].contains(&sweep.best_partitions[0].partitions));

        // A larger state: the sweep says which, and how many bytes a group it holds.
        let values: Vec<i64> = (0..keys.len() as i64).map(|i| i * 7 - 1000).collect();
        let config = GroupByConfig {
            aggregates: crate::groupby::Aggregates::parse("sum,min,max").unwrap(),
            ..sweeper.work.config
        };
        let values = crate::groupby::Values::I64(&values);
        let summed = Racer { work: super::super::race::GroupByWork { config, values, ..sweeper.work }, ..sweeper };
        let sweep = summed.partitions(&keys, &[16], &mut |_| ControlFlow::Continue(())).unwrap();
        let query = sweep.query.clone().unwrap();
        assert_eq!((query.aggregates.join(","), query.value_type.as_str()), ("sum,min,max".into(), "i64"));
        assert_eq!(sweep.state_bytes_per_group, Some(40));
        assert!(sweep.verified_by.iter().any(|c| c == "reference"), "{:?}", sweep.verified_by);

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
