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
//! rows whose keys come together repeat it far more often. Where they do, the unit the order
//! does not touch is the run (a row whose key differs from the row before, with the rows that
//! repeat it): Chao's bound is taken over the runs of a window of rows instead, each run counted
//! once. Sorted rows bring a new key with every run, and the bound foresees groups without end;
//! sessions (runs of a key, the runs in no order) repeat keys across runs as shuffled rows do
//! across rows, and the bound sees the groups run out. Otherwise Chao's bound over the table's
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

/// The first rows a table took since its window opened: how many followed a row and how many of
/// those repeated its key, and the key of each run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Window {
    pub pairs: u64,
    pub repeats: u64,
    runs: Vec<i64>,
}

impl Window {
    /// Takes a block of rows; its first row starts a run unless it repeats the last run's key.
    pub fn tally(&mut self, keys: &[i64]) {
        let Some(&first) = keys.first() else { return };
        if self.runs.last() != Some(&first) {
            self.runs.push(first);
        }
        self.pairs += keys.len() as u64 - 1;
        for (&key, &before) in keys[1..].iter().zip(keys) {
            if key == before {
                self.repeats += 1;
            } else {
                self.runs.push(key);
            }
        }
    }

    /// Chao's bound over the window's runs, each run a draw of its key.
    fn runs_chao(&self) -> u64 {
        let mut runs = self.runs.clone();
        runs.sort_unstable();
        let mut counts = Vec::new();
        for same in runs.chunk_by(|a, b| a == b) {
            counts.push(same.len() as u64);
        }
        Counts::of(counts.into_iter()).chao()
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

/// The groups still to come after `look`, from the table's counts there and the `window` of rows
/// before it (where it has one).
pub(super) fn to_come(window: Option<&Window>, look: &Counts) -> u64 {
    match window {
        Some(window) if ordered(look, window) => window.runs_chao().saturating_sub(look.groups),
        _ => look.chao().saturating_sub(look.groups),
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
        let mut window = Window::default();
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

    #[test]
    fn counts_add_up() {
        let c = counts(&[1, 1, 2, 3, 3, 3, 4]);
        assert_eq!(c, Counts { rows: 7, groups: 4, once: 2, twice: 1, sharing: 2 + 6 });
        assert_eq!(Counts::of([0, 0].into_iter()), Counts { rows: 0, groups: 0, once: 0, twice: 0, sharing: 0 });
        let mut window = Window::default();
        window.tally(&[5, 5, 6, 5]);
        window.tally(&[5, 7]);
        window.tally(&[]);
        assert_eq!(window, Window { pairs: 4, repeats: 1, runs: vec![5, 6, 5, 7] });
        // Runs of 5 (twice), 6 and 7: Chao's 3 + 2 (2 - 1) / 2 (1 + 1).
        assert_eq!(window.runs_chao(), 3);
    }

    #[test]
    fn sorted_rows_are_ordered_and_foresee_groups_without_end() {
        // 10 rows a key, keys in order: every seen group is whole, and Chao over the table's
        // counts foresees nothing; over the runs, every run a new key.
        let keys: Vec<i64> = (0..200_000).map(|i| i / 10).collect();
        let (window, look) = look(&keys, 100_000, 200_000);
        assert_eq!(to_come(None, &look), 0);
        assert!(ordered(&look, &window));
        assert!(to_come(Some(&window), &look) > 1_000_000);
    }

    #[test]
    fn sessions_are_ordered_and_their_runs_foresee_the_groups() {
        // Keys in runs of 1-8 rows, the runs in no order: 500,000 runs of 200,000 keys (most
        // groups still to come at the look) and of 20,000 (nearly all seen).
        for distinct in [200_000, 20_000] {
            let mut rng = fastrand::Rng::with_seed(3);
            let runs: Vec<(i64, usize)> = (0..500_000).map(|_| (rng.i64(0..distinct), rng.usize(1..=8))).collect();
            let keys: Vec<i64> = runs.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n)).collect();
            let (window, look) = look(&keys, 200_000, 264_000);
            assert!(ordered(&look, &window));
            let (to_come, truth) = (to_come(Some(&window), &look), distinct as u64 - look.groups);
            // Within a factor of two of the truth either way (as rows in no order are foreseen).
            assert!(
                to_come <= 2 * truth && 2 * to_come >= truth,
                "{distinct} keys: {to_come} foreseen, {truth} to come"
            );
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
                assert_eq!(to_come(Some(&window), &look), look.chao() - look.groups);
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
                assert!(!is_ordered(keys, keys.len() / split, keys.len()), "mark at 1/{split}");
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
    fn a_window_without_rows_says_nothing() {
        let c = counts(&[1, 2, 2]);
        assert!(!ordered(&c, &Window::default()));
        assert_eq!(to_come(Some(&Window::default()), &c), c.chao() - c.groups);
    }
}
