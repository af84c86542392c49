//! `memwall watch --listen` as an operator runs it: bad addresses refused in one line, `/metrics`
//! scraped and the exporter stopped cleanly by SIGTERM, and a real Prometheus (Debian's, started
//! here on a loopback port and a data folder of its own, never the package's service) scraping it
//! and answering queries about the series.
//!
//! Without a `prometheus` on the PATH that test says so and passes, unless
//! MEMWALL_REQUIRE_PROMETHEUS=1 (scripts/test.sh sets it, after scripts/setup.sh --test installed
//! the package): then a missing Prometheus fails it.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::assert_refused;

const REPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/reports/zen3-2vcpu-kvm-run.json");

#[test]
fn bad_addresses_and_flags_are_one_line() {
    assert_refused(&["watch", "--listen", "127.0.0.1"], "invalid socket address syntax");
    assert_refused(&["watch", "--listen", "127.0.0.1:99999"], "invalid socket address syntax");
    assert_refused(&["watch", "--listen", "metrics.example:9417"], "'--listen <ADDR>'");
    assert_refused(&["watch", "--levels-every", "1h"], "--listen");
    assert_refused(&["watch", "--host", "node-7"], "--listen");
    assert_refused(&["watch", "--listen", "127.0.0.1:0", "--host", " "], "invalid host name");
    assert_refused(&["watch", "--listen", "127.0.0.1:0", "--max-cpu", "0"], "invalid percent '0'");
    assert_refused(&["watch", "--listen", "127.0.0.1:0", "--for", "1s", "--every", "2s"], "--for 1s is shorter");
    // An address in use: refused before anything is measured (nothing on stdout), naming it.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    assert_refused(&["watch", "--listen", &addr, "--report", REPORT], &format!("cannot listen on {addr}: "));
}

/// A child process, killed and reaped when dropped: on every way out of a test, a failed
/// assertion included.
struct Running {
    child: Child,
    what: &'static str,
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
            eprintln!("stopped {}", self.what);
        }
    }
}

impl Running {
    /// SIGTERM, then the exit code within `within` (SIGKILL by `drop` if it does not come).
    fn terminate(&mut self, within: Duration) -> Option<i32> {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

/// `memwall watch --listen 127.0.0.1:0 ARGS`: the process, where it serves, and its stdout's lines.
fn exporter(args: &[&str]) -> (Running, SocketAddr, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(["watch", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("memwall watch starts");
    let stdout = child.stdout.take().unwrap();
    let running = Running { child, what: "memwall watch --listen" };
    let (send, lines) = channel();
    std::thread::spawn(move || BufReader::new(stdout).lines().map_while(Result::ok).try_for_each(|l| send.send(l)));
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let line = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("a serving line");
        if let Some(url) = line.strip_prefix("memwall: serving metrics at http://") {
            let addr = url.trim_end_matches("/metrics").parse().expect("an address");
            return (running, addr, lines);
        }
    }
}

/// A GET over HTTP/1.0 (so no chunked replies): status and body.
fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    try_get(addr, path).unwrap_or_else(|e| panic!("GET {path} from {addr}: {e}"))
}

fn try_get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let (head, body) = response.split_once("\r\n\r\n").expect("a response head");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    Ok((status, body.to_string()))
}

/// The value of the first series line of `name` in an exposition.
fn exposed(text: &str, name: &str) -> Option<f64> {
    text.lines().find(|l| l.split(['{', ' ']).next() == Some(name))?.rsplit(' ').next()?.parse().ok()
}

#[cfg(unix)]
#[test]
fn metrics_are_scraped_and_sigterm_stops_cleanly() {
    let (mut exporter, addr, lines) = exporter(&["--every", "1s", "--report", REPORT]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let text = loop {
        let (status, text) = http_get(addr, "/metrics");
        assert_eq!(status, 200, "{text}");
        if exposed(&text, "memwall_intervals_total").is_some_and(|n| n >= 2.0) || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    for name in ["memwall_load_latency_seconds", "memwall_dram_latency_seconds", "memwall_effective_llc_bytes"] {
        assert!(exposed(&text, name).is_some_and(|v| v > 0.0), "{name}:\n{text}");
    }
    assert!(exposed(&text, "memwall_intervals_total").is_some_and(|n| n >= 2.0), "{text}");
    assert_eq!(http_get(addr, "/").0, 404);
    assert_eq!(exporter.terminate(Duration::from_secs(20)), Some(0), "SIGTERM ends the exporter with exit 0");
    // Every line it printed: the process has exited, so its stdout reaches end of file and the
    // reading thread closes the channel; what that thread has not yet forwarded still counts.
    let printed: Vec<String> = std::iter::from_fn(|| lines.recv_timeout(Duration::from_secs(20)).ok()).collect();
    assert!(printed.iter().any(|l| l.starts_with("probing costs ")), "{printed:?}");
    assert!(printed.iter().any(|l| l.starts_with("stability over ") && !l.contains("interrupted")), "{printed:?}");
}

/// Debian's `prometheus`, or why there is none.
fn prometheus_binary() -> Option<String> {
    let found = std::env::var("PROMETHEUS").ok().or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join("prometheus"))
            .find(|p| p.is_file())
            .map(|p| p.display().to_string())
    });
    if found.is_none() {
        let required = std::env::var("MEMWALL_REQUIRE_PROMETHEUS").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "MEMWALL_REQUIRE_PROMETHEUS=1 but no prometheus on the PATH: scripts/setup.sh --test installs it"
        );
        eprintln!("skipped: no prometheus on the PATH (scripts/setup.sh --test installs Debian's)");
    }
    found
}

#[cfg(unix)]
#[test]
fn a_real_prometheus_scrapes_the_exporter() {
    let Some(binary) = prometheus_binary() else { return };
    let started = Instant::now();
    let (mut exporter, addr, _lines) = exporter(&["--every", "1s", "--max-cpu", "50"]);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("prometheus.yml");
    let scrape = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: memwall\n    \
         static_configs:\n      - targets: ['{addr}']\n"
    );
    std::fs::write(&config, scrape).unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let web = SocketAddr::from(([127, 0, 0, 1], port));
    let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
    let child = Command::new(&binary)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.path().join("data").display()))
        .arg(format!("--web.listen-address={web}"))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("prometheus starts");
    let mut prometheus = Running { child, what: "prometheus" };
    let log_of = || std::fs::read_to_string(dir.path().join("prometheus.log")).unwrap_or_default();
    let query = |q: &str| query(web, q);
    // Four scrapes that found at least three intervals measured.
    let deadline = Instant::now() + Duration::from_secs(120);
    while query("count_over_time(memwall_intervals_total[5m]) >= 4 and memwall_intervals_total >= 3").is_empty() {
        assert!(Instant::now() < deadline, "no scrapes after 120 s; prometheus said:\n{}", log_of());
        std::thread::sleep(Duration::from_millis(500));
    }
    check_series(&query);
    assert_eq!(exporter.terminate(Duration::from_secs(20)), Some(0));
    assert!(prometheus.terminate(Duration::from_secs(20)).is_some(), "prometheus stops on SIGTERM");
    eprintln!("prometheus test: {:.1} s in all", started.elapsed().as_secs_f64());
}

/// The series as Prometheus holds them: latency rising with the working set, DRAM above every
/// cache point, the cache as read within the DRAM point, the counters consistent. Prints them.
fn check_series(query: &dyn Fn(&str) -> Vec<(serde_json::Value, f64)>) {
    let one = |q: &str| match query(q).as_slice() {
        [(_, v)] => *v,
        other => panic!("{q}: expected one series, got {other:?}"),
    };
    assert_eq!(one("up{job=\"memwall\"}"), 1.0);
    // The fastest interval of each point: noise only adds time, so its order is the caches'.
    let mut points: Vec<(u64, String, f64)> = query("min_over_time(memwall_load_latency_seconds[5m])")
        .into_iter()
        .map(|(m, v)| (m["bytes"].as_str().unwrap().parse().unwrap(), m["level"].as_str().unwrap().to_string(), v))
        .collect();
    points.sort_by_key(|p| p.0);
    let dram = one("min_over_time(memwall_dram_latency_seconds[5m])");
    let llc = one("memwall_effective_llc_bytes");
    let (steal, intervals) = (one("max_over_time(memwall_steal_ratio[5m])"), one("memwall_intervals_total"));
    let (disturbed, cpu) = (one("memwall_disturbed_intervals_total"), one("memwall_probe_cpu_seconds_total"));
    let age = one("time() - memwall_last_probe_timestamp_seconds");
    let shown: Vec<String> = points.iter().map(|(b, l, v)| format!("{l} {b} B {:.1} ns", v * 1e9)).collect();
    eprintln!(
        "prometheus queried: fastest load latency {}; DRAM {:.1} ns; effective LLC {llc} B; steal up to {:.2}%; \
         {intervals} intervals, {disturbed} disturbed; probe CPU {cpu:.3} s; last probe {age:.1} s ago",
        shown.join(", "),
        dram * 1e9,
        steal * 100.0
    );
    assert!(points.len() >= 2, "{points:?}");
    assert!(points.windows(2).all(|w| w[1].2 > w[0].2), "latency rises with the working set: {points:?}");
    let (dram_bytes, caches) = points.split_last().unwrap();
    assert!(caches.iter().all(|c| dram > c.2), "DRAM {dram} above every cache point: {caches:?}");
    assert!(llc > 0.0 && llc < dram_bytes.0 as f64, "effective LLC {llc} within the DRAM point {dram_bytes:?}");
    assert!((0.0..=1.0).contains(&steal) && intervals >= 3.0 && disturbed <= intervals && cpu > 0.0);
    assert!((0.0..60.0).contains(&age), "the last probe {age} s ago");
}

/// An instant query's result: each series' labels and value.
fn query(web: SocketAddr, promql: &str) -> Vec<(serde_json::Value, f64)> {
    let encoded = percent_encoding::utf8_percent_encode(promql, percent_encoding::NON_ALPHANUMERIC);
    // Refused, or 503: still starting.
    let Ok((200, body)) = try_get(web, &format!("/api/v1/query?query={encoded}")) else { return Vec::new() };
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{promql}: {e}: {body}"));
    assert_eq!(answer["status"], "success", "{promql}: {body}");
    let result = answer["data"]["result"].as_array().cloned().unwrap_or_default();
    result.into_iter().map(|r| (r["metric"].clone(), r["value"][1].as_str().unwrap().parse().unwrap())).collect()
}
