//! From measured curves to the report's ladder: steps, the clock check, named levels and the
//! verdict. Native and browser runs are read by this one function, so a report means the same
//! whichever front end wrote it.

use memwall_report::{Curve, Host, Ladder, Parallelism};

use crate::cycles;
use crate::ladder::{LINE_BYTES, Pattern, detect_steps};

/// What a front end measured, before anything is read from it.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Every curve measured; the first is the main one (the report's `points`).
    pub curves: Vec<Curve>,
    pub parallelism: Option<Parallelism>,
    pub pinned_cpu: Option<u32>,
    pub seed: u64,
    pub target_sample_ns: f64,
    pub duration_s: Option<f64>,
}

/// The ladder report of `measured` on `host`: the caches it declares, the core clock if one was
/// measured (or why not), the timer's resolution.
pub fn read(measured: Measured, host: &Host) -> Ladder {
    let Measured { mut curves, parallelism, pinned_cpu, seed, target_sample_ns, duration_s } = measured;
    let main = if curves.is_empty() {
        Curve { pattern: Pattern::Random.name().into(), huge_pages: "default".into(), chains: 1, points: vec![] }
    } else {
        curves.remove(0)
    };
    let mut points = main.points;
    let steps = detect_steps(&points);
    let l1 = host.caches.iter().find(|c| c.level == 1 && c.kind != "Instruction").map(|c| c.size_bytes);
    let clock_check = cycles::check_clock(&points, l1, host.core_ghz);
    let withheld = cycles::withhold_cycles_if_implausible(&mut points, clock_check.as_ref());
    for curve in &mut curves {
        cycles::withhold_cycles_if_implausible(&mut curve.points, clock_check.as_ref());
    }
    let mut ladder = Ladder {
        pattern: main.pattern,
        huge_pages: main.huge_pages,
        pinned_cpu,
        line_bytes: LINE_BYTES as u32,
        seed,
        ghz: if withheld.is_some() { None } else { host.core_ghz },
        cycles_unavailable: withheld.or_else(|| host.core_ghz_unavailable.clone()),
        target_sample_ns,
        timer_resolution_ns: host.timer_resolution_ns,
        duration_s,
        points,
        steps,
        clock: host.core_clock.clone(),
        clock_check,
        levels: vec![],
        verdict: vec![],
        parallelism,
        curves,
    };
    let reading = super::read_ladder(&ladder, &host.caches);
    ladder.levels = reading.levels;
    ladder.verdict = reading.verdict;
    ladder
}
