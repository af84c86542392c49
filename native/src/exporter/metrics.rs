//! The exporter's figures as Prometheus metrics, encoded by the Prometheus project's own client
//! (`prometheus-client`) in the text exposition format (0.0.4).
//!
//! Names follow Prometheus's conventions: the `memwall_` prefix, base units in the name
//! (`_seconds`, `_bytes`, a `_ratio` of 0..1), `_total` on counters (the client adds it). Every
//! series carries the host's name as `host`; a point's latency also its `level` and working set in
//! `bytes`, a cache its `level`. A scrape only encodes what the probe last stored: nothing here
//! measures.

use std::borrow::Cow;
use std::sync::atomic::AtomicU64;

use memwall_report::{Cache, Level, WatchPoint, WatchSample};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};

pub use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

type FloatGauge = Gauge<f64, AtomicU64>;
/// A series with no labels of its own that appears only once set: a latency, a share or a time
/// that was never measured has no series rather than a 0.
type Lazy = Family<[(&'static str, &'static str); 0], FloatGauge>;

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PointLabels {
    level: String,
    bytes: u64,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LevelLabels {
    level: String,
}

/// Every series the exporter serves, and the registry that encodes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    latency: Family<PointLabels, FloatGauge>,
    dram: Lazy,
    effective_llc: Family<LevelLabels, Gauge>,
    declared_llc: Family<LevelLabels, Gauge>,
    steal: Lazy,
    intervals: Counter,
    disturbed: Counter,
    probe_cpu: Counter<f64, AtomicU64>,
    probe_duration: Lazy,
    last_probe: Lazy,
    levels_read: FloatGauge,
}

impl Metrics {
    /// The metrics of host `host`, with nothing measured yet.
    pub fn new(host: &str) -> Self {
        let labels = [(Cow::Borrowed("host"), Cow::Owned(host.to_owned()))];
        let mut registry = Registry::with_prefix_and_labels("memwall", labels.into_iter());
        let m = Self {
            registry: Registry::default(),
            latency: Family::default(),
            dram: Lazy::default(),
            effective_llc: Family::default(),
            declared_llc: Family::default(),
            steal: Lazy::default(),
            intervals: Counter::default(),
            disturbed: Counter::default(),
            probe_cpu: Counter::default(),
            probe_duration: Lazy::default(),
            last_probe: Lazy::default(),
            levels_read: FloatGauge::default(),
        };
        let r = &mut registry;
        r.register_with_unit(
            "load_latency",
            "Time per dependent load (median of the interval's samples) at each watched working set",
            Unit::Seconds,
            m.latency.clone(),
        );
        r.register_with_unit(
            "dram_latency",
            "Time per dependent load at the DRAM point",
            Unit::Seconds,
            m.dram.clone(),
        );
        r.register_with_unit(
            "effective_llc",
            "How far the last cache level behaves like cache, as the levels were last read",
            Unit::Bytes,
            m.effective_llc.clone(),
        );
        r.register_with_unit(
            "declared_llc",
            "The largest data cache the OS declares",
            Unit::Bytes,
            m.declared_llc.clone(),
        );
        r.register("steal_ratio", "Share of CPU time the hypervisor stole over the last interval", m.steal.clone());
        r.register("intervals", "Intervals measured", m.intervals.clone());
        r.register(
            "disturbed_intervals",
            "Intervals in which a point ran above its fastest interval since the levels were read by more than its quiet noise",
            m.disturbed.clone(),
        );
        r.register_with_unit(
            "probe_cpu",
            "CPU time spent probing: the intervals and the readings of the levels",
            Unit::Seconds,
            m.probe_cpu.clone(),
        );
        r.register_with_unit(
            "probe_duration",
            "Wall time the last interval's measurement took",
            Unit::Seconds,
            m.probe_duration.clone(),
        );
        r.register_with_unit(
            "last_probe_timestamp",
            "When the last interval ended, in seconds since the Unix epoch",
            Unit::Seconds,
            m.last_probe.clone(),
        );
        r.register_with_unit(
            "levels_read_timestamp",
            "When the cache levels were last read, in seconds since the Unix epoch",
            Unit::Seconds,
            m.levels_read.clone(),
        );
        Self { registry, ..m }
    }

    /// A reading of the levels: the last cache level as read (none: no series), the largest
    /// declared data cache, when, and the CPU time it took.
    pub fn levels_read(&self, last_cache: Option<&Level>, declared: Option<&Cache>, unix_s: f64, cpu_s: f64) {
        self.effective_llc.clear();
        if let Some(level) = last_cache {
            self.effective_llc
                .get_or_create(&LevelLabels { level: level.name.clone() })
                .set(gauge_i64(level.size_bytes));
        }
        self.declared_llc.clear();
        if let Some(cache) = declared {
            let labels = LevelLabels { level: format!("L{}", cache.level) };
            self.declared_llc.get_or_create(&labels).set(gauge_i64(cache.size_bytes));
        }
        self.levels_read.set(unix_s);
        self.probe_cpu.inc_by(cpu_s.max(0.0));
    }

    /// New points are watched from now on: the series of the old ones go (a point's series
    /// appears when it is first measured, never as a 0 s latency before that).
    pub fn watching(&self) {
        self.latency.clear();
    }

    /// One interval of `points` (the DRAM point at `dram`, if any): its figures, whether it was
    /// disturbed, and what measuring it cost.
    pub fn interval(&self, points: &[WatchPoint], dram: Option<usize>, sample: &Interval<'_>) {
        for (p, ns) in points.iter().zip(&sample.sample.ns_per_load) {
            let labels = PointLabels { level: p.level.clone(), bytes: p.bytes };
            if let Some(ns) = ns {
                self.latency.get_or_create(&labels).set(ns / 1e9);
            } else {
                self.latency.remove(&labels);
            }
        }
        if let Some(ns) = dram.and_then(|j| sample.sample.ns_per_load.get(j).copied().flatten()) {
            self.dram.get_or_create(&[]).set(ns / 1e9);
        }
        if let Some(share) = memwall_core::stability::interval_steal_share(sample.sample) {
            self.steal.get_or_create(&[]).set(share);
        }
        self.intervals.inc();
        if sample.disturbed {
            self.disturbed.inc();
        }
        self.probe_cpu.inc_by(sample.cpu_s.max(0.0));
        self.probe_duration.get_or_create(&[]).set(sample.wall_s);
        self.last_probe.get_or_create(&[]).set(sample.unix_s);
    }

    /// Everything, in the Prometheus text format ([`CONTENT_TYPE`]).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail; an encoder error would be a bug in a metric here.
        prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry).expect("metrics encode");
        text
    }
}

/// One interval as the metrics take it.
#[derive(Debug)]
pub struct Interval<'a> {
    pub sample: &'a WatchSample,
    pub disturbed: bool,
    /// CPU time the measurement took (the probing thread's).
    pub cpu_s: f64,
    /// Wall time the measurement took.
    pub wall_s: f64,
    /// When the interval ended.
    pub unix_s: f64,
}

fn gauge_i64(bytes: u64) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

/// The metric names a scrape can hold, as written in the exposition (`_total` on counters): what
/// a dashboard may name.
#[cfg(test)]
pub fn exposed_names(exposition: &str) -> Vec<String> {
    exposition
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
pub(super) mod tests;
