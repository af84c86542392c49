use memwall_report::Report;

use super::*;
use crate::cost::{Measured, costs};
use crate::groupby::{GroupByConfig, Kernel, thresholds};

/// The kept fit data of each host: its ladder (page-local on THP, as adaptive's quick probe reads,
/// with its parallelism curve), its bandwidth, and a cardinality sweep of the kernels on one
/// thread; and whether adaptive's trial kept its flat table within the first try there
/// (`adaptive.txt` beside each host's data): where it did, those points price the flat table.
const KEPT: [(&str, &str, &str, &str, bool); 3] = [
    (
        "AMD EPYC",
        include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/ladder.json"),
        include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/bandwidth.json"),
        include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/sweep.json"),
        true,
    ),
    (
        "Intel Xeon",
        include_str!("../../../../../docs/results/cost-fit-xeon-2vcpu-kvm/ladder.json"),
        include_str!("../../../../../docs/results/cost-fit-xeon-2vcpu-kvm/bandwidth.json"),
        include_str!("../../../../../docs/results/cost-fit-xeon-2vcpu-kvm/sweep.json"),
        false,
    ),
    (
        "Intel Xeon (Emerald Rapids)",
        include_str!("../../../../../docs/results/cost-fit-emr-2vcpu-kvm/ladder.json"),
        include_str!("../../../../../docs/results/cost-fit-emr-2vcpu-kvm/bandwidth.json"),
        include_str!("../../../../../docs/results/cost-fit-emr-2vcpu-kvm/sweep.json"),
        false,
    ),
];

fn report(json: &str) -> Report {
    serde_json::from_str(json).expect("a kept report opens")
}

/// Each kept host, named, as its reports describe it, with its sweep's points as observations.
pub(crate) fn kept() -> Vec<(&'static str, Host)> {
    KEPT.iter().map(|&(name, ladder, bandwidth, sweep, flat)| (name, host(ladder, bandwidth, sweep, flat))).collect()
}

fn host(ladder: &str, bandwidth: &str, sweep: &str, flat: bool) -> Host {
    let (ladder, bandwidth, sweep) = (report(ladder), report(bandwidth), report(sweep));
    let ladder = ladder.ladder.expect("the fit's ladder");
    let measured = Measured::of(Some(&ladder), bandwidth.bandwidth.as_ref());
    let machine = Machine::from_ladder(&ladder.levels, measured).expect("levels");
    let groupby = sweep.groupby.expect("the fit's sweep");
    let sweep = &groupby.sweeps[0];
    let budget = crate::budget::CacheBudget::GUESS.measured(&ladder.levels);
    let config = GroupByConfig { budget, ..GroupByConfig::default() };
    let flat_up_to = thresholds(&config).naive_groups;
    let observations = sweep
        .points
        .iter()
        .filter_map(|p| {
            let what = match Kernel::parse(&p.kernel)? {
                Kernel::Adaptive if flat && p.x <= flat_up_to => Priced::Flat,
                kernel => Priced::of(kernel)?,
            };
            let work = Work { rows: sweep.rows, groups: p.x, upper_groups: p.x, threads: 1, config };
            Some(Observation { what, work, ns_per_row: p.ns_per_row })
        })
        .collect();
    Host { machine, observations }
}

fn hosts() -> Vec<Host> {
    kept().into_iter().map(|(_, host)| host).collect()
}

/// `(predicted, measured)` for each of `host`'s points, priced with `costs`.
fn pairs(host: &Host, costs: &dyn Fn(Priced) -> Costs) -> Vec<(f64, f64)> {
    let m = &host.machine;
    host.observations
        .iter()
        .map(|o| (super::super::costs::cost_of(costs(o.what), m, kernels::terms(o.what, m, &o.work)), o.ns_per_row))
        .collect()
}

/// Refits the fixed costs from the kept data, prints them, and fails when the constants in
/// `kernels.rs` are not what the data gives (to 1%, or 0.5 cycles and 0.005 of exposure).
#[test]
fn refit() {
    let kept = kept();
    for (name, host) in &kept {
        let m = &host.machine;
        assert!(m.missing.is_empty(), "{name}'s ladder lacked {:?}", m.missing);
        println!("{name}: knee {}, read {:.2} GB/s, {:.3} GHz", m.knee(), m.read_bytes_per_ns(), m.ghz());
    }
    let fitted = fit(&hosts());
    for (what, fitted) in &fitted {
        println!(
            "(Priced::{what:?}, Costs {{ work_cycles: {:.1}, exposure: {:.3}, group_cycles: {:.1} }}),",
            fitted.work_cycles, fitted.exposure, fitted.group_cycles
        );
    }
    assert_eq!(fitted.len(), Priced::ALL.len(), "the kept data prices everything");
    for (what, fitted) in fitted {
        let coded = costs(what);
        let close = |a: f64, b: f64, floor: f64| (a - b).abs() <= (0.01 * a.abs()).max(floor);
        assert!(
            close(coded.work_cycles, fitted.work_cycles, 0.5)
                && close(coded.exposure, fitted.exposure, 0.005)
                && close(coded.group_cycles, fitted.group_cycles, 0.5),
            "{what:?}: coded {coded:?}, the kept data gives {fitted:?}"
        );
    }
}

/// What stands in for a missing figure is the mean of the fit hosts' own (to the digits coded).
#[test]
fn the_stand_ins_are_the_fit_hosts_mean() {
    let kept = hosts();
    let mean = |f: &dyn Fn(&Machine) -> f64| kept.iter().map(|h| f(&h.machine)).sum::<f64>() / kept.len() as f64;
    let fit = crate::cost::FIT_HOST;
    assert!((mean(&|m| m.ghz()) - fit.ghz).abs() < 0.01, "{}", mean(&|m| m.ghz()));
    assert!((mean(&|m| m.knee()) - fit.knee).abs() < 0.5, "{}", mean(&|m| m.knee()));
    assert!((mean(&|m| m.read_bytes_per_ns()) - fit.read_gb_per_s).abs() < 0.1, "{}", mean(&|m| m.read_bytes_per_ns()));
}

/// A point of `1 / GHz`, random ns and groups a row, priced by `c`.
fn priced(x: f64, r: f64, g: f64, c: [f64; 3]) -> Point {
    ([x, r, g * x], c[0] * x + c[1] * r + c[2] * g * x)
}

#[test]
fn the_least_squares_split_is_found_and_kept_non_negative() {
    // Two clocks, several latencies and groups: all three terms are found exactly.
    let c = [12.0, 0.5, 40.0];
    let exact: Vec<Point> = [(0.25, 1.0, 0.001), (0.25, 4.0, 0.5), (0.3, 2.0, 0.01), (0.3, 9.0, 1.0), (0.3, 3.0, 0.2)]
        .map(|(x, r, g)| priced(x, r, g, c))
        .to_vec();
    let [a, b, g] = least_squares(&exact).unwrap();
    assert!((a - 12.0).abs() < 1e-6 && (b - 0.5).abs() < 1e-6 && (g - 40.0).abs() < 1e-6, "{a} {b} {g}");
    // Falling with latency: no waiting, all work, at the mean weighted by 1 / y² (4 counts a
    // quarter of 2).
    let [a, b, g] = least_squares(&[([1.0, 1.0, 0.0], 4.0), ([1.0, 2.0, 0.0], 2.0)]).unwrap();
    assert!((a - 2.4).abs() < 1e-9 && b == 0.0 && g == 0.0, "{a} {b} {g}");
    // Growing faster than latency from a start below zero: all waiting.
    let [a, b, _] = least_squares(&[([1.0, 10.0, 0.0], 1.0), ([1.0, 20.0, 0.0], 12.0)]).unwrap();
    assert_eq!(a, 0.0);
    assert!(b > 0.0);
    // Falling with the groups: a group costs nothing, never less.
    let [_, _, g] = least_squares(&[([1.0, 1.0, 0.1], 4.0), ([1.0, 1.0, 0.9], 2.0)]).unwrap();
    assert_eq!(g, 0.0);
    assert_eq!(least_squares(&[([1.0, 1.0, 0.0], 1.0)]), None);
}

/// How far the fitted model is off on each host's data, fitted on all hosts, and fitted on the
/// others alone (the test of a CPU it never saw). Printed only; the fit must price every point.
#[test]
fn error_on_the_fit_data_and_on_a_host_left_out() {
    let kept = kept();
    for (i, (name, host)) in kept.iter().enumerate() {
        for o in &host.observations {
            let t = kernels::terms(o.what, &host.machine, &o.work);
            println!(
                "{name} {:?} {}: random {:.2} ns, stream {:.0} B, groups a row {:.4}, measured {:.2}",
                o.what, o.work.groups, t.random_ns, t.stream_bytes, t.groups_per_row, o.ns_per_row
            );
        }
        let (median, worst) = crate::cost::model_error(pairs(host, &costs)).unwrap();
        println!("{name}, fitted on all: median error {:.1}%, worst {:.1}%", median * 100.0, worst * 100.0);
        assert!(median.is_finite() && worst >= median);
        let others: Vec<Host> = kept.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, (_, h))| h.clone()).collect();
        let fitted = fit(&others);
        let without = |what: Priced| fitted.iter().find(|(p, _)| *p == what).map_or(costs(what), |&(_, c)| c);
        let (median, worst) = crate::cost::model_error(pairs(host, &without)).unwrap();
        println!("{name}, fitted without it: median error {:.1}%, worst {:.1}%", median * 100.0, worst * 100.0);
    }
}
