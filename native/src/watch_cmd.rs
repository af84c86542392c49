//! `memwall watch`: an L2, an LLC and a DRAM point of the ladder measured again every interval,
//! with the hypervisor's steal time from /proc/stat, as a timeline the core reads for stability.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::Args;
use memwall_core::ladder;
use memwall_core::size::format_bytes;
use memwall_core::stability::{self, parse_duration};
use memwall_report::{Report, Watch, WatchPoint};

use crate::error::{CliError, CliResult, INTERRUPTED, STOP_CLEANLY};
use crate::exporter::{self, ExporterArgs, Probing};
use crate::output::{self, ExportArgs};
use crate::platform::{self, NativeClock};
use crate::print::watch::{print_watch, sample_line};
use crate::watch_probe::{Prober, sleep_until};

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// How long to watch (e.g. 10m, 90s, 1h) [default: 10m; with --listen, until stopped].
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    pub window_s: Option<f64>,
    /// How often to measure (e.g. 10s); at most --for.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub every: f64,
    /// Take the levels from this report's ladder (read by the current rules) instead of
    /// measuring a quick ladder first.
    #[arg(long, value_name = "REPORT.json")]
    pub report: Option<PathBuf>,
    /// Pin the measuring thread to this CPU.
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub exporter: ExporterArgs,
}

/// How long a watch lasts without --for (or --listen).
const DEFAULT_WINDOW_S: f64 = 600.0;

pub fn watch(args: WatchArgs) -> CliResult {
    args.export.check()?;
    let window_s = args.window_s.or(args.exporter.listen.is_none().then_some(DEFAULT_WINDOW_S));
    if let Some(window_s) = window_s
        && window_s < args.every
    {
        return Err(CliError::usage(format!(
            "--for {window_s}s is shorter than --every {}s: not one interval would be measured",
            args.every
        )));
    }
    let listening = args.exporter.listen.map(exporter::Listening::bind).transpose()?;
    let clock = NativeClock::new();
    let mut out = args.export.human();
    let host = crate::host::measured(&clock);
    let why = "to place the points (a few seconds)";
    let levels = crate::cache_probe::levels(args.report.as_deref(), &host, &clock, true, &mut *out, why)?;
    let (points, missing) = stability::watch_points(&levels);
    if points.is_empty() {
        return Err(CliError::runtime(format!("nothing to watch: {}", missing.join("; "))));
    }
    let largest = points.iter().map(|p| p.bytes).max().unwrap_or(0);
    platform::check_fits_in_memory(ladder::bytes_needed(largest), &format!("the {} point", format_bytes(largest)))?;
    if let Some(cpu) = args.pin {
        platform::pin_current_thread(cpu)?;
    }
    for why in &missing {
        writeln!(out, "not watched: {why}").ok();
    }
    let prober = Prober::new(&host, clock);
    STOP_CLEANLY.store(true, Ordering::SeqCst);
    let until_stopped = listening.is_some() && args.window_s.is_none();
    let mut watch = match listening {
        Some(listening) => {
            let levels_measured = args.report.is_none();
            let probing =
                Probing { host: &host, levels, points, prober, every_s: args.every, window_s, levels_measured };
            let read_levels = || Ok(crate::cache_probe::cache_probe_to_dram(&host, &clock)?.levels);
            exporter::run(listening, &args.exporter, probing, &mut *out, read_levels)?
        }
        None => timeline(points, prober, args.every, window_s.unwrap_or(DEFAULT_WINDOW_S), &mut *out),
    };
    STOP_CLEANLY.store(false, Ordering::SeqCst);
    // With --listen and no --for, stopping is how a watch ends: no interruption.
    let interrupted = INTERRUPTED.load(Ordering::SeqCst) && !until_stopped;
    watch.interrupted = interrupted;
    watch.stability = Some(stability::read(&watch));
    print_watch(&mut *out, &watch).map_err(|e| CliError::runtime(e.to_string()))?;
    let measured = watch.samples.len();
    args.export.write(
        || Report { watch: Some(watch.clone()), ..output::new_report(host.clone()) },
        || crate::print::watch::table(&watch).csv(),
        || crate::print::watch::table(&watch),
    )?;
    if interrupted {
        let planned = window_s.map_or(String::new(), |w| format!(" of {}", (w / args.every).floor()));
        return Err(CliError::interrupted(format!(
            "interrupted after {measured}{planned} intervals (the summary above covers those)"
        )));
    }
    Ok(())
}

/// The plain watch: `points` every `every_s` for `window_s`, a line per interval, until done or
/// Ctrl-C.
fn timeline(points: Vec<WatchPoint>, mut prober: Prober, every_s: f64, window_s: f64, out: &mut dyn Write) -> Watch {
    let mut watch = Watch::new(every_s, window_s, points, Vec::new());
    let heading: Vec<String> = watch.points.iter().map(|p| format!("{} {}", p.level, format_bytes(p.bytes))).collect();
    writeln!(out, "watching {} every {every_s}s for {window_s}s; Ctrl-C stops and summarises", heading.join(", ")).ok();
    let intervals = (window_s / every_s).floor() as u64;
    let started = Instant::now();
    for i in 0..intervals {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break;
        }
        let at_s = started.elapsed().as_secs_f64();
        let measured = prober.measure(&watch.points);
        sleep_until(started + Duration::from_secs_f64((i + 1) as f64 * every_s));
        let sample = prober.close(at_s, &measured);
        writeln!(out, "{}", sample_line(&watch.points, &sample)).ok();
        watch.samples.push(sample);
    }
    watch.steal_unavailable = prober.steal_unavailable;
    watch
}

/// The levels a watch would use, for tests.
#[cfg(test)]
fn levels_of(report: &Report) -> Vec<memwall_report::Level> {
    let mut report = report.clone();
    memwall_core::explain::reread(&mut report);
    report.ladder.map(|l| l.levels).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch_probe::measure;
    use memwall_core::ladder::{Pattern, SampleConfig};

    #[test]
    fn an_example_reports_levels_give_three_points_and_one_is_measured() {
        let text = include_str!("../../examples/reports/zen3-2vcpu-kvm-run.json");
        let report = Report::from_untrusted_json(text).unwrap();
        let (points, missing) = stability::watch_points(&levels_of(&report));
        assert!(missing.is_empty(), "{missing:?}");
        let names: Vec<&str> = points.iter().map(|p| p.level.as_str()).collect();
        assert_eq!(names, ["L2", "L3", "DRAM"]);
        let config = SampleConfig {
            target_sample_ns: 1e5,
            samples: 3,
            warmup: true,
            seed: 1,
            attempts: 1,
            pattern: Pattern::PageLocal,
            timer_resolution_ns: 1.0,
        };
        let (ns, noise) = measure(&points[0], &config, &NativeClock::new(), false).unwrap();
        assert!(ns > 0.0 && noise >= 0.0);
    }
}
