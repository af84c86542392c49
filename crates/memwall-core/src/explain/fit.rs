//! The levels of a latency curve as one fit of the whole curve: every point is explained by a
//! level, by a transition between two levels, or (at a price, and said) set aside as noise.
//!
//! The model. A level is a run of working sets that read one latency: its core points lie within
//! [`band`] of the level's latency (in log), half the least step between two levels (see
//! [`MIN_LEVEL_STEP`]): a point farther away is nearer in latency to a level one step off than to
//! this one. Between two levels the curve climbs, and a point on the climb is a transition: a
//! mixture of the two latencies, a share `h` of its loads still served by the level before. A
//! cache of capacity `C` serves at most `C / w` of a cyclic chase over `w > C` bytes, even with
//! perfect replacement (Belady's), so a transition point at `w` says the level before holds
//! `h * w` bytes, less than the first working set it already failed to hold. That one inequality
//! keeps a slow level from being taken for a climb, on dense curves and sparse ones alike. A
//! transition point belongs to the level that serves most of its loads (the arithmetic mean of the
//! two latencies splits them), but on the climb into DRAM, which page walks and far memory make
//! long, it belongs to neither.
//!
//! The fit. Dynamic programming over the points, in order, chooses the levels' cores, their
//! latencies and their numbers (L1, L2, ...), minimising one cost: each core point's squared
//! distance from its level's latency in units of the band, a price per level, per transition point,
//! per transition beyond the first that one level owns and per point set aside, and a prior that a
//! level numbered N ends near the declared size of LN (where the OS declares one). The number of
//! levels is what the cost chooses; nothing is cut at a threshold. The prices are in units of a
//! core point at the band's edge (cost 1), fitted on all the evidence the project holds (1,798
//! cloud curves of eight providers, Intel, AMD and Arm, and this project's own dense ladders);
//! docs/how-it-measures.md says how far each can move without changing the readings.

use super::treads::MIN_LEVEL_STEP;

/// A level's core points lie within this distance of its latency, in ln ns: half a level step.
pub fn band() -> f64 {
    0.5 * MIN_LEVEL_STEP.ln()
}

/// The price of a transition point.
const TRANSITION: f64 = 1.0;
/// The price of a level: one more level must save the misfit of two transition points.
const LEVEL: f64 = 2.0;
/// Each transition point one level owns beyond the first: a level read from its transitions more
/// than from its core is a guess, so the reading prefers another split of the same points.
const MORE_TRANSITIONS: f64 = 3.0;
/// Setting a point aside as noise costs more than any other explanation of it; twice that for a
/// point that read faster than a smaller working set (noise slows a fastest sample far more often
/// than it speeds one up, so of two points out of order the slow one is the likelier suspect).
const ASIDE: f64 = 3.0;
/// A level past a declaration that names L3 or more must be twice as evident as another.
const UNDECLARED: f64 = LEVEL;
/// The declared-size prior, per octave squared past an octave of slack: for a level that reaches
/// past its declared size, and for one that runs out short of it (L1 and L2 are a core's own and
/// declared rightly; a last-level cache is shared, and a guest often gets a fraction of it).
const PAST_DECLARED: f64 = 4.0;
const SHORT_OF_DECLARED: f64 = 1.0;
const SHORT_OF_SHARED: f64 = 0.1;
/// A cache holds at least twice what the one before it does: no two levels of any hierarchy
/// measured or published differ by less than 2x in size.
const MIN_LEVEL_WIDTH: f64 = 2.0;
/// At most this many levels, DRAM included.
const MAX_LEVELS: u8 = 8;

/// One level of the fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitLevel {
    /// The points it owns: its core and the transition points that belong to it.
    pub first: usize,
    pub last: usize,
    /// Its core: the points that read its latency.
    pub core_first: usize,
    pub core_last: usize,
    /// Its latency (ns).
    pub ns: f64,
    /// Its number in the hierarchy: 1 for the first level, one more for each after.
    pub number: u8,
}

/// The fit of a curve.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fit {
    pub levels: Vec<FitLevel>,
    /// Points set aside as noise.
    pub aside: Vec<usize>,
    /// Points on the climb into the last level that no level owns.
    pub climb: Vec<usize>,
}

/// What setting each point aside costs: [`ASIDE`] for one slower than a larger working set read,
/// twice that for one faster than a smaller one, and no price (it may not be) for the others.
fn aside_prices(ns: &[f64]) -> Vec<f64> {
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
struct Core {
    /// ln ns.
    center: f64,
    misfit: f64,
    aside: Vec<usize>,
}

fn core(y: &[f64], suspect: &[bool], a: usize, b: usize) -> Option<Core> {
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
fn prior(declared: &[(u8, u64)], number: u8, end: u64, next: Option<u64>) -> f64 {
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
            let weight = if number <= 2 { SHORT_OF_DECLARED } else { SHORT_OF_SHARED };
            weight * (octaves(size, next) - 1.0).max(0.0).powi(2)
        }
        _ => 0.0,
    }
}

/// A state of the fit: a level with core `a..=b`, numbered `number`, owning `lows` transition
/// points before its core, reached at `cost` from state `before`.
#[derive(Debug, Clone, Copy)]
struct State {
    a: usize,
    b: usize,
    number: u8,
    lows: usize,
    cost: f64,
    before: Option<usize>,
}

/// How two levels join: the points between their cores and who owns them.
struct Join {
    cost: f64,
    /// Transition points, in order: the first `highs` belong to the level before, the last `lows`
    /// to the level after; on the climb into DRAM, to neither.
    points: Vec<usize>,
    highs: usize,
    lows: usize,
    /// Points between the cores set aside as noise.
    aside: Vec<usize>,
}

struct Fitter<'a> {
    bytes: &'a [u64],
    y: Vec<f64>,
    suspect: Vec<bool>,
    /// What setting each point aside costs.
    price: Vec<f64>,
    declared: &'a [(u8, u64)],
    /// Whether a last level of this latency (ns) and number is DRAM.
    is_dram: &'a dyn Fn(f64, u8) -> bool,
    /// A random chase on small pages (see [`fit`]).
    tlb_prone: bool,
    /// Whether the physical bounds hold (the share a level before can still serve, a level's width
    /// on a random curve); a curve no reading fits under them is read without them, any of its
    /// points then a suspect.
    bounded: bool,
    cores: Vec<Vec<Option<Core>>>,
}

impl Fitter<'_> {
    fn aside_cost(&self, points: &[usize]) -> f64 {
        points.iter().map(|&k| self.price[k]).sum()
    }

    fn core(&self, a: usize, b: usize) -> Option<&Core> {
        self.cores[a][b - a].as_ref()
    }

    /// The points between two cores (ending at `b2`, starting at `a`) as transitions and points
    /// set aside, or `None` where one is neither.
    fn between(&self, from: f64, to: f64, b2: usize, a: usize) -> Option<(Vec<usize>, Vec<usize>)> {
        let (mut points, mut aside) = (Vec::new(), Vec::new());
        for k in b2 + 1..a {
            if self.y[k] >= from && self.y[k] <= to {
                points.push(k);
            } else if self.suspect[k] {
                aside.push(k);
            } else {
                return None;
            }
        }
        // Every transition point past the first says the level before still holds h * w bytes.
        let (la, lb) = (from.exp(), to.exp());
        let held = |k: usize| (lb - self.y[k].exp()) / (lb - la) * self.bytes[k] as f64;
        if let Some((&first, rest)) = points.split_first().filter(|_| self.bounded)
            && rest.iter().any(|&k| held(k) > self.bytes[first] as f64)
        {
            return None;
        }
        Some((points, aside))
    }

    fn join(&self, from: &State, a: usize, b: usize) -> Option<Join> {
        let (f, t) = (self.core(from.a, from.b)?, self.core(a, b)?);
        if t.center - f.center < MIN_LEVEL_STEP.ln() {
            return None;
        }
        let last = b == self.y.len() - 1;
        let into_dram = last && (self.is_dram)(t.center.exp(), from.number + 1);
        // On a random curve page walks make the climb to DRAM pause: a level between two others
        // spans at least the least step in size between two caches.
        if self.bounded && self.tlb_prone && !last && (self.bytes[b] as f64) < self.bytes[a] as f64 * MIN_LEVEL_WIDTH {
            return None;
        }
        let (points, aside) = self.between(f.center, t.center, from.b, a)?;
        let mid = ((f.center.exp() + t.center.exp()) / 2.0).ln();
        let highs = if into_dram { 0 } else { points.iter().filter(|&&k| self.y[k] < mid).count() };
        let lows = if into_dram { 0 } else { points.len() - highs };
        let end = points[..highs].last().copied().unwrap_or(from.b);
        let cost = points.len() as f64 * TRANSITION
            + (from.lows + highs).saturating_sub(1) as f64 * MORE_TRANSITIONS
            + self.aside_cost(&aside)
            + self.aside_cost(&t.aside)
            + LEVEL
            + t.misfit
            + prior(self.declared, from.number, self.bytes[end], Some(self.bytes[end + 1]));
        Some(Join { cost, points, highs, lows, aside })
    }

    /// The first level's core may start only after points set aside.
    fn lead(&self, a: usize) -> Option<Vec<usize>> {
        (0..a).all(|k| self.suspect[k]).then(|| (0..a).collect())
    }

    fn run(&self) -> Vec<State> {
        let n = self.y.len();
        let mut states: Vec<State> = Vec::new();
        let mut ending: Vec<Vec<usize>> = vec![Vec::new(); n];
        for a in 0..n {
            for b in a..n {
                let Some(core) = self.core(a, b) else { continue };
                // The best way to each (number, transitions owned before the core, at most 2).
                let mut best = vec![[None::<(f64, Option<usize>)>; 3]; usize::from(MAX_LEVELS) + 1];
                if let Some(lead) = self.lead(a) {
                    let aside = self.aside_cost(&lead) + self.aside_cost(&core.aside);
                    best[1][0] = Some((LEVEL + core.misfit + aside, None));
                }
                for &s in ending[..a].iter().flatten() {
                    let from = &states[s];
                    if from.number >= MAX_LEVELS {
                        continue;
                    }
                    let Some(join) = self.join(from, a, b) else { continue };
                    let (number, lows) = (usize::from(from.number) + 1, join.lows.min(2));
                    let cost = from.cost + join.cost;
                    if best[number][lows].is_none_or(|(c, _)| cost < c) {
                        best[number][lows] = Some((cost, Some(s)));
                    }
                }
                for (number, by_lows) in best.into_iter().enumerate() {
                    for (lows, found) in by_lows.into_iter().enumerate() {
                        let Some((cost, before)) = found else { continue };
                        ending[b].push(states.len());
                        states.push(State { a, b, number: number as u8, lows, cost, before });
                    }
                }
            }
        }
        states
    }

    /// The points after the last level's core: transitions of a climb not over yet, and points set
    /// aside; `None` where one is neither, or where a DRAM would end on a climb.
    fn tail(&self, s: &State) -> Option<(Vec<usize>, Vec<usize>, bool)> {
        let core = self.core(s.a, s.b)?;
        let dram = s.before.is_some() && (self.is_dram)(core.center.exp(), s.number);
        let (mut climb, mut aside) = (Vec::new(), Vec::new());
        let mut last = core.center;
        for k in s.b + 1..self.y.len() {
            if self.y[k] >= last && !dram {
                climb.push(k);
                last = self.y[k];
            } else if self.suspect[k] {
                aside.push(k);
            } else {
                return None;
            }
        }
        Some((climb, aside, dram))
    }

    /// What a reading ending with state `s` costs in all.
    fn close(&self, s: &State) -> Option<f64> {
        let (climb, aside, dram) = self.tail(s)?;
        let prior = if dram { 0.0 } else { prior(self.declared, s.number, self.bytes[self.y.len() - 1], None) };
        Some(
            s.cost
                + climb.len() as f64 * TRANSITION
                + (s.lows + climb.len()).saturating_sub(1) as f64 * MORE_TRANSITIONS
                + self.aside_cost(&aside)
                + prior,
        )
    }
}

/// Reads `ns` (per load, at working sets `bytes`, ascending) as levels. `declared` holds each
/// declared cache level's size (number, bytes of one cache); `is_dram` says whether a last level
/// of this latency (given the first point's, and its number) is DRAM, which may be reached
/// through a climb no cache owns and cannot end on one. `tlb_prone`: the curve is a random chase on
/// small pages, whose climb to DRAM pauses where page walks step up (such a pause is no level: a
/// level between two others spans at least 2x in size there).
pub fn fit(
    bytes: &[u64],
    ns: &[f64],
    declared: &[(u8, u64)],
    is_dram: &dyn Fn(f64, f64, u8) -> bool,
    tlb_prone: bool,
) -> Fit {
    let n = ns.len();
    if n == 0 || n != bytes.len() || ns.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Fit::default();
    }
    let y: Vec<f64> = ns.iter().map(|v| v.ln()).collect();
    let price = aside_prices(ns);
    let suspect: Vec<bool> = price.iter().map(|p| p.is_finite()).collect();
    let l1_ns = ns.iter().zip(&suspect).filter(|(_, s)| !**s).map(|(v, _)| *v).take(2).fold(f64::INFINITY, f64::min);
    let cores = (0..n).map(|a| (a..n).map(|b| core(&y, &suspect, a, b)).collect()).collect();
    let dram_test = |ns: f64, number: u8| is_dram(l1_ns, ns, number);
    let mut fitter =
        Fitter { bytes, y, suspect, price, declared, is_dram: &dram_test, tlb_prone, bounded: true, cores };
    for bounded in [true, false] {
        fitter.bounded = bounded;
        if !bounded {
            // Without the bounds any point may be set aside, at the price of one out of order:
            // some reading always exists, if only one level and the rest set aside.
            fitter.price.iter_mut().filter(|p| p.is_infinite()).for_each(|p| *p = 2.0 * ASIDE);
            fitter.suspect = vec![true; n];
            fitter.cores = (0..n).map(|a| (a..n).map(|b| core(&fitter.y, &fitter.suspect, a, b)).collect()).collect();
        }
        let states = fitter.run();
        let best = states
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((fitter.close(s)?, i)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, mut s)) = best else { continue };
        let mut chain = vec![s];
        while let Some(b) = states[s].before {
            chain.push(b);
            s = b;
        }
        chain.reverse();
        return assemble(&fitter, &states, &chain);
    }
    Fit::default()
}

/// The levels of the chosen chain of states, each with the points it owns.
fn assemble(fitter: &Fitter<'_>, states: &[State], chain: &[usize]) -> Fit {
    let mut out = Fit::default();
    let first = &states[chain[0]];
    out.aside.extend(fitter.lead(first.a).unwrap_or_default());
    let mut first_owned = first.a;
    for (k, &s) in chain.iter().enumerate() {
        let state = &states[s];
        let core = fitter.core(state.a, state.b).expect("a chosen core");
        out.aside.extend(&core.aside);
        let (last_owned, next_first) = match chain.get(k + 1) {
            Some(&next) => {
                let next = &states[next];
                let join = fitter.join(state, next.a, next.b).expect("a chosen join");
                out.aside.extend(&join.aside);
                if join.highs + join.lows < join.points.len() {
                    out.climb.extend(&join.points);
                }
                let last = join.points[..join.highs].last().copied().unwrap_or(state.b);
                (last, join.points[join.points.len() - join.lows..].first().copied().unwrap_or(next.a))
            }
            None => {
                let (climb, aside, _) = fitter.tail(state).expect("a chosen ending");
                out.aside.extend(aside);
                (climb.last().copied().unwrap_or(state.b), 0)
            }
        };
        out.levels.push(FitLevel {
            first: first_owned,
            last: last_owned,
            core_first: state.a,
            core_last: state.b,
            ns: core.center.exp(),
            number: state.number,
        });
        first_owned = next_first;
    }
    out.aside.sort_unstable();
    out
}

#[cfg(test)]
mod tests;
