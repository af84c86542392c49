//! `memwall`: measure the memory wall of this host at full precision.

mod arena;
mod bandwidth_cmd;
mod counters;
mod generate_cmd;
mod groupby_cmd;
mod host;
mod input;
mod ladder_cmd;
mod output;
mod platform;
mod run_cmd;
mod serve;
mod sweep_cmd;
mod threads;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// See where the caches, the TLB and DRAM really are on this host, and what it costs a GROUP BY.
///
/// Start with `memwall run`: it describes the host, measures the latency ladder, races the GROUP
/// BY kernels and writes memwall-report.json, which the web front end opens (`memwall serve`).
#[derive(Debug, Parser)]
#[command(name = "memwall", version, propagate_version = true, max_term_width = 100)]
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
    Ladder(ladder_cmd::LadderArgs),
    /// Streaming read, write and copy bandwidth in GB/s per working set, against memcpy.
    Bandwidth(bandwidth_cmd::BandwidthArgs),
    /// Race GROUP BY kernels (count(*) per key) over generated or real keys.
    Groupby(groupby_cmd::GroupByArgs),
    /// Sweep GROUP BY kernels over distinct keys or partition counts.
    Sweep(sweep_cmd::SweepArgs),
    /// Write generated keys (same flags as groupby's) to FILE.parquet or FILE.bin for other engines.
    Generate(generate_cmd::GenerateArgs),
    /// Serve the web front end (trunk's dist/) and the given reports on 127.0.0.1.
    Serve(serve::ServeArgs),
}

/// A failure to report in one line. Bad input exits 2 (as clap does for bad flags); a failure
/// of the host or the file system exits 1.
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2 }
    }
    pub fn runtime(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 1 }
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_cmd::run(args),
        Command::Info(args) => run_cmd::info(args),
        Command::Ladder(args) => ladder_cmd::ladder(args),
        Command::Bandwidth(args) => bandwidth_cmd::bandwidth(args),
        Command::Groupby(args) => groupby_cmd::groupby(args),
        Command::Sweep(args) => sweep_cmd::sweep(args),
        Command::Generate(args) => generate_cmd::generate(args),
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
