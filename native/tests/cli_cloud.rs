//! `memwall cloud` on the shelf built in: listed, filtered, sorted and exported; ranked against
//! reports kept in the repository and against a constructed shelf; the VM/metal pairs; and bad
//! input refused in one line. `memwall fleet --shelf` adds the shelf's rows to a fleet's.

mod common;

use common::{assert_refused, memwall};
use memwall_report::shelf::CloudListing;

const REPORTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/reports");

fn report(name: &str) -> String {
    format!("{REPORTS}/{name}")
}

fn stdout(args: &[&str]) -> String {
    let out = memwall(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn listing(args: &[&str]) -> CloudListing {
    serde_json::from_str(&stdout(&[args, &["--json", "-"]].concat())).unwrap()
}

#[test]
fn filtered_and_sorted_as_the_fleet_is_with_the_attribution_on_every_export() {
    let args = ["cloud", "--filter", "fast>=32MiB", "--filter", "dram<=100", "--sort", "dram"];
    let markdown = stdout(&[&args[..], &["--markdown", "-"]].concat());
    assert!(markdown.starts_with("| type | provider | cpu |"), "{markdown}");
    assert!(markdown.contains("Spare Cores") && markdown.contains("CC BY-SA 4.0"), "{markdown}");
    let shown = listing(&args);
    assert!(!shown.rows.is_empty());
    assert!(shown.attribution.contains("sc-membench"));
    for row in &shown.rows {
        assert!(row.effective_llc_bytes.is_some_and(|b| b >= 32 << 20), "{row:?}");
        assert!(row.dram_ns.is_some_and(|ns| ns <= 100.0), "{row:?}");
        assert!(row.shelf.as_ref().unwrap().measured_by.starts_with("sc-membench "), "{row:?}");
    }
    let dram: Vec<f64> = shown.rows.iter().map(|r| r.dram_ns.unwrap()).collect();
    assert!(dram.windows(2).all(|w| w[0] <= w[1]), "{dram:?}");
    let arm = listing(&["cloud", "--filter", "arch=aarch64", "--limit", "3"]);
    assert_eq!(arm.rows.len(), 3);
    assert!(arm.rows.iter().all(|r| r.shelf.as_ref().unwrap().arch == "aarch64"));
    let csv = stdout(&["cloud", "--filter", "provider=hcloud", "--csv", "-"]);
    assert_eq!(csv.lines().count(), 1 + 14, "Hetzner's 14 types and the header: {csv}");
}

#[test]
fn near_a_kept_report_names_the_curve_compared_and_five_types_nearest_first() {
    let zen3 = report("zen3-2vcpu-kvm-run.json");
    let text = stdout(&["cloud", "--near", &zen3]);
    assert!(text.contains("page-local on THP curve"), "{text}");
    let near = listing(&["cloud", "--near", &zen3]);
    let ranked = near.near.unwrap();
    assert_eq!((near.rows.len(), ranked.distances.len(), ranked.curve.as_str()), (5, 5, "page-local on THP"));
    assert!(ranked.distances.windows(2).all(|w| w[0] <= w[1]), "{:?}", ranked.distances);
    assert_eq!(ranked.caution, None);
    // A run with random on small pages alone is compared with a caution.
    let random_only = listing(&["cloud", "--near", &report("zen3-2vcpu-kvm-run-random-only.json")]).near.unwrap();
    assert_eq!(random_only.curve, "random on 4 KiB pages");
    assert!(random_only.caution.unwrap().contains("page walks"));
}

/// A shelf of the report's own curve scaled by 1.5, 1.1 and 1.3: ranked 1.1, 1.3, 1.5, each at
/// the log of its factor over the report's medians (the fixture's medians read 2% above its
/// fastest samples; the shelf keeps medians, so medians are compared).
#[test]
fn a_curve_scaled_by_one_point_one_is_nearer_than_one_scaled_by_one_point_five() {
    let dir = tempfile::tempdir().unwrap();
    let points = [(16u64 << 10, 1.3), (1 << 20, 4.1), (8 << 20, 15.0), (64 << 20, 80.0), (512 << 20, 104.0)];
    let mut own = memwall_report::Report::new(memwall_report::Source::Native, 0, Default::default());
    own.ladder = Some(memwall_core::fixtures::ladder(
        "random-cycle",
        "thp",
        points.iter().map(|&(b, ns)| memwall_core::fixtures::point(b, ns)).collect(),
        vec![],
    ));
    let own_path = dir.path().join("own.json");
    std::fs::write(&own_path, own.to_json_pretty()).unwrap();
    let entry = |name: &str, k: f64| {
        let latency: Vec<String> = points.iter().map(|&(b, ns)| format!("[{b},{}]", ns * k)).collect();
        format!(
            r#"{{"provider":"test","type":"{name}","cpu":"c","arch":"x86_64","vcpus":2,"metal":false,"hypervisor":"KVM",
            "measured":"2026-04-04","tool":"sc-membench 1.2.2","caches":[],"latency":[{}],"bandwidth":{{}}}}"#,
            latency.join(",")
        )
    };
    let shelf = format!(
        r#"{{"source":"s","commit":"c","license":"CC BY-SA 4.0","measured_by":"m","pattern":"random","pages":"huge",
        "hosts":[{},{},{}]}}"#,
        entry("x1.5", 1.5),
        entry("x1.1", 1.1),
        entry("x1.3", 1.3)
    );
    let shelf_path = dir.path().join("shelf.json");
    std::fs::write(&shelf_path, shelf).unwrap();
    let near = listing(&["cloud", "--shelf", shelf_path.to_str().unwrap(), "--near", own_path.to_str().unwrap()]);
    let names: Vec<&str> = near.rows.iter().map(|r| r.host.as_str()).collect();
    assert_eq!(names, ["x1.1", "x1.3", "x1.5"]);
    let ranked = near.near.unwrap();
    for (d, k) in ranked.distances.iter().zip([1.1f64, 1.3, 1.5]) {
        assert!((d - (k / 1.02).ln()).abs() < 1e-9, "{d} against ln {k}/1.02");
    }
    assert_eq!((ranked.curve.as_str(), ranked.sizes_compared[0]), ("random on THP", 5));
}

#[test]
fn pairs_set_each_aws_metal_type_beside_its_vms() {
    let text = stdout(&["cloud", "--pairs"]);
    let first = text.lines().next().unwrap();
    assert!(first.ends_with("pairs: CPU models a provider sells both as bare metal and as VMs"), "{text}");
    let pairs = listing(&["cloud", "--pairs"]).pairs;
    let has = |metal: &str, vm: &str| {
        pairs.iter().any(|p| p.provider == "aws" && p.metal.iter().any(|m| m == metal) && p.vms.iter().any(|v| v == vm))
    };
    assert!(has("m9g.metal-48xl", "m9g.large"), "{pairs:?}");
    assert!(has("x8i.metal-48xl", "x8i.large"), "{pairs:?}");
    // Each side's figures are on its line: the metal type's and the VM's against it.
    let line = |name: &str| text.lines().find(|l| l.split_whitespace().any(|w| w == name)).unwrap().to_string();
    assert!(line("x8i.metal-48xl").contains("bare metal"), "{text}");
    assert!(line("x8i.large").contains("DRAM "), "{text}");
    let aws_only = listing(&["cloud", "--pairs", "--filter", "provider=aws"]).pairs;
    assert!(!aws_only.is_empty() && aws_only.iter().all(|p| p.provider == "aws"));
}

#[test]
fn the_fleet_takes_shelf_rows_beside_its_reports() {
    let text = stdout(&["fleet", &report("zen3-2vcpu-kvm-run.json"), "--shelf", "type=m9g.metal-48xl"]);
    assert!(text.contains("shelf: aws m9g.metal-48xl"), "{text}");
    assert!(text.contains("zen3-2vcpu-kvm-run"), "{text}");
    assert!(text.contains("CC BY-SA 4.0"), "{text}");
    let fleet: memwall_report::fleet::Fleet =
        serde_json::from_str(&stdout(&["fleet", "--shelf", "provider=hcloud", "--json", "-"])).unwrap();
    assert_eq!(fleet.rows.len(), 14);
    assert!(fleet.rows.iter().all(|r| r.shelf.as_ref().is_some_and(|s| s.provider == "hcloud")));
}

#[test]
fn bad_input_is_refused_in_one_line() {
    assert_refused(&["cloud", "--filter", "colour=red"], "--filter: no column \"colour\"");
    assert_refused(&["cloud", "--filter", "dram"], "is not COLUMN=VALUE");
    assert_refused(&["cloud", "--filter", "dram<="], "is not COLUMN=VALUE");
    assert_refused(&["cloud", "--filter", "fast>=lots"], "not a number or a size");
    assert_refused(&["cloud", "--sort", "colour"], "--sort: no column");
    assert_refused(&["fleet", "--shelf", "colour=red"], "--shelf: no column");
    let dir = tempfile::tempdir().unwrap();
    let not_a_report = dir.path().join("not.json");
    std::fs::write(&not_a_report, r#"{"hello": "world"}"#).unwrap();
    assert_refused(&["cloud", "--near", not_a_report.to_str().unwrap()], "not a memwall report");
    assert_refused(&["cloud", "--near", "/no/such/report.json"], "no such file");
    let no_ladder = report("zen3-milan-2vcpu-kvm-vm-hides.json");
    assert_refused(&["cloud", "--near", &no_ladder], "has no latency ladder");
    assert_refused(&["cloud", "--shelf", not_a_report.to_str().unwrap()], "not a cloud shelf");
    assert_refused(&["cloud", "--pairs", "--near", &no_ladder], "cannot be used with");
    assert_refused(&["cloud", "--pairs", "--limit", "3"], "cannot be used with");
    assert_refused(&["cloud", "--limit", "some"], "invalid value 'some'");
}
