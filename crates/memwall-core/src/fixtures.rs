//! Test data shared by the core's unit tests.

use memwall_report::{LadderPoint, Summary};

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
        huge_page_bytes: None,
    }
}
