use super::*;

fn pair(cpu_a: u32, cpu_b: u32, ns: f64) -> CorePair {
    CorePair { cpu_a, cpu_b, one_way_median_ns: ns, one_way_p10_ns: ns * 0.95, one_way_p90_ns: ns * 1.08, samples: 500 }
}

/// Two sockets of 6 CPUs; socket 0 has two L3s of 4 CPUs... here: socket 0 = L3 {0-3} and
/// L3 {4-7}, socket 1 = L3 {8-11}; SMT siblings {0,1}, {2,3}, ... Latencies: SMT 15 ns,
/// same L3 50, across L3s in a socket 90, across sockets 180, each with a little jitter.
fn two_socket_matrix() -> Cores {
    let cpus: Vec<u32> = (0..12).collect();
    let mut pairs = Vec::new();
    for a in 0..12u32 {
        for b in a + 1..12 {
            let jitter = 1.0 + f64::from((a * 7 + b * 3) % 5) / 100.0;
            let ns = if a / 2 == b / 2 {
                15.0
            } else if a / 4 == b / 4 {
                50.0
            } else if (a < 8) == (b < 8) {
                90.0
            } else {
                180.0
            };
            pairs.push(pair(a, b, ns * jitter));
        }
    }
    Cores {
        cpus,
        round_trips_per_sample: 100,
        pairs,
        declared: Some(DeclaredTopology {
            smt_siblings: (0..6).map(|i| vec![2 * i, 2 * i + 1]).collect(),
            llc_groups: vec![(0..4).collect(), (4..8).collect(), (8..12).collect()],
            llc_level: Some(3),
        }),
        tiers: vec![],
        agreement: vec![],
        topology: String::new(),
    }
}

#[test]
fn smt_siblings_two_l3_groups_and_a_far_socket_are_told_apart_and_checked() {
    let mut cores = two_socket_matrix();
    read(&mut cores);
    let groups: Vec<String> = cores.tiers.iter().map(|t| groups_text(&t.groups)).collect();
    assert_eq!(groups, ["0,1; 2,3; 4,5; 6,7; 8,9; 10,11", "0-3; 4-7; 8-11", "0-7; 8-11", "0-11"]);
    let matches: Vec<Option<&str>> = cores.tiers.iter().map(|t| t.matches.as_deref()).collect();
    assert_eq!(matches, [Some("smt"), Some("llc"), None, None]);
    assert_eq!(cores.tiers.iter().map(|t| t.pairs).sum::<u32>(), 66);
    assert!(cores.agreement[0].starts_with("agrees: the fastest tier (15 ns) joins exactly the SMT siblings"));
    assert!(
        cores.agreement[1].starts_with(
            "agrees: tier 2 (50-52 ns) joins exactly the CPUs sysfs declares sharing an L3 (0-3; 4-7; 8-11)"
        ),
        "{:?}",
        cores.agreement
    );
    assert!(
        cores.agreement[2].starts_with("tier 3 (90-94 ns) joins 0-7; 8-11: farther than any cache"),
        "{:?}",
        cores.agreement
    );
    assert!(cores.agreement[3].starts_with("tier 4"));
    assert_eq!(
        cores.topology,
        "Core-to-core: 12 CPUs in 4 latency tiers (SMT siblings 15 ns, shared L3 50-52 ns, 90-94 ns, 180-187 ns \
         one way), as sysfs declares"
    );
    assert_eq!(short(&cores), "12 CPUs: 4 tiers, 15/51/92/184 ns");
}

/// What the page's heatmap reads: each cell's pair (either way round), its tier, and the
/// tier's name as the topology sentence gives it.
#[test]
fn cells_find_their_pair_and_tier() {
    let mut cores = two_socket_matrix();
    read(&mut cores);
    let names: Vec<String> = cores.tiers.iter().map(|t| tier_name(&cores, t)).collect();
    assert_eq!(names, ["SMT siblings 15 ns", "shared L3 50-52 ns", "90-94 ns", "180-187 ns"]);
    let (ab, ba) = (pair_of(&cores, 2, 9).unwrap(), pair_of(&cores, 9, 2).unwrap());
    assert_eq!((ab.cpu_a, ab.cpu_b), (2, 9));
    assert_eq!(ab, ba);
    assert_eq!(tier_of(&cores, ab), Some(3));
    assert_eq!(tier_of(&cores, pair_of(&cores, 4, 5).unwrap()), Some(0));
    assert_eq!(tier_of(&cores, pair_of(&cores, 4, 7).unwrap()), Some(1));
    assert!(pair_of(&cores, 3, 3).is_none() && pair_of(&cores, 0, 40).is_none());
}

#[test]
fn a_hypervisor_that_declares_another_topology_is_contradicted() {
    let mut cores = two_socket_matrix();
    // The guest is told every CPU is its own core with one big L3: the matrix says otherwise.
    cores.declared =
        Some(DeclaredTopology { smt_siblings: vec![], llc_groups: vec![(0..12).collect()], llc_level: Some(3) });
    read(&mut cores);
    assert!(cores.agreement[0].starts_with("sysfs declares no SMT siblings"));
    // The only tier joining all 12 is the last one: the declared L3 matches it, not tier 2.
    assert_eq!(cores.tiers[3].matches.as_deref(), Some("llc"));
    assert!(cores.topology.ends_with("as sysfs declares"), "{}", cores.topology);
    cores.declared = Some(DeclaredTopology {
        smt_siblings: vec![vec![0, 2], vec![1, 3]],
        llc_groups: vec![(0..6).collect(), (6..12).collect()],
        llc_level: Some(3),
    });
    read(&mut cores);
    assert!(cores.agreement[0].starts_with("disagrees: sysfs declares SMT siblings 0,2; 1,3"), "{:?}", cores.agreement);
    assert!(cores.agreement[1].starts_with("disagrees: sysfs declares L3 groups 0-5; 6-11"), "{:?}", cores.agreement);
    assert!(cores.topology.ends_with("sysfs declares otherwise (see the cores section)"));
}

#[test]
fn overlapping_spreads_keep_pairs_in_one_tier() {
    // 40 and 60 ns are 1.5x apart, but each pair's p10-p90 covers the other: one noisy tier.
    let wide = |a, b, ns: f64| CorePair { one_way_p10_ns: 30.0, one_way_p90_ns: 80.0, ..pair(a, b, ns) };
    let found = tiers(&[0, 1, 2], &[wide(0, 1, 40.0), wide(0, 2, 60.0), wide(1, 2, 59.0)]);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].groups, vec![vec![0, 1, 2]]);
}

#[test]
fn two_cpus_make_one_tier_that_cannot_name_itself() {
    let mut cores = Cores {
        cpus: vec![0, 1],
        round_trips_per_sample: 100,
        pairs: vec![pair(0, 1, 48.0)],
        declared: Some(DeclaredTopology {
            smt_siblings: vec![vec![0], vec![1]],
            llc_groups: vec![vec![0, 1]],
            llc_level: Some(3),
        }),
        tiers: vec![],
        agreement: vec![],
        topology: String::new(),
    };
    read(&mut cores);
    assert_eq!(cores.tiers.len(), 1);
    assert_eq!(cores.tiers[0].matches.as_deref(), Some("llc"));
    assert_eq!(cores.agreement[0], "sysfs declares no SMT siblings among CPUs 0,1");
    assert!(
        cores.agreement[1]
            .starts_with("agrees: the fastest tier (48 ns) joins exactly the CPUs sysfs declares sharing an L3 (0,1)")
    );
    assert!(cores.agreement.last().unwrap().starts_with("one tier only"));
    assert_eq!(cores.topology, "Core-to-core: 2 CPUs in 1 latency tier (shared L3 48 ns one way), as sysfs declares");
    assert_eq!(short(&cores), "2 CPUs: 1 tier, 48 ns");
    cores.declared = None;
    read(&mut cores);
    assert_eq!(cores.agreement, ["sysfs declares no topology here: the tiers stand unchecked"]);
}

#[test]
fn one_cpu_has_nothing_to_compare() {
    let mut cores = Cores {
        cpus: vec![3],
        round_trips_per_sample: 100,
        pairs: vec![],
        declared: Some(DeclaredTopology::default()),
        tiers: vec![],
        agreement: vec![],
        topology: String::new(),
    };
    read(&mut cores);
    assert!(cores.tiers.is_empty() && cores.agreement.is_empty());
    assert_eq!(
        cores.topology,
        "Core-to-core: only one CPU is usable here: no pair of CPUs to measure, nothing to compare"
    );
    assert_eq!(short(&cores), "1 CPU: 0 tiers");
}

#[test]
fn cpu_lists() {
    assert_eq!(parse_cpu_list("0-3,8,10-11\n"), Ok(vec![0, 1, 2, 3, 8, 10, 11]));
    assert_eq!(parse_cpu_list("1"), Ok(vec![1]));
    assert_eq!(parse_cpu_list(""), Ok(vec![]));
    assert!(parse_cpu_list("3-1").is_err());
    assert!(parse_cpu_list("a").is_err());
    assert_eq!(cpus_text(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10,11");
    assert_eq!(groups_text(&[]), "none");
}
