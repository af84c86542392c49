//! The exact float accumulator of the totals: a sum of many `f64` with no rounding until the end.

/// The exact sum of any number of `f64`s, independent of the order they are added in: a
/// fixed-point accumulator spanning every finite `f64` (2^-1074 to 2^1024) in 32-bit chunks,
/// each held in an `i64` so that carries can wait ([`ExactSum::LAZY_ADDS`] adds). NaN and the
/// infinities are counted apart. Totals over millions of groups use it, so that kernels that
/// find their groups in different orders report bit-identical float totals.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ExactSum {
    chunks: [i64; CHUNKS],
    pending: u32,
    nan: u64,
    pos_inf: u64,
    neg_inf: u64,
}

/// 32-bit chunks from 2^-1074: the largest finite `f64` spans up to bit 2098, plus headroom.
const CHUNKS: usize = 68;

impl Default for ExactSum {
    fn default() -> Self {
        Self { chunks: [0; CHUNKS], pending: 0, nan: 0, pos_inf: 0, neg_inf: 0 }
    }
}

impl core::fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ExactSum({})", self.value())
    }
}

impl ExactSum {
    /// Adds before the chunks must be carried: each add puts less than 2^32 into a chunk.
    const LAZY_ADDS: u32 = 1 << 30;

    pub(crate) fn add(&mut self, x: f64) {
        if x.is_nan() {
            self.nan += 1;
            return;
        }
        if x.is_infinite() {
            if x > 0.0 {
                self.pos_inf += 1
            } else {
                self.neg_inf += 1
            }
            return;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as usize;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa * 2^(at - 1074).
        let (mantissa, at) = if exponent == 0 { (fraction, 0) } else { (fraction | 1 << 52, exponent - 1) };
        let wide = u128::from(mantissa) << (at % 32);
        let sign = if x.is_sign_negative() { -1 } else { 1 };
        let i = at / 32;
        self.chunks[i] += sign * (wide & 0xffff_ffff) as i64;
        self.chunks[i + 1] += sign * ((wide >> 32) & 0xffff_ffff) as i64;
        self.chunks[i + 2] += sign * (wide >> 64) as i64;
        self.pending += 1;
        if self.pending == Self::LAZY_ADDS {
            self.carry();
        }
    }

    /// Moves every chunk's excess into the next: chunks below the top end in `0..2^32`, a
    /// canonical form, so equal sums have equal chunks.
    fn carry(&mut self) {
        for i in 0..CHUNKS - 1 {
            let over = self.chunks[i] >> 32;
            self.chunks[i] -= over << 32;
            self.chunks[i + 1] += over;
        }
        self.pending = 0;
    }

    pub(crate) fn merge(&mut self, other: &ExactSum) {
        let mut other = other.clone();
        other.carry();
        self.carry();
        for (a, b) in self.chunks.iter_mut().zip(other.chunks) {
            *a += b;
        }
        self.pending = 1;
        self.nan += other.nan;
        self.pos_inf += other.pos_inf;
        self.neg_inf += other.neg_inf;
    }

    /// The sum as an `f64`: NaN if a NaN was added or both infinities were, else an infinity
    /// if one was, else the exact sum rounded (within a few ulp, by one fixed procedure on the
    /// canonical chunks, so equal sums give equal bits).
    pub(crate) fn value(&self) -> f64 {
        if self.nan > 0 || (self.pos_inf > 0 && self.neg_inf > 0) {
            return f64::NAN;
        }
        if self.pos_inf > 0 {
            return f64::INFINITY;
        }
        if self.neg_inf > 0 {
            return f64::NEG_INFINITY;
        }
        let mut canonical = self.clone();
        canonical.carry();
        // Two's complement chunks of a negative sum would add up huge terms of both signs: take
        // the magnitude, then the sign.
        let negative = canonical.chunks[CHUNKS - 1] < 0;
        if negative {
            canonical.chunks.iter_mut().for_each(|c| *c = -*c);
            canonical.carry();
        }
        // Largest chunks last would lose the small ones; smallest first keeps what f64 can.
        // Empty chunks are skipped: 0 times the infinity of a scale past f64 would be NaN.
        let magnitude = canonical
            .chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .fold(0.0, |sum: f64, (i, &c)| sum + c as f64 * pow2(32 * i as i32 - 1074));
        if negative { -magnitude } else { magnitude }
    }
}

/// 2^n as an `f64`, exactly where it is representable (0 below, infinity above).
fn pow2(n: i32) -> f64 {
    if n > 1023 {
        f64::INFINITY
    } else if n >= -1022 {
        f64::from_bits(((n + 1023) as u64) << 52)
    } else if n >= -1074 {
        f64::from_bits(1 << (n + 1074))
    } else {
        0.0
    }
}
