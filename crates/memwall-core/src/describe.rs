//! The words for report values that the terminal and the page both print: one spelling of a
//! cache's name, of a latency step, and of the caches a host declares.

use crate::report::{Cache, Cause, Level, Step};
use crate::size::format_bytes;

/// "L1d 48 KiB", "L2 1 MiB": the level, `d` for a data cache, and the size.
pub fn cache_label(cache: &Cache) -> String {
    let data = if cache.kind == "Data" { "d" } else { "" };
    format!("L{}{data} {}", cache.level, format_bytes(cache.size_bytes))
}

/// The data and unified caches among `caches`, each level and size once (a host lists one entry
/// per instance on some systems), in the order declared.
pub fn data_caches(caches: &[Cache]) -> Vec<&Cache> {
    let mut seen = Vec::new();
    caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .filter(|c| {
            let fresh = !seen.contains(&(c.level, c.size_bytes));
            seen.push((c.level, c.size_bytes));
            fresh
        })
        .collect()
}

/// What a level is and how it compares: "cache, declared 2 MiB, runs out by 2 MiB".
pub fn level_notes(level: &Level) -> String {
    let mut notes = vec![
        match level.cause {
            Cause::Cache => "cache",
            Cause::Tlb => "tlb",
            Cause::Dram => "dram",
        }
        .to_string(),
    ];
    notes.extend(level.declared_bytes.map(|d| format!("declared {}", format_bytes(d))));
    notes.extend(level.capacity_bytes.map(|c| format!("runs out by {}", format_bytes(c))));
    notes.join(", ")
}

/// "32 KiB -> 48 KiB (1.1 -> 3.8 ns)".
pub fn step_label(step: &Step) -> String {
    format!(
        "{} -> {} ({:.1} -> {:.1} ns)",
        format_bytes(step.from_bytes),
        format_bytes(step.to_bytes),
        step.ns_per_load_before,
        step.ns_per_load_after
    )
}

/// One sentence for every step the ladder found.
pub fn steps_summary(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "latency steps: none found in this range".into();
    }
    let parts: Vec<String> = steps.iter().map(step_label).collect();
    format!("latency steps: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(level: u8, kind: &str, size_bytes: u64) -> Cache {
        Cache { level, kind: kind.into(), size_bytes, line_bytes: Some(64), shared_by_cpus: None }
    }

    #[test]
    fn caches_are_named_once_each() {
        let caches = [
            cache(1, "Data", 48 << 10),
            cache(1, "Instruction", 32 << 10),
            cache(2, "Unified", 1 << 20),
            cache(2, "Unified", 1 << 20),
        ];
        let labels: Vec<String> = data_caches(&caches).into_iter().map(cache_label).collect();
        assert_eq!(labels, ["L1d 48 KiB", "L2 1 MiB"]);
    }

    #[test]
    fn a_level_says_its_cause_and_sizes() {
        let level = Level {
            name: "L2".into(),
            size_bytes: 1 << 20,
            ns_per_load: 5.4,
            cycles_per_load: None,
            cause: Cause::Cache,
            declared_bytes: Some(2 << 20),
            capacity_bytes: Some(2 << 20),
            evidence: vec![],
        };
        assert_eq!(level_notes(&level), "cache, declared 2 MiB, runs out by 2 MiB");
        let dram = Level { cause: Cause::Dram, declared_bytes: None, capacity_bytes: None, ..level };
        assert_eq!(level_notes(&dram), "dram");
    }

    #[test]
    fn steps_read_as_one_sentence() {
        assert_eq!(steps_summary(&[]), "latency steps: none found in this range");
        let step = Step { from_bytes: 32 << 10, to_bytes: 48 << 10, ns_per_load_before: 1.09, ns_per_load_after: 3.84 };
        assert_eq!(
            steps_summary(&[step.clone(), step]),
            "latency steps: 32 KiB -> 48 KiB (1.1 -> 3.8 ns), 32 KiB -> 48 KiB (1.1 -> 3.8 ns)"
        );
    }
}
