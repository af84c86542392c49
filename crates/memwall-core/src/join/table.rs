//! The open-addressing table of the flat join kernels: one `[key, payload]` pair per slot (four
//! to a cache line, so a lookup that misses cache costs one line), linear probing, at most half
//! full.
//!
//! An empty slot holds the key [`EMPTY`]. A build row whose key really is [`EMPTY`] is kept
//! apart, in [`Sentinel`], so every `i64` stays a usable key (0 and `i64::MIN/MAX` included)
//! while a slot needs no flag word: the payload may be any value, so it cannot mark emptiness
//! the way the GROUP BY table's count does.

use crate::arch::{Line, fmix64, mix64};
use crate::scratch::Scratch;

use super::config::{BuildRow, JoinError};

/// `[key as u64, payload]`.
pub(crate) type Slot = [u64; 2];

/// The key value an empty slot holds: arbitrary, chosen to be unlikely in real data (it is
/// handled correctly either way, and the tests use it as a key).
pub(crate) const EMPTY: u64 = 0x8000_5bd1_e995_0001;

/// The join's hash: every output bit depends on every key bit, so the top bits (the partition)
/// and the low bits (the slot) are both well spread.
#[inline(always)]
pub(crate) fn hash(key: i64) -> u64 {
    mix64(key as u64 ^ 0x6a09_e667_f3bc_c908)
}

/// The partition (of `1 << bits`) a hash falls in: its top bits (`bits == 0`: partition 0).
#[inline(always)]
pub(crate) fn partition_of_hash(hash: u64, bits: u32) -> usize {
    hash.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// Slots (a power of two) for `keys` keys at most half full.
pub(crate) fn capacity_for(keys: usize) -> usize {
    keys.saturating_mul(2).max(16).checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1))
}

/// The slot holding `key`, or the empty slot where it belongs. `key` must not be [`EMPTY`], and
/// the table must keep an empty slot (it is at most half full).
#[inline(always)]
pub(crate) fn find(slots: &[Slot], key: u64, hash: u64) -> usize {
    let mask = slots.len() - 1;
    let mut i = hash as usize & mask;
    while (slots[i][0] != key) & (slots[i][0] != EMPTY) {
        i = (i + 1) & mask;
    }
    i
}

/// Inserts a build row (its key not [`EMPTY`]); `false` if the key was there already.
#[inline(always)]
pub(crate) fn insert(slots: &mut [Slot], key: i64, hash: u64, payload: u64) -> bool {
    let i = find(slots, key as u64, hash);
    let fresh = slots[i][0] == EMPTY;
    slots[i] = [key as u64, payload];
    fresh
}

/// Empties a table: scratch memory may come back used.
pub(crate) fn clear(slots: &mut [Slot]) {
    slots.fill([EMPTY, 0]);
}

/// `slots` slots from scratch, empty.
pub(crate) fn new_table<'m>(scratch: &'m Scratch<'_>, slots: usize) -> Result<&'m mut [Slot], JoinError> {
    let table = slots_in(scratch, slots)?;
    clear(table);
    Ok(table)
}

/// `slots` pairs of words from scratch, contents unspecified.
pub(crate) fn slots_in<'m>(scratch: &'m Scratch<'_>, slots: usize) -> Result<&'m mut [Slot], JoinError> {
    let lines = scratch.lines(slots.div_ceil(Line::WORDS / 2)).map_err(JoinError::from)?;
    Ok(&mut Line::words_mut(lines).as_chunks_mut::<2>().0[..slots])
}

/// `words` words from scratch, contents unspecified.
pub(crate) fn words_in<'m>(scratch: &'m Scratch<'_>, words: usize) -> Result<&'m mut [u64], JoinError> {
    let lines = scratch.lines(words.div_ceil(Line::WORDS)).map_err(JoinError::from)?;
    Ok(&mut Line::words_mut(lines)[..words])
}

/// The payload of the build row whose key is [`EMPTY`], if there is one.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sentinel(Option<u64>);

impl Sentinel {
    /// Takes the row if its key is [`EMPTY`] (then it must not go into a table).
    #[inline(always)]
    pub(crate) fn take(&mut self, row: BuildRow) -> Result<bool, JoinError> {
        if row.key as u64 != EMPTY {
            return Ok(false);
        }
        if self.0.replace(row.payload).is_some() {
            return Err(JoinError::DuplicateBuildKey(row.key));
        }
        Ok(true)
    }

    /// Probes with a key that is [`EMPTY`].
    #[cold]
    pub(crate) fn probe(&self, key: i64, matches: &mut Matches) {
        if let Some(payload) = self.0 {
            matches.add(key, payload);
        }
    }
}

/// One match's share of the checksum: nested bijections of key and payload, so a payload found
/// for the wrong key changes the term; 64-bit multiplies only, the same on every target.
#[inline(always)]
fn checksum_term(key: i64, payload: u64) -> u64 {
    fmix64(fmix64(key as u64 ^ 0x4528_21e6_38d0_1377) ^ payload.wrapping_mul(0xbe54_66cf_34e9_0c6c | 1))
}

/// Matches seen so far: their number, the wrapping sum of their terms, and the exact sums of
/// their keys and payloads; none depends on the order the matches are found in.
///
/// The sums are there for SQL engines, which cannot compute the checksum (its wrapping 64-bit
/// multiplies are not SQL) but can compute `sum(key)` and `sum(payload)` exactly in 128 bits;
/// the checksum stays because a sum cannot tell a payload found for the wrong key. Neither sum
/// can overflow: at most 2^64 matches of at most 2^63 (keys) or 2^64 (payloads) in magnitude.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Matches {
    pub(crate) matches: u64,
    pub(crate) checksum: u64,
    pub(crate) key_sum: i128,
    pub(crate) payload_sum: u128,
}

impl Matches {
    #[inline(always)]
    pub(crate) fn add(&mut self, key: i64, payload: u64) {
        self.matches += 1;
        self.checksum = self.checksum.wrapping_add(checksum_term(key, payload));
        self.key_sum += i128::from(key);
        self.payload_sum += u128::from(payload);
    }

    pub(crate) fn merge(self, other: Matches) -> Matches {
        Matches {
            matches: self.matches + other.matches,
            checksum: self.checksum.wrapping_add(other.checksum),
            key_sum: self.key_sum + other.key_sum,
            payload_sum: self.payload_sum + other.payload_sum,
        }
    }

    /// Probes `slots` (the table `key` hashes into) with a key that is not [`EMPTY`].
    #[inline(always)]
    pub(crate) fn probe(&mut self, slots: &[Slot], key: i64, hash: u64) {
        let slot = slots[find(slots, key as u64, hash)];
        if slot[0] == key as u64 {
            self.add(key, slot[1]);
        }
    }
}
