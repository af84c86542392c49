//! Keys to group: deterministic by seed, every key present, rows shuffled, values spread over
//! the whole `i64` range like ClickBench's `UserID`.
//!
//! How many rows each key gets is computed, not sampled: key `i` (of `K`) has weight
//! `(i + 1)^-s` (Zipf; `s = 0` is uniform), and after the one row every key is owed, the other
//! `rows - K` rows are handed out by cumulative weight, floored, so the counts sum exactly.
//! Rows are then shuffled with one output buffer and no other large allocation: each row draws
//! one of 4096 buckets (a seeded generator, replayed to count and then to place), and each
//! bucket, small enough for L2, is Fisher-Yates shuffled. Independent uniform buckets followed by
//! uniform shuffles within them give a uniform permutation of the rows.

use crate::exec::{self, Executor, Sequential};

/// The exponent that gives the clickbench preset's most frequent key about as many rows as
/// ClickBench's (29,097): with 17,630,976 keys and 99,997,497 rows it gets ~29,200.
pub const CLICKBENCH_ZIPF: f64 = 0.575;
pub const DEFAULT_SEED: u64 = 42;

/// How the rows are spread over the keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Skew {
    /// As equal as integers allow.
    Uniform,
    /// Key `i` weighs `(i + 1)^-s`.
    Zipf(f64),
}

impl Skew {
    /// "uniform" or "zipf:<exponent>", as reports and the command line spell it.
    pub fn name(&self) -> String {
        match self {
            Self::Uniform => "uniform".into(),
            Self::Zipf(s) => format!("zipf:{s}"),
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("uniform") {
            return Ok(Self::Uniform);
        }
        let exponent = text.strip_prefix("zipf:").and_then(|s| s.parse::<f64>().ok()).ok_or_else(|| {
            format!("invalid skew '{text}': expected 'uniform' or 'zipf:<exponent>', e.g. zipf:0.575")
        })?;
        if !(exponent.is_finite() && (0.0..=10.0).contains(&exponent)) {
            return Err(format!("invalid skew '{text}': the Zipf exponent must be between 0 and 10"));
        }
        Ok(Self::Zipf(exponent))
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataSpec {
    pub rows: u64,
    /// Distinct keys; each appears in at least one row.
    pub keys: u64,
    pub skew: Skew,
    pub seed: u64,
}

/// Named data sets: `small` (quick) and `clickbench` (shaped like ClickBench's `hits.UserID`).
pub const PRESETS: [&str; 2] = ["small", "clickbench"];

pub fn preset(name: &str) -> Option<DataSpec> {
    let skew = Skew::Zipf(CLICKBENCH_ZIPF);
    match name.trim().to_ascii_lowercase().as_str() {
        "small" => Some(DataSpec { rows: 10_000_000, keys: 1_700_000, skew, seed: DEFAULT_SEED }),
        "clickbench" => Some(DataSpec { rows: 99_997_497, keys: 17_630_976, skew, seed: DEFAULT_SEED }),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    #[error("keys must be at least 1 when there are rows")]
    NoKeys,
    #[error("{keys} keys cannot fit in {rows} rows: every key appears at least once")]
    MoreKeysThanRows { keys: u64, rows: u64 },
    #[error("{0} rows do not fit in this platform's address space")]
    TooManyRows(u64),
    #[error("invalid Zipf exponent {0}: it must be between 0 and 10")]
    BadExponent(f64),
    /// The allocator refused the keys (a browser's wasm memory is full): an error to show, where
    /// an infallible allocation would abort the whole module.
    #[error("could not allocate {bytes} for {rows} rows of keys")]
    Allocation { rows: u64, bytes: String },
}

impl DataSpec {
    pub fn check(&self) -> Result<(), DataError> {
        if self.rows > 0 && self.keys == 0 {
            return Err(DataError::NoKeys);
        }
        if self.keys > self.rows {
            return Err(DataError::MoreKeysThanRows { keys: self.keys, rows: self.rows });
        }
        if usize::try_from(self.rows).ok().and_then(|r| r.checked_mul(8)).is_none_or(|b| b > isize::MAX as usize) {
            return Err(DataError::TooManyRows(self.rows));
        }
        if let Skew::Zipf(s) = self.skew
            && !(s.is_finite() && (0.0..=10.0).contains(&s))
        {
            return Err(DataError::BadExponent(s));
        }
        Ok(())
    }

    /// Bytes the generated keys take (generation itself needs only small extras).
    pub fn bytes(&self) -> u64 {
        self.rows.saturating_mul(8)
    }
}

/// The value of key number `index`: splitmix64's finalizer of the index xor a seed-derived
/// constant. A bijection, so distinct indices give distinct keys; full range, negatives
/// included.
pub fn key_at(index: u64, seed: u64) -> i64 {
    let mut x = index ^ mix(seed ^ 0x5851_f42d_4c95_7f2d);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as i64
}

pub(crate) fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Rows of each key, in key order, computed on the fly (two passes over the keys cost less than
/// storing a count per key).
#[derive(Debug, Clone)]
pub struct RowsPerKey {
    keys: u64,
    rows: u64,
    exponent: f64,
    /// Sum of all weights (Zipf only).
    total_weight: f64,
}

impl RowsPerKey {
    pub fn new(spec: &DataSpec) -> Result<Self, DataError> {
        spec.check()?;
        let exponent = match spec.skew {
            Skew::Uniform => 0.0,
            Skew::Zipf(s) => s,
        };
        let mut this = Self { keys: spec.keys, rows: spec.rows, exponent, total_weight: 0.0 };
        if exponent != 0.0 {
            this.total_weight = (0..spec.keys).map(|i| this.weight(i)).sum();
        }
        Ok(this)
    }

    fn weight(&self, index: u64) -> f64 {
        libm::pow((index + 1) as f64, -self.exponent)
    }

    /// `(key index, rows)` for every key, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let extra = self.rows - self.keys;
        let (base, longer) = (self.rows / self.keys.max(1), self.rows % self.keys.max(1));
        let mut cumulative = 0.0f64;
        let mut handed_out = 0u64;
        (0..self.keys).map(move |i| {
            if self.exponent == 0.0 {
                return (i, base + u64::from(i < longer));
            }
            cumulative += self.weight(i);
            // The last key takes what is left, so rounding can never lose or invent a row.
            let upto = if i + 1 == self.keys {
                extra
            } else {
                ((extra as f64 * (cumulative / self.total_weight)) as u64).min(extra)
            };
            let count = 1 + upto.saturating_sub(handed_out);
            handed_out = handed_out.max(upto);
            (i, count)
        })
    }
}

/// A uniform index below `n`, the same on every target (`fastrand`'s `usize` ranges draw
/// differently where `usize` is 32 bits, as in wasm).
pub(crate) fn below(rng: &mut fastrand::Rng, n: usize) -> usize {
    ((u128::from(rng.u64(..)) * n as u128) >> 64) as usize
}

/// Fisher-Yates with [`below`], so a seed shuffles alike natively and in wasm.
fn shuffle(rng: &mut fastrand::Rng, items: &mut [i64]) {
    for i in (1..items.len()).rev() {
        items.swap(i, below(rng, i + 1));
    }
}

/// Buckets the rows are spread over before shuffling (see the module docs).
const BUCKET_BITS: u32 = 12;

/// Generates the keys of `spec` on the calling thread.
pub fn generate(spec: &DataSpec) -> Result<Vec<i64>, DataError> {
    generate_with(spec, &Sequential)
}

/// Generates the keys of `spec`, shuffling buckets on `exec`'s threads. The result depends only
/// on `spec`, never on the executor.
pub fn generate_with(spec: &DataSpec, exec: &dyn Executor) -> Result<Vec<i64>, DataError> {
    let per_key = RowsPerKey::new(spec)?;
    // The one large allocation, made first and fallibly: a refusal costs nothing yet.
    let rows = spec.rows as usize;
    let mut out = Vec::new();
    out.try_reserve_exact(rows).map_err(|_| DataError::Allocation {
        rows: spec.rows,
        bytes: crate::size::format_bytes(spec.rows * size_of::<i64>() as u64),
    })?;
    out.resize(rows, 0i64);
    let buckets = 1usize << BUCKET_BITS;
    let bucket_seed = mix(spec.seed ^ 0x6275_636b_6574);
    let draw = |rng: &mut fastrand::Rng| (rng.u32(..) >> (32 - BUCKET_BITS)) as usize;

    let mut starts = vec![0usize; buckets + 1];
    let mut rng = fastrand::Rng::with_seed(bucket_seed);
    for (_, count) in per_key.iter() {
        for _ in 0..count {
            starts[draw(&mut rng) + 1] += 1;
        }
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }

    let mut next = starts.clone();
    let mut rng = fastrand::Rng::with_seed(bucket_seed);
    for (index, count) in per_key.iter() {
        let key = key_at(index, spec.seed);
        for _ in 0..count {
            let bucket = draw(&mut rng);
            out[next[bucket]] = key;
            next[bucket] += 1;
        }
    }

    let mut pieces = Vec::with_capacity(buckets);
    let mut rest: &mut [i64] = &mut out;
    for bucket in starts.windows(2) {
        let (piece, tail) = rest.split_at_mut(bucket[1] - bucket[0]);
        pieces.push(piece);
        rest = tail;
    }
    // Whole groups of buckets per task: one task per bucket would spend more on dispatch than
    // on a small shuffle.
    let groups: Vec<Vec<(usize, &mut [i64])>> = {
        let tasks = exec.threads().max(1) * 8;
        let mut groups: Vec<Vec<(usize, &mut [i64])>> = (0..tasks).map(|_| Vec::new()).collect();
        for (b, piece) in pieces.into_iter().enumerate() {
            groups[b * tasks / buckets].push((b, piece));
        }
        groups
    };
    exec::map(exec, groups, |_, group| {
        for (bucket, piece) in group {
            shuffle(&mut fastrand::Rng::with_seed(mix(bucket_seed ^ bucket as u64)), piece);
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rows: u64, keys: u64, skew: Skew) -> DataSpec {
        DataSpec { rows, keys, skew, seed: 7 }
    }

    #[test]
    fn counts_sum_exactly_and_every_key_appears() {
        for s in [
            spec(1000, 1000, Skew::Uniform),
            spec(1003, 10, Skew::Uniform),
            spec(100_000, 777, Skew::Zipf(1.2)),
            spec(5, 3, Skew::Zipf(3.0)),
            spec(0, 0, Skew::Uniform),
        ] {
            let per_key = RowsPerKey::new(&s).unwrap();
            let counts: Vec<u64> = per_key.iter().map(|(_, c)| c).collect();
            assert_eq!(counts.len() as u64, s.keys);
            assert_eq!(counts.iter().sum::<u64>(), s.rows, "{s:?}");
            assert!(counts.iter().all(|&c| c >= 1));
        }
    }

    #[test]
    fn generated_rows_match_the_counts_and_are_shuffled() {
        let s = spec(200_000, 30_000, Skew::Zipf(0.8));
        let keys = generate(&s).unwrap();
        assert_eq!(keys.len(), 200_000);
        let mut expected: Vec<(i64, u64)> =
            RowsPerKey::new(&s).unwrap().iter().map(|(i, c)| (key_at(i, 7), c)).collect();
        expected.sort_unstable();
        let mut seen = std::collections::BTreeMap::new();
        for &k in &keys {
            *seen.entry(k).or_insert(0u64) += 1;
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), expected);
        // Shuffled: the most frequent key's rows are spread over the whole input, and adjacent
        // rows rarely repeat a key.
        let hot = key_at(0, 7);
        let positions: Vec<usize> = keys.iter().enumerate().filter(|&(_, &k)| k == hot).map(|(i, _)| i).collect();
        assert!(
            positions[0] < 20_000 && *positions.last().unwrap() > 180_000,
            "{} .. {}",
            positions[0],
            positions.last().unwrap()
        );
        let repeats = keys.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(repeats < 2_000, "{repeats} adjacent repeats");
        // Full range, both signs.
        assert!(keys.iter().any(|&k| k < i64::MIN / 2) && keys.iter().any(|&k| k > i64::MAX / 2));
    }

    #[test]
    fn deterministic_by_seed_whatever_the_executor() {
        struct Backwards;
        impl Executor for Backwards {
            fn threads(&self) -> usize {
                4
            }
            fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
                (0..tasks).rev().for_each(task);
            }
        }
        let s = spec(50_000, 5_000, Skew::Uniform);
        let a = generate(&s).unwrap();
        assert_eq!(a, generate_with(&s, &Backwards).unwrap());
        assert_ne!(a, generate(&DataSpec { seed: 8, ..s }).unwrap());
    }

    #[test]
    fn pinned_output_is_stable() {
        // The same pins are checked in wasm (tests/wasm_groupby.rs): a change here changes every
        // data set memwall has ever generated, and must be deliberate.
        let keys = generate(&DataSpec { rows: 5000, keys: 700, skew: Skew::Zipf(CLICKBENCH_ZIPF), seed: 42 }).unwrap();
        let in_order = keys.iter().fold(0u64, |acc, &k| acc.rotate_left(5) ^ k as u64);
        assert_eq!(format!("{in_order:016x}"), "275fb0a2e0620902");
    }

    #[test]
    fn bad_specs_are_refused() {
        assert_eq!(spec(10, 11, Skew::Uniform).check(), Err(DataError::MoreKeysThanRows { keys: 11, rows: 10 }));
        assert_eq!(spec(10, 0, Skew::Uniform).check(), Err(DataError::NoKeys));
        assert!(matches!(spec(10, 5, Skew::Zipf(f64::NAN)).check(), Err(DataError::BadExponent(_))));
        assert!(matches!(generate(&spec(u64::MAX, 1, Skew::Uniform)), Err(DataError::TooManyRows(_))));
        assert!(generate(&spec(0, 0, Skew::Uniform)).unwrap().is_empty());
    }

    #[test]
    fn skews_parse() {
        assert_eq!(Skew::parse("uniform"), Ok(Skew::Uniform));
        assert_eq!(Skew::parse("zipf:0.575"), Ok(Skew::Zipf(0.575)));
        assert_eq!(Skew::parse(&Skew::Zipf(1.25).name()), Ok(Skew::Zipf(1.25)));
        for bad in ["", "zipf", "zipf:x", "zipf:-1", "zipf:inf", "normal"] {
            assert!(Skew::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn presets_exist() {
        let small = preset("small").unwrap();
        assert_eq!((small.rows, small.keys), (10_000_000, 1_700_000));
        let cb = preset("ClickBench").unwrap();
        assert_eq!((cb.rows, cb.keys), (99_997_497, 17_630_976));
        assert!(preset("huge").is_none());
    }

    /// The clickbench preset's most frequent key gets close to ClickBench's 29,097 rows (counts
    /// only: no 800 MB of rows in a unit test).
    #[test]
    fn clickbench_skew_matches_the_real_max() {
        let per_key = RowsPerKey::new(&preset("clickbench").unwrap()).unwrap();
        let (max, total) = per_key.iter().fold((0, 0), |(m, t), (_, c)| (m.max(c), t + c));
        assert_eq!(total, 99_997_497);
        assert!((27_000..=31_000).contains(&max), "max rows per key {max}");
    }
}
