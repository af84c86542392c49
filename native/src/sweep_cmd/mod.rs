//! `memwall sweep cardinality|partitions|build-size`: ns per row as the groups or the partitions
//! grow, or ns per probe as the join's build side does. The flags and the dispatch are here; each
//! sweep's run, and the tables they print, have a file of their own.

mod args;
mod build_size;
mod by_groups;
mod print;

pub use args::SweepArgs;
use args::*;
use build_size::build_size;
use by_groups::{cardinality, partitions};

pub fn sweep(args: SweepArgs) -> CliResult {
    match args.kind {
        SweepKind::Cardinality(args) => cardinality(args),
        SweepKind::Partitions(args) => partitions(args),
        SweepKind::BuildSize(args) => build_size(args),
    }
}

#[cfg(test)]
mod tests {
    use super::print::{kernel_columns, print_sweeps};
    use super::*;

    #[test]
    fn a_sweep_table_has_a_column_per_kernel_and_stars_the_fastest() {
        let points = [
            (1024, "naive", 5.0),
            (1024, "tuned", 7.5),
            (2048, "naive", 9.0),
            (2048, "tuned", 8.0),
            (4096, "tuned", 8.5),
        ];
        let (kernels, header, rows) = kernel_columns(&points, "build keys", "ns/probe");
        assert_eq!(kernels, ["naive", "tuned"]);
        assert_eq!(header, ["build keys", "naive ns/probe", "tuned ns/probe"]);
        assert_eq!(rows, [["1024", "*5.00", "7.50"], ["2048", "9.00", "*8.00"], ["4096", "-", "*8.50"]]);
    }

    fn fake_sweep(kind: &str, aggregates: &str, state: u64, points: &[(u64, &str, f64)]) -> Sweep {
        let points: Vec<memwall_report::SweepPoint> = points
            .iter()
            .map(|&(x, k, ns)| memwall_report::SweepPoint {
                x,
                kernel: k.into(),
                ns_per_row: ns,
                seconds: ns,
                predicted_ns_per_row: None,
            })
            .collect();
        let own = memwall_report::GroupBySweepFigures {
            rows: 100,
            best_partitions: if kind == "partitions" { sweep::best_partitions(&points) } else { Vec::new() },
            crossovers: if kind == "cardinality" { sweep::crossovers(&points, Kernel::Naive) } else { Vec::new() },
            crossover_distinct_keys: None,
            adaptive_max_slowdown: None,
            query: Some(memwall_report::Query {
                aggregates: aggregates.split(',').map(str::to_string).collect(),
                value_type: if aggregates == "count" { "none" } else { "i64" }.into(),
                value_column: None,
            }),
            state_bytes_per_group: Some(state),
        };
        Sweep { kind: kind.into(), points, memory: None, verified_by: Vec::new(), own }
    }

    fn printed(sweeps: &[Sweep], x_name: &str) -> String {
        let mut out = Vec::new();
        print_sweeps(&mut out, sweeps, x_name).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_state_table_follows_a_best_fan_out_that_moves() {
        let sweeps = [
            fake_sweep("partitions", "count", 8, &[(256, "tuned", 5.0), (1024, "tuned", 4.0), (4096, "tuned", 4.5)]),
            fake_sweep("partitions", "sum", 24, &[(256, "tuned", 6.0), (1024, "tuned", 5.5), (4096, "tuned", 7.0)]),
            fake_sweep(
                "partitions",
                "count,sum,min,max",
                40,
                &[(256, "tuned", 6.0), (1024, "tuned", 7.0), (4096, "tuned", 9.0)],
            ),
        ];
        let text = printed(&sweeps, "partitions");
        let table: Vec<Vec<&str>> = text
            .lines()
            .skip_while(|l| !l.starts_with("best partition count by state size"))
            .skip(3)
            .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
            .collect();
        assert_eq!(
            table,
            [
                ["count", "8", "1024", "4.00"],
                ["sum", "24", "1024", "5.50"],
                ["count,sum,min,max", "40", "256 (edge)", "6.00"],
            ],
            "{text}"
        );
        assert!(text.contains("aggregates: sum over i64 values (24 bytes of state a group)"), "{text}");
        // One list alone prints no state table.
        assert!(!printed(&sweeps[..1], "partitions").contains("by state size"));
    }

    #[test]
    fn the_state_table_says_none_in_range_when_there_is_no_crossover() {
        let sweeps = [
            fake_sweep(
                "cardinality",
                "count",
                8,
                &[(1024, "naive", 2.0), (1024, "tuned", 3.0), (2048, "naive", 9.0), (2048, "tuned", 4.0)],
            ),
            fake_sweep(
                "cardinality",
                "sum",
                24,
                &[(1024, "naive", 2.0), (1024, "tuned", 3.0), (2048, "naive", 3.0), (2048, "tuned", 4.0)],
            ),
        ];
        let text = printed(&sweeps, "distinct keys");
        let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("crossover by state size")).skip(3).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(rows[0].starts_with("count") && rows[0].ends_with("2048"), "{text}");
        assert!(rows[1].starts_with("sum") && rows[1].ends_with("none in range"), "{text}");
        assert!(text.contains("tuned beats naive from 2048 distinct keys on"), "{text}");
        assert!(text.contains("tuned never beat naive for good in this range"), "{text}");
    }
}
