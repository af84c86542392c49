//! Reading a `memwall watch` timeline: how far each watched ladder point moved over the window,
//! the worst minute, the hypervisor's steal time, and a plain verdict on how stable the host is.
//!
//! What counts as a disturbed interval is relative to the point's own figures. Its reference is
//! its fastest interval (noise only ever adds time, so the fastest is the least disturbed, as the
//! ladder keeps its least disturbed attempt); an interval is disturbed when it runs above that by
//! more than the point's quiet noise: the within-interval spread of its quieter intervals (the
//! lower quartile), floored at the ladder's own [`SETTLED_SPREAD`]. The same share of CPU time
//! stolen by the hypervisor is where steal starts to matter.

use memwall_report::{Level, PointStability, Stability, Summary, Watch, WatchPoint, WatchSample, quantile};

use crate::budget::CacheBudget;
use crate::ladder::{LINE_BYTES, SETTLED_SPREAD};
use crate::size::format_bytes;

/// The working sets to watch, from a ladder's levels: one inside L2, one inside the last cache
/// level before DRAM, one in DRAM. A cache point is half the largest working set the ladder still
/// measured on that level's plateau (that one is the plateau's edge, where a cache whose
/// replacement is not LRU already misses), unless half falls back onto the level before; the DRAM
/// point is four times where DRAM began, so the caches hold at most a quarter of it. Returns the points and, for each level that could not be
/// placed, why.
pub fn watch_points(levels: &[Level]) -> (Vec<WatchPoint>, Vec<String>) {
    let budget = CacheBudget::GUESS.measured(levels);
    let mut points = Vec::new();
    let mut missing = Vec::new();
    let inside = |l: &Level| {
        let before = levels.iter().filter(|b| b.size_bytes < l.size_bytes).map(|b| b.size_bytes).max().unwrap_or(0);
        let half = l.size_bytes / 2 / LINE_BYTES as u64 * LINE_BYTES as u64;
        WatchPoint { level: l.name.clone(), bytes: if half > before { half } else { l.size_bytes } }
    };
    let l2 = levels.iter().find(|l| l.name == "L2");
    match l2 {
        Some(l) => points.push(inside(l)),
        None => missing.push("no L2 level in the ladder".to_string()),
    }
    let dram = levels.iter().find(|l| l.cause == memwall_report::Cause::Dram);
    let llc = levels
        .iter()
        .filter(|l| l.cause == memwall_report::Cause::Cache && l.name != "L1" && l.name != "L2")
        .filter(|l| dram.is_none_or(|d| l.size_bytes < d.size_bytes))
        .max_by_key(|l| l.size_bytes);
    match llc {
        Some(l) => points.push(inside(l)),
        None => missing.push(format!(
            "no cache level past L2 in the ladder (the budget's last level: {})",
            format_bytes(budget.last_level_bytes)
        )),
    }
    match dram {
        Some(d) => {
            points.push(WatchPoint { level: d.name.clone(), bytes: (d.size_bytes * 4).max(LINE_BYTES as u64 * 2) })
        }
        None => missing.push("the ladder never reached DRAM".to_string()),
    }
    (points, missing)
}

/// Parses a duration such as `10m`, `10s`, `1h`, `90s`, `1.5m` or `500ms` into seconds.
pub fn parse_duration(text: &str) -> Result<f64, String> {
    let bad = || format!("invalid duration '{text}': expected e.g. 10s, 10m, 1h or 500ms");
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit {
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad()),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let seconds = value * scale;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 7.0 * 86400.0) {
        return Err(format!("invalid duration '{text}': it must be above 0 and at most a week"));
    }
    Ok(seconds)
}

/// Steal and total jiffies from /proc/stat's first (`cpu`) line: user, nice, system, idle,
/// iowait, irq, softirq, steal (guest time is already inside user). `None` when the line is not
/// there or has no steal column (kernels before 2.6.11).
pub fn steal_jiffies(proc_stat: &str) -> Option<(u64, u64)> {
    let line = proc_stat.lines().find(|l| l.split_whitespace().next() == Some("cpu"))?;
    let fields: Vec<u64> = line.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if fields.len() < 8 {
        return None;
    }
    Some((fields[7], fields[..8].iter().sum()))
}

/// One watched point over the window, and what its intervals are held against: its fastest
/// interval, its window median, and how far above the fastest an undisturbed interval may run.
fn point_reading(watch: &Watch, j: usize) -> Option<(PointStability, (f64, f64, f64))> {
    let point = &watch.points[j];
    let values: Vec<f64> = watch.samples.iter().filter_map(|s| s.ns_per_load.get(j).copied().flatten()).collect();
    let mut noises: Vec<f64> = watch.samples.iter().filter_map(|s| s.noise.get(j).copied().flatten()).collect();
    let summary = Summary::of(&values)?;
    noises.sort_by(f64::total_cmp);
    let noise = if noises.is_empty() { 0.0 } else { quantile(&noises, 0.5) };
    let quiet_noise = if noises.is_empty() { 0.0 } else { quantile(&noises, 0.25) };
    let spread = if summary.median > 0.0 { (summary.max - summary.min) / summary.median } else { 0.0 };
    let stability = PointStability {
        level: point.level.clone(),
        bytes: point.bytes,
        min_ns: summary.min,
        median_ns: summary.median,
        max_ns: summary.max,
        spread,
        noise,
    };
    Some((stability, (summary.min, summary.median, quiet_noise.max(SETTLED_SPREAD))))
}

type Reference = Option<(f64, f64, f64)>;

/// Per point measured in `sample`: (over its fastest, over its median, tolerance).
fn slowness(reference: &[Reference], sample: &WatchSample) -> Vec<(f64, f64, f64)> {
    reference
        .iter()
        .enumerate()
        .filter_map(|(j, r)| {
            let (fastest, median, tolerance) = (*r)?;
            let ns = sample.ns_per_load.get(j).copied().flatten()?;
            Some((ns / fastest - 1.0, ns / median - 1.0, tolerance))
        })
        .collect()
}

fn disturbed_by(watch: &Watch, reference: &[Reference]) -> Vec<bool> {
    watch
        .samples
        .iter()
        .map(|s| slowness(reference, s).iter().any(|(over_fastest, _, tolerance)| over_fastest > tolerance))
        .collect()
}

/// Per interval, in order: whether some point ran above its fastest interval by more than its
/// quiet noise (what `read` counts in `disturbed_intervals`; the page marks these).
pub fn disturbed(watch: &Watch) -> Vec<bool> {
    let reference: Vec<Reference> = (0..watch.points.len()).map(|j| point_reading(watch, j).map(|r| r.1)).collect();
    disturbed_by(watch, &reference)
}

/// The share of CPU time the hypervisor stole during one interval, where /proc/stat was read.
pub fn interval_steal_share(sample: &WatchSample) -> Option<f64> {
    let (steal, total) = (sample.steal_jiffies?, sample.total_jiffies?);
    (total > 0).then(|| steal as f64 / total as f64)
}

/// Reads a timeline.
pub fn read(watch: &Watch) -> Stability {
    let intervals = watch.samples.len() as u32;
    let mut points = Vec::new();
    let mut reference: Vec<Reference> = Vec::new();
    for j in 0..watch.points.len() {
        let reading = point_reading(watch, j);
        reference.push(reading.as_ref().map(|r| r.1));
        points.extend(reading.map(|r| r.0));
    }
    let slowness = |sample: &WatchSample| slowness(&reference, sample);
    let disturbed = disturbed_by(watch, &reference);
    let disturbed_intervals = disturbed.iter().filter(|d| **d).count() as u32;

    // Minutes of the window: the mean slowness of every point measured in each.
    let minute_of = |at_s: f64| (at_s / 60.0).floor().max(0.0) as u64;
    let mut minutes: Vec<u64> = watch.samples.iter().map(|s| minute_of(s.at_s)).collect();
    minutes.dedup();
    let worst = minutes
        .iter()
        .filter_map(|&m| {
            let slow: Vec<f64> = watch
                .samples
                .iter()
                .filter(|s| minute_of(s.at_s) == m)
                .flat_map(|s| slowness(s).into_iter().map(|(_, over_median, _)| over_median))
                .collect();
            (!slow.is_empty()).then(|| (m, slow.iter().sum::<f64>() / slow.len() as f64))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let steal_of = |keep: &dyn Fn(&WatchSample) -> bool| {
        let (steal, total) = watch
            .samples
            .iter()
            .filter(|s| keep(s))
            .filter_map(|s| Some((s.steal_jiffies?, s.total_jiffies?)))
            .fold((0u64, 0u64), |(a, b), (s, t)| (a + s, b + t));
        (total > 0).then(|| steal as f64 / total as f64)
    };
    let steal_share = steal_of(&|_| true);
    let worst_minute_steal_share = worst.and_then(|(m, _)| steal_of(&|s| minute_of(s.at_s) == m));
    let all_in_worst = worst.is_some_and(|(m, _)| {
        watch.samples.iter().zip(&disturbed).filter(|(_, d)| **d).all(|(s, _)| minute_of(s.at_s) == m)
    });
    let spread = points.iter().map(|p| p.spread).fold(0.0, f64::max);
    let class = if intervals < 2 || points.is_empty() {
        "too short"
    } else if disturbed_intervals == 0 {
        "steady"
    } else if all_in_worst && minutes.len() > 1 {
        "one bad minute"
    } else {
        "unsteady"
    };
    let mut stability = Stability {
        points,
        spread,
        worst_minute_from_s: worst.map(|(m, _)| m as f64 * 60.0),
        worst_minute_slowdown: worst.map(|(_, slow)| slow),
        steal_share,
        worst_minute_steal_share,
        disturbed_intervals,
        intervals,
        class: class.into(),
        verdict: String::new(),
    };
    stability.verdict = verdict(&stability, watch);
    stability
}

fn percent(share: f64) -> String {
    if share.abs() < 0.1 { format!("{:.1}%", share * 100.0) } else { format!("{:.0}%", share * 100.0) }
}

fn clock_text(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

fn verdict(s: &Stability, watch: &Watch) -> String {
    let window = watch.samples.last().map_or(0.0, |l| l.at_s + watch.every_s);
    let widest = s.points.iter().max_by(|a, b| a.spread.total_cmp(&b.spread));
    let widest_text = widest.map_or(String::new(), |p| {
        format!(
            "largest spread {} ({} {}, {:.1}-{:.1} ns)",
            percent(p.spread),
            p.level,
            format_bytes(p.bytes),
            p.min_ns,
            p.max_ns
        )
    });
    let mut out = match s.class.as_str() {
        "too short" => format!(
            "Too short to read: {} interval{} measured, at least two are needed to compare",
            s.intervals,
            if s.intervals == 1 { "" } else { "s" }
        ),
        "steady" => format!(
            "Steady: over {} ({} intervals) no watched point ran beyond its own noise; {widest_text}",
            clock_text(window),
            s.intervals
        ),
        "one bad minute" => format!(
            "Steady but for one bad minute (from {}): the watched points ran {} slow on average then; otherwise \
             within their noise; {widest_text}",
            clock_text(s.worst_minute_from_s.unwrap_or(0.0)),
            percent(s.worst_minute_slowdown.unwrap_or(0.0))
        ),
        _ => format!(
            "Unsteady: {} of {} intervals ran disturbed (a point above its fastest interval by more than its quiet \
             noise), the worst minute (from {}) {} above the window medians; {widest_text}",
            s.disturbed_intervals,
            s.intervals,
            clock_text(s.worst_minute_from_s.unwrap_or(0.0)),
            percent(s.worst_minute_slowdown.unwrap_or(0.0))
        ),
    };
    // Samples that spread within one interval mean the CPU itself was taken from the chase.
    let noisiest = s.points.iter().filter(|p| p.noise > SETTLED_SPREAD).max_by(|a, b| a.noise.total_cmp(&b.noise));
    if let Some(noisy) = noisiest {
        out += &format!(
            "; even within one interval the samples spread {} ({} {}, median over the window)",
            percent(noisy.noise),
            noisy.level,
            format_bytes(noisy.bytes)
        );
    }
    let unsteady = matches!(s.class.as_str(), "unsteady" | "one bad minute");
    out += &match (s.steal_share, s.worst_minute_steal_share) {
        (None, _) => format!("; steal time unavailable ({})", watch.steal_unavailable.as_deref().unwrap_or("not read")),
        (Some(steal), worst) if steal > SETTLED_SPREAD => format!(
            "; the hypervisor stole {} of CPU time{}: other tenants are taking this host's CPUs",
            percent(steal),
            worst.map_or(String::new(), |w| format!(" ({} in the worst minute)", percent(w)))
        ),
        (Some(steal), Some(worst)) if unsteady && worst > SETTLED_SPREAD => format!(
            "; steal {} over the window but {} in the worst minute: the hypervisor gave this guest's CPUs to others \
             then",
            percent(steal),
            percent(worst)
        ),
        (Some(steal), _) if unsteady => format!(
            "; steal stayed at {} of CPU time, so the hypervisor did not take the CPU: the disturbance came from \
             other work on this guest's CPUs or from neighbours' cache and memory traffic",
            percent(steal)
        ),
        (Some(steal), _) => format!("; steal time {} of CPU time", percent(steal)),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_report::Cause;

    fn watch(samples: Vec<WatchSample>) -> Watch {
        Watch {
            every_s: 10.0,
            window_s: 600.0,
            points: vec![
                WatchPoint { level: "L2".into(), bytes: 512 << 10 },
                WatchPoint { level: "L3".into(), bytes: 2 << 20 },
                WatchPoint { level: "DRAM".into(), bytes: 12 << 20 },
            ],
            samples,
            steal_unavailable: None,
            interrupted: false,
            stability: None,
        }
    }

    /// 60 intervals of 10 s; `slow(i)` multiplies interval i's latencies, `steal(i)` its steal
    /// jiffies out of 200.
    fn timeline(slow: impl Fn(usize) -> f64, steal: impl Fn(usize) -> u64) -> Watch {
        watch(
            (0..60)
                .map(|i| {
                    let wobble = 1.0 + (i % 3) as f64 * 0.003;
                    WatchSample {
                        at_s: i as f64 * 10.0,
                        ns_per_load: [3.0, 12.0, 95.0].iter().map(|ns| Some(ns * wobble * slow(i))).collect(),
                        noise: vec![Some(0.01); 3],
                        steal_jiffies: Some(steal(i)),
                        total_jiffies: Some(200),
                    }
                })
                .collect(),
        )
    }

    #[test]
    fn a_quiet_timeline_is_steady() {
        let s = read(&timeline(|_| 1.0, |_| 0));
        assert_eq!(s.class, "steady");
        assert_eq!((s.disturbed_intervals, s.intervals), (0, 60));
        assert!(s.spread < 0.01, "{}", s.spread);
        assert_eq!(s.steal_share, Some(0.0));
        assert_eq!(s.points[2].level, "DRAM");
        assert!((s.points[2].min_ns - 95.0).abs() < 1e-9);
        assert!(s.verdict.starts_with("Steady: over 10:00 (60 intervals) no watched point ran beyond its own noise"));
        assert!(s.verdict.ends_with("; steal time 0.0% of CPU time"), "{}", s.verdict);
    }

    #[test]
    fn a_noisy_timeline_names_its_bad_minute() {
        // Minute 4 (intervals 24-29) runs 30% slow, with steal.
        let bad = |i: usize| (24..30).contains(&i);
        let s = read(&timeline(|i| if bad(i) { 1.3 } else { 1.0 }, |i| if bad(i) { 20 } else { 0 }));
        assert_eq!(s.class, "one bad minute");
        assert_eq!(s.disturbed_intervals, 6);
        assert_eq!(s.worst_minute_from_s, Some(240.0));
        assert!((s.worst_minute_slowdown.unwrap() - 0.3).abs() < 0.02, "{:?}", s.worst_minute_slowdown);
        assert!((s.worst_minute_steal_share.unwrap() - 0.1).abs() < 1e-9);
        assert!(s.spread > 0.25);
        assert!(s.verdict.starts_with("Steady but for one bad minute (from 4:00): the watched points ran 30% slow"));
        // 120 of 12000 jiffies: 1%, under the 3% at which steal is called out.
        assert!(
            s.verdict.ends_with(
                "; steal 1.0% over the window but 10% in the worst minute: the hypervisor gave this guest's CPUs to \
                 others then"
            ),
            "{}",
            s.verdict
        );

        // Slow intervals spread over the window: unsteady.
        let s = read(&timeline(|i| if i % 7 == 0 { 1.2 } else { 1.0 }, |_| 0));
        assert_eq!(s.class, "unsteady");
        assert_eq!(s.disturbed_intervals, 9);
        assert!(s.verdict.starts_with("Unsteady: 9 of 60 intervals ran disturbed"), "{}", s.verdict);
        assert!(s.verdict.contains("steal stayed at 0.0% of CPU time, so the hypervisor did not take the CPU"));

        // Samples that spread within every interval are said to, whatever the medians did.
        let mut noisy = timeline(|_| 1.0, |_| 0);
        for sample in &mut noisy.samples {
            sample.noise[2] = Some(0.4);
        }
        let s = read(&noisy);
        assert!(s.verdict.contains("even within one interval the samples spread 40% (DRAM 12 MiB"), "{}", s.verdict);
    }

    /// The page marks the intervals `read` counts, and no others.
    #[test]
    fn the_disturbed_intervals_are_the_ones_counted() {
        let w = timeline(|i| if i % 7 == 0 { 1.2 } else { 1.0 }, |i| if i == 3 { 50 } else { 0 });
        let marks = disturbed(&w);
        let expected: Vec<usize> = (0..60).filter(|i| i % 7 == 0).collect();
        assert_eq!(marks.iter().enumerate().filter(|(_, d)| **d).map(|(i, _)| i).collect::<Vec<_>>(), expected);
        assert_eq!(marks.iter().filter(|d| **d).count() as u32, read(&w).disturbed_intervals);
        assert_eq!(interval_steal_share(&w.samples[3]), Some(0.25));
        assert_eq!(interval_steal_share(&w.samples[4]), Some(0.0));
        let unread = WatchSample { steal_jiffies: None, ..w.samples[3].clone() };
        assert_eq!(interval_steal_share(&unread), None);
    }

    #[test]
    fn high_steal_is_called_out_even_when_latency_holds() {
        let s = read(&timeline(|_| 1.0, |_| 30));
        assert_eq!(s.class, "steady");
        assert!((s.steal_share.unwrap() - 0.15).abs() < 1e-9);
        assert!(s.verdict.contains("the hypervisor stole 15% of CPU time (15% in the worst minute)"), "{}", s.verdict);
    }

    #[test]
    fn unreadable_steal_and_short_windows_say_so() {
        let mut w = timeline(|_| 1.0, |_| 0);
        w.samples.truncate(1);
        for s in &mut w.samples {
            (s.steal_jiffies, s.total_jiffies) = (None, None);
        }
        w.steal_unavailable = Some("/proc/stat: no such file".into());
        let s = read(&w);
        assert_eq!((s.class.as_str(), s.steal_share), ("too short", None));
        assert_eq!(
            s.verdict,
            "Too short to read: 1 interval measured, at least two are needed to compare; steal time unavailable \
             (/proc/stat: no such file)"
        );
        let empty = read(&watch(vec![]));
        assert_eq!((empty.class.as_str(), empty.intervals), ("too short", 0));
    }

    #[test]
    fn steal_comes_from_the_cpu_line() {
        let stat = "cpu  142495 0 8892 12709 331 0 80 653 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(steal_jiffies(stat), Some((653, 142495 + 8892 + 12709 + 331 + 80 + 653)));
        assert_eq!(steal_jiffies("cpu 1 2 3 4\n"), None);
        assert_eq!(steal_jiffies("intr 5\n"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10m"), Ok(600.0));
        assert_eq!(parse_duration("10s"), Ok(10.0));
        assert_eq!(parse_duration("10"), Ok(10.0));
        assert_eq!(parse_duration("1.5h"), Ok(5400.0));
        assert_eq!(parse_duration("500ms"), Ok(0.5));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("-3s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("10d").is_err());
    }

    #[test]
    fn points_are_placed_inside_the_levels_read() {
        use crate::fixtures::level;
        let levels = [
            level("L1", 32 << 10, Cause::Cache),
            level("L2", 512 << 10, Cause::Cache),
            level("L3", 2 << 20, Cause::Cache),
            level("DRAM", 3 << 20, Cause::Dram),
        ];
        let (points, missing) = watch_points(&levels);
        assert!(missing.is_empty());
        let got: Vec<(&str, u64)> = points.iter().map(|p| (p.level.as_str(), p.bytes)).collect();
        assert_eq!(got, [("L2", 256 << 10), ("L3", 1 << 20), ("DRAM", 12 << 20)]);
        // Half of L3 would be L2 again: the plateau's largest size is kept.
        let (points, _) = watch_points(&[level("L2", 1 << 20, Cause::Cache), level("L3", 3 << 19, Cause::Cache)]);
        assert_eq!(points[1].bytes, 3 << 19);
        let (points, missing) = watch_points(&levels[..2]);
        assert_eq!(points.len(), 1);
        assert_eq!(missing.len(), 2);
        assert!(missing[1].contains("never reached DRAM"));
    }
}
