//! Axes: scales from data to drawing units, and where their ticks go.

pub(super) struct Scale {
    pub d0: f64,
    pub d1: f64,
    pub r0: f64,
    pub r1: f64,
    pub log: bool,
}

impl Scale {
    pub fn map(&self, v: f64) -> f64 {
        let (a, b, v) =
            if self.log { (self.d0.log2(), self.d1.log2(), v.max(1e-300).log2()) } else { (self.d0, self.d1, v) };
        let t = if b > a { (v - a) / (b - a) } else { 0.5 };
        self.r0 + t * (self.r1 - self.r0)
    }
    pub fn invert(&self, r: f64) -> f64 {
        let t = (r - self.r0) / (self.r1 - self.r0);
        if self.log {
            (self.d0.log2() + t * (self.d1.log2() - self.d0.log2())).exp2()
        } else {
            self.d0 + t * (self.d1 - self.d0)
        }
    }
}

/// Ticks at 1, 2, 5 times powers of ten inside [lo, hi]; only powers of ten when that gives more
/// than `max`, and a finer 1-1.5-2-3-4-6-8 series when a narrow range would get fewer than three.
pub(super) fn log_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let series = |mantissas: &[f64]| {
        let mut ticks = Vec::new();
        let mut e = lo.log10().floor() as i32;
        while 10f64.powi(e) <= hi * 1.0001 {
            for m in mantissas {
                let t = m * 10f64.powi(e);
                if t >= lo * 0.9999 && t <= hi * 1.0001 {
                    ticks.push(t);
                }
            }
            e += 1;
        }
        ticks
    };
    let ticks = series(&[1.0, 2.0, 5.0]);
    if ticks.len() > max {
        series(&[1.0])
    } else if ticks.len() < 3 {
        series(&[1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0])
    } else {
        ticks
    }
}

pub(super) fn linear_ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
    let raw = (hi - lo) / target;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
    let mut ticks = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi * 1.0001 {
        ticks.push(t);
        t += step;
    }
    ticks
}
