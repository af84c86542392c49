//! Every host of the corpus reads right: its caches, its DRAM, no DRAM below a cache.
#![cfg(not(target_arch = "wasm32"))]

mod corpus;

#[test]
fn every_corpus_host_reads_right() {
    let hosts = corpus::hosts();
    assert!(hosts.len() >= 12, "{} hosts", hosts.len());
    let wrong: Vec<String> = hosts.iter().filter_map(corpus::misread).collect();
    assert!(wrong.is_empty(), "{} of {} hosts misread:\n{}", wrong.len(), hosts.len(), wrong.join("\n\n"));
}

#[test]
#[ignore = "prints the corpus's curves and readings, for looking at them"]
fn print_corpus() {
    for host in corpus::hosts() {
        let mut report = host.report.clone();
        memwall_core::explain::reread(&mut report);
        let ladder = report.ladder.as_ref().unwrap();
        println!("{}", host.name);
        for (i, p) in ladder.points.iter().enumerate() {
            let others: Vec<String> =
                ladder.curves.iter().map(|c| format!("{:.2}", c.points[i].ns_per_load.min)).collect();
            println!("  {:>10} {:8.2} {}", p.bytes, p.ns_per_load.min, others.join(" "));
        }
        for l in &ladder.levels {
            println!("  = {} {} {:.1} ns {:?}", l.name, l.size_bytes, l.ns_per_load, l.capacity_bytes);
        }
        for v in ladder.verdict.iter().chain(&report.advice) {
            println!("  - {v}");
        }
    }
}

#[test]
fn a_dense_ladder_sampled_at_a_cloud_curves_sizes_reads_the_same_levels() {
    let hosts = corpus::hosts();
    let dense = |h: &&corpus::CorpusHost| h.report.ladder.as_ref().unwrap().points.len() > 20;
    let reports: Vec<&corpus::CorpusHost> =
        hosts.iter().filter(dense).filter(|h| corpus::like_a_cloud_curve(h)).collect();
    let names: Vec<&str> = reports.iter().map(|h| h.name.as_str()).collect();
    println!("sampled at cloud sizes: {names:?}");
    assert!(reports.len() >= 8, "{} dense ladders like a cloud curve", reports.len());
    let wrong: Vec<String> = reports.iter().flat_map(|h| corpus::subsampled_differs(h)).collect();
    assert!(wrong.is_empty(), "{} readings differ:\n{}", wrong.len(), wrong.join("\n"));
}
