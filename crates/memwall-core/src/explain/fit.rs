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
//! `h * w` bytes: less than the first working set it already failed to hold, and no more than a
//! core's own L1 or L2 declares. Those inequalities keep a slow level from being taken for a
//! climb, on dense curves and sparse ones alike. A transition point belongs to the level that
//! serves most of its loads (the arithmetic mean of the two latencies splits them), but on the
//! climb into DRAM, which page walks and far memory make long, it belongs to neither.
//!
//! The fit. Dynamic programming over the points, in order, chooses the levels' cores, their
//! latencies and their numbers (L1, L2, ...; a slower part of a level, well inside its declared
//! size, keeps the level's number), minimising one cost ([`costs`]): each core point's squared
//! distance from its level's latency in units of the band, a price per level, per transition
//! point, for a level's climbs that reach past an octave and per point set aside, and a prior that
//! a level numbered N ends near the declared size of LN (where the OS declares one). The number of
//! levels is what the cost chooses; nothing is cut at a threshold. The prices are in units of a
//! core point at the band's edge (cost 1), fitted once on all the evidence the project holds
//! (1,798 cloud curves of eight providers, Intel, AMD and Arm, and this project's own dense
//! ladders); docs/results/levels-cloud-curves.md says how far each can move.

mod costs;

use super::curve::EARLY;
use super::treads::MIN_LEVEL_STEP;
use costs::{ASIDE, Core, LEVEL, LONG_CLIMB, MAX_LEVELS, MIN_LEVEL_WIDTH, TRANSITION, aside_prices, core, prior};

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
    /// Its number in the hierarchy: 1 for the first level, one more for each after but a slower
    /// part of the level before, which has its number.
    pub number: u8,
    pub slower: bool,
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

/// A state of the fit: a level with core `a..=b`, numbered `number`, reached at `cost` from state
/// `before`.
#[derive(Debug, Clone, Copy)]
struct State {
    a: usize,
    b: usize,
    number: u8,
    /// A slower part of the level before, which has the same number.
    slower: bool,
    /// How far (octaves) the transitions it owns before its core reach.
    low: f64,
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
    /// How far (octaves) the transitions the level after owns reach.
    low: f64,
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
    /// Sampled finer than [`MIN_LEVEL_WIDTH`] (most steps between sizes smaller than it), so that
    /// a level shows its width.
    dense: bool,
    /// Whether the physical bounds hold (the share a level before can still serve, a level's width
    /// on a random curve); a curve no reading fits under them is read without them, any of its
    /// points then a suspect.
    bounded: bool,
    /// Whether the sizes the OS declares for a core's own caches (L1, L2) bound the levels: a
    /// curve no reading fits under them is read without them first (a hypervisor's CPU model may
    /// declare caches the host does not have).
    trust_declared: bool,
    cores: Vec<Vec<Option<Core>>>,
}

impl Fitter<'_> {
    /// How far a climb from a core's edge point `edge` to `far` reaches: each point on it counts
    /// the octaves from the point before it, but no more than one (a sparse curve's next size may
    /// be octaves away, and one point on a climb says no more than one a dense ladder measures).
    fn octaves(&self, edge: usize, far: Option<usize>) -> f64 {
        let Some(far) = far else { return 0.0 };
        let (lo, hi) = (edge.min(far), edge.max(far));
        (lo + 1..=hi).map(|k| (self.bytes[k] as f64 / self.bytes[k - 1] as f64).log2().min(1.0)).sum()
    }

    /// The price of climbs a level owns that reach `octaves` in all.
    fn long_climb(&self, octaves: f64) -> f64 {
        LONG_CLIMB * (octaves - 1.0).max(0.0)
    }

    fn aside_cost(&self, points: &[usize]) -> f64 {
        points.iter().map(|&k| self.price[k]).sum()
    }

    fn core(&self, a: usize, b: usize) -> Option<&Core> {
        self.cores[a][b - a].as_ref()
    }

    /// The points between two cores (ending at `b2`, starting at `a`) as transitions and points
    /// set aside, or `None` where one is neither.
    /// `declared`: the declared size of the level before, where it is a core's own (L1, L2).
    fn between(
        &self,
        from: f64,
        to: f64,
        b2: usize,
        a: usize,
        declared: Option<u64>,
    ) -> Option<(Vec<usize>, Vec<usize>)> {
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
        // Every transition point says the level before still holds h * w bytes: less than the
        // first working set it failed to hold, and no more than a core's own cache declares (give
        // or take the half octave between two sizes of a ladder: h rests on noisy latencies).
        let (la, lb) = (from.exp(), to.exp());
        let held = |k: usize| (lb - self.y[k].exp()) / (lb - la) * self.bytes[k] as f64;
        let room = |k: usize| {
            let first =
                points.first().map_or(f64::INFINITY, |&f| if f == k { f64::INFINITY } else { self.bytes[f] as f64 });
            first.min(declared.map_or(f64::INFINITY, |d| d as f64 * std::f64::consts::SQRT_2))
        };
        if self.bounded && points.iter().any(|&k| held(k) > room(k)) {
            return None;
        }
        Some((points, aside))
    }

    /// Joins level `from` to a level with core `a..=b`: the next level, or (`slower`) a slower
    /// part of the same one, which reads a level step slower well inside the size the OS declares
    /// for it (far slices, a TLB that misses, another tenant).
    fn join(&self, from: &State, a: usize, b: usize, slower: bool) -> Option<Join> {
        let (f, t) = (self.core(from.a, from.b)?, self.core(a, b)?);
        if t.center - f.center < MIN_LEVEL_STEP.ln() {
            return None;
        }
        let declared = self.declared.iter().find(|&&(n, _)| n == from.number).map(|&(_, d)| d);
        if slower && (from.slower || declared.is_none_or(|d| self.bytes[a] as f64 > d as f64 * EARLY)) {
            return None;
        }
        let number = if slower { from.number } else { from.number + 1 };
        let last = b == self.y.len() - 1;
        // A level numbered past a core's own cache (L1, L2) reaches past the size declared for it:
        // a working set that fits in a core's own cache is served by it, however slowly.
        if self.trust_declared
            && !slower
            && self.declared.iter().any(|&(m, d)| m <= 2 && m < number && self.bytes[b] <= d)
        {
            return None;
        }
        // DRAM is never a slower part of a cache.
        if slower && last && (self.is_dram)(t.center.exp(), number + 1) {
            return None;
        }
        let into_dram = last && (self.is_dram)(t.center.exp(), number);
        // Where the ladder samples finer than a level's least width, a level shows it: a cache holds
        // at least twice what the one before it does. A slower part of one level must show it too
        // (two points on a climb are none), and so must every level between two others on a random
        // curve, whose climb to DRAM pauses where page walks step up.
        let narrow = (self.bytes[b] as f64) < self.bytes[a] as f64 * MIN_LEVEL_WIDTH;
        if self.bounded && self.dense && narrow && (slower || (self.tlb_prone && !last)) {
            return None;
        }
        let own =
            self.declared.iter().find(|&&(n, _)| self.trust_declared && n == from.number && n <= 2).map(|&(_, d)| d);
        let (points, aside) = self.between(f.center, t.center, from.b, a, own)?;
        let mid = ((f.center.exp() + t.center.exp()) / 2.0).ln();
        // What the level before pays for reaching as far as its first `highs` transition points:
        // its climbs past an octave, and its size against the declared one.
        let reach = |highs: usize| {
            let last = points[..highs].last().copied();
            let end = last.unwrap_or(from.b);
            // A slower part continues its level: the level's size is judged where it ends.
            let judged = if slower {
                0.0
            } else {
                prior(self.declared, from.number, self.bytes[end], Some(self.bytes[end + 1]))
            };
            self.long_climb(from.low + self.octaves(from.b, last)) + judged
        };
        // The climb into DRAM belongs to neither level, which page walks and far memory make long,
        // but for its first point where a TLB-friendly curve (no page walks to slow it) reads it
        // less than a level step over the cache: nearer the cache than any level after it could
        // be, a working set the cache still holds but for a share at its edge (on a guest, a
        // neighbour's). The cache keeps it where that costs no more than leaving it to the climb.
        let edge = points.first().is_some_and(|&k| self.y[k] < mid && self.y[k] < f.center + MIN_LEVEL_STEP.ln());
        let highs = match (into_dram, edge && !self.tlb_prone) {
            (false, _) => points.iter().filter(|&&k| self.y[k] < mid).count(),
            (true, false) => 0,
            (true, true) => usize::from(reach(1) <= reach(0)),
        };
        let lows = if into_dram { 0 } else { points.len() - highs };
        let cost = points.len() as f64 * TRANSITION
            + reach(highs)
            + self.aside_cost(&aside)
            + self.aside_cost(&t.aside)
            + LEVEL
            + t.misfit;
        let low = self.octaves(a, points[points.len() - lows..].first().copied());
        Some(Join { cost, points, highs, lows, aside, low })
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
                // The best way to each (number, slower part, reach of the transitions it owns).
                let mut best: Vec<(u8, bool, f64, f64, Option<usize>)> = Vec::new();
                let mut offer = |number: u8, slower: bool, low: f64, cost: f64, before: Option<usize>| match best
                    .iter_mut()
                    .find(|s| s.0 == number && s.1 == slower && s.2 == low)
                {
                    Some(s) if s.3 <= cost => {}
                    Some(s) => *s = (number, slower, low, cost, before),
                    None => best.push((number, slower, low, cost, before)),
                };
                if let Some(lead) = self.lead(a) {
                    let aside = self.aside_cost(&lead) + self.aside_cost(&core.aside);
                    offer(1, false, 0.0, LEVEL + core.misfit + aside, None);
                }
                for &s in ending[..a].iter().flatten() {
                    let from = &states[s];
                    for slower in [false, true] {
                        let number = usize::from(from.number) + usize::from(!slower);
                        if number > usize::from(MAX_LEVELS) {
                            continue;
                        }
                        let Some(join) = self.join(from, a, b, slower) else { continue };
                        offer(number as u8, slower, join.low, from.cost + join.cost, Some(s));
                    }
                }
                for (number, slower, low, cost, before) in best {
                    ending[b].push(states.len());
                    states.push(State { a, b, number, slower, low, cost, before });
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
        // A curve that ends in what would be DRAM as the next level does not end in a slower part.
        if s.slower && (self.is_dram)(self.core(s.a, s.b)?.center.exp(), s.number + 1) {
            return None;
        }
        let prior = if dram { 0.0 } else { prior(self.declared, s.number, self.bytes[self.y.len() - 1], None) };
        Some(
            s.cost
                + climb.len() as f64 * TRANSITION
                + self.long_climb(s.low + self.octaves(s.b, climb.last().copied()))
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
    let narrow_steps = bytes.windows(2).filter(|w| (w[1] as f64) < w[0] as f64 * MIN_LEVEL_WIDTH).count();
    let dense = 2 * narrow_steps > n.saturating_sub(1);
    let mut fitter = Fitter {
        bytes,
        y,
        suspect,
        price,
        declared,
        is_dram: &dram_test,
        tlb_prone,
        dense,
        bounded: true,
        trust_declared: true,
        cores,
    };
    for (bounded, trust_declared) in [(true, true), (true, false), (false, false)] {
        (fitter.bounded, fitter.trust_declared) = (bounded, trust_declared);
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
                let join = fitter.join(state, next.a, next.b, next.slower).expect("a chosen join");
                out.aside.extend(&join.aside);
                out.climb.extend(&join.points[join.highs..join.points.len() - join.lows]);
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
            slower: state.slower,
        });
        first_owned = next_first;
    }
    out.aside.sort_unstable();
    out
}

#[cfg(test)]
mod tests;
