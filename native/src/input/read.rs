//! Reading a Parquet column: the column chosen and its type checked, the footer's chunks checked
//! before the reader trusts them, nulls refused, every row read.

use super::column::*;

/// Column names as a one-line list: a name is the file's to choose, control characters and all,
/// so one that is not plain is shown quoted and escaped.
pub(super) fn list_columns(names: &[&str]) -> String {
    let show = |n: &&str| if n.chars().any(char::is_control) { format!("{n:?}") } else { n.to_string() };
    let mut shown: Vec<String> = names.iter().take(LISTED_COLUMNS).map(show).collect();
    if names.len() > LISTED_COLUMNS {
        shown.push(format!("... and {} more", names.len() - LISTED_COLUMNS));
    }
    shown.join(", ")
}

/// Whether `data_type` is one this loader turns into i64 keys.
pub(super) fn accepted(data_type: &DataType) -> bool {
    use DataType::*;
    matches!(data_type, Int64 | UInt64 | Int32 | Int16 | Int8 | UInt32 | UInt16 | UInt8)
}

pub(super) fn read_parquet(path: &Path, file: File, column: Option<&str>, role: Role) -> Result<Column, CliError> {
    super::contain::contained(|| read_parquet_unguarded(path, file, column, role)).unwrap_or_else(|why| {
        Err(CliError::usage(format!(
            "--input {}: not a readable Parquet file: the Parquet reader stopped on it ({why})",
            path.display()
        )))
    })
}

fn read_parquet_unguarded(path: &Path, file: File, column: Option<&str>, role: Role) -> Result<Column, CliError> {
    let shown = path.display();
    let file_len = file.metadata().map_err(|e| CliError::runtime(format!("--input {shown}: {e}")))?.len();
    // Types come from the Parquet schema alone: an embedded Arrow schema could turn the column
    // into a dictionary or an extension type, which would only add cases without adding data.
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| CliError::usage(format!("--input {shown}: not a readable Parquet file: {}", one_line(&e))))?;
    let schema = builder.schema().clone();
    let index = pick_column(&schema, column, &shown.to_string())?;
    let field = schema.field(index);
    let float = check_type(field, role, &shown.to_string())?;
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
/// these footer fields and panics on a negative one (`ColumnChunkMetaData::byte_range`); the
/// panic would be contained (contain.rs), but this check names the field that is wrong. Found
/// by native/src/fuzz.rs, kept in native/tests/corpus/negative-chunk-length.parquet.
pub(super) fn check_chunks(metadata: &ParquetMetaData, leaf: Option<usize>, file_len: u64) -> Result<(), String> {
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

pub(super) fn null_error(path: &Path, column: &str, nulls: Option<u64>) -> CliError {
    let how_many = nulls.map_or("nulls".to_string(), |n| format!("{n} nulls"));
    CliError::usage(format!(
        "--input {}: column {column:?} holds {how_many}; memwall groups non-null keys only (filter the nulls out first, e.g. WHERE {column} IS NOT NULL)",
        path.display()
    ))
}

#[derive(Debug)]
pub(super) enum AppendError {
    Nulls,
    /// A type the schema check should have refused already; kept as an error, not a panic.
    Type(DataType),
}

/// Appends one batch's values as i64.
pub(super) fn append_keys(keys: &mut Vec<i64>, array: &dyn Array) -> Result<(), AppendError> {
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

/// Appends one batch's floats as f64.
pub(super) fn append_floats(values: &mut Vec<f64>, array: &dyn Array) -> Result<(), AppendError> {
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

/// The column to read: the one named, or the only one.
pub(super) fn pick_column(schema: &arrow_schema::Schema, column: Option<&str>, shown: &str) -> Result<usize, CliError> {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    match column {
        Some(name) => names.iter().position(|n| *n == name).ok_or_else(|| {
            CliError::usage(format!("--input {shown}: no column {name:?}; the file has: {}", list_columns(&names)))
        }),
        None if names.len() == 1 => Ok(0),
        None => Err(CliError::usage(format!(
            "--input {shown}: pick a column with --column; the file has: {}",
            list_columns(&names)
        ))),
    }
}

/// Refuses a column of a type the role cannot take; says whether it holds floats.
pub(super) fn check_type(field: &arrow_schema::Field, role: Role, shown: &str) -> Result<bool, CliError> {
    let float = matches!(field.data_type(), DataType::Float64 | DataType::Float32);
    // Values: every integer type but UInt64 (it would not fit an i64), and floats.
    let value_ok = float || (accepted(field.data_type()) && !matches!(field.data_type(), DataType::UInt64));
    if role == Role::Values && !value_ok {
        return Err(CliError::usage(format!(
            "--value-column: column {:?} of {shown} is {}, but values must be integers (Int64 or narrower, UInt32 or narrower) or Float64/Float32",
            field.name(),
            field.data_type()
        )));
    }
    if role != Role::Values && !accepted(field.data_type()) {
        return Err(CliError::usage(format!(
            "--input {shown}: column {:?} is {}, but keys must be integers (Int64, UInt64, Int32, Int16, Int8, UInt32, UInt16, UInt8)",
            field.name(),
            field.data_type()
        )));
    }
    Ok(float)
}
