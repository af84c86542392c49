//! Test data the core's tests, its integration tests and its wasm tests share: ladder points and
//! ladders built from latencies alone. Not part of the measuring API.

use memwall_report::{Cause, Curve, Ladder, LadderPoint, Level, Summary};

/// A ladder point whose fastest sample read `ns` per load, the others a little slower, as a
/// quiet host's samples do.
pub fn point(bytes: u64, ns: f64) -> LadderPoint {
    LadderPoint {
        bytes,
        ns_per_load: Summary { min: ns, median: ns * 1.02, p90: ns * 1.05, max: ns * 1.1 },
        cycles_per_load: None,
        ghz: None,
        clock_moved: false,
        loads_per_sample: 1,
        samples: 1,
        samples_ns_per_load: vec![],
        attempts: 1,
        visits_ns_per_load: Vec::new(),
        huge_page_bytes: None,
    }
}

/// A ladder whose main curve is `pattern` on `pages` (`points`), with `curves` beside it and
/// nothing read from them yet.
pub fn ladder(pattern: &str, pages: &str, points: Vec<LadderPoint>, curves: Vec<Curve>) -> Ladder {
    Ladder { curves, ..Ladder::new(pattern, pages, 64, 1, 5e6, points) }
}

/// A level as a reading names it, at 1 ns, with nothing declared beside it and no evidence.
pub fn level(name: &str, size_bytes: u64, cause: Cause) -> Level {
    Level {
        name: name.into(),
        size_bytes,
        ns_per_load: 1.0,
        cycles_per_load: None,
        cause,
        declared_bytes: None,
        capacity_bytes: None,
        evidence: vec![],
    }
}
