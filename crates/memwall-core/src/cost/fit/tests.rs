use memwall_report::Report;

use super::*;
use crate::cost::{Measured, costs};
use crate::groupby::{GroupByConfig, Kernel, thresholds};

/// The kept fit data: the dev VM's ladder (page-local on THP, as adaptive's quick probe reads,
/// with its parallelism curve) and bandwidth, and a cardinality sweep of the kernels on one thread.
const LADDER: &str = include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/ladder.json");
const BANDWIDTH: &str = include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/bandwidth.json");
const SWEEP: &str = include_str!("../../../../../docs/results/cost-fit-epyc-2vcpu-kvm/sweep.json");

fn report(json: &str) -> Report {
    serde_json::from_str(json).expect("a kept report opens")
}

/// The fit host as its kept reports describe it, and the sweep's points as observations.
pub(crate) fn kept() -> (Machine, Vec<Observation>) {
    let (ladder, bandwidth, sweep) = (report(LADDER), report(BANDWIDTH), report(SWEEP));
    let ladder = ladder.ladder.expect("the fit's ladder");
    let measured = Measured::of(Some(&ladder), bandwidth.bandwidth.as_ref());
    let machine = Machine::from_ladder(&ladder.levels, measured).expect("levels");
    let groupby = sweep.groupby.expect("the fit's sweep");
    let sweep = &groupby.sweeps[0];
    let budget = crate::budget::CacheBudget::GUESS.measured(&ladder.levels);
    let config = GroupByConfig { budget, ..GroupByConfig::default() };
    // Adaptive's points within its first try's limit are its flat table's: there its trial kept
    // the flat table on this host (`adaptive.txt` beside the data).
    let flat_up_to = thresholds(&config).naive_groups;
    let observations = sweep
        .points
        .iter()
        .filter_map(|p| {
            let what = match Kernel::parse(&p.kernel)? {
                Kernel::Adaptive if p.x <= flat_up_to => Priced::Flat,
                kernel => Priced::of(kernel)?,
            };
            let work = Work { rows: sweep.rows, groups: p.x, upper_groups: p.x, threads: 1, config };
            Some(Observation { what, work, ns_per_row: p.ns_per_row })
        })
        .collect();
    (machine, observations)
}

/// Refits the fixed costs from the kept data, prints them, and fails when the constants in
/// `kernels.rs` are not what the data gives (to 1%, or 0.5 cycles and 0.005 of exposure).
#[test]
fn refit() {
    let (machine, observations) = kept();
    assert!(machine.missing.is_empty(), "the fit host's ladder lacked {:?}", machine.missing);
    println!(
        "fit host: knee {}, read {:.2} GB/s, {:.3} GHz",
        machine.knee(),
        machine.read_bytes_per_ns(),
        machine.ghz()
    );
    let fitted = fit(&machine, &observations);
    for (what, fitted) in &fitted {
        println!(
            "(Priced::{what:?}, Costs {{ work_cycles: {:.1}, exposure: {:.3} }}),",
            fitted.work_cycles, fitted.exposure
        );
    }
    assert_eq!(fitted.len(), Priced::ALL.len(), "the kept data prices everything");
    for (what, fitted) in fitted {
        let coded = costs(what);
        let close = |a: f64, b: f64, floor: f64| (a - b).abs() <= (0.01 * a.abs()).max(floor);
        assert!(
            close(coded.work_cycles, fitted.work_cycles, 0.5) && close(coded.exposure, fitted.exposure, 0.005),
            "{what:?}: coded {coded:?}, the kept data gives {fitted:?}"
        );
    }
}

#[test]
fn a_line_through_points_is_found_and_kept_non_negative() {
    let exact: Vec<(f64, f64)> = (1..6).map(|x| (x as f64, 3.0 + 0.5 * x as f64)).collect();
    let (a, b) = line(&exact).unwrap();
    assert!((a - 3.0).abs() < 1e-9 && (b - 0.5).abs() < 1e-9);
    // Falling with latency: flat, at the mean weighted by 1 / y² (4 counts a quarter of 2).
    let (a, b) = line(&[(1.0, 4.0), (2.0, 2.0)]).unwrap();
    assert!((a - 2.4).abs() < 1e-9 && b == 0.0, "{a} {b}");
    // A line that would start below zero goes through the origin instead.
    let (a, b) = line(&[(10.0, 1.0), (20.0, 12.0)]).unwrap();
    assert_eq!(a, 0.0);
    assert!(b > 0.0);
    assert_eq!(line(&[(1.0, 1.0)]), None);
}

/// How far the fitted model is off on the data it was fitted on, kernel by kernel (printed only).
#[test]
fn error_on_the_fit_data() {
    let (machine, observations) = kept();
    let mut pairs = Vec::new();
    for o in &observations {
        let (random, stream) = kernels::terms(o.what, &machine, &o.work);
        let c = costs(o.what);
        let predicted = c.work_cycles / machine.ghz() + c.exposure * random + stream / machine.read_bytes_per_ns();
        println!("{:?} {}: predicted {predicted:.2}, measured {:.2}", o.what, o.work.groups, o.ns_per_row);
        pairs.push((predicted, o.ns_per_row));
    }
    let (median, worst) = crate::cost::model_error(pairs).unwrap();
    println!("median error {:.1}%, worst {:.1}%", median * 100.0, worst * 100.0);
    assert!(median.is_finite() && worst >= median);
}
