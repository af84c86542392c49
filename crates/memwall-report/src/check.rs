//! Whether a parsed report's figures could have been measured at all.
//!
//! Parsing only checks the shape; a report from a stranger can still hold a negative latency, a
//! time of 1e300 seconds or a million points that would stall whatever draws them. A reader that
//! shows figures first asks [`Report::check`], and refuses (or marks) a report that fails.

use crate::ladder::Summary;
use crate::race::{RaceSweep, Run};
use crate::report::Report;
use crate::report::ReportError;

/// The largest report file a reader should load: a full native report is well under 1 MiB.
/// It bounds a downloaded report (`?report=URL`) and a share link's report once inflated alike,
/// so that a link or server cannot make a reader hold more than this.
pub const MAX_REPORT_BYTES: u64 = 64 << 20;
/// Ladder points, GROUP BY runs, sweep points or samples per list: far above what memwall
/// writes (about 100 points, 20 samples each), far below what would stall a chart.
pub const MAX_ITEMS: usize = 100_000;

/// Why a report's figures cannot be right.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("impossible figure: {0}")]
pub struct Implausible(pub String);

/// Upper bounds, generous by orders of magnitude, for figures that are physical quantities.
const MAX_NS_PER_LOAD: f64 = 1e9;
const MAX_SECONDS: f64 = 1e7;
const MAX_GHZ: f64 = 1e3;

fn finite_in(what: &str, value: f64, max: f64) -> Result<(), Implausible> {
    if value.is_finite() && (0.0..=max).contains(&value) {
        Ok(())
    } else {
        Err(Implausible(format!("{what} is {value}, outside 0..={max}")))
    }
}

fn summary_in(what: &str, s: &Summary, max: f64) -> Result<(), Implausible> {
    for (name, value) in [("min", s.min), ("median", s.median), ("p90", s.p90), ("max", s.max)] {
        finite_in(&format!("{what} {name}"), value, max)?;
    }
    if !(s.min <= s.median && s.median <= s.p90 && s.p90 <= s.max) {
        return Err(Implausible(format!("{what}: min <= median <= p90 <= max does not hold")));
    }
    Ok(())
}

fn count_at_most(what: &str, len: usize) -> Result<(), Implausible> {
    if len <= MAX_ITEMS { Ok(()) } else { Err(Implausible(format!("{len} {what}, more than {MAX_ITEMS}"))) }
}

/// Why a report from someone else is not shown as measured.
#[derive(Debug, thiserror::Error)]
pub enum Untrusted {
    /// Over [`MAX_REPORT_BYTES`]: refused before parsing.
    #[error("{0}")]
    TooLarge(String),
    #[error(transparent)]
    Unreadable(#[from] ReportError),
    /// It parsed, but its figures could not have been measured: a reader marks it and does not
    /// draw it.
    #[error(transparent)]
    Implausible(#[from] Implausible),
}

/// Refuses a report of `bytes` bytes when it is over [`MAX_REPORT_BYTES`].
pub fn check_size(bytes: u64) -> Result<(), Untrusted> {
    if bytes <= MAX_REPORT_BYTES {
        return Ok(());
    }
    Err(Untrusted::TooLarge(format!(
        "{} is more than a memwall report can be (at most {}); not read",
        size_text(bytes),
        size_text(MAX_REPORT_BYTES)
    )))
}

/// The refusal of a report whose size is not known, only that it ran past [`MAX_REPORT_BYTES`]: a
/// download or an inflating share link stops reading there.
pub fn too_large_stopped() -> Untrusted {
    Untrusted::TooLarge(format!(
        "it is more than a memwall report can be (at most {}); reading stopped there",
        size_text(MAX_REPORT_BYTES)
    ))
}

/// "64 MiB", "100.0 MiB": the report crate does not depend on the core's formatter.
fn size_text(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{:.1} MiB ({bytes} bytes)", bytes as f64 / MIB as f64)
    }
}

impl Report {
    /// Reads a report that came from someone else (a file, a URL, a share link): refuses text
    /// over [`MAX_REPORT_BYTES`], then parses it, then [`Report::check`]s its figures.
    pub fn from_untrusted_json(text: &str) -> Result<Self, Untrusted> {
        check_size(text.len() as u64)?;
        let report = Self::from_json(text)?;
        report.check()?;
        Ok(report)
    }

    /// Checks that every figure is finite, in a physically possible range, and that no list is
    /// absurdly long.
    pub fn check(&self) -> Result<(), Implausible> {
        check_host(&self.host)?;
        self.ladder.as_ref().map_or(Ok(()), check_ladder)?;
        self.groupby.as_ref().map_or(Ok(()), check_groupby)?;
        self.join.as_ref().map_or(Ok(()), check_join)?;
        self.cores.as_ref().map_or(Ok(()), check_cores)?;
        self.watch.as_ref().map_or(Ok(()), check_watch)?;
        count_at_most("sensitivity curves", self.sensitivity.len())?;
        self.sensitivity.iter().try_for_each(check_sensitivity)?;
        count_at_most("engine sweeps", self.engine_sweeps.len())?;
        self.engine_sweeps.iter().try_for_each(check_engine_sweep)
    }
}

fn check_host(host: &crate::host::Host) -> Result<(), Implausible> {
    if let Some(ghz) = host.core_ghz {
        finite_in("host core_ghz", ghz, MAX_GHZ)?;
    }
    if let Some(ns) = host.timer_resolution_ns {
        finite_in("host timer_resolution_ns", ns, MAX_NS_PER_LOAD)?;
    }
    count_at_most("caches", host.caches.len())
}

fn check_ladder(ladder: &crate::ladder::Ladder) -> Result<(), Implausible> {
    count_at_most("ladder points", ladder.points.len())?;
    count_at_most("ladder steps", ladder.steps.len())?;
    if let Some(ghz) = ladder.ghz {
        finite_in("ladder ghz", ghz, MAX_GHZ)?;
    }
    finite_in("ladder target_sample_ns", ladder.target_sample_ns, MAX_SECONDS * 1e9)?;
    if let Some(s) = ladder.duration_s {
        finite_in("ladder duration_s", s, MAX_SECONDS)?;
    }
    for point in &ladder.points {
        let what = format!("ladder point {} B", point.bytes);
        summary_in(&format!("{what} ns_per_load"), &point.ns_per_load, MAX_NS_PER_LOAD)?;
        samples_in(&what, &point.samples_ns_per_load, MAX_NS_PER_LOAD)?;
        if let Some(cycles) = point.cycles_per_load {
            finite_in(&format!("{what} cycles_per_load"), cycles, MAX_NS_PER_LOAD * MAX_GHZ)?;
        }
    }
    for step in &ladder.steps {
        finite_in("ladder step ns_per_load_before", step.ns_per_load_before, MAX_NS_PER_LOAD)?;
        finite_in("ladder step ns_per_load_after", step.ns_per_load_after, MAX_NS_PER_LOAD)?;
    }
    Ok(())
}

/// A list of samples: not absurdly long, every one finite and in range.
fn samples_in(what: &str, samples: &[f64], max: f64) -> Result<(), Implausible> {
    count_at_most("samples", samples.len())?;
    samples.iter().try_for_each(|&s| finite_in(&format!("{what} sample"), s, max))
}

fn check_groupby(groupby: &crate::groupby::GroupBy) -> Result<(), Implausible> {
    count_at_most("GROUP BY runs", groupby.runs.len())?;
    count_at_most("sweeps", groupby.sweeps.len())?;
    for run in &groupby.runs {
        let what = check_run("GROUP BY run", run)?;
        finite_in(&format!("{what} ns_per_row"), run.ns_per_row, MAX_NS_PER_LOAD)?;
        count_at_most("top keys", run.top.len())?;
    }
    for sweep in &groupby.sweeps {
        check_sweep("sweep points", sweep)?;
        for point in &sweep.points {
            finite_in("sweep point ns_per_row", point.ns_per_row, MAX_NS_PER_LOAD)?;
            finite_in("sweep point seconds", point.seconds, MAX_SECONDS)?;
        }
        count_at_most("sweep best partitions", sweep.best_partitions.len())?;
        count_at_most("sweep crossovers", sweep.crossovers.len())?;
        for best in &sweep.best_partitions {
            finite_in("sweep best partitions ns_per_row", best.ns_per_row, MAX_NS_PER_LOAD)?;
        }
    }
    Ok(())
}

fn check_join(join: &crate::join::Join) -> Result<(), Implausible> {
    finite_in("join miss_rate", join.dataset.miss_rate, 1.0)?;
    count_at_most("join runs", join.runs.len())?;
    count_at_most("join sweeps", join.sweeps.len())?;
    for run in &join.runs {
        check_join_run(run, join.dataset.probe_rows)?;
    }
    join.sweeps.iter().try_for_each(check_join_sweep)
}

/// The fields every race's runs share; `Ok` gives the run's name for the workload's own checks.
fn check_run<A>(race: &str, run: &Run<A>) -> Result<String, Implausible> {
    let what = format!("{race} {}", run.kernel);
    summary_in(&format!("{what} seconds"), &run.seconds, MAX_SECONDS)?;
    samples_in(&what, &run.samples_seconds, MAX_SECONDS)?;
    if let Some(share) = run.huge_page_share {
        finite_in(&format!("{what} huge_page_share"), share, 1.0)?;
    }
    Ok(what)
}

/// The fields every race's sweeps share.
fn check_sweep<P, A>(points: &str, sweep: &RaceSweep<P, A>) -> Result<(), Implausible> {
    count_at_most(points, sweep.points.len())?;
    count_at_most("sweep checks", sweep.verified_by.len())
}

fn check_join_run(run: &crate::join::JoinRun, probe_rows: u64) -> Result<(), Implausible> {
    let what = check_run("join run", run)?;
    summary_in(&format!("{what} build_seconds"), &run.build_seconds, MAX_SECONDS)?;
    summary_in(&format!("{what} probe_seconds"), &run.probe_seconds, MAX_SECONDS)?;
    finite_in(&format!("{what} ns_per_probe"), run.ns_per_probe, MAX_NS_PER_LOAD)?;
    // Sums of at most 2^64 matched 64-bit values: a decimal integer within 128 bits.
    if let Some(sum) = &run.key_sum
        && sum.parse::<i128>().is_err()
    {
        return Err(Implausible(format!("{what}: key_sum {sum:?} is not a 128-bit integer")));
    }
    if let Some(sum) = &run.payload_sum
        && sum.parse::<u128>().is_err()
    {
        return Err(Implausible(format!("{what}: payload_sum {sum:?} is not an unsigned 128-bit integer")));
    }
    if run.matches > probe_rows {
        return Err(Implausible(format!(
            "{what}: {} matches from {probe_rows} probe rows over distinct build keys",
            run.matches
        )));
    }
    Ok(())
}

fn check_join_sweep(sweep: &crate::join::JoinSweep) -> Result<(), Implausible> {
    check_sweep("join sweep points", sweep)?;
    for point in &sweep.points {
        finite_in("join sweep point ns_per_probe", point.ns_per_probe, MAX_NS_PER_LOAD)?;
        for (name, value) in
            [("seconds", point.seconds), ("build", point.build_seconds), ("probe", point.probe_seconds)]
        {
            finite_in(&format!("join sweep point {name}"), value, MAX_SECONDS)?;
        }
    }
    count_at_most("join sweep fastest", sweep.fastest.len())?;
    count_at_most("join sweep crossovers", sweep.crossovers.len())?;
    for fastest in &sweep.fastest {
        finite_in("join sweep fastest ns_per_probe", fastest.ns_per_probe, MAX_NS_PER_LOAD)?;
        // Prefetch is one of the kernels the fastest was picked from.
        if let Some(ratio) = fastest.prefetch_over_fastest
            && !(1.0..=MAX_NS_PER_LOAD).contains(&ratio)
        {
            return Err(Implausible(format!(
                "join sweep prefetch_over_fastest {ratio} at {} build keys: prefetch cannot beat the fastest",
                fastest.build_keys
            )));
        }
    }
    if let Some(share) = sweep.prefetch_tolerance_share {
        finite_in("join sweep prefetch_tolerance_share", share, 1.0)?;
    }
    Ok(())
}

fn check_cores(cores: &crate::cores::Cores) -> Result<(), Implausible> {
    count_at_most("cores cpus", cores.cpus.len())?;
    count_at_most("cores pairs", cores.pairs.len())?;
    for pair in &cores.pairs {
        let what = format!("cores pair {}-{}", pair.cpu_a, pair.cpu_b);
        for ns in [pair.one_way_median_ns, pair.one_way_p10_ns, pair.one_way_p90_ns] {
            finite_in(&format!("{what} one_way ns"), ns, MAX_NS_PER_LOAD)?;
        }
    }
    Ok(())
}

fn check_watch(watch: &crate::watch::Watch) -> Result<(), Implausible> {
    finite_in("watch every_s", watch.every_s, MAX_SECONDS)?;
    finite_in("watch window_s", watch.window_s, MAX_SECONDS)?;
    count_at_most("watch points", watch.points.len())?;
    count_at_most("watch samples", watch.samples.len())?;
    for sample in &watch.samples {
        finite_in("watch sample at_s", sample.at_s, MAX_SECONDS)?;
        count_at_most("watch sample points", sample.ns_per_load.len())?;
        for ns in sample.ns_per_load.iter().flatten() {
            finite_in("watch sample ns_per_load", *ns, MAX_NS_PER_LOAD)?;
        }
    }
    Ok(())
}

fn check_sensitivity(curve: &crate::sensitivity::Sensitivity) -> Result<(), Implausible> {
    count_at_most("sensitivity levels", curve.levels.len())?;
    for level in &curve.levels {
        let what = format!("sensitivity level {}", level.name);
        summary_in(&format!("{what} seconds"), &level.seconds, MAX_SECONDS)?;
        samples_in(&what, &level.samples_seconds, MAX_SECONDS)?;
    }
    Ok(())
}

fn check_engine_sweep(sweep: &crate::engines::EngineSweep) -> Result<(), Implausible> {
    finite_in("engine sweep elapsed_seconds", sweep.elapsed_seconds, MAX_SECONDS)?;
    count_at_most("engine sweep points", sweep.points.len())?;
    count_at_most("engine sweep engines", sweep.engines.len())?;
    for point in &sweep.points {
        finite_in("engine sweep point ns_per_row", point.ns_per_row, MAX_NS_PER_LOAD)?;
        count_at_most("engine sweep samples", point.samples_seconds.len())?;
        for &s in &point.samples_seconds {
            finite_in("engine sweep sample", s, MAX_SECONDS)?;
        }
        // Charts draw keys on a log axis.
        if point.keys == 0 {
            return Err(Implausible(format!("engine sweep point of {} with 0 keys", point.engine)));
        }
    }
    Ok(())
}
