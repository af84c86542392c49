//! How many groups are still to come, from a table's own counts, whatever order its rows came in.
//!
//! Chao's bound (`d + f1 (f1 - 1) / 2 (f2 + 1)`, from the keys seen once and twice) assumes the
//! rows come in no order. Where each key's rows come together (sorted, or in sessions) every
//! group seen is already whole or nearly: few keys are seen once, and the bound foresees almost
//! no groups to come while new ones keep arriving at the same rate. A table kept on that bound
//! ran at 2-3x tuned's time on the small preset's sorted and session orders
//! (`docs/results/adaptive-carry-xeon-2vcpu-kvm.md`).
//!
//! So a table tests its rows for that order first. Rows in no order repeat the row before them
//! as often as two rows drawn at random share a key, `sum c (c - 1) / n (n - 1)` from the counts;
//! rows whose keys come together repeat it far more often. Where they do, the rate of new groups
//! measured over a window of rows (from a mark to the look) stands for the rest, since rows in
//! that order give no reason to expect it to fall. Otherwise Chao's bound stands, as before.
//!
//! Repeats, not the rate of new groups itself against Good-Turing's `f1 / n`: a key order that
//! cycles through the keys (ids modulo a range, a low-discrepancy sequence) brings new groups
//! faster than Good-Turing expects, yet its groups run out as Chao's bound says; it repeats the
//! row before less often than chance, never more.

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

/// The rows a table took since its mark: how many followed a row, and how many of those repeated
/// its key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Window {
    pub pairs: u64,
    pub repeats: u64,
}

impl Window {
    /// Takes a block of rows (pairs across blocks are left out: a block is thousands of rows).
    pub fn tally(&mut self, keys: &[i64]) {
        self.pairs += keys.len().saturating_sub(1) as u64;
        self.repeats += keys.windows(2).map(|pair| u64::from(pair[0] == pair[1])).sum::<u64>();
    }
}

/// How far above chance a window's repeats must be to mean order, in Poisson standard
/// deviations (and, where chance expects next to none, in repeats: `Z²`). At 4, rows in no order
/// would be taken for ordered about once in 30,000 looks; sessions of 1-8 rows repeat on about
/// three rows in four and sorted rows on nearly all, thousands of deviations past it in any
/// window of a few hundred rows.
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

/// The groups still to come in `rows_left` more rows, foreseen at `look`, with the counts at the
/// table's `mark` and the `window` of rows since, where it has them.
pub(super) fn to_come(since: Option<(&Counts, &Window)>, look: &Counts, rows_left: u64) -> u64 {
    match since {
        Some((mark, window)) if look.rows > mark.rows && ordered(look, window) => {
            let rows = look.rows - mark.rows;
            let new = look.groups.saturating_sub(mark.groups);
            // The window's rate, held for the rows left, rounded up.
            let scaled = u128::from(new) * u128::from(rows_left);
            u64::try_from(scaled.div_ceil(u128::from(rows))).unwrap_or(u64::MAX)
        }
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

    /// The mark at `from`, the look at `to`, the window between: as a table sees them.
    fn look(keys: &[i64], from: usize, to: usize) -> (Counts, Window, Counts) {
        let mut window = Window::default();
        window.tally(&keys[from..to]);
        (counts(&keys[..from]), window, counts(&keys[..to]))
    }

    fn is_ordered(keys: &[i64], from: usize, to: usize) -> bool {
        let (_, window, look) = look(keys, from, to);
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
        window.tally(&[5]);
        assert_eq!(window, Window { pairs: 3, repeats: 1 });
    }

    #[test]
    fn sorted_rows_are_ordered_and_keep_their_rate() {
        // 10 rows a key, keys in order: every seen group is whole, Chao foresees nothing.
        let keys: Vec<i64> = (0..200_000).map(|i| i / 10).collect();
        let (mark, window, look) = look(&keys, 100_000, 200_000);
        assert_eq!(look.chao(), look.groups);
        assert!(ordered(&look, &window));
        assert_eq!(to_come(Some((&mark, &window)), &look, 300_000), 30_000);
        assert_eq!(to_come(None, &look, 300_000), 0);
    }

    #[test]
    fn sessions_are_ordered() {
        // 50,000 keys, each in runs of 1-8 rows, the runs shuffled.
        let mut rng = fastrand::Rng::with_seed(3);
        let mut runs: Vec<(i64, usize)> = (0..150_000).map(|_| (rng.i64(0..50_000), rng.usize(1..=8))).collect();
        rng.shuffle(&mut runs);
        let keys: Vec<i64> = runs.iter().flat_map(|&(k, n)| std::iter::repeat_n(k, n)).collect();
        let (mark, window, look) = look(&keys, keys.len() / 8, keys.len() / 4);
        assert!(ordered(&look, &window));
        assert!(to_come(Some((&mark, &window)), &look, 100_000) > to_come(None, &look, 100_000));
    }

    #[test]
    fn rows_in_no_order_are_not_ordered() {
        // Uniform: most of the groups yet to come, some, nearly all seen, one key only.
        for distinct in [1_000_000, 50_000, 2_000, 1] {
            let keys = shuffled(400_000, distinct);
            for split in [64, 8, 2] {
                let (mark, window, look) = look(&keys, keys.len() / split, keys.len());
                assert!(!ordered(&look, &window), "{distinct} keys, mark at 1/{split}");
                assert_eq!(to_come(Some((&mark, &window)), &look, 10), look.chao() - look.groups);
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
        assert_eq!(to_come(Some((&c, &Window::default())), &c, 10), c.chao() - c.groups);
    }
}
