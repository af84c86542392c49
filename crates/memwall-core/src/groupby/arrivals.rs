//! How many groups are still to come, from a table's own counts, whatever order its rows came in.
//!
//! Chao's bound (`d + f1 (f1 - 1) / 2 (f2 + 1)`, from the keys seen once and twice) assumes the
//! rows come in no order. Where each key's rows come together (sorted, or in sessions) every
//! group seen is already whole or nearly: few keys are seen once, and the bound foresees almost
//! no groups to come while new ones keep arriving. A table kept on that bound ran at 2-3x tuned's
//! time on the small preset's sorted and session orders
//! (`docs/results/adaptive-carry-xeon-2vcpu-kvm.md`).
//!
//! So a table tests its rows for that order first. Rows in no order repeat the row before them
//! as often as two rows drawn at random share a key, `sum c (c - 1) / n (n - 1)` from the counts;
//! rows whose keys come together repeat it far more often. Where they do, the groups' own growth
//! foresees the rest: distinct keys grow as a power of the rows read (Heaps' law, `d = a n^b`),
//! and the power is fitted to the two moments the table knows, its window's opening and the
//! look. Sorted rows grow linearly (`b` = 1) and new groups keep coming; sessions of a few keys
//! slow down as shuffled rows do (`b` < 1). Chao's bound over the window's runs (each run one
//! draw of its key) was tried first: it is a lower bound, far below the truth for a long tail,
//! and it kept a table over 780,000 Zipf 0.9 keys in sessions to the end at twice tuned's time
//! (`docs/results/adaptive-order-xeon-2vcpu-kvm.md`). Otherwise Chao's bound over the table's
//! counts stands, as before.
//!
//! Repeats, not the rate of new groups against Good-Turing's `f1 / n`, tell the order: a key
//! order that cycles through the keys (ids modulo a range, a low-discrepancy sequence) brings
//! new groups faster than Good-Turing expects, yet its groups run out as Chao's bound says; it
//! repeats the row before less often than chance, never more.

/// What a table's counts say at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Counts {
    /// Rows taken so far.
    pub rows: u64,
    /// Groups among them.
    pub groups: u64,
    /// Groups seen exactly once, and exactly twice.
    pub once: u64,
    pub twice: u64,
    /// `sum c (c - 1)` over the groups' counts `c`: ordered pairs of rows that share a key.
    pub sharing: u128,
}

impl Counts {
    /// The counts of a table's groups, one count a group (zero for an empty slot).
    pub fn of(counts: impl Iterator<Item = u64>) -> Self {
        let none = Self { rows: 0, groups: 0, once: 0, twice: 0, sharing: 0 };
        counts.filter(|&count| count != 0).fold(none, |c, count| Self {
            rows: c.rows + count,
            groups: c.groups + 1,
            once: c.once + u64::from(count == 1),
            twice: c.twice + u64::from(count == 2),
            sharing: c.sharing + u128::from(count) * u128::from(count - 1),
        })
    }

    /// Chao's lower bound on all the groups, for rows in no order.
    pub fn chao(&self) -> u64 {
        super::estimate::chao(self.groups, self.once, self.twice)
    }
}

/// A table's window: where it opened (its rows and groups then), and of its first rows, how many
/// followed a row and how many of those repeated its key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Window {
    pub opened_rows: u64,
    pub opened_groups: u64,
    pub pairs: u64,
    pub repeats: u64,
}

impl Window {
    /// A window opening after `rows` rows and `groups` groups.
    pub fn open(rows: u64, groups: u64) -> Self {
        Self { opened_rows: rows, opened_groups: groups, pairs: 0, repeats: 0 }
    }

    /// Takes a block of rows (pairs across blocks are left out: a block is thousands of rows).
    pub fn tally(&mut self, keys: &[i64]) {
        let after = keys.get(1..).unwrap_or_default();
        self.pairs += after.len() as u64;
        self.repeats += after.iter().zip(keys).map(|(a, b)| u64::from(a == b)).sum::<u64>();
    }

    /// The groups after `rows_left` more rows than `look` took, by Heaps' law through the
    /// window's opening and `look`; `None` where the window saw no rows or no new group.
    fn heaps(&self, look: &Counts, rows_left: u64) -> Option<f64> {
        let (n0, d0) = (self.opened_rows as f64, self.opened_groups as f64);
        let (n1, d1) = (look.rows as f64, look.groups as f64);
        if n0 <= 0.0 || d0 <= 0.0 || n1 <= n0 || d1 <= d0 {
            return None;
        }
        // Faster than linear cannot go on (a row brings one group at most).
        let power = ((d1 / d0).ln() / (n1 / n0).ln()).min(1.0);
        Some(d1 * ((n1 + rows_left as f64) / n1).powf(power))
    }
}

/// How far above chance a window's repeats must be to mean order, in Poisson standard
/// deviations (and, where chance expects next to none, in repeats: `Z²`). At 4, rows in no order
/// would be taken for ordered about once in 30,000 looks; sessions of 1-8 rows repeat on about
/// three rows in four and sorted rows on nearly all, thousands of deviations past it in any
/// window of a few thousand rows.
const Z: f64 = 4.0;

/// Whether the rows of `window` repeated the row before them more often than rows in no order
/// with the groups of `look` could.
pub(super) fn ordered(look: &Counts, window: &Window) -> bool {
    if window.pairs == 0 || look.rows < 2 {
        return false;
    }
    let share = look.sharing as f64 / (look.rows as f64 * (look.rows - 1) as f64);
    let expected = window.pairs as f64 * share;
    window.repeats as f64 > expected + Z * (expected.sqrt() + Z)
}

/// The groups still to come in `rows_left` more rows after `look`, from the table's counts there
/// and the `window` of rows before it (where it has one).
pub(super) fn to_come(window: Option<&Window>, look: &Counts, rows_left: u64) -> u64 {
    let growth = window.filter(|window| ordered(look, window)).and_then(|window| window.heaps(look, rows_left));
    match growth {
        // At most a new group a row.
        Some(groups) => (groups - look.groups as f64).clamp(0.0, rows_left as f64) as u64,
        None => look.chao().saturating_sub(look.groups),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(keys: &[i64]) -> Counts {
        let mut seen = std::collections::HashMap::<i64, u64>::new();
        for &k in keys {
            *seen.entry(k).or_default() += 1;
        }
        Counts::of(seen.into_values())
    }

    /// The window from `from` to `to` and the look at `to`: as a table sees them.
    fn look(keys: &[i64], from: usize, to: usize) -> (Window, Counts) {
        let opened = counts(&keys[..from]);
        let mut window = Window::open(opened.rows, opened.groups);
        window.tally(&keys[from..to]);
        (window, counts(&keys[..to]))
    }

    fn is_ordered(keys: &[i64], from: usize, to: usize) -> bool {
        let (window, look) = look(keys, from, to);
        ordered(&look, &window)
    }

    /// `rows` keys drawn at random from `distinct`.
    fn shuffled(rows: u64, distinct: i64) -> Vec<i64> {
        let mut rng = fastrand::Rng::with_seed(7);
        (0..rows).map(|_| rng.i64(0..distinct)).collect()
    }

    /// Keys in runs of 1-8 rows, the runs in no order: `runs` runs of `distinct` keys, Zipf
    /// `skew` (key i weighs (i+1)^-skew).
    fn sessions(runs: usize, distinct: usize, skew: f64) -> Vec<i64> {
        let weights: Vec<f64> = (0..distinct).map(|i| ((i + 1) as f64).powf(-skew)).collect();
        let mut cumulative = Vec::with_capacity(distinct);
        let mut total = 0.0;
        for w in weights {
            total += w;
            cumulative.push(total);
        }
        let mut rng = fastrand::Rng::with_seed(3);
        let mut keys = Vec::new();
        for _ in 0..runs {
            let key = cumulative.partition_point(|&c| c < rng.f64() * total).min(distinct - 1) as i64;
            keys.extend(std::iter::repeat_n(key, rng.usize(1..=8)));
        }
        keys
    }

    #[test]
    fn counts_add_up() {
        let c = counts(&[1, 1, 2, 3, 3, 3, 4]);
        assert_eq!(c, Counts { rows: 7, groups: 4, once: 2, twice: 1, sharing: 2 + 6 });
        assert_eq!(Counts::of([0, 0].into_iter()), Counts { rows: 0, groups: 0, once: 0, twice: 0, sharing: 0 });
        let mut window = Window::open(10, 3);
        window.tally(&[5, 5, 6, 5]);
        window.tally(&[5]);
        window.tally(&[]);
        assert_eq!(window, Window { opened_rows: 10, opened_groups: 3, pairs: 3, repeats: 1 });
    }

    #[test]
    fn sorted_rows_are_ordered_and_keep_bringing_groups() {
        // 10 rows a key, keys in order: every seen group is whole, and Chao's bound over the
        // table's counts foresees nothing; the growth is linear and goes on.
        let keys: Vec<i64> = (0..200_000).map(|i| i / 10).collect();
        let (window, look) = look(&keys, 100_000, 200_000);
        assert_eq!(to_come(None, &look, 300_000), 0);
        assert!(ordered(&look, &window));
        assert_eq!(to_come(Some(&window), &look, 300_000), 30_000);
    }

    #[test]
    fn sessions_are_ordered_and_their_growth_foresees_the_groups() {
        // Most groups still to come at the look, and nearly all seen: the first must foresee
        // more than a sixty-fourth of its rows left as new groups, the second fewer.
        for (distinct, skew, gives_up) in [(2_000_000, 0.9, true), (20_000, 1.1, false)] {
            let keys = sessions(1_000_000, distinct, skew);
            let (window, look) = look(&keys, 200_000, 400_000);
            assert!(ordered(&look, &window));
            let rows_left = (keys.len() - 400_000) as u64;
            let foreseen = to_come(Some(&window), &look, rows_left);
            let truth = counts(&keys).groups - look.groups;
            assert_eq!(64 * foreseen > rows_left, gives_up, "{distinct} keys: {foreseen} foreseen, {truth} to come");
            assert_eq!(64 * truth > rows_left, gives_up, "{distinct} keys: {truth} to come");
        }
    }

    #[test]
    fn rows_in_no_order_are_not_ordered() {
        // Uniform: most of the groups yet to come, some, nearly all seen, one key only.
        for distinct in [1_000_000, 50_000, 2_000, 1] {
            let keys = shuffled(400_000, distinct);
            for split in [64, 8, 2] {
                let (window, look) = look(&keys, keys.len() / split, keys.len());
                assert!(!ordered(&look, &window), "{distinct} keys, window from 1/{split}");
                assert_eq!(to_come(Some(&window), &look, 10), look.chao() - look.groups);
            }
        }
    }

    #[test]
    fn skewed_rows_in_no_order_are_not_ordered() {
        // Zipf 1.1 over 100,000 keys, and the same with a key drawn for half the rows.
        let spec =
            crate::datagen::DataSpec { rows: 400_000, keys: 100_000, skew: crate::datagen::Skew::Zipf(1.1), seed: 5 };
        let zipf = crate::datagen::generate(&spec).unwrap();
        let mut rng = fastrand::Rng::with_seed(9);
        let heavy: Vec<i64> = zipf.iter().map(|&k| if rng.bool() { i64::MAX } else { k }).collect();
        for keys in [&zipf, &heavy] {
            for split in [64, 8, 2] {
                assert!(!is_ordered(keys, keys.len() / split, keys.len()), "window from 1/{split}");
            }
        }
    }

    #[test]
    fn keys_that_cycle_are_not_ordered() {
        // Ids modulo a range, and a low-discrepancy walk over it: new groups come faster than
        // Good-Turing expects, but no key repeats the row before it.
        let modulo: Vec<i64> = (0..200_000).map(|i| i % 2_000).collect();
        let weyl: Vec<i64> =
            (0..200_000u64).map(|i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % 2_000) as i64).collect();
        for keys in [&modulo, &weyl] {
            assert!(!is_ordered(keys, 600, 1_300));
            assert!(!is_ordered(keys, 1_000, 200_000));
        }
    }

    #[test]
    fn a_window_without_rows_or_growth_says_nothing() {
        let c = counts(&[1, 2, 2]);
        assert!(!ordered(&c, &Window::default()));
        assert_eq!(to_come(Some(&Window::default()), &c, 10), c.chao() - c.groups);
        // Ordered, but no group came since the window opened: the growth says nothing.
        let mut keys: Vec<i64> = (0..1_000).collect();
        keys.extend([5; 100]);
        let (window, look) = look(&keys, 1_000, 1_100);
        assert!(ordered(&look, &window));
        assert_eq!(to_come(Some(&window), &look, 10), look.chao() - look.groups);
    }
}
