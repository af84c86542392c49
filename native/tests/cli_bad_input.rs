//! The bad-input matrix: the real `memwall` on inputs a stranger (or a typo) could give it. Each
//! must end in a non-zero exit, one line on stderr that names the problem, no panic, and no
//! output file, whole or partial, left behind.

// This file checks refusals in bulk with its own, broader assertions rather than assert_refused.
#[allow(dead_code)]
mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use common::memwall;
use memwall_report::{Host, Report, Source};
use parquet::arrow::ArrowWriter;

/// One bad input: the arguments, the exit code, words the message must contain, and the file
/// the command was asked to write (which must not exist afterwards).
struct Case {
    args: Vec<String>,
    code: i32,
    needle: &'static str,
    output: Option<PathBuf>,
}

fn case(args: &[&str], code: i32, needle: &'static str) -> Case {
    Case { args: args.iter().map(|a| a.to_string()).collect(), code, needle, output: None }
}

/// A case that names an output file in its arguments as `{out}`.
fn writing(args: &[&str], out: &Path, code: i32, needle: &'static str) -> Case {
    let shown = out.to_str().unwrap();
    Case {
        args: args.iter().map(|a| a.replace("{out}", shown)).collect(),
        code,
        needle,
        output: Some(out.to_path_buf()),
    }
}

fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef, bool)>) {
    let fields: Vec<Field> =
        columns.iter().map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable)).collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|(_, a, _)| a).collect()).unwrap();
    let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// The input files the cases read, made fresh in `dir`.
struct Inputs {
    dir: PathBuf,
}

impl Inputs {
    fn new(dir: &Path) -> Self {
        let keys: ArrayRef = Arc::new(Int64Array::from((0..1000).collect::<Vec<i64>>()));
        write_parquet(&dir.join("keys.parquet"), vec![("key", keys.clone(), false)]);
        let whole = std::fs::read(dir.join("keys.parquet")).unwrap();
        std::fs::write(dir.join("truncated.parquet"), &whole[..whole.len() / 2]).unwrap();
        // The magic at both ends, garbage between: a footer that lies.
        let mut lying = whole.clone();
        let len = lying.len();
        lying[8..len - 8].iter_mut().for_each(|b| *b = 0xa5);
        std::fs::write(dir.join("corrupt.parquet"), lying).unwrap();
        std::fs::write(dir.join("empty.parquet"), b"").unwrap();
        std::fs::write(dir.join("text.parquet"), "key\n1\n2\n").unwrap();
        std::fs::write(dir.join("keys.csv"), "key\n1\n2\n").unwrap();
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
        write_parquet(&dir.join("strings.parquet"), vec![("key", strings, false)]);
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![1.5, 2.5]));
        write_parquet(&dir.join("floats.parquet"), vec![("key", floats, false)]);
        let nullable: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3)]));
        write_parquet(&dir.join("nulls.parquet"), vec![("key", nullable, true)]);
        write_parquet(&dir.join("two.parquet"), vec![("a", keys.clone(), false), ("b", keys, false)]);
        let no_rows: ArrayRef = Arc::new(Int64Array::from(Vec::<i64>::new()));
        write_parquet(&dir.join("no-rows.parquet"), vec![("key", no_rows, false)]);
        std::fs::write(dir.join("odd.bin"), [0u8; 13]).unwrap();
        std::fs::write(dir.join("empty.bin"), b"").unwrap();
        std::fs::create_dir(dir.join("a-folder.parquet")).unwrap();

        std::fs::create_dir(dir.join("dist")).unwrap();
        std::fs::write(dir.join("dist").join("index.html"), "<!doctype html>").unwrap();
        std::fs::create_dir(dir.join("empty-dist")).unwrap();
        let host = Host { name: Some("h".into()), ..Default::default() };
        let good = Report::new(Source::Native, 1, host).to_json_pretty();
        std::fs::write(dir.join("future.json"), good.replace("\"schema_version\": 1", "\"schema_version\": 2"))
            .unwrap();
        std::fs::write(dir.join("no-version.json"), "{\"tool\": {\"name\": \"memwall\"}}").unwrap();
        std::fs::write(dir.join("nan.json"), good.replace("\"created_unix_s\": 1", "\"created_unix_s\": NaN")).unwrap();
        let ghz = good.replace("\"core_ghz\": null", "\"core_ghz\": -3.5");
        assert_ne!(ghz, good, "the fixture must change the report");
        std::fs::write(dir.join("negative.json"), ghz).unwrap();
        let overflow = good.replace("\"core_ghz\": null", "\"core_ghz\": 1e999");
        std::fs::write(dir.join("overflow.json"), overflow).unwrap();
        std::fs::write(dir.join("truncated.json"), &good[..good.len() / 2]).unwrap();
        std::fs::write(dir.join("array.json"), "[1, 2, 3]").unwrap();
        std::fs::write(dir.join("latin1.json"), b"{\"schema_version\": 1, \"host\": {\"name\": \"\xe9\"}}").unwrap();
        std::fs::write(dir.join("deep.json"), "[".repeat(100_000)).unwrap();
        let point =
            r#"{"bytes":16384,"ns_per_load":{"min":1,"median":1,"p90":1,"max":1},"loads_per_sample":1,"samples":1}"#;
        let points = vec![point; memwall_report::MAX_ITEMS + 1].join(",");
        let crowded = format!(
            r#"{{"schema_version":1,"tool":{{"name":"memwall","version":"0"}},"source":"native","created_unix_s":1,"host":{{}},"ladder":{{"pattern":"random-cycle","huge_pages":"off","line_bytes":64,"seed":1,"target_sample_ns":1,"points":[{points}]}}}}"#
        );
        std::fs::write(dir.join("crowded.json"), crowded).unwrap();
        // Sparse: larger than any report should be, without writing it.
        File::create(dir.join("huge.json")).unwrap().set_len(memwall_report::MAX_REPORT_BYTES + 1).unwrap();
        Self { dir: dir.to_path_buf() }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }
}

fn cases(inputs: &Inputs, out: &Path) -> Vec<Case> {
    let input = |name: &str| inputs.path(name);
    let dist = input("dist");
    let serve = |report: &str| {
        let mut c = case(&["serve", "--port", "0", "--dist", &dist, "--report", &input(report)], 2, "");
        c.needle = "--report";
        c
    };
    let groupby_input = |name: &str, needle: &'static str| case(&["groupby", "--input", &input(name)], 2, needle);
    let small = ["--rows", "1000", "--keys", "10"];
    let with_small = |extra: &[&str], needle: &'static str| {
        let mut args = vec!["groupby"];
        args.extend_from_slice(&small);
        args.extend_from_slice(extra);
        case(&args, 2, needle)
    };
    let out_bin = out.join("keys.bin");
    let out_json = out.join("report.json");
    vec![
        // Sizes: zero, negative, huge, unit-less, unknown units.
        case(&["ladder", "--min", "0"], 2, "--min"),
        case(&["ladder", "--max", "0"], 2, "--max"),
        case(&["ladder", "--max=-1GiB"], 2, "invalid size"),
        // Sizes beyond what this host can allocate (MemAvailable or its cgroup's limit), refused
        // before anything is allocated, with the amount in the message.
        case(&["ladder", "--max", "10TiB"], 2, "needs about 10.63 TiB but only"),
        case(&["bandwidth", "--max", "10TiB"], 2, "needs about 10.00 TiB but only"),
        case(&["groupby", "--rows", "1000000000000", "--keys", "10"], 2, "can be allocated here"),
        case(&["sweep", "cardinality", "--rows", "1000000000000"], 2, "can be allocated here"),
        case(&["join", "--build-keys", "10", "--probe-rows", "1000000000000"], 2, "can be allocated here"),
        case(&["ladder", "--max", "99999999999999999999999"], 2, "invalid size"),
        case(&["ladder", "--max", "1e30"], 2, "invalid size"),
        case(&["ladder", "--min", "64", "--max", "100"], 2, "two cache lines"),
        case(&["ladder", "--max", "12XB"], 2, "invalid size"),
        case(&["ladder", "--max", "1.5.5MiB"], 2, "invalid size"),
        case(&["ladder", "--max", ""], 2, "invalid size"),
        case(&["ladder", "--min", "1GiB", "--max", "16KiB"], 2, "larger than --max"),
        case(&["ladder", "--sample-ms", "nan"], 2, "sample-ms"),
        case(&["ladder", "--points-per-octave", "0"], 2, "points-per-octave"),
        case(&["ladder", "--points-per-octave", "4294967295"], 2, "points-per-octave"),
        case(&["ladder", "--runs", "0"], 2, "runs"),
        case(&["ladder", "--pin", "4096"], 2, "no such CPU"),
        // Counts.
        case(&["groupby", "--rows", "0", "--keys", "0"], 2, "rows"),
        case(&["groupby", "--rows=-5", "--keys", "1"], 2, "invalid count"),
        case(&["groupby", "--rows", "10", "--keys", "11"], 2, "cannot fit in 10 rows"),
        case(&["groupby", "--rows", "100", "--keys", "0"], 2, "keys"),
        case(&["groupby", "--rows", "1e30", "--keys", "1"], 2, "invalid count"),
        case(&["groupby", "--rows", "18446744073709551615", "--keys", "1"], 2, "rows"),
        case(&["groupby", "--rows", "5X", "--keys", "1"], 2, "invalid count"),
        case(&["groupby", "--rows", "0.5", "--keys", "1"], 2, "invalid count"),
        with_small(&["--partitions", "1000"], "power of two"),
        with_small(&["--partitions", "0"], "power of two"),
        with_small(&["--threads", "0"], "--threads"),
        with_small(&["--threads", "1000000"], "--threads"),
        with_small(&["--pin", "4096"], "no such CPU"),
        with_small(&["--kernel", "fast"], "unknown kernel"),
        with_small(&["--kernel", ""], "kernel"),
        with_small(&["--skew", "zipf:-1"], "skew"),
        with_small(&["--skew", "zipf:nan"], "skew"),
        with_small(&["--runs", "0"], "runs"),
        case(&["groupby", "--preset", "huge"], 2, "unknown preset"),
        case(&["sweep", "partitions", "--rows", "100", "--keys", "10", "--min", "3"], 2, "power of two"),
        // Input files.
        groupby_input("missing.parquet", "no such file"),
        groupby_input("empty.parquet", "empty"),
        groupby_input("truncated.parquet", "--input"),
        groupby_input("corrupt.parquet", "--input"),
        groupby_input("text.parquet", "not a Parquet file"),
        groupby_input("keys.csv", "unknown format"),
        groupby_input("strings.parquet", "keys must be integers"),
        groupby_input("floats.parquet", "keys must be integers"),
        groupby_input("nulls.parquet", "nulls"),
        groupby_input("two.parquet", "pick a column"),
        groupby_input("no-rows.parquet", "no rows"),
        groupby_input("odd.bin", "not a whole number of 8-byte keys"),
        groupby_input("empty.bin", "empty"),
        groupby_input("a-folder.parquet", "not a regular file"),
        case(&["groupby", "--input", &input("keys.parquet"), "--column", "nope"], 2, "no column \"nope\""),
        // Outputs that cannot be written, or must not be.
        writing(
            &["generate", "--rows", "10", "--keys", "3", "--out", "{out}"],
            &out.join("keys.csv"),
            2,
            ".parquet or .bin",
        ),
        writing(
            &["generate", "--rows", "10", "--keys", "3", "--out", "{out}"],
            &out.join("missing-dir").join("keys.parquet"),
            1,
            "--out",
        ),
        writing(&["generate", "--rows", "10", "--keys", "30", "--out", "{out}"], &out_bin, 2, "cannot fit"),
        writing(
            &["generate", "--rows", "1000000000000", "--keys", "10", "--out", "{out}"],
            &out_bin,
            2,
            "can be allocated here",
        ),
        writing(
            &["generate", "--rows", "10", "--keys", "3", "--column", "", "--out", "{out}"],
            &out.join("k.parquet"),
            2,
            "--column",
        ),
        writing(
            &["generate", "--rows", "10", "--keys", "3", "--miss-rate", "0.5", "--out", "{out}"],
            &out.join("probe.parquet"),
            2,
            "--build-out",
        ),
        writing(
            &[
                "generate",
                "--rows",
                "10",
                "--keys",
                "3",
                "--build-out",
                "b.parquet",
                "--miss-rate",
                "1.5",
                "--out",
                "{out}",
            ],
            &out.join("probe.parquet"),
            2,
            "--miss-rate",
        ),
        writing(&["groupby", "--rows", "10", "--keys", "30", "--json", "{out}"], &out_json, 2, "cannot fit"),
        writing(
            &["ladder", "--min", "16KiB", "--max", "16KiB", "--runs", "1", "--json", "{out}"],
            &out.join("missing-dir").join("r.json"),
            1,
            "writing",
        ),
        // Reports handed to `memwall serve`.
        serve("missing.json"),
        serve("future.json"),
        serve("no-version.json"),
        serve("nan.json"),
        serve("negative.json"),
        serve("overflow.json"),
        serve("truncated.json"),
        serve("array.json"),
        serve("latin1.json"),
        serve("deep.json"),
        serve("crowded.json"),
        serve("huge.json"),
        serve("keys.parquet"),
        case(&["serve", "--port", "0", "--dist", &input("empty-dist")], 2, "no index.html"),
        case(&["serve", "--port", "70000"], 2, "--port"),
        case(&["serve", "--bind", "localhost.example"], 2, "--bind"),
        case(&["ladder", "--frobnicate"], 2, "--frobnicate"),
        case(&["groupby", "--rows", "10"], 2, "--keys"),
    ]
}

#[test]
fn every_bad_input_is_one_line_a_non_zero_exit_and_leaves_nothing() {
    let inputs_dir = tempfile::tempdir().unwrap();
    let inputs = Inputs::new(inputs_dir.path());
    let out = tempfile::tempdir().unwrap();
    let cases = cases(&inputs, out.path());
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let shown = format!("memwall {}", args.join(" "));
        let result = memwall(&args);
        let stderr = String::from_utf8_lossy(&result.stderr).to_string();
        let lines: Vec<&str> = stderr.lines().collect();
        let mut problems = Vec::new();
        if result.status.code() != Some(case.code) {
            problems.push(format!("exit {:?}, expected {}", result.status.code(), case.code));
        }
        if lines.len() != 1 {
            problems.push(format!("{} lines on stderr", lines.len()));
        }
        if !stderr.contains(case.needle) {
            problems.push(format!("no {:?} in the message", case.needle));
        }
        if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
            problems.push("a panic".into());
        }
        if case.code == 2 && !result.stdout.is_empty() {
            problems.push("output on stdout".into());
        }
        if let Some(path) = &case.output
            && path.exists()
        {
            problems.push(format!("{} was left behind", path.display()));
        }
        if !problems.is_empty() {
            failures.push(format!("{shown}\n    {}\n    stderr: {stderr:?}", problems.join("; ")));
        }
    }
    // Nothing at all in the output folder: no partial file, no temporary file.
    let left: Vec<_> = std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    if !left.is_empty() {
        failures.push(format!("left in the output folder: {left:?}"));
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
