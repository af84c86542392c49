//! The build-size sweep: ns per probe row as the build side doubles, the probe side's row count
//! fixed: where one table stops fitting the cache, where prefetching alone still hides the
//! misses, and from where partitioning pays.

use core::ops::ControlFlow;

use memwall_report::{JoinSweep, JoinSweepPoint};

use super::Kernel;
use super::data::{self, JoinDataError, JoinSpec};
use super::race::{RaceError, RaceEvent, Racer, Truth};
use crate::groupby::datagen::{DataSpec, Skew};

pub use crate::groupby::sweep::doublings;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    Data(#[from] JoinDataError),
    #[error("at {x} build keys: {error}")]
    Wrong { x: u64, error: RaceError },
    #[error("cancelled")]
    Cancelled,
}

/// Progress, for a bar or a page; returning `Break` cancels the sweep.
#[derive(Debug, Clone, Copy)]
pub enum SweepEvent {
    Generating { x: u64 },
    Running { x: u64, kernel: Kernel, run: u32, runs: u32 },
}

impl Racer<'_> {
    /// Races the kernels at every build size of `builds` over `probe_rows` probe rows (as many
    /// as the largest build at least: every build key is probed), keeping each kernel's fastest
    /// run per point.
    pub fn build_size(
        &self,
        probe_rows: u64,
        builds: &[u64],
        skew: Skew,
        seed: u64,
        miss_rate: f64,
        on_event: &mut dyn FnMut(SweepEvent) -> ControlFlow<()>,
    ) -> Result<JoinSweep, SweepError> {
        let mut points = Vec::new();
        let mut verified_by = Vec::new();
        for &x in builds {
            if on_event(SweepEvent::Generating { x }).is_break() {
                return Err(SweepError::Cancelled);
            }
            let spec = JoinSpec { data: DataSpec { rows: probe_rows, keys: x, skew, seed }, miss_rate };
            let data = data::generate_with(&spec, self.exec)?;
            let racer = Racer { truth: Truth { matches: Some(probe_rows - data.misses), ..self.truth }, ..*self };
            let forward = &mut |event: RaceEvent| match event {
                RaceEvent::Running { kernel, run, runs } => on_event(SweepEvent::Running { x, kernel, run, runs }),
                _ => ControlFlow::Continue(()),
            };
            let timings = racer.time(&data.build, &data.probe, forward).map_err(|error| match error {
                RaceError::Cancelled => SweepError::Cancelled,
                error => SweepError::Wrong { x, error },
            })?;
            for t in timings {
                let fastest = (0..t.seconds.len()).min_by(|&a, &b| t.seconds[a].total_cmp(&t.seconds[b])).unwrap_or(0);
                verified_by = t.verified_by.iter().map(|c| c.name().to_string()).collect();
                points.push(JoinSweepPoint {
                    x,
                    kernel: t.kernel.name().into(),
                    ns_per_probe: t.seconds[fastest] * 1e9 / probe_rows.max(1) as f64,
                    build_seconds: t.build_seconds[fastest],
                    probe_seconds: t.probe_seconds[fastest],
                    seconds: t.seconds[fastest],
                });
            }
        }
        Ok(JoinSweep {
            kind: "build-size".into(),
            probe_rows,
            partitioned_beats_naive_from: crossover(&points, Kernel::Partitioned, Kernel::Naive),
            partitioned_beats_prefetch_from: crossover(&points, Kernel::Partitioned, Kernel::Prefetch),
            points,
            memory: Some(self.policy.name().into()),
            verified_by,
        })
    }
}

/// The smallest build size from which `fast` beats `slow` at every larger size too.
pub fn crossover(points: &[JoinSweepPoint], fast: Kernel, slow: Kernel) -> Option<u64> {
    let mut xs: Vec<u64> = points.iter().map(|p| p.x).collect();
    xs.sort_unstable();
    xs.dedup();
    let time =
        |x: u64, kernel: Kernel| points.iter().find(|p| p.x == x && p.kernel == kernel.name()).map(|p| p.ns_per_probe);
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
