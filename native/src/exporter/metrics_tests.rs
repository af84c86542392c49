use super::*;

/// A level as a report holds it (every other field as an old report leaves it).
pub fn level(name: &str, bytes: u64, cause: &str) -> Level {
    let json = serde_json::json!({"name": name, "size_bytes": bytes, "ns_per_load": 10.0, "cause": cause});
    serde_json::from_value(json).unwrap()
}

fn points() -> Vec<WatchPoint> {
    vec![
        WatchPoint { level: "L2".into(), bytes: 256 << 10 },
        WatchPoint { level: "L3".into(), bytes: 1 << 20 },
        WatchPoint { level: "DRAM".into(), bytes: 12 << 20 },
    ]
}

fn sample(ns: [Option<f64>; 3]) -> WatchSample {
    WatchSample {
        at_s: 0.0,
        ns_per_load: ns.to_vec(),
        noise: vec![Some(0.01); 3],
        steal_jiffies: Some(3),
        total_jiffies: Some(200),
    }
}

/// The value of the one series of `name` whose line holds every one of `labels`.
fn value(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.split(['{', ' ']).next() == Some(name) && labels.iter().all(|want| l.contains(want)))
        .collect();
    assert!(lines.len() <= 1, "{name} {labels:?}: {lines:?}");
    lines.first().and_then(|l| l.rsplit(' ').next()).map(|v| v.parse().unwrap())
}

/// Metrics with every series set, as after a reading of the levels and an interval.
pub fn full(host: &str) -> Metrics {
    let m = Metrics::new(host);
    let points = points();
    m.watching();
    let declared =
        Cache { level: 3, kind: "Unified".into(), size_bytes: 32 << 20, line_bytes: None, shared_by_cpus: None };
    m.levels_read(Some(&level("L3", 2 << 20, "cache")), Some(&declared), 1.7e9, 2.5);
    let s = sample([Some(3.5), Some(13.0), Some(101.0)]);
    m.interval(
        &points,
        Some(2),
        &Interval { sample: &s, disturbed: true, cpu_s: 0.05, wall_s: 0.06, unix_s: 1.7e9 + 10.0 },
    );
    m
}

#[test]
fn an_interval_is_exposed_in_base_units_with_the_host_on_every_series() {
    let m = full("db-7");
    let text = m.encode();
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["level=\"L3\"", "bytes=\"1048576\""]), Some(13.0e-9));
    assert_eq!(value(&text, "memwall_dram_latency_seconds", &[]), Some(101.0e-9));
    assert_eq!(value(&text, "memwall_effective_llc_bytes", &["level=\"L3\""]), Some((2 << 20) as f64));
    assert_eq!(value(&text, "memwall_declared_llc_bytes", &["level=\"L3\""]), Some((32 << 20) as f64));
    assert_eq!(value(&text, "memwall_steal_ratio", &[]), Some(0.015));
    assert_eq!(value(&text, "memwall_intervals_total", &[]), Some(1.0));
    assert_eq!(value(&text, "memwall_disturbed_intervals_total", &[]), Some(1.0));
    assert_eq!(value(&text, "memwall_probe_cpu_seconds_total", &[]), Some(2.55));
    assert_eq!(value(&text, "memwall_last_probe_timestamp_seconds", &[]), Some(1.7e9 + 10.0));
    let series: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(series.len(), 13, "{text}");
    assert!(series.iter().all(|l| l.contains("host=\"db-7\"")), "{text}");
}

#[test]
fn names_follow_the_conventions() {
    let names = exposed_names(&full("h").encode());
    assert_eq!(names.len(), 11, "{names:?}");
    for name in &names {
        assert!(name.starts_with("memwall_"), "{name}");
        assert!(!name.contains("_ns") && !name.contains("kib") && !name.contains("percent"), "{name}");
        let unit = ["_seconds", "_bytes", "_ratio", "_total"].iter().any(|u| name.ends_with(u));
        assert!(unit, "{name}: a base unit or _total at the end");
    }
    let text = full("h").encode();
    for counter in text.lines().filter(|l| l.ends_with(" counter")) {
        assert!(counter.split_whitespace().nth(2).unwrap().ends_with("_total"), "{counter}");
    }
}

#[test]
fn a_point_not_measured_or_no_longer_watched_has_no_series() {
    let m = Metrics::new("h");
    let points = points();
    m.watching();
    let s = sample([Some(3.5), None, Some(101.0)]);
    m.interval(&points, Some(2), &Interval { sample: &s, disturbed: false, cpu_s: 0.0, wall_s: 0.0, unix_s: 0.0 });
    let text = m.encode();
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["level=\"L3\""]), None);
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["level=\"L2\""]), Some(3.5e-9));
    assert_eq!(value(&text, "memwall_disturbed_intervals_total", &[]), Some(0.0));
    // The levels moved (an L3 lost after a migration): the old points' series go.
    let moved = vec![points[0].clone(), WatchPoint { level: "DRAM".into(), bytes: 4 << 20 }];
    m.watching();
    m.levels_read(Some(&level("L2", 512 << 10, "cache")), None, 0.0, 0.0);
    let text = m.encode();
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["bytes=\"12582912\""]), None);
    // A point gets its series when first measured: never a 0 s latency before that.
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["bytes=\"4194304\""]), None);
    assert_eq!(value(&text, "memwall_effective_llc_bytes", &["level=\"L3\""]), None);
    assert_eq!(value(&text, "memwall_effective_llc_bytes", &["level=\"L2\""]), Some((512 << 10) as f64));
    assert_eq!(value(&text, "memwall_declared_llc_bytes", &[]), None);
    let s = WatchSample { ns_per_load: vec![Some(4.0), Some(90.0)], noise: vec![None; 2], ..sample([None; 3]) };
    assert!(value(&text, "memwall_declared_llc_bytes", &[]).is_none());
    m.interval(&moved, Some(1), &Interval { sample: &s, disturbed: false, cpu_s: 0.0, wall_s: 0.0, unix_s: 0.0 });
    let text = m.encode();
    assert_eq!(value(&text, "memwall_load_latency_seconds", &["bytes=\"4194304\""]), Some(90.0e-9));
    assert_eq!(value(&text, "memwall_dram_latency_seconds", &[]), Some(90.0e-9));
}
