//! `memwall sensitivity -- CMD [ARGS...]`: CMD's wall time, N runs per level, while a pressure
//! thread pinned to another CPU holds nothing, then 1/4, 1/2, 1 and 2x the last-level cache,
//! then streams DRAM (Mars et al., "Bubble-Up", MICRO 2011). The core reads the curve.
//!
//! Server mode (`--for W --probe PROBE -- SERVER...`) starts the server once and keeps it running
//! through every level; at each level the probe runs again and again for W, split into N
//! windows, and each window's figure is the probe's mean wall time per run (the inverse of its
//! rate). The levels, the pressure and the reading are the same code for both modes.
//!
//! CMD (or the server, and the probe) is pinned by spawning it from a thread pinned to its CPU:
//! a child inherits the affinity of the thread that forks it, so no code runs between fork and
//! exec. The pressure thread streams its buffer with the bandwidth kernels (read every word, then
//! write every word) until told to stop; it is always stopped and joined before this command
//! returns, whatever CMD did.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::Instant;

use clap::Args;
use memwall_core::budget::CacheBudget;
use memwall_core::cores::cpus_text;
use memwall_core::explain;
use memwall_core::sensitivity::{self, dram_stream_bytes, pressure_levels};
use memwall_core::size::format_bytes;
use memwall_core::stability::parse_duration;
use memwall_report::ServerProbe;
use memwall_report::{Counters, PressureLevel, Report, Sensitivity, Summary};

use crate::counters::CounterSession;
use crate::error::{CliError, CliResult, INTERRUPTED, STOP_CLEANLY};
use crate::output::{self, ExportArgs};
use crate::platform::{self, NativeClock};
use crate::pressure::with_pressure;
use crate::print::sensitivity::{plural, pressure_text, print_sensitivity};
use crate::sensitivity_server::Server;

#[derive(Debug, Args)]
pub struct SensitivityArgs {
    /// Runs of the command per pressure level (six levels, plus one warm-up run); with --for,
    /// the windows each level's probing is split into.
    #[arg(long = "for-each", value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Server mode: the command after `--` is a server, started once and kept running; the probe
    /// runs again and again against it for this long at each level (e.g. 30s). Needs --probe.
    #[arg(long = "for", value_name = "DURATION")]
    pub window: Option<String>,
    /// Server mode: a shell command (run by `sh -c`, on the server's CPU) that does one unit of
    /// work against the server, e.g. one request, and exits 0. Its stdout is discarded. The figure
    /// is its wall time per run, the inverse of the rate it gets served at. Needs --for.
    #[arg(long, value_name = "CMD")]
    pub probe: Option<String>,
    /// Server mode: how long the server may take after starting to answer the probe (the first
    /// probe is retried until then).
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub ready_within: String,
    /// The CPU the command runs on (default: the first this process may use).
    #[arg(long, value_name = "CPU")]
    pub cpu: Option<u32>,
    /// The CPU the pressure thread runs on (default: the next one this process may use).
    #[arg(long, value_name = "CPU")]
    pub pressure_cpu: Option<u32>,
    /// Size the pressure by this report's ladder (read by the current rules) instead of measuring
    /// a quick ladder first.
    #[arg(long, value_name = "REPORT.json")]
    pub report: Option<PathBuf>,
    /// The workload's name in the report and the fleet (default: the command's file name).
    #[arg(long)]
    pub name: Option<String>,
    #[command(flatten)]
    pub export: ExportArgs,
    /// The command and its arguments (or, with --for, the server's), after `--`. Its stdout is
    /// discarded; its stderr is kept for the error message when it fails or exits early.
    #[arg(required = true, last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// What is timed at each level: the command run by run, or a running server through its probe.
#[derive(Debug, Clone)]
enum Mode {
    Command,
    Server { window: String, window_s: f64, probe: String, ready_within_s: f64 },
}

impl Mode {
    fn of(args: &SensitivityArgs) -> CliResult<Self> {
        let duration =
            |flag: &str, text: &str| parse_duration(text).map_err(|e| CliError::usage(format!("{flag}: {e}")));
        match (&args.window, &args.probe) {
            (None, None) => Ok(Self::Command),
            (Some(window), Some(probe)) if !probe.trim().is_empty() => Ok(Self::Server {
                window: window.clone(),
                window_s: duration("--for", window)?,
                probe: probe.clone(),
                ready_within_s: duration("--ready-within", &args.ready_within)?,
            }),
            (Some(_), Some(_)) => {
                Err(CliError::usage("--probe is empty: give the shell command that probes the server"))
            }
            (Some(window), None) => Err(CliError::usage(format!(
                "--for {window} needs --probe: the command that measures the server's rate (see --help)"
            ))),
            (None, Some(_)) => Err(CliError::usage("--probe needs --for: how long to probe at each pressure level")),
        }
    }
}

pub fn sensitivity(args: SensitivityArgs) -> CliResult {
    args.export.check()?;
    let mode = Mode::of(&args)?;
    let (cpu, pressure_cpu) = choose_cpus(&allowed_cpus(), args.cpu, args.pressure_cpu)?;
    let clock = NativeClock::new();
    let mut out = args.export.human();
    // A saved report's levels need no measured host.
    let host = if args.report.is_some() { crate::host::describe() } else { crate::host::measured(&clock) };
    let why = "to size the pressure (about two seconds)";
    let levels = crate::cache_probe::levels(args.report.as_deref(), &host, &clock, false, &mut *out, why)?;
    let budget = CacheBudget::declared(&host.caches, 1).measured(&levels);
    let llc_bytes = budget.last_level_bytes;
    let declared_llc = explain::data_caches(&host.caches).last().map(|c| c.size_bytes);
    let dram_bytes = dram_stream_bytes(llc_bytes, declared_llc);
    platform::check_fits_in_memory(dram_bytes, &format!("the DRAM stream's {}", format_bytes(dram_bytes)))?;
    let workload = args.name.clone().unwrap_or_else(|| {
        std::path::Path::new(&args.command[0])
            .file_name()
            .map_or(args.command[0].clone(), |n| n.to_string_lossy().into())
    });
    let per_level = match &mode {
        Mode::Command => format!("{} run{} per level", args.runs, if args.runs == 1 { "" } else { "s" }),
        Mode::Server { window, probe, .. } => {
            format!("server; probe '{probe}' for {window} per level, in {} window{}", args.runs, plural(args.runs))
        }
    };
    writeln!(
        out,
        "{workload} on CPU {cpu}, pressure on CPU {pressure_cpu}; LLC {} ({}); {per_level}",
        format_bytes(llc_bytes),
        budget.describe(),
    )
    .ok();
    let plan = pressure_levels(llc_bytes, dram_bytes);
    let json_on_stdout = args.export.to_stdout() > 0;
    let measured = on_cpu(cpu, || -> CliResult<Vec<PressureLevel>> {
        match &mode {
            Mode::Command => {
                // Untimed: the binary, its libraries and its input in the page cache before anything counts.
                run_once(&args.command).map_err(|e| e.context("warm-up run"))?;
                measure_levels(&plan, pressure_cpu, json_on_stdout, true, |name| {
                    (0..args.runs)
                        .map(|run| {
                            run_once(&args.command).map_err(|e| e.context(&format!("run {} at {name}", run + 1)))
                        })
                        .collect()
                })
            }
            Mode::Server { window_s, probe, ready_within_s, .. } => {
                let probe = ["sh".to_string(), "-c".into(), probe.clone()];
                // Ctrl-C stops the measurement, not memwall outright, so that the server is stopped too.
                STOP_CLEANLY.store(true, Ordering::SeqCst);
                let result = Server::start(&args.command).and_then(|mut server| {
                    wait_until_served(&mut server, &probe, *ready_within_s)?;
                    // Counters would count the probe, not the server that was started before them.
                    measure_levels(&plan, pressure_cpu, json_on_stdout, false, |name| {
                        probe_windows(&mut server, &probe, args.runs, *window_s)
                            .map_err(|e| e.context(&format!("at {name}")))
                    })
                });
                STOP_CLEANLY.store(false, Ordering::SeqCst);
                result
            }
        }
    })?;
    let reading = sensitivity::read(&measured, llc_bytes);
    let server_probe = match &mode {
        Mode::Command => None,
        Mode::Server { window_s, probe, .. } => Some(ServerProbe { probe: probe.clone(), window_seconds: *window_s }),
    };
    let curve = Sensitivity {
        command: args.command.clone(),
        server_probe,
        workload,
        workload_cpu: cpu,
        pressure_cpu,
        runs_per_level: args.runs,
        llc_bytes,
        llc_source: budget.describe(),
        levels: measured,
        reading,
    };
    print_sensitivity(&mut *out, &curve).map_err(|e| CliError::runtime(e.to_string()))?;
    args.export.write(
        || Report { sensitivity: vec![curve.clone()], ..output::new_report(host.clone()) },
        || crate::print::sensitivity::table(&curve).csv(),
        || crate::print::sensitivity::table(&curve),
    )
}

/// Every level of `plan` in turn, the pressure running beside all of a level's samples (none at
/// the first level), with progress as each level ends. `samples` times one level's runs.
fn measure_levels(
    plan: &[(String, u64)],
    pressure_cpu: u32,
    json_on_stdout: bool,
    count: bool,
    mut samples: impl FnMut(&str) -> CliResult<Vec<Timed>>,
) -> CliResult<Vec<PressureLevel>> {
    // Progress on the pinned thread (the terminal writer is not Send).
    let mut out = output::human(json_on_stdout);
    let mut levels = Vec::new();
    for (name, bytes) in plan {
        let mut runs = || -> CliResult<(Vec<Timed>, Option<Counters>)> {
            let session = count.then(CounterSession::start);
            let timed = samples(name)?;
            Ok((timed, session.map(CounterSession::stop)))
        };
        let (result, passes) = if *bytes == 0 {
            (runs(), None)
        } else {
            let (result, stats) = with_pressure(pressure_cpu, *bytes, runs).map_err(CliError::runtime)?;
            (result, Some(stats.passes))
        };
        let (timed, counters) = result?;
        let seconds: Vec<f64> = timed.iter().map(|t| t.wall_seconds).collect();
        let cpu_seconds: Vec<f64> = timed.iter().filter_map(|t| t.cpu_seconds).collect();
        let summary = Summary::of(&seconds).ok_or_else(|| CliError::runtime("no run was timed"))?;
        // CPU time only when every run has it: a summary of some runs would not compare.
        let cpu_summary = if cpu_seconds.len() == seconds.len() { Summary::of(&cpu_seconds) } else { None };
        writeln!(
            out,
            "  {name:<12} {:>10}  median {:.3} s wall{}",
            pressure_text(*bytes),
            summary.median,
            cpu_summary.map_or(String::new(), |c| format!(", {:.3} s CPU", c.median))
        )
        .ok();
        levels.push(PressureLevel {
            name: name.clone(),
            pressure_bytes: *bytes,
            samples_seconds: seconds,
            seconds: summary,
            samples_cpu_seconds: if cpu_summary.is_some() { cpu_seconds } else { vec![] },
            cpu_seconds: cpu_summary,
            pressure_passes: passes,
            counters,
        });
    }
    Ok(levels)
}

fn check_interrupted() -> CliResult {
    if INTERRUPTED.load(Ordering::SeqCst) {
        return Err(CliError::interrupted("interrupted: the server was stopped and no report written"));
    }
    Ok(())
}

/// Runs the probe until it succeeds, for at most `within_s`: a server takes a moment to listen.
fn wait_until_served(server: &mut Server, probe: &[String], within_s: f64) -> CliResult {
    let start = Instant::now();
    loop {
        check_interrupted()?;
        server.check_running()?;
        let failure = match run_once(probe) {
            Ok(_) => return Ok(()),
            Err(e) if e.code == 2 => return Err(e.context("probe")),
            Err(e) => e,
        };
        // A probe that failed because the server just died is the server's failure.
        server.check_running()?;
        check_interrupted()?;
        if start.elapsed().as_secs_f64() >= within_s {
            return Err(CliError::runtime(format!(
                "the probe did not succeed within {within_s} s of starting the server (--ready-within): {}",
                failure.message()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `windows` windows of `window_s / windows` seconds each, the probe run back to back (at least
/// once per window); each window's figure is its mean wall time per probe run.
fn probe_windows(server: &mut Server, probe: &[String], windows: u32, window_s: f64) -> CliResult<Vec<Timed>> {
    let each_s = window_s / f64::from(windows);
    let mut timed = Vec::with_capacity(windows as usize);
    for w in 0..windows {
        let start = Instant::now();
        let mut runs = 0u32;
        while runs == 0 || start.elapsed().as_secs_f64() < each_s {
            check_interrupted()?;
            server.check_running()?;
            if let Err(e) = run_once(probe) {
                server.check_running()?;
                check_interrupted()?;
                return Err(e.context(&format!("probe run {} of window {}", runs + 1, w + 1)));
            }
            runs += 1;
        }
        timed.push(Timed { wall_seconds: start.elapsed().as_secs_f64() / f64::from(runs), cpu_seconds: None });
    }
    Ok(timed)
}

fn allowed_cpus() -> Vec<u32> {
    let mut cpus: Vec<u32> = core_affinity::get_core_ids().unwrap_or_default().iter().map(|c| c.id as u32).collect();
    cpus.sort_unstable();
    cpus
}

/// The workload's CPU and the pressure's: as asked, or the first two this process may use.
fn choose_cpus(allowed: &[u32], cpu: Option<u32>, pressure: Option<u32>) -> CliResult<(u32, u32)> {
    if allowed.len() < 2 {
        let only =
            if allowed.is_empty() { "an unknown set".to_string() } else { format!("CPU {}", cpus_text(allowed)) };
        return Err(CliError::usage(format!(
            "the pressure thread needs a second CPU, and this process may use only {only}: run it where two CPUs \
             are allowed, e.g. without taskset or a one-CPU cgroup"
        )));
    }
    for (flag, asked) in [("--cpu", cpu), ("--pressure-cpu", pressure)] {
        if let Some(c) = asked.filter(|c| !allowed.contains(c)) {
            return Err(CliError::usage(format!(
                "{flag} {c}: not a CPU this process may use ({})",
                cpus_text(allowed)
            )));
        }
    }
    let cpu = cpu.unwrap_or(allowed[0]);
    let pressure = pressure.unwrap_or_else(|| *allowed.iter().find(|&&c| c != cpu).unwrap_or(&allowed[0]));
    if cpu == pressure {
        return Err(CliError::usage(format!(
            "--cpu and --pressure-cpu are both {cpu}: the pressure must run beside the command, not on its CPU"
        )));
    }
    Ok((cpu, pressure))
}

/// Runs `work` on a thread pinned to `cpu`, so that what it spawns starts there too.
fn on_cpu<T: Send>(cpu: u32, work: impl FnOnce() -> CliResult<T> + Send) -> CliResult<T> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                platform::pin_current_thread(cpu)?;
                work()
            })
            .join()
            .unwrap_or_else(|_| Err(CliError::runtime("the workload's thread stopped unexpectedly")))
    })
}

/// One run of the command.
#[derive(Debug, Clone, Copy)]
struct Timed {
    wall_seconds: f64,
    /// User + system time of the command and its children, where the OS reports it.
    cpu_seconds: Option<f64>,
}

/// Runs the command once and times it; a command that cannot start is bad input (exit 2), one
/// that fails is a failure (exit 1), each with its last line of stderr.
fn run_once(command: &[String]) -> CliResult<Timed> {
    let cpu_before = children_cpu_seconds();
    let start = Instant::now();
    let output = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| CliError::usage(format!("cannot run '{}': {e}", command[0])))?;
    let wall_seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = match (cpu_before, children_cpu_seconds()) {
        (Some(before), Some(after)) => Some(after - before),
        _ => None,
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last =
            stderr.lines().rev().find(|l| !l.trim().is_empty()).map_or(String::new(), |l| format!(": {}", l.trim()));
        return Err(CliError::runtime(format!("'{}' failed ({}){last}", command.join(" "), output.status)));
    }
    Ok(Timed { wall_seconds, cpu_seconds })
}

/// User + system CPU seconds of every child this process has waited for so far. Runs are one
/// at a time, so the difference around one run is that run's (its own children included).
#[cfg(target_os = "linux")]
fn children_cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes one whole `rusage` through the pointer, which is valid and aligned.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it filled the struct (which was zeroed before anyway).
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

#[cfg(not(target_os = "linux"))]
fn children_cpu_seconds() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpus_are_two_distinct_allowed_ones() {
        assert_eq!(choose_cpus(&[0, 1, 2], None, None).unwrap(), (0, 1));
        assert_eq!(choose_cpus(&[0, 1, 2], Some(2), None).unwrap(), (2, 0));
        assert_eq!(choose_cpus(&[0, 1, 2], Some(1), Some(2)).unwrap(), (1, 2));
        let one = choose_cpus(&[3], None, None).unwrap_err();
        assert_eq!(one.code, 2);
        assert!(
            one.message().starts_with("the pressure thread needs a second CPU, and this process may use only CPU 3")
        );
        assert_eq!(choose_cpus(&[0, 1], Some(1), Some(1)).unwrap_err().code, 2);
        assert!(choose_cpus(&[0, 1], Some(7), None).unwrap_err().message().starts_with("--cpu 7: not a CPU"));
    }

    /// A workload that fails leaves no pressure behind: the thread saw the stop flag, left its
    /// loop, and was joined before `with_pressure` returned.
    #[test]
    fn a_failing_workload_stops_and_joins_the_pressure_thread() {
        let allowed = allowed_cpus();
        let Some(&cpu) = allowed.last() else { return };
        let (result, stats) = with_pressure(cpu, 1 << 20, || run_once(&["false".to_string()])).unwrap();
        assert!(run_once(&["true".to_string()]).unwrap().wall_seconds > 0.0);
        let e = result.unwrap_err();
        assert_eq!(e.code, 1);
        assert!(e.message().starts_with("'false' failed (exit status: 1)"), "{}", e.message());
        assert!(stats.stopped, "{stats:?}");
        let (result, stats) =
            with_pressure(cpu, 1 << 20, || run_once(&["/nonexistent/memwall-workload".to_string()])).unwrap();
        assert_eq!(result.unwrap_err().code, 2);
        assert!(stats.stopped);
    }

    #[test]
    fn a_pressure_thread_that_cannot_pin_runs_nothing() {
        let mut ran = false;
        let why = with_pressure(100_000, 4096, || ran = true).unwrap_err();
        assert!(!ran);
        assert_eq!(why, "could not pin the pressure thread to CPU 100000");
    }

    #[test]
    fn the_pressure_passes_while_the_body_runs() {
        let Some(&cpu) = allowed_cpus().last() else { return };
        let ((), stats) =
            with_pressure(cpu, 64 << 10, || std::thread::sleep(std::time::Duration::from_millis(50))).unwrap();
        assert!(stats.stopped && stats.passes > 0, "{stats:?}");
    }
}
