use memwall_report::{Cause, Level};

use super::*;
use crate::groupby::{GroupByConfig, Kernel};

fn level(name: &str, size_bytes: u64, ns_per_load: f64, cause: Cause) -> Level {
    Level {
        name: name.into(),
        size_bytes,
        ns_per_load,
        cycles_per_load: None,
        cause,
        declared_bytes: None,
        capacity_bytes: None,
        evidence: vec![],
    }
}

fn levels() -> Vec<Level> {
    vec![
        level("L1", 32 << 10, 1.0, Cause::Cache),
        level("L2", 1 << 20, 4.0, Cause::Cache),
        level("L3", 16 << 20, 20.0, Cause::Cache),
        level("DRAM", 64 << 20, 100.0, Cause::Dram),
    ]
}

fn measured() -> Measured {
    Measured { knee_chains: Some(10), read_gb_per_s: Some(12.0), ghz: Some(3.0) }
}

#[test]
fn latency_climbs_from_level_to_level_as_the_working_set_outgrows_each() {
    let m = Machine::from_ladder(&levels(), measured()).unwrap();
    assert_eq!(m.latency_ns(16 << 10), 1.0);
    assert_eq!(m.latency_ns(32 << 10), 1.0);
    // 2 MiB: 1/64 in L1, the rest of the first half in L2, the other half in L3.
    let two = m.latency_ns(2 << 20);
    assert!((two - (1.0 / 64.0 + 4.0 * (0.5 - 1.0 / 64.0) + 20.0 * 0.5)).abs() < 1e-9, "{two}");
    // Far past the last cache, nearly DRAM's.
    assert!(m.latency_ns(16 << 30) > 99.0);
    let mut last = 0.0;
    for shift in 10..36 {
        let ns = m.latency_ns(1 << shift);
        assert!(ns >= last, "latency fell at 2^{shift}");
        last = ns;
    }
    assert!(m.missing.is_empty(), "{:?}", m.missing);
}

#[test]
fn missing_inputs_are_named_and_stood_in_for() {
    let no_dram: Vec<Level> = levels().into_iter().filter(|l| l.cause != Cause::Dram).collect();
    let m = Machine::from_ladder(&no_dram, Measured::default()).unwrap();
    assert_eq!(m.dram_ns(), 20.0);
    assert_eq!(m.missing.len(), 4, "{:?}", m.missing);
    assert!(m.missing[0].starts_with("DRAM latency"));
    assert!(m.missing.iter().any(|line| line.starts_with("parallelism knee")));
    assert_eq!((m.knee(), m.ghz()), (FIT_HOST.knee, FIT_HOST.ghz));
    assert!(Machine::from_ladder(&[], measured()).is_none());
}

fn work(groups: u64) -> Work {
    let config =
        GroupByConfig { budget: crate::budget::CacheBudget::sized(1 << 20, 16 << 20), ..GroupByConfig::default() };
    Work { rows: 10_000_000, groups, upper_groups: groups, threads: 1, config }
}

#[test]
fn the_model_sees_the_memory_wall_and_the_ways_around_it() {
    let m = Machine::from_ladder(&levels(), measured()).unwrap();
    for kernel in Kernel::ALL {
        let (few, many) = (predict(kernel, &m, &work(1000)), predict(kernel, &m, &work(8_000_000)));
        assert!(few.is_finite() && few > 0.0 && many >= few, "{kernel:?}: {few} then {many}");
    }
    // One table in DRAM waits far longer than partitions in cache.
    let dram = work(8_000_000);
    assert!(predict(Kernel::Naive, &m, &dram) > 2.0 * predict(Kernel::Tuned, &m, &dram));
    // Adaptive is priced as what it runs: never far above the best of the others.
    for groups in [1000, 30_000, 300_000, 3_000_000] {
        let best = [Kernel::Naive, Kernel::Prefetch, Kernel::Tuned]
            .map(|k| predict(k, &m, &work(groups)))
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        let adaptive = predict(Kernel::Adaptive, &m, &work(groups));
        assert!(adaptive < 2.0 * best, "{groups}: adaptive {adaptive}, best {best}");
    }
    // Two threads halve the partitioned kernels' time.
    let two = Work { threads: 2, ..dram };
    assert!((predict(Kernel::Tuned, &m, &two) * 2.0 - predict(Kernel::Tuned, &m, &dram)).abs() < 1e-9);
}

#[test]
fn model_error_is_the_median_and_the_worst() {
    let pairs = [(1.1, 1.0), (0.5, 1.0), (2.0, 2.0), (f64::NAN, 1.0)];
    let (median, worst) = race::model_error(pairs).unwrap();
    assert!((median - 0.1).abs() < 1e-9 && (worst - 0.5).abs() < 1e-9, "{median} {worst}");
    assert_eq!(race::model_error([]), None);
}

#[test]
fn a_table_pays_back_where_the_host_makes_its_rows_and_new_groups_cheap() {
    let m = Machine::from_ladder(&levels(), measured()).unwrap();
    let look = |rows_left: u64, to_come: f64, table_bytes: u64, run_starts: Option<f64>| payback::Look {
        taken: 1_000_000,
        rows_left,
        groups: 50_000,
        to_come,
        table_bytes,
        run_starts,
        per_core_bytes: 1 << 20,
        distance: 24,
        row_bytes: 8,
    };
    // 50,000 more groups over 9M rows, a 4 MiB table in this host's 16 MiB L3: kept.
    let few = payback::prices(&m, &look(9_000_000, 50_000.0, 4 << 20, None));
    assert!(few.keeps(), "{few:?}");
    // A new group on every row left: each costs more than a partitioned pass over every row.
    let every = payback::prices(&m, &look(9_000_000, 9_000_000.0, 256 << 20, None));
    assert!(!every.keeps(), "{every:?}");
    // One group in five rows, a table in DRAM: given up where the rows keep to no order, kept
    // where each key's rows come together, only the run's first row missing.
    let (rows_left, to_come) = (8_000_000, 1_600_000.0);
    let shuffled = payback::prices(&m, &look(rows_left, to_come, 64 << 20, None));
    let sorted = payback::prices(&m, &look(rows_left, to_come, 64 << 20, Some(to_come)));
    assert!(sorted.kept_ns < shuffled.kept_ns, "{sorted:?} {shuffled:?}");
    assert_eq!(sorted.given_up_ns, shuffled.given_up_ns);
    // Runs of 5 rows over a table in DRAM, a group still to come in one of 50 rows: where each
    // run that starts no new group returns to a key seen before (sessions), that return is a
    // miss nothing overlaps, and the table is given up; the same new groups with no returns
    // (each key's rows together, once) keep it.
    let starts = rows_left as f64 / 5.0;
    let returning = payback::prices(&m, &look(rows_left, starts / 10.0, 64 << 20, Some(starts)));
    let once = payback::prices(&m, &look(rows_left, starts / 10.0, 64 << 20, Some(starts / 10.0)));
    assert!(!returning.keeps() && once.keeps(), "{returning:?} {once:?}");
    // Giving up late throws more rows away: the same look with more rows taken keeps.
    let late = payback::Look { taken: 50_000_000, ..look(9_000_000, 400_000.0, 16 << 20, None) };
    let early = payback::Look { taken: 0, ..late };
    assert!(payback::prices(&m, &late).given_up_ns > payback::prices(&m, &early).given_up_ns);
}
