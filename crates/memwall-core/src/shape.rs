//! The shape of generated rows beyond how many each key gets: the order the rows come in, and a
//! heavy key holding a share of them. Real columns are rarely shuffled: a log's sessions put a
//! user's rows in runs, an append-only table sees each key first and then its repeats, a
//! clustered index sorts. A kernel (and adaptive's sample) that only ever met shuffled rows can
//! be fooled by these.

use crate::datagen::key_at;

/// The order of the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Uniformly shuffled (the generator's own order).
    #[default]
    Shuffled,
    /// Each key's rows in runs of 1 to 8, the runs shuffled.
    Sessions,
    /// Every key once (in shuffled order), then all the repeats, shuffled.
    FirstSeen,
    /// Sorted by key.
    Sorted,
}

impl Order {
    pub const ALL: [Order; 4] = [Order::Shuffled, Order::Sessions, Order::FirstSeen, Order::Sorted];

    pub fn name(self) -> &'static str {
        match self {
            Self::Shuffled => "shuffled",
            Self::Sessions => "sessions",
            Self::FirstSeen => "first-seen",
            Self::Sorted => "sorted",
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| format!("invalid order '{text}': expected one of shuffled, sessions, first-seen, sorted"))
    }
}

/// The longest run of one key's rows in [`Order::Sessions`].
pub const MAX_SESSION_ROWS: usize = 8;

/// How rows are laid out: their order and the share of rows a heavy key takes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shape {
    pub order: Order,
    /// Share of the rows (0 to 1) given to one key, the generator's first (its most frequent
    /// under Zipf), taken from the rows of keys that have more than one: every key keeps a row.
    pub heavy_share: f64,
}

/// Parses a heavy-key share: a number from 0 to 1 (below 1: every other key keeps a row).
pub fn parse_heavy_share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(share) if (0.0..1.0).contains(&share) => Ok(share),
        _ => Err(format!("invalid heavy-key share '{text}': expected a number from 0 to below 1, e.g. 0.3")),
    }
}

impl Shape {
    /// Whether the rows are as the generator leaves them.
    pub fn is_plain(&self) -> bool {
        self.order == Order::Shuffled && self.heavy_share == 0.0
    }

    /// "sessions, heavy key 30%", for labels and reports.
    pub fn describe(&self) -> String {
        if self.heavy_share > 0.0 {
            format!("{}, heavy key {:.0}%", self.order.name(), self.heavy_share * 100.0)
        } else {
            self.order.name().into()
        }
    }

    /// Lays `keys` (generated with `seed`, so that key 0 is [`key_at`]`(0, seed)`) out in this
    /// shape. The multiset of keys changes only by the heavy key's share; every key keeps a row.
    pub fn apply(&self, keys: &mut Vec<i64>, seed: u64) {
        if self.is_plain() {
            return;
        }
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x05ba_9e5e);
        if self.heavy_share > 0.0 {
            keys.sort_unstable();
            make_heavy(keys, key_at(0, seed), self.heavy_share, &mut rng);
        }
        match self.order {
            Order::Shuffled => rng.shuffle(keys),
            Order::Sorted => keys.sort_unstable(),
            Order::Sessions => {
                keys.sort_unstable();
                *keys = sessions(keys, &mut rng);
            }
            Order::FirstSeen => {
                rng.shuffle(keys);
                first_seen(keys);
            }
        }
    }
}

/// Gives `heavy` about `share` of the sorted `keys`' rows, from the rows past each key's first.
fn make_heavy(keys: &mut [i64], heavy: i64, share: f64, rng: &mut fastrand::Rng) {
    let rows = keys.len();
    let repeats = (1..rows).filter(|&i| keys[i] == keys[i - 1]).count();
    if repeats == 0 {
        return;
    }
    let p = (share * rows as f64 / repeats as f64).min(1.0);
    for i in (1..rows).rev() {
        if keys[i] == keys[i - 1] && rng.f64() < p {
            keys[i] = heavy;
        }
    }
}

/// The sorted `keys` cut into runs of 1 to [`MAX_SESSION_ROWS`] rows of one key, the runs shuffled.
fn sessions(keys: &[i64], rng: &mut fastrand::Rng) -> Vec<i64> {
    let mut runs: Vec<(usize, usize)> = Vec::with_capacity(keys.len() / 4 + 1);
    let mut start = 0;
    while start < keys.len() {
        let same = keys[start..].iter().take_while(|&&k| k == keys[start]).count();
        let mut at = start;
        while at < start + same {
            let len = rng.usize(1..=MAX_SESSION_ROWS).min(start + same - at);
            runs.push((at, len));
            at += len;
        }
        start += same;
    }
    rng.shuffle(&mut runs);
    let mut out = Vec::with_capacity(keys.len());
    for (at, len) in runs {
        out.extend_from_slice(&keys[at..at + len]);
    }
    out
}

/// Moves every key's first row to the front, in the order first seen, the others after them in
/// the order they were.
fn first_seen(keys: &mut Vec<i64>) {
    let mut seen = hashbrown::HashSet::with_capacity(keys.len() / 2);
    let (mut firsts, mut repeats) = (Vec::new(), Vec::with_capacity(keys.len()));
    for &key in keys.iter() {
        if seen.insert(key) { firsts.push(key) } else { repeats.push(key) }
    }
    firsts.extend_from_slice(&repeats);
    *keys = firsts;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::{DataSpec, Skew, generate};

    fn sorted(mut keys: Vec<i64>) -> Vec<i64> {
        keys.sort_unstable();
        keys
    }

    fn distinct(keys: &[i64]) -> usize {
        sorted(keys.to_vec()).windows(2).filter(|w| w[0] != w[1]).count() + usize::from(!keys.is_empty())
    }

    #[test]
    fn every_order_keeps_the_rows_and_lays_them_out_as_named() {
        let spec = DataSpec { rows: 50_000, keys: 3_000, skew: Skew::Zipf(0.8), seed: 9 };
        let keys = generate(&spec).unwrap();
        for order in Order::ALL {
            let mut shaped = keys.clone();
            Shape { order, heavy_share: 0.0 }.apply(&mut shaped, spec.seed);
            assert_eq!(sorted(shaped.clone()), sorted(keys.clone()), "{order:?} lost or made rows");
            match order {
                Order::Sorted => assert!(shaped.windows(2).all(|w| w[0] <= w[1])),
                Order::FirstSeen => {
                    // The first 3,000 rows are the 3,000 keys, each once.
                    assert_eq!(distinct(&shaped[..3_000]), 3_000);
                }
                Order::Sessions => {
                    // Runs of one key at most 8 long (two runs of a key may meet), and far
                    // fewer key changes than shuffled rows have.
                    let changes = shaped.windows(2).filter(|w| w[0] != w[1]).count();
                    assert!(changes < shaped.len() / 2, "{changes}");
                }
                // The generator's rows are shuffled already: left as they are.
                Order::Shuffled => assert_eq!(shaped, keys),
            }
        }
        assert_eq!(Order::parse(" First-Seen "), Ok(Order::FirstSeen));
        assert!(Order::parse("random").unwrap_err().contains("sessions"));
    }

    #[test]
    fn a_heavy_key_takes_its_share_and_every_key_keeps_a_row() {
        let spec = DataSpec { rows: 100_000, keys: 20_000, skew: Skew::Uniform, seed: 3 };
        let keys = generate(&spec).unwrap();
        for order in Order::ALL {
            let mut shaped = keys.clone();
            Shape { order, heavy_share: 0.3 }.apply(&mut shaped, spec.seed);
            assert_eq!(shaped.len(), keys.len());
            assert_eq!(distinct(&shaped), 20_000, "{order:?}: a key lost its last row");
            let heavy = shaped.iter().filter(|&&k| k == key_at(0, spec.seed)).count() as f64 / 100_000.0;
            assert!((0.28..0.33).contains(&heavy), "{order:?}: heavy share {heavy}");
        }
        assert!(parse_heavy_share("1").is_err() && parse_heavy_share("-0.1").is_err());
        assert_eq!(parse_heavy_share("0.3"), Ok(0.3));
        assert_eq!(Shape { order: Order::Sessions, heavy_share: 0.3 }.describe(), "sessions, heavy key 30%");
    }
}
