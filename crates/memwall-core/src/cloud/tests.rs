use memwall_report::shelf::{ShelfBandwidth, ShelfEntry};
use memwall_report::{Cause, Report};

use super::near::near;
use super::pairs::pairs;
use super::*;

/// An entry with this curve and nothing else of note.
fn entry(provider: &str, instance_type: &str, cpu: &str, metal: Option<bool>, latency: Vec<(u64, f64)>) -> ShelfEntry {
    ShelfEntry {
        provider: provider.into(),
        instance_type: instance_type.into(),
        cpu: cpu.into(),
        arch: "x86_64".into(),
        vcpus: 2,
        metal,
        hypervisor: (metal == Some(false)).then(|| "KVM".into()),
        measured: "2026-04-04".into(),
        tool: "sc-membench 1.2.2".into(),
        caches: vec![
            (1, "Data".into(), 32 << 10, Some(2)),
            (2, "Unified".into(), 1 << 20, Some(2)),
            (3, "Unified".into(), 32 << 20, Some(16)),
        ],
        latency,
        bandwidth: ShelfBandwidth { read: vec![(128 << 20, 35_519.0, 8)], ..Default::default() },
    }
}

/// A Xeon-like curve: L1, L2 and L3 treads, DRAM from 64 MiB.
fn curve(scale: f64) -> Vec<(u64, f64)> {
    [
        (16 << 10, 1.2),
        (64 << 10, 3.2),
        (512 << 10, 5.8),
        (1 << 20, 8.5),
        (2 << 20, 17.4),
        (8 << 20, 20.6),
        (16 << 20, 21.4),
        (32 << 20, 37.5),
        (64 << 20, 93.6),
        (128 << 20, 118.6),
    ]
    .into_iter()
    .map(|(b, ns)| (b, ns * scale))
    .collect()
}

/// The report whose curve is `curve(1.0)`: a host of one's own, random on THP.
fn own() -> Report {
    let host = ShelfHost::new(entry("mine", "host", "cpu", Some(false), curve(1.0)));
    host.report
}

#[test]
fn an_entry_becomes_a_report_of_random_on_thp_and_a_row_that_names_who_measured_it() {
    let host = ShelfHost::new(entry(
        "alicloud",
        "ecs.c4.2xlarge",
        "Intel(R) Xeon(R) Platinum 8369HB",
        Some(false),
        curve(1.0),
    ));
    let ladder = host.report.ladder.as_ref().unwrap();
    assert_eq!((ladder.pattern.as_str(), ladder.huge_pages.as_str(), ladder.points.len()), ("random-cycle", "thp", 10));
    assert_eq!(host.report.host.caches[2].size_bytes, 32 << 20);
    assert_eq!(host.report.host.hypervisor.as_deref(), Some("KVM"));
    assert_eq!(host.report.created_unix_s, 1_775_260_800, "2026-04-04");
    let row = host.row();
    assert_eq!((row.host.as_str(), row.report.as_str()), ("ecs.c4.2xlarge", "shelf: alicloud ecs.c4.2xlarge"));
    let facts = row.shelf.as_ref().unwrap();
    assert_eq!(facts.measured_by, format!("sc-membench 1.2.2, {SHELF_PATTERN}, 2026-04-04"));
    assert!((row.read_gb_per_s_all_threads.unwrap() - 35.519).abs() < 1e-9);
    assert_eq!(row.read_threads, Some(8));
    // The row's figures are the reader's: DRAM where it read one, the last cache before it.
    let mut read = host.report.clone();
    crate::explain::reread(&mut read);
    let levels = &read.ladder.as_ref().unwrap().levels;
    let dram = levels.iter().find(|l| l.cause == Cause::Dram);
    let last_cache = levels
        .iter()
        .rev()
        .find(|l| l.cause == Cause::Cache && dram.is_none_or(|d| l.size_bytes < d.size_bytes))
        .expect("the curve starts in a cache");
    assert_eq!(row.dram_ns, dram.map(|d| d.ns_per_load));
    assert_eq!(
        (row.effective_llc_bytes, row.effective_llc_ns),
        (Some(last_cache.size_bytes), Some(last_cache.ns_per_load))
    );
}

#[test]
fn metal_vm_and_not_said_are_kept_apart() {
    let of = |metal| ShelfHost::new(entry("aws", "t", "c", metal, curve(1.0))).report.host.hypervisor;
    assert_eq!(of(Some(true)).as_deref(), Some("none"));
    assert_eq!(of(Some(false)).as_deref(), Some("KVM"));
    assert_eq!(of(None), None);
}

#[test]
fn a_shelf_curve_scaled_by_one_point_one_ranks_nearer_than_one_scaled_by_one_point_five() {
    let hosts: Vec<ShelfHost> = [("far", 1.5), ("near", 1.1), ("short", 1.0)]
        .into_iter()
        .map(|(name, k)| {
            let mut latency = curve(k);
            if name == "short" {
                // Two sizes within the report's curve: too few to rank.
                latency = vec![(8 << 10, 1.0), (16 << 10, 1.2), (128 << 20, 118.6), (1 << 30, 130.0)];
            }
            ShelfHost::new(entry("aws", name, "c", Some(false), latency))
        })
        .collect();
    let placed = near(&own(), &hosts).unwrap();
    let names: Vec<&str> = placed.ranked.iter().map(|n| hosts[n.index].entry.instance_type.as_str()).collect();
    assert_eq!(names, ["near", "far"]);
    assert!((placed.ranked[0].distance - 1.1f64.ln()).abs() < 1e-9);
    assert!((placed.ranked[1].distance - 1.5f64.ln()).abs() < 1e-9);
    assert_eq!((placed.ranked[0].sizes, placed.left_out), (10, 1));
    assert_eq!(placed.compared.label, "random on THP");
    assert!(placed.describe("mine.json").starts_with("compared: mine.json's random on THP curve (16 KiB to 128 MiB)"));
}

#[test]
fn pairs_set_a_providers_metal_type_beside_its_vms_of_the_same_model() {
    let xeon = "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz";
    let hosts: Vec<ShelfHost> = [
        entry("gcp", "c3-standard-4", xeon, Some(false), curve(1.0)),
        entry("gcp", "c3-standard-192-metal", "Intel(R) Xeon(R) Platinum 8481C", Some(true), curve(0.9)),
        entry("aws", "other-vm", xeon, Some(false), curve(1.0)),
        entry("gcp", "n2-standard-2", "Intel(R) Xeon(R) CPU @ 2.80GHz", Some(false), curve(1.0)),
    ]
    .into_iter()
    .map(ShelfHost::new)
    .collect();
    let found = pairs(&hosts);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].provider.as_str(), found[0].metal.as_slice(), found[0].vms.as_slice()),
        ("gcp", &[1][..], &[0][..])
    );
    let mut rows: Vec<_> = hosts.iter().map(ShelfHost::row).collect();
    (rows[0].dram_ns, rows[0].effective_llc_bytes) = (Some(110.0), Some(16 << 20));
    (rows[1].dram_ns, rows[1].effective_llc_bytes) = (Some(100.0), Some(64 << 20));
    assert_eq!(pairs::against_metal(&rows[0], &rows[1]), "fast 25%, DRAM +10%");
    rows[1].dram_ns = None;
    assert_eq!(pairs::against_metal(&rows[0], &rows[1]), "fast 25%, DRAM -");
}

/// The shelf as kept: every entry loads and reads, and the AWS pairs of one silicon are found.
/// (Native only: the wasm build carries no shelf; the page's end-to-end test reads it in wasm.)
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_shelf_kept_in_the_repo_loads_and_reads() {
    let (loaded, rows) = shelf_rows(SHELF_JSON).unwrap();
    assert_eq!(loaded.hosts.len(), 1798);
    assert!(loaded.shelf.attribution().contains("CC BY-SA 4.0"));
    let with_dram = rows.iter().filter(|r| r.dram_ns.is_some()).count();
    let with_fast = rows.iter().filter(|r| r.effective_llc_bytes.is_some()).count();
    eprintln!("shelf: {} types, DRAM read in {with_dram}, a fast working set in {with_fast}", rows.len());
    let found = pairs(&loaded.hosts);
    let named = |p: &pairs::Pair, metal: &str| {
        p.provider == "aws" && p.metal.iter().any(|&i| loaded.hosts[i].entry.instance_type == metal)
    };
    assert!(found.iter().any(|p| named(p, "m9g.metal-48xl")), "{found:?}");
    assert!(found.iter().any(|p| named(p, "x8i.metal-48xl")), "{found:?}");
}
