//! Adaptive's first try, for groups that fit a core's cache: one table per thread, and which
//! table is measured on the host rather than assumed.
//!
//! Three tables compete there: hashbrown (SIMD probing of a group of control bytes, so no branch
//! mispredicts on a collision, but the control bytes and the slot are two loads) and memwall's
//! flat table with its keys apart from its states (`split.rs`: one multiply to hash, a dense
//! array of keys to probe, a branch per extra probe). Which is faster is a property of the core:
//! on 2-vCPU Zen 4 and Zen 5 guests hashbrown led the `(key, state)` flat table up to
//! 32,768-65,536 groups, on a Zen 3 guest the flat table led from 1,000 keys by 1.2-1.6x (and
//! ClickHouse's own flat table beat hashbrown there). The third is the prefetched table
//! (`prefetch.rs`), for the groups past the per-core cache that adaptive still gives a small
//! table (its limit reaches into the last-level cache, where on Zen 4 hashbrown's overlapping
//! misses still led): on the 2-vCPU Xeon guest, whose L3 answers in ~19 ns (73 cycles), 100,000
//! keys over 100M rows (a 2-4 MB table, past its 2 MiB L2) took the small tables 2.28 ns/row
//! (Zipf 1.1) and 4.00 (uniform) at 2 threads, the prefetched one 1.76 and 3.41. So each table
//! takes some of the first rows
//! untimed (to hold most groups, as it will for the rest of the run), then two slices each,
//! timed by the front end's clock; the faster table takes the rest of the rows, and the trial's
//! two tables are merged with the threads' like any other part: no row is aggregated twice.

use core::sync::atomic::AtomicBool;

use super::agg::State;
use super::config::GroupByError;
use super::pay_back::PayBack;
use super::per_thread::{self, PartTable};
use super::phases::{Phase, Phases};
use super::result::Groups;
use super::work::chunks_for;
use super::{arrivals, naive, prefetch, split};
use crate::clock::{Clock, resolution_ns};
use crate::exec::Executor;
use crate::scratch::Scratch;

/// The table a trial ([`aggregate_bounded`]) picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Table {
    Hashbrown,
    Flat,
    Prefetched,
}

impl Table {
    const ALL: [Table; 3] = [Table::Hashbrown, Table::Flat, Table::Prefetched];
}

/// What a trial measured: each table's faster slice, and the clock's step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Trial {
    /// Rows in a slice.
    pub rows: usize,
    /// Each table's faster slice, in [`Table`]'s order.
    pub ns: [f64; 3],
    /// The clock's resolution: a slice's time is the difference of two reads.
    pub resolution_ns: f64,
}

impl Trial {
    /// The faster of the two small tables where the clock can tell them apart, else hashbrown,
    /// the textbook (a browser that is not cross-origin isolated reads time in 100 µs steps,
    /// longer than the whole trial); the prefetched table where the clock tells it faster than
    /// that one. The clock decides: no rule on the groups overrules it (on the Xeon guest a
    /// rule that kept the prefetched table out while its groups fit the per-core cache threw
    /// out a table the trial had timed at 4.58 ns/row against the flat table's 6.58, issue 47).
    pub fn winner(&self) -> Table {
        let [hashbrown, flat, prefetched] = self.ns;
        let (small, small_ns) =
            if self.faster(flat, hashbrown) { (Table::Flat, flat) } else { (Table::Hashbrown, hashbrown) };
        if self.faster(prefetched, small_ns) { Table::Prefetched } else { small }
    }

    /// Whether `ns` is shorter than `than_ns` by more than the clock can blur: each is the
    /// difference of two reads.
    fn faster(&self, ns: f64, than_ns: f64) -> bool {
        than_ns - ns > 2.0 * self.resolution_ns
    }

    /// What the trial found, for adaptive's reason.
    pub fn describe(&self) -> String {
        let per_row = |table: Table| self.ns[table as usize] / self.rows.max(1) as f64;
        let hashbrown_ns = self.ns[Table::Hashbrown as usize];
        let told = match self.winner() {
            Table::Flat => "the flat table",
            Table::Prefetched => "the prefetched table",
            Table::Hashbrown if self.faster(hashbrown_ns, self.ns[Table::Flat as usize]) => "hashbrown",
            Table::Hashbrown => "hashbrown (the flat table no faster than this clock can tell)",
        };
        let prefetched = format!("prefetched {:.2}", per_row(Table::Prefetched));
        format!(
            "a trial on slices of {} rows, the faster of two each: hashbrown {:.2} ns/row, flat {:.2}, {prefetched} (clock step {:.0} ns): {told}",
            self.rows,
            per_row(Table::Hashbrown),
            per_row(Table::Flat),
            self.resolution_ns
        )
    }
}

/// The trial's share of the rows: it runs on one thread while the others wait, so it takes
/// `1 / SHARE` of the rows per thread, about `1 / SHARE` of the run's time.
const SHARE: usize = 64;
/// Each timed slice: at least enough rows for a clock read (tens of ns natively) not to matter
/// against them, at most enough to time well (a few ms).
const MIN_SLICE_ROWS: usize = 4096;
const MAX_SLICE_ROWS: usize = 1 << 18;
/// Before the timed slices, each table takes this many slices' rows untimed: the trial then
/// times what the rest of the run does (most rows find their group), not a young table's
/// inserts and growth. Measured on a 2-vCPU Xeon guest, 10,000 keys over 10M rows: timed from
/// empty tables the flat table looked 2.7x slower than hashbrown (60 against 23 ns/row), where
/// over the whole run it was 0.8x (10.3 against 8.2).
const WARM_SLICES: usize = 2;

/// Rows in each timed slice over `rows` rows on `threads` threads; 0 where there are too few
/// rows for a trial to tell anything.
pub(super) fn slice_rows(rows: usize, threads: usize) -> usize {
    // Each table: its warm-up and two timed slices.
    let slice = (rows / (SHARE * threads.max(1) * Table::ALL.len() * (WARM_SLICES + 2))).min(MAX_SLICE_ROWS);
    if slice < MIN_SLICE_ROWS { 0 } else { slice }
}

/// The rows a trial has not taken yet, handed out in order.
struct Cursor<'k, V> {
    keys: &'k [i64],
    values: &'k [V],
    next: usize,
}

impl<'k, V> Cursor<'k, V> {
    fn take(&mut self, rows: usize) -> (&'k [i64], &'k [V]) {
        let range = self.next..self.next + rows;
        self.next += rows;
        (&self.keys[range.clone()], &self.values[range])
    }
}

/// hashbrown's warm-up of `warm` rows, in two halves, the second a window on the rows' order
/// (`arrivals.rs`); whether its groups fit, and the groups its rows foresee by the end of
/// `rows_per_thread` rows (Chao's bound, or where the keys come in runs, the groups' growth:
/// `arrivals::to_come`).
fn warm_up<S: State>(
    hashbrown: &mut naive::Bounded<'_, '_, S>,
    rows: &mut Cursor<'_, S::Value>,
    warm: usize,
    rows_per_thread: usize,
) -> Result<(bool, usize), GroupByError> {
    let never = AtomicBool::new(false);
    let (k, v) = rows.take(warm / 2);
    let mut fit = hashbrown.add(k, v, &never)?;
    let opened = hashbrown.counts();
    let mut window = arrivals::Window::open(opened.rows, opened.groups);
    let (k, v) = rows.take(warm - warm / 2);
    window.tally(k);
    fit &= hashbrown.add(k, v, &never)?;
    let look = hashbrown.counts();
    let to_come = arrivals::to_come(Some(&window), &look, rows_per_thread.saturating_sub(warm) as u64);
    Ok((fit, usize::try_from(look.groups.saturating_add(to_come)).unwrap_or(usize::MAX)))
}

/// Times the tables, in [`Table`]'s order: each takes its warm-up of `warm` rows (hashbrown
/// took its own before), then its two timed slices at once. Timed after another table's rows, a
/// table would be timed fetching its own lines back from a farther cache, which the rest of the
/// run, one table on the core, does not do. Each table's faster slice counts: one the OS took
/// the core away in counts for nothing. `None` once a table's groups outgrow it.
fn time_tables<'a, 's, S: State>(
    tables: [&mut dyn PartTable<'a, 's, S>; 3],
    rows: &mut Cursor<'_, S::Value>,
    warm: usize,
    slice: usize,
    clock: &dyn Clock,
) -> Result<Option<[f64; 3]>, GroupByError> {
    let never = AtomicBool::new(false);
    let mut ns = [f64::INFINITY; 3];
    for (table, part) in Table::ALL.into_iter().zip(tables) {
        for timed in [false, true, true].into_iter().skip(usize::from(table == Table::Hashbrown)) {
            let (k, v) = rows.take(if timed { slice } else { warm });
            let began = if timed { clock.now_ns() } else { 0.0 };
            if !part.add(k, v, &never)? {
                return Ok(None);
            }
            if timed {
                ns[table as usize] = ns[table as usize].min(clock.now_ns() - began);
            }
        }
    }
    Ok(Some(ns))
}

/// All groups of the rows in one table per thread, merged, the table picked by a trial; `None`
/// once more than `max_groups` groups turn up in any part, or once the first rows and a sample
/// (`sample_says_more`) both foresee more. Needs [`slice_rows`] > 0.
///
/// Where the prefetched table wins, it goes on to its own limit, `prefetched_limit` (the table
/// that fills the last level's share, as adaptive's second try has), not the small tables': on
/// 100,000 Zipf 1.1 keys in sessions, held to the small tables' 65,536 groups it reached them,
/// and its look at whether its hot keys let it go on (`prefetch::Bounded::stretch`) took 2.2%
/// of the profiled process's samples (`docs/results/regret-zen4-2vcpu-kvm/overhead/`).
#[allow(clippy::too_many_arguments)]
pub(super) fn aggregate_bounded<S: State>(
    keys: &[i64],
    values: &[S::Value],
    max_groups: usize,
    prefetched_limit: usize,
    pay_back: PayBack,
    cache_bytes: u64,
    clock: &dyn Clock,
    exec: &dyn Executor,
    scratch: &Scratch<'_>,
    phases: Phases<'_>,
    sample_says_more: &dyn Fn() -> bool,
) -> Result<Option<(Groups, Table, Trial)>, GroupByError> {
    let slice = slice_rows(keys.len(), chunks_for(keys.len(), exec));
    let mut hashbrown = naive::Bounded::<S>::new(max_groups, scratch);
    let rows_per_thread = keys.len().div_ceil(chunks_for(keys.len(), exec));
    let mut rows = Cursor { keys, values: &values[..keys.len()], next: 0 };
    let start = phases.start();
    let warm = WARM_SLICES * slice;
    let (fit, foreseen) = warm_up(&mut hashbrown, &mut rows, warm, rows_per_thread)?;
    // Where the first rows already foresee more groups than the try may hold, the trial and the
    // winner's rows up to that limit would be thrown away. Rows in some orders make the first
    // rows look so when the groups do fit (every key once, then the repeats), so a random sample
    // decides (`sample_says_more`, adaptive's, taken once and kept): where it says more too, the
    // try ends here, one warm-up's rows spent. On 10M keys over 10M rows the whole try had cost
    // 7% of the run; on 300,000 sorted keys over 20M rows (67 rows a key), where only the keys'
    // runs foresee more, it gave up only at its limit's 262,144 groups, some 87% of the rows, and
    // adaptive ran at 2.0x naive's time (`docs/results/adaptive-order-xeon-2vcpu-kvm/consecutive/`).
    if !fit || (foreseen > max_groups && sample_says_more()) {
        phases.stop(Phase::Trial, start);
        return Ok(None);
    }
    // Each table is sized for the groups it will hold by the end of its timed slices, as far as
    // the first rows foresee them: a table that doubles within a timed slice would be timed
    // moving its groups, which the rest of the run does not do.
    let held = foreseen.min(warm + 2 * slice);
    hashbrown.reserve(held)?;
    let mut flat = split::Bounded::<S>::sized(held, max_groups, cache_bytes, scratch)?;
    let mut prefetched =
        prefetch::Bounded::<S>::new(rows_per_thread, held as u64, max_groups, cache_bytes, scratch, None)?;
    let timed = time_tables([&mut hashbrown, &mut flat, &mut prefetched], &mut rows, warm, slice, clock)?;
    phases.stop(Phase::Trial, start);
    let Some(ns) = timed else { return Ok(None) };
    let trial = Trial { rows: slice, ns, resolution_ns: resolution_ns(clock, 2) };
    let done = vec![hashbrown.into_part()?, flat.into_part()?, prefetched.into_part()?];
    // The winner's tables start at the most groups a trial table met: fewer rehashes.
    let hint = done.iter().map(|part| part.len()).max().unwrap_or(0) as u64;
    let (keys, values) = (&keys[rows.next..], &rows.values[rows.next..]);
    let winner = trial.winner();
    let groups = match winner {
        Table::Hashbrown => per_thread::aggregate_bounded::<S, _>(keys, values, done, exec, scratch, phases, || {
            Ok(naive::Bounded::<S>::new(max_groups, scratch))
        }),
        Table::Flat => per_thread::aggregate_bounded::<S, _>(keys, values, done, exec, scratch, phases, || {
            split::Bounded::<S>::handing_over(max_groups, cache_bytes, scratch, (rows_per_thread, pay_back))
        }),
        Table::Prefetched => per_thread::aggregate_bounded::<S, _>(keys, values, done, exec, scratch, phases, || {
            prefetch::Bounded::<S>::new(
                rows_per_thread,
                hint,
                prefetched_limit.max(max_groups),
                cache_bytes,
                scratch,
                Some(pay_back),
            )
        }),
    }?;
    Ok(groups.map(|groups| (groups, winner, trial)))
}
