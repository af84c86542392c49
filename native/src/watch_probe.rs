//! One interval of `memwall watch`: the watched points measured as the ladder measures them, then,
//! at the interval's end, the hypervisor's steal time over it from /proc/stat. The plain watch and
//! the exporter (`watch --listen`) both take their intervals from here.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use memwall_core::ladder::{self, Pattern, SampleConfig};
use memwall_core::stability::steal_jiffies;
use memwall_report::{Host, WatchPoint, WatchSample};

use crate::arena::{HugePages, MmapArena};
use crate::error::INTERRUPTED;
use crate::platform::NativeClock;

/// A point's median ns per load and its samples' (median - min) / min; `None` when it could not
/// be measured.
pub type Measured = Option<(f64, f64)>;

/// Measures intervals on one host: how each point is sampled, and the steal counters as last read.
#[derive(Debug)]
pub struct Prober {
    clock: NativeClock,
    config: SampleConfig,
    thp: bool,
    stat_before: Option<(u64, u64)>,
    /// Why steal time could not be read, once it could not.
    pub steal_unavailable: Option<String>,
}

impl Prober {
    /// Samples each point as the quick ladder does: five samples of about 2 ms (more where the
    /// timer is coarse), on transparent huge pages where the host offers them.
    pub fn new(host: &Host, clock: NativeClock) -> Self {
        let timer = host.timer_resolution_ns.unwrap_or(1.0);
        let config = SampleConfig {
            target_sample_ns: ladder::target_sample_ns(timer, 2e6),
            samples: 5,
            warmup: true,
            seed: ladder::DEFAULT_SEED,
            attempts: 1,
            // The caches and DRAM without TLB misses, as the quick ladder placed the levels.
            pattern: Pattern::PageLocal,
            timer_resolution_ns: timer,
        };
        let mut prober = Self {
            clock,
            config,
            thp: matches!(host.thp.as_deref(), Some("always" | "madvise")),
            stat_before: None,
            steal_unavailable: None,
        };
        prober.stat_before = prober.read_steal();
        prober
    }

    /// Measures every point once.
    pub fn measure(&self, points: &[WatchPoint]) -> Vec<Measured> {
        points.iter().map(|p| measure(p, &self.config, &self.clock, self.thp).ok()).collect()
    }

    /// The interval that began at `at_s` and ends now: `measured`, with the steal time since the
    /// last interval ended (read now, so that a sample covers its whole interval).
    pub fn close(&mut self, at_s: f64, measured: &[Measured]) -> WatchSample {
        let stat_after = self.read_steal();
        let delta = match (self.stat_before, stat_after) {
            (Some((s0, t0)), Some((s1, t1))) => Some((s1.saturating_sub(s0), t1.saturating_sub(t0))),
            _ => None,
        };
        self.stat_before = stat_after;
        WatchSample {
            at_s,
            ns_per_load: measured.iter().map(|m| m.map(|(ns, _)| ns)).collect(),
            noise: measured.iter().map(|m| m.map(|(_, noise)| noise)).collect(),
            steal_jiffies: delta.map(|d| d.0),
            total_jiffies: delta.map(|d| d.1),
        }
    }

    fn read_steal(&mut self) -> Option<(u64, u64)> {
        read_steal().map_err(|why| self.steal_unavailable = Some(why)).ok()
    }
}

/// One point measured as the ladder measures it: its median ns per load, and the samples'
/// (median - min) / min.
pub fn measure(
    point: &WatchPoint,
    config: &SampleConfig,
    clock: &NativeClock,
    thp: bool,
) -> Result<(f64, f64), String> {
    let mut arena = MmapArena { huge_pages: if thp { HugePages::Thp } else { HugePages::Off } };
    let measured = ladder::measure_point(&mut arena, clock, point.bytes, config, None).map_err(|e| e.to_string())?;
    Ok((measured.ns_per_load.median, measured.ns_per_load.spread()))
}

/// Sleeps until `deadline` in short naps, so that Ctrl-C (or SIGTERM) ends the wait promptly.
pub fn sleep_until(deadline: Instant) {
    while !INTERRUPTED.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(100)));
    }
}

/// Steal and total jiffies so far, from /proc/stat.
pub fn read_steal() -> Result<(u64, u64), String> {
    let text = std::fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
    steal_jiffies(&text).ok_or_else(|| "/proc/stat has no steal column".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_holds_each_point_and_the_steal_over_it() {
        let host = Host { timer_resolution_ns: Some(1.0), ..Default::default() };
        let mut prober = Prober::new(&host, NativeClock::new());
        prober.config.target_sample_ns = 1e5;
        let points =
            [WatchPoint { level: "L2".into(), bytes: 64 << 10 }, WatchPoint { level: "tiny".into(), bytes: 64 }];
        let measured = prober.measure(&points);
        assert!(measured[0].is_some_and(|(ns, noise)| ns > 0.0 && noise >= 0.0), "{measured:?}");
        assert_eq!(measured[1], None, "a point under two lines cannot be measured");
        let sample = prober.close(3.0, &measured);
        assert_eq!((sample.at_s, sample.ns_per_load.len(), sample.ns_per_load[1]), (3.0, 2, None));
        let has_stat = std::path::Path::new("/proc/stat").exists();
        assert_eq!(sample.total_jiffies.is_some(), has_stat && prober.steal_unavailable.is_none());
    }
}
