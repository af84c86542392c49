//! The reports as rows: what each says about its host, and every ladder and GROUP BY race side
//! by side.

use std::collections::BTreeSet;

use memwall_core::describe;
use memwall_core::size::format_bytes;
use memwall_report::{Host, Report};
use yew::prelude::*;

use super::LoadedReport;
use crate::chart::format_number;
use crate::util;

pub fn short(text: &str, max: usize) -> String {
    if text.chars().count() > max { text.chars().take(max - 1).chain(['…']).collect() } else { text.to_string() }
}

/// What a report says about its host, as (label, value) rows; unknowns are left out.
pub fn host_rows(host: &Host, report: &Report) -> Vec<(&'static str, String)> {
    let mut rows = Vec::new();
    let mut add = |k: &'static str, v: Option<String>| {
        if let Some(v) = v {
            rows.push((k, v));
        }
    };
    add("CPU", host.cpu_model.clone());
    add("Logical CPUs", host.logical_cpus.map(|n| n.to_string()));
    let caches: Vec<String> = describe::data_caches(&host.caches).into_iter().map(describe::cache_label).collect();
    add("Caches (declared)", (!caches.is_empty()).then(|| caches.join(" · ")));
    add(
        "Hypervisor",
        host.hypervisor.as_ref().map(|h| if h == "none" { "none (bare metal)".to_string() } else { h.clone() }),
    );
    add("OS", host.os.clone());
    add("Memory", host.memory_bytes.map(format_bytes));
    add("Page size", host.page_bytes.map(format_bytes));
    add("Transparent huge pages", host.thp.clone());
    add(
        "Core clock",
        host.core_ghz
            .map(|g| match &host.core_clock {
                Some(c) => format!(
                    "{g:.2} GHz (add chain, spread {:.1}%{})",
                    c.spread * 100.0,
                    if c.stable { "" } else { ", unstable" }
                ),
                None => format!("{g:.2} GHz (add chain)"),
            })
            .or_else(|| host.core_ghz_unavailable.as_ref().map(|w| format!("unknown: {w}"))),
    );
    add("Timer resolution", host.timer_resolution_ns.map(util::format_duration));
    add("Cross-origin isolated", host.cross_origin_isolated.map(|b| if b { "yes".into() } else { "no".into() }));
    add("User agent", host.user_agent.clone());
    if let Some(ladder) = &report.ladder {
        add(
            "Ladder",
            Some(format!(
                "{} sizes, {} … {}, huge pages {}{}",
                ladder.points.len(),
                ladder.points.first().map_or("-".into(), |p| format_bytes(p.bytes)),
                ladder.points.last().map_or("-".into(), |p| format_bytes(p.bytes)),
                ladder.huge_pages,
                ladder.pinned_cpu.map_or(String::new(), |c| format!(", pinned to CPU {c}"))
            )),
        );
    }
    if let Some(g) = &report.groupby {
        add(
            "GROUP BY",
            Some(format!(
                "{} rows, {} distinct keys, {} kernels",
                g.dataset.rows,
                g.dataset.distinct_keys,
                g.runs.len()
            )),
        );
    }
    rows
}

/// One row per working set, one column of median ns per report.
pub fn ladder_table(reports: &[&LoadedReport]) -> Html {
    let sizes: BTreeSet<u64> =
        reports.iter().flat_map(|r| r.report.ladder.iter().flat_map(|l| l.points.iter().map(|p| p.bytes))).collect();
    let median = |r: &LoadedReport, bytes: u64| {
        r.report.ladder.as_ref()?.points.iter().find(|p| p.bytes == bytes).map(|p| p.ns_per_load.median)
    };
    let ratio = reports.len() == 2;
    html! {
        <div class="table-wrap">
            <table class="data" id="report-ladder-table">
                <caption class="visually-hidden">{ "Median ns per load for each working set, one column per report" }</caption>
                <thead><tr>
                    <th scope="col">{ "working set" }</th>
                    { for reports.iter().map(|r| html! { <th scope="col">{ format!("{} ns", r.label) }</th> }) }
                    if ratio { <th scope="col">{ format!("{} ÷ {}", short(&reports[1].label, 14), short(&reports[0].label, 14)) }</th> }
                </tr></thead>
                <tbody>
                    { for sizes.iter().map(|&bytes| html! {
                        <tr>
                            <th scope="row">{ format_bytes(bytes) }</th>
                            { for reports.iter().map(|r| html! { <td>{ median(r, bytes).map_or("–".into(), |v| format!("{v:.2}")) }</td> }) }
                            if ratio {
                                <td>{ match (median(reports[0], bytes), median(reports[1], bytes)) { (Some(a), Some(b)) => format!("{:.2}×", b / a), _ => "–".into() } }</td>
                            }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

pub fn groupby_table(reports: &[&LoadedReport]) -> Html {
    html! {
        <div class="table-wrap">
            <table class="data">
                <caption class="visually-hidden">{ "GROUP BY runs of every report" }</caption>
                <thead><tr>
                    <th scope="col">{ "report" }</th><th scope="col">{ "kernel" }</th><th scope="col">{ "threads" }</th><th scope="col">{ "partitions" }</th>
                    <th scope="col">{ "median ms" }</th><th scope="col">{ "ns/row" }</th><th scope="col">{ "groups" }</th><th scope="col">{ "checksum" }</th>
                </tr></thead>
                <tbody>
                    { for reports.iter().flat_map(|r| r.report.groupby.iter().flat_map(move |g| g.runs.iter().map(move |run| html! {
                        <tr>
                            <th scope="row">{ r.label.clone() }</th><td>{ run.kernel.clone() }</td><td>{ run.threads }</td>
                            <td>{ run.partitions.map_or("–".into(), |p| p.to_string()) }</td>
                            <td>{ format_number(run.seconds.median * 1e3) }</td><td>{ format!("{:.2}", run.ns_per_row) }</td>
                            <td>{ run.groups }</td><td><code>{ run.checksum.clone() }</code></td>
                        </tr>
                    }))) }
                </tbody>
            </table>
        </div>
    }
}
