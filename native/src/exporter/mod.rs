//! `memwall watch --listen ADDR`: the watched points, steal time and disturbed intervals as a
//! Prometheus exporter, so that a fleet's memory shows over time in the tools operators already run.
//!
//! The probe keeps its own schedule on the thread that calls [`run`]: every `--every` it measures
//! the points (as the plain watch does, [`crate::watch_probe`]) and stores the figures in
//! [`metrics::Metrics`]; `/metrics`, answered on a thread of its own ([`http`]), only encodes what
//! was last stored. The cache levels are read again every `--levels-every` (a migrated VM can lose
//! its L3), the points placed again from them, and the disturbed intervals are judged against the
//! intervals since that reading. What probing costs is measured (the probing thread's CPU time)
//! and bounded: averaged since the first interval, it stays under `--max-cpu` of one CPU, the
//! intervals stretching when it would not.

mod http;
pub mod metrics;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use memwall_core::size::format_bytes;
use memwall_core::stability::{self, parse_duration};
use memwall_report::{Host, Level, Watch, WatchPoint};

pub use http::Listening;
use metrics::{Interval, Metrics};

use crate::error::{CliError, CliResult, INTERRUPTED};
use crate::platform;
use crate::watch_probe::{Prober, sleep_until};

#[derive(Debug, Clone, Args)]
pub struct ExporterArgs {
    /// Serve the figures at http://ADDR/metrics for Prometheus (e.g. 127.0.0.1:9417) and watch
    /// until stopped (SIGTERM or Ctrl-C) unless --for is given. An address beyond loopback
    /// (0.0.0.0:9417) answers scrapes by any host name and serves nothing but /metrics.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// With --listen: read the cache levels again this often (a quick ladder, a few seconds of
    /// CPU), since a migrated VM can lose its L3; the points follow the levels.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = parse_duration, requires = "listen")]
    pub levels_every: f64,
    /// With --listen: the most CPU probing may take, in percent of one CPU averaged since the
    /// first interval; intervals stretch to stay under it.
    #[arg(long, value_name = "PERCENT", default_value_t = 5.0, value_parser = parse_percent, requires = "listen")]
    pub max_cpu: f64,
    /// With --listen: the `host` label on every series [default: this machine's host name]. In a
    /// container, the node's name (Kubernetes: `spec.nodeName` through the downward API).
    #[arg(long = "host", value_name = "NAME", value_parser = parse_host, requires = "listen")]
    pub host: Option<String>,
}

fn parse_host(text: &str) -> Result<String, String> {
    let name = text.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(format!(
            "invalid host name '{}': it must be a non-empty name without control characters",
            text.escape_debug()
        ));
    }
    Ok(name.to_owned())
}

fn parse_percent(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().trim_end_matches('%').parse().map_err(|_| format!("invalid percent '{text}'"))?;
    if !(value > 0.0 && value <= 100.0) {
        return Err(format!("invalid percent '{text}': it must be above 0 and at most 100"));
    }
    Ok(value)
}

/// What the exporter starts from: the host, its levels as read and the points placed from them,
/// how to measure an interval, how often, and for how long (`None`: until stopped).
#[derive(Debug)]
pub struct Probing<'a> {
    pub host: &'a Host,
    pub levels: Vec<Level>,
    pub points: Vec<WatchPoint>,
    pub prober: Prober,
    pub every_s: f64,
    pub window_s: Option<f64>,
    /// Whether `levels` were measured here (a quick ladder) rather than taken from a report: then
    /// what starting took is the first reading's cost.
    pub levels_measured: bool,
}

/// Serves `/metrics` on `listening` and probes until stopped (or `--for` ends); `read_levels`
/// reads the cache levels again. Returns the intervals since the levels were last read, for the
/// summary and `--json`.
pub fn run(
    listening: Listening,
    args: &ExporterArgs,
    probing: Probing<'_>,
    out: &mut dyn Write,
    read_levels: impl FnMut() -> CliResult<Vec<Level>>,
) -> CliResult<Watch> {
    let host = args.host.as_deref().or(probing.host.name.as_deref()).unwrap_or("unnamed host");
    let metrics = Arc::new(Metrics::new(host));
    let url = listening.url().to_owned();
    let beyond_loopback = listening.beyond_loopback();
    let server = listening.answer(Arc::clone(&metrics))?;
    writeln!(out, "memwall: serving metrics at {url}").ok();
    if beyond_loopback {
        writeln!(out, "memwall: listening beyond this machine: /metrics answers any host name, nothing else is served")
            .ok();
    }
    let mut exporter = Exporter::new(args, probing, metrics, read_levels);
    let until = match exporter.window_s {
        Some(s) => format!("for {s}s"),
        None => "until stopped (SIGTERM or Ctrl-C)".to_string(),
    };
    writeln!(
        out,
        "watching {} every {}s {until}; the levels are read again every {}s",
        describe(&exporter.points),
        exporter.every_s,
        args.levels_every
    )
    .ok();
    out.flush().ok();
    let started = Instant::now();
    while !INTERRUPTED.load(Ordering::SeqCst) && exporter.window_s.is_none_or(|w| started.elapsed().as_secs_f64() < w) {
        if server.is_finished() {
            return Err(match server.join() {
                Ok(Err(why)) => why,
                _ => CliError::runtime("the metrics server stopped"),
            });
        }
        if Instant::now() >= exporter.next_reading {
            exporter.read_levels_again(out);
        }
        exporter.interval(out);
        out.flush().ok();
    }
    exporter.window.window_s = exporter.window_started.elapsed().as_secs_f64();
    exporter.window.steal_unavailable = exporter.prober.steal_unavailable.clone();
    Ok(exporter.window)
}

/// The probe's state between intervals.
struct Exporter<'a, F> {
    host: &'a Host,
    metrics: Arc<Metrics>,
    read: F,
    prober: Prober,
    points: Vec<WatchPoint>,
    /// Which point is DRAM's.
    dram: Option<usize>,
    every_s: f64,
    window_s: Option<f64>,
    levels_every: Duration,
    next_reading: Instant,
    /// The intervals since the levels were read: what an interval is disturbed against.
    window: Watch,
    window_started: Instant,
    budget: Budget,
}

impl<'a, F: FnMut() -> CliResult<Vec<Level>>> Exporter<'a, F> {
    fn new(args: &ExporterArgs, probing: Probing<'a>, metrics: Arc<Metrics>, read: F) -> Self {
        let now = Instant::now();
        let levels_every = Duration::from_secs_f64(args.levels_every);
        let mut exporter = Self {
            host: probing.host,
            metrics,
            read,
            prober: probing.prober,
            points: Vec::new(),
            dram: None,
            every_s: probing.every_s,
            window_s: probing.window_s,
            levels_every,
            next_reading: now + levels_every,
            window: empty_window(probing.every_s, &[]),
            window_started: now,
            budget: Budget::new(args.max_cpu / 100.0),
        };
        // What starting took (the host's facts and the quick ladder) is this thread's CPU time so
        // far: the first reading's cost, within a little. Levels from a report cost nothing here.
        let startup_s = platform::thread_cpu_seconds().filter(|_| probing.levels_measured).unwrap_or(0.0);
        exporter.place(&probing.levels, probing.points, startup_s);
        if !probing.levels_measured {
            exporter.budget.reading_s = None;
        }
        exporter
    }

    /// Watches `points` (placed from `levels`) from now on, against a fresh window.
    fn place(&mut self, levels: &[Level], points: Vec<WatchPoint>, cpu_s: f64) {
        let dram_name = levels.iter().find(|l| l.cause == memwall_report::Cause::Dram).map(|l| l.name.as_str());
        self.dram = points.iter().position(|p| Some(p.level.as_str()) == dram_name);
        self.metrics.watching();
        let declared = memwall_core::explain::data_caches(&self.host.caches).last().copied();
        self.metrics.levels_read(memwall_core::fleet::last_cache_level(levels), declared, unix_now(), cpu_s);
        self.budget.reading_s = Some(cpu_s);
        self.window = empty_window(self.every_s, &points);
        self.window_started = Instant::now();
        self.points = points;
    }

    /// Reads the levels again; a reading that fails or places no point keeps the points watched.
    fn read_levels_again(&mut self, out: &mut dyn Write) {
        self.next_reading = Instant::now() + self.levels_every;
        let (read, cpu_s) = cpu_time(|| (self.read)());
        self.budget.spent(cpu_s);
        let placed = read.and_then(|levels| {
            let (points, missing) = stability::watch_points(&levels);
            let largest = points.iter().map(|p| p.bytes).max().unwrap_or(0);
            if points.is_empty() {
                return Err(CliError::runtime(format!("nothing to watch: {}", missing.join("; "))));
            }
            let what = format!("the {} point", format_bytes(largest));
            platform::check_fits_in_memory(memwall_core::ladder::bytes_needed(largest), &what)?;
            Ok((levels, points))
        });
        match placed {
            Ok((levels, points)) => {
                let moved = points != self.points;
                writeln!(
                    out,
                    "levels read again in {cpu_s:.1} s of CPU: {}{}",
                    describe(&points),
                    if moved { " (the points moved)" } else { "" }
                )
                .ok();
                self.place(&levels, points, cpu_s);
            }
            Err(e) => {
                writeln!(out, "levels read again in {cpu_s:.1} s of CPU, kept the points: {}", e.message()).ok();
            }
        }
    }

    /// Measures one interval, waits out the rest of it, then stores its figures.
    fn interval(&mut self, out: &mut dyn Write) {
        let at = Instant::now();
        let at_s = at.duration_since(self.window_started).as_secs_f64();
        let (measured, cpu_s) = cpu_time(|| self.prober.measure(&self.points));
        let wall_s = at.elapsed().as_secs_f64();
        self.budget.spent(cpu_s);
        let scheduled = at + Duration::from_secs_f64(self.every_s);
        let deadline = scheduled.max(self.budget.may_start_at());
        if deadline > scheduled && !self.budget.said_stretched {
            self.budget.said_stretched = true;
            let stretched = deadline.duration_since(at).as_secs_f64();
            writeln!(
                out,
                "probing would take more than --max-cpu {}% of one CPU: this interval stretches to {stretched:.1}s",
                self.budget.share * 100.0
            )
            .ok();
        }
        if self.budget.intervals == 0 {
            writeln!(out, "{}", self.budget.cost_line(cpu_s, self.every_s, self.levels_every.as_secs_f64())).ok();
            out.flush().ok();
        }
        self.budget.intervals += 1;
        sleep_until(deadline);
        let sample = self.prober.close(at_s, &measured);
        self.window.samples.push(sample);
        let disturbed = stability::disturbed(&self.window).last().copied().unwrap_or(false);
        if let Some(sample) = self.window.samples.last() {
            let interval = Interval { sample, disturbed, cpu_s, wall_s, unix_s: unix_now() };
            self.metrics.interval(&self.points, self.dram, &interval);
        }
    }
}

fn empty_window(every_s: f64, points: &[WatchPoint]) -> Watch {
    Watch::new(every_s, 0.0, points.to_vec(), Vec::new())
}

/// The CPU probing may take: `share` of one CPU, averaged since the first interval.
#[derive(Debug)]
struct Budget {
    share: f64,
    /// CPU time spent probing since the first interval (readings of the levels included).
    spent_s: f64,
    since: Instant,
    /// CPU time the last reading of the levels took, once one was measured.
    reading_s: Option<f64>,
    intervals: u64,
    said_stretched: bool,
}

impl Budget {
    fn new(share: f64) -> Self {
        Self { share, spent_s: 0.0, since: Instant::now(), reading_s: None, intervals: 0, said_stretched: false }
    }

    fn spent(&mut self, cpu_s: f64) {
        self.spent_s += cpu_s;
    }

    /// The earliest the next interval may start with the average at most `share`.
    fn may_start_at(&self) -> Instant {
        self.since + Duration::from_secs_f64(self.spent_s / self.share)
    }

    /// What probing costs, from the first interval: printed once, so that whoever runs the
    /// exporter knows its price.
    fn cost_line(&self, interval_cpu_s: f64, every_s: f64, levels_every_s: f64) -> String {
        let percent = |cpu_s: f64, per_s: f64| cpu_s / per_s * 100.0;
        let reading = match self.reading_s {
            Some(s) => format!(
                "reading the levels took {s:.1} s of CPU (with the host's facts), every {levels_every_s}s: {:.2}% more",
                percent(s, levels_every_s)
            ),
            None => format!("reading the levels again every {levels_every_s}s adds a quick ladder's CPU time"),
        };
        format!(
            "probing costs {:.2}% of one CPU at --every {every_s}s ({:.1} ms of CPU per interval); {reading}; \
             bounded at {}% (--max-cpu)",
            percent(interval_cpu_s, every_s),
            interval_cpu_s * 1e3,
            self.share * 100.0
        )
    }
}

/// `work()` and the CPU time this thread spent on it (its wall time where the OS does not say).
fn cpu_time<T>(work: impl FnOnce() -> T) -> (T, f64) {
    let (cpu0, wall0) = (platform::thread_cpu_seconds(), Instant::now());
    let result = work();
    let spent = match (cpu0, platform::thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall0.elapsed().as_secs_f64(),
    };
    (result, spent.max(0.0))
}

fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

fn describe(points: &[WatchPoint]) -> String {
    points.iter().map(|p| format!("{} {}", p.level, format_bytes(p.bytes))).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
