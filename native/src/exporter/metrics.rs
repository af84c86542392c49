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
use prometheus_client::registry::{Metric, Registry, Unit};

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

/// Declares [`Metrics`] from one list: each series' field and type, its name, unit and help,
/// written once; `Metrics::new` registers them in the list's order. A macro, not a list of boxed
/// metrics: the client's boxed `dyn Metric` is not itself a metric it can register.
macro_rules! metrics {
    ($($field:ident: $ty:ty = $name:literal, $unit:expr, $help:literal;)*) => {
        /// Every series the exporter serves, and the registry that encodes them.
        #[derive(Debug)]
        pub struct Metrics {
            registry: Registry,
            $($field: $ty,)*
        }

        impl Metrics {
            /// The metrics of host `host`, with nothing measured yet.
            pub fn new(host: &str) -> Self {
                let labels = [(Cow::Borrowed("host"), Cow::Owned(host.to_owned()))];
                let mut registry = Registry::with_prefix_and_labels("memwall", labels.into_iter());
                $(
                    let $field = <$ty>::default();
                    register(&mut registry, $name, $help, $unit, $field.clone());
                )*
                Self { registry, $($field,)* }
            }
        }
    };
}

metrics! {
    latency: Family<PointLabels, FloatGauge> = "load_latency", Some(Unit::Seconds),
        "Time per dependent load (median of the interval's samples) at each watched working set";
    dram: Lazy = "dram_latency", Some(Unit::Seconds), "Time per dependent load at the DRAM point";
    effective_llc: Family<LevelLabels, Gauge> = "effective_llc", Some(Unit::Bytes),
        "How far the last cache level behaves like cache, as the levels were last read";
    declared_llc: Family<LevelLabels, Gauge> = "declared_llc", Some(Unit::Bytes),
        "The largest data cache the OS declares";
    steal: Lazy = "steal_ratio", None, "Share of CPU time the hypervisor stole over the last interval";
    intervals: Counter = "intervals", None, "Intervals measured";
    disturbed: Counter = "disturbed_intervals", None,
        "Intervals in which a point ran above its fastest interval since the levels were read by more than its quiet noise";
    probe_cpu: Counter<f64, AtomicU64> = "probe_cpu", Some(Unit::Seconds),
        "CPU time spent probing: the intervals and the readings of the levels";
    probe_duration: Lazy = "probe_duration", Some(Unit::Seconds), "Wall time the last interval's measurement took";
    last_probe: Lazy = "last_probe_timestamp", Some(Unit::Seconds),
        "When the last interval ended, in seconds since the Unix epoch";
    levels_read: FloatGauge = "levels_read_timestamp", Some(Unit::Seconds),
        "When the cache levels were last read, in seconds since the Unix epoch";
}

/// Registers one series, with its unit in the name where it has one.
fn register(registry: &mut Registry, name: &str, help: &str, unit: Option<Unit>, metric: impl Metric) {
    match unit {
        Some(unit) => registry.register_with_unit(name, help, unit, metric),
        None => registry.register(name, help, metric),
    }
}

impl Metrics {
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
