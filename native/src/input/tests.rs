use super::*;

use arrow_array::{ArrayRef, Float64Array, Int32Array, StringArray, UInt8Array, UInt64Array};
use parquet::basic::{GzipLevel, ZstdLevel};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Keys that exercise sign, extremes and repeats.
fn sample_keys() -> Vec<i64> {
    let mut keys = vec![0, -1, 1, i64::MIN, i64::MAX, 42, 42, -42];
    keys.extend((0..10_000).map(|i: i64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64)));
    keys
}

/// Writes a Parquet file with the given columns (all in one batch) and codec.
fn write_columns(path: &Path, columns: Vec<(&str, ArrayRef, bool)>, compression: Compression) {
    let fields: Vec<Field> =
        columns.iter().map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable)).collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|(_, a, _)| a).collect()).unwrap();
    let props = WriterProperties::builder().set_compression(compression).build();
    let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

fn message(result: Result<LoadedKeys, CliError>) -> (String, u8) {
    let err = result.expect_err("expected an error");
    assert!(!err.message.contains('\n'), "error is not one line: {:?}", err.message);
    (err.message, err.code)
}

#[test]
fn parquet_round_trip() {
    let dir = dir();
    let path = dir.path().join("keys.parquet");
    let keys = sample_keys();
    write_keys(&path, &keys, "UserID").unwrap();
    let loaded = load_keys(&path, Some("UserID")).unwrap();
    assert_eq!(loaded.format, "parquet");
    assert_eq!(loaded.keys, keys);
    // One column: the name may be left out.
    assert_eq!(load_keys(&path, None).unwrap().keys, keys);
}

#[test]
fn parquet_round_trip_spans_several_write_and_read_batches() {
    let dir = dir();
    let path = dir.path().join("big.parquet");
    let keys: Vec<i64> = (0..(WRITE_BATCH_ROWS as i64 + BATCH_ROWS as i64 + 7)).map(|i| i * 3 - 5).collect();
    write_keys(&path, &keys, "key").unwrap();
    let loaded = load_keys(&path, Some("key")).unwrap();
    assert_eq!(loaded.keys.len(), keys.len());
    assert_eq!(loaded.keys, keys);
}

#[test]
fn bin_round_trip() {
    let dir = dir();
    let path = dir.path().join("keys.bin");
    let keys = sample_keys();
    write_keys(&path, &keys, "ignored").unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), keys.len() as u64 * 8);
    // Little-endian on disk, whatever the host.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..8], &0i64.to_le_bytes());
    assert_eq!(&bytes[24..32], &i64::MIN.to_le_bytes());
    let loaded = load_keys(&path, None).unwrap();
    assert_eq!(loaded.format, "bin");
    assert_eq!(loaded.keys, keys);
}

#[test]
fn bin_wins_over_parquet_magic() {
    // A raw key file whose first key happens to spell PAR1 is still raw keys.
    let dir = dir();
    let path = dir.path().join("par1.bin");
    let first = i64::from_le_bytes(*b"PAR1\0\0\0\0");
    write_keys(&path, &[first, 7], "key").unwrap();
    assert_eq!(load_keys(&path, None).unwrap().keys, vec![first, 7]);
}

#[test]
fn parquet_is_detected_by_magic_whatever_the_extension() {
    let dir = dir();
    let path = dir.path().join("keys.parquet");
    write_keys(&path, &[5, 6, 5], "k").unwrap();
    let renamed = dir.path().join("keys.data");
    std::fs::rename(&path, &renamed).unwrap();
    let loaded = load_keys(&renamed, Some("k")).unwrap();
    assert_eq!((loaded.format, loaded.keys), ("parquet", vec![5, 6, 5]));
}

#[test]
fn narrower_and_unsigned_columns_are_accepted() {
    let dir = dir();
    let path = dir.path().join("types.parquet");
    let u64s: ArrayRef = Arc::new(UInt64Array::from(vec![0, u64::MAX, 1 << 63, 7]));
    let i32s: ArrayRef = Arc::new(Int32Array::from(vec![i32::MIN, -1, 0, i32::MAX]));
    let u8s: ArrayRef = Arc::new(UInt8Array::from(vec![0, 1, 200, 255]));
    write_columns(&path, vec![("u", u64s, false), ("i", i32s, false), ("b", u8s, false)], Compression::SNAPPY);
    // UInt64 keeps its bits: u64::MAX reads as -1, 2^63 as i64::MIN.
    assert_eq!(load_keys(&path, Some("u")).unwrap().keys, vec![0, -1, i64::MIN, 7]);
    assert_eq!(load_keys(&path, Some("i")).unwrap().keys, vec![i64::from(i32::MIN), -1, 0, i64::from(i32::MAX)]);
    assert_eq!(load_keys(&path, Some("b")).unwrap().keys, vec![0, 1, 200, 255]);
}

#[test]
fn every_built_in_codec_reads() {
    let dir = dir();
    let keys = sample_keys();
    let codecs = [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::GZIP(GzipLevel::default()),
        Compression::LZ4,
        Compression::LZ4_RAW,
        Compression::ZSTD(ZstdLevel::default()),
    ];
    for codec in codecs {
        let path = dir.path().join(format!("{codec:?}.parquet").replace(['(', ')', ' ', '{', '}', ':'], "_"));
        write_columns(&path, vec![("key", Arc::new(Int64Array::from(keys.clone())), false)], codec);
        assert_eq!(load_keys(&path, Some("key")).unwrap().keys, keys, "{codec:?}");
    }
}

#[test]
fn a_codec_left_out_of_the_build_is_named() {
    let dir = dir();
    let path = dir.path().join("brotli.parquet");
    // Eight keys written by pyarrow with brotli (the writer here cannot: brotli is not built in).
    std::fs::write(&path, include_bytes!("fixtures/brotli.parquet")).unwrap();
    let (text, code) = message(load_keys(&path, Some("key")));
    assert_eq!(code, 2);
    assert!(text.contains("column \"key\" is compressed with brotli, which this build"), "{text}");
}

#[test]
fn wrong_column_types_are_refused_by_name_and_type() {
    let dir = dir();
    let path = dir.path().join("mixed.parquet");
    let names: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
    let prices: ArrayRef = Arc::new(Float64Array::from(vec![1.5, 2.5]));
    write_columns(&path, vec![("URL", names, false), ("Price", prices, false)], Compression::SNAPPY);
    let (text, code) = message(load_keys(&path, Some("URL")));
    assert_eq!(code, 2);
    assert!(text.contains("column \"URL\" is Utf8"), "{text}");
    let (text, code) = message(load_keys(&path, Some("Price")));
    assert_eq!(code, 2);
    assert!(text.contains("column \"Price\" is Float64"), "{text}");
}

#[test]
fn missing_column_lists_what_is_there() {
    let dir = dir();
    let path = dir.path().join("two.parquet");
    let a: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let b: ArrayRef = Arc::new(Int64Array::from(vec![3, 4]));
    write_columns(&path, vec![("WatchID", a, false), ("UserID", b, false)], Compression::SNAPPY);
    let (text, code) = message(load_keys(&path, Some("userid")));
    assert_eq!(code, 2);
    assert!(text.contains("no column \"userid\"") && text.contains("WatchID, UserID"), "{text}");
    // Two columns and none named: ask for one.
    let (text, _) = message(load_keys(&path, None));
    assert!(text.contains("--column") && text.contains("WatchID, UserID"), "{text}");
    assert_eq!(load_keys(&path, Some("UserID")).unwrap().keys, vec![3, 4]);
}

#[test]
fn a_long_column_list_is_truncated() {
    let dir = dir();
    let path = dir.path().join("wide.parquet");
    let names: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
    let columns: Vec<(&str, ArrayRef, bool)> =
        names.iter().map(|n| (n.as_str(), Arc::new(Int64Array::from(vec![1])) as ArrayRef, false)).collect();
    write_columns(&path, columns, Compression::SNAPPY);
    let (text, _) = message(load_keys(&path, Some("nope")));
    assert!(text.contains("c11") && !text.contains("c12,") && text.contains("and 28 more"), "{text}");
}

#[test]
fn nulls_are_refused_but_a_nullable_column_without_nulls_loads() {
    let dir = dir();
    let path = dir.path().join("nulls.parquet");
    let with_nulls: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None, Some(3), None]));
    let no_nulls: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), Some(2), Some(3), Some(4)]));
    write_columns(&path, vec![("a", with_nulls, true), ("b", no_nulls, true)], Compression::SNAPPY);
    let (text, code) = message(load_keys(&path, Some("a")));
    assert_eq!(code, 2);
    assert!(text.contains("column \"a\" holds 2 nulls"), "{text}");
    assert_eq!(load_keys(&path, Some("b")).unwrap().keys, vec![1, 2, 3, 4]);
}

#[test]
fn nulls_are_refused_without_statistics_too() {
    let dir = dir();
    let path = dir.path().join("nostats.parquet");
    let array: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), None]));
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let props =
        WriterProperties::builder().set_statistics_enabled(parquet::file::properties::EnabledStatistics::None).build();
    let mut writer = ArrowWriter::try_new(File::create(&path).unwrap(), schema.clone(), Some(props)).unwrap();
    writer.write(&RecordBatch::try_new(schema, vec![array]).unwrap()).unwrap();
    writer.close().unwrap();
    let (text, code) = message(load_keys(&path, Some("a")));
    assert_eq!(code, 2);
    assert!(text.contains("column \"a\" holds nulls"), "{text}");
}

#[test]
fn truncated_bin_is_refused() {
    let dir = dir();
    let path = dir.path().join("cut.bin");
    std::fs::write(&path, [0u8; 8 * 3 + 5]).unwrap();
    let (text, code) = message(load_keys(&path, None));
    assert_eq!(code, 2);
    assert!(text.contains("29 bytes is not a whole number of 8-byte keys"), "{text}");
}

#[test]
fn garbage_is_refused() {
    let dir = dir();
    let junk = b"this is not a parquet file, just some text that goes on for a while".to_vec();
    let as_parquet = dir.path().join("junk.parquet");
    std::fs::write(&as_parquet, &junk).unwrap();
    let (text, code) = message(load_keys(&as_parquet, None));
    assert_eq!(code, 2);
    assert!(text.contains("not a Parquet file"), "{text}");

    let unknown = dir.path().join("junk.csv");
    std::fs::write(&unknown, &junk).unwrap();
    let (text, code) = message(load_keys(&unknown, None));
    assert_eq!(code, 2);
    assert!(text.contains("unknown format"), "{text}");

    // Right magic at the front, nothing valid behind it.
    let fake = dir.path().join("fake.parquet");
    std::fs::write(&fake, b"PAR1 and then garbage where the footer should be").unwrap();
    let (text, code) = message(load_keys(&fake, None));
    assert_eq!(code, 2);
    assert!(text.contains("not a readable Parquet file"), "{text}");

    // A real file cut short loses its footer.
    let real = dir.path().join("real.parquet");
    write_keys(&real, &sample_keys(), "key").unwrap();
    let bytes = std::fs::read(&real).unwrap();
    std::fs::write(&real, &bytes[..bytes.len() / 2]).unwrap();
    let (text, code) = message(load_keys(&real, Some("key")));
    assert_eq!(code, 2);
    assert!(text.contains("not a readable Parquet file"), "{text}");
}

#[test]
fn empty_inputs_are_refused() {
    let dir = dir();
    for (name, expected) in
        [("e.bin", "empty: no keys"), ("e.parquet", "empty, not a Parquet file"), ("e", "unknown format")]
    {
        let path = dir.path().join(name);
        std::fs::write(&path, b"").unwrap();
        let (text, code) = message(load_keys(&path, None));
        assert_eq!(code, 2);
        assert!(text.contains(expected), "{name}: {text}");
    }
    // A valid Parquet file with zero rows.
    let path = dir.path().join("zero.parquet");
    write_keys(&path, &[], "key").unwrap();
    let (text, code) = message(load_keys(&path, Some("key")));
    assert_eq!(code, 2);
    assert!(text.contains("no rows"), "{text}");
}

#[test]
fn missing_file_and_directory_are_refused() {
    let dir = dir();
    let (text, code) = message(load_keys(&dir.path().join("nope.parquet"), Some("key")));
    assert_eq!(code, 2);
    assert!(text.ends_with("nope.parquet: no such file"), "{text}");
    let (text, code) = message(load_keys(dir.path(), None));
    assert_eq!(code, 2);
    assert!(text.contains("not a regular file"), "{text}");
}

#[test]
fn writer_refuses_unknown_extensions_and_leaves_nothing() {
    let dir = dir();
    let path = dir.path().join("keys.csv");
    let err = write_keys(&path, &[1], "key").unwrap_err();
    assert_eq!(err.code, 2);
    assert!(err.message.contains("must end in .parquet or .bin"), "{}", err.message);
    assert!(!path.exists());
    let err = write_keys(&dir.path().join("no-such-dir/keys.bin"), &[1], "key").unwrap_err();
    assert_eq!(err.code, 1);
}

#[test]
fn a_footer_with_a_negative_chunk_length_is_refused_not_a_panic() {
    // Found by native/src/fuzz.rs: one byte of a valid file's footer changed.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/negative-chunk-length.parquet");
    let (text, code) = message(load_keys(&path, None));
    assert_eq!(code, 2);
    assert!(
        text.contains("not a readable Parquet file: column chunk 0 of row group 0 lies outside the file"),
        "{text}"
    );
}

/// Found by the Parquet fuzzer: a column name with a newline broke the one-line error.
#[test]
fn column_names_with_control_characters_stay_on_one_line() {
    let listed = super::list_columns(&["nullable", "n\nrrow", "plain"]);
    assert_eq!(listed, "nullable, \"n\\nrrow\", plain");
}
