//! The textbook GROUP BY, and the baseline every other kernel is measured against.

use hashbrown::HashMap;

use super::result::Groups;

/// ahash with fixed seeds: runs are repeatable, and the published naive and radix runs use ahash.
pub(crate) fn ahash_state() -> ahash::RandomState {
    ahash::RandomState::with_seeds(0x6d65_6d77, 0x616c_6c21, 0x6772_6f75, 0x7062_7921)
}

pub(super) fn aggregate(keys: &[i64]) -> Groups {
    let mut counts: HashMap<i64, u64, ahash::RandomState> = HashMap::with_hasher(ahash_state());
    for &key in keys {
        *counts.entry(key).or_insert(0) += 1;
    }
    let mut groups = Groups::default();
    for (&key, &count) in &counts {
        groups.add(key, count);
    }
    groups
}
