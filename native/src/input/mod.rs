//! Real keys for `memwall groupby --input FILE --column NAME`, and the writer behind
//! `memwall generate`.
//!
//! Two formats:
//! - **Parquet**, read through arrow-rs with a projection onto the one requested column, row
//!   group by row group, into a single `Vec<i64>` sized from the footer. Accepted column types:
//!   Int64 as is; UInt64 *reinterpreted* as the i64 with the same 64 bits (a GROUP BY only
//!   compares keys for equality, so the bits are all that matter, but keys above `i64::MAX`
//!   show up negative in the top-10); Int32, Int16, Int8, UInt32, UInt16 and UInt8 widened
//!   (value-preserving). Anything else is refused with the column's type named. Codecs: snappy,
//!   gzip, lz4 (both flavours), zstd and uncompressed; brotli is not built in and says so.
//! - **bin**: raw little-endian i64, nothing else; the length must be a multiple of 8.
//!
//! **Nulls are refused**, not skipped: SQL's `GROUP BY` keeps NULL as a group of its own, so
//! silently dropping rows would make memwall's groups and counts disagree with every engine it
//! is compared with. A column that is declared nullable but holds no null loads fine.
//!
//! An input with no rows is refused too: there is nothing to time, and ns/row would be 0/0.
//!
//! The format is chosen by extension first (`.bin` is always raw, whatever its first bytes
//! happen to be), then by the Parquet magic `PAR1`; a `.parquet` file without the magic, or an
//! unknown extension without it, is an error rather than a guess.

mod column;
mod contain;
mod read;
mod write;

#[cfg(test)]
use read::list_columns;
use read::read_parquet;
#[cfg(test)]
pub use write::write_keys;
pub use write::{write_build_side, write_rows};

use crate::error::CliError;
use column::*;
use memwall_core::groupby::ValueColumn;
use std::fs::File;
use std::path::Path;

/// Keys read from a file, with the format they were read as ("parquet" or "bin").
#[derive(Debug)]
pub struct LoadedKeys {
    pub keys: Vec<i64>,
    pub format: &'static str,
}

/// Reads every key of `path` into memory. `column` picks the Parquet column; it may be left out
/// when the file has exactly one column, and is ignored for `.bin` files (they have none).
pub fn load_keys(path: &Path, column: Option<&str>) -> Result<LoadedKeys, CliError> {
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CliError::usage(format!("--input {shown}: no such file")));
        }
        Err(e) => return Err(CliError::runtime(format!("--input {shown}: {e}"))),
    };
    if !meta.is_file() {
        return Err(CliError::usage(format!("--input {shown}: not a regular file")));
    }
    let mut file = File::open(path).map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?;
    match detect_format(path, &mut file, meta.len())? {
        Format::Bin => read_bin(path, file, meta.len()).map(|keys| LoadedKeys { keys, format: "bin" }),
        Format::Parquet => read_parquet(path, file, column, Role::Keys)
            .map(|column| LoadedKeys { keys: column.into_keys(), format: "parquet" }),
    }
}

/// Reads the value column `column` of the Parquet file `path` (already read for its keys): an
/// integer column as `i64` (UInt64 above `i64::MAX` refused, not wrapped: a sum must see the
/// value), Float64 or Float32 as `f64`. A `.bin` file holds keys only.
pub fn load_values(path: &Path, column: &str) -> Result<ValueColumn, CliError> {
    let shown = path.display();
    let mut file = File::open(path).map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?;
    let len = file.metadata().map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?.len();
    match detect_format(path, &mut file, len)? {
        Format::Bin => Err(CliError::usage(format!(
            "--value-column: {shown} is a .bin file of keys only; values need a Parquet input"
        ))),
        Format::Parquet => Ok(read_parquet(path, file, Some(column), Role::Values)?.into_values()),
    }
}

#[cfg(test)]
mod tests;
