//! The `memwall` binary as a user meets it: real processes, real exit codes, real JSON.

mod common;

use common::{assert_refused, memwall};
use memwall_report::{Report, Source};

#[test]
fn ladder_json_on_stdout_is_a_valid_report_and_nothing_else() {
    let out =
        memwall(&["ladder", "--min", "16KiB", "--max", "32KiB", "--runs", "3", "--sample-ms", "1", "--json", "-"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(report.source, Source::Native);
    let ladder = report.ladder.unwrap();
    assert_eq!(ladder.points.iter().map(|p| p.bytes).collect::<Vec<_>>(), [16384, 24576, 32768]);
    assert!(ladder.points.iter().all(|p| p.samples == 3 && p.ns_per_load.min > 0.0));
    assert!(ladder.points.iter().all(|p| (1..=3).contains(&p.attempts)));
    assert_eq!(ladder.huge_pages, "off");
    // The table went to stderr instead.
    assert!(String::from_utf8_lossy(&out.stderr).contains("working set"));
}

#[test]
fn single_size_csv_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("l.csv");
    let md = dir.path().join("l.md");
    let out = memwall(&[
        "ladder",
        "--min",
        "64KiB",
        "--max",
        "64KiB",
        "--runs",
        "2",
        "--sample-ms",
        "1",
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("64 KiB") && stdout.contains("latency steps"), "{stdout}");
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(csv.lines().count(), 2);
    assert!(csv.lines().nth(1).unwrap().starts_with("65536,"));
    assert!(std::fs::read_to_string(md).unwrap().starts_with("| working set |"));
}

#[test]
fn pinned_and_thp_runs_record_what_they_got() {
    let out = memwall(&[
        "ladder",
        "--min",
        "4MiB",
        "--max",
        "4MiB",
        "--runs",
        "2",
        "--sample-ms",
        "1",
        "--pin",
        "0",
        "--huge-pages",
        "thp",
        "--json",
        "-",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ladder = Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap().ladder.unwrap();
    assert_eq!(ladder.pinned_cpu, Some(0));
    assert_eq!(ladder.huge_pages, "thp");
    let huge = ladder.points[0].huge_page_bytes.expect("verified from smaps");
    assert!(huge <= 6 << 20 && huge.is_multiple_of(2 << 20), "{huge}");
}

#[test]
fn bad_input_is_refused_in_one_line() {
    assert_refused(&["ladder", "--max", "10TiB"], "can be allocated here");
    assert_refused(&["ladder", "--min", "1MiB", "--max", "64KiB"], "larger than --max");
    assert_refused(&["ladder", "--pin", "999"], "no such CPU");
    assert_refused(&["ladder", "--min", "lots"], "invalid size");
    assert_refused(&["ladder", "--max", "12XB"], "invalid size");
    assert_refused(&["ladder", "--points-per-octave", "0"], "points-per-octave");
    assert_refused(&["ladder", "--runs", "0"], "runs");
    assert_refused(&["ladder", "--huge-pages", "maybe"], "huge-pages");
    assert_refused(&["ladder", "--min", "64", "--max", "1KiB"], "two cache lines");
    assert_refused(&["ladder", "--sample-ms", "-1"], "sample-ms");
    assert_refused(&["ladder", "--attempts", "0"], "attempts");
    assert_refused(&["frobnicate"], "unrecognized subcommand");
}

#[test]
fn info_describes_the_host_and_writes_a_report() {
    let out = memwall(&["info", "--json", "-"]);
    assert!(out.status.success());
    let report = Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert!(report.host.logical_cpus.unwrap() >= 1);
    assert!(report.host.timer_resolution_ns.unwrap() > 0.0);
    assert!(report.host.core_ghz.is_some() || report.host.core_ghz_unavailable.is_some());
    assert!(report.ladder.is_none());
    let text = String::from_utf8_lossy(&memwall(&["info"]).stdout).to_string();
    assert!(text.contains("cpu:") && text.contains("core clock:"), "{text}");
}

#[test]
fn help_explains_the_commands() {
    let text = String::from_utf8(memwall(&["--help"]).stdout).unwrap();
    for word in ["run", "info", "ladder"] {
        assert!(text.contains(word), "{text}");
    }
    let text = String::from_utf8(memwall(&["ladder", "--help"]).stdout).unwrap();
    assert!(text.contains("--huge-pages") && text.contains("transparent huge pages"), "{text}");
}

#[test]
fn patterns_chains_and_explanations_land_in_the_report() {
    let out = memwall(&[
        "ladder",
        "--min",
        "16KiB",
        "--max",
        "64KiB",
        "--runs",
        "5",
        "--sample-ms",
        "1",
        // Retries keep a busy CI machine's noise from hiding the L1 plateau the test reads.
        "--attempts",
        "3",
        "--pattern",
        "random,page-local,page-stride,sequential",
        "--chains",
        "1,2,4",
        "--chains-at",
        "64KiB",
        "--json",
        "-",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ladder = Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap().ladder.unwrap();
    assert_eq!(ladder.pattern, "random-cycle");
    let extra: Vec<&str> = ladder.curves.iter().map(|c| c.pattern.as_str()).collect();
    assert_eq!(extra, ["page-local", "page-stride", "sequential"]);
    assert!(ladder.curves.iter().all(|c| c.points.len() == ladder.points.len() && c.huge_pages == "off"));
    let chains = ladder.parallelism.unwrap();
    assert_eq!(chains.points.iter().map(|p| p.chains).collect::<Vec<_>>(), [1, 2, 4]);
    assert_eq!(chains.bytes, 64 << 10);
    // L1 is in range, so a level is named, and the clock was either checked or said missing.
    assert_eq!(ladder.levels.first().map(|l| l.name.as_str()), Some("L1"));
    assert!(ladder.clock_check.is_some() || ladder.cycles_unavailable.is_some());
    let table = String::from_utf8_lossy(&out.stderr);
    assert!(table.contains("page walks (off)") && table.contains("memory-level parallelism"), "{table}");
}

#[test]
fn bad_pattern_and_chain_counts_are_refused() {
    assert_refused(&["ladder", "--pattern", "zigzag"], "zigzag");
    assert_refused(&["ladder", "--chains", "0"], "not a chase count");
    assert_refused(&["ladder", "--chains", "3"], "not a chase count");
    assert_refused(&["ladder", "--chains", "128"], "not a chase count");
    assert_refused(&["ladder", "--chains", "1", "--chains-at", "1KiB"], "--chains-at");
    assert_refused(&["ladder", "--pattern", "page-stride", "--min", "4KiB"], "page-stride");
    assert_refused(&["bandwidth", "--threads", "0"], "--threads");
}

#[test]
fn bandwidth_report_has_every_figure() {
    let out = memwall(&[
        "bandwidth",
        "--min",
        "64KiB",
        "--max",
        "128KiB",
        "--runs",
        "2",
        "--sample-ms",
        "1",
        "--loaded",
        "--loaded-at",
        "256KiB",
        "--json",
        "-",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bandwidth = Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap().bandwidth.unwrap();
    assert_eq!(bandwidth.points.iter().map(|p| p.bytes).collect::<Vec<_>>(), [64 << 10, 128 << 10]);
    for p in &bandwidth.points {
        assert_eq!(p.threads, 1);
        assert!(p.read_gb_per_s > 0.0 && p.write_gb_per_s > 0.0 && p.copy_gb_per_s > 0.0, "{p:?}");
        assert!(p.memcpy_gb_per_s.is_some_and(|m| m > 0.0), "{p:?}");
    }
    // Idle first, then with every other CPU (at least one) streaming.
    let loaded = &bandwidth.loaded_latency;
    assert_eq!(loaded.len(), 2);
    assert_eq!(loaded[0].streaming_threads, 0);
    assert!(loaded[1].streaming_threads >= 1);
    assert!(loaded.iter().all(|l| l.bytes == 256 << 10 && l.ns_per_load > 0.0), "{loaded:?}");
}

#[test]
fn version_names_the_target_and_info_says_this_run_is_not_emulated() {
    let out = memwall(&["--version"]);
    assert!(out.status.success());
    let version = String::from_utf8(out.stdout).unwrap();
    // "memwall 0.1.0 (x86_64-unknown-linux-gnu[, commit …][, web front end built in])"
    let target = format!("({}-", std::env::consts::ARCH);
    assert!(version.starts_with("memwall ") && version.contains(&target), "{version}");
    let out = memwall(&["info"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("emulated:    no sign of it"), "{text}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("looks emulated"));
}
