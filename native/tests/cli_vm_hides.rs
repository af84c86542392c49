//! `memwall cores`, `watch` and `sensitivity` as a user runs them: bad values refused in one
//! line, short real runs that write their report sections, a failing workload that stops the
//! pressure, and a watch that summarises when Ctrl-C ends it.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_refused, memwall, report_from};

const REPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/reports/zen3-2vcpu-kvm-run.json");

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn bad_values_are_refused_in_one_line() {
    assert_refused(&["watch", "--for", "5s", "--every", "10s"], "--for 5s is shorter than --every 10s");
    assert_refused(&["watch", "--every", "0s"], "must be above 0");
    assert_refused(&["watch", "--for", "soon"], "invalid duration 'soon'");
    assert_refused(&["cores", "--cpus", "9999"], "--cpus: CPU 9999 is not one this process may use");
    assert_refused(&["cores", "--cpus", "x"], "is not a CPU list");
    assert_refused(&["sensitivity", "--for-each", "0", "--", "true"], "--for-each");
    assert_refused(&["sensitivity"], "CMD");
    assert_refused(&["sensitivity", "--for", "30s", "--", "sleep", "60"], "--for 30s needs --probe");
    assert_refused(&["sensitivity", "--probe", "true", "--", "sleep", "60"], "--probe needs --for");
    assert_refused(
        &["sensitivity", "--for", "soon", "--probe", "true", "--", "sleep", "60"],
        "--for: invalid duration",
    );
    assert_refused(&["sensitivity", "--for", "1s", "--probe", " ", "--", "sleep", "60"], "--probe is empty");
}

#[test]
fn cores_writes_its_matrix_and_reading() {
    let out = memwall(&["cores", "--samples", "20", "--round-trips", "50", "--json", "-"]);
    let report = report_from(&out);
    let cores = report.cores.expect("a cores section");
    let n = cores.cpus.len();
    assert_eq!(cores.pairs.len(), n * (n - 1) / 2);
    assert!(cores.pairs.iter().all(|p| p.one_way_median_ns > 0.0 && p.samples == 20));
    assert!(cores.topology.starts_with("Core-to-core: "), "{}", cores.topology);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("core-to-core latency, one way"), "{stderr}");
    // One CPU: a clear sentence, not an error.
    let one = memwall(&["cores", "--cpus", &cores.cpus[0].to_string()]);
    assert!(one.status.success());
    assert!(String::from_utf8_lossy(&one.stdout).contains("only one CPU is usable here: no pair of CPUs to measure"));
}

#[test]
fn a_short_watch_writes_its_timeline() {
    let out = memwall(&["watch", "--for", "2s", "--every", "1s", "--report", REPORT, "--json", "-"]);
    let report = report_from(&out);
    let watch = report.watch.expect("a watch section");
    let levels: Vec<&str> = watch.points.iter().map(|p| p.level.as_str()).collect();
    assert_eq!(levels, ["L2", "L3", "DRAM"]);
    assert_eq!(watch.samples.len(), 2);
    assert!(watch.samples.iter().all(|s| s.ns_per_load.iter().all(|ns| ns.is_some_and(|ns| ns > 0.0))));
    let stability = watch.stability.expect("a reading");
    assert_eq!(stability.intervals, 2);
    assert!(!stability.verdict.is_empty());
    // The explain command prints the section back.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("watch.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let explained = memwall(&["explain", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&explained.stdout).contains("stability over 2 intervals of 1s"));
}

#[cfg(unix)]
#[test]
fn ctrl_c_ends_a_watch_with_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("watch.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(["watch", "--for", "10m", "--every", "1s", "--report", REPORT, "--json", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("(interrupted)"), "{stdout}");
    assert!(stderr.contains("interrupted after"), "{stderr}");
    let report = memwall_report::Report::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let watch = report.watch.unwrap();
    assert!(watch.interrupted && !watch.samples.is_empty());
}

#[test]
fn sensitivity_of_a_trivial_command_and_of_failing_ones() {
    if cpus() < 2 {
        assert_refused(&["sensitivity", "--", "true"], "the pressure thread needs a second CPU");
        return;
    }
    let out = memwall(&["sensitivity", "--for-each", "2", "--report", REPORT, "--json", "-", "--", "true"]);
    let report = report_from(&out);
    let curve = &report.sensitivity[0];
    assert_eq!(curve.workload, "true");
    let names: Vec<&str> = curve.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["none", "1/4 LLC", "1/2 LLC", "1x LLC", "2x LLC", "DRAM stream"]);
    assert!(curve.levels.iter().all(|l| l.samples_seconds.len() == 2));
    // Every level with pressure says how many passes its thread made while `true` ran: none, at
    // times, where the command ends before one pass over 2x the LLC does (the count is the thread's
    // passes during the command; `sensitivity_cmd`'s unit test holds that it does pass).
    assert!(curve.levels[1..].iter().all(|l| l.pressure_passes.is_some()));
    assert_eq!(curve.levels[0].pressure_passes, None);
    #[cfg(target_os = "linux")]
    assert!(curve.levels.iter().all(|l| l.cpu_seconds.is_some() && l.samples_cpu_seconds.len() == 2));
    assert!(curve.reading.is_some());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for level in &curve.levels {
        let counters = level.counters.as_ref().expect("counters or why not");
        if !counters.available {
            assert!(counters.unavailable.as_deref().is_some_and(|r| !r.is_empty()));
            assert!(stderr.contains("counters unavailable here: "), "{stderr}");
        }
    }
    // A failing workload: one line, exit 1; one that cannot start: exit 2.
    let failed =
        memwall(&["sensitivity", "--for-each", "1", "--report", REPORT, "--", "sh", "-c", "echo boom >&2; exit 3"]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("failed (exit status: 3): boom"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("memwall: error")).count(), 1, "{stderr}");
    // The plan line is printed before the warm-up run finds the command missing.
    let missing = memwall(&["sensitivity", "--report", REPORT, "--", "/nonexistent/workload"]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("warm-up run: cannot run '/nonexistent/workload'"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("memwall: error")).count(), 1, "{stderr}");
}

#[test]
fn sensitivity_with_one_cpu_says_it_needs_a_second() {
    let Ok(status) = Command::new("taskset").arg("--version").stdout(Stdio::null()).status() else { return };
    if !status.success() {
        return;
    }
    let out = Command::new("taskset")
        .args(["-c", "0", env!("CARGO_BIN_EXE_memwall"), "sensitivity", "--", "true"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the pressure thread needs a second CPU, and this process may use only CPU 0"), "{stderr}");
}

/// Whether `pid` is a live process (a zombie, exited but not yet reaped, is not).
#[cfg(target_os = "linux")]
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
        .map(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// A server that writes its pid to `pid_file`, then does what `then` says (`exec sleep 60`: runs
/// until stopped).
#[cfg(target_os = "linux")]
fn fake_server(pid_file: &std::path::Path, then: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), format!("echo $$ > {}; {then}", pid_file.display())]
}

#[cfg(target_os = "linux")]
fn sensitivity_of_server(extra: &[&str], server: &[String]) -> std::process::Output {
    let mut args = vec!["sensitivity", "--report", REPORT];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(server.iter().map(String::as_str));
    memwall(&args)
}

#[cfg(target_os = "linux")]
#[test]
fn a_server_is_probed_at_every_level_and_stopped_after() {
    if cpus() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("server.pid");
    let server = fake_server(&pid_file, "exec sleep 60");
    let out = sensitivity_of_server(&["--for", "1s", "--for-each", "2", "--probe", "echo 5", "--json", "-"], &server);
    let report = report_from(&out);
    assert!(!alive(&std::fs::read_to_string(&pid_file).unwrap()), "the server outlived memwall");
    let curve = &report.sensitivity[0];
    let probe = curve.server_probe.as_ref().expect("the server's probe");
    assert_eq!((probe.window_seconds, probe.probe.as_str()), (1.0, "echo 5"));
    assert_eq!(curve.command, server);
    assert_eq!(curve.workload, "sh");
    assert_eq!(curve.levels.len(), 6);
    for level in &curve.levels {
        assert_eq!(level.samples_seconds.len(), 2, "{}", level.name);
        // Each window's figure is a mean over many probe runs of well under its half second.
        assert!(level.samples_seconds.iter().all(|&s| s > 0.0 && s < 0.5), "{level:?}");
        assert!(level.cpu_seconds.is_none() && level.counters.is_none());
    }
    assert_eq!(curve.reading.as_ref().unwrap().basis, "wall");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("server; probe 'echo 5' for 1s per level, in 2 windows"), "{stderr}");
    assert!(stderr.contains("slowdowns are of the probe's wall time per run"), "{stderr}");
    assert!(stderr.contains("counters: not measured for a server"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_probe_or_a_dying_server_ends_in_one_line_with_the_server_stopped() {
    if cpus() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("server.pid");
    let errors = |out: &std::process::Output| {
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.lines().filter(|l| l.starts_with("memwall: error")).count(), 1, "{stderr}");
        stderr
    };
    let server_gone = || assert!(!alive(&std::fs::read_to_string(&pid_file).unwrap()), "the server outlived memwall");

    // The probe answers once (the readiness check), then fails.
    let mark = dir.path().join("answered");
    let probe = format!("test -e {0} && {{ echo refused >&2; exit 1; }}; touch {0}", mark.display());
    let out = sensitivity_of_server(&["--for", "10s", "--probe", &probe], &fake_server(&pid_file, "exec sleep 60"));
    let stderr = errors(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("at none: probe run 1 of window 1: "), "{stderr}");
    assert!(stderr.contains("failed (exit status: 1): refused"), "{stderr}");
    server_gone();

    // A probe that never succeeds: the server is given --ready-within, then stopped.
    let out = sensitivity_of_server(
        &["--for", "10s", "--probe", "exit 7", "--ready-within", "300ms"],
        &fake_server(&pid_file, "exec sleep 60"),
    );
    let stderr = errors(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the probe did not succeed within 0.3 s of starting the server"), "{stderr}");
    server_gone();

    // The server exits in the middle of the measurement: bad input, exit 2, with its last words.
    let out = sensitivity_of_server(
        &["--for", "10s", "--probe", "true"],
        &fake_server(&pid_file, "sleep 1; echo 'bye now' >&2; exit 3"),
    );
    let stderr = errors(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("exited early (exit status: 3): bye now"), "{stderr}");
    server_gone();

    let out = sensitivity_of_server(&["--for", "1s", "--probe", "true"], &["/nonexistent/memwall-server".to_string()]);
    let stderr = errors(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot start the server '/nonexistent/memwall-server'"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_the_server_too() {
    if cpus() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("server.pid");
    let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(["sensitivity", "--report", REPORT, "--for", "10m", "--probe", "true", "--"])
        .args(fake_server(&pid_file, "exec sleep 600"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pid_file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let server = std::fs::read_to_string(&pid_file).unwrap();
    assert!(alive(&server));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted: the server was stopped"), "{stderr}");
    assert!(!alive(&server), "the server outlived memwall");
}
