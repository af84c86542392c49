//! Measuring a latency ladder natively: its flags, the curves over huge or small pages, the
//! memory-level parallelism sweep, read into the report's ladder.

use std::ops::ControlFlow;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::clock::Clock;
use memwall_core::cycles::ClockProbe;
use memwall_core::explain::measured::Measured;
use memwall_core::explain::revisit;
use memwall_core::ladder::{self, Cycles, LINE_BYTES, LadderEvent, Pattern, SampleConfig};
use memwall_core::size::{format_bytes, parse_size};
use memwall_report::{Curve, Host, Ladder, LadderPoint, Parallelism};

use crate::arena::{HugePages, MmapArena};
use crate::error::{CliError, CliResult};
use crate::output::ExportArgs;
use crate::platform::{self, NativeClock};

#[derive(Debug, Clone, Args)]
pub struct LadderArgs {
    /// Smallest working set (e.g. 16KiB).
    #[arg(long, default_value = "16KiB", value_parser = parse_size)]
    pub min: u64,
    /// Largest working set (e.g. 1GiB). `--min X --max X` measures the single size X.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    pub max: u64,
    /// Working-set sizes per doubling: 2 gives 16K, 24K, 32K, 48K, ...
    #[arg(long, default_value_t = 2)]
    pub points_per_octave: u32,
    /// Pin the measuring thread to this CPU.
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    /// Page backing of each ring: off (small pages: TLB misses show), thp (transparent huge
    /// pages, verified in /proc/self/smaps), on (reserved hugetlbfs pages). Several (off,thp)
    /// measure a curve for each; the first is the main curve.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "off")]
    pub huge_pages: Vec<HugePages>,
    /// How the chase visits lines: random (one random cycle: caches, TLB and DRAM), page-local
    /// (random lines, a few pages at a time: caches and DRAM without TLB misses), page-stride (one
    /// line per 4 KiB page: TLB and page-walk cost), sequential (what the prefetchers hide).
    /// Several (random,page-local) measure a curve each; the first is the main curve, and random
    /// with page-local gives the page-walk share per size and tells TLB steps from cache steps.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "random")]
    pub pattern: Vec<PatternArg>,
    /// Timed samples kept per working set (min, median, p90 and max are over these).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub runs: u32,
    /// Target length of one timed sample, in milliseconds (stretched to 500 timer ticks if the
    /// timer is coarse).
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true, value_parser = parse_sample_ms)]
    pub sample_ms: f64,
    /// Measurements a working set gets at most: one whose samples spread more than 3% (median
    /// over min: another tenant or an interrupt storm got in) is measured again, and the least
    /// disturbed attempt is kept. 1 measures every size once.
    #[arg(long, default_value_t = ladder::DEFAULT_ATTEMPTS, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub attempts: u32,
    /// Memory-level parallelism: also chase this many independent chains at once over one
    /// working set (--chains-at), for each count in the list (e.g. 1,2,4,8,16,32,64), and name the
    /// count past which more chains stop paying (the misses the core keeps in flight).
    #[arg(long, value_name = "K,...", value_delimiter = ',', value_parser = parse_chains)]
    pub chains: Vec<u32>,
    /// The working set of the --chains sweep (default: --max, at most 256MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub chains_at: Option<u64>,
    /// Seed of the random cycle.
    #[arg(long, default_value_t = ladder::DEFAULT_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub export: ExportArgs,
    /// Curves measured after those of --pattern x --huge-pages (set by `memwall run`, which takes
    /// page-local and random on huge pages beside random on small ones rather than every pairing).
    #[arg(skip)]
    pub extra_curves: Vec<(PatternArg, HugePages)>,
}

/// The `--pattern` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PatternArg {
    Random,
    PageLocal,
    PageStride,
    Sequential,
}

impl PatternArg {
    pub fn pattern(self) -> Pattern {
        match self {
            Self::Random => Pattern::Random,
            Self::PageLocal => Pattern::PageLocal,
            Self::PageStride => Pattern::PageStride,
            Self::Sequential => Pattern::Sequential,
        }
    }
}

impl LadderArgs {
    /// The arguments `memwall ladder FLAGS...` would get: every flag not given keeps its
    /// command-line default.
    #[cfg(test)]
    pub fn from_flags(flags: &[&str]) -> Result<Self, String> {
        #[derive(clap::Parser)]
        struct Ladder {
            #[command(flatten)]
            args: LadderArgs,
        }
        let argv = std::iter::once("ladder").chain(flags.iter().copied());
        <Ladder as clap::Parser>::try_parse_from(argv).map(|l| l.args).map_err(|e| e.to_string())
    }
}

fn parse_chains(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(k) if ladder::CHAIN_COUNTS.contains(&k) => Ok(k),
        _ => Err(format!("'{text}' is not a chase count: use 1, 2, 4, 8, 16, 32 or 64")),
    }
}

fn parse_sample_ms(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 && ms <= 10_000.0 => Ok(ms),
        _ => Err("expected a number of milliseconds above 0 and at most 10000".into()),
    }
}

/// Checks the arguments, then measures; `out` gets the progress-free human output.
pub fn measure(args: &LadderArgs, host: &Host, clock: &NativeClock) -> CliResult<Ladder> {
    let sizes = ladder::ladder_sizes(args.min, args.max, args.points_per_octave).map_err(CliError::usage)?;
    let chains_at = args.chains_at.unwrap_or(args.max.min(ladder::DEFAULT_CHAINS_AT));
    if !args.chains.is_empty() && chains_at < 2 * LINE_BYTES as u64 * 64 {
        return Err(CliError::usage(format!(
            "--chains-at must be at least {} (64 chases of two lines)",
            2 * LINE_BYTES * 64
        )));
    }
    // The largest ring plus its permutation (4 bytes per line) must fit, with the allocation
    // refused up front rather than by the OOM killer halfway through.
    let largest = (*sizes.last().unwrap_or(&args.max)).max(if args.chains.is_empty() { 0 } else { chains_at });
    let needed = ladder::bytes_needed(largest) + (2 << 20);
    platform::check_fits_in_memory(needed, &format!("--max {}", format_bytes(largest)))?;
    if usize::try_from(largest).is_err() {
        return Err(CliError::usage("--max is larger than this platform's address space"));
    }
    if let Some(cpu) = args.pin {
        // On a thread of its own: the pin ends with the ladder, and what runs after it on this
        // thread (the threads bandwidth and GROUP BY start) keeps every CPU it was allowed.
        return std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    platform::pin_current_thread(cpu)?;
                    measure_here(args, sizes, chains_at, host, clock)
                })
                .join()
                .unwrap_or_else(|_| Err(CliError::runtime("the ladder's thread stopped unexpectedly")))
        });
    }
    measure_here(args, sizes, chains_at, host, clock)
}

/// `measure` once the arguments are checked, on whatever CPU this thread is allowed.
fn measure_here(
    args: &LadderArgs,
    sizes: Vec<u64>,
    chains_at: u64,
    host: &Host,
    clock: &NativeClock,
) -> CliResult<Ladder> {
    let resolution = host.timer_resolution_ns.unwrap_or(1.0);
    let config = SampleConfig {
        target_sample_ns: ladder::target_sample_ns(resolution, args.sample_ms * 1e6),
        samples: args.runs,
        warmup: true,
        seed: args.seed,
        attempts: args.attempts,
        pattern: Pattern::Random,
        timer_resolution_ns: resolution,
    };
    let started = clock.now_ns();
    let kinds = curve_kinds(args)?;
    let measuring = Curves::new(kinds.len(), sizes.len(), &config, host, clock);
    let mut curves = Vec::with_capacity(kinds.len());
    let mut visits = vec![revisit::Visits::default(); kinds.len()];
    for &kind in &kinds {
        curves.push(measuring.curve(kind, &sizes)?);
        if curves.last().is_some_and(revisit::reads_caches) {
            measuring.revisit(&kinds, &mut curves, &mut visits)?;
        }
    }
    let parallelism =
        if args.chains.is_empty() { None } else { Some(measure_chains(args, chains_at, &config, clock)?) };
    if parallelism.is_some() {
        measuring.revisit(&kinds, &mut curves, &mut visits)?;
    }
    measuring.bar.finish_and_clear();
    let measured = Measured {
        curves,
        parallelism,
        pinned_cpu: args.pin,
        seed: args.seed,
        target_sample_ns: config.target_sample_ns,
        duration_s: Some((clock.now_ns() - started) / 1e9),
    };
    Ok(memwall_core::explain::measured::read(measured, host))
}

/// Every pattern with every page backing, in the order asked, then the extra curves; the first
/// is the main curve.
fn curve_kinds(args: &LadderArgs) -> CliResult<Vec<(Pattern, HugePages)>> {
    let mut kinds: Vec<(Pattern, HugePages)> = Vec::new();
    let asked = args.huge_pages.iter().flat_map(|&hp| args.pattern.iter().map(move |&p| (p, hp)));
    for (p, hp) in asked.chain(args.extra_curves.iter().copied()) {
        if !kinds.contains(&(p.pattern(), hp)) {
            kinds.push((p.pattern(), hp));
        }
    }
    if kinds.iter().any(|(p, _)| *p == Pattern::PageStride) && args.min < 2 * ladder::PATTERN_PAGE_BYTES as u64 {
        return Err(CliError::usage("--pattern page-stride needs --min of at least 8KiB (two pages)"));
    }
    Ok(kinds)
}

/// Measures curves: each over its sizes, the clock tracked around every point where it can be,
/// with one progress bar over all of them.
struct Curves<'a> {
    config: &'a SampleConfig,
    host: &'a Host,
    clock: &'a NativeClock,
    probe: Result<ClockProbe<'static>, String>,
    bar: ProgressBar,
    labelled: bool,
}

impl<'a> Curves<'a> {
    fn new(kinds: usize, sizes: usize, config: &'a SampleConfig, host: &'a Host, clock: &'a NativeClock) -> Self {
        let bar = ProgressBar::new((sizes * kinds) as u64).with_style(
            ProgressStyle::with_template("{spinner} ladder [{bar:30}] {pos}/{len} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        // Short probes (0.5 ms runs, five of each length) between sizes: a few ms per point.
        let probe = platform::clock_probe(clock, 5e5, 5);
        Self { config, host, clock, probe, bar, labelled: kinds > 1 }
    }

    fn points(&self, (pattern, huge_pages): (Pattern, HugePages), sizes: &[u64]) -> CliResult<Vec<LadderPoint>> {
        let cycles = match (self.host.core_ghz, &self.probe) {
            (Some(reference), Ok(probe)) => Cycles::Track { probe: *probe, reference: Some(reference) },
            (Some(ghz), Err(_)) => Cycles::Fixed(ghz),
            (None, _) => Cycles::Unknown,
        };
        let config = SampleConfig { pattern, ..self.config.clone() };
        let label = if self.labelled { format!("{} {}: ", pattern.name(), huge_pages.name()) } else { String::new() };
        let mut arena = MmapArena { huge_pages };
        ladder::run_ladder(&mut arena, self.clock, sizes, &config, cycles, &mut |event| {
            match event {
                LadderEvent::Measuring { bytes, .. } => self.bar.set_message(format!("{label}{}", format_bytes(bytes))),
                LadderEvent::Measured { .. } => self.bar.inc(1),
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| CliError::runtime(format!("ladder: {e}")))
    }

    fn curve(&self, kind: (Pattern, HugePages), sizes: &[u64]) -> CliResult<Curve> {
        let points = self.points(kind, sizes)?;
        Ok(Curve { pattern: kind.0.name().into(), huge_pages: kind.1.name().into(), chains: 1, points })
    }

    /// Measures the sizes around the last cache's end again on every curve the caches are read
    /// from, each size keeping its typical reading (`explain::revisit`): one of the moments,
    /// spread over the run, at which the guest's share of a shared cache is sampled.
    fn revisit(
        &self,
        kinds: &[(Pattern, HugePages)],
        curves: &mut [Curve],
        visits: &mut [revisit::Visits],
    ) -> CliResult<()> {
        if !curves.iter().any(revisit::reads_caches) {
            return Ok(());
        }
        let so_far = Measured {
            curves: curves.to_vec(),
            parallelism: None,
            pinned_cpu: None,
            seed: self.config.seed,
            target_sample_ns: self.config.target_sample_ns,
            duration_s: None,
        };
        let window = revisit::around_last_cache(&memwall_core::explain::measured::read(so_far, self.host));
        let each = kinds.iter().zip(curves.iter_mut()).zip(visits.iter_mut());
        for ((kind, curve), visits) in each.filter(|((_, c), _)| revisit::reads_caches(c)) {
            self.bar.inc_length(window.len() as u64);
            let again = self.points(*kind, &window)?;
            visits.keep_typical(curve, again);
        }
        Ok(())
    }
}

/// Memory-level parallelism over `chains_at`, on the main curve's pages.
fn measure_chains(
    args: &LadderArgs,
    chains_at: u64,
    config: &SampleConfig,
    clock: &NativeClock,
) -> CliResult<Parallelism> {
    let mut arena = MmapArena { huge_pages: args.huge_pages[0] };
    let mut chains = args.chains.clone();
    chains.sort_unstable();
    chains.dedup();
    let spinner = ProgressBar::new_spinner().with_message(format!(
        "memory-level parallelism: {} chase counts at {}",
        chains.len(),
        format_bytes(chains_at)
    ));
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let measured = ladder::measure_parallelism(&mut arena, clock, chains_at, &chains, config)
        .map_err(|e| CliError::runtime(format!("--chains: {e}")))?;
    spinner.finish_and_clear();
    Ok(measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_ladder_leaves_the_calling_thread_on_every_cpu_it_had() {
        let before = core_affinity::get_core_ids().unwrap_or_default().len();
        let flags =
            ["--min", "16KiB", "--max", "32KiB", "--pin", "0", "--runs", "1", "--attempts", "1", "--sample-ms", "0.1"];
        let args = LadderArgs::from_flags(&flags).unwrap();
        let ladder = measure(&args, &crate::host::describe(), &NativeClock::new()).unwrap();
        assert_eq!(ladder.pinned_cpu, Some(0));
        assert!(!ladder.points.is_empty());
        assert_eq!(core_affinity::get_core_ids().unwrap_or_default().len(), before);
    }
}
