//! `memwall`: measure the memory wall of this host at full precision.

mod arena;
mod bandwidth_cmd;
mod bandwidth_measure;
mod cache_budget;
mod cache_probe;
mod cloud_cmd;
mod cores_cmd;
mod counters;
mod dataset;
mod emulation;
mod error;
mod explain_cmd;
mod exporter;
mod fleet_cmd;
#[cfg(test)]
mod fuzz;
mod generate_cmd;
mod groupby_cmd;
mod groupby_race;
mod headroom;
mod host;
mod input;
mod join_cmd;
mod join_race;
mod ladder_cmd;
mod ladder_measure;
mod output;
mod platform;
mod pressure;
mod print;
mod race_args;
mod run_cmd;
mod sensitivity_cmd;
mod sensitivity_server;
mod serve;
mod sweep_cmd;
mod threads;
mod watch_cmd;
mod watch_probe;

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use error::{INTERRUPTED, STOP_CLEANLY};

use clap::{Parser, Subcommand};

/// See where the caches, the TLB and DRAM really are on this host, and what it costs a GROUP BY.
///
/// Start with `memwall run`: it describes the host, measures the latency ladder, races the GROUP
/// BY kernels and writes memwall-report.json, which the web front end opens (`memwall serve`).
#[derive(Debug, Parser)]
#[command(name = "memwall", version = env!("MEMWALL_VERSION"), propagate_version = true, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The main job: host info, the latency ladder and a GROUP BY race, into one report.
    Run(run_cmd::RunArgs),
    /// Describe this host: CPU, caches as declared, hypervisor, pages, timer, core clock.
    Info(run_cmd::InfoArgs),
    /// Measure ns per load for working sets from --min to --max with a dependent pointer chase.
    Ladder(ladder_measure::LadderArgs),
    /// Streaming read, write and copy bandwidth in GB/s per working set, against memcpy.
    Bandwidth(bandwidth_measure::BandwidthArgs),
    /// Race GROUP BY kernels (count(*) per key) over generated or real keys.
    Groupby(groupby_race::GroupByArgs),
    /// Race hash-join kernels: a build side of distinct keys with payloads, probed row by row.
    Join(join_race::JoinArgs),
    /// Sweep GROUP BY kernels over distinct keys or partition counts.
    Sweep(sweep_cmd::SweepArgs),
    /// Write generated keys (same flags as groupby's) to FILE.parquet or FILE.bin for other engines.
    Generate(generate_cmd::GenerateArgs),
    /// Read reports again by the current rules: levels, verdict and advice, and what placed each level.
    Explain(explain_cmd::ExplainArgs),
    /// Many hosts' reports side by side, one row each, to choose a server: sort, filter, export.
    Fleet(fleet_cmd::FleetArgs),
    /// 1,798 cloud instance types' latency curves (Spare Cores, CC BY-SA 4.0): filter, sort, --near a report, --pairs.
    Cloud(cloud_cmd::CloudArgs),
    /// Core-to-core latency for every pair of CPUs, grouped, and checked against sysfs.
    Cores(cores_cmd::CoresArgs),
    /// Re-measure an L2, an LLC and a DRAM point and read steal time at intervals: how stable is this host?
    /// With --listen, a Prometheus exporter.
    Watch(watch_cmd::WatchArgs),
    /// Run a command under growing cache pressure from a neighbour CPU: how much does it slow?
    Sensitivity(sensitivity_cmd::SensitivityArgs),
    /// Serve the web front end (trunk's dist/) and the given reports on 127.0.0.1.
    Serve(serve::ServeArgs),
}

/// clap's own errors, in the one-line shape of every other memwall error: its message and tips
/// on one line, without the usage block (`--help` has it). Help and version print as usual.
fn parse_args() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("memwall: error: {}", one_line_clap_error(&e.render().to_string()));
            Err(ExitCode::from(2))
        }
    }
}

fn one_line_clap_error(rendered: &str) -> String {
    let mut line = String::new();
    for part in rendered.lines().map(str::trim).take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more")) {
        match part {
            "" => {}
            _ if line.is_empty() => line += part.strip_prefix("error: ").unwrap_or(part),
            _ if part.starts_with("tip:") => line += &format!("; {part}"),
            _ => line += &format!(" {part}"),
        }
    }
    // The usage block names the subcommand; point at its help instead of repeating it.
    let usage = rendered.lines().find_map(|l| l.trim().strip_prefix("Usage: "));
    if let Some(usage) = usage {
        let command: Vec<&str> = usage.split_whitespace().take_while(|w| !w.starts_with(['[', '<', '-'])).collect();
        line += &format!(" (see `{} --help`)", command.join(" "));
    }
    line
}

fn main() -> ExitCode {
    // Ctrl-C still ends memwall at once (exit 130, as the shell reports a SIGINT), but first
    // removes the temporary file of any write in progress (finished outputs are never partial)
    // and kills a server `sensitivity` started (it runs in a process group of its own).
    let _ = ctrlc::set_handler(|| {
        if STOP_CLEANLY.load(Ordering::SeqCst) && !INTERRUPTED.swap(true, Ordering::SeqCst) {
            return;
        }
        output::remove_files_in_progress();
        sensitivity_server::kill_running();
        std::process::exit(130);
    });
    let cli = match parse_args() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // Timings taken under emulation describe the emulator: say so before measuring anything.
    if !matches!(
        cli.command,
        Command::Serve(_) | Command::Explain(_) | Command::Fleet(_) | Command::Cloud(_) | Command::Generate(_)
    ) {
        emulation::warn_if_emulated();
    }
    let result = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::Info(args) => run_cmd::info(args),
        Command::Ladder(args) => ladder_cmd::ladder(args),
        Command::Bandwidth(args) => bandwidth_cmd::bandwidth(args),
        Command::Groupby(args) => groupby_cmd::groupby(args),
        Command::Join(args) => join_cmd::join(args),
        Command::Sweep(args) => sweep_cmd::sweep(args),
        Command::Generate(args) => generate_cmd::generate(args),
        Command::Explain(args) => explain_cmd::explain(args),
        Command::Fleet(args) => fleet_cmd::fleet(args),
        Command::Cloud(args) => cloud_cmd::cloud(args),
        Command::Cores(args) => cores_cmd::cores(args),
        Command::Watch(args) => watch_cmd::watch(args),
        Command::Sensitivity(args) => sensitivity_cmd::sensitivity(args),
        Command::Serve(args) => serve::serve(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("memwall: error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_become_one_line_with_their_tips() {
        let rendered = "error: unexpected argument '--ruuns' found\n\n  tip: a similar argument exists: '--runs'\n\n\
                        Usage: memwall ladder --runs <RUNS>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line_clap_error(rendered),
            "unexpected argument '--ruuns' found; tip: a similar argument exists: '--runs' (see `memwall ladder --help`)"
        );
        let missing = "error: the following required arguments were not provided:\n  --keys <KEYS>\n\n\
                       Usage: memwall groupby --rows <ROWS> --keys <KEYS>\n";
        assert_eq!(
            one_line_clap_error(missing),
            "the following required arguments were not provided: --keys <KEYS> (see `memwall groupby --help`)"
        );
        let err = Cli::try_parse_from(["memwall", "ladder", "--min", "lots"]).unwrap_err();
        let line = one_line_clap_error(&err.render().to_string());
        assert!(line.starts_with("invalid value 'lots' for '--min <MIN>'") && !line.contains('\n'), "{line}");
    }
}
