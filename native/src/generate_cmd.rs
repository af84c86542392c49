//! `memwall generate`: writes the keys `memwall groupby` would generate to a file, so that other
//! engines (bench/compare.py feeds DuckDB and ClickHouse) can group exactly the same rows.
//!
//! The flags and their meaning match `memwall groupby`'s data flags: the same preset, rows,
//! keys, skew and seed give the same keys in the same order (the generator depends only on its
//! spec, never on how many threads ran it).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use memwall_core::groupby::datagen::{self, DataSpec, Skew};
use memwall_core::size::format_bytes;

use crate::groupby_cmd::{parse_count, spinner};
use crate::threads::Threads;
use crate::{CliError, CliResult, input, platform};

/// What to generate: a preset, or rows/keys/skew; and the seed.
#[derive(Debug, Clone, Args)]
pub struct GenArgs {
    /// A named data set: small (10,000,000 rows, 1,700,000 keys) or clickbench (99,997,497 rows,
    /// 17,630,976 keys, shaped like ClickBench's hits.UserID). The default without --rows.
    #[arg(long, value_parser = parse_preset, conflicts_with_all = ["rows", "keys", "skew"])]
    pub preset: Option<String>,
    /// Rows to generate (e.g. 100000000, 100M, 1.5G).
    #[arg(long, value_parser = parse_count, requires = "keys")]
    pub rows: Option<u64>,
    /// Distinct keys to generate; each appears in at least one row (e.g. 17630976, 17.6M).
    #[arg(long, value_parser = parse_count, requires = "rows")]
    pub keys: Option<u64>,
    /// How generated rows spread over keys: uniform, or zipf:S (key i weighs (i+1)^-S).
    #[arg(long, value_parser = Skew::parse)]
    pub skew: Option<Skew>,
    /// Seed of the generator: the same seed gives the same rows.
    #[arg(long, default_value_t = datagen::DEFAULT_SEED)]
    pub seed: u64,
}

impl GenArgs {
    /// The checked spec, and the preset's name when one was used (the `small` preset when
    /// neither a preset nor rows were given, as in `memwall groupby`).
    pub fn spec(&self) -> CliResult<(DataSpec, Option<String>)> {
        let (spec, preset) = match (&self.preset, self.rows, self.keys) {
            (Some(name), _, _) => (preset_spec(name)?, Some(name.clone())),
            (None, Some(rows), Some(keys)) => {
                (DataSpec { rows, keys, skew: self.skew.unwrap_or(Skew::Uniform), seed: self.seed }, None)
            }
            _ => (preset_spec("small")?, Some("small".to_string())),
        };
        let spec = DataSpec { seed: self.seed, ..spec };
        spec.check().map_err(|e| CliError::usage(format!("{}: {e}", describe(&spec, preset.as_deref()))))?;
        Ok((spec, preset))
    }
}

fn preset_spec(name: &str) -> CliResult<DataSpec> {
    datagen::preset(name).ok_or_else(|| CliError::usage(format!("unknown preset '{name}'")))
}

fn parse_preset(name: &str) -> Result<String, String> {
    datagen::preset(name)
        .map(|_| name.trim().to_ascii_lowercase())
        .ok_or_else(|| format!("unknown preset '{name}': expected {}", datagen::PRESETS.join(" or ")))
}

fn describe(spec: &DataSpec, preset: Option<&str>) -> String {
    match preset {
        Some(name) => format!("--preset {name}"),
        None => format!("--rows {} --keys {}", spec.rows, spec.keys),
    }
}

#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub data: GenArgs,
    /// Where to write the keys: FILE.parquet (one Int64 column, snappy) or FILE.bin (raw
    /// little-endian i64, 8 bytes a row, nothing else).
    #[arg(long, value_name = "FILE.parquet|FILE.bin")]
    pub out: PathBuf,
    /// Name of the Parquet column (ignored for .bin).
    #[arg(long, default_value = "key")]
    pub column: String,
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
    platform::check_fits_in_memory(
        spec.bytes().saturating_add(WRITE_OVERHEAD_BYTES),
        &describe(&spec, preset.as_deref()),
    )?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let exec = Threads::new(threads, None)?;

    let started = std::time::Instant::now();
    let bar = spinner(format!("generating {} rows over {} keys", spec.rows, spec.keys));
    let keys = datagen::generate_with(&spec, &exec).map_err(|e| CliError::usage(e.to_string()))?;
    bar.set_message(format!("writing {}", args.out.display()));
    input::write_keys(&args.out, &keys, &args.column)?;
    bar.finish_and_clear();

    let bytes = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    let what = match &preset {
        Some(name) => format!("{name} preset"),
        None => spec.skew.name(),
    };
    writeln!(
        out,
        "wrote {} rows over {} keys ({what}, seed {}) to {} ({}) in {:.1} s",
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

    fn gen_args(rows: u64, keys: u64, seed: u64) -> GenArgs {
        GenArgs { preset: None, rows: Some(rows), keys: Some(keys), skew: Some(Skew::Zipf(0.5)), seed }
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
            let args = GenerateArgs { data: data.clone(), out: out.clone(), column: "UserID".into(), threads: Some(2) };
            generate_to(args, &mut said).unwrap();
            let said = String::from_utf8(said).unwrap();
            assert!(said.starts_with("wrote 50000 rows over 7000 keys (zipf:0.5, seed 9) to "), "{said}");
            let loaded = input::load_keys(&out, Some("UserID")).unwrap();
            assert_eq!(loaded.keys, expected, "{name}");
        }
    }

    #[test]
    fn presets_and_defaults_resolve_like_groupby() {
        let args = GenArgs { preset: Some("clickbench".into()), rows: None, keys: None, skew: None, seed: 5 };
        let (spec, preset) = args.spec().unwrap();
        assert_eq!(
            (spec.rows, spec.keys, spec.seed, preset.as_deref()),
            (99_997_497, 17_630_976, 5, Some("clickbench"))
        );
        let none = GenArgs { preset: None, rows: None, keys: None, skew: None, seed: datagen::DEFAULT_SEED };
        assert_eq!(none.spec().unwrap().0, datagen::preset("small").unwrap());
    }

    #[test]
    fn bad_specs_and_outputs_are_usage_errors() {
        let err = gen_args(10, 11, 1).spec().unwrap_err();
        assert_eq!(err.code, 2);
        assert!(err.message.starts_with("--rows 10 --keys 11: "), "{}", err.message);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("keys.csv");
        let err =
            generate(GenerateArgs { data: gen_args(10, 3, 1), out: out.clone(), column: "key".into(), threads: None })
                .unwrap_err();
        assert_eq!(err.code, 2);
        assert!(!out.exists());
    }
}
