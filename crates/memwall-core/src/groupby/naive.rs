//! The textbook GROUP BY, and the baseline every other kernel is measured against.

use hashbrown::HashMap;

use super::result::Groups;

/// ahash with fixed seeds: runs are repeatable, and the published naive and radix runs use ahash.
pub(crate) fn ahash_state() -> ahash::RandomState {
    ahash::RandomState::with_seeds(0x6d65_6d77, 0x616c_6c21, 0x6772_6f75, 0x7062_7921)
}

pub(super) fn aggregate(keys: &[i64]) -> Groups {
    aggregate_bounded(keys, usize::MAX).expect("no limit")
}

/// As [`aggregate`], but gives up (returns `None`) as soon as more than `max_groups` groups turn
/// up: the adaptive kernel tries the textbook table this way first.
pub(super) fn aggregate_bounded(keys: &[i64], max_groups: usize) -> Option<Groups> {
    let mut counts: HashMap<i64, u64, ahash::RandomState> = HashMap::with_hasher(ahash_state());
    // Checking the size once per block keeps the check off the per-row path.
    for block in keys.chunks(4096) {
        for &key in block {
            *counts.entry(key).or_insert(0) += 1;
        }
        if counts.len() > max_groups {
            return None;
        }
    }
    let mut groups = Groups::default();
    for (&key, &count) in &counts {
        groups.add(key, count);
    }
    Some(groups)
}
