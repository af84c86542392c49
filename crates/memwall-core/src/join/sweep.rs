//! The build-size sweep: ns per probe row as the build side doubles, the probe side's row count
//! fixed: where one table stops fitting the cache, where prefetching alone still hides the
//! misses, and from where partitioning pays.

use core::ops::ControlFlow;

use memwall_report::{BuildSizeCrossover, BuildSizeFastest, JoinSweep, JoinSweepFigures, JoinSweepPoint};

use super::Kernel;
use super::data::{self, JoinDataError, JoinSpec};
use super::race::{JoinWork, RaceError, Racer, Sides, Truth};
use crate::datagen::{DataSpec, Skew};

pub use crate::race::sweep::doublings;
use crate::race::sweep::fastest_run;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    #[error("{0}")]
    Data(#[from] JoinDataError),
    #[error("at {x} build keys: {error}")]
    Wrong { x: u64, error: RaceError },
    #[error("cancelled")]
    Cancelled,
}

/// Progress of a build-size sweep.
pub type SweepEvent = crate::race::sweep::SweepEvent<Kernel>;

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
            let data = data::generate_with(&spec, self.work.exec)?;
            let truth = Truth { known: Some(probe_rows - data.misses), ..self.work.truth };
            let racer = Racer { work: JoinWork { truth, ..self.work }, ..*self };
            let sides = Sides { build: &data.build, probe: &data.probe };
            let timings = racer.time_at(x, sides, on_event).map_err(|error| match error {
                RaceError::Cancelled => SweepError::Cancelled,
                error => SweepError::Wrong { x, error },
            })?;
            for t in timings {
                let fastest = fastest_run(&t.seconds);
                verified_by = t.verified_by.iter().map(|c| c.name().to_string()).collect();
                let point = JoinSweepPoint {
                    x,
                    kernel: t.kernel.name().into(),
                    ns_per_probe: t.seconds[fastest] * 1e9 / probe_rows.max(1) as f64,
                    build_seconds: t.outcomes[fastest].build_ns / 1e9,
                    probe_seconds: t.outcomes[fastest].probe_ns / 1e9,
                    seconds: t.seconds[fastest],
                };
                if on_event(SweepEvent::Measured { x, kernel: t.kernel, ns_per_row: point.ns_per_probe }).is_break() {
                    return Err(SweepError::Cancelled);
                }
                points.push(point);
            }
        }
        let mut sweep = unjudged(probe_rows, points, Some(self.policy.name().into()), verified_by);
        judge(&mut sweep, DEFAULT_PREFETCH_TOLERANCE);
        Ok(sweep)
    }
}

/// A build-size sweep of `points` before [`judge`]: partitioned's crossovers filled in, the
/// other verdicts empty.
fn unjudged(
    probe_rows: u64,
    points: Vec<JoinSweepPoint>,
    memory: Option<String>,
    verified_by: Vec<String>,
) -> JoinSweep {
    let own = JoinSweepFigures {
        probe_rows,
        partitioned_beats_naive_from: crossover(&points, Kernel::Partitioned, Kernel::Naive),
        partitioned_beats_prefetch_from: crossover(&points, Kernel::Partitioned, Kernel::Prefetch),
        fastest: Vec::new(),
        prefetch_tolerance_share: None,
        prefetch_falls_behind_from: None,
        crossovers: Vec::new(),
    };
    JoinSweep { kind: "build-size".into(), points, memory, verified_by, own }
}

/// How much slower than the fastest kernel prefetch may be and still "suffice" by default: a
/// definition, not a property of any host (a reader who would not bother to partition for 10%
/// passes another with `--tolerance`). Timings on a shared machine move by about as much, so
/// much less would call noise a verdict.
pub const DEFAULT_PREFETCH_TOLERANCE: f64 = 0.10;

/// Fills in the sweep's verdicts from its points: the fastest kernel at each build size
/// (adaptive aside, since it runs one of the others), prefetch against it, and the build size
/// from which prefetch stays more than `tolerance` behind.
pub fn judge(sweep: &mut JoinSweep, tolerance: f64) {
    let mut xs: Vec<u64> = sweep.points.iter().map(|p| p.x).collect();
    xs.sort_unstable();
    xs.dedup();
    let at = |x: u64| sweep.points.iter().filter(move |p| p.x == x);
    sweep.fastest = xs
        .iter()
        .filter_map(|&x| {
            let candidates = || at(x).filter(|p| p.kernel != Kernel::Adaptive.name());
            let fastest = candidates().min_by(|a, b| a.ns_per_probe.total_cmp(&b.ns_per_probe))?;
            let prefetch = candidates().find(|p| p.kernel == Kernel::Prefetch.name());
            Some(BuildSizeFastest {
                build_keys: x,
                kernel: fastest.kernel.clone(),
                ns_per_probe: fastest.ns_per_probe,
                prefetch_over_fastest: prefetch.map(|p| p.ns_per_probe / fastest.ns_per_probe),
            })
        })
        .collect();
    let behind = |f: &BuildSizeFastest| f.prefetch_over_fastest.map(|r| r > 1.0 + tolerance);
    let mut from = None;
    for f in sweep.fastest.iter().rev() {
        match behind(f) {
            Some(true) => from = Some(f.build_keys),
            Some(false) => break,
            None => {}
        }
    }
    let swept = |k: Kernel| sweep.points.iter().any(|p| p.kernel == k.name());
    let pairs = [Kernel::Partitioned, Kernel::Tuned]
        .into_iter()
        .flat_map(|fast| [(fast, Kernel::Naive), (fast, Kernel::Prefetch)])
        .filter(|&(fast, slow)| swept(fast) && swept(slow));
    let crossovers = pairs
        .map(|(fast, slow)| BuildSizeCrossover {
            kernel: fast.name().into(),
            versus: slow.name().into(),
            from_build_keys: crossover(&sweep.points, fast, slow),
        })
        .collect();
    sweep.crossovers = crossovers;
    let swept_prefetch = sweep.fastest.iter().any(|f| f.prefetch_over_fastest.is_some());
    sweep.prefetch_tolerance_share = swept_prefetch.then_some(tolerance);
    sweep.prefetch_falls_behind_from = from;
}

/// The smallest build size from which `fast` beats `slow` at every larger size too.
pub fn crossover(points: &[JoinSweepPoint], fast: Kernel, slow: Kernel) -> Option<u64> {
    let points: Vec<(u64, &str, f64)> = points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_probe)).collect();
    crate::race::sweep::crossover(&points, fast.name(), slow.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: u64, kernel: Kernel, ns: f64) -> JoinSweepPoint {
        JoinSweepPoint {
            x,
            kernel: kernel.name().into(),
            ns_per_probe: ns,
            build_seconds: 0.0,
            probe_seconds: 0.0,
            seconds: ns,
        }
    }

    fn sweep(points: Vec<JoinSweepPoint>) -> JoinSweep {
        unjudged(100, points, None, Vec::new())
    }

    #[test]
    fn the_verdicts_follow_the_fake_points() {
        use Kernel::*;
        // Small builds: naive fastest, prefetch close; mid: prefetch fastest; large: partitioned
        // wins and prefetch falls behind for good (after one noisy point within tolerance).
        let mut s = sweep(vec![
            point(1024, Naive, 10.0),
            point(1024, Partitioned, 14.0),
            point(1024, Prefetch, 10.5),
            point(1024, Adaptive, 9.0),
            point(4096, Naive, 20.0),
            point(4096, Partitioned, 15.0),
            point(4096, Prefetch, 12.0),
            point(16384, Naive, 40.0),
            point(16384, Partitioned, 15.0),
            point(16384, Prefetch, 18.0),
            point(65536, Naive, 60.0),
            point(65536, Partitioned, 16.0),
            point(65536, Prefetch, 17.0),
            point(262144, Naive, 80.0),
            point(262144, Partitioned, 16.0),
            point(262144, Prefetch, 30.0),
            point(1048576, Naive, 90.0),
            point(1048576, Partitioned, 17.0),
            point(1048576, Prefetch, 40.0),
        ]);
        judge(&mut s, 0.10);
        let fastest: Vec<(u64, &str)> = s.fastest.iter().map(|f| (f.build_keys, f.kernel.as_str())).collect();
        assert_eq!(
            fastest,
            [
                (1024, "naive"),
                (4096, "prefetch"),
                (16384, "partitioned"),
                (65536, "partitioned"),
                (262144, "partitioned"),
                (1048576, "partitioned")
            ],
            "adaptive is never named fastest: it runs one of the others"
        );
        assert!((s.fastest[0].prefetch_over_fastest.unwrap() - 1.05).abs() < 1e-12);
        assert_eq!(s.fastest[1].prefetch_over_fastest, Some(1.0));
        assert_eq!(s.prefetch_falls_behind_from, Some(262144));
        assert_eq!(s.prefetch_tolerance_share, Some(0.10));
        assert_eq!(s.partitioned_beats_naive_from, Some(4096));
        assert_eq!(s.partitioned_beats_prefetch_from, Some(16384));
        let crossovers: Vec<(&str, &str, Option<u64>)> =
            s.crossovers.iter().map(|c| (c.kernel.as_str(), c.versus.as_str(), c.from_build_keys)).collect();
        assert_eq!(crossovers, [("partitioned", "naive", Some(4096)), ("partitioned", "prefetch", Some(16384))]);

        // A looser tolerance keeps prefetch "enough" further; at 100% it never falls behind.
        judge(&mut s, 0.5);
        assert_eq!(s.prefetch_falls_behind_from, Some(262144));
        judge(&mut s, 1.0);
        assert_eq!(s.prefetch_falls_behind_from, Some(1048576));
        judge(&mut s, 2.0);
        assert_eq!(s.prefetch_falls_behind_from, None);
    }

    #[test]
    fn without_prefetch_there_is_no_prefetch_verdict() {
        let mut s = sweep(vec![point(8, Kernel::Naive, 3.0), point(8, Kernel::Partitioned, 2.0)]);
        judge(&mut s, 0.1);
        assert_eq!(s.fastest.len(), 1);
        assert_eq!(s.fastest[0].prefetch_over_fastest, None);
        assert_eq!((s.prefetch_tolerance_share, s.prefetch_falls_behind_from), (None, None));
        assert_eq!(s.crossovers.len(), 1, "partitioned against naive only: prefetch was not swept");
        assert_eq!(s.crossovers[0].from_build_keys, Some(8));
        // Tuned that never wins: its crossover is stated as none.
        let mut s = sweep(vec![point(8, Kernel::Prefetch, 3.0), point(8, Kernel::Tuned, 4.0)]);
        judge(&mut s, 0.1);
        assert_eq!(s.crossovers[0].from_build_keys, None);
        let mut empty = sweep(Vec::new());
        judge(&mut empty, 0.1);
        assert!(empty.fastest.is_empty());
    }
}
