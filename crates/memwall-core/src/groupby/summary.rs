//! What a race's report says in words: the speedups, the rules it was measured under and how
//! its results were checked. One place for the CLI's table and the page's.

use memwall_report::{GroupBy, GroupByRun, PhaseTime, Totals};

use super::Kernel;

/// How many times faster than naive's median `run`'s median was, when naive ran too.
pub fn speedup_over_naive(groupby: &GroupBy, run: &GroupByRun) -> Option<f64> {
    memwall_report::speedup_over(&groupby.runs, run, Kernel::Naive.name())
}

/// Adaptive's regret: its best run (sampling and trials included, as every run of it) over the
/// best run of the fastest other kernel, the rounds taking turns; and that kernel. `None`
/// without adaptive or another kernel.
pub fn adaptive_regret(groupby: &GroupBy) -> Option<(f64, &str)> {
    let adaptive = groupby.runs.iter().find(|r| r.kernel == Kernel::Adaptive.name())?;
    let best = groupby
        .runs
        .iter()
        .filter(|r| r.kernel != Kernel::Adaptive.name())
        .min_by(|a, b| a.seconds.min.total_cmp(&b.seconds.min))?;
    (best.seconds.min > 0.0).then(|| (adaptive.seconds.min / best.seconds.min, best.kernel.as_str()))
}

/// "adaptive's regret: 1.03 (its best run over tuned's)", for the race's summary.
pub fn regret_line(groupby: &GroupBy) -> Option<String> {
    let (regret, best) = adaptive_regret(groupby)?;
    Some(format!(
        "adaptive's regret: {regret:.3} (its best run, sampling and trials included, over {best}'s, the fastest other kernel)"
    ))
}

/// What the kernels lack when compiled to wasm32: the page and the README say so beside the
/// kernels' descriptions, which are the native ones.
pub const WASM_CAVEAT: &str = "in WebAssembly there is no prefetch instruction and no streaming store: prefetch's \
    prefetches do nothing and tuned's non-temporal stores are plain stores, so both do less than natively";

/// Sentences on the rules of the race and the checks its results passed, each true of the
/// report (see [`crate::race::rules`]), and in the browser what its kernels lack there.
pub fn rules(groupby: &GroupBy, in_browser: bool) -> Vec<String> {
    let mut lines = crate::race::rules::rules(&groupby.runs, &super::race::CHECKS);
    if in_browser {
        lines.push(WASM_CAVEAT.to_string());
    }
    lines
}

/// The totals of every aggregate over all groups, by name ("count", "sum", ...), in the
/// order the report lists them.
pub fn named_totals(totals: &Totals) -> Vec<(&'static str, String)> {
    [
        ("count", totals.count.map(|c| c.to_string())),
        ("sum", totals.sum.clone()),
        ("min", totals.min.clone()),
        ("max", totals.max.clone()),
        ("avg", totals.avg.clone()),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name, value?)))
    .collect()
}

/// "totals over all groups: count 10, sum 5": one line for the race, from its first run (every
/// run agreed with the first, or the cross-kernel check would have stopped the race).
pub fn totals_line(groupby: &GroupBy) -> Option<String> {
    let totals = groupby.runs.first()?.totals.as_ref()?;
    let shown: Vec<String> = named_totals(totals).into_iter().map(|(n, v)| format!("{n} {v}")).collect();
    Some(format!("totals over all groups: {}", shown.join(", ")))
}

/// A run's phases in one line: each phase's ns/row, then how much of the run's median they
/// cover (the rest is setup outside any phase: allocating scratch, splitting the work). On
/// several threads each phase is summed over its threads, so the phases add up to more than
/// the wall time.
pub fn phases_line(run: &GroupByRun, phases: &[PhaseTime]) -> String {
    let each: Vec<String> = phases.iter().map(|p| format!("{} {:.2}", p.phase, p.ns_per_row)).collect();
    let timed: f64 = phases.iter().map(|p| p.ns_per_row).sum();
    let threads =
        if run.threads > 1 { format!(", each phase summed over {} threads", run.threads) } else { String::new() };
    format!(
        "{} ns/row; {timed:.2} of the run's {:.2} ns/row in phases ({:.0}%){threads}",
        each.join(", "),
        run.ns_per_row,
        if run.ns_per_row > 0.0 { timed / run.ns_per_row * 100.0 } else { 0.0 }
    )
}

#[cfg(test)]
mod tests {
    use memwall_report::{Dataset, GroupByFigures, Summary};

    use super::*;

    fn run(kernel: &str, median: f64, memory: Option<&str>, checks: &[&str]) -> GroupByRun {
        GroupByRun {
            kernel: kernel.into(),
            threads: 1,
            partitions: None,
            seconds: Summary { min: median, median, p90: median, max: median },
            samples_seconds: vec![median],
            checksum: "0".into(),
            choice: None,
            memory: memory.map(Into::into),
            first_run_seconds: None,
            scratch_bytes: None,
            mapped_in_run_bytes: None,
            huge_page_share: Some(1.0),
            verified_by: checks.iter().map(|c| c.to_string()).collect(),
            own: GroupByFigures {
                phases: None,
                totals: None,
                predicted_ns_per_row: None,
                ns_per_row: median,
                groups: 1,
                top: vec![],
                counters: None,
            },
        }
    }

    #[test]
    fn regret_is_adaptives_best_over_the_best_others() {
        let groupby =
            race(vec![run("naive", 4.0, None, &[]), run("tuned", 2.0, None, &[]), run("adaptive", 2.1, None, &[])]);
        let (regret, best) = adaptive_regret(&groupby).unwrap();
        assert!((regret - 1.05).abs() < 1e-9 && best == "tuned");
        assert!(regret_line(&groupby).unwrap().starts_with("adaptive's regret: 1.050"));
        assert_eq!(adaptive_regret(&race(vec![run("adaptive", 1.0, None, &[])])), None);
    }

    fn race(runs: Vec<GroupByRun>) -> GroupBy {
        let dataset =
            Dataset { rows: 1, distinct_keys: 1, generator: None, input: None, seed: None, max_rows_per_key: None };
        GroupBy { dataset, runs, sweeps: vec![], query: None, model: None }
    }

    #[test]
    fn speedups_are_against_naives_median() {
        let groupby = race(vec![run("naive", 6.0, None, &[]), run("tuned", 0.75, None, &[])]);
        assert_eq!(speedup_over_naive(&groupby, &groupby.runs[1]), Some(8.0));
        let alone = race(vec![run("tuned", 0.75, None, &[])]);
        assert_eq!(speedup_over_naive(&alone, &alone.runs[0]), None);
    }

    #[test]
    fn the_totals_line_names_what_the_race_computed() {
        let mut groupby = race(vec![run("naive", 1.0, None, &[])]);
        assert_eq!(totals_line(&groupby), None, "a count-only race has no totals");
        groupby.runs[0].totals =
            Some(Totals { count: Some(10), sum: Some("-5".into()), avg: Some("-0.5".into()), ..Totals::default() });
        assert_eq!(totals_line(&groupby).unwrap(), "totals over all groups: count 10, sum -5, avg -0.5");
    }

    #[test]
    fn rules_say_only_what_the_runs_did() {
        let groupby = race(vec![
            run("naive", 1.0, Some("warm"), &["row-total", "reference", "cross-kernel"]),
            run("tuned", 1.0, Some("warm"), &["row-total", "reference"]),
        ]);
        let lines = rules(&groupby, false);
        assert!(lines[0].starts_with("memory: warm for every kernel") && lines[0].contains("100% of the scratch pool"));
        assert_eq!(
            lines[1],
            "checked: every run of every kernel matched a sort-and-count reference, counted every row read exactly once"
        );
        assert_eq!(lines.len(), 2);

        let unchecked = race(vec![run("tuned", 1.0, Some("cold"), &[])]);
        let lines = rules(&unchecked, true);
        assert!(lines.iter().any(|l| l == "not checked: nothing could check the result of tuned"), "{lines:?}");
        assert!(!lines.iter().any(|l| l.starts_with("checked")));
        assert_eq!(lines.last().map(String::as_str), Some(WASM_CAVEAT));

        let old = race(vec![run("naive", 1.0, None, &[])]);
        assert!(rules(&old, false)[0].contains("does not say"));
    }
}
