//! The control experiment: no partitioning, one flat table for all groups, and a software
//! prefetch of the slot that the row [`DISTANCE`] rows ahead will touch. The misses still
//! happen, but many at once instead of one after another: memory-level parallelism instead of
//! locality. Also what the adaptive kernel runs when the groups are a little too many for the
//! cache but not so many that partitioning pays.

use core::sync::atomic::{AtomicBool, Ordering};

use allocator_api2::vec::Vec as ScratchVec;

use super::agg::State;
use super::arrivals::{self, Counts, Window};
use super::config::GroupByError;
use super::flat::{Slot, capacity_for, drain_into, filled, merge_into, rehash, upsert};
use super::hash::hash;
use super::pay_back::{At, PayBack};
use super::per_thread::{Held, Part, PartTable};
use super::phases::{Phase, Phases};
use super::result::Groups;
use crate::arch::prefetch;
use crate::cost::payback::Look;
use crate::scratch::{Scratch, ScratchAlloc};

/// How many rows ahead to prefetch. A DRAM miss takes ~100-150 ns in a VM; one row's work is a
/// few ns, so the line must be asked for tens of rows early. Beyond that, more in flight only
/// competes for the core's miss buffers.
pub(crate) const DISTANCE: usize = 24;

/// The table is grown once it is half full. Fuller tables probe further: in cache each extra
/// probe is a mispredicted branch, in DRAM another miss. (Growing at 3/5 instead saved memory
/// on the clickbench preset but made the cache-sized tables the adaptive kernel relies on ~60%
/// slower: 7.7 against 4.7 ns/row at 65,536 groups.)
const LOAD_NUM: usize = 1;
const LOAD_DEN: usize = 2;

/// A table in scratch memory, `capacity` slots.
struct Table<'a, 's, S: State> {
    slots: ScratchVec<Slot<S>, ScratchAlloc<'a, 's>>,
}

impl<'a, 's, S: State> Table<'a, 's, S> {
    fn new(scratch: &'a Scratch<'s>, capacity: usize) -> Result<Self, GroupByError> {
        Ok(Self { slots: filled(scratch, capacity, (0, S::EMPTY))? })
    }

    fn capacity(&self) -> usize {
        self.slots.len()
    }
}

/// The initial capacity for a hint of `hint` groups.
pub(crate) fn initial_capacity(hint: usize) -> usize {
    capacity_for((hint + hint / 8) * LOAD_DEN / LOAD_NUM, 1)
}

/// The initial capacity for a hint of `groups_hint` groups, of which there can be no more than
/// `rows` nor (before the table gives up) `max_groups`.
fn hinted_capacity(rows: usize, groups_hint: u64, max_groups: usize) -> usize {
    initial_capacity(usize::try_from(groups_hint).unwrap_or(usize::MAX).min(rows).min(max_groups))
}

/// The most slots (a power of two, at least 16) of `slot_bytes` that fit `cache_bytes`.
fn cache_capacity(cache_bytes: u64, slot_bytes: usize) -> usize {
    let slots = usize::try_from(cache_bytes / slot_bytes.max(1) as u64).unwrap_or(usize::MAX).max(16);
    1 << slots.ilog2()
}

/// The most groups a table of `capacity` slots takes before it grows.
pub(super) fn groups_before_growing(capacity: usize) -> usize {
    capacity / LOAD_DEN * LOAD_NUM
}

/// `groups_hint` sizes the table; too low only costs rehashes. `cache_bytes` is the per-core
/// cache: a table that fits it is probed without prefetches (see [`Bounded`]).
pub(super) fn aggregate<S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    cache_bytes: u64,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Groups, GroupByError> {
    Ok(aggregate_bounded::<S>(keys, values, groups_hint, usize::MAX, None, cache_bytes, scratch, phases)?
        .expect("no limit"))
}

/// As [`aggregate`], but gives up (returns `None`) as soon as more than `max_groups` groups turn
/// up (more on skewed keys, see [`Bounded::stretch`]): the adaptive kernel tries one
/// table this way before paying for partitioning, paying back as `paying_back` says.
#[allow(clippy::too_many_arguments)]
pub(super) fn aggregate_bounded<S: State>(
    keys: &[i64],
    values: &[S::Value],
    groups_hint: u64,
    max_groups: usize,
    paying_back: Option<PayBack>,
    cache_bytes: u64,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
) -> Result<Option<Groups>, GroupByError> {
    let never = AtomicBool::new(false);
    let table = phases.time(Phase::Aggregate, || {
        let mut table = Bounded::<S>::new(keys.len(), groups_hint, max_groups, cache_bytes, scratch, paying_back)?;
        Ok::<_, GroupByError>(table.add(keys, values, &never)?.then_some(table.table))
    })?;
    let Some(mut table) = table else { return Ok(None) };
    let mut out = Groups::default();
    phases.time(Phase::Emit, || drain_into(&mut table.slots, &mut out));
    Ok(Some(out))
}

/// Rows between two looks at whether another thread gave up.
const GIVE_UP_ROWS: usize = 1 << 16;

/// A flat table that takes rows a slice at a time (adaptive's trial times some of them) and
/// gives up past `max_groups` groups, or past [`stretched_limit`] where its hot keys fit the cache.
///
/// Prefetches only once the table outgrows `cache_bytes` (the per-core cache): a table in cache
/// has nothing to hide, and the prefetch costs a second hash and a load slot on every row.
pub(super) struct Bounded<'a, 's, S: State> {
    table: Table<'a, 's, S>,
    groups: usize,
    max_groups: usize,
    /// Whether the table has already been looked at for going past `max_groups` (see
    /// [`Bounded::stretch`]): once, so a table never grows past [`stretched_limit`].
    looked_past_limit: bool,
    /// Whether it went on past its first limit.
    stretched: bool,
    /// The rows it is meant to take (its thread's share), and whether it gives up once the
    /// groups still to come are too many for those rows to pay back ([`Bounded::new`]'s `paying_back`).
    rows: usize,
    paying_back: Option<PayBack>,
    /// The capacity at which the window of rows that the next look past the cache tests for
    /// order ([`super::arrivals`]) opened, and the window.
    window_at: Option<usize>,
    window: Window,
    /// Rows taken so far.
    taken: u64,
    cache_bytes: u64,
    scratch: &'a Scratch<'s>,
}

impl<'a, 's, S: State> Bounded<'a, 's, S> {
    /// A table sized for `groups_hint` groups (too low only costs rehashes) among `rows` rows.
    ///
    /// `paying_back`: the table also gives up, each time it would double past the per-core
    /// cache, where the rows it has left, with the groups its counts foresee (`arrivals.rs`),
    /// cost more than a partitioned pass over every row, those it took too: they are wasted
    /// (adaptive starts over partitioned). [`PayBack::keeps`] prices that, by the cost model or
    /// a rule ([`Bounded::may_double`]). Not for the trial's own tables (`small.rs`): one giving
    /// up would end the small tables' try before the others showed whether the groups fit them.
    ///
    /// Such a table starts no larger than the table that fills the per-core cache, whatever
    /// `groups_hint` says, so that its first look at its counts comes when it first outgrows that
    /// cache, not when it outgrows a size an estimate chose. On the small preset (10M rows, 1.7M
    /// groups, Zipf-like) a sample's ~520,000 groups sized it at 2 Mi slots (32 MiB), its first
    /// look came at 1,048,576 groups, and adaptive's given-up phase took 2.95-4.53 ns/row of
    /// 9.73-10.82 on the 2-vCPU Xeon guest; from 128 Ki slots (its 2 MiB L2) the first look comes
    /// at 65,536 groups, and it took 0.93-1.36 of 7.43-9.89
    /// (`docs/results/adaptive-carry-xeon-2vcpu-kvm/small-phases-*.txt`). A table that goes on
    /// only pays rehashes up to its size, each moving its groups once.
    pub fn new(
        rows: usize,
        groups_hint: u64,
        max_groups: usize,
        cache_bytes: u64,
        scratch: &'a Scratch<'s>,
        paying_back: Option<PayBack>,
    ) -> Result<Self, GroupByError> {
        let hinted = hinted_capacity(rows, groups_hint, max_groups);
        let capacity =
            if paying_back.is_some() { hinted.min(cache_capacity(cache_bytes, size_of::<Slot<S>>())) } else { hinted };
        Ok(Self {
            table: Table::new(scratch, capacity)?,
            groups: 0,
            max_groups,
            looked_past_limit: false,
            stretched: false,
            rows,
            paying_back,
            window_at: None,
            window: Window::default(),
            taken: 0,
            cache_bytes,
            scratch,
        })
    }

    /// Whether the table, past its limit, may go on to [`stretched_limit`], decided once from
    /// its own counts (every row it has taken, exact, where adaptive's sample has tens of
    /// thousands).
    ///
    /// The limit is the table that fills the cache. Past it, with skewed keys, the lines that
    /// stay are the hot keys' ones, and rows of the rest miss, each a prefetched miss. So it
    /// goes on only where
    /// * the keys are skewed: the hottest half of them took at least [`HOT_SHARE`] of its rows,
    ///   and
    /// * its counts foresee no more than the stretched limit in all: Chao's `d + f1 (f1 - 1) /
    ///   2 (f2 + 1)` from the keys seen once (`f1`) and twice (`f2`), a lower bound that skew
    ///   keeps low, which is why the table still gives up if it meets more.
    ///
    /// Measured on the 2-vCPU Xeon guest at 100,000 Zipf 1.1 keys, 2 threads (a limit of 65,536
    /// groups a table): `memwall groupby --input rows-100000000-100000-zipf1.1.parquet --column
    /// key --threads 2 --kernel adaptive,tuned --runs 3 --caches-from C` (the file `bench/sweep.sh`
    /// writes; C a ladder that read L2 to 2 MiB, DRAM from 8 MiB) took adaptive, going on, 3.43
    /// ns/row against tuned's 5.81; before,
    /// adaptive partitioned. At 10M rows the two were level (6.69 and 6.43 median). Eight times
    /// the limit (10^6 keys) and uniform keys are refused: tables forced on there lost to tuned,
    /// 7.50 against 6.47 and 7.90 against 6.31.
    fn stretch(&mut self) -> bool {
        if self.looked_past_limit || self.max_groups == usize::MAX {
            return false;
        }
        self.looked_past_limit = true;
        if self.keeps_to_its_runs() {
            // Its limit was a cache's; a table whose rows keep to their runs has no cache to fit.
            self.max_groups = self.rows.max(self.max_groups);
            self.stretched = true;
            return true;
        }
        let mut counts = self.counts();
        let rows: u64 = counts.iter().sum();
        let foreseen = Counts::of(counts.iter().copied()).chao();
        let hot = (self.max_groups / 2).min(counts.len());
        if hot < counts.len() {
            counts.select_nth_unstable_by(hot, |a, b| b.cmp(a));
        }
        let hot_rows: u64 = counts[..hot].iter().sum();
        let stretched = stretched_limit(self.max_groups, size_of::<Slot<S>>());
        let stretches = hot_rows as f64 >= HOT_SHARE * rows as f64 && foreseen <= stretched as u64;
        if stretches {
            self.max_groups = stretched;
            self.stretched = true;
        }
        stretches
    }

    /// Whether a table that pays back, past its limit, may go on because its rows come in runs
    /// that rarely return to a key: decided from its last window (`arrivals.rs`).
    ///
    /// Its limit is the table that fills the last-level cache, because past it a row whose line
    /// is not in cache misses. Where each key's rows come together (sorted, clustered), a row
    /// finds the line the row before it touched, and only a run's first row can miss: where
    /// that run starts a new group, as the pay-back already counts, or where it returns to a key
    /// seen before, after others. So the table goes on where its window's rows are in order
    /// ([`arrivals::ordered`]) and the groups still to come with the rows that will return to a
    /// key, at the window's rate, pay back as new groups do ([`pays_back`]). Sorted keys return
    /// to none: on 300,000 uniform keys sorted, 67 rows each, the prefetch kernel's one table
    /// took 4.4-4.5 ns/row against tuned's 7.9-8.3, where adaptive gave up at its limit of
    /// 262,144 groups and took 12.1. Sessions of a few rows each return on most runs, and a
    /// table of them past the cache lost to tuned: on 780,000 Zipf 0.9 keys in sessions the
    /// prefetch kernel took 10.7-11.3 against tuned's 9.2-9.8
    /// (`docs/results/adaptive-order-emr-2vcpu-kvm/d70b79e-alone/`).
    fn keeps_to_its_runs(&self) -> bool {
        let Some(pay_back) = self.paying_back else { return false };
        let look = self.counts_now();
        let rows_left = (self.rows as u64).saturating_sub(look.rows);
        let Some(returns) = self.returns(&look, rows_left) else { return false };
        let to_come = arrivals::to_come(Some(&self.window), &look, rows_left) as f64;
        pay_back.keeps(&self.at(&look, to_come, Some(to_come + returns), to_come + returns))
    }

    /// What the table knows at `look` for its pay-back ([`PayBack::keeps`]).
    fn at(&self, look: &Counts, to_come: f64, run_starts: Option<f64>, rule_misses: f64) -> At {
        let groups = usize::try_from(look.groups.saturating_add(to_come as u64)).unwrap_or(usize::MAX);
        let look = Look {
            taken: look.rows,
            rows_left: (self.rows as u64).saturating_sub(look.rows),
            groups: look.groups,
            to_come,
            table_bytes: (initial_capacity(groups) as u64).saturating_mul(size_of::<Slot<S>>() as u64),
            run_starts,
            per_core_bytes: self.cache_bytes,
            distance: DISTANCE,
            row_bytes: self.paying_back.map_or(0, |p| p.row_bytes),
        };
        At { look, rule_misses }
    }

    /// Where the last window's rows keep to runs ([`arrivals::ordered`]), the rows left that will
    /// return to a key seen before, at the window's rate: runs that start no new group. `None`
    /// where no window was taken or its rows keep to no order.
    fn returns(&self, look: &Counts, rows_left: u64) -> Option<f64> {
        let window = &self.window;
        if self.window_at.is_none() || window.pairs == 0 || look.rows <= window.opened_rows {
            return None;
        }
        if !arrivals::ordered(look, window) {
            return None;
        }
        let starts = (window.pairs - window.repeats) as f64 / window.pairs as f64;
        let new = look.groups.saturating_sub(window.opened_groups) as f64 / (look.rows - window.opened_rows) as f64;
        Some((starts - new).max(0.0) * rows_left as f64)
    }

    /// Takes another table's groups, each `(key, state)` a group it does not hold yet, as if it
    /// had taken their rows: the flat table hands its groups over this way where it would grow
    /// past the per-core cache (`split.rs`).
    pub fn adopt(&mut self, groups: impl Iterator<Item = (u64, S)>) -> Result<(), GroupByError> {
        for (key, state) in groups {
            if self.groups >= groups_before_growing(self.table.capacity()) {
                let mut bigger = Table::new(self.scratch, self.table.capacity() * 2)?;
                rehash(&mut self.table.slots, &mut bigger.slots);
                self.table = bigger;
            }
            merge_into(&mut self.table.slots, key, &state);
            self.groups += 1;
            self.taken += state.count();
        }
        Ok(())
    }

    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(super) fn capacity(&self) -> usize {
        self.table.capacity()
    }

    /// The groups it holds (for the property tests, which wasm32 does not build).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(super) fn groups(&self) -> usize {
        self.groups
    }

    /// Whether the table may double, from one look at its counts where a rule needs them:
    /// * a stretched table looks again each time it doubles: more rows make a truer bound, and a
    ///   table that would give up at its stretched limit gives up sooner, wasting fewer rows;
    /// * a table [paying back](Bounded::new) that would double past the per-core cache
    ///   must foresee few enough groups still to come for the rows it has left, and for those it
    ///   has taken: giving up throws them away, and the partitioned pass reads them again. So a
    ///   late look (most rows taken) weighs what giving up wastes. Counting the rows left alone,
    ///   a table on 300,000 Zipf 1.1 keys in sessions with a heavy key gave up late: adaptive's
    ///   given-up phase took about half its time, where the prefetch kernel's one table was the
    ///   fastest (`docs/results/adaptive-order-xeon-2vcpu-kvm/heaps/late-give-up.txt`).
    ///
    /// Returns the capacity to grow to, `None` to give up. A table the model found paying back
    /// grows straight to the table its counts foresee (within its limit), not a doubling at a
    /// time: each doubling moves every group it holds, and each look scans them. On 300,000
    /// uniform keys sorted over 20M rows, growing from the per-core cache a doubling at a time
    /// took adaptive's table 4.83 ns/row where the prefetch kernel's, sized once by its sample,
    /// took 4.08 (`docs/results/regret-zen3-2vcpu-kvm/grow-to-foreseen/`). Where the rule decided
    /// (Chao's bound, low on a heavy tail) it doubles: a jump put its next look later, and on
    /// 1,000,000 Zipf 1.1 keys shuffled it gave up after 533,000 rows where doubling gave up
    /// sooner (`docs/results/regret-zen3-2vcpu-kvm/zipf1m-given-up.txt`).
    fn may_double(&mut self) -> Option<usize> {
        let doubled = 2 * self.table.capacity();
        let past_cache = 2 * core::mem::size_of_val(&*self.table.slots) as u64 > self.cache_bytes;
        let must_pay_back = self.paying_back.is_some() && past_cache;
        if !self.stretched && !must_pay_back {
            return Some(doubled);
        }
        let look = self.counts_now();
        if self.stretched && look.chao() > self.max_groups as u64 {
            return None;
        }
        if !must_pay_back {
            return Some(doubled);
        }
        let rows_left = (self.rows as u64).saturating_sub(look.rows);
        let window = self.window_at.map(|_| &self.window);
        let to_come = arrivals::to_come(window, &look, rows_left) as f64;
        let run_starts = self.returns(&look, rows_left).map(|returns| to_come + returns);
        let at = self.at(&look, to_come, run_starts, to_come);
        let pays_back = self.paying_back.is_none_or(|p| p.keeps(&at));
        let foreseen = usize::try_from(look.groups.saturating_add(to_come as u64)).unwrap_or(usize::MAX);
        // No larger than doubling would grow it to for its limit's groups; only where the model
        // priced the look (its foresight the groups' growth, not a lower bound).
        let at_limit = capacity_for(self.max_groups.saturating_mul(LOAD_DEN) / LOAD_NUM, 1);
        let priced = self.paying_back.is_some_and(|p| p.priced(&at));
        let grown = if priced { doubled.max(initial_capacity(foreseen).min(at_limit)) } else { doubled };
        // The next window opens now: the grown table holds at most half the groups it will hold
        // at its own look.
        self.window_at = Some(grown);
        self.window = Window::open(look.rows, look.groups);
        pays_back.then_some(grown)
    }

    /// Groups to go before the table opens the window of rows its next look tests for order: at
    /// half the groups it will hold then. `None` where no look comes at its next doubling (not
    /// paying back, or within the cache still) or the window is open.
    fn groups_to_window(&self) -> Option<usize> {
        let capacity = self.table.capacity();
        let looks = 2 * core::mem::size_of_val(&*self.table.slots) as u64 > self.cache_bytes;
        if self.paying_back.is_none() || !looks || self.window_at == Some(capacity) {
            return None;
        }
        Some((groups_before_growing(capacity) / 2).saturating_sub(self.groups))
    }

    /// The counts of its groups now.
    fn counts_now(&self) -> Counts {
        Counts::of(self.table.slots.iter().map(|slot| slot.1.count()))
    }

    /// The groups' counts so far, one per group.
    fn counts(&self) -> Vec<u64> {
        self.table.slots.iter().map(|slot| slot.1.count()).filter(|&count| count != 0).collect()
    }
}

/// The hot keys the cache a table's limit was sized by can hold: one line each, whatever the
/// slot's size, because a hot key's slot shares its line with cold ones. The limit is the
/// table that fills that cache half full, so the cache is `2 * max_groups` slots of
/// `slot_bytes`.
fn hot_keys_held(max_groups: usize, slot_bytes: usize) -> usize {
    max_groups.saturating_mul(2 * slot_bytes) / crate::ladder::LINE_BYTES
}

/// The most groups a prefetched table limited to `max_groups` goes on to where its hot keys
/// keep to the cache ([`Bounded::stretch`]): four times the hot keys the cache holds. In keys,
/// not bytes: past the cache what a row costs is whether its key's line stayed (a hot key's)
/// or misses (one line, whatever the slot's size). For a count's 16-byte slots that is twice
/// the limit, as measured above; a sum's 32-byte slots fill the cache at half as many groups
/// but reach the same keys. At twice its limit, a sum's table gave up at 100,000 Zipf 1.1 keys
/// over 100M rows, 2 threads, where caches read as L2 2 MiB and DRAM from 4 MiB made the limit
/// 49,152 groups, and adaptive partitioned: 6.13 ns/row against ClickHouse's 5.10 (the sweep of
/// 2026-12-03 in docs/results/sweep-xeon-2vcpu-kvm.md). One table a thread, as this reach
/// keeps, took 2.72 against tuned's 5.36 (`memwall groupby --rows 100M --keys 100000 --skew
/// zipf:1.1 --agg sum --threads 2 --kernel adaptive,tuned --runs 3 --caches-from C`, C a
/// page-local ladder of that guest that read L2 to 1 MiB, L3 to 8 MiB; 2026-12-04); at 300,000
/// keys, past the old reach, 3.95 against 4.96.
pub(crate) fn stretched_limit(max_groups: usize, slot_bytes: usize) -> usize {
    hot_keys_held(max_groups, slot_bytes).saturating_mul(4).max(max_groups)
}

/// The share of its rows the hottest half of a table's keys must take for it to go past its
/// limit ([`Bounded::stretch`]). At their trip points (a simulation of the first rows) Zipf 1.1
/// keys at 1.5 times the limit put 96% of the rows there, Zipf 0.8 85%, uniform keys 69%.
/// Forced on, the tables beat tuned at 100M rows on both skews; at 10M rows Zipf 0.8's lost,
/// 7.46 against 6.47 ns/row (fewer rows to pay back each group's first miss), which this share
/// lets through.
const HOT_SHARE: f64 = 0.75;

impl<'a, 's, S: State> PartTable<'a, 's, S> for Bounded<'a, 's, S> {
    /// Adds the rows; `false` once more than `max_groups` groups are in (and the table may not
    /// go on past them), or `give_up` is set.
    fn add(&mut self, keys: &[i64], values: &[S::Value], give_up: &AtomicBool) -> Result<bool, GroupByError> {
        // Equal lengths, stated once, so that indexing the values checks nothing per row.
        let values = &values[..keys.len()];
        let mut next = 0;
        while next < keys.len() {
            if give_up.load(Ordering::Relaxed) || (self.groups > self.max_groups && !self.stretch()) {
                return Ok(false);
            }
            // Each row adds at most one group: check the load once per block, not per row.
            let mut room = groups_before_growing(self.table.capacity()).saturating_sub(self.groups);
            match self.groups_to_window() {
                Some(0) => {
                    self.window_at = Some(self.table.capacity());
                    self.window = Window::open(self.taken, self.groups as u64);
                    continue;
                }
                Some(to_open) => room = room.min(to_open),
                None => {}
            }
            if room == 0 {
                let Some(grown) = self.may_double() else { return Ok(false) };
                let mut bigger = Table::new(self.scratch, grown)?;
                rehash(&mut self.table.slots, &mut bigger.slots);
                self.table = bigger;
                continue;
            }
            let end = keys.len().min(next + room.min(GIVE_UP_ROWS));
            let slots = &mut *self.table.slots;
            let mask = slots.len() - 1;
            let mut groups = 0;
            if core::mem::size_of_val(slots) as u64 <= self.cache_bytes {
                for i in next..end {
                    let key = keys[i];
                    groups += usize::from(upsert(slots, key, hash(key), values[i]));
                }
            } else {
                for i in next..end {
                    if let Some(&ahead) = keys.get(i + DISTANCE) {
                        prefetch(&slots[hash(ahead) as usize & mask]);
                    }
                    let key = keys[i];
                    groups += usize::from(upsert(slots, key, hash(key), values[i]));
                }
            }
            self.groups += groups;
            self.taken += (end - next) as u64;
            // The test for order takes a block's rows, not every row of a long window: a table
            // that has stopped growing would pay for a look that never comes.
            if self.window_at.is_some() && self.window.pairs < GIVE_UP_ROWS as u64 {
                self.window.tally(&keys[next..end]);
            }
            next = end;
        }
        Ok(self.groups <= self.max_groups || self.stretch())
    }

    fn into_part(self) -> Result<Part<'a, 's, S>, GroupByError> {
        let full = self.table.slots.iter().filter(|slot| slot.1.count() != 0).copied();
        super::per_thread::part_of(self.scratch, self.groups, full)
    }

    fn into_held(self) -> Result<Held<'a, 's, S>, GroupByError> {
        Ok(Held::Table { slots: self.table.slots, groups: self.groups })
    }
}
