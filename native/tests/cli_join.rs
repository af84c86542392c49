//! `memwall join` and `memwall sweep build-size` as a user meets them: real processes, exit codes,
//! JSON, CSV, and refusals of bad input.

mod common;

use common::{assert_refused, memwall, report_from, words};

#[test]
fn all_kernels_agree_and_the_json_says_how_they_were_checked() {
    let out = memwall(&words(
        "join --build-keys 40000 --probe-rows 300000 --skew zipf:0.8 --miss-rate 0.2 --kernel all --threads 2 --runs 2 --declared-caches --json -",
    ));
    let report = report_from(&out);
    assert!(report.check().is_ok());
    let join = report.join.unwrap();
    assert_eq!((join.dataset.build_keys, join.dataset.probe_rows), (40_000, 300_000));
    let share = join.dataset.misses as f64 / 300_000.0;
    assert!((share - 0.2).abs() < 0.01, "{share}");
    assert_eq!(join.runs.len(), 5);
    for run in &join.runs {
        assert_eq!(run.matches, 300_000 - join.dataset.misses, "{}", run.kernel);
        assert_eq!(run.checksum, join.runs[0].checksum, "{}", run.kernel);
        assert_eq!(run.samples_seconds.len(), 2);
        assert!(run.build_seconds.median > 0.0 && run.probe_seconds.median > 0.0, "{}", run.kernel);
        for check in ["reference", "known-matches", "cross-kernel", "repeatable"] {
            assert!(run.verified_by.iter().any(|c| c == check), "{}: {:?}", run.kernel, run.verified_by);
        }
    }
    let adaptive = join.runs.iter().find(|r| r.kernel == "adaptive").unwrap();
    assert!(adaptive.choice.is_some());
    let human = String::from_utf8_lossy(&out.stderr);
    assert!(human.contains("ns/probe") && human.contains("checked: every run of every kernel"), "{human}");
}

#[test]
fn csv_and_markdown_have_a_row_per_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("join.csv");
    let md = dir.path().join("join.md");
    let out = memwall(&[
        "join",
        "--build-keys",
        "1000",
        "--probe-rows",
        "5000",
        "--kernel",
        "naive,tuned",
        "--runs",
        "1",
        "--declared-caches",
        "--csv",
        csv.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].starts_with("1000,5000,naive,1,,warm,") && lines[2].starts_with("1000,5000,tuned,1,"), "{csv}");
    let md = std::fs::read_to_string(md).unwrap();
    // The table's header, rule and a row per kernel, then the rules it ran under, as GROUP BY's.
    let table_lines = md.lines().filter(|l| l.starts_with('|')).count();
    assert!(md.starts_with("| kernel |") && table_lines == 4, "{md}");
    assert!(md.contains("\nchecked: every run of every kernel matched a sort-and-merge reference"), "{md}");
}

#[test]
fn a_build_size_sweep_reports_every_point() {
    let out = memwall(&words(
        "sweep build-size --probe-rows 64Ki --min-keys 1Ki --max-keys 8Ki --kernel naive,partitioned,prefetch --tolerance 0.25 --runs 1 --declared-caches --json -",
    ));
    let report = report_from(&out);
    let sweep = &report.join.unwrap().sweeps[0];
    assert_eq!(sweep.kind, "build-size");
    assert_eq!(sweep.points.len(), 4 * 3);
    assert!(sweep.verified_by.iter().any(|c| c == "known-matches"), "{:?}", sweep.verified_by);
    assert!(sweep.points.iter().all(|p| p.ns_per_probe > 0.0 && p.seconds >= p.build_seconds));
    // The verdicts are read off the points: the fastest kernel per size, prefetch against it.
    assert_eq!(sweep.fastest.iter().map(|f| f.build_keys).collect::<Vec<_>>(), [1024, 2048, 4096, 8192]);
    for f in &sweep.fastest {
        let at: Vec<_> = sweep.points.iter().filter(|p| p.x == f.build_keys).collect();
        let best = at.iter().map(|p| p.ns_per_probe).min_by(f64::total_cmp).unwrap();
        assert_eq!(f.ns_per_probe, best);
        let prefetch = at.iter().find(|p| p.kernel == "prefetch").unwrap().ns_per_probe;
        // serde_json's parser may land an ulp away from the ratio written.
        assert!((f.prefetch_over_fastest.unwrap() - prefetch / best).abs() < 1e-12, "{f:?}");
    }
    assert_eq!(sweep.prefetch_tolerance_share, Some(0.25));
    if let Some(from) = sweep.prefetch_falls_behind_from {
        let last = sweep.fastest.last().unwrap();
        assert!(from <= last.build_keys && last.prefetch_over_fastest.unwrap() > 1.25);
    }
    // partitioned against both single tables (tuned was not swept), stated even when absent.
    let pairs: Vec<(&str, &str)> = sweep.crossovers.iter().map(|c| (c.kernel.as_str(), c.versus.as_str())).collect();
    assert_eq!(pairs, [("partitioned", "naive"), ("partitioned", "prefetch")]);
    assert_eq!(sweep.crossovers[0].from_build_keys, sweep.partitioned_beats_naive_from);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fastest kernel") && stderr.contains("prefetch vs fastest"), "{stderr}");
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let join = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["join".to_string(), "--runs".into(), "1".into(), "--declared-caches".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let cases: [(&[&str], &str); 9] = [
        (&["--miss-rate", "1.5"], "invalid miss rate"),
        (&["--miss-rate", "NaN"], "invalid miss rate"),
        (&["--kernel", "radix"], "unknown join kernel 'radix'"),
        (&["--build-keys", "100", "--probe-rows", "10"], "cannot all be probed"),
        (&["--build-keys", "0", "--probe-rows", "0"], "nothing to join"),
        (&["--build-keys", "100", "--probe-rows", "1000", "--partitions", "3"], "power of two"),
        (&["--preset", "huge"], "unknown preset"),
        (&["--build-keys", "1G", "--probe-rows", "100G"], "needs about"),
        (&["--build-keys", "100"], "--probe-rows"),
    ];
    for (extra, needle) in cases {
        let args = join(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&args, needle);
    }
    assert_refused(&["sweep", "build-size", "--min-keys", "64", "--max-keys", "32"], "no power of two");
    assert_refused(&["sweep", "build-size", "--probe-rows", "1000G", "--max-keys", "16Mi"], "can be allocated here");
    assert_refused(&["sweep", "build-size", "--tolerance", "2"], "--tolerance");
}
