//! Where the ladder steps up: the plateaus and the climbs between them.

use memwall_report::{LadderPoint, Step};

/// Finds where latency steps up between plateaus of the ladder.
///
/// A step starts where a point is more than `RISE` above the plateau it leaves and continues
/// while each next point keeps climbing by more than `CLIMB`; the point where climbing stops is
/// the new plateau. Gradual slopes (TLB reach, shared L3 on a VM) thus come out as one wide step
/// rather than many small ones. It reads each point's minimum: noise only ever adds time to a
/// sample, so the minimum is the level least disturbed by whatever else the host was doing.
pub fn detect_steps(points: &[LadderPoint]) -> Vec<Step> {
    const RISE: f64 = 1.3;
    const CLIMB: f64 = 1.1;
    let latency: Vec<f64> = points.iter().map(|p| p.ns_per_load.min).collect();
    let mut steps = Vec::new();
    let mut plateau = 0;
    let mut i = 1;
    while i < points.len() {
        if latency[i] > latency[plateau] * RISE && latency[i] > latency[i - 1] {
            let from = i - 1;
            let mut to = i;
            while to + 1 < points.len() && latency[to + 1] > latency[to] * CLIMB {
                to += 1;
            }
            steps.push(Step {
                from_bytes: points[from].bytes,
                to_bytes: points[to].bytes,
                ns_per_load_before: latency[from],
                ns_per_load_after: latency[to],
            });
            plateau = to;
            i = to + 1;
        } else {
            if latency[i] < latency[plateau] {
                plateau = i;
            }
            i += 1;
        }
    }
    steps
}
