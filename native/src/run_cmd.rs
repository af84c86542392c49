//! `memwall run` (the main job) and `memwall info`.

use std::io::Write;

use clap::Args;
use memwall_report::{Bandwidth, Host};

use crate::arena::HugePages;
use crate::bandwidth_measure::BandwidthArgs;
use crate::error::{CliError, CliResult};
use crate::ladder_measure::{LadderArgs, PatternArg};
use crate::output::{self, Destination, ExportArgs};
use crate::platform::NativeClock;
use crate::print::host::print_host;

#[derive(Debug, Args)]
pub struct InfoArgs {
    // `--json`: the host description as a report (no measurements); `--csv`, `--markdown`: its
    // facts as a table.
    #[command(flatten)]
    pub export: ExportArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to write the report: a file, or a folder (an existing one, or a path ending in `/`)
    /// in which the report is named after the host and the day, e.g. `db-7-2026-12-02.json`,
    /// for collecting a fleet's reports in one place (`memwall fleet DIR`). `--json PATH|-`
    /// writes it there instead (with `-`, to stdout, and the tables go to stderr).
    #[arg(long, default_value = "memwall-report.json", conflicts_with = "json")]
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
    args.export.check()?;
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    print_host(&mut *args.export.human(), &host).map_err(|e| CliError::runtime(e.to_string()))?;
    args.export.write(
        || output::new_report(host.clone()),
        || crate::print::host::table(&host).csv(),
        || crate::print::host::table(&host),
    )
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
        export: crate::output::ExportArgs::default(),
    };
    let mut measured = crate::bandwidth_measure::measure(&bandwidth_args, clock)?;
    bandwidth_args.loaded = false;
    let cpus = host.logical_cpus.unwrap_or(1);
    if args.thorough && cpus > 1 {
        bandwidth_args.min = bandwidth_args.max;
        bandwidth_args.threads = cpus;
        measured.points.extend(crate::bandwidth_measure::measure(&bandwidth_args, clock)?.points);
    }
    Ok(measured)
}

pub fn run(args: RunArgs) -> CliResult {
    if args.serve && args.ladder.export.json == Some(Destination::Stdout) {
        return Err(CliError::usage("--serve needs the report in a file, not on stdout (--json -)"));
    }
    if args.serve {
        // Fail now, not after the measurements, if there is no front end to serve.
        crate::serve::Assets::find(None)?;
    }
    let export = &args.ladder.export;
    export.check()?;
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    // Named and checked before measuring: a folder that cannot be written fails now.
    let destination = match &export.json {
        Some(destination) => destination.clone(),
        None => Destination::File(output::report_path(&args.out, host.name.as_deref(), output::unix_now())?),
    };
    let mut out = export.human();
    print_host(&mut *out, &host).map_err(|e| CliError::runtime(e.to_string()))?;
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
    let ladder = crate::ladder_measure::measure(&ladder_args, &host, &clock)?;
    crate::print::ladder::print_ladder(&mut out, &ladder, &host.caches)
        .map_err(|e| CliError::runtime(e.to_string()))?;
    writeln!(out).ok();
    let bandwidth = run_bandwidth(&args, &host, &clock)?;
    crate::print::bandwidth::print_bandwidth(&mut out, &bandwidth).map_err(|e| CliError::runtime(e.to_string()))?;
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
        // The model gets all the run measured: the ladder's knee and clock, the bandwidth run.
        let measured = memwall_core::cost::Measured::of(report.ladder.as_ref(), report.bandwidth.as_ref());
        crate::groupby_race::default_race(&report.host, levels, measured, &clock).and_then(|(groupby, label)| {
            crate::print::groupby::print_race(&mut out, &groupby, &label)
                .map_err(|e| CliError::runtime(e.to_string()))?;
            report.groupby = Some(groupby);
            Ok(())
        })
    };
    let joined = if args.no_join {
        Ok(())
    } else {
        writeln!(out).ok();
        let levels = report.ladder.as_ref().map_or(&[][..], |l| &l.levels[..]);
        crate::join_race::default_race(&report.host, levels, &clock).and_then(|(join, label)| {
            crate::print::join::print_race(&mut out, &join, &label).map_err(|e| CliError::runtime(e.to_string()))?;
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
    let ladder = report.ladder.as_ref().expect("measured above");
    let write = ExportArgs { json: None, ..export.clone() };
    write.write(
        || report.clone(),
        || memwall_report::ladder_csv(&ladder.points),
        || crate::print::ladder::table(ladder),
    )?;
    output::write_report(&destination, &report)?;
    if let Destination::File(path) = &destination {
        writeln!(out, "report: {}", path.display()).ok();
    }
    raced?;
    joined?;
    if let (true, Destination::File(path)) = (args.serve, destination) {
        return crate::serve::serve(crate::serve::ServeArgs::for_report(path));
    }
    Ok(())
}
