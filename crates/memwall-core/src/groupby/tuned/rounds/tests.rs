//! The rounds alone, and tuned and adaptive run whole over inputs that end their rounds early,
//! late, or never.

use super::super::layout::SCATTER_BITS;
use super::*;
use crate::budget::CacheBudget;
use crate::datagen::{self, DataSpec, Skew};
use crate::exec::Sequential;
use crate::groupby::agg::{Aggregates, Count};
use crate::groupby::hash::bits_of;
use crate::groupby::{Kernel, Rows, Values, reference_rows, run_timed_in};
use crate::scratch::{HeapChunks, MemoryPolicy};
use crate::shape::{Order, Shape};

/// Two threads, each taking every other task.
struct Pair;

impl Executor for Pair {
    fn threads(&self) -> usize {
        2
    }
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        std::thread::scope(|scope| {
            for first in 0..2 {
                scope.spawn(move || (first..tasks).step_by(2).for_each(task));
            }
        });
    }
}

/// A last-level cache of `cache` bytes and a per-core cache of a quarter of it: with 256 KiB,
/// a first round of 963 rows of a count.
fn config(partitions: u32, cache: u64, aggregates: Aggregates) -> GroupByConfig {
    GroupByConfig { partitions, budget: CacheBudget::sized(cache / 4, cache), aggregates, host: None }
}

/// The rounds alone on a count: the rows they counted and the groups their tables hold.
fn rounds_of(keys: &[i64], config: &GroupByConfig, exec: &dyn Executor) -> (usize, usize) {
    let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
    scratch.begin_run();
    let bits = bits_of(config.partitions).min(SCATTER_BITS);
    let rounds = Rounds::new(config, keys.len(), 1, size_of::<Slot<Count>>(), 1 << bits);
    let units = vec![(); keys.len()];
    let (kept, start) = preaggregate::<Count>(keys, &units, bits, rounds, exec, &scratch, Phases::OFF).unwrap();
    (start, kept.iter().flatten().map(|t| t.groups).sum())
}

/// Tuned and adaptive equal the reference on one and two threads, within their scratch bound.
fn check(rows: Rows<'_>, config: &GroupByConfig, case: &str) {
    let want = reference_rows(rows, config.aggregates);
    for exec in [&Sequential as &dyn Executor, &Pair] {
        for kernel in [Kernel::Tuned, Kernel::Adaptive] {
            let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
            scratch.begin_run();
            let got = run_timed_in(kernel, rows, config, exec, &scratch, Phases::OFF, None).unwrap();
            let case = format!("{case}, {}, {} threads", kernel.name(), exec.threads());
            assert_eq!(got.result, want, "{case}");
            let bound = crate::groupby::scratch_bytes(kernel, rows.keys.len() as u64, want.groups, config, 2);
            assert!(scratch.run_memory().carved_bytes <= bound, "{case}: scratch past its bound {bound}");
        }
    }
}

#[test]
fn rounds_are_sized_from_the_cache_the_fanout_and_the_input() {
    const LOTS: usize = 1 << 30;
    // 64 partitions of 1,024 rows each outweigh the 32,768 rows of a 256 KiB cache.
    let rounds = Rounds::new(&config(64, 256 << 10, Aggregates::COUNT), LOTS, 1, 16, 64);
    assert_eq!((rounds.first_rows, rounds.most_rows, rounds.first_slots), (963, 65_536, 16));
    let big = Rounds::new(&config(4096, 32 << 20, Aggregates::COUNT), LOTS, 1, 16, 4096);
    assert_eq!((big.first_rows, big.most_rows, big.first_slots), (123_361, 4 << 20, 32));
    // Few partitions: the last-level cache's rows, or an eighth of the input if less, never
    // less than the first round.
    let few = |rows| Rounds::new(&config(16, 32 << 20, Aggregates::COUNT), rows, 1, 16, 16).most_rows;
    assert_eq!((few(100_000_000), few(16_000_000), few(100_000)), (4 << 20, 2_000_000, 123_361));
    // A 480 MiB cache on 100 M rows and 4,096 partitions: rounds of an eighth of the rows.
    let declared = Rounds::new(&config(4096, 480 << 20, Aggregates::COUNT), 100_000_000, 1, 16, 4096);
    assert_eq!(declared.most_rows, 12_500_000);
    // No new group: the largest round; a group a row: the first round's size.
    assert_eq!(rounds.next(8192, 0, 1 << 10, 68), 65_536);
    assert_eq!(rounds.next(963, 963, 60 << 10, 68), 963);
    // A new group every 100 rows with 32 KiB left: 48,188 rows; a new group every 1,000
    // rows with 2 KiB left: 30,117 rows.
    assert_eq!(rounds.next(1000, 10, 32 << 10, 68), 48_188);
    assert_eq!(rounds.next(10_000, 10, 62 << 10, 68), 30_117);
}

#[test]
fn one_key_is_counted_in_rounds_to_the_end() {
    let config = config(64, 256 << 10, Aggregates::COUNT);
    // After the first round of 963 rows, rounds of 65,536 rows fill a partition's pages of
    // 512 words exactly: end on a round, one row past it, one short, and tiny inputs.
    let ends = 963 + 3 * 65_536;
    for rows in [0, 1, 963, 964, ends - 1, ends, ends + 1] {
        let keys = vec![-7; rows];
        assert_eq!(rounds_of(&keys, &config, &Sequential), (rows, usize::from(rows > 0)), "{rows} rows");
        assert_eq!(rounds_of(&keys, &config, &Pair), (rows, usize::from(rows > 0)), "{rows} rows");
        check(Rows::keys(&keys), &config, &format!("{rows} rows of one key"));
    }
    // A round over several chunks (threads): a 1 MiB cache, 4,096 partitions, rounds of
    // 4 Mi rows, so all but the first 3,855 rows in one.
    let config = super::tests::config(4096, 1 << 20, Aggregates::COUNT);
    let keys = vec![i64::MIN; 400_000];
    assert_eq!(rounds_of(&keys, &config, &Pair), (keys.len(), 1));
    check(Rows::keys(&keys), &config, "400,000 rows of one key, 1 MiB cache");
}

#[test]
fn all_distinct_keys_stop_the_rounds_after_the_first() {
    let config = config(64, 256 << 10, Aggregates::COUNT);
    let keys: Vec<i64> = (0..50_000).map(|i| i * 7919).collect();
    assert_eq!(rounds_of(&keys, &config, &Sequential), (963, 963));
    check(Rows::keys(&keys), &config, "all distinct");
    // More partitions than the scatter makes: the kept groups go into the split's pieces.
    check(Rows::keys(&keys), &GroupByConfig { partitions: 1 << 14, ..config }, "all distinct, split");
}

#[test]
fn every_order_with_and_without_a_heavy_key_equals_the_reference() {
    let base = config(64, 256 << 10, Aggregates::COUNT);
    for (keys, counted_to_the_end) in [(100, true), (20_000, false)] {
        let spec = DataSpec { rows: 200_000, keys, skew: Skew::Zipf(1.1), seed: 11 };
        for order in Order::ALL {
            for heavy_share in [0.0, 0.3] {
                let mut data = datagen::generate(&spec).unwrap();
                Shape { order, heavy_share }.apply(&mut data, spec.seed);
                let case = format!("{keys} keys, {}", Shape { order, heavy_share }.describe());
                let (counted, _) = rounds_of(&data, &base, &Sequential);
                assert_eq!(counted == data.len(), counted_to_the_end, "{case}: {counted} rows in rounds");
                check(Rows::keys(&data), &base, &case);
                // Float states carried from the rounds end exactly as one pass leaves them.
                let floats: Vec<f64> = (0..data.len()).map(|i| (i as f64).sin() * 1e6).collect();
                let all = Aggregates::parse("count,sum,min,max,avg").unwrap();
                let rows = Rows { keys: &data, values: Values::F64(&floats) };
                check(rows, &GroupByConfig { aggregates: all, ..base }, &format!("{case}, float aggregates"));
            }
        }
    }
}
