//! `memwall generate`: writes the keys `memwall groupby` would generate to a file, so that other
//! engines (bench/compare.py feeds DuckDB and ClickHouse) can group exactly the same rows.
//!
//! With `--build-out` it also writes a join's build side, so that `bench/compare.py --join` can
//! give the engines the very build and probe sides `memwall join` generates in memory.
//!
//! The flags and their meaning match `memwall groupby`'s data flags: the same preset, rows,
//! keys, skew and seed give the same keys in the same order (the generator depends only on its
//! spec, never on how many threads ran it).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use memwall_core::datagen;
use memwall_core::join::{self, BuildRow};
use memwall_core::size::format_bytes;

use crate::dataset::{GenArgs, describe_flags, spinner};
use crate::error::{CliError, CliResult};
use crate::threads::Threads;
use crate::{input, platform};

#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub data: GenArgs,
    /// Where to write the rows: FILE.parquet (an Int64 key column and a value column of
    /// --value-type, snappy) or FILE.bin (keys only: raw
    /// little-endian i64, 8 bytes a row, nothing else).
    #[arg(long, value_name = "FILE.parquet|FILE.bin")]
    pub out: PathBuf,
    /// Name of the Parquet key column (ignored for .bin).
    #[arg(long, default_value = "key")]
    pub column: String,
    /// Name of the Parquet value column (ignored for .bin).
    #[arg(long, default_value = "value")]
    pub value_column: String,
    /// Also write the join's build side to FILE.parquet: the --keys distinct keys, each with
    /// its 8-byte payload (columns --column, Int64, and --payload-column, UInt64), exactly as
    /// `memwall join` generates them from the same preset or sizes and seed; the rows written to
    /// --out are then that join's probe side (`memwall join` with the same --miss-rate).
    #[arg(long, value_name = "FILE.parquet")]
    pub build_out: Option<PathBuf>,
    /// With --build-out: a share (0 to 1) of the probe rows in --out replaced by keys absent
    /// from the build side, the very rows `memwall join --miss-rate` probes with.
    #[arg(long, default_value_t = 0.0, requires = "build_out", value_parser = crate::race_args::parse_rate)]
    pub miss_rate: f64,
    /// Name of the build side's payload column (with --build-out).
    #[arg(long, default_value = "payload", requires = "build_out")]
    pub payload_column: String,
    /// Threads that shuffle while generating (the keys are the same for any count); default:
    /// every CPU this process may use.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Writer buffers on top of the keys: one 1M-row Arrow batch, the Parquet row group being
/// encoded, and I/O buffers; generously rounded.
const WRITE_OVERHEAD_BYTES: u64 = 64 << 20;

pub fn generate(args: GenerateArgs) -> CliResult {
    generate_to(args, &mut std::io::stdout())
}

/// `generate`, with the one-line summary going to `out`.
fn generate_to(args: GenerateArgs, out: &mut dyn Write) -> CliResult {
    let (spec, preset) = args.data.spec()?;
    let ext = args.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("parquet" | "parq" | "pq" | "bin")) {
        return Err(CliError::usage(format!(
            "--out {}: the file name must end in .parquet or .bin",
            args.out.display()
        )));
    }
    // Parquet gets the value column too (it is the engines' format); .bin holds keys only.
    let with_values = !matches!(ext.as_deref(), Some("bin"));
    let value_bytes = if with_values { spec.bytes() } else { 0 };
    let build_bytes = if args.build_out.is_some() { spec.keys.saturating_mul(size_of::<BuildRow>() as u64) } else { 0 };
    if let Some(build_out) = &args.build_out
        && build_out == &args.out
    {
        return Err(CliError::usage("--build-out must name another file than --out"));
    }
    platform::check_fits_in_memory(
        spec.bytes().saturating_add(value_bytes).saturating_add(build_bytes).saturating_add(WRITE_OVERHEAD_BYTES),
        &describe_flags(&spec, preset.as_deref()),
    )?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let exec = Threads::new(threads, None)?;

    let started = std::time::Instant::now();
    let bar = spinner(format!("generating {} rows over {} keys", spec.rows, spec.keys));
    // The join's probe side is the GROUP BY keys with a share of rows replaced by missing keys
    // (none at --miss-rate 0, where the two generators give the same rows).
    let (mut keys, misses, build) = if args.miss_rate > 0.0 {
        let data = join::data::generate_with(&join::data::JoinSpec { data: spec, miss_rate: args.miss_rate }, &exec)
            .map_err(|e| CliError::usage(e.to_string()))?;
        (data.probe, Some(data.misses), Some(data.build))
    } else {
        (datagen::generate_with(&spec, &exec).map_err(|e| CliError::usage(e.to_string()))?, None, None)
    };
    // The rows' order and heavy key (a join's probe side keeps its own: its misses are by row).
    if misses.is_none() {
        args.data.shape().apply(&mut keys, spec.seed);
    }
    let values =
        with_values.then(|| memwall_core::groupby::values::generate_values(&spec, args.data.value_type, &exec));
    bar.set_message(format!("writing {}", args.out.display()));
    input::write_rows(&args.out, &keys, &args.column, values.as_ref().map(|v| (args.value_column.as_str(), v)))?;
    drop(values);
    if let Some(build_out) = &args.build_out {
        bar.set_message(format!("writing the build side to {}", build_out.display()));
        let build = build.unwrap_or_else(|| join::data::build_side(spec.keys, spec.seed));
        input::write_build_side(build_out, &build, &args.column, &args.payload_column)?;
    }
    bar.finish_and_clear();

    let bytes = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    let what = match &preset {
        Some(name) => format!("{name} preset"),
        None => spec.skew.name(),
    };
    let missing = match misses {
        Some(misses) => format!(", {misses} of them replaced by keys not on the build side"),
        None => String::new(),
    };
    let build = match &args.build_out {
        Some(path) => format!(
            "{missing}, and the join's build side ({} keys with payloads) to {} ({})",
            spec.keys,
            path.display(),
            format_bytes(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
        ),
        None => String::new(),
    };
    writeln!(
        out,
        "wrote {} rows over {} keys ({what}, seed {}) to {} ({}){build} in {:.1} s",
        spec.rows,
        spec.keys,
        spec.seed,
        args.out.display(),
        format_bytes(bytes),
        started.elapsed().as_secs_f64()
    )
    .map_err(|e| CliError::runtime(format!("writing to stdout: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_core::datagen::Skew;
    use memwall_core::groupby::ValueType;

    fn gen_args(rows: u64, keys: u64, seed: u64) -> GenArgs {
        GenArgs {
            preset: None,
            rows: Some(rows),
            keys: Some(keys),
            skew: Some(Skew::Zipf(0.5)),
            seed,
            ..GenArgs::preset("small")
        }
    }

    #[test]
    fn written_keys_are_the_generator_keys_in_both_formats() {
        let dir = tempfile::tempdir().unwrap();
        let data = gen_args(50_000, 7_000, 9);
        let (spec, _) = data.spec().unwrap();
        let expected = datagen::generate(&spec).unwrap();
        for name in ["k.parquet", "k.bin"] {
            let out = dir.path().join(name);
            let mut said = Vec::new();
            let args = GenerateArgs {
                data: data.clone(),
                out: out.clone(),
                column: "UserID".into(),
                value_column: "Price".into(),
                build_out: None,
                payload_column: "payload".into(),
                miss_rate: 0.0,
                threads: Some(2),
            };
            generate_to(args, &mut said).unwrap();
            let said = String::from_utf8(said).unwrap();
            assert!(said.starts_with("wrote 50000 rows over 7000 keys (zipf:0.5, seed 9) to "), "{said}");
            let loaded = input::load_keys(&out, Some("UserID")).unwrap();
            assert_eq!(loaded.keys, expected, "{name}");
        }
        // Parquet carries the value column, of the type asked for; .bin holds keys only.
        for value_type in [ValueType::I64, ValueType::F64] {
            let out = dir.path().join("v.parquet");
            let data = GenArgs { value_type, ..data.clone() };
            let args = GenerateArgs {
                data,
                out: out.clone(),
                column: "k".into(),
                value_column: "v".into(),
                build_out: None,
                payload_column: "payload".into(),
                miss_rate: 0.0,
                threads: Some(2),
            };
            generate_to(args, &mut Vec::new()).unwrap();
            let values = input::load_values(&out, "v").unwrap();
            assert_eq!(
                values,
                memwall_core::groupby::values::generate_values(
                    &spec,
                    value_type,
                    &crate::threads::Threads::new(1, None).unwrap()
                )
            );
        }
        let err = input::load_values(&dir.path().join("k.bin"), "v").unwrap_err();
        assert!(err.message.contains("keys only"), "{}", err.message);
    }

    #[test]
    fn bad_specs_and_outputs_are_usage_errors() {
        let err = gen_args(10, 11, 1).spec().unwrap_err();
        assert_eq!(err.code, 2);
        assert!(err.message.starts_with("--rows 10 --keys 11: "), "{}", err.message);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("keys.csv");
        let err = generate(GenerateArgs {
            data: gen_args(10, 3, 1),
            out: out.clone(),
            column: "key".into(),
            value_column: "value".into(),
            build_out: None,
            payload_column: "payload".into(),
            miss_rate: 0.0,
            threads: None,
        })
        .unwrap_err();
        assert_eq!(err.code, 2);
        assert!(!out.exists());
        for (build_out, said) in [("keys.parquet", "another file"), ("build.bin", "must end in .parquet")] {
            let err = generate(GenerateArgs {
                data: gen_args(10, 3, 1),
                out: dir.path().join("keys.parquet"),
                column: "key".into(),
                value_column: "value".into(),
                build_out: Some(dir.path().join(build_out)),
                payload_column: "payload".into(),
                miss_rate: 0.0,
                threads: None,
            })
            .unwrap_err();
            assert_eq!(err.code, 2, "{}", err.message);
            assert!(err.message.contains(said), "{}", err.message);
        }
    }

    /// The files `--build-out` writes are the very sides `memwall join` generates from the same
    /// flags: the engines in bench/ join exactly what memwall joins.
    #[test]
    fn join_sides_are_the_join_generator_sides() {
        let dir = tempfile::tempdir().unwrap();
        let data = gen_args(40_000, 6_000, 11);
        let (spec, _) = data.spec().unwrap();
        let expected = join::data::generate(&join::data::JoinSpec { data: spec, miss_rate: 0.0 }).unwrap();
        let (probe, build) = (dir.path().join("probe.parquet"), dir.path().join("build.parquet"));
        // Both sides written to `probe` and `build`, a share `miss_rate` of the probe rows missing.
        let write_sides = |miss_rate: f64| -> String {
            let args = GenerateArgs {
                data: data.clone(),
                out: probe.clone(),
                column: "key".into(),
                value_column: "value".into(),
                build_out: Some(build.clone()),
                payload_column: "payload".into(),
                miss_rate,
                threads: Some(2),
            };
            let mut said = Vec::new();
            generate_to(args, &mut said).unwrap();
            String::from_utf8(said).unwrap()
        };
        let said = write_sides(0.0);
        assert!(said.contains("and the join's build side (6000 keys with payloads)"), "{said}");
        assert_eq!(input::load_keys(&probe, Some("key")).unwrap().keys, expected.probe);
        let keys = input::load_keys(&build, Some("key")).unwrap().keys;
        // The loader reads a UInt64 column as the i64 with the same bits.
        let payloads = input::load_keys(&build, Some("payload")).unwrap().keys;
        let rows: Vec<BuildRow> =
            keys.iter().zip(&payloads).map(|(&key, &payload)| BuildRow { key, payload: payload as u64 }).collect();
        assert_eq!(rows, expected.build);
        let file = std::fs::File::open(&build).unwrap();
        let reader = parquet::file::reader::SerializedFileReader::new(file).unwrap();
        use parquet::file::reader::FileReader;
        let schema = reader.metadata().file_metadata().schema_descr();
        let payload = schema.columns().iter().find(|c| c.name() == "payload").unwrap();
        assert_eq!(payload.converted_type(), parquet::basic::ConvertedType::UINT_64, "unsigned for the engines");

        // With a miss rate, the probe rows are `memwall join --miss-rate`'s, misses included.
        let expected = join::data::generate(&join::data::JoinSpec { data: spec, miss_rate: 0.25 }).unwrap();
        assert!(expected.misses > 5_000, "about a quarter of 40,000 rows miss: {}", expected.misses);
        let said = write_sides(0.25);
        assert!(
            said.contains(&format!("{} of them replaced by keys not on the build side", expected.misses)),
            "{said}"
        );
        assert_eq!(input::load_keys(&probe, Some("key")).unwrap().keys, expected.probe);
    }
}
