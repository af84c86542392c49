//! The sweeps' tables: a column per kernel with the fastest starred, and the table of states.

use super::args::*;

/// A sweep as a table: one row per x, one column per kernel (in the order first seen), the
/// fastest of each row marked with `*`. Returns the kernels, the header and the rows.
pub(super) fn kernel_columns<'a>(
    points: &[(u64, &'a str, f64)],
    x_name: &str,
    unit: &str,
) -> (Vec<&'a str>, Vec<String>, Vec<Vec<String>>) {
    let mut kernels: Vec<&str> = Vec::new();
    let mut xs: Vec<u64> = Vec::new();
    for &(x, kernel, _) in points {
        if !kernels.contains(&kernel) {
            kernels.push(kernel);
        }
        if !xs.contains(&x) {
            xs.push(x);
        }
    }
    let rows = xs
        .iter()
        .map(|&x| {
            let at = |k: &str| points.iter().find(|p| p.0 == x && p.1 == k).map(|p| p.2);
            let best = kernels.iter().filter_map(|k| at(k)).min_by(f64::total_cmp);
            let mut row = vec![x.to_string()];
            row.extend(kernels.iter().map(|k| match at(k) {
                Some(ns) if Some(ns) == best && kernels.len() > 1 => format!("*{ns:.2}"),
                Some(ns) => format!("{ns:.2}"),
                None => "-".into(),
            }));
            row
        })
        .collect();
    let mut header = vec![x_name.to_string()];
    header.extend(kernels.iter().map(|k| format!("{k} {unit}")));
    (kernels, header, rows)
}

pub(super) fn finish(
    common: &CommonArgs,
    host: memwall_report::Host,
    dataset: memwall_report::Dataset,
    sweeps: Vec<Sweep>,
    x_name: &str,
) -> CliResult {
    common.export.check()?;
    let mut out = common.export.human();
    print_sweeps(&mut *out, &sweeps, x_name).map_err(|e| CliError::runtime(e.to_string()))?;
    let points: Vec<(u64, &str, f64)> =
        sweeps.iter().flat_map(|s| &s.points).map(|p| (p.x, p.kernel.as_str(), p.ns_per_row)).collect();
    let table = || long_table(&points, "ns per row");
    let report = || {
        // One list keeps the query where a race's report has it; several are each in their sweep.
        let query = match sweeps.as_slice() {
            [one] => one.query.clone().filter(|q| q.value_type != "none"),
            _ => None,
        };
        let groupby =
            GroupBy { dataset: dataset.clone(), runs: Vec::new(), sweeps: sweeps.clone(), query, model: None };
        memwall_report::Report { groupby: Some(groupby), ..output::new_report(host.clone()) }
    };
    common.export.write(report, || table().csv(), table)
}

/// A sweep's points one row each (`--csv`, `--markdown`): x, kernel, and the time per row or
/// probe (a sweep with several aggregate lists repeats its x and kernels, list by list).
pub(super) fn long_table(points: &[(u64, &str, f64)], unit: &'static str) -> Table {
    let rows = points.iter().map(|&(x, kernel, ns)| vec![x.to_string(), kernel.to_string(), format!("{ns:.2}")]);
    Table { header: vec!["x", "kernel", unit], rows: rows.collect(), notes: vec![] }
}

/// Every sweep's table, each headed by its aggregates when there are several or more than a
/// count, then, with several, the one table of how the result moved with the state.
pub fn print_sweeps(out: &mut dyn Write, sweeps: &[Sweep], x_name: &str) -> std::io::Result<()> {
    let plain_count = |s: &Sweep| s.query.as_ref().is_none_or(|q| q.value_type == "none");
    for (i, sweep) in sweeps.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        if sweeps.len() > 1 || !plain_count(sweep) {
            writeln!(out, "aggregates: {}", describe_state(sweep))?;
        }
        print_sweep(out, sweep, x_name)?;
    }
    if sweeps.len() > 1 {
        writeln!(out)?;
        print_state_table(out, sweeps)?;
    }
    Ok(())
}

/// "sum,min,max over i64 values (40 bytes of state a group)".
pub(super) fn describe_state(sweep: &Sweep) -> String {
    let (aggregates, values) = match &sweep.query {
        Some(q) if q.value_type != "none" => {
            let column = q.value_column.as_ref().map(|c| format!(" of column {c}")).unwrap_or_default();
            (q.aggregates.join(","), format!(" over {} values{column}", q.value_type))
        }
        Some(q) => (q.aggregates.join(","), String::new()),
        None => ("count".into(), String::new()),
    };
    let state = sweep.state_bytes_per_group.map(|b| format!(" ({b} bytes of state a group)")).unwrap_or_default();
    format!("{aggregates}{values}{state}")
}

/// One row per sweep (per state size): each partitioning kernel's best partition count, or
/// each kernel's crossover against naive, as measured.
pub fn print_state_table(out: &mut dyn Write, sweeps: &[Sweep]) -> std::io::Result<()> {
    let aggregates = |s: &Sweep| s.query.as_ref().map_or("count".into(), |q| q.aggregates.join(","));
    let state = |s: &Sweep| s.state_bytes_per_group.map_or("-".into(), |b| b.to_string());
    let mut kernels: Vec<&str> = Vec::new();
    for sweep in sweeps {
        let names = sweep
            .best_partitions
            .iter()
            .map(|b| b.kernel.as_str())
            .chain(sweep.crossovers.iter().map(|c| c.kernel.as_str()));
        for name in names {
            if !kernels.contains(&name) {
                kernels.push(name);
            }
        }
    }
    let mut header = vec!["aggregates".to_string(), "state B/group".to_string()];
    let partitions = sweeps.iter().any(|s| s.kind == "partitions");
    let rows: Vec<Vec<String>> = sweeps
        .iter()
        .map(|sweep| {
            let mut row = vec![aggregates(sweep), state(sweep)];
            for &k in &kernels {
                if partitions {
                    match sweep.best_partitions.iter().find(|b| b.kernel == k) {
                        Some(b) => {
                            let edge = if at_edge(sweep, b.partitions) { " (edge)" } else { "" };
                            row.extend([format!("{}{edge}", b.partitions), format!("{:.2}", b.ns_per_row)])
                        }
                        None => row.extend(["-".to_string(), "-".to_string()]),
                    }
                } else {
                    row.push(match sweep.crossovers.iter().find(|c| c.kernel == k) {
                        Some(c) => c.from_distinct_keys.map_or("none in range".into(), |x| x.to_string()),
                        None => "-".into(),
                    });
                }
            }
            row
        })
        .collect();
    for &k in &kernels {
        if partitions {
            header.extend([format!("{k} best P"), format!("{k} ns/row")]);
        } else {
            header.push(format!("{k} beats naive from (keys)"));
        }
    }
    if partitions {
        writeln!(
            out,
            "best partition count by state size (each kernel's fastest point above; (edge): at an end of the range, the best may lie beyond):"
        )?;
    } else {
        writeln!(
            out,
            "crossover by state size: the fewest distinct keys from which each kernel beat naive at that and every larger point:"
        )?;
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    write!(out, "{}", output::table(&header, &rows))
}

/// Whether `partitions` is the sweep's smallest or largest point: a best there may lie beyond.
pub(super) fn at_edge(sweep: &Sweep, partitions: u32) -> bool {
    let xs = || sweep.points.iter().map(|p| p.x);
    let x = u64::from(partitions);
    sweep.points.len() > 1 && (xs().min() == Some(x) || xs().max() == Some(x))
}

/// One row per x, one ns/row column per kernel, the fastest marked with `*`.
pub fn print_sweep(out: &mut dyn Write, sweep: &Sweep, x_name: &str) -> std::io::Result<()> {
    let points: Vec<(u64, &str, f64)> = sweep.points.iter().map(|p| (p.x, p.kernel.as_str(), p.ns_per_row)).collect();
    let (_, header, rows) = kernel_columns(&points, x_name, "ns/row");
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    writeln!(out, "{} rows per point, each the fastest of its runs; * marks the fastest kernel", sweep.rows)?;
    write!(out, "{}", output::table(&header, &rows))?;
    if sweep.kind == "cardinality" {
        for c in &sweep.crossovers {
            match c.from_distinct_keys {
                Some(x) => writeln!(out, "{} beats {} from {x} distinct keys on", c.kernel, c.versus)?,
                None => writeln!(out, "{} never beat {} for good in this range", c.kernel, c.versus)?,
            }
        }
        if let Some(slowdown) = sweep.adaptive_max_slowdown {
            writeln!(out, "adaptive was at worst {:.1}% slower than the best kernel", (slowdown - 1.0) * 100.0)?;
        }
        if let Some(line) = memwall_core::cost::describe_sweep(sweep) {
            writeln!(out, "{line}")?;
        }
    }
    for best in &sweep.best_partitions {
        let edge = if at_edge(sweep, best.partitions) {
            " (at an end of the range: widen --min/--max to see the bottom of the U)"
        } else {
            ""
        };
        writeln!(
            out,
            "{} is fastest at {} partitions ({:.2} ns/row){edge}",
            best.kernel, best.partitions, best.ns_per_row
        )?;
    }
    Ok(())
}
