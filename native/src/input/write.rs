//! Writing generated rows (and a join's build side) as Parquet or raw `.bin`, for other engines.

use super::column::*;

/// [`write_rows`] without a value column.
#[cfg(test)]
pub fn write_keys(path: &Path, keys: &[i64], column: &str) -> Result<(), CliError> {
    write_rows(path, keys, column, None)
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
pub(super) fn writer_properties() -> WriterProperties {
    WriterProperties::builder().set_compression(Compression::SNAPPY).set_dictionary_enabled(false).build()
}

pub(super) fn write_bin(out: &mut impl Write, keys: &[i64]) -> Result<(), String> {
    for chunk in keys.chunks(1 << 16) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|k| k.to_le_bytes()).collect();
        out.write_all(&bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub(super) fn write_parquet(
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
