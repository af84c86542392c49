//! `memwall generate` and `memwall groupby --input` as a user meets them: real processes, real
//! files, real exit codes.

mod common;

use common::{assert_refused, memwall};
use memwall_report::{GroupBy, Report};

fn groupby_json(args: &[&str]) -> GroupBy {
    let out = memwall(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    Report::from_json(&String::from_utf8(out.stdout).unwrap()).unwrap().groupby.unwrap()
}

/// The file `generate` writes holds exactly the keys `groupby` generates from the same flags:
/// same groups, same checksum, same top-10, whether read back as Parquet or as raw i64.
#[test]
fn generated_files_group_like_the_generator() {
    let dir = tempfile::tempdir().unwrap();
    let data = ["--rows", "200000", "--keys", "30000", "--skew", "zipf:0.6", "--seed", "11"];
    let run = ["--kernel", "naive,tuned", "--runs", "1", "--json", "-"];
    let direct = groupby_json(&[&["groupby"][..], &data, &run].concat());
    let reference = &direct.runs[0];
    assert_eq!(reference.groups, 30000);
    for (name, format) in [("keys.parquet", "parquet"), ("keys.bin", "bin")] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        let out = memwall(&[&["generate"][..], &data, &["--out", path, "--column", "UserID"]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("wrote 200000 rows over 30000 keys"));
        let from_file = groupby_json(&[&["groupby", "--input", path, "--column", "UserID"][..], &run].concat());
        assert_eq!(from_file.dataset.rows, 200000);
        assert_eq!(from_file.dataset.input.as_ref().unwrap().format, format);
        for r in &from_file.runs {
            assert_eq!(
                (r.groups, &r.checksum, &r.top),
                (reference.groups, &reference.checksum, &reference.top),
                "{name} {}",
                r.kernel
            );
        }
    }
}

/// `--counters` never invents figures: real counts, or "unavailable" with the OS's reason (the
/// path a VM without a PMU takes).
#[test]
fn counters_are_real_or_explained() {
    let groupby = groupby_json(&[
        "groupby",
        "--rows",
        "100000",
        "--keys",
        "1000",
        "--kernel",
        "naive",
        "--runs",
        "1",
        "--counters",
        "--json",
        "-",
    ]);
    let counters = groupby.runs[0].counters.as_ref().expect("--counters records counters");
    if counters.available {
        assert!(counters.cycles.is_some() || counters.instructions.is_some(), "{counters:?}");
    } else {
        assert!(counters.unavailable.as_deref().is_some_and(|r| !r.is_empty()), "{counters:?}");
        assert_eq!((counters.cycles, counters.instructions, counters.ipc), (None, None, None));
    }
}

#[test]
fn bad_generate_and_input_flags_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("keys.csv");
    assert_refused(
        &["generate", "--rows", "10", "--keys", "5", "--out", csv.to_str().unwrap()],
        "must end in .parquet or .bin",
    );
    assert!(!csv.exists());
    let parquet = dir.path().join("k.parquet");
    assert_refused(
        &["generate", "--rows", "10", "--keys", "11", "--out", parquet.to_str().unwrap()],
        "11 keys cannot fit in 10 rows",
    );
    assert_refused(&["generate", "--preset", "huge", "--out", parquet.to_str().unwrap()], "unknown preset");

    let out = memwall(&[
        "generate",
        "--rows",
        "1000",
        "--keys",
        "10",
        "--out",
        parquet.to_str().unwrap(),
        "--column",
        "UserID",
    ]);
    assert!(out.status.success());
    let p = parquet.to_str().unwrap();
    assert_refused(&["groupby", "--input", p, "--column", "WatchID"], "no column \"WatchID\"; the file has: UserID");
    let truncated = dir.path().join("cut.bin");
    std::fs::write(&truncated, [1u8; 20]).unwrap();
    assert_refused(&["groupby", "--input", truncated.to_str().unwrap()], "not a whole number of 8-byte keys");
}

/// Aggregates over the generated value column, then over the same column written by
/// `generate` and read back with --value-column: the same totals and checksum, in the report.
#[test]
fn aggregates_over_generated_and_written_values_agree() {
    let dir = tempfile::tempdir().unwrap();
    let data = ["--rows", "100000", "--keys", "9000", "--seed", "3"];
    for value_type in ["i64", "f64"] {
        let agg = ["--agg", "count,sum,min,max,avg", "--value-type", value_type];
        let run = ["--kernel", "naive,tuned,radix", "--runs", "1", "--json", "-"];
        let direct = groupby_json(&[&["groupby"][..], &data, &agg, &run].concat());
        let query = direct.query.as_ref().unwrap();
        assert_eq!(
            (query.aggregates.join(","), query.value_type.as_str()),
            ("count,sum,min,max,avg".into(), value_type)
        );
        let totals = direct.runs[0].totals.clone().unwrap();
        assert_eq!(totals.count, Some(100000));
        assert!(totals.sum.is_some() && totals.min.is_some() && totals.max.is_some() && totals.avg.is_some());
        assert!(
            direct.runs.iter().all(|r| r.totals.as_ref() == Some(&totals) && r.checksum == direct.runs[0].checksum)
        );
        let path = dir.path().join(format!("{value_type}.parquet"));
        let path = path.to_str().unwrap();
        let out = memwall(&[&["generate"][..], &data, &["--value-type", value_type, "--out", path]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let read = ["groupby", "--input", path, "--column", "key", "--value-column", "value"];
        let from_file = groupby_json(&[&read[..], &agg[..2], &run].concat());
        assert_eq!(from_file.query.as_ref().unwrap().value_column.as_deref(), Some("value"));
        assert_eq!(from_file.runs[0].totals.as_ref(), Some(&totals));
        assert_eq!(from_file.runs[0].checksum, direct.runs[0].checksum);
    }
    // A value aggregate without a value column is refused in one line.
    let path = dir.path().join("i64.parquet");
    assert_refused(
        &["groupby", "--input", path.to_str().unwrap(), "--column", "key", "--agg", "sum"],
        "name it with --value-column",
    );
}
