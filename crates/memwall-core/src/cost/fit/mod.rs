//! Fitting the kernels' fixed costs once: for each kernel, a least-squares line through its
//! measured ns per row against the expected latency of its random loads (the ladder's), after
//! taking away what its streamed bytes cost at the measured bandwidth. The line's height is the
//! work a row takes (turned into cycles by the fit host's clock), its slope the share of latency
//! the kernel waits out. The data and the command are kept: `docs/results/cost-fit-*.md`.

use super::kernels::Work;
use super::kernels::{self, Costs, Priced};
use super::machine::Machine;

/// One measured point: ns per row of `what` on `work`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    pub what: Priced,
    pub work: Work,
    pub ns_per_row: f64,
}

/// The fixed costs that best explain `observations` on `machine`, for each of [`Priced::ALL`]
/// with at least two points. The work is at least 0 cycles and the exposure at least 0.
pub fn fit(machine: &Machine, observations: &[Observation]) -> Vec<(Priced, Costs)> {
    Priced::ALL
        .into_iter()
        .filter_map(|what| {
            let points: Vec<(f64, f64)> = observations
                .iter()
                .filter(|o| o.what == what && o.ns_per_row.is_finite())
                .map(|o| {
                    let (random, stream) = kernels::terms(what, machine, &o.work);
                    let threads = if what.parallel() { o.work.threads.max(1) as f64 } else { 1.0 };
                    (random, o.ns_per_row * threads - stream / machine.read_bytes_per_ns())
                })
                .collect();
            let (work_ns, exposure) = line(&points)?;
            Some((what, Costs { work_cycles: work_ns * machine.ghz(), exposure }))
        })
        .collect()
}

/// Least squares `y = a + b x` in relative terms (each point weighted by `1 / y²`, so the
/// fit minimizes the relative error the model is judged by, and a kernel's fast points count
/// as much as its slow ones), with `b >= 0` and `a >= 0` (a row costs no negative work, and
/// waiting longer never makes it faster).
fn line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let points: Vec<(f64, f64, f64)> =
        points.iter().filter(|p| p.1 > 0.0 && p.0.is_finite()).map(|&(x, y)| (x, y, 1.0 / (y * y))).collect();
    if points.len() < 2 {
        return None;
    }
    let sum = |f: &dyn Fn(&(f64, f64, f64)) -> f64| points.iter().map(f).sum::<f64>();
    let w = sum(&|p| p.2);
    let (mx, my) = (sum(&|p| p.2 * p.0) / w, sum(&|p| p.2 * p.1) / w);
    let sxx = sum(&|p| p.2 * (p.0 - mx).powi(2));
    let sxy = sum(&|p| p.2 * (p.0 - mx) * (p.1 - my));
    let b = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    let a = my - b * mx;
    if a >= 0.0 {
        return Some((a, b));
    }
    // Through the origin.
    let xx = sum(&|p| p.2 * p.0 * p.0);
    Some((0.0, if xx > 0.0 { (sum(&|p| p.2 * p.0 * p.1) / xx).max(0.0) } else { 0.0 }))
}

#[cfg(test)]
mod tests;
