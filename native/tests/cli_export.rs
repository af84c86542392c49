//! `--json -`, `--csv -` and `--markdown -` mean the same on every command that writes results:
//! the data alone on stdout, the table on stderr.

mod common;

use common::{assert_refused, memwall, report_from};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/reports/zen3-2vcpu-kvm-run.json");

/// The quickest `memwall run`: a ladder of three sizes, one sample each, no races.
const QUICK_RUN: [&str; 16] = [
    "run",
    "--no-groupby",
    "--no-join",
    "--min",
    "16KiB",
    "--max",
    "64KiB",
    "--runs",
    "1",
    "--attempts",
    "1",
    "--sample-ms",
    "0.1",
    "--chains",
    "1,2",
    "--points-per-octave",
];

fn quick_run(extra: &[&str]) -> std::process::Output {
    let mut args: Vec<&str> = QUICK_RUN.to_vec();
    args.push("1");
    args.extend_from_slice(extra);
    memwall(&args)
}

#[test]
fn run_json_to_stdout_gives_the_report_there_and_the_tables_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(QUICK_RUN)
        .args(["1", "--json", "-"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = report_from(&out);
    assert!(report.ladder.is_some() && report.bandwidth.is_some());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cpu:") && stderr.contains("GB/s"), "{stderr}");
    // The report went to stdout, not to the default file.
    assert!(!dir.path().join("memwall-report.json").exists());
}

#[test]
fn run_csv_and_markdown_are_written_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, md, json) = (dir.path().join("l.csv"), dir.path().join("l.md"), dir.path().join("r.json"));
    let out = quick_run(&[
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--out",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(csv).unwrap();
    assert!(csv.starts_with("bytes,ns_per_load_min"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
    assert!(std::fs::read_to_string(md).unwrap().starts_with('|'));
    assert!(json.exists());
}

#[test]
fn info_and_explain_put_only_the_data_on_stdout() {
    for args in [vec!["info", "--json", "-"], vec!["explain", EXAMPLE, "--json", "-"]] {
        let out = memwall(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        report_from(&out);
        assert!(!out.stderr.is_empty(), "{args:?}: the human output belongs on stderr");
    }
    let out = memwall(&["info", "--csv", "-"]);
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("fact,value\n") && csv.contains("\ncpu,"), "{csv}");
    let out = memwall(&["explain", EXAMPLE, "--markdown", "-"]);
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("| report | level |") && md.contains("| DRAM |"), "{md}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("levels:"));
}

#[test]
fn bandwidth_exports_its_table_as_csv() {
    let out = memwall(&["bandwidth", "--min", "16KiB", "--max", "32KiB", "--runs", "1", "--csv", "-"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("working set,threads,read GB/s"), "{csv}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("GB/s = 10^9 bytes/s"));
}

#[test]
fn two_exports_to_stdout_are_refused_in_one_line() {
    for args in [vec!["info", "--json", "-", "--csv", "-"], vec!["explain", EXAMPLE, "--csv", "-", "--markdown", "-"]] {
        assert_refused(&args, "only one of --json, --csv and --markdown");
    }
}
