//! The exporter in this process: `/metrics` on a real server spoken to with raw bytes, the probe
//! loop with its readings, and the Grafana dashboard kept in docs/ against what is exposed.

use std::net::{IpAddr, Ipv4Addr};

use memwall_report::Report;

use super::http::METRICS_PATH;
use super::metrics::tests::full;
use super::*;
use crate::serve::tests::{exchange, get};

fn full_metrics() -> Arc<Metrics> {
    Arc::new(full("test-host"))
}

fn serving(ip: IpAddr) -> SocketAddr {
    let listening = Listening::bind(SocketAddr::new(ip, 0)).unwrap();
    let addr = listening.addr();
    listening.answer(full_metrics()).unwrap();
    addr
}

#[test]
fn metrics_are_served_on_loopback_to_the_served_name_only() {
    let addr = serving(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let reply = get(addr, METRICS_PATH);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some(metrics::CONTENT_TYPE));
    assert!(reply.text().contains("\nmemwall_dram_latency_seconds{host=\"test-host\"} 1.01e-7\n"), "{}", reply.text());
    let head =
        exchange(addr, format!("HEAD /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes());
    assert_eq!((head.status, head.body.len()), (200, 0));
    // A page elsewhere that points its own name at 127.0.0.1 is refused, as by `memwall serve`.
    let rebound =
        format!("GET /metrics HTTP/1.1\r\nHost: attacker.example:{}\r\nConnection: close\r\n\r\n", addr.port());
    assert_eq!(exchange(addr, rebound.as_bytes()).status, 403);
    assert_eq!(get(addr, "/").status, 404);
    assert_eq!(get(addr, "/metrics/../reports/index.json").status, 404);
    let post = format!("POST /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    assert_eq!(exchange(addr, post.as_bytes()).status, 405);
}

#[test]
fn beyond_loopback_scrapes_may_name_any_host_and_only_metrics_is_served() {
    let addr = serving(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let local = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port());
    let by_name = format!("GET /metrics HTTP/1.1\r\nHost: node-7.example:{}\r\nConnection: close\r\n\r\n", addr.port());
    let reply = exchange(local, by_name.as_bytes());
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains("memwall_load_latency_seconds{"), "{}", reply.text());
    for path in ["/", "/index.html", "/reports/index.json", "/metrics/x"] {
        let other = format!("GET {path} HTTP/1.1\r\nHost: node-7.example\r\nConnection: close\r\n\r\n");
        assert_eq!(exchange(local, other.as_bytes()).status, 404, "{path}");
    }
}

#[test]
fn an_address_in_use_is_one_line_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let err = Listening::bind(addr).unwrap_err();
    assert!(err.message().starts_with(&format!("cannot listen on {addr}: ")), "{}", err.message());
    assert!(!err.message().contains('\n'));
}

#[test]
fn the_probe_measures_reads_the_levels_again_and_scrapes_see_the_latest() {
    let text = include_str!("../../../examples/reports/zen3-2vcpu-kvm-run.json");
    let mut report = Report::from_untrusted_json(text).unwrap();
    memwall_core::explain::reread(&mut report);
    let levels = report.ladder.unwrap().levels;
    let (points, _) = stability::watch_points(&levels);
    let host = Host { name: Some("probe-test".into()), timer_resolution_ns: Some(1.0), ..Default::default() };
    let listening = Listening::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0)).unwrap();
    let addr = listening.addr();
    let args = ExporterArgs { listen: Some(addr), levels_every: 0.5, max_cpu: 100.0, host: None };
    let probing = Probing {
        host: &host,
        levels: levels.clone(),
        points,
        prober: Prober::new(&host, platform::NativeClock::new()),
        every_s: 0.2,
        window_s: Some(1.2),
        levels_measured: false,
    };
    let mut readings = 0;
    let mut out = Vec::new();
    let watch = run(listening, &args, probing, &mut out, || {
        readings += 1;
        Ok(levels.clone())
    })
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(readings >= 1, "{out}");
    assert!(out.contains("levels read again in") && out.contains("probing costs"), "{out}");
    assert!(!watch.samples.is_empty() && watch.samples.len() <= 6, "{}", watch.samples.len());
    // The server keeps answering the figures last stored.
    let scrape = get(addr, METRICS_PATH).text();
    let intervals: f64 = scrape
        .lines()
        .find_map(|l| l.strip_prefix("memwall_intervals_total{host=\"probe-test\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!((2.0..=6.0).contains(&intervals), "{intervals}\n{scrape}");
    assert_eq!(scrape.matches("memwall_load_latency_seconds{").count(), 3, "{scrape}");
}

#[test]
fn the_budget_stretches_intervals_to_stay_under_its_share() {
    let mut budget = Budget::new(0.05);
    budget.spent(0.5);
    let earliest = budget.may_start_at().duration_since(budget.since).as_secs_f64();
    assert!((earliest - 10.0).abs() < 1e-9, "{earliest}");
    budget.reading_s = Some(3.6);
    let line = budget.cost_line(0.05, 10.0, 3600.0);
    assert!(line.starts_with("probing costs 0.50% of one CPU at --every 10s (50.0 ms of CPU per interval)"), "{line}");
    assert!(line.contains("3.6 s of CPU") && line.contains("0.10% more") && line.contains("bounded at 5%"), "{line}");
}

#[test]
fn percents_and_flags_are_checked() {
    assert_eq!(parse_percent("5"), Ok(5.0));
    assert_eq!(parse_percent("0.5%"), Ok(0.5));
    assert!(parse_percent("0").is_err() && parse_percent("101").is_err() && parse_percent("lots").is_err());
    assert_eq!(parse_host(" node-7 "), Ok("node-7".to_string()));
    assert!(parse_host("").is_err() && parse_host("a\nb").is_err());
}

/// docs/grafana/memwall.json: it parses as JSON, and every metric name it holds is one the
/// exporter exposes (a renamed metric breaks this test, not the dashboard of whoever imports it).
#[test]
fn the_grafana_dashboard_names_only_metrics_the_exporter_exposes() {
    let text = include_str!("../../../docs/grafana/memwall.json");
    let dashboard: serde_json::Value = serde_json::from_str(text).expect("docs/grafana/memwall.json parses");
    let exposed = metrics::exposed_names(&full_metrics().encode());
    let mut strings = Vec::new();
    collect_strings(&dashboard, &mut strings);
    let named: Vec<&str> = strings.iter().flat_map(|s| metric_names(s)).collect();
    assert!(named.len() >= 8, "the dashboard names few metrics: {named:?}");
    for name in &named {
        assert!(exposed.iter().any(|e| e == name), "the dashboard names {name}, which the exporter does not expose");
    }
    let panels = dashboard["panels"].as_array().expect("panels");
    for panel in panels.iter().filter(|p| p["type"] != "row") {
        let targets = panel["targets"].as_array().map_or(0, Vec::len);
        assert!(targets > 0, "panel {} queries nothing", panel["title"]);
    }
}

fn collect_strings<'a>(value: &'a serde_json::Value, into: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(s) => into.push(s),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_strings(v, into)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect_strings(v, into)),
        _ => {}
    }
}

/// Every `memwall_...` identifier in a PromQL expression (or any string).
fn metric_names(text: &str) -> Vec<&str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("memwall_") {
        let before_ok = at == 0 || !rest[..at].ends_with(ident);
        let end = rest[at..].find(|c: char| !ident(c)).map_or(rest.len(), |e| at + e);
        if before_ok {
            names.push(&rest[at..end]);
        }
        rest = &rest[end..];
    }
    names
}

#[test]
fn metric_names_are_found_in_promql() {
    let expr = "rate(memwall_disturbed_intervals_total{host=~\"$host\"}[5m]) / x_memwall_no + memwall_intervals_total";
    assert_eq!(metric_names(expr), ["memwall_disturbed_intervals_total", "memwall_intervals_total"]);
}
