//! `memwall groupby`: the GROUP BY race, `SELECT key, count(*) FROM t GROUP BY key`, timed per
//! kernel over generated or real keys.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Mutex;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use memwall_core::arch::Line;
use memwall_core::clock::Clock;
use memwall_core::exec::Executor;
use memwall_core::groupby::datagen::{self, DataSpec, Skew};
use memwall_core::groupby::race::{RaceEvent, Racer, median_sample};
use memwall_core::groupby::{self, GroupByConfig, Kernel, LineBuffer, Memory};
use memwall_core::size::format_bytes;
use memwall_report::{Counters, Dataset, Generator, GroupBy, Host, Input, Report, Source};

use crate::arena::{HugePages, MappedBuffer, MmapArena};
use crate::counters::CounterSession;
use crate::output::{self, Destination};
use crate::platform::{self, NativeClock};
use crate::threads::Threads;
use crate::{CliError, CliResult};

/// Where the keys come from: a preset, generator parameters, or a file.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// A named data set: small (10,000,000 rows, 1,700,000 keys) or clickbench (99,997,497 rows,
    /// 17,630,976 keys, shaped like ClickBench's hits.UserID). The default without --rows or --input.
    #[arg(long, value_parser = parse_preset, conflicts_with_all = ["rows", "keys", "skew", "input"])]
    pub preset: Option<String>,
    /// Rows to generate (e.g. 100000000, 100M, 1.5G).
    #[arg(long, value_parser = parse_count, conflicts_with = "input", requires = "keys")]
    pub rows: Option<u64>,
    /// Distinct keys to generate; each appears in at least one row (e.g. 17630976, 17.6M).
    #[arg(long, value_parser = parse_count, conflicts_with = "input", requires = "rows")]
    pub keys: Option<u64>,
    /// How generated rows spread over keys: uniform, or zipf:S (key i weighs (i+1)^-S).
    #[arg(long, value_parser = Skew::parse, conflicts_with = "input")]
    pub skew: Option<Skew>,
    /// Seed of the generator: the same seed gives the same rows.
    #[arg(long, default_value_t = datagen::DEFAULT_SEED)]
    pub seed: u64,
    /// Read the keys from a file: Parquet (with --column) or raw little-endian i64 (.bin).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The Parquet column holding the keys (Int64, UInt64 or a narrower integer), e.g. UserID.
    #[arg(long, requires = "input")]
    pub column: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct GroupByArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Kernels to race: naive, radix, tuned, prefetch, adaptive, all, or a comma list.
    #[arg(long, default_value = "all", value_parser = parse_kernels)]
    pub kernel: KernelList,
    /// Partitions for radix and tuned: a power of two from 2 to 65536.
    #[arg(long, default_value_t = groupby::DEFAULT_PARTITIONS)]
    pub partitions: u32,
    /// Threads for radix, tuned and adaptive (naive and prefetch always use one).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Pin the first thread to this CPU (and further threads to the next CPUs).
    #[arg(long, value_name = "CPU")]
    pub pin: Option<u32>,
    /// Timed runs per kernel; kernels take turns, and min, median and max are over the runs.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Count cycles, instructions and cache misses per run (perf_event_open), where the host
    /// offers them; otherwise say why and carry on.
    #[arg(long)]
    pub counters: bool,
    /// Map fresh scratch memory for every run instead of reusing the last run's (as an engine's
    /// buffer pool would); every run then pays the page faults of its partition buffer.
    #[arg(long)]
    pub fresh_memory: bool,
    /// Write the report as JSON to PATH, or to stdout with `-` (the table then goes to stderr).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<Destination>,
}

/// Kernels in the order given, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelList(pub Vec<Kernel>);

pub fn parse_kernels(text: &str) -> Result<KernelList, String> {
    let mut kernels = Vec::new();
    for name in text.split(',').map(str::trim) {
        let more: Vec<Kernel> = if name.eq_ignore_ascii_case("all") {
            Kernel::ALL.to_vec()
        } else {
            vec![Kernel::parse(name).ok_or_else(|| {
                format!("unknown kernel '{name}': expected naive, radix, tuned, prefetch, adaptive or all")
            })?]
        };
        for kernel in more {
            if !kernels.contains(&kernel) {
                kernels.push(kernel);
            }
        }
    }
    Ok(KernelList(kernels))
}

fn parse_preset(name: &str) -> Result<String, String> {
    datagen::preset(name)
        .map(|_| name.trim().to_ascii_lowercase())
        .ok_or_else(|| format!("unknown preset '{name}': expected {}", datagen::PRESETS.join(" or ")))
}

/// A row or key count: digits (with optional `_` or `,` separators), optionally with a decimal
/// suffix K, M, G (10^3, 10^6, 10^9) or a binary one Ki, Mi, Gi (2^10, 2^20, 2^30).
pub fn parse_count(text: &str) -> Result<u64, String> {
    let bad = || format!("invalid count '{text}': expected e.g. 100000000, 100M, 1.5G or 64Mi");
    let clean: String = text.trim().chars().filter(|c| !matches!(c, '_' | ',')).collect();
    let split = clean.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(clean.len());
    let (number, suffix) = clean.split_at(split);
    let scale: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "ki" => 1 << 10,
        "mi" => 1 << 20,
        "gi" => 1 << 30,
        _ => return Err(bad()),
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(scale).ok_or_else(bad);
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scaled = value * scale as f64;
    if !(value.is_finite() && value >= 0.0 && scaled.fract() == 0.0 && scaled < u64::MAX as f64) {
        return Err(bad());
    }
    Ok(scaled as u64)
}

/// Scratch memory for the kernels: transparent-huge-page mappings (a partition buffer of
/// hundreds of MB in 4 KiB pages would miss the TLB on nearly every line written), handed back
/// to a free list when a run ends and reused by the next run that fits, unless `fresh`.
pub struct ScratchPool {
    arena: MmapArena,
    fresh: bool,
    /// Buffers not in use, with their length in bytes.
    free: Mutex<Vec<(usize, MappedBuffer)>>,
}

impl std::fmt::Debug for ScratchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchPool").field("fresh", &self.fresh).finish_non_exhaustive()
    }
}

impl ScratchPool {
    pub fn new(fresh: bool) -> Self {
        Self { arena: MmapArena { huge_pages: HugePages::Thp }, fresh, free: Mutex::new(Vec::new()) }
    }

    /// Bytes kept for reuse, and how many of them the kernel backs with huge pages.
    pub fn kept_bytes(&self) -> (u64, Option<u64>) {
        let free = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let total = free.iter().map(|(bytes, _)| *bytes as u64).sum();
        // A mapping may reach past the window it serves (see `MmapArena`): count the window.
        let huge = free.iter().map(|(bytes, buffer)| buffer.huge_page_bytes().map(|h| h.min(*bytes as u64))).sum();
        (total, huge)
    }

    fn take_free(&self, bytes: usize) -> Option<MappedBuffer> {
        let mut free = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The smallest free buffer that fits, so a big one stays for the kernel that needs it.
        let best = (0..free.len()).filter(|&i| free[i].0 >= bytes).min_by_key(|&i| free[i].0)?;
        Some(free.swap_remove(best).1)
    }
}

struct Pooled<'a> {
    pool: &'a ScratchPool,
    buffer: Option<MappedBuffer>,
    lines: usize,
}

impl LineBuffer for Pooled<'_> {
    fn lines(&mut self) -> &mut [Line] {
        let bytes = self.buffer.as_mut().expect("held until dropped").as_mut_slice();
        // SAFETY: `Line` is plain old data (any bit pattern is valid) and the mapping is page
        // aligned, so the middle part is the whole buffer; `prefix` is checked empty below.
        let (prefix, lines, _) = unsafe { bytes.align_to_mut::<Line>() };
        assert!(prefix.is_empty(), "mappings are page aligned");
        &mut lines[..self.lines]
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(mut buffer) = self.buffer.take()
            && !self.pool.fresh
        {
            let bytes = buffer.as_mut_slice().len();
            self.pool.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((bytes, buffer));
        }
    }
}

impl Memory for ScratchPool {
    fn lines(&self, lines: usize) -> Result<Box<dyn LineBuffer + '_>, String> {
        let bytes = lines.checked_mul(size_of::<Line>()).ok_or("scratch size overflows")?.max(1);
        let buffer = match self.take_free(bytes) {
            Some(buffer) => buffer,
            None => self.arena.map(bytes)?,
        };
        Ok(Box::new(Pooled { pool: self, buffer: Some(buffer), lines }))
    }
}

/// The keys to aggregate and what the report says about them.
#[derive(Debug)]
pub struct Data {
    pub keys: Vec<i64>,
    pub dataset: Dataset,
    /// For humans: "clickbench preset", "hits.parquet (UserID)", ...
    pub label: String,
}

/// What the data arguments ask for, checked, before anything big is allocated.
enum DataSource {
    Generate { spec: DataSpec, preset: Option<String> },
    File { path: PathBuf, column: Option<String> },
}

fn source(args: &DataArgs) -> CliResult<DataSource> {
    if let Some(path) = &args.input {
        return Ok(DataSource::File { path: path.clone(), column: args.column.clone() });
    }
    let (spec, preset) = match (&args.preset, args.rows, args.keys) {
        (Some(name), _, _) => (datagen::preset(name).expect("checked by clap"), Some(name.clone())),
        (None, Some(rows), Some(keys)) => {
            (DataSpec { rows, keys, skew: args.skew.unwrap_or(Skew::Uniform), seed: args.seed }, None)
        }
        _ => (datagen::preset("small").expect("a built-in preset"), Some("small".to_string())),
    };
    let spec = DataSpec { seed: args.seed, ..spec };
    spec.check().map_err(|e| CliError::usage(format!("{}: {e}", describe_flags(&spec, preset.as_deref()))))?;
    Ok(DataSource::Generate { spec, preset })
}

fn describe_flags(spec: &DataSpec, preset: Option<&str>) -> String {
    match preset {
        Some(name) => format!("--preset {name}"),
        None => format!("--rows {} --keys {}", spec.rows, spec.keys),
    }
}

/// Generates or loads the keys, refusing up front what cannot fit: the keys plus `scratch(rows,
/// groups)`, the most the chosen kernels need on top.
pub fn load(args: &DataArgs, exec: &dyn Executor, scratch: &dyn Fn(u64, u64) -> u64) -> CliResult<Data> {
    match source(args)? {
        DataSource::Generate { spec, preset } => {
            let needed = spec.bytes().saturating_add(scratch(spec.rows, spec.keys));
            platform::check_fits_in_memory(needed, &describe_flags(&spec, preset.as_deref()))?;
            let bar = spinner(format!("generating {} rows over {} keys", spec.rows, spec.keys));
            let keys = datagen::generate_with(&spec, exec).map_err(|e| CliError::usage(e.to_string()))?;
            bar.finish_and_clear();
            let label = match &preset {
                Some(name) => format!("{name} preset"),
                None => format!("generated, {}", spec.skew.name()),
            };
            Ok(Data {
                keys,
                dataset: Dataset {
                    rows: spec.rows,
                    distinct_keys: spec.keys,
                    generator: Some(Generator { preset, skew: spec.skew.name() }),
                    input: None,
                    seed: Some(spec.seed),
                    max_rows_per_key: None,
                },
                label,
            })
        }
        DataSource::File { path, column } => {
            let bar = spinner(format!("reading {}", path.display()));
            let loaded = crate::input::load_keys(&path, column.as_deref())?;
            bar.finish_and_clear();
            let rows = loaded.keys.len() as u64;
            // The groups are not known before aggregating; a sample tells roughly, and skew only
            // makes it low, so allow four times that (as many as rows would refuse real files:
            // a table for 100 M groups that hits.parquet does not have).
            let groups = groupby::estimate_groups(&loaded.keys).groups.saturating_mul(4).min(rows);
            platform::check_fits_in_memory(scratch(rows, groups), &format!("--input {}", path.display()))?;
            let label = match &column {
                Some(c) => format!("{} ({c})", path.display()),
                None => path.display().to_string(),
            };
            Ok(Data {
                keys: loaded.keys,
                dataset: Dataset {
                    rows,
                    // Filled in from the first run's result.
                    distinct_keys: 0,
                    generator: None,
                    input: Some(Input { path: path.display().to_string(), format: loaded.format.into(), column }),
                    seed: None,
                    max_rows_per_key: None,
                },
                label,
            })
        }
    }
}

pub fn spinner(message: String) -> ProgressBar {
    let bar = ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// The cache a table should fit in for the adaptive kernel: this host's per-core L2 as declared,
/// or the core's default when it declares none.
pub fn groupby_config(partitions: u32, host: &Host) -> CliResult<GroupByConfig> {
    let default = GroupByConfig::default();
    let l2 = host.caches.iter().find(|c| c.level == 2 && c.kind != "Instruction").map(|c| c.size_bytes);
    let config = GroupByConfig { partitions, cache_bytes: l2.unwrap_or(default.cache_bytes) };
    config.validate().map_err(|e| CliError::usage(format!("--partitions: {e}")))?;
    Ok(config)
}

/// Everything a race needs besides the data.
pub struct Race<'a> {
    pub kernels: &'a [Kernel],
    pub config: GroupByConfig,
    pub threads: &'a Threads,
    pub memory: &'a dyn Memory,
    pub runs: u32,
    pub counters: bool,
}

/// Times every kernel over `data` (the core's race: kernels take turns and must agree), with a
/// progress bar and, if asked, hardware counters around each timed run.
pub fn race(race: &Race<'_>, data: &mut Data, clock: &dyn Clock) -> CliResult<GroupBy> {
    let runs = race.runs.max(1);
    let bar = ProgressBar::new(u64::from(runs) * race.kernels.len() as u64).with_style(
        ProgressStyle::with_template("{spinner} group by [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let racer =
        Racer { kernels: race.kernels, config: race.config, exec: race.threads, memory: race.memory, clock, runs };
    // Counters per kernel, one entry per run, in run order (the order of `samples_seconds`).
    let mut counters: Vec<Vec<Counters>> = vec![Vec::new(); race.kernels.len()];
    let mut session: Option<CounterSession> = None;
    let on_event = &mut |event: RaceEvent| {
        match event {
            RaceEvent::Running { kernel, run, runs } => {
                bar.set_message(format!("{} run {}/{runs}", kernel.name(), run + 1));
                session = race.counters.then(CounterSession::start);
            }
            RaceEvent::Timed { kernel, .. } => {
                if let (Some(session), Some(k)) = (session.take(), race.kernels.iter().position(|&k| k == kernel)) {
                    counters[k].push(session.stop());
                }
                bar.inc(1);
            }
        }
        ControlFlow::Continue(())
    };
    let result = racer.race(&data.keys, data.dataset.clone(), on_event);
    bar.finish_and_clear();
    let mut groupby = result.map_err(|e| CliError::runtime(e.to_string()))?;
    for (run, counters) in groupby.runs.iter_mut().zip(counters) {
        run.counters = median_sample(&run.samples_seconds, run.seconds.median).and_then(|i| counters.get(i).cloned());
    }
    data.dataset = groupby.dataset.clone();
    Ok(groupby)
}

/// The race as a table, with each kernel's speedup over naive, then the top keys.
pub fn print_race(out: &mut dyn Write, groupby: &GroupBy, label: &str) -> std::io::Result<()> {
    let d = &groupby.dataset;
    writeln!(
        out,
        "{label}: {} rows, {} distinct keys{}",
        d.rows,
        d.distinct_keys,
        d.max_rows_per_key.map_or(String::new(), |m| format!(", most frequent key {m} rows"))
    )?;
    let naive = groupby.runs.iter().find(|r| r.kernel == Kernel::Naive.name()).map(|r| r.seconds.median);
    let rows: Vec<Vec<String>> = groupby
        .runs
        .iter()
        .map(|r| {
            vec![
                r.kernel.clone(),
                r.threads.to_string(),
                r.partitions.map_or("-".into(), |p| p.to_string()),
                format!("{:.3}", r.seconds.min),
                format!("{:.3}", r.seconds.median),
                format!("{:.3}", r.seconds.max),
                format!("{:.2}", r.ns_per_row),
                naive.map_or("-".into(), |n| format!("{:.2}x", n / r.seconds.median)),
                r.groups.to_string(),
                r.checksum.clone(),
            ]
        })
        .collect();
    let header = ["kernel", "threads", "P", "min s", "median s", "max s", "ns/row", "vs naive", "groups", "checksum"];
    write!(out, "{}", output::table(&header, &rows))?;
    for run in &groupby.runs {
        if let Some(choice) = &run.choice {
            writeln!(out, "{} chose {}: {}", run.kernel, choice.kernel, choice.reason)?;
        }
        if let Some(counters) = &run.counters {
            writeln!(out, "{} counters: {}", run.kernel, counters_line(counters))?;
        }
    }
    if let Some(run) = groupby.runs.first() {
        let top: Vec<String> = run.top.iter().map(|kc| format!("{} x{}", kc.key, kc.count)).collect();
        writeln!(out, "top keys: {}", top.join(", "))?;
    }
    Ok(())
}

fn counters_line(c: &Counters) -> String {
    if !c.available {
        return format!("unavailable: {}", c.unavailable.as_deref().unwrap_or("unknown reason"));
    }
    let mut parts = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            parts.push(format!("{name} {v}"));
        }
    };
    add("cycles", c.cycles.map(|v| v.to_string()));
    add("instructions", c.instructions.map(|v| v.to_string()));
    add("IPC", c.ipc.map(|v| format!("{v:.2}")));
    add("cache misses", c.cache_misses.map(|v| v.to_string()));
    add("LLC load misses", c.llc_load_misses.map(|v| v.to_string()));
    add("dTLB load misses", c.dtlb_load_misses.map(|v| v.to_string()));
    add("backend stalls", c.stalled_backend_share.map(|v| format!("{:.1}%", v * 100.0)));
    parts.join(", ")
}

/// Threads, config, pool and data for a race from the command line's arguments.
pub fn prepare(args: &GroupByArgs, host: &Host) -> CliResult<(Threads, GroupByConfig, ScratchPool, Data)> {
    let threads = Threads::new(args.threads, args.pin)?;
    let config = groupby_config(args.partitions, host)?;
    let kernels = &args.kernel.0;
    let scratch = |rows: u64, groups: u64| -> u64 {
        let each = kernels.iter().map(|&k| groupby::scratch_bytes(k, rows, groups, &config, args.threads));
        // Reused buffers stay mapped between runs, so every kernel's scratch may be held at once.
        if args.fresh_memory { each.max().unwrap_or(0) } else { each.sum() }
    };
    let data = load(&args.data, &threads, &scratch)?;
    if data.keys.is_empty() {
        return Err(CliError::usage("no rows to group"));
    }
    Ok((threads, config, ScratchPool::new(args.fresh_memory), data))
}

/// The race `memwall run` includes: the small preset, every kernel, one thread (on the CPU the
/// caller is pinned to, if it is).
pub fn default_race(host: &Host, clock: &dyn Clock) -> CliResult<(GroupBy, String)> {
    let args = GroupByArgs {
        data: DataArgs {
            preset: Some("small".into()),
            rows: None,
            keys: None,
            skew: None,
            seed: datagen::DEFAULT_SEED,
            input: None,
            column: None,
        },
        kernel: KernelList(Kernel::ALL.to_vec()),
        partitions: groupby::DEFAULT_PARTITIONS,
        threads: 1,
        pin: None,
        runs: 3,
        counters: false,
        fresh_memory: false,
        json: None,
    };
    let (threads, config, pool, mut data) = prepare(&args, host)?;
    let setup =
        Race { kernels: &args.kernel.0, config, threads: &threads, memory: &pool, runs: args.runs, counters: false };
    let result = race(&setup, &mut data, clock)?;
    Ok((result, data.label))
}

pub fn groupby(args: GroupByArgs) -> CliResult {
    let clock = NativeClock::new();
    let json_on_stdout = args.json == Some(Destination::Stdout);
    let host = if args.json.is_some() { crate::ladder_cmd::measured_host(&clock) } else { crate::host::describe() };
    let (threads, config, pool, mut data) = prepare(&args, &host)?;
    let mut out = output::human(json_on_stdout);
    if args.counters
        && let Err(why) = crate::counters::probe()
    {
        writeln!(out, "counters unavailable: {why}").ok();
    }
    let race_setup = Race {
        kernels: &args.kernel.0,
        config,
        threads: &threads,
        memory: &pool,
        runs: args.runs,
        counters: args.counters,
    };
    let result = race(&race_setup, &mut data, &clock)?;
    print_race(&mut *out, &result, &data.label).map_err(|e| CliError::runtime(e.to_string()))?;
    if let Some(cpus) = threads.cpus() {
        let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
        writeln!(out, "threads pinned to CPUs {}", list.join(",")).ok();
    }
    let (kept, huge) = pool.kept_bytes();
    if kept > 0 {
        let share = huge.map_or("unknown".into(), |h| format!("{:.0}%", h as f64 * 100.0 / kept as f64));
        writeln!(
            out,
            "scratch: {} kept between runs (the first run of each kernel paid its page faults), {share} on huge pages",
            format_bytes(kept)
        )
        .ok();
    }
    if let Some(destination) = &args.json {
        let mut report = Report::new(Source::Native, output::unix_now(), host);
        report.groupby = Some(result);
        output::write_report(destination, &report)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_with_suffixes() {
        assert_eq!(parse_count("99997497"), Ok(99_997_497));
        assert_eq!(parse_count("99_997_497"), Ok(99_997_497));
        assert_eq!(parse_count("17,630,976"), Ok(17_630_976));
        assert_eq!(parse_count("100M"), Ok(100_000_000));
        assert_eq!(parse_count("1.7M"), Ok(1_700_000));
        assert_eq!(parse_count("64Mi"), Ok(64 << 20));
        assert_eq!(parse_count("1Ki"), Ok(1024));
        assert_eq!(parse_count("2g"), Ok(2_000_000_000));
        for bad in ["", "x", "-1", "1.5", "1e400", "12Q", "1.0000001K", "99999999999999999999G"] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kernel_lists_parse() {
        assert_eq!(parse_kernels("all").unwrap().0, Kernel::ALL.to_vec());
        assert_eq!(parse_kernels("tuned, naive,tuned").unwrap().0, vec![Kernel::Tuned, Kernel::Naive]);
        assert!(parse_kernels("naive,fast").unwrap_err().contains("fast"));
    }

    #[test]
    fn the_pool_reuses_and_can_be_told_not_to() {
        let pool = ScratchPool::new(false);
        let first = {
            let mut a = pool.lines(1000).unwrap();
            a.lines()[999] = Line([9; 8]);
            a.lines().as_ptr()
        };
        let mut b = pool.lines(500).unwrap();
        assert_eq!(b.lines().as_ptr(), first, "a freed buffer that fits is reused");
        assert_eq!(b.lines().len(), 500);
        let mut c = pool.lines(100).unwrap();
        assert_ne!(c.lines().as_ptr(), first, "a buffer in use is not handed out twice");
        let fresh = ScratchPool::new(true);
        drop(fresh.lines(10).unwrap());
        assert!(fresh.free.lock().unwrap().is_empty());
    }
}
