//! Fitting the kernels' fixed costs once, over every kept host together: for each kernel, a
//! least-squares fit of its measured ns per row (less what its streamed bytes cost at the host's
//! measured bandwidth) as `(work_cycles + group_cycles × groups a row) / GHz + exposure ×
//! random`, where `random` is the expected latency of its random loads from that host's ladder.
//! Hosts of other clocks and other caches tell the terms apart where one host alone cannot (a
//! kernel whose working sets sit in one level over a whole sweep shows only their sum); the
//! sweeps' groups, from a thousand to one a row, tell a group's cost from a row's. The data and
//! the command are kept: `docs/results/cost-fit-*.md`.

use super::costs::{Costs, Priced};
use super::kernels::{self, Work};
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
/// with at least two points. Every cost is at least 0.
pub fn fit(hosts: &[Host]) -> Vec<(Priced, Costs)> {
    Priced::ALL
        .into_iter()
        .filter_map(|what| {
            let points: Vec<Point> = hosts.iter().flat_map(|host| points(what, host)).collect();
            let [work_cycles, exposure, group_cycles] = least_squares(&points)?;
            Some((what, Costs { work_cycles, exposure, group_cycles }))
        })
        .collect()
}

/// What each unknown multiplies (`1 / GHz`, random ns, groups a row / GHz), and what is left to
/// explain, for one point.
type Point = ([f64; 3], f64);

fn points(what: Priced, host: &Host) -> impl Iterator<Item = Point> + '_ {
    let m = &host.machine;
    host.observations.iter().filter(move |o| o.what == what && o.ns_per_row.is_finite()).map(move |o| {
        let t = kernels::terms(what, m, &o.work);
        let threads = if what.parallel() { o.work.threads.max(1) as f64 } else { 1.0 };
        let x = [1.0 / m.ghz(), t.random_ns, t.groups_per_row / m.ghz()];
        (x, o.ns_per_row * threads - t.stream_bytes / m.read_bytes_per_ns())
    })
}

/// Least squares `y = Σ c_i x_i` with every `c_i >= 0` (a row or a group costs no negative
/// work, and waiting longer never makes it faster), in relative terms: each point weighted by
/// `1 / y²`, so the fit minimizes the relative error the model is judged by, and a kernel's fast
/// points count as much as its slow ones. The non-negative solution is the best of the
/// unconstrained fits over each subset of the unknowns (the others at zero) that come out
/// non-negative: with three unknowns, seven small solves. `None` with fewer than two usable points.
fn least_squares(points: &[Point]) -> Option<[f64; 3]> {
    let points: Vec<Point> =
        points.iter().copied().filter(|(x, y)| *y > 0.0 && x.iter().all(|v| v.is_finite())).collect();
    if points.len() < 2 {
        return None;
    }
    let residual = |c: &[f64; 3]| {
        points.iter().map(|(x, y)| ((y - (0..3).map(|i| c[i] * x[i]).sum::<f64>()) / y).powi(2)).sum::<f64>()
    };
    (1..8u32)
        .filter_map(|subset| solve(&points, subset))
        .filter(|c| c.iter().all(|&v| v >= 0.0))
        .min_by(|a, b| residual(a).total_cmp(&residual(b)))
        .or(Some([0.0; 3]))
}

/// The weighted least-squares fit over the unknowns in `subset` (bit `i`: unknown `i`), the
/// others at zero; `None` where their columns are not independent.
fn solve(points: &[Point], subset: u32) -> Option<[f64; 3]> {
    let used: Vec<usize> = (0..3).filter(|i| subset & (1 << i) != 0).collect();
    let n = used.len();
    // The normal equations, each point weighted by 1 / y².
    let mut a = vec![vec![0.0; n + 1]; n];
    for (x, y) in points {
        let w = 1.0 / (y * y);
        for (r, &i) in used.iter().enumerate() {
            for (c, &j) in used.iter().enumerate() {
                a[r][c] += w * x[i] * x[j];
            }
            a[r][n] += w * x[i] * y;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..n {
        let pivot = (col..n).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() <= 1e-12 * a.iter().map(|row| row[col].abs()).fold(0.0, f64::max) {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (_, row) in a.iter_mut().enumerate().filter(|&(r, _)| r != col) {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
        }
    }
    let mut c = [0.0; 3];
    for (r, &i) in used.iter().enumerate() {
        c[i] = a[r][n] / a[r][r];
    }
    c.iter().all(|v| v.is_finite()).then_some(c)
}

#[cfg(test)]
mod tests;
