//! Streaming bandwidth measured natively: its flags, the timed passes over huge or small pages,
//! and loaded latency (a chase while other threads stream).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::bandwidth::{self, BandwidthConfig, LoadTask};
use memwall_core::ladder;
use memwall_core::size::{format_bytes, parse_size};
use memwall_report::{Bandwidth, LoadedLatency};

use crate::arena::{HugePages, MmapArena};
use crate::error::{CliError, CliResult};
use crate::output::ExportArgs;
use crate::platform::{self, NativeClock};
use crate::threads::Threads;

#[derive(Debug, Clone, Args)]
pub struct BandwidthArgs {
    /// Smallest working set (e.g. 16KiB).
    #[arg(long, default_value = "16KiB", value_parser = parse_size)]
    pub min: u64,
    /// Largest working set (e.g. 1GiB).
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    pub max: u64,
    /// Working-set sizes per doubling.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub points_per_octave: u32,
    /// Threads streaming at once, each over its own slice of the working set.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Pin thread i to the i-th allowed CPU from this one.
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    /// Page backing of the working set (see `memwall ladder --help`).
    #[arg(long, value_enum, default_value = "thp")]
    pub huge_pages: HugePages,
    /// Timed samples per figure; the fastest is kept.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Target length of one timed sample, in milliseconds.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub sample_ms: u32,
    /// Also measure loaded latency: a pointer chase over --loaded-at (small pages) idle, then
    /// while every other CPU streams reads over a working set of its own of the same size.
    #[arg(long)]
    pub loaded: bool,
    /// The working set of the --loaded chase and of each stream.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
    pub loaded_at: u64,
    #[command(flatten)]
    pub export: ExportArgs,
}

pub fn measure(args: &BandwidthArgs, clock: &NativeClock) -> CliResult<Bandwidth> {
    let sizes = ladder::ladder_sizes(args.min.max(128), args.max, args.points_per_octave).map_err(CliError::usage)?;
    let largest = *sizes.last().unwrap_or(&args.max);
    platform::check_fits_in_memory(largest + (4 << 20), &format!("--max {}", format_bytes(largest)))?;
    let len = usize::try_from(largest).map_err(|_| CliError::usage("--max is larger than this address space"))?;
    let threads = Threads::new(args.threads as usize, args.pin)?;
    // One mapping for every size: each size streams a prefix of it, so pages are faulted in once.
    let mut map = MmapArena { huge_pages: args.huge_pages }.map(len).map_err(CliError::runtime)?;
    let words = as_words(map.as_mut_slice());
    let config = BandwidthConfig { target_sample_ns: f64::from(args.sample_ms) * 1e6, samples: args.runs };
    let bar = ProgressBar::new(sizes.len() as u64).with_style(
        ProgressStyle::with_template("{spinner} bandwidth [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut points = Vec::with_capacity(sizes.len());
    for &bytes in &sizes {
        bar.set_message(format_bytes(bytes));
        let n = (bytes as usize / 8).min(words.len());
        let point = bandwidth::measure(&threads, clock, &mut words[..n], &config)
            .ok_or_else(|| CliError::runtime("bandwidth: the clock did not advance"))?;
        points.push(point);
        bar.inc(1);
    }
    bar.finish_and_clear();
    drop(map);
    let loaded_latency = if args.loaded { loaded(args, clock)? } else { Vec::new() };
    Ok(Bandwidth { points, loaded_latency })
}

/// The chase idle, then with every other CPU streaming.
fn loaded(args: &BandwidthArgs, clock: &NativeClock) -> CliResult<Vec<LoadedLatency>> {
    let bytes = args.loaded_at;
    if bytes < 4096 {
        return Err(CliError::usage("--loaded-at must be at least 4KiB"));
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let streams = cpus.saturating_sub(1).max(1);
    let len = usize::try_from(bytes).map_err(|_| CliError::usage("--loaded-at is larger than this address space"))?;
    platform::check_fits_in_memory(
        bytes * (streams as u64 + 1) + bytes / 16,
        &format!("--loaded-at {}", format_bytes(bytes)),
    )?;
    let config = ladder::SampleConfig {
        target_sample_ns: 5e6,
        samples: 15,
        warmup: true,
        seed: 0x006d_656d_7761_6c6c, // the ladder's default seed ("memwall")
        attempts: 1,
        pattern: ladder::Pattern::Random,
        // One attempt: the spread allowance never decides anything here.
        timer_resolution_ns: 0.0,
    };
    let spinner = ProgressBar::new_spinner().with_message(format!("loaded latency at {}", format_bytes(bytes)));
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let mut out = Vec::new();
    for streaming in [0, streams] {
        let threads = Threads::new(streaming + 1, args.pin)?;
        let mut chase = MmapArena { huge_pages: HugePages::Off }.map(len).map_err(CliError::runtime)?;
        let mut buffers: Vec<_> = (0..streaming)
            .map(|_| MmapArena { huge_pages: args.huge_pages }.map(len).map_err(CliError::runtime))
            .collect::<Result<_, _>>()?;
        let mut tasks = vec![LoadTask::Chase(chase.as_mut_slice())];
        for b in &mut buffers {
            let words = as_words(b.as_mut_slice());
            words.fill(1);
            tasks.push(LoadTask::Stream(words));
        }
        let samples = bandwidth::loaded_latency(&threads, clock, tasks, &config)
            .ok_or_else(|| CliError::runtime("loaded latency: could not build the ring"))?;
        let summary = memwall_report::Summary::of(&samples);
        out.push(LoadedLatency {
            bytes,
            stream_bytes: bytes,
            streaming_threads: streaming as u32,
            ns_per_load: summary.map_or(f64::NAN, |s| s.min),
            ns_per_load_median: summary.map(|s| s.median),
        });
    }
    spinner.finish_and_clear();
    Ok(out)
}

/// The 8-aligned middle of a byte buffer, as words.
fn as_words(bytes: &mut [u8]) -> &mut [u64] {
    // SAFETY: every bit pattern is a valid u64; `align_to_mut` hands out only the aligned middle.
    let (_, words, _) = unsafe { bytes.align_to_mut::<u64>() };
    words
}
