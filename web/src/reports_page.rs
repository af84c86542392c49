//! Reports: open native (and browser) reports, see each host, and overlay their ladders and
//! GROUP BY races in the same charts.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::describe;
use memwall_core::groupby::summary;
use memwall_core::size::format_bytes;
use memwall_report::{Host, Report, Source};
use yew::prelude::*;

use crate::chart::{self, Bar, BarChart, LineChart, Point, Series, XFormat, format_number};
use crate::embed::EmbedPanel;
use crate::reports::{LoadedReport, Reports, cache_markers, to_points};
use crate::theme::Palette;
use crate::util;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub palette: Palette,
    pub reports: Reports,
    /// (JSON text, where it came from): the app parses it and shows any error.
    pub on_load: Callback<(String, String)>,
    pub on_remove: Callback<u32>,
    pub on_error: Callback<String>,
    pub compact: bool,
}

#[derive(Debug)]
pub enum Msg {
    Files(Vec<web_sys::File>),
    SetUrl(String),
    LoadUrl,
    Dragging(bool),
    ToggleLogY,
    ExportSvg(&'static str, &'static str),
    ExportPng(&'static str, &'static str),
    ExportCsv,
    Notice(String),
}

pub struct ReportsPage {
    url: String,
    dragging: bool,
    log_y: bool,
    notice: Option<String>,
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

impl Component for ReportsPage {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Self { url: String::new(), dragging: false, log_y: true, notice: None }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let props = ctx.props();
        match msg {
            Msg::Files(files) => {
                self.dragging = false;
                for file in files {
                    let on_load = props.on_load.clone();
                    let on_error = props.on_error.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let name = file.name();
                        match util::read_file(&file).await {
                            Ok(text) => on_load.emit((text, name)),
                            Err(e) => on_error.emit(format!("{name}: could not read the file: {e}")),
                        }
                    });
                }
            }
            Msg::SetUrl(url) => self.url = url,
            Msg::LoadUrl => {
                let url = self.url.trim().to_string();
                if url.is_empty() {
                    return false;
                }
                let on_load = props.on_load.clone();
                let on_error = props.on_error.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    match util::fetch_text(&url).await {
                        Ok(text) => on_load.emit((text, url)),
                        Err(e) => on_error.emit(format!("could not load the report at {url}: {e}")),
                    }
                });
            }
            Msg::Dragging(on) => self.dragging = on,
            Msg::ToggleLogY => self.log_y = !self.log_y,
            Msg::ExportSvg(id, file) => {
                if let Err(e) = util::download_svg(id, file) {
                    self.notice = Some(format!("Could not export: {e}"));
                }
            }
            Msg::ExportPng(id, file) => ctx.link().send_future(async move {
                match util::download_png(id, file).await {
                    Ok(()) => Msg::Notice(String::new()),
                    Err(e) => Msg::Notice(format!("Could not export the PNG: {e}")),
                }
            }),
            Msg::ExportCsv => {
                let csv = self.csv(&props.reports);
                if let Err(e) = util::download_text("memwall-reports.csv", "text/csv", &csv) {
                    self.notice = Some(format!("Could not export: {e}"));
                }
            }
            Msg::Notice(text) => self.notice = (!text.is_empty()).then_some(text),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let reports = &props.reports;
        let with_ladder: Vec<&LoadedReport> = reports.iter().filter(|r| r.report.ladder.is_some()).collect();
        let with_groupby: Vec<&LoadedReport> = reports.iter().filter(|r| r.report.groupby.is_some()).collect();

        if props.compact {
            return html! {
                <div class="card">
                    if reports.is_empty() {
                        <p class="muted">{ "No report: give one with ?report=URL or a share link." }</p>
                    }
                    <div class="host-line">{ for reports.iter().map(|r| self.host_line(props.palette, r)) }</div>
                    if !with_ladder.is_empty() { { self.ladder_chart(props, &with_ladder, "report-ladder-embed") } }
                    if !with_groupby.is_empty() { { self.groupby_chart(props, &with_groupby, "report-groupby-embed") } }
                </div>
            };
        }

        let on_change = link.callback(|e: Event| {
            Msg::Files(files_of(chart::target::<web_sys::HtmlInputElement>(&e).and_then(|i| i.files())))
        });
        let on_drop = link.callback(|e: DragEvent| {
            e.prevent_default();
            Msg::Files(files_of(e.data_transfer().and_then(|d| d.files())))
        });
        let on_drag_over = link.callback(|e: DragEvent| {
            e.prevent_default();
            Msg::Dragging(true)
        });
        let on_drag_leave = link.callback(|_: DragEvent| Msg::Dragging(false));
        html! {
            <>
                <div class="intro">
                    <h1>{ "Reports from real hosts" }</h1>
                    <p>{ "Open the JSON that " }<code>{ "memwall run" }</code>{ " writes (memwall-report.json), or a run saved from this browser. Several reports overlay in the same charts: a cloud VM against a dedicated server, or this browser against the native tool on the same machine." }</p>
                </div>
                <div class={classes!("card", "dropzone", self.dragging.then_some("dragging"))}
                    ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
                    <p><strong>{ "Drop report files here" }</strong>{ " or " }
                        <label class="file-button">{ "choose files" }
                            <input type="file" id="report-file" accept=".json,application/json" multiple=true onchange={on_change} />
                        </label>
                    </p>
                    <form class="row url-form" onsubmit={link.callback(|e: SubmitEvent| { e.prevent_default(); Msg::LoadUrl })}>
                        <label for="report-url">{ "or load from a URL" }</label>
                        <input id="report-url" type="url" placeholder="https://example.com/memwall-report.json" value={self.url.clone()}
                            oninput={link.callback(|e: InputEvent| Msg::SetUrl(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default()))} />
                        <button type="submit">{ "Load" }</button>
                    </form>
                </div>
                if reports.is_empty() {
                    <p class="muted empty">{ "No reports open yet." }</p>
                } else {
                    <div class="hosts">{ for reports.iter().map(|r| self.host_card(ctx, r)) }</div>
                }
                if !with_ladder.is_empty() {
                    <div class="card">
                        { self.ladder_chart(props, &with_ladder, "report-ladder") }
                        <div class="row wrap-row">
                            <button type="button" onclick={link.callback(|_| Msg::ToggleLogY)}>{ if self.log_y { "Linear y axis" } else { "Log y axis" } }</button>
                            <button type="button" onclick={link.callback(|_| Msg::ExportSvg("report-ladder", "memwall-ladders.svg"))}>{ "Export SVG" }</button>
                            <button type="button" onclick={link.callback(|_| Msg::ExportPng("report-ladder", "memwall-ladders.png"))}>{ "Export PNG" }</button>
                            <button type="button" onclick={link.callback(|_| Msg::ExportCsv)}>{ "Export CSV" }</button>
                        </div>
                        { ladder_table(&with_ladder) }
                    </div>
                }
                if !with_groupby.is_empty() {
                    <div class="card">
                        { self.groupby_chart(props, &with_groupby, "report-groupby") }
                        <div class="row wrap-row">
                            <button type="button" onclick={link.callback(|_| Msg::ExportSvg("report-groupby", "memwall-groupby.svg"))}>{ "Export SVG" }</button>
                            <button type="button" onclick={link.callback(|_| Msg::ExportPng("report-groupby", "memwall-groupby.png"))}>{ "Export PNG" }</button>
                        </div>
                        { groupby_table(&with_groupby) }
                    </div>
                    { for self.sweep_charts(props, &with_groupby) }
                }
                if let Some(n) = &self.notice { <p class="notice" role="status">{ n.clone() }</p> }
                <EmbedPanel kind="report"
                    params={reports.iter().filter(|r| r.origin.starts_with("http")).map(|r| ("report".to_string(), r.origin.clone())).collect::<Vec<_>>()}
                    report={reports.first().map(|r| r.report.clone())} />
            </>
        }
    }
}

impl ReportsPage {
    fn host_line(&self, palette: Palette, r: &LoadedReport) -> Html {
        html! {
            <span class="host-chip">
                <span class="swatch" style={format!("background:{}", palette.color(r.id as usize))}></span>
                <strong>{ r.label.clone() }</strong>
                { format!(" · {}", r.report.source.name()) }
                if let Some(cpu) = &r.report.host.cpu_model { { format!(" · {cpu}") } }
            </span>
        }
    }

    fn host_card(&self, ctx: &Context<Self>, r: &LoadedReport) -> Html {
        let props = ctx.props();
        let host = &r.report.host;
        let id = r.id;
        let on_remove = props.on_remove.clone();
        let rows = host_rows(host, &r.report);
        html! {
            <article class="card host" aria-label={format!("Report {}", r.label)}>
                <header class="host-head">
                    <span class="swatch big" style={format!("background:{}", props.palette.color(r.id as usize))}></span>
                    <div>
                        <h2 class="host-name">{ r.label.clone() }</h2>
                        <p class="muted small">
                            <span class={classes!("badge", r.report.source.name())}>{ r.report.source.name() }</span>
                            { format!(" {} · {} · memwall {}", r.origin, util::format_date(r.report.created_unix_s), r.report.tool.version) }
                        </p>
                    </div>
                    <button type="button" class="link" onclick={Callback::from(move |_| on_remove.emit(id))} aria-label={format!("Close the report {}", r.label)}>{ "Close" }</button>
                </header>
                <dl class="facts">
                    { for rows.into_iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd>{ v }</dd></> }) }
                </dl>
                { crate::ladder_page::explanation(&r.report) }
            </article>
        }
    }

    fn ladder_chart(&self, props: &Props, reports: &[&LoadedReport], id: &'static str) -> Html {
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
                x_format={XFormat::Bytes} series={Rc::new(series)} markers={Rc::new(markers)} palette={props.palette} log_y={self.log_y} />
        }
    }

    fn groupby_chart(&self, props: &Props, reports: &[&LoadedReport], id: &'static str) -> Html {
        let mut bars = Vec::new();
        for r in reports {
            let Some(groupby) = &r.report.groupby else { continue };
            for run in &groupby.runs {
                let speedup =
                    summary::speedup_over_naive(groupby, run).map(|x| format!(" · {x:.1}× naive")).unwrap_or_default();
                let label = if reports.len() > 1 {
                    format!("{}: {}", short(&r.label, 12), run.kernel)
                } else {
                    run.kernel.clone()
                };
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
        html! { <BarChart id={id} title={title} value_label="ns per row (median run)" bars={Rc::new(bars)} palette={props.palette} /> }
    }

    fn sweep_charts(&self, props: &Props, reports: &[&LoadedReport]) -> Vec<Html> {
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
                            x_format={XFormat::Count} series={Rc::new(series)} palette={props.palette} log_y={false} />
                    </div>
                }
            })
            .collect()
    }

    fn csv(&self, reports: &[LoadedReport]) -> String {
        let labelled: Vec<(&str, &memwall_report::Report)> =
            reports.iter().map(|r| (r.label.as_str(), &*r.report)).collect();
        memwall_report::reports_csv(&labelled)
    }
}

fn short(text: &str, max: usize) -> String {
    if text.chars().count() > max { text.chars().take(max - 1).chain(['…']).collect() } else { text.to_string() }
}

/// What a report says about its host, as (label, value) rows; unknowns are left out.
fn host_rows(host: &Host, report: &Report) -> Vec<(&'static str, String)> {
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
fn ladder_table(reports: &[&LoadedReport]) -> Html {
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

fn groupby_table(reports: &[&LoadedReport]) -> Html {
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
