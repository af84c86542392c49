//! The two sides of the join, generated deterministically from the GROUP BY generator, so that a
//! join on the `clickbench` preset probes with exactly the keys the GROUP BY race aggregates.
//!
//! * Build side: the `K` distinct keys `key_at(0..K, seed)` (the generator's keys), each with an
//!   8-byte payload derived from the key, in key-index order (which, the keys being a
//!   bijective mix of the index, is a random order of values).
//! * Probe side: the generator's rows over those `K` keys (its skew, so hot keys are hot here
//!   too), where a share `miss_rate` of the rows, chosen by a hash of the row number, is
//!   replaced by a key that is not on the build side (`key_at(K + row)`: the generator's keys are
//!   distinct for distinct indices, so it can never match). The probe side keeps its row count;
//!   exactly `probe_rows - misses` rows match.

use crate::arch::fmix64;
use crate::datagen::{self, DataError, DataSpec, key_at};
use crate::exec::Executor;

use super::BuildRow;

/// The payload of a build key: a mix of the key, so that a payload attached to the wrong key
/// changes the checksum. The mix is the same on every target (not `mix64`, which wasm computes
/// differently), so a browser and a native join of the same sizes join the same rows and agree
/// on the checksum.
pub fn payload_of(key: i64, seed: u64) -> u64 {
    fmix64(key as u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x7061_796c_6f61_6421)
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JoinSpec {
    /// The probe side's rows over the build side's keys: `keys` is the build size.
    pub data: DataSpec,
    /// Share of probe rows replaced by keys absent from the build side, 0 to 1.
    pub miss_rate: f64,
}

/// The generated sides.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinData {
    pub build: Vec<BuildRow>,
    pub probe: Vec<i64>,
    /// Probe rows replaced by a missing key.
    pub misses: u64,
}

/// Why a [`JoinSpec`] cannot be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JoinDataError {
    #[error("{0}")]
    Data(#[from] DataError),
    #[error("invalid miss rate {0}: it must be between 0 and 1")]
    BadMissRate(f64),
}

impl JoinSpec {
    pub fn check(&self) -> Result<(), JoinDataError> {
        if !(self.miss_rate.is_finite() && (0.0..=1.0).contains(&self.miss_rate)) {
            return Err(JoinDataError::BadMissRate(self.miss_rate));
        }
        Ok(self.data.check()?)
    }

    /// Bytes the two sides take.
    pub fn bytes(&self) -> u64 {
        self.data.bytes().saturating_add(self.data.keys.saturating_mul(size_of::<BuildRow>() as u64))
    }
}

/// Whether probe row `row` gets a missing key: a hash of the row below `miss_rate` of the range.
fn misses(row: u64, seed: u64, miss_rate: f64) -> bool {
    if miss_rate <= 0.0 {
        return false;
    }
    if miss_rate >= 1.0 {
        return true;
    }
    let threshold = (miss_rate * 2f64.powi(64)) as u64;
    fmix64(row ^ seed.rotate_left(17) ^ 0x6d69_7373) < threshold
}

/// The build side alone: `keys` distinct keys with their payloads.
pub fn build_side(keys: u64, seed: u64) -> Vec<BuildRow> {
    (0..keys).map(|i| key_at(i, seed)).map(|key| BuildRow { key, payload: payload_of(key, seed) }).collect()
}

/// Generates both sides, shuffling on `exec`'s threads; the result depends only on `spec`.
pub fn generate_with(spec: &JoinSpec, exec: &dyn Executor) -> Result<JoinData, JoinDataError> {
    spec.check()?;
    let mut probe = datagen::generate_with(&spec.data, exec)?;
    let mut missed = 0u64;
    for (row, key) in probe.iter_mut().enumerate() {
        if misses(row as u64, spec.data.seed, spec.miss_rate) {
            *key = key_at(spec.data.keys + row as u64, spec.data.seed);
            missed += 1;
        }
    }
    Ok(JoinData { build: build_side(spec.data.keys, spec.data.seed), probe, misses: missed })
}

/// [`generate_with`] on the calling thread.
pub fn generate(spec: &JoinSpec) -> Result<JoinData, JoinDataError> {
    generate_with(spec, &crate::exec::Sequential)
}
