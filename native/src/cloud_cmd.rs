//! `memwall cloud`: the cloud shelf (1,798 instance types measured by Spare Cores, CC BY-SA 4.0)
//! listed, filtered and sorted as `memwall fleet` lists reports; `--near` ranks the types by how
//! close their curves are to a report's, `--pairs` sets each CPU's VM types beside its metal type.
//! The reading, the distance and the pairs are `memwall_core::cloud`'s.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use memwall_core::cloud::near::{Near, near};
use memwall_core::cloud::pairs::{PAIR_HEADER, PAIR_NOTE, Pair, pair_lines, pairs};
use memwall_core::cloud::table::{CLOUD_NOTE, CLOUD_TABLE};
use memwall_core::cloud::{self, LoadedShelf};
use memwall_core::fleet::{self, Filter};
use memwall_report::fleet::FleetRow;
use memwall_report::shelf::{CloudListing, NearListing, PairListing};

use crate::error::{CliError, CliResult};
use crate::output::{self, Table};

#[derive(Debug, Args)]
pub struct CloudArgs {
    /// Keep the types matching TERM, in `memwall fleet --filter`'s language: COLUMN=TEXT, or
    /// COLUMN<, <=, >, >= a number or a size, e.g. --filter 'fast>=32MiB' --filter 'dram<=100'
    /// --filter arch=aarch64 (see `memwall fleet --columns`); repeat to require all.
    #[arg(long, value_name = "TERM")]
    pub filter: Vec<String>,
    /// Sort by this column (e.g. dram, fast, fast_ns, vcpus); numbers ascending, types without
    /// the figure last.
    #[arg(long, value_name = "COLUMN")]
    pub sort: Option<String>,
    /// Sort descending.
    #[arg(long, requires = "sort")]
    pub desc: bool,
    /// Rank the types by how close their latency curves are to this report's (`memwall run`'s,
    /// or one the page saved): the RMS of log-latency differences at each type's sizes.
    #[arg(long, value_name = "REPORT.json", conflicts_with = "pairs")]
    pub near: Option<PathBuf>,
    /// Each CPU model's VM types against its bare-metal type, within one provider: what the VM
    /// hides of the same chip.
    #[arg(long)]
    pub pairs: bool,
    /// Show at most N types (default: every one; 5 with --near).
    #[arg(long, value_name = "N", conflicts_with = "pairs")]
    pub limit: Option<usize>,
    /// Read this shelf file (as scripts/cloud-shelf.py writes it) instead of the one built in.
    #[arg(long, value_name = "FILE.json")]
    pub shelf: Option<PathBuf>,
    /// --json writes the rows (and distances or pairs) with the attribution; --csv every field.
    #[command(flatten)]
    pub export: output::ExportArgs,
}

/// The shelf named by `--shelf`, else the one built in, read to its rows.
fn load(path: Option<&std::path::Path>) -> CliResult<(LoadedShelf, Vec<FleetRow>)> {
    let text = match path {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| CliError::usage(format!("--shelf {}: cannot be read ({e})", path.display())))?,
        None => cloud::SHELF_JSON.to_string(),
    };
    cloud::shelf_rows(&text).map_err(|e| match path {
        Some(path) => CliError::usage(format!("--shelf {}: {e}", path.display())),
        None => CliError::runtime(format!("the built-in shelf: {e}")),
    })
}

pub fn cloud(args: CloudArgs) -> CliResult {
    args.export.check()?;
    let usage = |flag: &'static str| move |e: fleet::FleetError| CliError::usage(format!("--{flag}: {e}"));
    let sort = args.sort.as_deref().map(fleet::column).transpose().map_err(usage("sort"))?;
    let filters: Vec<Filter> =
        args.filter.iter().map(|t| Filter::parse(t)).collect::<Result<_, _>>().map_err(usage("filter"))?;
    let report = args
        .near
        .as_deref()
        .map(|path| output::read_report(path).map_err(|e| e.context(&format!("--near {}", path.display()))))
        .transpose()?;
    let (loaded, rows) = load(args.shelf.as_deref())?;
    let kept: Vec<usize> = (0..rows.len()).filter(|&i| filters.iter().all(|f| f.keeps(&rows[i]))).collect();
    let mut out = args.export.human();
    let attribution = loaded.shelf.attribution();
    let mut listing = CloudListing {
        schema_version: memwall_report::SCHEMA_VERSION,
        attribution: attribution.clone(),
        rows: vec![],
        near: None,
        pairs: vec![],
    };
    let table = if let (Some(report), Some(path)) = (&report, &args.near) {
        let kept_hosts: Vec<_> = kept.iter().map(|&i| loaded.hosts[i].clone()).collect();
        let placed =
            near(report, &kept_hosts).map_err(|e| CliError::usage(format!("--near {}: {e}", path.display())))?;
        let name = path.display().to_string();
        print_own(&mut *out, &name, report, &placed);
        let shown: Vec<usize> = placed.ranked.iter().take(args.limit.unwrap_or(5)).map(|n| n.index).collect();
        listing.rows = shown.iter().map(|&i| rows[kept[i]].clone()).collect();
        listing.near = Some(near_listing(&name, &placed, shown.len()));
        near_table(&placed, &listing.rows)
    } else if args.pairs {
        let found = kept_pairs(&pairs(&loaded.hosts), &kept);
        writeln!(out, "{} pairs: CPU models a provider sells both as bare metal and as VMs", found.len()).ok();
        listing.pairs = found.iter().map(|p| pair_listing(p, &rows)).collect();
        listing.rows = found.iter().flat_map(|p| p.metal.iter().chain(&p.vms)).map(|&i| rows[i].clone()).collect();
        pairs_table(&found, &rows)
    } else {
        let mut shown: Vec<FleetRow> = kept.iter().map(|&i| rows[i].clone()).collect();
        if let Some(column) = sort {
            fleet::sort(&mut shown, column, args.desc);
        }
        shown.truncate(args.limit.unwrap_or(usize::MAX));
        listing.rows = shown;
        list_table(&listing.rows)
    };
    let mut table = table;
    table.notes.push(attribution.clone());
    write!(out, "{}", table.text()).ok();
    if rows.len() > kept.len() {
        writeln!(out, "{} of {} types kept by --filter", kept.len(), rows.len()).ok();
    }
    writeln!(out, "{CLOUD_NOTE}\n{attribution}").ok();
    if let Some(destination) = &args.export.csv {
        output::write_text(destination, &memwall_report::fleet_csv(&listing.rows))?;
    }
    if let Some(destination) = &args.export.markdown {
        output::write_text(destination, &table.markdown())?;
    }
    if let Some(destination) = &args.export.json {
        let text = serde_json::to_string_pretty(&listing).map_err(|e| CliError::runtime(e.to_string()))?;
        output::write_text(destination, &(text + "\n"))?;
    }
    Ok(())
}

/// What was compared, the report's own figures as the shelf's are read, and any caution.
fn print_own(out: &mut dyn Write, name: &str, report: &memwall_report::Report, placed: &Near) {
    let own = fleet::row(report.clone(), name);
    let bytes = |b: Option<u64>| b.map_or("-".into(), memwall_core::size::format_bytes);
    let ns = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1} ns"));
    writeln!(out, "{}", placed.describe(name)).ok();
    writeln!(
        out,
        "{name}: fast to {} ({}), DRAM {}, as memwall reads it",
        bytes(own.effective_llc_bytes),
        ns(own.effective_llc_ns),
        ns(own.dram_ns)
    )
    .ok();
    if let Some(caution) = &placed.compared.caution {
        writeln!(out, "caution: {caution}").ok();
    }
    if placed.left_out > 0 {
        writeln!(
            out,
            "{} types not ranked: fewer than 3 of their sizes fall within the report's curve",
            placed.left_out
        )
        .ok();
    }
    writeln!(out).ok();
}

fn near_listing(name: &str, placed: &Near, shown: usize) -> NearListing {
    NearListing {
        report: name.to_owned(),
        curve: placed.compared.label.clone(),
        caution: placed.compared.caution.clone(),
        distances: placed.ranked.iter().take(shown).map(|n| n.distance).collect(),
        sizes_compared: placed.ranked.iter().take(shown).map(|n| n.sizes).collect(),
    }
}

/// The shelf's columns for `rows`.
fn cells(row: &FleetRow) -> Vec<String> {
    CLOUD_TABLE.iter().map(|c| (c.text)(row)).collect()
}

fn headers() -> impl Iterator<Item = &'static str> {
    CLOUD_TABLE.iter().map(|c| c.header)
}

fn list_table(rows: &[FleetRow]) -> Table {
    Table { header: headers().collect(), rows: rows.iter().map(cells).collect(), notes: vec![CLOUD_NOTE.into()] }
}

fn near_table(placed: &Near, rows: &[FleetRow]) -> Table {
    let ranked = placed.ranked.iter().zip(rows).enumerate().map(|(rank, (n, row))| {
        let apart = format!("{:.0}%", (n.distance.exp() - 1.0) * 100.0);
        [vec![(rank + 1).to_string(), format!("{:.3}", n.distance), apart, n.sizes.to_string()], cells(row)].concat()
    });
    let note = "distance: the RMS of log-latency differences at the type's sizes (~apart: e^distance - 1); sizes: \
                how many of them fell within the report's curve";
    Table {
        header: ["rank", "distance", "~apart", "sizes"].into_iter().chain(headers()).collect(),
        rows: ranked.collect(),
        notes: vec![note.into(), CLOUD_NOTE.into()],
    }
}

/// The pairs whose provider's rows the filters keep, each side cut to the rows kept.
fn kept_pairs(found: &[Pair], kept: &[usize]) -> Vec<Pair> {
    let keep = |side: &[usize]| side.iter().copied().filter(|i| kept.binary_search(i).is_ok()).collect::<Vec<_>>();
    found
        .iter()
        .map(|p| Pair { metal: keep(&p.metal), vms: keep(&p.vms), ..p.clone() })
        .filter(|p| !p.metal.is_empty() && !p.vms.is_empty())
        .collect()
}

fn pair_listing(pair: &Pair, rows: &[FleetRow]) -> PairListing {
    let names = |side: &[usize]| side.iter().map(|&i| rows[i].host.clone()).collect();
    PairListing {
        provider: pair.provider.clone(),
        model: pair.model.clone(),
        metal: names(&pair.metal),
        vms: names(&pair.vms),
    }
}

fn pairs_table(found: &[Pair], rows: &[FleetRow]) -> Table {
    let lines = found.iter().flat_map(|p| pair_lines(p, |i| &rows[i])).map(|(_, cells)| cells).collect();
    Table { header: PAIR_HEADER.to_vec(), rows: lines, notes: vec![PAIR_NOTE.into(), CLOUD_NOTE.into()] }
}
