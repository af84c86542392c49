//! The generated value column: what `sum`, `min`, `max` and `avg` read beside the keys.

use super::agg::{ValueColumn, ValueType};
use crate::datagen::{DataSpec, mix};
use crate::exec::{self, Executor};

/// Largest magnitude of a generated integer value: a billion, so that sums over billions of
/// rows still fit the `i64` of engines that sum in 64 bits (ClickHouse does), for comparisons.
pub const VALUE_RANGE: i64 = 1_000_000_000;

/// The value column of row `row`: a seeded hash of the row's index, uniform in
/// `-VALUE_RANGE..=VALUE_RANGE`; as `f64`, that integer in thousandths (prices, say).
/// Independent of the key, and of how the keys were shuffled: row `i` always gets the same
/// value for a seed.
pub fn value_at(row: u64, seed: u64) -> i64 {
    let span = 2 * VALUE_RANGE as u64 + 1;
    (mix(row ^ mix(seed ^ 0x7661_6c75_6573)) % span) as i64 - VALUE_RANGE
}

/// The value column of `spec`'s rows as `value_type`, computed on `exec`'s threads.
pub fn generate_values(spec: &DataSpec, value_type: ValueType, exec: &dyn Executor) -> ValueColumn {
    let rows = spec.rows as usize;
    let parts = exec::split_even(rows, exec.threads().max(1));
    match value_type {
        ValueType::I64 => {
            let pieces =
                exec::map(exec, parts, |_, range| range.map(|i| value_at(i as u64, spec.seed)).collect::<Vec<i64>>());
            ValueColumn::I64(pieces.concat())
        }
        ValueType::F64 => {
            let pieces = exec::map(exec, parts, |_, range| {
                range.map(|i| value_at(i as u64, spec.seed) as f64 / 1000.0).collect::<Vec<f64>>()
            });
            ValueColumn::F64(pieces.concat())
        }
    }
}
