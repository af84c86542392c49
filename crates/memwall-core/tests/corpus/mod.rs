//! The hosts whose ladders the reading must get right: reports this project measured, curves kept
//! from hosts measured before, and curves built from published figures (see the JSON files here,
//! each host with where its figures come from and what a right reading says). Natively and in
//! the browser alike (`tests/corpus_hosts.rs`, `tests/wasm_explain.rs`): the page reads with the
//! same code.
#![allow(dead_code)]

use memwall_core::explain;
use memwall_core::fixtures::{ladder, point};
use memwall_core::ladder::ladder_sizes;
use memwall_report::{Cache, Cause, Curve, Host, Ladder, LadderPoint, Report, Source};
use serde_json::Value;

const MEASURED: &str = include_str!("measured.json");
const PUBLISHED: &str = include_str!("published.json");

/// The reports of `measured.json`, by file name: include_str! needs each path spelled out.
const REPORTS: [(&str, &str); 6] = [
    (
        "xeon-2vcpu-kvm-ladder-4curves.json",
        include_str!("../../../../examples/reports/xeon-2vcpu-kvm-ladder-4curves.json"),
    ),
    (
        "zen3-2vcpu-kvm-ladder-4curves.json",
        include_str!("../../../../examples/reports/zen3-2vcpu-kvm-ladder-4curves.json"),
    ),
    ("zen3-2vcpu-kvm-run.json", include_str!("../../../../examples/reports/zen3-2vcpu-kvm-run.json")),
    ("zen1-2vcpu-kvm-run-busy.json", include_str!("../../../../examples/reports/zen1-2vcpu-kvm-run-busy.json")),
    ("zen3-milan-2vcpu-kvm-run.json", include_str!("../../../../examples/reports/zen3-milan-2vcpu-kvm-run.json")),
    (
        "zen3-2vcpu-kvm-run-random-only.json",
        include_str!("../../../../examples/reports/zen3-2vcpu-kvm-run-random-only.json"),
    ),
];

/// What a right reading of a host says.
#[derive(Debug, Clone)]
pub struct Expect {
    /// The cache and DRAM levels, in order (TLB levels aside).
    pub levels: Vec<String>,
    /// L1's size: the reading's L1 must reach within one ladder step of it.
    pub l1_bytes: u64,
    /// The last cache's effective size: the reading's last cache must bracket it within a step.
    pub llc_bytes: u64,
    pub dram_ns: f64,
}

#[derive(Debug, Clone)]
pub struct CorpusHost {
    pub name: String,
    pub report: Report,
    pub expect: Expect,
}

fn expect(v: &Value) -> Expect {
    Expect {
        levels: v["levels"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect(),
        l1_bytes: v["l1_bytes"].as_u64().unwrap(),
        llc_bytes: v["llc_bytes"].as_u64().unwrap(),
        dram_ns: v["dram_ns"].as_f64().unwrap(),
    }
}

fn caches(v: &Value) -> Vec<Cache> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| Cache {
            level: c[0].as_u64().unwrap() as u8,
            kind: c[1].as_str().unwrap().into(),
            size_bytes: c[2].as_u64().unwrap(),
            line_bytes: Some(64),
            shared_by_cpus: None,
        })
        .collect()
}

fn report(name: &str, declared: Vec<Cache>, ladder: Ladder) -> Report {
    let mut report =
        Report::new(Source::Native, 0, Host { name: Some(name.into()), caches: declared, ..Host::default() });
    report.ladder = Some(ladder);
    report
}

/// Points at the default sizes from `ns` (fastest samples, 16 KiB up).
fn at_default_sizes(ns: &[f64]) -> Vec<LadderPoint> {
    let sizes = ladder_sizes(16 << 10, 1 << 40, 2).unwrap();
    sizes.into_iter().zip(ns).map(|(b, &ns)| point(b, ns)).collect()
}

/// A published host's curves from its model (see published.json's `about`).
fn modelled(host: &Value) -> Report {
    let levels: Vec<(Option<f64>, f64)> =
        host["levels"].as_array().unwrap().iter().map(|l| (l[0].as_f64(), l[1].as_f64().unwrap())).collect();
    let width = host["width_octaves"].as_f64().unwrap();
    let page = host["page_bytes"].as_f64().unwrap();
    let reach = host["tlb_reach_bytes"].as_f64().unwrap();
    let (walk_base, walk_refs) = (host["walk_base_ns"].as_f64().unwrap(), host["walk_refs"].as_f64().unwrap());
    let miss = |w: f64, c: f64| 1.0 / (1.0 + (-(w / c).log2() / width).exp());
    let hierarchy = |w: f64| {
        let (mut ns, mut reaching) = (0.0, 1.0);
        for &(capacity, latency) in &levels {
            let m = capacity.map_or(0.0, |c| miss(w, c));
            ns += reaching * (1.0 - m) * latency;
            reaching *= m;
        }
        ns
    };
    let random = |w: f64| hierarchy(w) + miss(w, reach) * (walk_base + walk_refs * hierarchy(w * 8.0 / page));
    // A quiet host's few percent of noise, seeded: the reading must not need perfect curves.
    let mut rng = fastrand::Rng::with_seed(host["name"].as_str().unwrap().len() as u64);
    let sizes = ladder_sizes(16 << 10, host["max_bytes"].as_u64().unwrap(), 2).unwrap();
    let mut curve = |f: &dyn Fn(f64) -> f64| -> Vec<LadderPoint> {
        sizes.iter().map(|&b| point(b, f(b as f64) * (1.0 + rng.f64() * 0.04))).collect()
    };
    let main_pages = host["main_pages"].as_str().unwrap_or("off");
    let main = curve(&random);
    let others = if host["page_local"].as_bool().unwrap() {
        vec![Curve {
            pattern: "page-local".into(),
            huge_pages: main_pages.into(),
            chains: 1,
            points: curve(&hierarchy),
        }]
    } else {
        vec![]
    };
    report(host["name"].as_str().unwrap(), caches(&host["declared"]), ladder("random-cycle", main_pages, main, others))
}

/// Every host of the corpus.
pub fn hosts() -> Vec<CorpusHost> {
    let measured: Value = serde_json::from_str(MEASURED).unwrap();
    let published: Value = serde_json::from_str(PUBLISHED).unwrap();
    let mut out = Vec::new();
    for entry in measured["reports"].as_array().unwrap() {
        let file = entry["file"].as_str().unwrap();
        let text = REPORTS.iter().find(|(name, _)| *name == file).unwrap_or_else(|| panic!("{file} not included")).1;
        out.push(CorpusHost {
            name: entry["name"].as_str().unwrap().into(),
            report: Report::from_untrusted_json(text).unwrap(),
            expect: expect(&entry["expect"]),
        });
    }
    for entry in measured["curves"].as_array().unwrap() {
        let random = at_default_sizes(&serde_json::from_value::<Vec<f64>>(entry["random"].clone()).unwrap());
        let others: Vec<Curve> = entry
            .get("page_local")
            .map(|ns| Curve {
                pattern: "page-local".into(),
                huge_pages: "off".into(),
                chains: 1,
                points: at_default_sizes(&serde_json::from_value::<Vec<f64>>(ns.clone()).unwrap()),
            })
            .into_iter()
            .collect();
        let name = entry["name"].as_str().unwrap();
        // A browser's pages are the allocator's.
        let pages = if entry["declared"].as_array().unwrap().is_empty() { "default" } else { "off" };
        out.push(CorpusHost {
            name: name.into(),
            report: report(name, caches(&entry["declared"]), ladder("random-cycle", pages, random, others)),
            expect: expect(&entry["expect"]),
        });
    }
    for host in published["hosts"].as_array().unwrap() {
        out.push(CorpusHost {
            name: host["name"].as_str().unwrap().into(),
            report: modelled(host),
            expect: expect(&host["expect"]),
        });
    }
    out
}

/// What is wrong with the current reading of `host`, if anything.
pub fn misread(host: &CorpusHost) -> Option<String> {
    let mut report = host.report.clone();
    explain::reread(&mut report);
    let ladder = report.ladder.as_ref().unwrap();
    let levels: Vec<&memwall_report::Level> = ladder.levels.iter().filter(|l| l.cause != Cause::Tlb).collect();
    let names: Vec<&str> = levels.iter().map(|l| l.name.as_str()).collect();
    let why = |what: String| {
        Some(format!("{}: {what}\n  levels: {:?}\n  verdict: {:#?}", host.name, ladder.levels, ladder.verdict))
    };
    if names != host.expect.levels {
        return why(format!("levels {names:?}, expected {:?}", host.expect.levels));
    }
    // One ladder step is at most 1.5x at two sizes per octave.
    let step = 1.5 * 1.001;
    // A cache level reads alike up to its `size_bytes` and has run out by its `capacity_bytes`:
    // the true size must lie between them, give or take a step.
    let brackets = |level: &memwall_report::Level, truth: u64| {
        let reaches = level.capacity_bytes.unwrap_or(level.size_bytes) as f64;
        level.size_bytes as f64 <= truth as f64 * step && reaches * step >= truth as f64
    };
    let l1 = levels[0];
    if !brackets(l1, host.expect.l1_bytes) {
        return why(format!("L1 reads {} to {:?} B, not {} B", l1.size_bytes, l1.capacity_bytes, host.expect.l1_bytes));
    }
    let dram = levels.iter().find(|l| l.cause == Cause::Dram);
    let llc = levels.iter().rev().find(|l| l.cause == Cause::Cache).unwrap();
    if !brackets(llc, host.expect.llc_bytes) {
        return why(format!(
            "the last cache reads {} to {:?} B, not within a step of {} B",
            llc.size_bytes, llc.capacity_bytes, host.expect.llc_bytes
        ));
    }
    let Some(dram) = dram else { return why("no DRAM".into()) };
    if (dram.ns_per_load / host.expect.dram_ns - 1.0).abs() > 0.15 {
        return why(format!("DRAM {} ns, not within 15% of {}", dram.ns_per_load, host.expect.dram_ns));
    }
    if levels.iter().any(|l| l.cause == Cause::Cache && l.size_bytes >= dram.size_bytes) {
        return why("DRAM below a cache".into());
    }
    None
}

/// The working-set sizes of the cloud curves (`data/cloud/shelf.json`) that most instance types
/// were measured at, in KiB: sc-membench picks 8-10 sizes around each host's caches.
pub const CLOUD_GRIDS_KIB: [&[u64]; 8] = [
    &[16, 64, 512, 1024, 2048, 8192, 16384, 32768, 65536, 131072],
    &[32, 128, 512, 1024, 2048, 8192, 16384, 32768, 65536, 131072],
    &[32, 128, 512, 1024, 2048, 16384, 32768, 65536, 131072, 262144],
    &[16, 64, 256, 512, 1024, 8192, 16384, 32768, 65536, 131072],
    &[32, 128, 1024, 2048, 4096, 65536, 131072, 262144, 524288, 1048576],
    &[32, 128, 256, 512, 1024, 4096, 8192, 16384, 32768, 65536],
    &[16, 64, 2048, 4096, 8192, 16384, 32768, 65536],
    &[16, 64, 256, 512, 1024, 4096, 8192, 16384, 32768, 65536],
];

/// `report` with every curve kept only at `sizes` (each one measured by the report), as a cloud
/// curve is sampled; `None` where the report lacks one of them.
pub fn subsampled(report: &Report, sizes: &[u64]) -> Option<Report> {
    let mut out = report.clone();
    let ladder = out.ladder.as_mut()?;
    let keep = |points: &mut Vec<LadderPoint>| -> Option<()> {
        let kept: Vec<LadderPoint> =
            sizes.iter().map(|&b| points.iter().find(|p| p.bytes == b).cloned()).collect::<Option<_>>()?;
        *points = kept;
        Some(())
    };
    keep(&mut ladder.points)?;
    for curve in &mut ladder.curves {
        keep(&mut curve.points)?;
    }
    Some(out)
}

/// Whether `host`'s dense ladder is like a cloud curve once sampled: its caches read from a
/// TLB-friendly curve (page-local, or random on huge pages, as sc-membench measures) with nothing
/// set aside as noise (a grid that keeps just a disturbed size cannot know it was one).
pub fn like_a_cloud_curve(host: &CorpusHost) -> bool {
    let mut full = host.report.clone();
    explain::reread(&mut full);
    let ladder = full.ladder.as_ref().unwrap();
    let tlb_friendly = ladder.huge_pages != "off" && ladder.huge_pages != "default"
        || ladder.curves.iter().any(|c| c.pattern == "page-local");
    tlb_friendly && !ladder.verdict.iter().any(|v| v.starts_with("set aside as noise"))
}

/// What differs between the full reading of `host` and its reading at each cloud grid that samples
/// every level the full one finds (at least one size inside each level, past the one before):
/// the same levels by name, DRAM within 20%, and the last cache's end on the same side of each
/// size of the grid.
pub fn subsampled_differs(host: &CorpusHost) -> Vec<String> {
    let mut full = host.report.clone();
    explain::reread(&mut full);
    let levels = |r: &Report| -> Vec<memwall_report::Level> {
        r.ladder.as_ref().unwrap().levels.iter().filter(|l| l.cause != Cause::Tlb).cloned().collect()
    };
    let full_levels = levels(&full);
    let names = |ls: &[memwall_report::Level]| ls.iter().map(|l| l.name.clone()).collect::<Vec<_>>();
    let mut out = Vec::new();
    for grid in CLOUD_GRIDS_KIB {
        let sizes: Vec<u64> = grid.iter().map(|k| k << 10).collect();
        let mut ranges = full_levels.iter().scan(0u64, |from, l| {
            let range = (*from, l.size_bytes);
            *from = l.size_bytes;
            Some((range, l.cause))
        });
        let samples_every_level = ranges.all(|((from, to), cause)| {
            cause == Cause::Dram && sizes.iter().any(|&b| b >= to) || sizes.iter().any(|&b| b > from && b <= to)
        });
        let Some(mut sparse) = subsampled(&host.report, &sizes).filter(|_| samples_every_level) else { continue };
        explain::reread(&mut sparse);
        let sparse_levels = levels(&sparse);
        let grid_name = format!("{grid:?} KiB");
        if names(&sparse_levels) != names(&full_levels) {
            out.push(format!(
                "{}: at {grid_name} {:?}, in full {:?}",
                host.name,
                names(&sparse_levels),
                names(&full_levels)
            ));
            continue;
        }
        let dram = |ls: &[memwall_report::Level]| ls.iter().find(|l| l.cause == Cause::Dram).map(|l| l.ns_per_load);
        if let (Some(s), Some(f)) = (dram(&sparse_levels), dram(&full_levels))
            && (s / f - 1.0).abs() > 0.2
        {
            out.push(format!("{}: at {grid_name} DRAM {s:.1} ns, in full {f:.1}", host.name));
        }
        let llc =
            |ls: &[memwall_report::Level]| ls.iter().rev().find(|l| l.cause == Cause::Cache).map(|l| l.size_bytes);
        if let (Some(s), Some(f)) = (llc(&sparse_levels), llc(&full_levels)) {
            // Between the grid's sizes around it: the sparse end can only be a size of the grid.
            let next = sizes.iter().copied().find(|&b| b > s).unwrap_or(u64::MAX);
            if f < s / 2 || f >= next {
                out.push(format!("{}: at {grid_name} the last cache ends at {s} B, in full at {f} B", host.name));
            }
        }
    }
    out
}
