//! The prices of the fit (see [`super`]): what a level, a transition, a point set aside and a
//! departure from the declared sizes cost, in units of a core point at the band's edge (cost 1).

use crate::explain::treads::MIN_LEVEL_STEP;

/// A level's core points lie within this distance of its latency, in ln ns: half a level step.
pub fn band() -> f64 {
    0.5 * MIN_LEVEL_STEP.ln()
}

/// The price of a transition point.
pub(super) const TRANSITION: f64 = 1.0;
/// The price of a level: one more level must save the misfit of two transition points.
pub(super) const LEVEL: f64 = 2.0;
/// The transitions a level owns, both sides together, spread over more than an octave of working
/// set, per octave past it: a cache's climb is over within about two octaves (past `4 C` it serves
/// at most a quarter of the loads, which reads within the next level's band), and a level read more
/// from its climbs than from its core is a guess, so the reading prefers a split of the same points
/// that keeps a level's climbs short.
pub(super) const LONG_CLIMB: f64 = 3.0;
/// Setting a point aside as noise costs more than any other explanation of it; twice that for a
/// point that read faster than a smaller working set (noise slows a fastest sample far more often
/// than it speeds one up, so of two points out of order the slow one is the likelier suspect).
pub(super) const ASIDE: f64 = 3.0;
/// A level past a declaration that names L3 or more must be twice as evident as another.
pub(super) const UNDECLARED: f64 = LEVEL;
/// The declared-size prior, per octave squared past an octave of slack: for a level that reaches
/// past its declared size, and for one that runs out short of it (L1 and L2 are a core's own and
/// declared rightly; a last-level cache is shared, and a guest often gets a fraction of it).
pub(super) const PAST_DECLARED: f64 = 4.0;
pub(super) const SHORT_OF_DECLARED: f64 = 1.0;
pub(super) const SHORT_OF_SHARED: f64 = 0.1;
/// The slack of the prior for a core's own cache running out short: the half octave between two
/// sizes of a ladder (a shared cache gets an octave, like a level past its size).
pub(super) const SHORT_SLACK: f64 = 0.5;
/// A cache holds at least twice what the one before it does: no two levels of any hierarchy
/// measured or published differ by less than 2x in size.
pub(super) const MIN_LEVEL_WIDTH: f64 = 2.0;
/// At most this many levels, DRAM included.
pub(super) const MAX_LEVELS: u8 = 8;

/// What setting each point aside costs: [`ASIDE`] for one slower than a larger working set read,
/// twice that for one faster than a smaller one, and no price (it may not be) for the others.
pub(super) fn aside_prices(ns: &[f64]) -> Vec<f64> {
    let f = band().exp();
    (0..ns.len())
        .map(|i| {
            if ns[i + 1..].iter().any(|&later| ns[i] > later * f) {
                ASIDE
            } else if ns[..i].iter().any(|&before| ns[i] * f < before) {
                2.0 * ASIDE
            } else {
                f64::INFINITY
            }
        })
        .collect()
}

/// A core: points `a..=b` within the band of their latency, but suspects set aside.
#[derive(Debug, Clone)]
pub(super) struct Core {
    /// ln ns.
    pub center: f64,
    pub misfit: f64,
    pub aside: Vec<usize>,
}

pub(super) fn core(y: &[f64], suspect: &[bool], a: usize, b: usize) -> Option<Core> {
    let band = band();
    let sure: Vec<usize> = (a..=b).filter(|&k| !suspect[k]).collect();
    let base: Vec<usize> = if sure.is_empty() { (a..=b).collect() } else { sure };
    let (min, max) = base.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &k| (l.min(y[k]), h.max(y[k])));
    // The clamp below puts the extreme points at exactly the band's edge: a rounding error's room.
    let edge = band * (1.0 + 1e-9);
    if max - min > 2.0 * edge {
        return None;
    }
    let mean = base.iter().map(|&k| y[k]).sum::<f64>() / base.len() as f64;
    let center = mean.max(max - band).min(min + band);
    let (kept, aside): (Vec<usize>, Vec<usize>) = (a..=b).partition(|&k| (y[k] - center).abs() <= edge);
    // A core starts and ends on points that read its latency.
    if aside.contains(&a) || aside.contains(&b) {
        return None;
    }
    Some(Core { center, misfit: kept.iter().map(|&k| ((y[k] - center) / band).powi(2)).sum(), aside })
}

/// The declared-size prior of a level numbered `number` whose points end at `end` bytes and which
/// has run out by `next` bytes (none: the curve ended inside it).
pub(super) fn prior(declared: &[(u8, u64)], number: u8, end: u64, next: Option<u64>) -> f64 {
    let deepest = declared.iter().map(|&(n, _)| n).max();
    let Some(&(_, size)) = declared.iter().find(|&&(n, _)| n == number) else {
        return if deepest.is_some_and(|d| d >= 3 && number > d) { UNDECLARED } else { 0.0 };
    };
    let octaves = |a: u64, b: u64| (a as f64 / b as f64).log2();
    if end > size {
        return PAST_DECLARED * (octaves(end, size) - 1.0).max(0.0).powi(2);
    }
    match next {
        Some(next) if size > next => {
            let (weight, slack) = if number <= 2 { (SHORT_OF_DECLARED, SHORT_SLACK) } else { (SHORT_OF_SHARED, 1.0) };
            weight * (octaves(size, next) - slack).max(0.0).powi(2)
        }
        _ => 0.0,
    }
}
