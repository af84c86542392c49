//! The cache budget every adaptive choice is sized by: how much cache one core can count on, per
//! core (its L2) and in all (the last-level cache it really gets). Built once, from the levels a
//! ladder read (see [`crate::explain`]) or from what the OS declares when no ladder ran, and
//! handed to the GROUP BY and join kernels alike.

use memwall_report::{Cache, Cause, Level};

use crate::size::format_bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheBudget {
    /// The cache a hash table should fit in to be fast: the per-core L2, up to the largest working
    /// set that still read at its speed.
    pub per_core_bytes: u64,
    /// The last-level cache this core really gets (on a VM often a share of the declared L3).
    pub last_level_bytes: u64,
    pub source: BudgetSource,
}

/// Where a [`CacheBudget`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetSource {
    /// The levels a ladder read on this host: the numbers of the levels each size is from (0: no
    /// level past the per-core one was seen).
    Ladder { per_core_level: u8, last_level: u8 },
    /// What the OS declares.
    Declared,
    /// Defaults, where nothing better is known.
    Guess,
}

impl Default for CacheBudget {
    fn default() -> Self {
        Self::GUESS
    }
}

/// A cache level's size: the declared one where the ladder brackets it (the level's last
/// working set at or below it, the first one where it ran out at or above), else the last
/// working set the level held. With one working set an octave a cache of exactly 2^n bytes
/// never holds its last point whole: on the 2-vCPU Xeon guest the declared 2 MiB L2 read 1 MiB
/// in one ladder and 2 MiB in the next, and halved adaptive's limits with it.
fn bracketed(level: &Level) -> u64 {
    match (level.declared_bytes, level.capacity_bytes) {
        (Some(declared), Some(ran_out)) if (level.size_bytes..=ran_out).contains(&declared) => declared,
        _ => level.size_bytes,
    }
}

/// The one way a front end gets the budget the kernels run by: the caches the OS declares, for
/// `threads` threads (see [`CacheBudget::declared`]), replaced by the levels a ladder read where
/// one did (see [`CacheBudget::measured`]), whichever reader read them: a fresh ladder, a saved
/// report's, or the page's first look.
pub fn for_host(caches: &[Cache], threads: usize, levels: Option<&[Level]>) -> CacheBudget {
    let declared = CacheBudget::declared(caches, threads);
    levels.map_or(declared, |levels| declared.measured(levels))
}

impl CacheBudget {
    /// A 1 MiB L2 and 8 MiB of last-level cache: the middle of current server cores.
    pub const GUESS: Self = Self { per_core_bytes: 1 << 20, last_level_bytes: 8 << 20, source: BudgetSource::Guess };

    /// A budget of these sizes (tests and sweeps that set them by hand).
    pub fn sized(per_core_bytes: u64, last_level_bytes: u64) -> Self {
        Self { per_core_bytes, last_level_bytes, source: BudgetSource::Guess }
    }

    /// From the caches the OS declares: its L2, and of a last-level cache shared by more CPUs
    /// than `threads`, the fair share of those threads. A 16-vCPU guest declared its host's
    /// 300 MiB L3, "shared by 16", and its ladder found ~16 MiB of it; sized by all 300 MiB,
    /// adaptive kept a single table up to 9.8 M groups and ran at half tuned's speed.
    pub fn declared(caches: &[Cache], threads: usize) -> Self {
        let level = |n: u8| caches.iter().find(|c| c.level == n && c.kind != "Instruction");
        let fair_share = |c: &Cache| {
            let sharing = u64::from(c.shared_by_cpus.unwrap_or(1).max(1));
            c.size_bytes / sharing * (threads as u64).clamp(1, sharing)
        };
        Self {
            per_core_bytes: level(2).map_or(Self::GUESS.per_core_bytes, |c| c.size_bytes),
            last_level_bytes: level(3).map_or(Self::GUESS.last_level_bytes, fair_share),
            source: if level(2).is_some() { BudgetSource::Declared } else { BudgetSource::Guess },
        }
    }

    /// This budget with the sizes a ladder's levels show, where they show them: per core L2 to the
    /// end of its slower part if it has one (its declared size where the ladder brackets it, see [`bracketed`]), in
    /// all the last cache level before DRAM. A level the ladder did not see
    /// keeps the size it had, but no cache reaches DRAM: a last-level cache guessed too large
    /// costs far more (one table in DRAM) than one guessed too small (partitioning a little early).
    pub fn measured(self, levels: &[Level]) -> Self {
        let number = |l: &Level| l.name.strip_prefix('L').and_then(|n| n.split(' ').next()?.parse::<u8>().ok());
        let caches: Vec<(&Level, u8)> =
            levels.iter().filter(|l| l.cause == Cause::Cache).filter_map(|l| Some((l, number(l)?))).collect();
        // L2 with its slower part, where the ladder read one: a core's own cache to its end.
        let l2 = caches.iter().filter(|(_, n)| *n == 2).max_by_key(|(l, _)| l.size_bytes);
        let beyond = caches.iter().filter(|(_, n)| *n >= 3).max_by_key(|(l, _)| l.size_bytes);
        let dram = levels.iter().filter(|l| l.cause == Cause::Dram).map(|l| l.size_bytes).min();
        if l2.is_none() && beyond.is_none() && dram.is_none() {
            return self;
        }
        let per_core_bytes = l2.map_or(self.per_core_bytes, |(l, _)| bracketed(l));
        let below_dram = dram.map_or(u64::MAX, |d| d / 2);
        let last_level_bytes =
            beyond.map_or(self.last_level_bytes.min(below_dram), |(l, _)| l.size_bytes).max(per_core_bytes);
        let source = BudgetSource::Ladder {
            per_core_level: l2.map_or(2, |(_, n)| *n),
            last_level: beyond.map_or(0, |(_, n)| *n),
        };
        Self { per_core_bytes, last_level_bytes, source }
    }

    /// Which caches, how large, and how they were known: "L2 384 KiB and L3 2 MiB, as the ladder
    /// read them".
    pub fn describe(&self) -> String {
        let (per_core, last) = (format_bytes(self.per_core_bytes), format_bytes(self.last_level_bytes));
        match self.source {
            BudgetSource::Ladder { per_core_level, last_level: 0 } => format!(
                "L{per_core_level} {per_core} as the ladder read it, and {last} of last-level cache (the ladder saw \
                 none past L{per_core_level}: kept below where DRAM began)"
            ),
            BudgetSource::Ladder { per_core_level, last_level } => {
                format!("L{per_core_level} {per_core} and L{last_level} {last}, as the ladder read them")
            }
            BudgetSource::Declared => format!("L2 {per_core} and last-level cache {last}, as the OS declares them"),
            BudgetSource::Guess => {
                format!("L2 {per_core} and last-level cache {last}, guessed: nothing measured or declared them")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::level;

    fn cache(level: u8, size_bytes: u64, shared_by_cpus: u32) -> Cache {
        Cache { level, kind: "Unified".into(), size_bytes, line_bytes: Some(64), shared_by_cpus: Some(shared_by_cpus) }
    }

    #[test]
    fn for_host_is_the_declared_budget_replaced_by_the_levels_read() {
        let caches = [cache(2, 2 << 20, 1), cache(3, 64 << 20, 16)];
        let declared = for_host(&caches, 2, None);
        assert_eq!(declared, CacheBudget::declared(&caches, 2));
        assert_eq!(declared.source, BudgetSource::Declared);
        let levels = [
            level("L2", 1 << 20, Cause::Cache),
            level("L3", 8 << 20, Cause::Cache),
            level("DRAM", 32 << 20, Cause::Dram),
        ];
        let read = for_host(&caches, 2, Some(&levels));
        assert_eq!(read, CacheBudget::declared(&caches, 2).measured(&levels));
        assert_eq!((read.per_core_bytes, read.last_level_bytes), (1 << 20, 8 << 20));
    }

    #[test]
    fn the_levels_read_replace_the_declared_sizes_and_say_so() {
        let declared = CacheBudget::declared(&[cache(2, 1 << 20, 1), cache(3, 32 << 20, 2)], 1);
        assert_eq!((declared.per_core_bytes, declared.last_level_bytes), (1 << 20, 16 << 20));
        assert_eq!(declared.describe(), "L2 1 MiB and last-level cache 16 MiB, as the OS declares them");
        // The Intel guest read right: L3 to 16 MiB of the declared 480 MiB, DRAM from 64 MiB.
        let intel = [
            level("L1", 48 << 10, Cause::Cache),
            level("TLB reach", 512 << 10, Cause::Tlb),
            level("L2", 1 << 20, Cause::Cache),
            level("L3", 16 << 20, Cause::Cache),
            level("DRAM", 64 << 20, Cause::Dram),
        ];
        let measured = declared.measured(&intel);
        assert_eq!((measured.per_core_bytes, measured.last_level_bytes), (1 << 20, 16 << 20));
        assert_eq!(measured.describe(), "L2 1 MiB and L3 16 MiB, as the ladder read them");
        // A slower part of L3 is still L3: the share it ends at is the budget.
        let slices = [
            level("L2", 512 << 10, Cause::Cache),
            level("L3", 3 << 20, Cause::Cache),
            level("L3 (slower part)", 12 << 20, Cause::Cache),
            level("DRAM", 16 << 20, Cause::Dram),
        ];
        assert_eq!(declared.measured(&slices).last_level_bytes, 12 << 20);
        // No L3 seen: the declared one, but short of DRAM.
        let short = [level("L2", 256 << 10, Cause::Cache), level("DRAM", 2 << 20, Cause::Dram)];
        let measured = declared.measured(&short);
        assert_eq!((measured.per_core_bytes, measured.last_level_bytes), (256 << 10, 1 << 20));
        assert!(measured.describe().ends_with("(the ladder saw none past L2: kept below where DRAM began)"));
        assert_eq!(declared.measured(&[]), declared);
        // An L2 with a slower part inside its declared size is a core's own cache to the end of it.
        let slower = [
            level("L2", 128 << 10, Cause::Cache),
            level("L2 (slower part)", 2 << 20, Cause::Cache),
            level("L3", 128 << 20, Cause::Cache),
            level("DRAM", 512 << 20, Cause::Dram),
        ];
        assert_eq!(declared.measured(&slower).per_core_bytes, 2 << 20);
    }

    #[test]
    fn a_declared_l2_the_ladder_brackets_is_its_size() {
        let l2 = |size_bytes: u64, capacity: u64, declared: u64| Level {
            capacity_bytes: Some(capacity),
            declared_bytes: Some(declared),
            ..level("L2", size_bytes, Cause::Cache)
        };
        let dram = level("DRAM", 8 << 20, Cause::Dram);
        let budget = |l2: Level| CacheBudget::GUESS.measured(&[l2, dram.clone()]).per_core_bytes;
        // The Xeon guest's 2 MiB L2, read to 1 MiB (ran out by 2) and to 2 MiB (by 4): 2 MiB both.
        assert_eq!(budget(l2(1 << 20, 2 << 20, 2 << 20)), 2 << 20);
        assert_eq!(budget(l2(2 << 20, 4 << 20, 2 << 20)), 2 << 20);
        // A Zen 4 guest's declared 1 MiB L2 read to 256 KiB, ran out by 512 KiB: what was read.
        assert_eq!(budget(l2(256 << 10, 512 << 10, 1 << 20)), 256 << 10);
        // Declared smaller than the ladder held: what was read.
        assert_eq!(budget(l2(1 << 20, 2 << 20, 512 << 10)), 1 << 20);
    }

    #[test]
    fn a_shared_last_level_cache_counts_for_the_threads_share() {
        let host = [cache(2, 2 << 20, 1), cache(3, 300 << 20, 16)];
        assert_eq!(CacheBudget::declared(&host, 1).last_level_bytes, (300 << 20) / 16);
        assert_eq!(CacheBudget::declared(&host, 16).last_level_bytes, 300 << 20);
        assert_eq!(CacheBudget::declared(&host, 64).last_level_bytes, 300 << 20);
        assert_eq!(CacheBudget::declared(&[cache(2, 1 << 20, 1), cache(3, 32 << 20, 1)], 1).last_level_bytes, 32 << 20);
        assert_eq!(CacheBudget::declared(&[], 1), CacheBudget::GUESS);
    }
}
