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

mod read;
mod write;

#[cfg(test)]
use read::list_columns;
use read::read_parquet;
#[cfg(test)]
pub use write::write_keys;
pub use write::{write_build_side, write_rows};

use crate::CliError;
use crate::platform::check_fits_in_memory;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use memwall_core::groupby::ValueColumn;
use memwall_core::join::BuildRow;
use memwall_core::size::format_bytes;
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::basic::Compression;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

/// Keys read from a file, with the format they were read as ("parquet" or "bin").
#[derive(Debug)]
pub struct LoadedKeys {
    pub keys: Vec<i64>,
    pub format: &'static str,
}

/// Rows decoded per Arrow batch: large enough to amortize per-batch work, small enough that
/// the transient batch (on top of the growing key vector) stays a few MiB.
const BATCH_ROWS: usize = 256 * 1024;

/// Rows per batch handed to the Parquet writer, which is also the granularity of the copy the
/// writer needs (Arrow arrays own their buffers).
const WRITE_BATCH_ROWS: usize = 1 << 20;

/// How many column names an error lists before it says "and N more".
const LISTED_COLUMNS: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Parquet,
    Bin,
}

fn extension(path: &Path) -> Option<String> {
    path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase)
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

/// What a Parquet column is read for: keys (integers) or values (integers or floats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Keys,
    Values,
}

/// A column as read.
enum Column {
    Ints(Vec<i64>),
    Floats(Vec<f64>),
}

impl Column {
    fn into_keys(self) -> Vec<i64> {
        match self {
            Self::Ints(v) => v,
            // The type check refuses floats as keys before anything is read.
            Self::Floats(_) => Vec::new(),
        }
    }

    fn into_values(self) -> ValueColumn {
        match self {
            Self::Ints(v) => ValueColumn::I64(v),
            Self::Floats(v) => ValueColumn::F64(v),
        }
    }
}

fn detect_format(path: &Path, file: &mut File, len: u64) -> Result<Format, CliError> {
    let ext = extension(path);
    if ext.as_deref() == Some("bin") {
        return Ok(Format::Bin);
    }
    let mut magic = [0u8; 4];
    let has_magic = len >= 4 && {
        file.read_exact(&mut magic).map_err(|e| CliError::runtime(format!("--input {}: {e}", path.display())))?;
        &magic == b"PAR1"
    };
    if has_magic {
        return Ok(Format::Parquet);
    }
    let shown = path.display();
    match ext.as_deref() {
        Some("parquet" | "parq" | "pq") if len == 0 => {
            Err(CliError::usage(format!("--input {shown}: the file is empty, not a Parquet file")))
        }
        Some("parquet" | "parq" | "pq") => {
            Err(CliError::usage(format!("--input {shown}: not a Parquet file (it does not start with PAR1)")))
        }
        _ => Err(CliError::usage(format!(
            "--input {shown}: unknown format: expected Parquet (starting with PAR1) or a .bin file of raw little-endian i64"
        ))),
    }
}

/// Refuses an input whose keys would not fit, before the vector is allocated.
fn reserve_keys<T>(path: &Path, rows: u64) -> Result<Vec<T>, CliError> {
    let bytes = rows.saturating_mul(8);
    check_fits_in_memory(bytes, &format!("--input {} ({rows} rows)", path.display()))?;
    let rows = usize::try_from(rows).map_err(|_| {
        CliError::usage(format!("--input {}: {rows} rows exceed this platform's address space", path.display()))
    })?;
    let mut keys = Vec::new();
    keys.try_reserve_exact(rows).map_err(|_| {
        CliError::runtime(format!(
            "--input {}: could not allocate {} for the keys",
            path.display(),
            format_bytes(bytes)
        ))
    })?;
    Ok(keys)
}

fn read_bin(path: &Path, mut file: File, len: u64) -> Result<Vec<i64>, CliError> {
    let shown = path.display();
    if !len.is_multiple_of(8) {
        return Err(CliError::usage(format!(
            "--input {shown}: {len} bytes is not a whole number of 8-byte keys (truncated or not raw i64?)"
        )));
    }
    if len == 0 {
        return Err(CliError::usage(format!("--input {shown}: the file is empty: no keys to group")));
    }
    let mut keys = reserve_keys(path, len / 8)?;
    // Chunked reads keep the transient buffer at 1 MiB instead of a second copy of the file;
    // the `from_le_bytes` loop compiles to a straight copy on little-endian targets.
    let mut buf = vec![0u8; 1 << 20];
    let mut filled = 0;
    loop {
        let n = file.read(&mut buf[filled..]).map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?;
        filled += n;
        let whole = filled / 8 * 8;
        keys.extend(buf[..whole].chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().expect("8-byte chunk"))));
        buf.copy_within(whole..filled, 0);
        filled -= whole;
        if n == 0 {
            break;
        }
    }
    // The file changed under us (it was checked to be a multiple of 8 above).
    if filled != 0 || keys.len() as u64 != len / 8 {
        return Err(CliError::runtime(format!("--input {shown}: the file changed size while it was read")));
    }
    Ok(keys)
}

/// An error in one line (Parquet and Arrow errors may carry newlines), for messages that must
/// stay one line.
fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
