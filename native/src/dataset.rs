//! The keys a command works on, from the command line: a preset or generator parameters
//! (`GenArgs`, shared by `groupby`, `sweep` and `generate`, so that the same flags always mean
//! the same rows), or a file (`DataArgs`). Everything large is refused before it is allocated.

use std::path::PathBuf;

use clap::Args;
use indicatif::ProgressBar;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::exec::Executor;
use memwall_core::groupby::{self, ValueColumn, ValueType};
use memwall_core::shape::{Order, Shape, parse_heavy_share};
use memwall_core::size::parse_count;
use memwall_report::{Dataset, Generator, Input};

use crate::error::{CliError, CliResult};
use crate::platform;

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
    /// Type of the generated value column (read by --agg sum, min, max, avg; written by
    /// `generate`): i64 (uniform in +-1e9) or f64 (the same integers in thousandths).
    #[arg(long, default_value = "i64", value_parser = ValueType::parse)]
    pub value_type: ValueType,
    /// Order of the generated rows: shuffled, sessions (each key's rows in runs of 1-8, the
    /// runs shuffled), first-seen (every key once, then the repeats) or sorted.
    #[arg(long, default_value = "shuffled", value_parser = Order::parse)]
    pub order: Order,
    /// Share of the generated rows (0 to below 1) given to one heavy key, taken from the
    /// repeats of the others (every key keeps a row).
    #[arg(long, default_value_t = 0.0, value_parser = parse_heavy_share)]
    pub heavy: f64,
}

impl GenArgs {
    /// The rows' order and heavy key.
    pub fn shape(&self) -> Shape {
        Shape { order: self.order, heavy_share: self.heavy }
    }

    /// A named preset with the default seed.
    pub fn preset(name: &str) -> Self {
        Self {
            preset: Some(name.into()),
            rows: None,
            keys: None,
            skew: None,
            seed: datagen::DEFAULT_SEED,
            value_type: ValueType::I64,
            order: Order::Shuffled,
            heavy: 0.0,
        }
    }

    /// The checked spec, and the preset's name when one was used (the `small` preset when
    /// neither a preset nor rows were given).
    pub fn spec(&self) -> CliResult<(DataSpec, Option<String>)> {
        let (spec, preset) = match (&self.preset, self.rows, self.keys) {
            (Some(name), _, _) => (preset_spec(name)?, Some(name.clone())),
            (None, Some(rows), Some(keys)) => {
                (DataSpec { rows, keys, skew: self.skew.unwrap_or(Skew::Uniform), seed: self.seed }, None)
            }
            _ => (preset_spec("small")?, Some("small".to_string())),
        };
        let spec = DataSpec { seed: self.seed, ..spec };
        spec.check().map_err(|e| CliError::usage(format!("{}: {e}", describe_flags(&spec, preset.as_deref()))))?;
        Ok((spec, preset))
    }
}

fn preset_spec(name: &str) -> CliResult<DataSpec> {
    datagen::preset(name).ok_or_else(|| CliError::usage(format!("unknown preset '{name}'")))
}

pub fn parse_preset(name: &str) -> Result<String, String> {
    datagen::preset(name)
        .map(|_| name.trim().to_ascii_lowercase())
        .ok_or_else(|| format!("unknown preset '{name}': expected {}", datagen::PRESETS.join(" or ")))
}

/// The flags that asked for `spec`, for messages about it.
pub fn describe_flags(spec: &DataSpec, preset: Option<&str>) -> String {
    match preset {
        Some(name) => format!("--preset {name}"),
        None => format!("--rows {} --keys {}", spec.rows, spec.keys),
    }
}

/// Where the keys come from: generated, or a file.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    #[command(flatten)]
    pub generate: GenArgs,
    /// Read the keys from a file: Parquet (with --column) or raw little-endian i64 (.bin).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "rows", "keys", "skew"])]
    pub input: Option<PathBuf>,
    /// The Parquet column holding the keys (Int64, UInt64 or a narrower integer), e.g. UserID.
    #[arg(long, requires = "input")]
    pub column: Option<String>,
    /// The Parquet column holding the values that --agg sum, min, max and avg read (an integer
    /// column is read as i64, Float64 or Float32 as f64), e.g. ResolutionWidth.
    #[arg(long, requires = "input")]
    pub value_column: Option<String>,
}

impl DataArgs {
    /// A named preset with the default seed.
    pub fn preset(name: &str) -> Self {
        Self { generate: GenArgs::preset(name), input: None, column: None, value_column: None }
    }
}

/// The keys to work on and what the report says about them.
#[derive(Debug)]
pub struct Data {
    pub keys: Vec<i64>,
    pub dataset: Dataset,
    /// For humans: "clickbench preset", "hits.parquet (UserID)", ...
    pub label: String,
    /// The value column, when the work asked for one.
    pub values: Option<ValueColumn>,
    /// The input's column the values came from.
    pub value_column: Option<String>,
}

/// Generates or loads the keys (and, with `values`, the value column), refusing up front what
/// cannot fit: the keys, the values, plus `scratch(rows, groups)`, the most the work on them
/// needs on top.
pub fn load(args: &DataArgs, exec: &dyn Executor, scratch: &dyn Fn(u64, u64) -> u64, values: bool) -> CliResult<Data> {
    match &args.input {
        None => generate(&args.generate, exec, scratch, values),
        Some(path) => {
            let value_column = match (&args.value_column, values) {
                (Some(name), true) => Some(name.as_str()),
                (None, true) => {
                    return Err(CliError::usage(format!(
                        "--input {}: these aggregates read a value column: name it with --value-column",
                        path.display()
                    )));
                }
                (_, false) => None,
            };
            read(path, args.column.as_deref(), value_column, scratch)
        }
    }
}

fn generate(args: &GenArgs, exec: &dyn Executor, scratch: &dyn Fn(u64, u64) -> u64, values: bool) -> CliResult<Data> {
    let (spec, preset) = args.spec()?;
    let value_bytes = if values { spec.bytes() } else { 0 };
    let needed = spec.bytes().saturating_add(value_bytes).saturating_add(scratch(spec.rows, spec.keys));
    platform::check_fits_in_memory(needed, &describe_flags(&spec, preset.as_deref()))?;
    let bar = spinner(format!("generating {} rows over {} keys", spec.rows, spec.keys));
    let mut keys = datagen::generate_with(&spec, exec).map_err(|e| CliError::usage(e.to_string()))?;
    let shape = args.shape();
    shape.apply(&mut keys, spec.seed);
    let values = values.then(|| memwall_core::groupby::values::generate_values(&spec, args.value_type, exec));
    bar.finish_and_clear();
    let label = match &preset {
        Some(name) => format!("{name} preset"),
        None => format!("generated, {}", spec.skew.name()),
    };
    let label = if shape.is_plain() { label } else { format!("{label}, {}", shape.describe()) };
    Ok(Data {
        keys,
        dataset: Dataset {
            rows: spec.rows,
            distinct_keys: spec.keys,
            generator: Some(Generator {
                preset,
                skew: spec.skew.name(),
                shape: (!shape.is_plain()).then(|| shape.describe()),
            }),
            input: None,
            seed: Some(spec.seed),
            max_rows_per_key: None,
        },
        label,
        values,
        value_column: None,
    })
}

fn read(
    path: &std::path::Path,
    column: Option<&str>,
    value_column: Option<&str>,
    scratch: &dyn Fn(u64, u64) -> u64,
) -> CliResult<Data> {
    let bar = spinner(format!("reading {}", path.display()));
    let loaded = crate::input::load_keys(path, column)?;
    let values = value_column.map(|name| crate::input::load_values(path, name)).transpose()?;
    bar.finish_and_clear();
    let rows = loaded.keys.len() as u64;
    if let Some(values) = &values
        && values.len() as u64 != rows
    {
        return Err(CliError::usage(format!(
            "--input {}: the value column has {} rows, the keys {rows}",
            path.display(),
            values.len()
        )));
    }
    // The groups are not known before aggregating; a sample tells roughly, and skew only makes
    // it low, so allow four times that (as many as rows would refuse real files: a table for
    // 100 M groups that hits.parquet does not have).
    let groups = groupby::estimate_groups(&loaded.keys).groups.saturating_mul(4).min(rows);
    platform::check_fits_in_memory(scratch(rows, groups), &format!("--input {}", path.display()))?;
    let label = match column {
        Some(c) => format!("{} ({c})", path.display()),
        None => path.display().to_string(),
    };
    Ok(Data {
        keys: loaded.keys,
        dataset: Dataset {
            rows,
            // Filled in from the first run's result.
            distinct_keys: 0,
            generator: None,
            input: Some(Input {
                path: path.display().to_string(),
                format: loaded.format.into(),
                column: column.map(str::to_string),
            }),
            seed: None,
            max_rows_per_key: None,
        },
        label,
        values,
        value_column: value_column.map(str::to_string),
    })
}

/// A spinner for work whose length is not known ahead.
pub fn spinner(message: String) -> ProgressBar {
    let bar = ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        data: DataArgs,
    }

    #[test]
    fn presets_and_defaults_resolve_the_same_for_every_command() {
        let args = GenArgs { seed: 5, ..GenArgs::preset("clickbench") };
        let (spec, preset) = args.spec().unwrap();
        assert_eq!(
            (spec.rows, spec.keys, spec.seed, preset.as_deref()),
            (99_997_497, 17_630_976, 5, Some("clickbench"))
        );
        let none = GenArgs { preset: None, ..GenArgs::preset("small") };
        assert_eq!(none.spec().unwrap().0, datagen::preset("small").unwrap());
    }

    #[test]
    fn an_input_file_excludes_generator_flags() {
        for flags in [&["--preset", "small"][..], &["--rows", "10", "--keys", "5"], &["--skew", "uniform"]] {
            let mut argv = vec!["t", "--input", "keys.bin"];
            argv.extend_from_slice(flags);
            assert!(Cli::try_parse_from(argv).is_err(), "{flags:?} was accepted beside --input");
        }
        assert!(Cli::try_parse_from(["t", "--column", "UserID"]).is_err(), "--column without --input");
    }
}
