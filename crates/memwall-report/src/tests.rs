use super::*;

fn full_report() -> Report {
    let ns = Summary::of(&[1.2, 1.25, 1.3]).unwrap();
    let mut report = Report::new(
        Source::Native,
        1_790_000_000,
        Host {
            name: Some("vm-1".into()),
            cpu_model: Some("AMD EPYC".into()),
            logical_cpus: Some(2),
            caches: vec![Cache {
                level: 1,
                kind: "Data".into(),
                size_bytes: 32 * 1024,
                line_bytes: Some(64),
                shared_by_cpus: Some(1),
            }],
            hypervisor: Some("KVM".into()),
            os: Some("Linux 6.1".into()),
            page_bytes: Some(4096),
            thp: Some("madvise".into()),
            memory_bytes: Some(24 << 30),
            core_ghz: Some(3.7),
            core_clock: Some(clock_estimate()),
            core_ghz_unavailable: None,
            timer_resolution_ns: Some(20.0),
            user_agent: None,
            cross_origin_isolated: None,
        },
    );
    report.ladder = Some(Ladder {
        pattern: "random-cycle".into(),
        huge_pages: "thp".into(),
        pinned_cpu: Some(1),
        line_bytes: 64,
        seed: 42,
        ghz: Some(3.7),
        cycles_unavailable: None,
        target_sample_ns: 5e6,
        timer_resolution_ns: Some(20.0),
        duration_s: Some(12.5),
        points: vec![LadderPoint {
            bytes: 16384,
            ns_per_load: ns,
            cycles_per_load: Some(4.6),
            ghz: Some(3.7),
            clock_moved: true,
            loads_per_sample: 4_000_000,
            samples: 3,
            samples_ns_per_load: vec![1.2, 1.25, 1.3],
            attempts: 2,
            visits_ns_per_load: Vec::new(),
            huge_page_bytes: Some(0),
        }],
        steps: vec![Step { from_bytes: 32768, to_bytes: 65536, ns_per_load_before: 1.2, ns_per_load_after: 3.4 }],
        clock: Some(clock_estimate()),
        clock_check: Some(ClockCheck {
            bytes: 16384,
            ns_per_load: 1.2,
            ghz: 3.7,
            cycles_per_load: 4.44,
            plausible: true,
            note: "L1 reads 4.4 cycles".into(),
        }),
        levels: vec![Level {
            name: "L2".into(),
            size_bytes: 1 << 20,
            ns_per_load: 3.5,
            cycles_per_load: Some(13.0),
            cause: Cause::Cache,
            declared_bytes: Some(1 << 20),
            capacity_bytes: Some(1 << 20),
            evidence: vec!["page-local: 3.5 ns from 64 KiB to 1 MiB".into()],
        }],
        verdict: vec!["this guest gets ~8 MiB of the declared 32 MiB L3".into()],
        parallelism: Some(Parallelism {
            bytes: 256 << 20,
            points: vec![ChainsPoint { chains: 1, ns_per_load: 180.0, ns_per_load_median: Some(190.0) }],
            knee_chains: Some(16),
            max_speedup: 9.5,
        }),
        curves: vec![Curve { pattern: "page-local".into(), huge_pages: "off".into(), chains: 1, points: vec![] }],
    });
    report.bandwidth = Some(Bandwidth {
        points: vec![BandwidthPoint {
            bytes: 1 << 30,
            threads: 2,
            read_gb_per_s: 18.7,
            write_gb_per_s: 12.0,
            copy_gb_per_s: 15.0,
            memcpy_gb_per_s: Some(16.0),
        }],
        loaded_latency: vec![LoadedLatency {
            bytes: 256 << 20,
            stream_bytes: 256 << 20,
            streaming_threads: 1,
            ns_per_load: 265.8,
            ns_per_load_median: Some(270.0),
        }],
    });
    report.advice = vec!["keep hot data under 3 MiB".into()];
    report.groupby = Some(GroupBy {
        query: None,
        model: None,
        dataset: Dataset {
            rows: 10,
            distinct_keys: 3,
            generator: Some(Generator { preset: None, skew: "zipf:0.6".into(), shape: None }),
            input: None,
            seed: Some(7),
            max_rows_per_key: Some(5),
        },
        runs: vec![GroupByRun {
            kernel: "adaptive".into(),
            threads: 1,
            partitions: Some(4096),
            seconds: Summary::of(&[0.5, 0.6]).unwrap(),
            samples_seconds: vec![0.5, 0.6],
            checksum: checksum_hex(u64::MAX - 1),
            choice: Some(AdaptiveChoice {
                kernel: "tuned".into(),
                estimated_groups: 3,
                sampled_rows: 10,
                reason: "test".into(),
            }),
            memory: Some("warm".into()),
            first_run_seconds: Some(0.9),
            scratch_bytes: Some(1 << 30),
            mapped_in_run_bytes: Some(0),
            huge_page_share: Some(0.98),
            verified_by: vec!["reference".into(), "row-total".into()],
            own: GroupByFigures {
                predicted_ns_per_row: Some(5.0),
                phases: None,
                totals: None,
                ns_per_row: 5.5,
                groups: 3,
                top: vec![KeyCount { key: i64::MIN, count: 5 }, KeyCount { key: i64::MAX, count: 1 }],
                counters: Some(Counters {
                    available: false,
                    unavailable: Some("perf_event_open: not supported".into()),
                    cycles: None,
                    instructions: None,
                    ipc: None,
                    cache_misses: None,
                    llc_load_misses: None,
                    dtlb_load_misses: None,
                    stalled_backend_share: None,
                    stalled_cycles_backend: None,
                    running_share: None,
                    scope: None,
                    not_counted: vec![],
                }),
            },
        }],
        sweeps: vec![Sweep {
            kind: "cardinality".into(),
            points: vec![SweepPoint {
                x: 3,
                kernel: "naive".into(),
                ns_per_row: 2.0,
                seconds: 0.1,
                predicted_ns_per_row: None,
            }],
            memory: Some("cold".into()),
            verified_by: vec!["known-groups".into()],
            own: GroupBySweepFigures {
                rows: 10,
                crossover_distinct_keys: Some(3),
                adaptive_max_slowdown: Some(1.04),
                query: Some(Query { aggregates: vec!["count".into()], value_type: "none".into(), value_column: None }),
                state_bytes_per_group: Some(8),
                best_partitions: vec![],
                crossovers: vec![
                    Crossover { kernel: "radix".into(), versus: "naive".into(), from_distinct_keys: Some(3) },
                    Crossover { kernel: "prefetch".into(), versus: "naive".into(), from_distinct_keys: None },
                ],
            },
        }],
    });
    report.join = Some(join());
    report.cores = Some(cores());
    report.watch = Some(watch());
    report.sensitivity = vec![sensitivity()];
    report.engine_sweeps = vec![engine_sweep()];
    report
}

fn engine_point(engine: &str, keys: u64, ns_per_row: f64) -> EngineSweepPoint {
    EngineSweepPoint {
        query: "count".into(),
        series: "zipf:1.1".into(),
        keys,
        threads: 2,
        engine: engine.into(),
        ns_per_row,
        samples_seconds: vec![ns_per_row * 1e-2, ns_per_row * 1.1e-2],
        chose: (engine == ADAPTIVE).then(|| "tuned".into()),
        agrees: true,
    }
}

fn engine_sweep() -> EngineSweep {
    EngineSweep {
        mode: "sweep-quick".into(),
        rows: 10_000_000,
        runs: 1,
        rounds: 3,
        elapsed_seconds: 900.0,
        all_agree: true,
        rules: "rows in each engine's memory; best of 3 after one untimed".into(),
        engines: vec!["DuckDB 2.0.1".into(), "Polars 2.1.0".into()],
        points: vec![
            engine_point(ADAPTIVE, 1000, 4.0),
            engine_point("memwall tuned", 1000, 6.0),
            engine_point("DuckDB 2.0.1", 1000, 5.0),
            engine_point("Polars 2.1.0", 1000, 3.0),
            engine_point(ADAPTIVE, 1_000_000, 7.0),
            engine_point("DuckDB 2.0.1", 1_000_000, 70.0),
            // No adaptive at this point: no standing.
            engine_point("DuckDB 2.0.1", 10_000_000, 90.0),
        ],
    }
}

#[test]
fn engine_sweeps_round_trip_and_stand_adaptive_against_the_best_engine() {
    let mut old = full_report();
    old.engine_sweeps.clear();
    let text = old.to_json_pretty();
    assert!(!text.contains("engine_sweeps"), "absent sweeps are not written");
    assert!(Report::from_json(&text).unwrap().engine_sweeps.is_empty());
    let back = Report::from_json(&full_report().to_json_pretty()).unwrap();
    assert_eq!(back.engine_sweeps, vec![engine_sweep()]);
    assert!(back.check().is_ok());

    let sweep = engine_sweep();
    assert_eq!(sweep.taken(), "best of 1 warm run after one untimed in each of 3 rounds taking turns");
    // A sweep written before rounds ran each side once.
    let mut before = serde_json::to_value(&sweep).unwrap();
    before.as_object_mut().unwrap().remove("rounds");
    before["runs"] = 3.into();
    let before: EngineSweep = serde_json::from_value(before).unwrap();
    assert_eq!((before.rounds, before.taken().as_str()), (1, "best of 3 warm runs after one untimed"));
    assert_eq!(sweep.panels(), vec![("count", "zipf:1.1", 2)]);
    let standings = sweep.standings("count", "zipf:1.1", 2);
    // Against the fastest engine, never against another memwall kernel.
    let seen: Vec<(u64, &str, f64)> =
        standings.iter().map(|s| (s.keys, s.best_engine.engine.as_str(), s.lead)).collect();
    assert_eq!(seen, vec![(1000, "Polars 2.1.0", 0.75), (1_000_000, "DuckDB 2.0.1", 10.0)]);
    assert_eq!(standings.iter().map(Standing::first).collect::<Vec<_>>(), vec![false, true]);
    assert!(sweep.standings("sum", "zipf:1.1", 2).is_empty());

    for spoil in [
        (|s: &mut EngineSweep| s.points[0].ns_per_row = f64::NAN) as fn(&mut EngineSweep),
        |s| s.points[1].samples_seconds.push(-1.0),
        |s| s.points[2].keys = 0,
        |s| s.elapsed_seconds = f64::INFINITY,
    ] {
        let mut bad = full_report();
        spoil(&mut bad.engine_sweeps[0]);
        assert!(bad.check().is_err());
    }
}

fn cores() -> Cores {
    let pair = |a, b, ns: f64| CorePair {
        cpu_a: a,
        cpu_b: b,
        one_way_median_ns: ns,
        one_way_p10_ns: ns - 1.5,
        one_way_p90_ns: ns + 4.0,
        samples: 1000,
    };
    Cores {
        cpus: vec![0, 1, 2],
        round_trips_per_sample: 100,
        pairs: vec![pair(0, 1, 14.5), pair(0, 2, 52.0), pair(1, 2, 51.0)],
        declared: Some(DeclaredTopology {
            smt_siblings: vec![vec![0, 1], vec![2]],
            llc_groups: vec![vec![0, 1, 2]],
            llc_level: Some(3),
        }),
        tiers: vec![CoreTier {
            from_ns: 14.5,
            to_ns: 14.5,
            pairs: 1,
            groups: vec![vec![0, 1]],
            matches: Some("smt".into()),
        }],
        agreement: vec!["the fastest pairs are the SMT siblings sysfs declares".into()],
        topology: "3 CPUs in 2 latency tiers".into(),
    }
}

fn watch() -> Watch {
    Watch {
        every_s: 10.0,
        window_s: 600.0,
        points: vec![
            WatchPoint { level: "L2".into(), bytes: 256 << 10 },
            WatchPoint { level: "DRAM".into(), bytes: 64 << 20 },
        ],
        samples: vec![
            WatchSample {
                at_s: 0.0,
                ns_per_load: vec![Some(3.1), None],
                noise: vec![Some(0.01), None],
                steal_jiffies: Some(3),
                total_jiffies: Some(2000),
            },
            WatchSample {
                at_s: 10.0,
                ns_per_load: vec![Some(3.2), Some(98.0)],
                noise: vec![],
                steal_jiffies: None,
                total_jiffies: None,
            },
        ],
        steal_unavailable: None,
        interrupted: true,
        stability: Some(Stability {
            points: vec![PointStability {
                level: "L2".into(),
                bytes: 256 << 10,
                min_ns: 3.1,
                median_ns: 3.15,
                max_ns: 3.2,
                spread: 0.03,
                noise: 0.01,
            }],
            spread: 0.03,
            worst_minute_from_s: Some(0.0),
            worst_minute_slowdown: Some(0.01),
            steal_share: Some(0.0015),
            worst_minute_steal_share: Some(0.0015),
            disturbed_intervals: 0,
            intervals: 2,
            class: "steady".into(),
            verdict: "steady".into(),
        }),
    }
}

fn server_probe() -> crate::sensitivity::ServerProbe {
    crate::sensitivity::ServerProbe { probe: "curl -s localhost:8080/".into(), window_seconds: 30.0 }
}

fn sensitivity() -> Sensitivity {
    let level = |name: &str, bytes: u64, secs: &[f64]| PressureLevel {
        name: name.into(),
        pressure_bytes: bytes,
        samples_seconds: secs.to_vec(),
        seconds: Summary::of(secs).unwrap(),
        samples_cpu_seconds: secs.iter().map(|s| s * 0.5).collect(),
        cpu_seconds: Summary::of(&secs.iter().map(|s| s * 0.5).collect::<Vec<_>>()),
        pressure_passes: (bytes > 0).then_some(42),
        counters: Some(Counters::unavailable("no PMU")),
    };
    Sensitivity {
        command: vec!["memwall".into(), "groupby".into()],
        // A server's curve, so that the round trip covers its probe too.
        server_probe: Some(server_probe()),
        workload: "groupby".into(),
        workload_cpu: 0,
        pressure_cpu: 1,
        runs_per_level: 3,
        llc_bytes: 2 << 20,
        llc_source: "the ladder".into(),
        levels: vec![level("none", 0, &[1.0, 1.01, 1.02]), level("1x LLC", 2 << 20, &[1.3, 1.31, 1.35])],
        reading: Some(SensitivityReading {
            basis: "cpu".into(),
            noise: 0.02,
            slowdowns: vec![0.0, 0.297],
            beyond_noise: vec![false, true],
            class: "cache-sensitive".into(),
            worst_slowdown: 0.297,
            verdict: "slows 30%".into(),
        }),
    }
}

#[test]
fn a_report_from_before_cores_watch_and_sensitivity_opens_and_they_round_trip() {
    let mut old = full_report();
    old.cores = None;
    old.watch = None;
    old.sensitivity.clear();
    let text = old.to_json_pretty();
    for field in ["\"cores\"", "\"watch\"", "\"sensitivity\""] {
        assert!(!text.contains(field), "{field} is not written when absent");
    }
    let back = Report::from_json(&text).unwrap();
    assert_eq!((back.cores, back.watch, back.sensitivity.len()), (None, None, 0));
    let full = full_report();
    let back = Report::from_json(&full.to_json_pretty()).unwrap();
    assert_eq!(back.cores, Some(cores()));
    assert_eq!(back.watch, Some(watch()));
    assert_eq!(back.sensitivity, vec![sensitivity()]);
    assert!(back.check().is_ok());
    let mut bad = full;
    bad.cores.as_mut().unwrap().pairs[0].one_way_median_ns = f64::NAN;
    assert!(bad.check().is_err());
}

fn join() -> Join {
    Join {
        dataset: JoinDataset {
            build_keys: 3,
            probe_rows: 10,
            miss_rate: 0.1,
            misses: 1,
            generator: Some(Generator { preset: Some("small".into()), skew: "zipf:0.575".into(), shape: None }),
            seed: Some(42),
        },
        runs: vec![JoinRun {
            kernel: "partitioned".into(),
            threads: 1,
            partitions: Some(64),
            checksum: checksum_hex(7),
            seconds: Summary::of(&[0.4, 0.6]).unwrap(),
            samples_seconds: vec![0.4, 0.6],
            choice: None,
            memory: Some("warm".into()),
            first_run_seconds: Some(0.7),
            huge_page_share: Some(1.0),
            scratch_bytes: Some(4096),
            mapped_in_run_bytes: Some(0),
            verified_by: vec!["reference".into(), "known-matches".into()],
            own: JoinFigures {
                matches: 9,
                key_sum: Some("-170141183460469231731687303715884105728".into()),
                payload_sum: Some("340282366920938463463374607431768211455".into()),
                ns_per_probe: 3.5,
                build_seconds: Summary::of(&[0.125, 0.25]).unwrap(),
                probe_seconds: Summary::of(&[0.3, 0.4]).unwrap(),
            },
        }],
        sweeps: vec![JoinSweep {
            kind: "build-size".into(),
            points: vec![JoinSweepPoint {
                x: 3,
                kernel: "naive".into(),
                ns_per_probe: 2.0,
                build_seconds: 0.1,
                probe_seconds: 0.2,
                seconds: 0.3,
            }],
            memory: Some("warm".into()),
            verified_by: vec!["known-matches".into()],
            own: JoinSweepFigures {
                probe_rows: 10,
                partitioned_beats_naive_from: Some(3),
                partitioned_beats_prefetch_from: None,
                fastest: vec![BuildSizeFastest {
                    build_keys: 3,
                    kernel: "naive".into(),
                    ns_per_probe: 2.0,
                    prefetch_over_fastest: Some(1.25),
                }],
                prefetch_tolerance_share: Some(0.1),
                prefetch_falls_behind_from: Some(3),
                crossovers: vec![
                    BuildSizeCrossover { kernel: "tuned".into(), versus: "naive".into(), from_build_keys: Some(3) },
                    BuildSizeCrossover { kernel: "tuned".into(), versus: "prefetch".into(), from_build_keys: None },
                ],
            },
        }],
    }
}

/// A partitions sweep per aggregate list: what `sweep partitions --agg count --agg sum` writes.
fn partitions_sweep(aggregates: &[&str], state_bytes: u64, best: u32) -> Sweep {
    Sweep {
        kind: "partitions".into(),
        points: [16, 32]
            .iter()
            .map(|&p| SweepPoint {
                x: p,
                kernel: "tuned".into(),
                ns_per_row: 3.0,
                seconds: 0.1,
                predicted_ns_per_row: None,
            })
            .collect(),
        memory: Some("warm".into()),
        verified_by: vec!["reference".into()],
        own: GroupBySweepFigures {
            rows: 1000,
            crossover_distinct_keys: None,
            adaptive_max_slowdown: None,
            query: Some(Query {
                aggregates: aggregates.iter().map(|a| a.to_string()).collect(),
                value_type: "i64".into(),
                value_column: None,
            }),
            state_bytes_per_group: Some(state_bytes),
            best_partitions: vec![BestPartitions { kernel: "tuned".into(), partitions: best, ns_per_row: 2.5 }],
            crossovers: vec![],
        },
    }
}

#[test]
fn sweeps_by_state_size_round_trip_and_older_sweeps_still_open() {
    let mut report = full_report();
    let groupby = report.groupby.as_mut().unwrap();
    groupby.sweeps = vec![
        partitions_sweep(&["count"], 8, 4096),
        partitions_sweep(&["sum"], 24, 2048),
        partitions_sweep(&["count", "sum", "min", "max"], 40, 1024),
    ];
    let text = report.to_json_pretty();
    assert!(text.contains("\"state_bytes_per_group\": 40"), "{text}");
    let back = Report::from_json(&text).unwrap();
    assert_eq!(back, report);
    assert!(back.check().is_ok());
    // "none in range" is written, as null, not left out.
    let full = full_report().to_json_pretty();
    assert!(full.contains("\"from_distinct_keys\": null"), "{full}");
    assert!(full.contains("\"from_build_keys\": null"), "{full}");
    assert_eq!(Report::from_json(&full).unwrap(), full_report());

    // A sweep written before these fields existed.
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    for sweep in old["groupby"]["sweeps"].as_array_mut().unwrap() {
        let sweep = sweep.as_object_mut().unwrap();
        for field in ["query", "state_bytes_per_group", "best_partitions", "crossovers"] {
            sweep.remove(field);
        }
    }
    let sweep = &Report::from_json(&old.to_string()).unwrap().groupby.unwrap().sweeps[0];
    assert_eq!((sweep.query.as_ref(), sweep.state_bytes_per_group, sweep.best_partitions.len()), (None, None, 0));
}

#[test]
fn impossible_sweep_summaries_fail_the_check() {
    let mut report = full_report();
    let mut sweep = partitions_sweep(&["sum"], 24, 64);
    sweep.best_partitions[0].ns_per_row = f64::NAN;
    report.groupby.as_mut().unwrap().sweeps = vec![sweep];
    assert!(report.check().unwrap_err().to_string().contains("best partitions"));
    let mut report = full_report();
    report.join.as_mut().unwrap().sweeps[0].fastest[0].prefetch_over_fastest = Some(0.5);
    assert!(report.check().unwrap_err().to_string().contains("prefetch_over_fastest"));
}

#[test]
fn a_report_from_before_the_join_opens_and_a_join_round_trips() {
    let mut report = full_report();
    report.join = None;
    let text = report.to_json_pretty();
    assert!(!text.contains("\"join\""), "an absent join is not written");
    assert_eq!(Report::from_json(&text).unwrap().join, None);
    let full = full_report();
    let back = Report::from_json(&full.to_json_pretty()).unwrap();
    assert_eq!(back.join, Some(join()));
    assert!(back.check().is_ok());
}

#[test]
fn impossible_join_figures_fail_the_check() {
    let mut report = full_report();
    report.join.as_mut().unwrap().runs[0].matches = 11;
    assert!(report.check().unwrap_err().to_string().contains("11 matches from 10 probe rows"));
    let mut report = full_report();
    report.join.as_mut().unwrap().runs[0].probe_seconds.max = f64::NAN;
    assert!(report.check().is_err());
    let mut report = full_report();
    report.join.as_mut().unwrap().dataset.miss_rate = 1.5;
    assert!(report.check().is_err());
    // The exact sums must be integers within 128 bits (i128::MIN and u128::MAX pass above).
    for (key_sum, payload_sum, named) in [
        ("170141183460469231731687303715884105728", "0", "key_sum"),
        ("1.5", "0", "key_sum"),
        ("0", "-1", "payload_sum"),
        ("0", "340282366920938463463374607431768211456", "payload_sum"),
    ] {
        let mut report = full_report();
        let run = &mut report.join.as_mut().unwrap().runs[0];
        run.key_sum = Some(key_sum.into());
        run.payload_sum = Some(payload_sum.into());
        assert!(report.check().unwrap_err().to_string().contains(named), "{key_sum} {payload_sum}");
    }
    let csv = join_csv(&full_report().join.unwrap());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], JOIN_CSV_HEADER.join(","));
    assert_eq!(lines[1].split(',').count(), JOIN_CSV_HEADER.len());
    assert!(
        lines[1].starts_with("3,10,partitioned,1,64,warm,0.1875,0.35,0.4,0.5,0.6,3.5,4096,9,0000000000000007,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(",-170141183460469231731687303715884105728,340282366920938463463374607431768211455"),
        "{}",
        lines[1]
    );
}

fn clock_estimate() -> ClockEstimate {
    ClockEstimate { ghz: 3.7, spread: 0.004, residual: 0.0001, repetitions: 9, steps: 1 << 20, stable: true }
}

#[test]
fn round_trip_keeps_every_field() {
    let report = full_report();
    let text = report.to_json_pretty();
    let back = Report::from_json(&text).unwrap();
    assert_eq!(back, report);
    // i64 extremes survive as exact JSON integers.
    assert!(text.contains(&i64::MIN.to_string()));
    assert!(text.contains("\"ns_per_load\""));
}

#[test]
fn minimal_browser_report_round_trips() {
    let report = Report::new(Source::Browser, 0, Host::default());
    let text = report.to_json_pretty();
    assert!(text.contains("\"source\": \"browser\""));
    assert_eq!(Report::from_json(&text).unwrap(), report);
}

#[test]
fn unknown_fields_are_ignored() {
    let mut value: serde_json::Value = serde_json::from_str(&full_report().to_json_pretty()).unwrap();
    value["added_later"] = serde_json::json!({"x": 1});
    value["host"]["new_field"] = serde_json::json!(true);
    assert_eq!(Report::from_json(&value.to_string()).unwrap(), full_report());
}

#[test]
fn other_versions_are_refused_by_name() {
    let text = full_report().to_json_pretty().replace("\"schema_version\": 1", "\"schema_version\": 2");
    let err = Report::from_json(&text).unwrap_err();
    assert!(matches!(err, ReportError::UnsupportedVersion { .. }));
    assert_eq!(err.to_string(), "unsupported report schema_version 2: this memwall reads version 1");
    let text = full_report().to_json_pretty().replace("\"schema_version\": 1", "\"schema_version\": \"1\"");
    assert!(matches!(Report::from_json(&text), Err(ReportError::UnsupportedVersion { .. })));
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    for text in ["", "{", "[]", "42", "{\"schema_version\": 1}", "{\"schema_version\": 1, \"tool\": 3}"] {
        let err = Report::from_json(text).unwrap_err();
        assert!(matches!(err, ReportError::Malformed(_)), "{text:?} gave {err:?}");
    }
    assert!(matches!(Report::from_json("{\"tool\": {}}"), Err(ReportError::MissingVersion)));
}

#[test]
fn summary_of_samples() {
    let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
    assert_eq!((s.min, s.median, s.max), (1.0, 3.0, 5.0));
    assert!((s.p90 - 4.6).abs() < 1e-12);
    assert!((s.spread() - 2.0).abs() < 1e-12);
    assert_eq!(Summary::of(&[]), None);
    assert_eq!(Summary::of(&[1.0, f64::NAN]), None);
    let one = Summary::of(&[7.0]).unwrap();
    assert_eq!((one.min, one.median, one.p90, one.max), (7.0, 7.0, 7.0, 7.0));
}

#[test]
fn counters_round_trip_available_and_unavailable() {
    let measured = Counters {
        available: true,
        unavailable: None,
        cycles: Some(3_600_000_000),
        instructions: Some(11_431_618_219),
        ipc: Some(3.175),
        cache_misses: Some(76_190_837),
        llc_load_misses: Some(70_000_000),
        dtlb_load_misses: Some(12_345),
        stalled_backend_share: Some(0.501),
        stalled_cycles_backend: Some(1_803_600_000),
        running_share: Some(0.8),
        scope: Some("user space".into()),
        not_counted: vec!["dtlb_load_misses: not supported".into()],
    };
    let text = serde_json::to_string(&measured).unwrap();
    assert!(text.contains("\"running_share\":0.8") && text.contains("\"not_counted\""));
    assert_eq!(serde_json::from_str::<Counters>(&text).unwrap(), measured);

    let none = Counters::unavailable("perf_event_open(cycles): No such file or directory");
    assert!(!none.available);
    let text = serde_json::to_string(&none).unwrap();
    // Optional extras stay out of the JSON when empty; the original figures stay as nulls.
    assert!(!text.contains("running_share") && !text.contains("not_counted") && !text.contains("scope"));
    assert!(text.contains("\"cycles\":null"));
    assert_eq!(serde_json::from_str::<Counters>(&text).unwrap(), none);
    // A report written before these fields existed still reads.
    let old = r#"{"available": false, "unavailable": "x", "cycles": null}"#;
    assert_eq!(serde_json::from_str::<Counters>(old).unwrap(), Counters::unavailable("x"));
}

#[test]
fn a_point_written_before_attempts_were_recorded_was_measured_once() {
    let mut value: serde_json::Value = serde_json::from_str(&full_report().to_json_pretty()).unwrap();
    value["ladder"]["points"][0].as_object_mut().unwrap().remove("attempts");
    let report = Report::from_json(&value.to_string()).unwrap();
    assert_eq!(report.ladder.unwrap().points[0].attempts, 1);
}

#[test]
fn measured_figures_pass_the_check_and_impossible_ones_do_not() {
    let report = full_report();
    assert_eq!(report.check(), Ok(()));
    let mut negative = report.clone();
    negative.ladder.as_mut().unwrap().points[0].ns_per_load.min = -1.0;
    assert!(negative.check().unwrap_err().0.contains("ns_per_load min is -1"), "{:?}", negative.check());
    let mut infinite = report.clone();
    infinite.groupby.as_mut().unwrap().runs[0].ns_per_row = f64::INFINITY;
    assert!(infinite.check().unwrap_err().0.contains("ns_per_row is inf"));
    let mut unordered = report.clone();
    let summary = &mut unordered.ladder.as_mut().unwrap().points[0].ns_per_load;
    summary.max = summary.min / 2.0;
    assert!(unordered.check().unwrap_err().0.contains("min <= median"));
    let mut crowded = report;
    let ladder = crowded.ladder.as_mut().unwrap();
    let point = ladder.points[0].clone();
    ladder.points = vec![point; MAX_ITEMS + 1];
    assert!(crowded.check().unwrap_err().0.contains("ladder points, more than"));
}

/// A ladder as memwall wrote it before the clock check, levels, verdict, parallelism and extra
/// curves existed (schema 1 all the same): it must still open, with those empty.
#[test]
fn a_report_from_before_the_explanations_still_opens() {
    let old = r#"{
      "schema_version": 1,
      "tool": {"name": "memwall", "version": "0.1.0"},
      "source": "native",
      "created_unix_s": 1790000000,
      "host": {"name": "vm", "caches": [], "core_ghz": 5.17},
      "ladder": {
        "pattern": "random-cycle", "huge_pages": "off", "pinned_cpu": null, "line_bytes": 64,
        "seed": 1, "ghz": 5.17, "target_sample_ns": 5000000.0, "timer_resolution_ns": 20.0,
        "duration_s": 3.0,
        "points": [{"bytes": 16384, "ns_per_load": {"min": 1.4, "median": 1.5, "p90": 1.6, "max": 1.7},
                    "cycles_per_load": 7.7, "loads_per_sample": 1000, "samples": 3,
                    "samples_ns_per_load": [1.4, 1.5, 1.7], "attempts": 1}],
        "steps": []
      }
    }"#;
    let report = Report::from_json(old).unwrap();
    assert_eq!(report.host.core_clock, None);
    assert_eq!((report.bandwidth.as_ref(), report.advice.len()), (None, 0));
    let ladder = report.ladder.unwrap();
    assert_eq!((ladder.clock, ladder.clock_check, ladder.parallelism), (None, None, None));
    assert!(ladder.levels.is_empty() && ladder.verdict.is_empty() && ladder.curves.is_empty());
    assert_eq!((ladder.points[0].ghz, ladder.points[0].clock_moved), (None, false));
    assert_eq!(ladder.points[0].cycles_per_load, Some(7.7));
}

#[test]
fn causes_are_written_in_lowercase() {
    assert_eq!(serde_json::to_string(&Cause::Tlb).unwrap(), "\"tlb\"");
    assert_eq!(serde_json::from_str::<Cause>("\"dram\"").unwrap(), Cause::Dram);
    assert!(serde_json::from_str::<Cause>("\"disk\"").is_err());
}

#[test]
fn an_untrusted_report_is_sized_parsed_and_checked() {
    let good = include_str!("../tests/corpus/ok-ladder.json");
    assert!(Report::from_untrusted_json(good).is_ok());
    let bad = include_str!("../tests/corpus/bad-negative-latency.json");
    assert!(matches!(Report::from_untrusted_json(bad), Err(crate::check::Untrusted::Implausible(_))));
    assert!(matches!(Report::from_untrusted_json("{}"), Err(crate::check::Untrusted::Unreadable(_))));
    let huge = " ".repeat(crate::check::MAX_REPORT_BYTES as usize + 1);
    let err = Report::from_untrusted_json(&huge).unwrap_err();
    assert!(matches!(err, crate::check::Untrusted::TooLarge(_)));
    assert_eq!(
        err.to_string(),
        "64.0 MiB (67108865 bytes) is more than a memwall report can be (at most 64 MiB); not read"
    );
    assert_eq!(
        crate::check_size(100 << 20).unwrap_err().to_string(),
        "100 MiB is more than a memwall report can be (at most 64 MiB); not read"
    );
    assert!(crate::check_size(crate::check::MAX_REPORT_BYTES).is_ok());
}

#[test]
fn the_bench_writes_engine_sweeps_this_crate_reads() {
    // bench/sweep.py on a 2-vCPU Xeon guest, quick (10M rows) and full (100M rows), as written but
    // for tool.version, which the script then filled with the target triple.
    let quick = include_str!("../../../examples/engine-sweeps/xeon-2vcpu-kvm-sweep-quick.json");
    let full = include_str!("../../../examples/engine-sweeps/xeon-2vcpu-kvm-sweep-full.json");
    // Distinct keys 10^3..10^7 in the quick sweep, ..10^8 in the full one.
    for (text, points) in [(quick, 5), (full, 6)] {
        let report = Report::from_json(text).unwrap();
        report.check().unwrap();
        let sweep = &report.engine_sweeps[0];
        assert!(sweep.all_agree && sweep.rules.contains("own memory"), "{}", sweep.rules);
        let panels = sweep.panels();
        // count and sum, uniform and Zipf, 1 and 2 threads.
        assert_eq!(panels.len(), 8, "{panels:?}");
        for (query, series, threads) in panels {
            let standings = sweep.standings(query, series, threads);
            assert_eq!(standings.len(), points, "{query} {series} {threads}");
            assert!(standings.iter().all(|s| !s.best_engine.is_memwall() && s.adaptive.chose.is_some()));
        }
    }
}
