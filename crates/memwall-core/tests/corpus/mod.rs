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
