//! What reading and writing a column share: the format a file is in, a column as read and what
//! for, room for its rows refused up front, raw `.bin` keys, errors in one line.

pub(super) use crate::error::CliError;
pub(super) use crate::platform::check_fits_in_memory;
pub(super) use arrow_array::cast::AsArray;
pub(super) use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
pub(super) use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, UInt64Array};
pub(super) use arrow_schema::{DataType, Field, Schema};
pub(super) use memwall_core::groupby::ValueColumn;
pub(super) use memwall_core::join::BuildRow;
pub(super) use memwall_core::size::format_bytes;
pub(super) use parquet::arrow::ArrowWriter;
pub(super) use parquet::arrow::ProjectionMask;
pub(super) use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
pub(super) use parquet::basic::Compression;
pub(super) use parquet::file::metadata::ParquetMetaData;
pub(super) use parquet::file::properties::WriterProperties;
pub(super) use std::fs::File;
pub(super) use std::io::{Read, Write};
pub(super) use std::path::Path;
pub(super) use std::sync::Arc;

/// Rows decoded per Arrow batch: large enough to amortize per-batch work, small enough that
/// the transient batch (on top of the growing key vector) stays a few MiB.
pub(super) const BATCH_ROWS: usize = 256 * 1024;

/// Rows per batch handed to the Parquet writer, which is also the granularity of the copy the
/// writer needs (Arrow arrays own their buffers).
pub(super) const WRITE_BATCH_ROWS: usize = 1 << 20;

/// How many column names an error lists before it says "and N more".
pub(super) const LISTED_COLUMNS: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Parquet,
    Bin,
}

pub(super) fn extension(path: &Path) -> Option<String> {
    path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase)
}

/// What a Parquet column is read for: keys (integers) or values (integers or floats).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Keys,
    Values,
}

/// A column as read.
pub(super) enum Column {
    Ints(Vec<i64>),
    Floats(Vec<f64>),
}

impl Column {
    pub(super) fn into_keys(self) -> Vec<i64> {
        match self {
            Self::Ints(v) => v,
            // The type check refuses floats as keys before anything is read.
            Self::Floats(_) => Vec::new(),
        }
    }

    pub(super) fn into_values(self) -> ValueColumn {
        match self {
            Self::Ints(v) => ValueColumn::I64(v),
            Self::Floats(v) => ValueColumn::F64(v),
        }
    }
}

pub(super) fn detect_format(path: &Path, file: &mut File, len: u64) -> Result<Format, CliError> {
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
pub(super) fn reserve_keys<T>(path: &Path, rows: u64) -> Result<Vec<T>, CliError> {
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

pub(super) fn read_bin(path: &Path, mut file: File, len: u64) -> Result<Vec<i64>, CliError> {
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
pub(super) fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}
