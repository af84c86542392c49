//! `memwall run` (the main job) and `memwall info`.

use std::io::Write;

use clap::Args;
use memwall_core::size::format_bytes;
use memwall_report::{Bandwidth, Host};

use crate::arena::HugePages;
use crate::bandwidth_cmd::BandwidthArgs;
use crate::ladder_cmd::{self, LadderArgs, PatternArg};
use crate::output::{self, Destination};
use crate::platform::NativeClock;
use crate::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Also write the host description as a report (no measurements) to PATH, or `-` for stdout.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<Destination>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to write the report: a file, or a folder (an existing one, or a path ending in `/`)
    /// in which the report is named after the host and the day, e.g. `db-7-2026-12-02.json`,
    /// for collecting a fleet's reports in one place (`memwall fleet DIR`).
    #[arg(long, default_value = "memwall-report.json")]
    pub out: std::path::PathBuf,
    /// Then serve the web front end with the fresh report open (as `memwall serve --report OUT`).
    #[arg(long)]
    pub serve: bool,
    /// Skip the GROUP BY race (small preset, every kernel, one thread) that follows the ladder.
    #[arg(long)]
    pub no_groupby: bool,
    /// Skip the short join race (small preset's sides, every kernel, one thread, one timed run
    /// each) that follows the GROUP BY race.
    #[arg(long)]
    pub no_join: bool,
    /// The full set: the ladder random and page-local each on small and on transparent huge
    /// pages (by default: random on small pages, page-local and random on huge ones where the
    /// host grants them), bandwidth with every CPU as well as one, and loaded latency. Several
    /// times longer.
    #[arg(long)]
    pub thorough: bool,
    #[command(flatten)]
    pub ladder: LadderArgs,
}

pub fn info(args: InfoArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = ladder_cmd::measured_host(&clock);
    let json_on_stdout = args.json == Some(Destination::Stdout);
    print_host(&mut *output::human(json_on_stdout), &host).map_err(|e| CliError::runtime(e.to_string()))?;
    if let Some(destination) = &args.json {
        output::write_report(destination, &output::new_report(host))?;
    }
    Ok(())
}

pub fn print_host(out: &mut dyn Write, host: &Host) -> std::io::Result<()> {
    let unknown = || "unknown".to_string();
    writeln!(out, "host:        {}", host.name.clone().unwrap_or_else(unknown))?;
    writeln!(out, "cpu:         {}", host.cpu_model.clone().unwrap_or_else(unknown))?;
    writeln!(out, "logical cpus: {}", host.logical_cpus.map_or_else(unknown, |n| n.to_string()))?;
    if host.caches.is_empty() {
        // Common on Arm cloud guests: the ladder's curve still finds the levels.
        writeln!(
            out,
            "cache:       not declared (the system lists no cache sizes; the ladder's curve finds the levels)"
        )?;
    }
    for cache in &host.caches {
        let shared = cache.shared_by_cpus.map_or(String::new(), |n| format!(", shared by {n} cpu(s)"));
        writeln!(out, "cache:       L{} {:<11} {}{}", cache.level, cache.kind, format_bytes(cache.size_bytes), shared)?;
    }
    let hypervisor = match host.hypervisor.as_deref() {
        Some("none") => "none (bare metal)".to_string(),
        Some(name) => name.to_string(),
        None => unknown(),
    };
    writeln!(out, "hypervisor:  {hypervisor}")?;
    writeln!(out, "emulated:    {}", crate::emulation::detected().describe())?;
    writeln!(out, "os:          {}", host.os.clone().unwrap_or_else(unknown))?;
    writeln!(out, "memory:      {}", host.memory_bytes.map_or_else(unknown, format_bytes))?;
    writeln!(out, "page size:   {}", host.page_bytes.map_or_else(unknown, format_bytes))?;
    writeln!(out, "THP mode:    {}", host.thp.clone().unwrap_or_else(unknown))?;
    writeln!(
        out,
        "timer:       {}",
        host.timer_resolution_ns.map_or_else(unknown, |ns| format!("{ns:.0} ns resolution"))
    )?;
    match (host.core_ghz, &host.core_ghz_unavailable) {
        (Some(ghz), _) => match &host.core_clock {
            Some(estimate) => writeln!(out, "core clock:  {}", crate::ladder_print::clock_summary(estimate))?,
            None => writeln!(out, "core clock:  {ghz:.2} GHz (dependent add chain)")?,
        },
        (None, why) => writeln!(out, "core clock:  unavailable: {}", why.as_deref().unwrap_or("unknown"))?,
    }
    Ok(())
}

/// Bandwidth as `memwall run` measures it: one thread from 16 KiB to the ladder's --max (at most
/// 1 GiB), one size per octave; with --thorough, every CPU as well at the largest size, and
/// loaded latency.
fn run_bandwidth(args: &RunArgs, host: &Host, clock: &NativeClock) -> CliResult<Bandwidth> {
    let mut bandwidth_args = BandwidthArgs {
        min: 16 << 10,
        max: args.ladder.max.clamp(16 << 10, 1 << 30),
        points_per_octave: 1,
        threads: 1,
        pin: args.ladder.pin,
        huge_pages: HugePages::Thp,
        runs: 3,
        sample_ms: 10,
        loaded: args.thorough,
        loaded_at: 256 << 20,
        json: None,
    };
    let mut measured = crate::bandwidth_cmd::measure(&bandwidth_args, clock)?;
    bandwidth_args.loaded = false;
    let cpus = host.logical_cpus.unwrap_or(1);
    if args.thorough && cpus > 1 {
        bandwidth_args.min = bandwidth_args.max;
        bandwidth_args.threads = cpus;
        measured.points.extend(crate::bandwidth_cmd::measure(&bandwidth_args, clock)?.points);
    }
    Ok(measured)
}

pub fn run(args: RunArgs) -> CliResult {
    if args.serve {
        // Fail now, not after the measurements, if there is no front end to serve.
        crate::serve::Assets::find(None)?;
    }
    let clock = NativeClock::new();
    let host = ladder_cmd::measured_host(&clock);
    // Named and checked before measuring: a folder that cannot be written fails now.
    let report_path = output::report_path(&args.out, host.name.as_deref(), output::unix_now())?;
    let mut out = std::io::stdout();
    print_host(&mut out, &host).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out).ok();
    let mut ladder_args = args.ladder.clone();
    if ladder_args.chains.is_empty() {
        ladder_args.chains = memwall_core::ladder::CHAIN_COUNTS.to_vec();
    }
    let defaults = ladder_args.pattern == [PatternArg::Random] && ladder_args.huge_pages == [HugePages::Off];
    if defaults && args.thorough {
        ladder_args.pattern = vec![PatternArg::Random, PatternArg::PageLocal];
        ladder_args.huge_pages = vec![HugePages::Off, HugePages::Thp];
    } else if defaults {
        // The levels are read from page-local (caches and DRAM without TLB misses), on huge
        // pages where the host grants them (no cache sets crowded by scattered small pages); its
        // gap to random on small pages is what page walks cost. Random on huge pages, where
        // granted, is what the cloud shelf measured (`memwall cloud --near` compares like with
        // like) and says what huge pages save; it costs one more curve, no more memory.
        let thp = matches!(host.thp.as_deref(), Some("always" | "madvise"));
        ladder_args.extra_curves = vec![(PatternArg::PageLocal, if thp { HugePages::Thp } else { HugePages::Off })];
        if thp {
            ladder_args.extra_curves.push((PatternArg::Random, HugePages::Thp));
        }
    }
    let ladder = ladder_cmd::measure(&ladder_args, &host, &clock)?;
    crate::ladder_print::print_ladder(&mut out, &ladder, &host.caches).map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out).ok();
    let bandwidth = run_bandwidth(&args, &host, &clock)?;
    crate::bandwidth_cmd::print_bandwidth(&mut out, &bandwidth).map_err(|e| CliError::runtime(e.to_string()))?;
    let mut report = output::new_report(host);
    report.ladder = Some(ladder);
    report.bandwidth = Some(bandwidth);
    // Read once more with the bandwidth plateaus as evidence too, and the advice with them.
    memwall_core::explain::reread(&mut report);
    // A failed race still leaves the ladder in the report; its error is returned afterwards.
    let raced = if args.no_groupby {
        Ok(())
    } else {
        writeln!(out).ok();
        let levels = report.ladder.as_ref().map_or(&[][..], |l| &l.levels[..]);
        crate::groupby_cmd::default_race(&report.host, levels, &clock).and_then(|(groupby, label)| {
            crate::groupby_cmd::print_race(&mut out, &groupby, &label).map_err(|e| CliError::runtime(e.to_string()))?;
            report.groupby = Some(groupby);
            Ok(())
        })
    };
    let joined = if args.no_join {
        Ok(())
    } else {
        writeln!(out).ok();
        let levels = report.ladder.as_ref().map_or(&[][..], |l| &l.levels[..]);
        crate::join_cmd::default_race(&report.host, levels, &clock).and_then(|(join, label)| {
            crate::join_cmd::print_race(&mut out, &join, &label).map_err(|e| CliError::runtime(e.to_string()))?;
            report.join = Some(join);
            Ok(())
        })
    };
    if !report.advice.is_empty() {
        writeln!(out, "\nfor someone choosing a server:").ok();
        for sentence in &report.advice {
            writeln!(out, "- {sentence}").ok();
        }
    }
    output::write_report(&Destination::File(report_path.clone()), &report)?;
    writeln!(out, "report: {}", report_path.display()).ok();
    raced?;
    joined?;
    if args.serve {
        return crate::serve::serve(crate::serve::ServeArgs::for_report(report_path));
    }
    Ok(())
}
