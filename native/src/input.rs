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

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

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

use crate::CliError;
use crate::platform::check_fits_in_memory;

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

/// Column names as a one-line list: a name is the file's to choose, control characters and all,
/// so one that is not plain is shown quoted and escaped.
fn list_columns(names: &[&str]) -> String {
    let show = |n: &&str| if n.chars().any(char::is_control) { format!("{n:?}") } else { n.to_string() };
    let mut shown: Vec<String> = names.iter().take(LISTED_COLUMNS).map(show).collect();
    if names.len() > LISTED_COLUMNS {
        shown.push(format!("... and {} more", names.len() - LISTED_COLUMNS));
    }
    shown.join(", ")
}

/// Whether `data_type` is one this loader turns into i64 keys.
fn accepted(data_type: &DataType) -> bool {
    use DataType::*;
    matches!(data_type, Int64 | UInt64 | Int32 | Int16 | Int8 | UInt32 | UInt16 | UInt8)
}

fn read_parquet(path: &Path, file: File, column: Option<&str>, role: Role) -> Result<Column, CliError> {
    let shown = path.display();
    let file_len = file.metadata().map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?.len();
    // Types come from the Parquet schema alone: an embedded Arrow schema could turn the column
    // into a dictionary or an extension type, which would only add cases without adding data.
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| CliError::usage(format!("--input {shown}: not a readable Parquet file: {}", one_line(&e))))?;
    let schema = builder.schema().clone();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let index = match column {
        Some(name) => names.iter().position(|n| *n == name).ok_or_else(|| {
            CliError::usage(format!("--input {shown}: no column {name:?}; the file has: {}", list_columns(&names)))
        })?,
        None if names.len() == 1 => 0,
        None => {
            return Err(CliError::usage(format!(
                "--input {shown}: pick a column with --column; the file has: {}",
                list_columns(&names)
            )));
        }
    };
    let field = schema.field(index);
    let float = matches!(field.data_type(), DataType::Float64 | DataType::Float32);
    let value_ok = float || (accepted(field.data_type()) && !matches!(field.data_type(), DataType::UInt64));
    if role == Role::Values && value_ok {
        // Accepted as values: every integer type but UInt64, and floats.
    } else if role == Role::Values {
        return Err(CliError::usage(format!(
            "--value-column: column {:?} of {shown} is {}, but values must be integers (Int64 or narrower, UInt32 or narrower) or Float64/Float32",
            field.name(),
            field.data_type()
        )));
    } else if !accepted(field.data_type()) {
        return Err(CliError::usage(format!(
            "--input {shown}: column {:?} is {}, but keys must be integers (Int64, UInt64, Int32, Int16, Int8, UInt32, UInt16, UInt8)",
            field.name(),
            field.data_type()
        )));
    }
    let name = field.name().clone();
    let metadata = builder.metadata().clone();
    let rows = u64::try_from(metadata.file_metadata().num_rows()).unwrap_or(0);
    if rows == 0 {
        return Err(CliError::usage(format!("--input {shown}: the file has no rows: no keys to group")));
    }
    let leaf = builder.parquet_schema().columns().iter().position(|c| c.path().parts() == [name.as_str()]);
    check_chunks(&metadata, leaf, file_len)
        .map_err(|why| CliError::usage(format!("--input {shown}: not a readable Parquet file: {why}")))?;
    // Refuse nulls before reading anything when the footer's statistics already count them.
    if let Some(leaf) = leaf {
        let counted: Option<u64> =
            metadata.row_groups().iter().map(|rg| rg.column(leaf).statistics().and_then(|s| s.null_count_opt())).sum();
        if let Some(nulls) = counted.filter(|&n| n > 0) {
            return Err(null_error(path, &name, Some(nulls)));
        }
    }
    let mut keys: Vec<i64> = if float { Vec::new() } else { reserve_keys(path, rows)? };
    let mut floats: Vec<f64> = if float { reserve_keys(path, rows)? } else { Vec::new() };
    let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| CliError::usage(format!("--input {shown}: {}", one_line(&e))))?;
    for batch in reader {
        let batch = batch.map_err(|e| {
            let text = one_line(&e);
            match text.split("Disabled feature at compile time: ").nth(1) {
                Some(codec) => CliError::usage(format!(
                    "--input {shown}: column {name:?} is compressed with {codec}, which this build of memwall does not read (re-encode the file with zstd, snappy, lz4 or gzip)"
                )),
                None => CliError::usage(format!("--input {shown}: column {name:?}: {text}")),
            }
        })?;
        let appended = if float {
            append_floats(&mut floats, batch.column(0).as_ref())
        } else {
            append_keys(&mut keys, batch.column(0).as_ref())
        };
        appended.map_err(|e| match e {
            AppendError::Nulls => null_error(path, &name, None),
            AppendError::Type(t) => CliError::usage(format!("--input {shown}: column {name:?} decoded as {t}")),
        })?;
    }
    let read = if float { floats.len() } else { keys.len() };
    if read as u64 != rows {
        return Err(CliError::usage(format!("--input {shown}: the footer promises {rows} rows but {read} were read")));
    }
    Ok(if float { Column::Floats(floats) } else { Column::Ints(keys) })
}

/// Checks that the column chunks about to be read lie inside the file. The parquet crate trusts
/// these footer fields and panics on a negative one (`ColumnChunkMetaData::byte_range`), which
/// in a release build (panic = "abort") would kill memwall instead of refusing the file; found
/// by native/src/fuzz.rs, kept in native/tests/corpus/negative-chunk-length.parquet.
fn check_chunks(metadata: &ParquetMetaData, leaf: Option<usize>, file_len: u64) -> Result<(), String> {
    if metadata.file_metadata().num_rows() < 0 {
        return Err(format!("the footer counts {} rows", metadata.file_metadata().num_rows()));
    }
    for (g, group) in metadata.row_groups().iter().enumerate() {
        if group.num_rows() < 0 {
            return Err(format!("row group {g} counts {} rows", group.num_rows()));
        }
        let chunks = group.columns().iter().enumerate().filter(|(i, _)| leaf.is_none_or(|leaf| leaf == *i));
        for (i, chunk) in chunks {
            let start = chunk.dictionary_page_offset().unwrap_or(chunk.data_page_offset());
            let len = chunk.compressed_size();
            let inside = u64::try_from(start).ok().zip(u64::try_from(len).ok()).and_then(|(s, l)| s.checked_add(l));
            if inside.is_none_or(|end| end > file_len) {
                return Err(format!(
                    "column chunk {i} of row group {g} lies outside the file (offset {start}, length {len}, file {file_len} bytes)"
                ));
            }
        }
    }
    Ok(())
}

fn null_error(path: &Path, column: &str, nulls: Option<u64>) -> CliError {
    let how_many = nulls.map_or("nulls".to_string(), |n| format!("{n} nulls"));
    CliError::usage(format!(
        "--input {}: column {column:?} holds {how_many}; memwall groups non-null keys only (filter the nulls out first, e.g. WHERE {column} IS NOT NULL)",
        path.display()
    ))
}

#[derive(Debug)]
enum AppendError {
    Nulls,
    /// A type the schema check should have refused already; kept as an error, not a panic.
    Type(DataType),
}

/// Appends one batch's values as i64.
fn append_keys(keys: &mut Vec<i64>, array: &dyn Array) -> Result<(), AppendError> {
    if array.null_count() > 0 {
        return Err(AppendError::Nulls);
    }
    match array.data_type() {
        DataType::Int64 => keys.extend_from_slice(array.as_primitive::<Int64Type>().values()),
        // Same 64 bits, read as signed: equality (all GROUP BY needs) is unchanged.
        DataType::UInt64 => keys.extend(array.as_primitive::<UInt64Type>().values().iter().map(|&v| v as i64)),
        DataType::Int32 => keys.extend(array.as_primitive::<Int32Type>().values().iter().map(|&v| i64::from(v))),
        DataType::Int16 => keys.extend(array.as_primitive::<Int16Type>().values().iter().map(|&v| i64::from(v))),
        DataType::Int8 => keys.extend(array.as_primitive::<Int8Type>().values().iter().map(|&v| i64::from(v))),
        DataType::UInt32 => keys.extend(array.as_primitive::<UInt32Type>().values().iter().map(|&v| i64::from(v))),
        DataType::UInt16 => keys.extend(array.as_primitive::<UInt16Type>().values().iter().map(|&v| i64::from(v))),
        DataType::UInt8 => keys.extend(array.as_primitive::<UInt8Type>().values().iter().map(|&v| i64::from(v))),
        other => return Err(AppendError::Type(other.clone())),
    }
    Ok(())
}

/// [`write_rows`] without a value column.
#[cfg(test)]
pub fn write_keys(path: &Path, keys: &[i64], column: &str) -> Result<(), CliError> {
    write_rows(path, keys, column, None)
}

/// Appends one batch's floats as f64.
fn append_floats(values: &mut Vec<f64>, array: &dyn Array) -> Result<(), AppendError> {
    if array.null_count() > 0 {
        return Err(AppendError::Nulls);
    }
    match array.data_type() {
        DataType::Float64 => values.extend_from_slice(array.as_primitive::<Float64Type>().values()),
        DataType::Float32 => values.extend(array.as_primitive::<Float32Type>().values().iter().map(|&v| f64::from(v))),
        other => return Err(AppendError::Type(other.clone())),
    }
    Ok(())
}

/// Writes `keys` to `path`: Parquet (a required Int64 column named `column`, and with `values`
/// a required value column beside it, snappy) for `.parquet`, raw little-endian i64 keys only
/// for `.bin`. The file appears whole or not at all.
pub fn write_rows(
    path: &Path,
    keys: &[i64],
    column: &str,
    values: Option<(&str, &ValueColumn)>,
) -> Result<(), CliError> {
    let format = match extension(path).as_deref() {
        Some("parquet" | "parq" | "pq") => Format::Parquet,
        Some("bin") => Format::Bin,
        _ => {
            return Err(CliError::usage(format!(
                "--out {}: the file name must end in .parquet or .bin",
                path.display()
            )));
        }
    };
    if format == Format::Parquet && column.is_empty() {
        return Err(CliError::usage("--column must not be empty"));
    }
    if let Some((name, _)) = values
        && format == Format::Parquet
        && (name.is_empty() || name == column)
    {
        return Err(CliError::usage("--value-column must be a name of its own, not empty nor the key column's"));
    }
    crate::output::write_atomically(path, |out| match format {
        Format::Bin => write_bin(out, keys),
        Format::Parquet => write_parquet(out, keys, column, values),
    })
    .map_err(|why| CliError::runtime(format!("--out {}: {why}", path.display())))
}

/// Writes a join's build side to Parquet: `key_column` (Int64) and `payload_column` (UInt64,
/// the payload's 64 bits as the unsigned value memwall sums), snappy, for other engines.
pub fn write_build_side(
    path: &Path,
    rows: &[BuildRow],
    key_column: &str,
    payload_column: &str,
) -> Result<(), CliError> {
    if !matches!(extension(path).as_deref(), Some("parquet" | "parq" | "pq")) {
        return Err(CliError::usage(format!("--build-out {}: the file name must end in .parquet", path.display())));
    }
    if key_column.is_empty() || payload_column.is_empty() || key_column == payload_column {
        return Err(CliError::usage("the build side's key and payload columns need two different, non-empty names"));
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new(key_column, DataType::Int64, false),
        Field::new(payload_column, DataType::UInt64, false),
    ]));
    crate::output::write_atomically(path, |out| {
        let mut writer =
            ArrowWriter::try_new(out, schema.clone(), Some(writer_properties())).map_err(|e| one_line(&e))?;
        for chunk in rows.chunks(WRITE_BATCH_ROWS) {
            let keys: Int64Array = chunk.iter().map(|r| r.key).collect::<Vec<_>>().into();
            let payloads: UInt64Array = chunk.iter().map(|r| r.payload).collect::<Vec<_>>().into();
            let arrays: Vec<ArrayRef> = vec![Arc::new(keys), Arc::new(payloads)];
            let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| e.to_string())?;
            writer.write(&batch).map_err(|e| one_line(&e))?;
        }
        writer.close().map(drop).map_err(|e| one_line(&e))
    })
    .map_err(|why| CliError::runtime(format!("--build-out {}: {why}", path.display())))
}

/// Snappy: the fastest codec to decode in every engine the bench feeds, and random 64-bit keys
/// barely compress under any codec. Dictionary encoding is off because ~6 rows per key would
/// only overflow the dictionary page and fall back to plain anyway.
fn writer_properties() -> WriterProperties {
    WriterProperties::builder().set_compression(Compression::SNAPPY).set_dictionary_enabled(false).build()
}

fn write_bin(out: &mut impl Write, keys: &[i64]) -> Result<(), String> {
    for chunk in keys.chunks(1 << 16) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|k| k.to_le_bytes()).collect();
        out.write_all(&bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn write_parquet(
    out: &mut (impl Write + Send),
    keys: &[i64],
    column: &str,
    values: Option<(&str, &ValueColumn)>,
) -> Result<(), String> {
    let mut fields = vec![Field::new(column, DataType::Int64, false)];
    if let Some((name, values)) = values {
        let data_type = match values {
            ValueColumn::I64(_) => DataType::Int64,
            ValueColumn::F64(_) => DataType::Float64,
        };
        fields.push(Field::new(name, data_type, false));
    }
    let schema = Arc::new(Schema::new(fields));
    let mut writer = ArrowWriter::try_new(out, schema.clone(), Some(writer_properties())).map_err(|e| one_line(&e))?;
    for (i, chunk) in keys.chunks(WRITE_BATCH_ROWS).enumerate() {
        let mut arrays: Vec<ArrayRef> = vec![Arc::new(Int64Array::from(chunk.to_vec()))];
        let rows = i * WRITE_BATCH_ROWS..i * WRITE_BATCH_ROWS + chunk.len();
        match values {
            Some((_, ValueColumn::I64(v))) => arrays.push(Arc::new(Int64Array::from(v[rows].to_vec()))),
            Some((_, ValueColumn::F64(v))) => arrays.push(Arc::new(Float64Array::from(v[rows].to_vec()))),
            None => {}
        }
        let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| e.to_string())?;
        writer.write(&batch).map_err(|e| one_line(&e))?;
    }
    writer.close().map(drop).map_err(|e| one_line(&e))
}

#[cfg(test)]
mod tests;
