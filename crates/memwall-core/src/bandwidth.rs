//! Streaming bandwidth: how many bytes per second one or more threads read, write and copy over
//! a working set, and a plain `memcpy` of the same bytes timed in the same run as a yardstick.
//!
//! The working set is split evenly between the tasks the front end's [`Executor`] runs; each
//! sample times every task streaming its part several times, so GB/s is for all threads
//! together. The best sample is kept: streaming has no lucky fast path, so the fastest sample is
//! the least disturbed one.

use memwall_report::BandwidthPoint;

use crate::clock::{Clock, time_ns};
use crate::exec::{self, Executor};

/// Sums every word with eight independent accumulators, so the adds never wait on each other and
/// the loads are the limit.
#[inline(never)]
pub fn read_words(data: &[u64]) -> u64 {
    let mut acc = [0u64; 8];
    let chunks = data.chunks_exact(8);
    let rest: u64 = chunks.remainder().iter().fold(0, |a, &x| a.wrapping_add(x));
    for chunk in chunks {
        for (a, &x) in acc.iter_mut().zip(chunk) {
            *a = a.wrapping_add(x);
        }
    }
    acc.iter().fold(rest, |a, &x| a.wrapping_add(x))
}

/// Stores `value` in every word.
#[inline(never)]
pub fn write_words(data: &mut [u64], value: u64) {
    for x in data.iter_mut() {
        *x = value;
    }
}

/// Copies word by word: the loop a program would write.
#[inline(never)]
pub fn copy_words(to: &mut [u64], from: &[u64]) {
    for (t, &f) in to.iter_mut().zip(from) {
        *t = f;
    }
}

/// How each working set is sampled.
#[derive(Debug, Clone)]
pub struct BandwidthConfig {
    /// Each sample streams the working set enough times to last about this long.
    pub target_sample_ns: f64,
    pub samples: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Copy,
    Memcpy,
}

/// Measures one working set of `words` (a multiple of 2 x tasks is best; the rest is left out)
/// with `exec.threads()` tasks. `None` when the timings make no sense (a frozen clock).
pub fn measure(
    exec: &dyn Executor,
    clock: &dyn Clock,
    words: &mut [u64],
    config: &BandwidthConfig,
) -> Option<BandwidthPoint> {
    let tasks = exec.threads().max(1);
    let bytes = std::mem::size_of_val(words) as u64;
    // Touch everything once so no page fault is timed.
    write_words(words, 1);
    let mut best = |kind: Kind| -> Option<f64> {
        // Bytes one pass moves: copies read one half and write the other.
        let moved = match kind {
            Kind::Read | Kind::Write => bytes,
            Kind::Copy | Kind::Memcpy => bytes / 2 * 2,
        } as f64;
        let pass = |repeats: u32, words: &mut [u64]| -> f64 {
            let parts: Vec<&mut [u64]> = split_mut(words, tasks);
            time_ns(clock, || {
                exec::map(exec, parts, |_, part| {
                    let mut sink = 0u64;
                    for r in 0..repeats {
                        // Opaque each time: the kernels are pure functions of the slice, and
                        // the compiler would otherwise run a repeated read (or write) once.
                        let part = core::hint::black_box(&mut *part);
                        match kind {
                            Kind::Read => sink = sink.wrapping_add(read_words(part)),
                            Kind::Write => write_words(part, u64::from(r)),
                            Kind::Copy | Kind::Memcpy => {
                                let (to, from) = part.split_at_mut(part.len() / 2);
                                let from = &from[..to.len()];
                                if kind == Kind::Copy { copy_words(to, from) } else { to.copy_from_slice(from) }
                            }
                        }
                    }
                    core::hint::black_box(sink)
                })
            })
            .0
        };
        let once = pass(1, words);
        let repeats = (config.target_sample_ns / once.max(1.0)).ceil().clamp(1.0, 1e6) as u32;
        let fastest = (0..config.samples.max(1)).map(|_| pass(repeats, words)).fold(f64::INFINITY, f64::min);
        let gb_per_s = moved * f64::from(repeats) / fastest;
        (fastest > 0.0 && gb_per_s.is_finite()).then_some(gb_per_s)
    };
    Some(BandwidthPoint {
        bytes,
        threads: tasks as u32,
        read_gb_per_s: best(Kind::Read)?,
        write_gb_per_s: best(Kind::Write)?,
        copy_gb_per_s: best(Kind::Copy)?,
        memcpy_gb_per_s: best(Kind::Memcpy),
    })
}

/// What one task of [`loaded_latency`] does.
#[derive(Debug)]
pub enum LoadTask<'a> {
    /// Chase a random ring over these bytes and time it.
    Chase(&'a mut [u8]),
    /// Stream reads over these words until the chase is done.
    Stream(&'a mut [u64]),
}

/// The chase's latency while the `Stream` tasks read their buffers over and over: every task
/// runs at once on the front end's executor (one per thread), the chase measured as the ladder
/// measures a point, the streams stopping when it is done. Returns the chase's samples (ns per
/// load), or `None` if its ring could not be built. With an executor that runs tasks one after
/// another (a browser) nothing streams while the chase runs, which is then idle latency.
pub fn loaded_latency(
    exec: &dyn Executor,
    clock: &(dyn Clock + Sync),
    tasks: Vec<LoadTask<'_>>,
    config: &crate::ladder::SampleConfig,
) -> Option<Vec<f64>> {
    use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let done = AtomicBool::new(false);
    let chasing = AtomicBool::new(false);
    let begun = clock.now_ns();
    let streams = tasks.iter().filter(|t| matches!(t, LoadTask::Stream(_))).count();
    let started = AtomicUsize::new(0);
    let results = exec::map(exec, tasks, |_, task| match task {
        LoadTask::Chase(bytes) => {
            chasing.store(true, Ordering::Release);
            // Give the streams a moment to start (they may be on threads still spawning), but
            // never wait for ones that cannot run until this task ends.
            let deadline = clock.now_ns() + 50e6;
            while started.load(Ordering::Acquire) < streams && clock.now_ns() < deadline {
                core::hint::spin_loop();
            }
            let line = crate::ladder::LINE_BYTES;
            let skip = bytes.as_ptr().align_offset(line).min(bytes.len());
            let len = ((bytes.len() - skip) / line * line) as u64;
            let seed = crate::ladder::ring_seed(config.seed, len);
            let ring = crate::ladder::Ring::build_pattern(bytes, len, seed, config.pattern).ok();
            let samples = ring.map(|ring| crate::ladder::measure_ring(&ring, clock, config).1);
            done.store(true, Ordering::Release);
            samples
        }
        LoadTask::Stream(words) => {
            started.fetch_add(1, Ordering::AcqRel);
            let mut sink = 0u64;
            // A stream that runs before the chase has started (an executor with fewer threads
            // than tasks, taking them in another order) gives up after 100 ms rather than wait
            // for a chase that runs after it on the same thread.
            while !done.load(Ordering::Acquire) && (chasing.load(Ordering::Acquire) || clock.now_ns() < begun + 100e6) {
                sink = sink.wrapping_add(read_words(core::hint::black_box(&*words)));
            }
            core::hint::black_box(sink);
            None
        }
    });
    results.into_iter().flatten().next()
}

/// `words` cut into `parts` contiguous pieces of even length (for the copies' halves).
fn split_mut(words: &mut [u64], parts: usize) -> Vec<&mut [u64]> {
    let each = words.len() / parts / 2 * 2;
    words
        .chunks_mut(each.max(2))
        .take(parts)
        .map(|c| {
            let keep = each.min(c.len());
            &mut c[..keep]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Sequential;
    use std::cell::Cell;

    #[test]
    fn loaded_latency_times_the_chase_and_stops_the_streams() {
        let config = crate::ladder::SampleConfig {
            target_sample_ns: 20_000.0,
            samples: 3,
            warmup: true,
            seed: 1,
            attempts: 1,
            pattern: crate::ladder::Pattern::Random,
            timer_resolution_ns: 0.0,
        };
        let clock = Real(std::time::Instant::now());
        let mut ring = vec![0u8; 64 << 10];
        let mut stream = vec![1u64; 4096];
        // Sequentially the chase runs first and the stream sees it done at once: it returns.
        let tasks = vec![LoadTask::Chase(&mut ring), LoadTask::Stream(&mut stream)];
        let samples = loaded_latency(&Sequential, &clock, tasks, &config).unwrap();
        assert_eq!(samples.len(), 3);
        assert!(samples.iter().all(|&ns| ns > 0.0), "{samples:?}");
        // Streams first on one thread: they give up, then the chase runs.
        let tasks = vec![LoadTask::Chase(&mut ring), LoadTask::Stream(&mut stream)];
        assert_eq!(loaded_latency(&Backwards, &clock, tasks, &config).unwrap().len(), 3);
        let mut tiny = vec![0u8; 64];
        let tasks = vec![LoadTask::Chase(&mut tiny)];
        assert_eq!(loaded_latency(&Sequential, &clock, tasks, &config), None);
    }

    struct Backwards;
    impl Executor for Backwards {
        fn threads(&self) -> usize {
            1
        }
        fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
            (0..tasks).rev().for_each(task);
        }
    }

    struct Real(std::time::Instant);
    impl Clock for Real {
        fn now_ns(&self) -> f64 {
            self.0.elapsed().as_nanos() as f64
        }
    }

    #[test]
    fn kernels_do_what_they_say() {
        let mut data: Vec<u64> = (0..1003).collect();
        assert_eq!(read_words(&data), 1002 * 1003 / 2);
        write_words(&mut data, 7);
        assert!(data.iter().all(|&x| x == 7));
        let from: Vec<u64> = (0..100).collect();
        let mut to = vec![0u64; 100];
        copy_words(&mut to, &from);
        assert_eq!(to, from);
        assert_eq!(read_words(&[]), 0);
    }

    #[test]
    fn parts_are_even_and_disjoint() {
        let mut words = vec![0u64; 1001];
        let parts = split_mut(&mut words, 3);
        assert_eq!(parts.len(), 3);
        assert!(parts.iter().all(|p| p.len() == 332));
    }

    /// A clock that advances 1 ms per reading: every pass "takes" 1 ms whatever it did, so the
    /// figures follow from the bytes alone.
    struct Millis(Cell<f64>);
    impl Clock for Millis {
        fn now_ns(&self) -> f64 {
            self.0.set(self.0.get() + 1e6);
            self.0.get()
        }
    }

    #[test]
    fn figures_count_bytes_moved_per_second() {
        let mut words = vec![0u64; 1 << 17];
        let config = BandwidthConfig { target_sample_ns: 1e6, samples: 2 };
        let point = measure(&Sequential, &Millis(Cell::new(0.0)), &mut words, &config).unwrap();
        assert_eq!((point.bytes, point.threads), (1 << 20, 1));
        // 1 MiB in 1 ms is 1.048576 GB/s; the copies move the same bytes (half read, half written).
        for gb in [point.read_gb_per_s, point.write_gb_per_s, point.copy_gb_per_s, point.memcpy_gb_per_s.unwrap()] {
            assert!((gb - 1.048576).abs() < 1e-9, "{point:?}");
        }
    }
}
