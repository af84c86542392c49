//! Fitting the kernels' fixed costs once, over every kept host together: for each kernel, a
//! least-squares fit of its measured ns per row (less what its streamed bytes cost at the host's
//! measured bandwidth) as `work_cycles / GHz + exposure × random`, where `random` is the expected
//! latency of its random loads from that host's ladder. Hosts of other clocks and other caches
//! tell the two apart where one host alone cannot (a kernel whose working sets sit in one level
//! over a whole sweep shows only their sum). The data and the command are kept:
//! `docs/results/cost-fit-*.md`.

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

/// One host's measurements: what its ladder read, and its kernels' times.
#[derive(Debug, Clone)]
pub struct Host {
    pub machine: Machine,
    pub observations: Vec<Observation>,
}

/// The fixed costs that best explain every host's observations, for each of [`Priced::ALL`]
/// with at least two points. The work is at least 0 cycles and the exposure at least 0.
pub fn fit(hosts: &[Host]) -> Vec<(Priced, Costs)> {
    Priced::ALL
        .into_iter()
        .filter_map(|what| {
            let points: Vec<Point> = hosts.iter().flat_map(|host| points(what, host)).collect();
            let (work_cycles, exposure) = least_squares(&points)?;
            Some((what, Costs { work_cycles, exposure }))
        })
        .collect()
}

/// `(1 / GHz, random ns, what is left to explain)` for each of `host`'s points of `what`.
type Point = (f64, f64, f64);

fn points(what: Priced, host: &Host) -> impl Iterator<Item = Point> + '_ {
    let m = &host.machine;
    host.observations.iter().filter(move |o| o.what == what && o.ns_per_row.is_finite()).map(move |o| {
        let (random, stream) = kernels::terms(what, m, &o.work);
        let threads = if what.parallel() { o.work.threads.max(1) as f64 } else { 1.0 };
        (1.0 / m.ghz(), random, o.ns_per_row * threads - stream / m.read_bytes_per_ns())
    })
}

/// Least squares `y = a x + b r` with `a, b >= 0` (a row costs no negative work, and waiting
/// longer never makes it faster), in relative terms: each point weighted by `1 / y²`, so the
/// fit minimizes the relative error the model is judged by, and a kernel's fast points count as
/// much as its slow ones. `None` with fewer than two usable points.
fn least_squares(points: &[Point]) -> Option<(f64, f64)> {
    let points: Vec<Point> =
        points.iter().copied().filter(|p| p.2 > 0.0 && p.0.is_finite() && p.1.is_finite()).collect();
    if points.len() < 2 {
        return None;
    }
    let sum = |f: &dyn Fn(&Point) -> f64| points.iter().map(|p| f(p) / (p.2 * p.2)).sum::<f64>();
    let (xx, rr, xr) = (sum(&|p| p.0 * p.0), sum(&|p| p.1 * p.1), sum(&|p| p.0 * p.1));
    let (xy, ry) = (sum(&|p| p.0 * p.2), sum(&|p| p.1 * p.2));
    let residual = |(a, b): (f64, f64)| sum(&|p| (p.2 - a * p.0 - b * p.1).powi(2));
    let det = xx * rr - xr * xr;
    let both = (det > 0.0).then(|| ((xy * rr - ry * xr) / det, (ry * xx - xy * xr) / det));
    if let Some((a, b)) = both.filter(|&(a, b)| a >= 0.0 && b >= 0.0) {
        return Some((a, b));
    }
    // The best with one of the two at zero.
    let work_only = (if xx > 0.0 { xy / xx } else { 0.0 }.max(0.0), 0.0);
    let wait_only = (0.0, if rr > 0.0 { ry / rr } else { 0.0 }.max(0.0));
    Some(if residual(work_only) <= residual(wait_only) { work_only } else { wait_only })
}

#[cfg(test)]
mod tests;
