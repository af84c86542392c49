//! The latency ladder in a worker: the core's chase over the browser's heap, timed with the
//! browser's clock, one size after another, each point posted as it is measured. The page reads
//! the levels (see `run.rs`); the worker only measures.

use std::ops::ControlFlow;

use memwall_core::clock::{self, Clock};
use memwall_core::ladder::{self, HeapArena, Pattern, SampleConfig};

use super::protocol::{LadderEvent, LadderJob, measured_at};
use crate::clock::{PerformanceClock, cross_origin_isolated};

/// Each timed sample of the full ladder lasts at least this long (the native default
/// `--sample-ms 5`), and 500 ticks where the timer is coarse (see `ladder::target_sample_ns`).
const SAMPLE_FLOOR_NS: f64 = 5e6;

/// A timer at least this fine is a cross-origin-isolated one (5 µs in Chrome); coarser timers
/// make every sample long, so fewer samples keep the run short.
const FINE_TIMER_NS: f64 = 20_000.0;

/// The first look's samples: 2 ms, or 32 ticks of a coarse timer. A sample's two reads are off
/// by two ticks at worst, 6%: far under the 1.5x that tells one level from the next. 50 ticks
/// kept Firefox's first look on its 1 ms timer (a page that is not isolated) at 14-16 s here.
const QUICK_FLOOR_NS: f64 = 2e6;
const QUICK_TICKS: f64 = 32.0;

/// How a job's samples are sized, from the timer's resolution.
pub fn sampling(job: &LadderJob, resolution_ns: f64) -> (f64, u32, u32) {
    let fine = resolution_ns <= FINE_TIMER_NS;
    if job.quick {
        let target = QUICK_FLOOR_NS.max(QUICK_TICKS * resolution_ns);
        // Retry a disturbed size once: the fastest sample, which the levels are read from,
        // rarely needs more.
        return (
            target,
            if job.samples > 0 {
                job.samples
            } else if fine {
                5
            } else {
                3
            },
            2,
        );
    }
    let samples = match job.samples {
        0 if fine => 15,
        0 => 5,
        n => n,
    };
    (ladder::target_sample_ns(resolution_ns, SAMPLE_FLOOR_NS), samples, ladder::DEFAULT_ATTEMPTS)
}

/// Measures the job, posting each point; `Done` is the last event, or the error is returned.
pub fn run(job: LadderJob, post: &mut dyn FnMut(LadderEvent)) -> Result<(), String> {
    let clock = PerformanceClock::new()?;
    // 50 ticks: 5 ms at 100 µs, enough to see the coarse tick and not only its jitter.
    let resolution = clock::resolution_ns(&clock, 50);
    let (target_sample_ns, samples, attempts) = sampling(&job, resolution);
    post(LadderEvent::Started {
        timer_resolution_ns: resolution,
        target_sample_ns,
        samples,
        cross_origin_isolated: cross_origin_isolated(),
    });
    let config = SampleConfig {
        target_sample_ns,
        samples,
        warmup: true,
        seed: job.seed,
        attempts,
        pattern: Pattern::Random,
        timer_resolution_ns: resolution,
    };
    let started = clock.now_ns();
    for (curve, pattern) in job.curves().into_iter().enumerate() {
        let sizes: Vec<u64> = job.sizes.iter().copied().filter(|&b| measured_at(pattern, b)).collect();
        let config = SampleConfig { pattern, ..config.clone() };
        ladder::run_ladder(&mut HeapArena, &clock, &sizes, &config, ladder::Cycles::Unknown, &mut |event| {
            match event {
                ladder::LadderEvent::Measuring { bytes, .. } => post(LadderEvent::Measuring { curve, bytes }),
                ladder::LadderEvent::Measured { point, .. } => post(LadderEvent::Point { curve, point: point.clone() }),
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| format!("ladder ({}): {e}", pattern.name()))?;
    }
    let chains = if job.chains.is_empty() {
        None
    } else {
        let bytes = job.chains_at();
        post(LadderEvent::Chains { bytes });
        let measured = ladder::measure_parallelism(&mut HeapArena, &clock, bytes, &job.chains, &config)
            .map_err(|e| format!("memory-level parallelism: {e}"))?;
        Some((bytes, measured.points))
    };
    post(LadderEvent::Done { duration_s: (clock.now_ns() - started) / 1e9, chains });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(quick: bool) -> LadderJob {
        LadderJob { sizes: vec![16384], samples: 0, seed: 1, patterns: vec![], chains: vec![], quick }
    }

    #[test]
    fn the_first_look_samples_briefly_and_the_full_ladder_as_the_native_tool() {
        assert_eq!(sampling(&job(false), 5_000.0), (5e6, 15, ladder::DEFAULT_ATTEMPTS));
        assert_eq!(sampling(&job(false), 100_000.0), (5e7, 5, ladder::DEFAULT_ATTEMPTS));
        assert_eq!(sampling(&job(true), 5_000.0), (2e6, 5, 2));
        assert_eq!(sampling(&job(true), 100_000.0), (3.2e6, 3, 2));
        assert_eq!(sampling(&job(true), 1e6), (3.2e7, 3, 2));
    }
}
