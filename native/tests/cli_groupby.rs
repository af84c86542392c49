//! `memwall groupby` and `memwall sweep` as a user meets them: real processes, exit codes, JSON.

mod common;

use common::{assert_refused, memwall, report_from, words};
use memwall_report::Report;

#[test]
fn all_kernels_agree_and_the_json_says_so() {
    let out = memwall(&words(
        "groupby --rows 300000 --keys 50000 --skew zipf:0.8 --seed 5 --kernel all --threads 2 --runs 2 --json -",
    ));
    let report = report_from(&out);
    let groupby = report.groupby.unwrap();
    assert_eq!(groupby.dataset.rows, 300_000);
    assert_eq!(groupby.dataset.distinct_keys, 50_000);
    assert_eq!(groupby.dataset.seed, Some(5));
    assert_eq!(groupby.dataset.generator.as_ref().unwrap().skew, "zipf:0.8");
    let kernels: Vec<&str> = groupby.runs.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(kernels, ["naive", "radix", "tuned", "prefetch", "adaptive"]);
    let first = &groupby.runs[0];
    assert_eq!(groupby.dataset.max_rows_per_key, Some(first.top[0].count));
    for run in &groupby.runs {
        assert_eq!(
            (run.groups, &run.checksum, &run.top),
            (first.groups, &first.checksum, &first.top),
            "{}",
            run.kernel
        );
        assert_eq!(run.samples_seconds.len(), 2);
        assert!(run.seconds.min > 0.0 && run.seconds.min <= run.seconds.median && run.ns_per_row > 0.0);
        // Radix and tuned split their work over threads; adaptive too, with a table per thread
        // when it keeps one table (300,000 rows are enough to split, and a count merges exactly).
        let chosen = run.choice.as_ref().map_or(run.kernel.as_str(), |c| c.kernel.as_str());
        let threaded = matches!(chosen, "radix" | "tuned") || run.kernel == "adaptive";
        assert_eq!(run.threads, if threaded { 2 } else { 1 }, "{}", run.kernel);
        assert_eq!(run.choice.is_some(), run.kernel == "adaptive");
        assert!(run.counters.is_none());
    }
    assert_eq!(groupby.runs[1].partitions, Some(4096));
    assert_eq!(first.top.len(), 10);
    // The human table went to stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("vs naive") && stderr.contains("adaptive chose"), "{stderr}");
}

#[test]
fn scratch_on_small_pages_gives_the_same_answer_and_no_huge_page() {
    let race = "groupby --rows 300000 --keys 50000 --kernel naive,tuned,adaptive --runs 1 --json - --scratch-pages";
    let small = report_from(&memwall(&words(&format!("{race} off")))).groupby.unwrap();
    let huge = report_from(&memwall(&words(&format!("{race} thp")))).groupby.unwrap();
    for (s, h) in small.runs.iter().zip(&huge.runs) {
        assert_eq!((&s.kernel, s.groups, &s.checksum), (&h.kernel, h.groups, &h.checksum));
        // None of the pool on huge pages where it was asked for small ones (the share is left
        // out only where the host cannot tell, which a Linux host always can).
        assert_eq!(s.huge_page_share, Some(0.0), "{}", s.kernel);
    }
    assert_refused(&words("groupby --rows 1000 --scratch-pages small"), "--scratch-pages");
}

#[test]
fn table_on_stdout_with_speedups() {
    let out = memwall(&words("groupby --rows 100K --keys 10K --kernel naive,tuned --partitions 256 --runs 1"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("100000 rows, 10000 distinct keys"), "{stdout}");
    let tuned = stdout.lines().find(|l| l.starts_with("tuned")).unwrap();
    assert!(tuned.contains("256") && tuned.contains('x'), "{tuned}");
    assert!(stdout.contains("top keys:"));
}

#[test]
fn counters_are_recorded_or_explained() {
    let out = memwall(&words("groupby --rows 50000 --keys 5000 --kernel tuned --runs 1 --counters --json -"));
    let report = report_from(&out);
    let counters = report.groupby.unwrap().runs[0].counters.clone().expect("--counters records counters");
    if counters.available {
        assert!(counters.cycles.is_some() || counters.instructions.is_some());
    } else {
        assert!(!counters.unavailable.unwrap_or_default().is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("counters unavailable"));
    }
}

#[test]
fn binary_input_is_grouped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.bin");
    let csv_path = dir.path().join("race.csv");
    let keys: Vec<i64> = (0..20_000i64).map(|i| (i % 777) * 1_000_000_007 - 5).collect();
    std::fs::write(&path, keys.iter().flat_map(|k| k.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let out = memwall(&[
        "groupby",
        "--input",
        path.to_str().unwrap(),
        "--kernel",
        "naive,tuned",
        "--runs",
        "1",
        "--csv",
        csv_path.to_str().unwrap(),
        "--json",
        "-",
    ]);
    let groupby = report_from(&out).groupby.unwrap();
    // The CSV is the report's, as the page exports it.
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), memwall_report::groupby_csv(&groupby));
    assert_eq!((groupby.dataset.rows, groupby.dataset.distinct_keys), (20_000, 777));
    let input = groupby.dataset.input.unwrap();
    assert_eq!(input.format, "bin");
    assert!(groupby.dataset.generator.is_none());
    assert_eq!(groupby.runs[0].checksum, groupby.runs[1].checksum);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_refused(&["groupby", "--rows", "10", "--keys", "11"], "cannot fit in 10 rows");
    assert_refused(&["groupby", "--rows", "100", "--keys", "10", "--partitions", "1000"], "power of two");
    assert_refused(&["groupby", "--rows", "100", "--keys", "10", "--partitions", "131072"], "power of two");
    assert_refused(&["groupby", "--rows", "100", "--keys", "10", "--threads", "0"], "--threads");
    assert_refused(&["groupby", "--rows", "1000000000000", "--keys", "10"], "can be allocated here");
    assert_refused(&["groupby", "--rows", "100", "--keys", "10", "--kernel", "fast"], "unknown kernel");
    assert_refused(&["groupby", "--rows", "100", "--keys", "10", "--skew", "zipf"], "invalid skew");
    assert_refused(&["groupby", "--preset", "huge"], "unknown preset");
    assert_refused(&["groupby", "--preset", "small", "--rows", "10"], "cannot be used with");
    assert_refused(&["groupby", "--rows", "ten", "--keys", "1"], "invalid count");
    assert_refused(&["groupby", "--input", "/nonexistent/keys.parquet", "--column", "UserID"], "no such file");
    assert_refused(&["sweep", "partitions", "--rows", "100", "--keys", "10", "--min", "3"], "power of two");
    assert_refused(
        &["sweep", "cardinality", "--rows", "100", "--min-keys", "200", "--max-keys", "300"],
        "no power of two",
    );
}

#[test]
fn sweeps_report_points() {
    let out = memwall(&words(
        "sweep cardinality --rows 20000 --min-keys 16 --max-keys 4096 --kernel naive,radix,adaptive --json -",
    ));
    let sweep = report_from(&out).groupby.unwrap().sweeps.remove(0);
    assert_eq!(sweep.kind, "cardinality");
    assert_eq!(sweep.points.len(), 9 * 3);
    assert!(sweep.adaptive_max_slowdown.is_some_and(|s| s > 0.0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("distinct keys"));

    let out = memwall(&words("sweep partitions --rows 20000 --keys 2000 --min 16 --max 64 --json -"));
    let sweep = report_from(&out).groupby.unwrap().sweeps.remove(0);
    let xs: Vec<(u64, &str)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str())).collect();
    assert_eq!(xs, [(16, "radix"), (16, "tuned"), (32, "radix"), (32, "tuned"), (64, "radix"), (64, "tuned")]);
}

/// Several aggregate lists in one sweep: one sweep each, in the order given, each naming its
/// state, and one table of how the result moved with the state.
#[test]
fn sweeps_by_state_size_give_one_sweep_per_list_and_a_table() {
    let states = ["--agg", "count", "--agg", "sum", "--agg", "sum,min,max,count"];
    let base = ["sweep", "cardinality", "--rows", "20000", "--min-keys", "64", "--max-keys", "4096", "--runs", "1"];
    let out = memwall(&[&base[..], &states, &["--value-type", "f64", "--declared-caches", "--json", "-"]].concat());
    let groupby = report_from(&out).groupby.unwrap();
    assert_eq!(groupby.query, None, "several lists: each sweep has its own query");
    let states: Vec<(String, String, Option<u64>)> = groupby
        .sweeps
        .iter()
        .map(|s| {
            let q = s.query.as_ref().unwrap();
            (q.aggregates.join(","), q.value_type.clone(), s.state_bytes_per_group)
        })
        .collect();
    assert_eq!(
        states,
        [
            ("count".to_string(), "none".to_string(), Some(8)),
            ("sum".into(), "f64".into(), Some(16)),
            ("count,sum,min,max".into(), "f64".into(), Some(32)),
        ]
    );
    for sweep in &groupby.sweeps {
        assert_eq!(sweep.points.len(), 7 * 5);
        // Every other kernel against naive, each derived from the points measured.
        let kernels: Vec<&str> = sweep.crossovers.iter().map(|c| c.kernel.as_str()).collect();
        assert_eq!(kernels, ["radix", "tuned", "prefetch", "adaptive"]);
        for c in &sweep.crossovers {
            let ns = |x: u64, k: &str| sweep.points.iter().find(|p| p.x == x && p.kernel == k).unwrap().ns_per_row;
            if let Some(from) = c.from_distinct_keys {
                assert!(ns(from, &c.kernel) < ns(from, "naive"), "{c:?}");
            }
            assert_eq!(c.from_distinct_keys.is_some(), ns(4096, &c.kernel) < ns(4096, "naive"), "{c:?}");
        }
        assert!(sweep.verified_by.iter().any(|c| c == "reference"), "{:?}", sweep.verified_by);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("crossover by state size") && stderr.contains("state B/group"), "{stderr}");
    assert!(stderr.contains("aggregates: count,sum,min,max over f64 values (32 bytes of state a group)"), "{stderr}");

    let out = memwall(&words(
        "sweep partitions --rows 20000 --keys 2000 --min 16 --max 64 --agg count --agg min,max --runs 1 --json -",
    ));
    let groupby = report_from(&out).groupby.unwrap();
    assert_eq!(groupby.sweeps.len(), 2);
    for sweep in &groupby.sweeps {
        let best: Vec<&str> = sweep.best_partitions.iter().map(|b| b.kernel.as_str()).collect();
        assert_eq!(best, ["radix", "tuned"]);
        for b in &sweep.best_partitions {
            let fastest = sweep
                .points
                .iter()
                .filter(|p| p.kernel == b.kernel)
                .map(|p| p.ns_per_row)
                .min_by(f64::total_cmp)
                .unwrap();
            assert_eq!(b.ns_per_row, fastest);
        }
    }
    assert_eq!(groupby.sweeps[1].state_bytes_per_group, Some(24));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("best partition count by state size") && stderr.contains("tuned best P"), "{stderr}");
}

#[test]
fn sweep_aggregates_are_checked_like_the_race() {
    assert_refused(&["sweep", "cardinality", "--rows", "100", "--max-keys", "64", "--agg", "median"], "--agg");
    assert_refused(
        &["sweep", "cardinality", "--rows", "100", "--max-keys", "64", "--value-type", "u8"],
        "--value-type",
    );
    assert_refused(
        &["sweep", "cardinality", "--rows", "1000000000000", "--max-keys", "2048", "--agg", "sum"],
        "can be allocated here",
    );
    assert_refused(&["sweep", "partitions", "--rows", "100", "--keys", "10", "--agg", "count", "--agg", "x"], "--agg");
}

#[test]
fn run_can_skip_the_race() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let out = memwall(&[
        "run",
        "--out",
        path.to_str().unwrap(),
        "--min",
        "16KiB",
        "--max",
        "16KiB",
        "--runs",
        "2",
        "--sample-ms",
        "1",
        "--no-groupby",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = Report::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(report.ladder.is_some());
    assert!(report.groupby.is_none());
}

/// `--caches-from`: adaptive sizes its tables by a saved ladder's levels (read again by today's
/// rules) instead of a ladder of its own; a report of another CPU, or one without a ladder, is
/// refused in one line.
#[test]
fn caches_from_a_saved_ladder_size_adaptive_and_another_cpu_or_caches_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reports/xeon-2vcpu-kvm-ladder-4curves.json");
    let mut report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    let save = |name: &str, report: &serde_json::Value| {
        let path = dir.path().join(name);
        std::fs::write(&path, report.to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Unnamed and declaring no caches, the example's CPU is no other CPU's, whichever host runs
    // this.
    let declared = std::mem::replace(&mut report["host"]["caches"], serde_json::json!([]));
    report["host"]["cpu_model"] = serde_json::Value::Null;
    let saved = save("ladder.json", &report);
    let race = words("groupby --rows 200000 --keys 1000 --kernel adaptive --runs 1 --json -");
    let out = memwall(&[&race[..], &["--caches-from", &saved]].concat());
    let this_host = report_from(&out).host;
    let run = report_from(&out).groupby.unwrap().runs.remove(0);
    let reason = run.choice.unwrap().reason;
    // The example's Xeon guest: L2 reads to 2 MiB there (its 1.5 MiB on the climb), its L3 16 MiB
    // (480 declared).
    assert!(reason.contains("L2 2 MiB and L3 16 MiB, as the ladder read them"), "{reason}");

    report["host"]["cpu_model"] = "A CPU no host has".into();
    let other = save("other.json", &report);
    assert_refused(&[&race[..], &["--caches-from", &other]].concat(), "measured on another CPU");
    // Named as this host's CPU, but declaring the example's caches (a 480 MiB L3, and an L2 made
    // odd so that no host declares the same): a guest of the same name on another machine.
    report["host"]["cpu_model"] = serde_json::to_value(&this_host.cpu_model).unwrap();
    report["host"]["caches"] = declared;
    report["host"]["caches"].as_array_mut().unwrap().iter_mut().filter(|c| c["level"] == 2).for_each(|c| {
        c["size_bytes"] = 2_000_001.into();
    });
    let same_name = save("same-name.json", &report);
    assert!(!this_host.caches.is_empty(), "this host declares no caches: nothing to compare with");
    assert_refused(&[&race[..], &["--caches-from", &same_name]].concat(), "declares other caches");
    report["host"]["cpu_model"] = serde_json::Value::Null;
    report["host"]["caches"] = serde_json::json!([]);
    report.as_object_mut().unwrap().remove("ladder");
    let none = save("none.json", &report);
    assert_refused(&[&race[..], &["--caches-from", &none]].concat(), "no ladder in this report");
    assert_refused(&[&race[..], &["--caches-from", &saved, "--declared-caches"]].concat(), "--declared-caches");
}
