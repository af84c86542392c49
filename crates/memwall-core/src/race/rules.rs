//! What a race's report says of its rules in words, GROUP BY and join alike: the memory policy
//! the kernels ran under and the checks every run passed. One place for the CLI and the page.

use memwall_report::Run;

use super::Check;
use crate::scratch::MemoryPolicy;

/// Sentences on the rules of the race and the checks its results passed, each true of `runs`:
/// the memory policy (with the huge-page share where known), what "first" means under it, and
/// which of `checks` (the workload's, in the order to name them) every kernel's runs passed.
pub fn rules<A>(runs: &[Run<A>], checks: &[Check]) -> Vec<String> {
    let mut lines: Vec<String> = memory_line(runs).into_iter().collect();
    let unchecked: Vec<&str> = runs.iter().filter(|r| r.verified_by.is_empty()).map(|r| r.kernel.as_str()).collect();
    let all: Vec<&str> = checks
        .iter()
        .filter(|c| !runs.is_empty() && runs.iter().all(|r| r.verified_by.iter().any(|v| v == c.name())))
        .map(|c| c.describe())
        .collect();
    if !all.is_empty() {
        lines.push(format!("checked: every run of every kernel {}", all.join(", ")));
    }
    if !unchecked.is_empty() {
        lines.push(format!("not checked: nothing could check the result of {}", unchecked.join(", ")));
    }
    lines
}

/// The memory policy every kernel ran under, what "first s" means under it and the share of the
/// scratch pool on huge pages; or that the kernels' policies differ, or that the report does not
/// say. `None` without runs.
fn memory_line<A>(runs: &[Run<A>]) -> Option<String> {
    let policies: Vec<&str> = runs.iter().filter_map(|r| r.memory.as_deref()).collect();
    match policies.first().and_then(|&p| MemoryPolicy::parse(p)) {
        Some(policy) if policies.iter().all(|&p| p == policy.name()) => {
            let first = match policy {
                MemoryPolicy::Warm => "first s is each kernel's untimed warm-up, which faulted its scratch in",
                MemoryPolicy::Cold => "first s is the first timed run",
            };
            let huge: Vec<f64> = runs.iter().filter_map(|r| r.huge_page_share).collect();
            let huge = if huge.is_empty() {
                String::new()
            } else {
                let low = huge.iter().copied().fold(f64::INFINITY, f64::min) * 100.0;
                let high = huge.iter().copied().fold(0.0, f64::max) * 100.0;
                if high - low < 0.5 {
                    format!("; {high:.0}% of the scratch pool on huge pages")
                } else {
                    format!("; {low:.0}-{high:.0}% of the scratch pool on huge pages")
                }
            };
            Some(format!("memory: {} for every kernel: {}; {first}{huge}", policy.name(), policy.description()))
        }
        Some(_) => Some(format!("memory: the kernels ran under different policies ({})", policies.join(", "))),
        None if !runs.is_empty() => {
            Some("memory: this report does not say under which memory policy it was measured".into())
        }
        None => None,
    }
}
