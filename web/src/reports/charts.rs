//! The reports' charts: every ladder in one chart, every GROUP BY race in one bar chart, and
//! each kind of sweep in a chart of its own, one color per report.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::groupby::summary;
use memwall_report::Source;
use yew::prelude::*;

use super::tables::short;
use super::{LoadedReport, cache_markers, to_points};
use crate::chart::{Bar, BarChart, LineChart, Point, Series, XFormat, format_number};
use crate::theme::Palette;

pub fn ladder_chart(palette: Palette, log_y: bool, reports: &[&LoadedReport], id: &'static str) -> Html {
    let series: Vec<Series> = reports
        .iter()
        .filter_map(|r| {
            let ladder = r.report.ladder.as_ref()?;
            Some(Series {
                label: format!("{} ({})", r.label, r.report.source.name()),
                color: r.id as usize,
                dashed: r.report.source == Source::Browser,
                points: to_points(&ladder.points),
            })
        })
        .collect();
    // The caches of the first report that declares any; with several hosts their caches
    // differ, and the legend says whose they are.
    let caches = reports.iter().find(|r| !r.report.host.caches.is_empty());
    let mut markers = caches.map(|r| cache_markers(&r.report.host)).unwrap_or_default();
    if reports.len() > 1
        && let Some(r) = caches
    {
        for m in &mut markers {
            m.label = format!("{} ({})", m.label, r.label);
        }
    }
    html! {
        <LineChart id={id} title="Latency per load against working set" x_label="working set" y_label="ns per load" y_unit="ns"
            x_format={XFormat::Bytes} series={Rc::new(series)} markers={Rc::new(markers)} {palette} {log_y} />
    }
}

pub fn groupby_chart(palette: Palette, reports: &[&LoadedReport], id: &'static str) -> Html {
    let mut bars = Vec::new();
    for r in reports {
        let Some(groupby) = &r.report.groupby else { continue };
        for run in &groupby.runs {
            let speedup =
                summary::speedup_over_naive(groupby, run).map(|x| format!(" · {x:.1}× naive")).unwrap_or_default();
            let label =
                if reports.len() > 1 { format!("{}: {}", short(&r.label, 12), run.kernel) } else { run.kernel.clone() };
            bars.push(Bar {
                label,
                value: Some(run.ns_per_row),
                text: format!(
                    "{} ms · {} ns/row{speedup}",
                    format_number(run.seconds.median * 1e3),
                    format_number(run.ns_per_row)
                ),
                color: r.id as usize,
            });
        }
    }
    let title = match reports.first().and_then(|r| r.report.groupby.as_ref()) {
        Some(g) if reports.len() == 1 => format!(
            "GROUP BY, {} rows, {} distinct keys: ns per row (shorter is faster)",
            g.dataset.rows, g.dataset.distinct_keys
        ),
        _ => "GROUP BY: ns per row (shorter is faster)".to_string(),
    };
    html! { <BarChart id={id} title={title} value_label="ns per row (median run)" bars={Rc::new(bars)} {palette} /> }
}

pub fn sweep_charts(palette: Palette, reports: &[&LoadedReport]) -> Vec<Html> {
    let mut kinds = BTreeSet::new();
    for r in reports {
        for sweep in r.report.groupby.iter().flat_map(|g| &g.sweeps) {
            kinds.insert(sweep.kind.clone());
        }
    }
    kinds
        .into_iter()
        .map(|kind| {
            let mut series = Vec::new();
            for r in reports {
                for sweep in r.report.groupby.iter().flat_map(|g| &g.sweeps).filter(|s| s.kind == kind) {
                    let kernels: BTreeSet<&str> = sweep.points.iter().map(|p| p.kernel.as_str()).collect();
                    for (k, kernel) in kernels.into_iter().enumerate() {
                        series.push(Series {
                            label: if reports.len() > 1 { format!("{}: {kernel}", short(&r.label, 12)) } else { kernel.to_string() },
                            color: r.id as usize * 3 + k,
                            dashed: false,
                            points: sweep
                                .points
                                .iter()
                                .filter(|p| p.kernel == kernel)
                                .map(|p| Point { x: p.x as f64, y: p.ns_per_row, lo: None, hi: None })
                                .collect(),
                        });
                    }
                }
            }
            let (title, x_label) = if kind == "partitions" {
                ("Partitions sweep: ns per row against partition count", "partitions")
            } else {
                ("Cardinality sweep: ns per row against distinct keys", "distinct keys")
            };
            html! {
                <div class="card">
                    <LineChart id={format!("report-sweep-{kind}")} title={title} x_label={x_label} y_label="ns per row" y_unit="ns/row"
                        x_format={XFormat::Count} series={Rc::new(series)} {palette} log_y={false} />
                </div>
            }
        })
        .collect()
}
