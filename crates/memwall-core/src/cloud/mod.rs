//! The cloud shelf: latency curves of cloud instance types measured by Spare Cores
//! (`data/cloud/shelf.json`, CC BY-SA 4.0), turned into reports and read by the same reader as
//! any report, so their levels follow the reader as it improves. Each type becomes a fleet row
//! ([`ShelfHost::row`]) that `memwall cloud`, `memwall fleet --shelf` and the page's Cloud tab
//! list, filter and sort as they do a fleet's own; [`near`] ranks the types by how close their
//! curves are to a report's, [`pairs`] sets a CPU's VM types beside its bare-metal type.
//!
//! The file is read from text: the native binary carries it built in ([`SHELF_JSON`]), the page
//! fetches it when its tab opens.

pub mod near;
pub mod pairs;
pub mod table;

use memwall_report::fleet::{FleetRow, ShelfFacts};
use memwall_report::shelf::{Shelf, ShelfEntry, ShelfError};
use memwall_report::{Bandwidth, BandwidthPoint, Cache, Host, Ladder, LadderPoint, Report, Source, Summary, Tool};

use crate::ladder::Pattern;

/// The shelf as this build carries it. 1.9 MB of text in the native binary; the page fetches
/// the same file instead (`cloud/shelf.json` beside it, copied there by trunk).
#[cfg(not(target_arch = "wasm32"))]
pub const SHELF_JSON: &str = include_str!("../../../../data/cloud/shelf.json");

/// How a shelf curve was measured, in the words every figure of it carries: a random chase over
/// 16-byte nodes, on huge pages where the host granted them (see `data/cloud/LICENSE.md`).
pub const SHELF_PATTERN: &str = "random over 16-byte nodes, on huge pages where granted";

/// One instance type of the shelf: what was measured, and the same as a report for the reader.
#[derive(Debug, Clone, PartialEq)]
pub struct ShelfHost {
    pub entry: ShelfEntry,
    /// The entry as a report: its curve the ladder's one curve (random on THP), its declared
    /// caches the host's, its all-thread reads the bandwidth. Not read yet: `explain::reread`
    /// (or [`ShelfHost::row`]) gives its levels.
    pub report: Report,
}

/// A shelf file loaded: where it came from (its `hosts` moved into `hosts` here).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedShelf {
    pub shelf: Shelf,
    pub hosts: Vec<ShelfHost>,
}

/// Reads a shelf file (as `scripts/cloud-shelf.py` writes it) into one report per instance type.
pub fn shelf_reports(json: &str) -> Result<LoadedShelf, ShelfError> {
    let mut shelf = Shelf::from_json(json)?;
    let hosts = std::mem::take(&mut shelf.hosts).into_iter().map(ShelfHost::new).collect();
    Ok(LoadedShelf { shelf, hosts })
}

/// Reads a shelf file all the way to its rows: levels read from every curve.
pub fn shelf_rows(json: &str) -> Result<(LoadedShelf, Vec<FleetRow>), ShelfError> {
    let loaded = shelf_reports(json)?;
    let rows = loaded.hosts.iter().map(ShelfHost::row).collect();
    Ok((loaded, rows))
}

impl ShelfHost {
    pub fn new(entry: ShelfEntry) -> Self {
        let report = report(&entry);
        Self { entry, report }
    }

    /// Who sells it and who measured it how, as its row carries it.
    pub fn facts(&self) -> ShelfFacts {
        let e = &self.entry;
        ShelfFacts {
            provider: e.provider.clone(),
            arch: e.arch.clone(),
            metal: e.metal,
            measured_by: format!("{}, {SHELF_PATTERN}, {}", e.tool, e.measured),
        }
    }

    /// "aws m9g.large": how rows and messages name the type.
    pub fn name(&self) -> String {
        format!("{} {}", self.entry.provider, self.entry.instance_type)
    }

    /// The type's fleet row, its levels read by the current reader. The version column says
    /// which memwall read them (the measuring tool is in `shelf.measured_by`).
    pub fn row(&self) -> FleetRow {
        let mut row = crate::fleet::row(self.report.clone(), &format!("shelf: {}", self.name()));
        row.memwall_version = Tool::memwall().version;
        row.shelf = Some(self.facts());
        row
    }
}

/// Bare metal is `none`, as memwall's own reports name it; a VM names its hypervisor; an Arm type
/// whose `lscpu` says neither stays unknown.
fn hypervisor(entry: &ShelfEntry) -> Option<String> {
    match entry.metal {
        Some(true) => Some("none".into()),
        Some(false) => entry.hypervisor.clone().or_else(|| Some("a hypervisor".into())),
        None => None,
    }
}

/// A shelf curve's point: the median of its samples is all the file keeps, so it stands for
/// every figure of the summary.
fn point(bytes: u64, ns: f64) -> LadderPoint {
    LadderPoint {
        bytes,
        ns_per_load: Summary { min: ns, median: ns, p90: ns, max: ns },
        cycles_per_load: None,
        ghz: None,
        clock_moved: false,
        loads_per_sample: 0,
        samples: 1,
        samples_ns_per_load: vec![],
        attempts: 1,
        visits_ns_per_load: Vec::new(),
        huge_page_bytes: None,
    }
}

/// The entry as a report of its own. Its curve is random on THP: sc-membench chases one random
/// order over the whole buffer on huge pages where granted (explicit, else THP), which is what
/// memwall's `random` on `thp` measures; its 16-byte nodes put four on a line, so the smallest
/// sizes read a little faster than a line-per-hop chase would.
fn report(entry: &ShelfEntry) -> Report {
    let host = Host {
        name: Some(entry.instance_type.clone()),
        cpu_model: Some(entry.cpu.clone()).filter(|c| !c.is_empty()),
        logical_cpus: Some(entry.vcpus).filter(|&n| n > 0),
        caches: entry
            .caches
            .iter()
            .map(|(level, kind, bytes, shared)| Cache {
                level: *level,
                kind: kind.clone(),
                size_bytes: *bytes,
                line_bytes: None,
                shared_by_cpus: *shared,
            })
            .collect(),
        hypervisor: hypervisor(entry),
        ..Host::default()
    };
    let mut report = Report::new(Source::Native, entry.measured_unix_s().unwrap_or(0), host);
    report.tool = Tool { name: "sc-membench".into(), version: entry.tool.trim_start_matches("sc-membench ").into() };
    let points = entry.latency.iter().map(|&(bytes, ns)| point(bytes, ns)).collect();
    report.ladder = Some(Ladder {
        pinned_cpu: Some(0),
        cycles_unavailable: Some(format!("{} measured no core clock", entry.tool)),
        ..Ladder::new(Pattern::Random.name(), "thp", 16, 0, 1e8, points)
    });
    report.bandwidth = bandwidth(entry);
    report
}

/// The all-thread streaming runs as a bandwidth section (MB/s to GB/s); `None` without reads.
fn bandwidth(entry: &ShelfEntry) -> Option<Bandwidth> {
    let b = &entry.bandwidth;
    let at = |points: &[(u64, f64, u32)], bytes: u64, threads: u32| {
        points.iter().find(|p| p.0 == bytes && p.2 == threads).map_or(0.0, |p| p.1 / 1000.0)
    };
    let points: Vec<BandwidthPoint> = b
        .read
        .iter()
        .map(|&(bytes, mb_s, threads)| BandwidthPoint {
            bytes,
            threads,
            read_gb_per_s: mb_s / 1000.0,
            write_gb_per_s: at(&b.write, bytes, threads),
            copy_gb_per_s: at(&b.copy, bytes, threads),
            memcpy_gb_per_s: None,
        })
        .collect();
    (!points.is_empty()).then_some(Bandwidth { points, loaded_latency: vec![] })
}

#[cfg(test)]
mod tests;
