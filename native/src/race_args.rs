//! The flags every race takes, the GROUP BY's and the join's and the sweeps': which kernels,
//! threads and runs, the rules the kernels are measured under, and the caches adaptive sizes by.

use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::race::{self, Named, RaceEvent, Racer, Truth, Workload};
use memwall_core::scratch::MemoryPolicy;

use crate::arena::{self, HugePages};
use crate::threads::Threads;

/// Kernels in the order given, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelList<K>(pub Vec<K>);

/// `--kernel`: a comma list of kernel names, or `all`.
pub fn parse_kernels<K: Named>(text: &str) -> Result<KernelList<K>, String> {
    race::parse_kernels(text).map(KernelList)
}

/// The rules every kernel of a race is measured under.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// Scratch memory, the same for every kernel: warm (one pool of transparent-huge-page
    /// mappings, reused from run to run, faulted in by an untimed warm-up run of each kernel, as
    /// a long-running engine's allocator hands out memory) or cold (every run maps and faults
    /// its scratch inside its timer, as a one-off query does).
    #[arg(long, default_value = "warm", value_parser = parse_policy)]
    pub memory: MemoryPolicy,
    /// Pages of that scratch memory: thp (transparent huge pages, as a native engine asks for),
    /// off (small pages only, the memory a browser's wasm gets: the like-for-like comparison
    /// with the page's races) or on (reserved huge pages; needs vm.nr_hugepages). The report's
    /// huge_page_share says what the kernel gave.
    #[arg(long, value_enum, default_value = "thp")]
    pub scratch_pages: HugePages,
    /// Check every run against a reference computed outside the timer (sort and count a GROUP
    /// BY's keys; sort both sides of a join and merge them): the default below 20,000,000 rows.
    /// Row totals, known key or match counts and agreement between kernels are always checked.
    #[arg(long, conflicts_with = "no_verify")]
    pub verify: bool,
    /// Skip the reference check (the other checks still run).
    #[arg(long)]
    pub no_verify: bool,
}

impl RuleArgs {
    /// The rules of `memwall run`'s races.
    pub fn defaults() -> Self {
        Self { memory: MemoryPolicy::Warm, scratch_pages: HugePages::Thp, verify: false, no_verify: false }
    }

    /// What is checked on `rows` rows, `known` the generator's count of the answer (distinct keys,
    /// matching probe rows) when the data was generated.
    pub fn truth(&self, rows: u64, known: Option<u64>) -> Truth {
        let by_default = Truth::by_default(rows, known);
        Truth { reference: (by_default.reference || self.verify) && !self.no_verify, ..by_default }
    }
}

pub fn parse_policy(name: &str) -> Result<MemoryPolicy, String> {
    MemoryPolicy::parse(name).ok_or_else(|| format!("unknown memory policy '{name}': expected warm or cold"))
}

/// How a race runs: threads, pinning, timed runs, rules, caches.
#[derive(Debug, Clone, Args)]
pub struct RaceArgs {
    /// Threads for the kernels that split their work (naive and prefetch always use one).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Pin the first thread to this CPU (and further threads to the next CPUs).
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    /// Timed runs per kernel; kernels take turns, and min, median and max are over the runs (a
    /// sweep keeps each kernel's fastest run per point: noise only ever adds time).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Size tables and adaptive's limits by the caches the OS declares instead of measuring them
    /// first with a short ladder (about two seconds).
    #[arg(long)]
    pub declared_caches: bool,
    /// Size them by the caches a saved report's ladder read (`memwall ladder --pattern page-local
    /// --json`, or `memwall run --json`), read again by today's rules, instead of a ladder of
    /// their own: many races on one host then decide by one measurement. A report of another
    /// CPU (another name, or other declared caches) is refused.
    #[arg(long, value_name = "REPORT.json", conflicts_with = "declared_caches")]
    pub caches_from: Option<PathBuf>,
}

impl RaceArgs {
    /// The race of `memwall run`: one thread, `runs` timed runs, the default rules, the caches
    /// its ladder read.
    pub fn defaults(runs: u32) -> Self {
        Self { threads: 1, pin: None, runs, rules: RuleArgs::defaults(), declared_caches: true, caches_from: None }
    }
}

/// Everything a race needs besides its data and its workload's own switches: the kernels, the
/// workload's config, the threads, and the rules, checks and runs the command line asked for.
pub struct RaceSetup<'a, K, C> {
    pub kernels: &'a [K],
    pub config: C,
    pub threads: &'a Threads,
    pub policy: MemoryPolicy,
    pub pages: HugePages,
    pub truth: Truth,
    pub runs: u32,
}

impl<'a, K: Named, C> RaceSetup<'a, K, C> {
    /// The race `race` asks for over `kernels`, held to `truth`.
    pub fn new(kernels: &'a [K], race: &RaceArgs, config: C, threads: &'a Threads, truth: Truth) -> Self {
        Self {
            kernels,
            config,
            threads,
            policy: race.rules.memory,
            pages: race.rules.scratch_pages,
            truth,
            runs: race.runs,
        }
    }

    /// The core's racer of this setup over `work`, its scratch from the native pool, and a
    /// progress bar (`what`: "group by", "join") a step per timed run.
    pub fn racer<W: Workload<Kernel = K>>(&self, what: &str, work: W) -> (Racer<'a, W>, ProgressBar) {
        let runs = self.runs.max(1);
        let bar = race_bar(what, u64::from(runs) * self.kernels.len() as u64);
        (Racer { kernels: self.kernels, memory: arena::scratch(self.pages), policy: self.policy, runs, work }, bar)
    }
}

/// A progress bar for a race (`what`: "group by", "join") of `steps` timed runs in all.
pub fn race_bar(what: &str, steps: u64) -> ProgressBar {
    ProgressBar::new(steps).with_style(
        ProgressStyle::with_template(&format!("{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {{msg}} ({{elapsed}})"))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    )
}

/// What a race's event says on its bar; the bar moves a step per timed run.
pub fn show<K: Named>(bar: &ProgressBar, event: &RaceEvent<K>) {
    match event {
        RaceEvent::Checking => bar.set_message("computing the reference result (untimed)"),
        RaceEvent::WarmingUp { kernel } => bar.set_message(format!("{} warm-up (untimed)", kernel.name())),
        RaceEvent::Running { kernel, run, runs } => {
            bar.set_message(format!("{} run {}/{runs}", kernel.name(), run + 1))
        }
        RaceEvent::Timed { .. } => bar.inc(1),
    }
}

/// A share from 0 to 1 (`--miss-rate`, and the sweeps' rates).
pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && (0.0..=1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("invalid miss rate '{text}': expected a share from 0 to 1, e.g. 0.1")),
    }
}

#[cfg(test)]
mod tests {
    use memwall_core::{groupby, join};

    use super::*;

    #[test]
    fn kernel_lists_parse_for_either_race() {
        let all: KernelList<groupby::Kernel> = parse_kernels("all").unwrap();
        assert_eq!(all.0, groupby::Kernel::ALL.to_vec());
        let two: KernelList<groupby::Kernel> = parse_kernels("tuned, naive,tuned").unwrap();
        assert_eq!(two.0, vec![groupby::Kernel::Tuned, groupby::Kernel::Naive]);
        let bad = parse_kernels::<groupby::Kernel>("naive,fast").unwrap_err();
        assert_eq!(bad, "unknown kernel 'fast': expected naive, radix, tuned, prefetch, adaptive or all");
        let bad = parse_kernels::<join::Kernel>("radix").unwrap_err();
        assert_eq!(bad, "unknown join kernel 'radix': expected naive, partitioned, prefetch, tuned, adaptive or all");
    }

    #[test]
    fn rules_decide_the_reference_check() {
        let auto = RuleArgs::defaults();
        assert!(auto.truth(1000, None).reference);
        assert!(!auto.truth(100_000_000, Some(5)).reference);
        assert_eq!(auto.truth(100_000_000, Some(5)).known, Some(5));
        assert!(RuleArgs { verify: true, ..RuleArgs::defaults() }.truth(100_000_000, None).reference);
        assert!(!RuleArgs { no_verify: true, ..RuleArgs::defaults() }.truth(1000, None).reference);
        assert_eq!(parse_policy("COLD"), Ok(MemoryPolicy::Cold));
        assert!(parse_policy("hot").unwrap_err().contains("warm or cold"));
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("0.25"), Ok(0.25));
        for bad in ["-0.1", "1.01", "NaN", "inf", "lots"] {
            assert!(parse_rate(bad).unwrap_err().contains("from 0 to 1"), "{bad}");
        }
    }
}
