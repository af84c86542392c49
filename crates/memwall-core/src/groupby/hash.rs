//! The hash of the tuned and prefetch kernels, and the partition a key falls in.

use crate::arch::mix64;

/// The kernels' hash: every output bit depends on every key bit, so the top bits (the
/// partition) and the low bits (the slot in a partition's table) are both well spread.
#[inline(always)]
pub(crate) fn hash(key: i64) -> u64 {
    mix64(key as u64 ^ 0x9e37_79b9_7f4a_7c15)
}

/// log2 of a partition count already checked to be a power of two.
pub(crate) fn bits_of(partitions: u32) -> u32 {
    debug_assert!(partitions.is_power_of_two());
    partitions.trailing_zeros()
}

/// The partition (of `1 << bits`) a hash falls in: its top bits.
#[inline(always)]
pub(crate) fn partition_of_hash(hash: u64, bits: u32) -> usize {
    // `checked_shr` makes bits == 0 (a single partition) mean partition 0 rather than a shift
    // by 64.
    hash.checked_shr(64 - bits).unwrap_or(0) as usize
}

/// The partition (of `partitions`, a power of two) that the tuned kernel puts `key` in: the top
/// `log2(partitions)` bits of its hash. The web page draws its radix picture with this.
pub fn partition_of(key: i64, partitions: u32) -> u32 {
    let partitions = partitions.max(1).checked_next_power_of_two().unwrap_or(1 << 31);
    partition_of_hash(hash(key), bits_of(partitions)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_in_range_and_nested() {
        for key in [0, 1, -1, i64::MIN, i64::MAX, 123_456_789] {
            assert_eq!(partition_of(key, 1), 0);
            for p in [2u32, 16, 4096, 65536] {
                let part = partition_of(key, p);
                assert!(part < p);
                // Fewer partitions are a coarsening of more: the top bits of the same hash.
                assert_eq!(partition_of(key, p / 2), part / 2);
            }
        }
    }

    #[test]
    fn sequential_keys_spread_over_partitions() {
        let mut counts = vec![0u32; 256];
        for key in 0..256 * 64 {
            counts[partition_of(key, 256) as usize] += 1;
        }
        // 64 expected each; a decent hash stays well within 2x of that.
        assert!(counts.iter().all(|&c| (24..=120).contains(&c)), "{counts:?}");
    }
}
