//! Fuzzing on stable: the parsers that read what users and strangers give `memwall` (counts on
//! the command line, `.bin` and Parquet files) turn any input into a value or a one-line error,
//! never a panic. proptest drives them for a bounded number of cases; Parquet inputs are valid
//! files (written here, plus native/tests/corpus/*.parquet) mutated byte by byte, which reaches
//! the footer and page decoders that random bytes never get past the magic to.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use proptest::prelude::*;

use crate::input::{load_keys, write_keys};
use memwall_core::size::parse_count;

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_a_count_or_an_error(text in ".{0,40}") {
        if let Err(e) = parse_count(&text) {
            prop_assert!(e.starts_with("invalid count") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn number_and_suffix_shapes_are_a_count_or_an_error(
        number in "-?[0-9_,]{0,25}(\\.[0-9]{0,6})?(e-?[0-9]{1,3})?",
        suffix in prop::sample::select(&["", "k", "K", "M", "G", "Ki", "Mi", "Gi", "T", "x", "mi", "KiB"][..]),
    ) {
        let _ = parse_count(&format!("{number}{suffix}"));
    }

    #[test]
    fn whole_counts_read_exactly(n in any::<u64>()) {
        prop_assert_eq!(parse_count(&n.to_string()), Ok(n));
        let millions = format!("{n}M");
        match n.checked_mul(1_000_000) {
            Some(scaled) => prop_assert_eq!(parse_count(&millions), Ok(scaled)),
            None => prop_assert!(parse_count(&millions).is_err()),
        }
    }
}

/// What must hold for any input file: keys or a one-line error, never a panic.
fn load_any(path: &Path) -> Option<Vec<i64>> {
    match load_keys(path, None) {
        Ok(loaded) => Some(loaded.keys),
        Err(e) => {
            assert!(!e.message.contains('\n'), "not one line: {:?}", e.message);
            assert!(e.message.starts_with("--input "), "{:?}", e.message);
            None
        }
    }
}

/// Valid Parquet files to mutate, made once per test process.
fn parquet_seeds() -> &'static [Vec<u8>] {
    static SEEDS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(make_parquet_seeds)
}

fn make_parquet_seeds() -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let mut seeds = Vec::new();
    for (name, keys) in [("one.parquet", vec![7i64]), ("many.parquet", (0..3000).map(|i| i * 7919 - 100).collect())] {
        let path = dir.path().join(name);
        write_keys(&path, &keys, "key").unwrap();
        seeds.push(std::fs::read(&path).unwrap());
    }
    // Other shapes reach other decoders: definition levels (nullable), dictionary pages, narrow
    // integers, a second column.
    let path = dir.path().join("shapes.parquet");
    let nullable: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(1), Some(-5)]));
    let narrow: ArrayRef = Arc::new(Int32Array::from(vec![3, 3, 3, 4]));
    let schema = Arc::new(Schema::new(vec![
        Field::new("nullable", DataType::Int64, true),
        Field::new("narrow", DataType::Int32, false),
    ]));
    let batch = RecordBatch::try_new(schema.clone(), vec![nullable, narrow]).unwrap();
    let props = WriterProperties::builder().set_dictionary_enabled(true).build();
    let mut writer = ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    seeds.push(std::fs::read(&path).unwrap());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in [manifest.join("tests/corpus"), manifest.join("src/input/fixtures")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        seeds.extend(
            files.iter().filter(|p| p.extension().is_some_and(|e| e == "parquet")).map(|p| std::fs::read(p).unwrap()),
        );
    }
    seeds
}

#[test]
fn the_corpus_reads_without_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed.parquet");
    for seed in parquet_seeds() {
        std::fs::write(&path, seed).unwrap();
        load_any(&path);
    }
}

/// Cases per run of the file readers: the test command's budget (a few seconds here);
/// `PROPTEST_CASES=100000` searches longer by hand.
fn reader_cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(reader_cases()))]

    #[test]
    fn any_bytes_as_bin_are_keys_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.bin");
        std::fs::write(&path, &bytes).unwrap();
        let loaded = load_any(&path);
        if bytes.is_empty() || bytes.len() % 8 != 0 {
            prop_assert!(loaded.is_none());
        } else {
            let expected: Vec<i64> = bytes.chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap())).collect();
            prop_assert_eq!(loaded, Some(expected));
        }
    }

    #[test]
    fn mutated_parquet_is_keys_or_an_error(
        seed in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
        cut in prop::option::weighted(0.2, any::<prop::sample::Index>()),
    ) {
        let seeds = parquet_seeds();
        let mut bytes = seeds[seed.index(seeds.len())].clone();
        for (at, value, how) in edits {
            let at = at.index(bytes.len());
            match how {
                0 => bytes[at] = value,
                1 => bytes[at] ^= value,
                // Byte values that are lengths and counts in Thrift: stretch or shrink them.
                _ => bytes[at] = bytes[at].wrapping_add(value % 4).wrapping_sub(2),
            }
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len()));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.parquet");
        std::fs::write(&path, &bytes).unwrap();
        load_any(&path);
    }
}
