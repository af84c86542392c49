//! What every CLI test file needs: the real binary, and the shape of a refusal.

use std::process::{Command, Output};

/// Runs the built `memwall` with `args`.
pub fn memwall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memwall")).args(args).output().expect("memwall runs")
}

/// A command line written as one string, split at spaces (no argument here has one).
#[allow(dead_code)] // each test file compiles this module; not all of them split a line
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Bad input: exit 2, one line on stderr that says what is wrong, nothing on stdout, no panic.
pub fn assert_refused(args: &[&str], needle: &str) {
    let out = memwall(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: expected {needle:?} in {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    let lines = stderr.lines().filter(|l| l.starts_with("memwall: error") || l.starts_with("error:")).count();
    assert_eq!(lines, 1, "{args:?}: {stderr}");
}

/// The JSON report a successful run wrote to stdout (`--json -`).
// Not every test file reads reports.
#[allow(dead_code)]
pub fn report_from(out: &Output) -> memwall_report::Report {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    memwall_report::Report::from_json(&String::from_utf8(out.stdout.clone()).unwrap())
        .expect("stdout is only the JSON report")
}
