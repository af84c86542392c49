//! The reports' charts: every ladder in one chart, every GROUP BY race in one bar chart, and
//! each kind of sweep in a chart of its own, one color per report.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::groupby::summary;
use memwall_report::{ADAPTIVE, MEMWALL_PREFIX, Source, Standing};
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

/// Each engine sweep's panels (a query, a key distribution, a thread count): ns per row against
/// distinct keys, a line per engine and per memwall kernel, memwall adaptive drawn solid and
/// every engine dashed; under each, where adaptive stands against the fastest engine.
pub fn engine_charts(palette: Palette, reports: &[&LoadedReport]) -> Vec<Html> {
    let mut cards = Vec::new();
    for (r, sweep) in reports.iter().flat_map(|r| r.report.engine_sweeps.iter().map(move |s| (r, s))) {
        // One color per name across panels, so an engine keeps its color from chart to chart.
        let names: BTreeSet<&str> = sweep.points.iter().map(|p| p.engine.as_str()).collect();
        let color = |name: &str| names.iter().position(|n| *n == name).unwrap_or(0);
        for (i, (query, series, threads)) in sweep.panels().into_iter().enumerate() {
            let here: Vec<_> = sweep
                .points
                .iter()
                .filter(|p| p.query == query && p.series == series && p.threads == threads)
                .collect();
            let lines: BTreeSet<&str> = here.iter().map(|p| p.engine.as_str()).collect();
            let lines: Vec<Series> = lines
                .into_iter()
                .map(|name| Series {
                    label: if name == ADAPTIVE { format!("{name} (memwall's pick)") } else { name.to_string() },
                    color: color(name),
                    dashed: !name.starts_with(MEMWALL_PREFIX),
                    points: here
                        .iter()
                        .filter(|p| p.engine == name)
                        .map(|p| Point { x: p.keys as f64, y: p.ns_per_row, lo: None, hi: None })
                        .collect(),
                })
                .collect();
            let per = if query == "join" { "probe row" } else { "row" };
            let x_label = if query == "join" { "build keys" } else { "distinct keys" };
            let title = format!("{query}, {series}, {threads} thread(s): ns per {per} against {x_label}, {}", r.label);
            cards.push(html! {
                <div class="card engine-sweep">
                    <LineChart id={format!("report-engines-{}-{i}", r.id)} title={title} x_label={x_label}
                        y_label={format!("ns per {per}")} y_unit={format!("ns/{per}")} x_format={XFormat::Count}
                        series={Rc::new(lines)} {palette} log_y={true} />
                    { standing_line(&sweep.standings(query, series, threads)) }
                </div>
            });
        }
        cards.push(html! {
            <p class="muted small engine-rules">
                { format!("{}: {} rows, {}, {:.1} min in all; every engine agreed with memwall: {}. Rules: {}",
                    sweep.mode, sweep.rows, sweep.taken(), sweep.elapsed_seconds / 60.0,
                    if sweep.all_agree { "yes" } else { "NO" }, sweep.rules) }
            </p>
        });
    }
    cards
}

/// Where memwall adaptive is first (within 5% of the fastest engine or ahead), 2x or more
/// ahead, and behind.
fn standing_line(standings: &[Standing<'_>]) -> Html {
    if standings.is_empty() {
        return html! {};
    }
    let keys = |pick: &dyn Fn(&Standing<'_>) -> bool| {
        let picked: Vec<String> = standings
            .iter()
            .filter(|s| pick(s))
            .map(|s| format!("{} ({:.2}x {})", format_number(s.keys as f64), s.lead, s.best_engine.engine))
            .collect();
        if picked.is_empty() { "none".to_string() } else { picked.join(", ") }
    };
    let first = standings.iter().filter(|s| s.first()).count();
    html! {
        <p class="small standing">
            { format!("memwall adaptive first at {first} of {} points. ", standings.len()) }
            { format!("2x or more ahead: {}. ", keys(&|s| s.lead >= 2.0)) }
            <strong>{ format!("Behind: {}.", keys(&|s| !s.first())) }</strong>
        </p>
    }
}
