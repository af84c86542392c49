//! Predictions beside measurements: a race's report and a sweep's points get the model's ns per
//! row for each kernel.

use memwall_report::{CostModel, GroupBy, Sweep};

use super::kernels::{Work, predict};
use super::machine::{FIT_HOST, Machine};
use crate::groupby::{GroupByConfig, Kernel, estimate_groups};

/// Fills in each run's `predicted_ns_per_row` and the race's `model`, for the keys it raced: the
/// groups come from a sample of them (as adaptive's do), never from the race's result.
pub fn annotate(groupby: &mut GroupBy, keys: &[i64], machine: &Machine, config: &GroupByConfig) {
    let estimate = estimate_groups(keys);
    let rows = keys.len() as u64;
    for run in &mut groupby.runs {
        let Some(kernel) = Kernel::parse(&run.kernel) else { continue };
        let partitions =
            if kernel == Kernel::Adaptive { config.partitions } else { run.partitions.unwrap_or(config.partitions) };
        let work = Work {
            rows,
            groups: estimate.groups,
            upper_groups: estimate.upper_groups,
            threads: run.threads.max(1) as usize,
            config: GroupByConfig { partitions, ..*config },
        };
        run.predicted_ns_per_row = Some(predict(kernel, machine, &work)).filter(|ns| ns.is_finite());
    }
    groupby.model = Some(model(machine, estimate.groups, estimate.upper_groups));
}

/// Fills in each point's `predicted_ns_per_row` of a cardinality sweep over `rows` rows, whose
/// points' `x` are the groups generated.
pub fn annotate_sweep(sweep: &mut Sweep, machine: &Machine, config: &GroupByConfig, threads: usize) {
    let rows = sweep.rows;
    for point in &mut sweep.points {
        let Some(kernel) = Kernel::parse(&point.kernel) else { continue };
        let work = Work { rows, groups: point.x, upper_groups: point.x, threads, config: *config };
        point.predicted_ns_per_row = Some(predict(kernel, machine, &work)).filter(|ns| ns.is_finite());
    }
}

/// The model's inputs as the report keeps them.
pub fn model(machine: &Machine, estimated_groups: u64, upper_groups: u64) -> CostModel {
    CostModel {
        estimated_groups,
        upper_groups,
        inputs: machine.inputs.clone(),
        missing: machine.missing.clone(),
        fitted_on: FIT_HOST.cpu.into(),
    }
}

/// Median and worst `|predicted - measured| / measured` over the points that have both.
pub fn model_error(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<(f64, f64)> {
    let mut errors: Vec<f64> = pairs
        .into_iter()
        .filter(|(p, m)| p.is_finite() && *m > 0.0)
        .map(|(predicted, measured)| (predicted - measured).abs() / measured)
        .collect();
    errors.sort_by(f64::total_cmp);
    let worst = *errors.last()?;
    Some((memwall_report::quantile(&errors, 0.5), worst))
}

/// What a race's predictions rest on and how far they were off, for a person: nothing when the
/// race has no model.
pub fn describe(groupby: &GroupBy) -> Vec<String> {
    let Some(model) = &groupby.model else { return Vec::new() };
    let pairs = groupby.runs.iter().filter_map(|r| Some((r.predicted_ns_per_row?, r.ns_per_row)));
    let error = model_error(pairs).map_or(String::new(), |(median, worst)| {
        format!(": off by {:.0}% at the median, {:.0}% at worst", median * 100.0, worst * 100.0)
    });
    let mut lines = vec![format!(
        "predicted: the cost model, from the ladder ({}) and ~{} groups (up to ~{}) a sample suggests, fixed costs fitted on {}{error}",
        model.inputs.join(", "),
        model.estimated_groups,
        model.upper_groups,
        model.fitted_on
    )];
    lines.extend(model.missing.iter().map(|m| format!("model input missing: {m}")));
    lines
}

/// How far a sweep's predictions were off, for a person: the median and the worst point.
pub fn describe_sweep(sweep: &Sweep) -> Option<String> {
    let pairs = || sweep.points.iter().filter_map(|p| Some((p.predicted_ns_per_row?, p.ns_per_row, p)));
    let (median, worst) = model_error(pairs().map(|(p, m, _)| (p, m)))?;
    let off = |(p, m, _): &(f64, f64, _)| (p - m).abs() / m;
    let (predicted, measured, point) = pairs().max_by(|a, b| off(a).total_cmp(&off(b)))?;
    Some(format!(
        "predicted by the cost model (from the ladder, fixed costs fitted on {}): off by {:.0}% at the median, {:.0}% at worst ({} at {}: {predicted:.2} predicted, {measured:.2} measured)",
        FIT_HOST.cpu,
        median * 100.0,
        worst * 100.0,
        point.kernel,
        point.x
    ))
}
