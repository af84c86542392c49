//! `memwall fleet` on the reports kept in the repository: every one read, sorted, filtered and
//! exported; a report that does not parse named with its reason and the exit code saying so.

mod common;

use common::{assert_refused, memwall, words};

const REPORTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/reports");

/// How many reports are kept in examples/reports (the folder grows as hosts are measured).
fn kept() -> usize {
    std::fs::read_dir(REPORTS)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "json"))
        .count()
}

fn stdout(args: &[&str]) -> String {
    let out = memwall(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_kept_report_is_a_row() {
    let text = stdout(&["fleet", REPORTS]);
    let rows: Vec<&str> = text.lines().skip(2).filter(|l| l.contains("KVM")).collect();
    assert_eq!(rows.len(), kept(), "{text}");
    assert!(text.contains("480 MiB / 16 MiB"), "the Xeon guest's L3 as read: {text}");
}

#[test]
fn sorted_filtered_and_exported() {
    let csv = stdout(&["fleet", REPORTS, "--sort", "dram_ns", "--csv", "-"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let dram = header.iter().position(|h| h == "dram_ns").unwrap();
    // A report without a ladder (only the vm-hides sections) has no DRAM figure: an empty cell,
    // sorted after every figure.
    let values: Vec<Option<f64>> = reader
        .records()
        .map(|r| Some(r.unwrap()[dram].to_string()).filter(|v| !v.is_empty()).map(|v| v.parse().unwrap()))
        .collect();
    assert_eq!(values.len(), kept());
    let figures: Vec<f64> = values.iter().map_while(|v| *v).collect();
    assert!(figures.len() >= 2 && values[figures.len()..].iter().all(Option::is_none), "{values:?}");
    assert!(figures.windows(2).all(|w| w[0] <= w[1]), "{values:?}");

    let json = stdout(&["fleet", REPORTS, "--filter", "cpu=xeon", "--json", "-"]);
    let fleet: memwall_report::fleet::Fleet = serde_json::from_str(&json).unwrap();
    assert_eq!(fleet.rows.len(), 1);
    assert!(fleet.rows[0].cpu.as_deref().unwrap().contains("Xeon"));

    let markdown = stdout(&["fleet", REPORTS, "--markdown", "-", "--sort", "groupby_tuned", "--desc"]);
    assert!(markdown.starts_with("| report | host |"), "{markdown}");
}

#[test]
fn an_unreadable_report_is_named_and_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(format!("{REPORTS}/zen3-2vcpu-kvm-run.json"), dir.path().join("good.json")).unwrap();
    std::fs::write(dir.path().join("broken.json"), "{\"schema_version\": 1,").unwrap();
    std::fs::write(dir.path().join(".hidden.json"), "not read").unwrap();
    let out = memwall(&["fleet", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout.contains("broken.json: not read:"), "{stdout}");
    assert!(stdout.contains("good"), "the readable report is still listed: {stdout}");
    assert!(!stdout.contains(".hidden"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 reports could not be read"));
}

#[test]
fn bad_flags_are_refused() {
    assert_refused(&words("fleet . --sort speed"), "no column \"speed\"");
    assert!(stdout(&["fleet", "--columns"]).contains("dram_ns"));
    assert_refused(&words("fleet . --filter dram_ns<fast"), "not a number");
    let empty = tempfile::tempdir().unwrap();
    assert_refused(&["fleet", empty.path().to_str().unwrap()], "no *.json reports");
}

#[test]
fn prices_join_as_columns_sorted_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("prices.csv");
    std::fs::write(
        &prices,
        "name,usd_per_hour\nzen3-2vcpu-kvm-run,0.085\nxeon-2vcpu-kvm-ladder-4curves,0.12\nnot-measured,1\n",
    )
    .unwrap();
    let prices = prices.to_str().unwrap();
    let out = memwall(&["fleet", REPORTS, "--prices", prices, "--sort", "usd_per_hour", "--desc", "--json", "-"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning") && stderr.contains("\"not-measured\""), "{stderr}");
    let fleet: memwall_report::fleet::Fleet = serde_json::from_slice(&out.stdout).unwrap();
    let usd: Vec<Option<f64>> = fleet.rows.iter().map(|r| r.prices.get("usd_per_hour").copied()).collect();
    assert_eq!(usd[..2], [Some(0.12), Some(0.085)]);
    assert!(usd[2..].iter().all(Option::is_none), "{usd:?}");

    let csv = stdout(&["fleet", REPORTS, "--prices", prices, "--filter", "usd_per_hour<0.1", "--csv", "-"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].ends_with(",measured_by,usd_per_hour"), "{}", lines[0]);
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(lines[1].ends_with(",0.085"), "{}", lines[1]);

    let markdown = stdout(&["fleet", REPORTS, "--prices", prices, "--markdown", "-"]);
    assert!(markdown.lines().next().unwrap().ends_with("| usd_per_hour |"), "{markdown}");
}

#[test]
fn unusable_prices_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let cases = [
        (dir.path().join("missing.csv").to_str().unwrap().to_owned(), "cannot be read"),
        (write("empty.csv", ""), "empty"),
        (write("no-header.csv", "zen3,0.085\n"), "looks like data"),
        (
            write("words.csv", "name,usd_per_hour\nzen3,cheap\n"),
            "line 2: \"cheap\" in column usd_per_hour is not a number",
        ),
    ];
    for (path, needle) in cases {
        assert_refused(&["fleet", REPORTS, "--prices", &path], needle);
    }
    // A column that only the prices would have named.
    assert_refused(&words("fleet . --sort usd_per_hour"), "no column \"usd_per_hour\"");
}

#[test]
fn an_index_for_a_static_host_carries_every_row_with_urls_relative_to_it() {
    use memwall_report::index::ReportsIndex;
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("zen 3");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(format!("{REPORTS}/zen3-2vcpu-kvm-run.json"), sub.join("a b.json")).unwrap();
    std::fs::copy(format!("{REPORTS}/xeon-2vcpu-kvm-ladder-4curves.json"), dir.path().join("xeon.json")).unwrap();
    std::fs::write(dir.path().join("broken.json"), "{").unwrap();
    let index = dir.path().join("index.json");
    let (root, sub_s, index_s) = (dir.path().to_str().unwrap(), sub.to_str().unwrap(), index.to_str().unwrap());

    let out = memwall(&["fleet", root, sub_s, "--index", index_s, "--filter", "cpu=xeon", "--json", "-"]);
    assert_eq!(out.status.code(), Some(2), "the broken report still fails the run");
    let shown: memwall_report::fleet::Fleet = serde_json::from_slice(&out.stdout).unwrap();
    let written = ReportsIndex::from_json(&std::fs::read_to_string(&index).unwrap()).unwrap();
    let urls: Vec<&str> = written.reports.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["broken.json", "xeon.json", "zen%203/a%20b.json"], "every report, unfiltered");
    assert!(written.reports[0].row.is_none() && written.reports[0].unreadable.is_some());
    let xeon = written.reports[1].row.as_ref().unwrap();
    assert_eq!(xeon.report, "xeon.json");
    // The same row `--json` shows, but for where the report is named from.
    let same = memwall_report::fleet::FleetRow { report: xeon.report.clone(), ..shown.rows[0].clone() };
    assert_eq!(*xeon, same);
    assert_eq!(written.reports[2].row.as_ref().map(|r| r.report.as_str()), Some("a b.json"));

    // A report the index's URLs cannot reach is refused before anything is written.
    let elsewhere = tempfile::tempdir().unwrap();
    let inner = elsewhere.path().join("inner").join("index.json");
    std::fs::create_dir(inner.parent().unwrap()).unwrap();
    assert_refused(&["fleet", root, "--index", inner.to_str().unwrap()], "not in the index's folder");
    assert!(!inner.exists());
}
