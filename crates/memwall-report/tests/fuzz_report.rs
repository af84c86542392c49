//! Fuzzing, stable-toolchain style: reports are read from strangers (files given to `memwall
//! serve`, `?report=` URLs and share links in the page), so `Report::from_json` and
//! `Report::check` must turn any text into a report or an error, never a panic or a hang.
//!
//! proptest drives it in bounded time (a fixed number of cases, about a second each here): random
//! text, and the reports in tests/corpus/ mutated byte by byte, which reach far deeper into the
//! parser than random text does. Every input that ever failed belongs in tests/corpus/ (or is
//! kept by proptest in proptest-regressions/), so it is checked on every run.

use std::path::PathBuf;

use memwall_report::Report;
use proptest::prelude::*;

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 3, "the corpus is missing");
    files
}

/// What must hold for any input: no panic, and a report that parses writes JSON that parses.
fn read_any(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(report) = Report::from_json(&text) {
        let _ = report.check();
        let _ = Report::from_untrusted_json(&text);
        let again = Report::from_json(&report.to_json_pretty());
        assert!(again.is_ok(), "a report that parsed does not parse once written: {again:?}");
    }
}

/// One edit of a byte string: what turns a valid report into a malformed or implausible one.
#[derive(Debug, Clone)]
enum Edit {
    Flip { at: usize, bit: u8 },
    Insert { at: usize, text: &'static str },
    Delete { at: usize, len: usize },
    Duplicate { at: usize, len: usize },
    Truncate { at: usize },
}

/// Fragments that are JSON's and memwall's edge cases.
const FRAGMENTS: &[&str] = &[
    "-1",
    "0",
    "1e308",
    "1e999",
    "-0.0",
    "NaN",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
    "18446744073709551616",
    "9007199254740993",
    "\"\\ud800\"",
    "\"\\u0000\"",
    ",",
    ":",
    "[[[[[[[[",
    "}}}}",
    "\"schema_version\": 2,",
    "\"points\": [",
    "\u{feff}",
    "\u{0}",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Edit::Flip { at, bit }),
        (any::<usize>(), prop::sample::select(FRAGMENTS)).prop_map(|(at, text)| Edit::Insert { at, text }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), 1usize..256).prop_map(|(at, len)| Edit::Duplicate { at, len }),
        any::<usize>().prop_map(|at| Edit::Truncate { at }),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    match *edit {
        Edit::Flip { at, bit } => bytes[at % n] ^= 1 << bit,
        Edit::Insert { at, text } => {
            let at = at % (n + 1);
            bytes.splice(at..at, text.bytes());
        }
        Edit::Delete { at, len } => {
            let at = at % n;
            bytes.drain(at..(at + len).min(n));
        }
        Edit::Duplicate { at, len } => {
            let at = at % n;
            let copy = bytes[at..(at + len).min(n)].to_vec();
            bytes.splice(at..at, copy);
        }
        Edit::Truncate { at } => bytes.truncate(at % n),
    }
}

#[test]
fn the_corpus_reads_without_panic() {
    for (path, bytes) in corpus() {
        let text = String::from_utf8_lossy(&bytes);
        // Files named ok-*.json are good reports, and must stay readable and plausible.
        if path.file_name().unwrap().to_string_lossy().starts_with("ok-") {
            let report = Report::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(report.check(), Ok(()), "{}", path.display());
        }
        read_any(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_reports_never_panic(seed in any::<prop::sample::Index>(), edits in prop::collection::vec(edit(), 1..8)) {
        let corpus = corpus();
        let mut bytes = corpus[seed.index(corpus.len())].1.clone();
        for edit in &edits {
            apply(&mut bytes, edit);
        }
        read_any(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in ".{0,400}") {
        read_any(text.as_bytes());
    }

    #[test]
    fn random_json_values_never_panic(value in json_value()) {
        read_any(value.to_string().as_bytes());
        let wrapped = serde_json::json!({ "schema_version": 1, "tool": value.clone(), "host": value.clone(), "ladder": value });
        read_any(wrapped.to_string().as_bytes());
    }
}

/// Arbitrary JSON, a few levels deep: the shapes serde must refuse field by field.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()).prop_map(serde_json::Value::from),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop::sample::select(
                    &[
                        "schema_version",
                        "name",
                        "points",
                        "bytes",
                        "ns_per_load",
                        "min",
                        "median",
                        "p90",
                        "max",
                        "runs",
                        "seconds",
                        "kernel",
                        "caches",
                        "level",
                        "size_bytes",
                        "x",
                    ][..]
                ),
                inner,
                0..8
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}
