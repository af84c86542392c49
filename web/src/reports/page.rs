//! Reports: open native (and browser) reports, see each host, and overlay their ladders and
//! GROUP BY races in the same charts.

use yew::prelude::*;

use super::LoadedReport;
use super::charts::{engine_charts, groupby_chart, ladder_chart, sweep_charts};
use super::tables::{groupby_table, host_rows, ladder_table};
use super::vm_hides::{CoresCard, SensitivityCard, WatchCard};
use crate::embed::EmbedPanel;
use crate::theme::Palette;
use crate::views::state::{ReportsAction, ViewsContext, use_views};
use crate::{chart, util};

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Reads the files picked or dropped; each is opened as a report, or says why not.
fn open_files(views: &ViewsContext, files: Vec<web_sys::File>) {
    for file in files {
        let dispatcher = views.reports.dispatcher();
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.name();
            dispatcher.dispatch(match util::read_file(&file).await {
                Ok(text) => ReportsAction::Load { text, origin: name, show: false },
                Err(e) => ReportsAction::Error(format!("{name}: could not read the file: {e}")),
            });
        });
    }
}

fn host_line(palette: Palette, r: &LoadedReport) -> Html {
    html! {
        <span class="host-chip">
            <span class="swatch" style={format!("background:{}", palette.color(r.id as usize))}></span>
            <strong>{ r.label.clone() }</strong>
            { format!(" · {}", r.report.source.name()) }
            if let Some(cpu) = &r.report.host.cpu_model { { format!(" · {cpu}") } }
        </span>
    }
}

fn host_card(views: &ViewsContext, r: &LoadedReport) -> Html {
    let palette = views.palette;
    let (id, reports) = (r.id, views.reports.clone());
    html! {
        <article class="card host" aria-label={format!("Report {}", r.label)}>
            <header class="host-head">
                <span class="swatch big" style={format!("background:{}", palette.color(r.id as usize))}></span>
                <div>
                    <h2 class="host-name">{ r.label.clone() }</h2>
                    <p class="muted small">
                        <span class={classes!("badge", r.report.source.name())}>{ r.report.source.name() }</span>
                        { format!(" {} · {} · memwall {}", r.origin, util::format_date(r.report.created_unix_s), r.report.tool.version) }
                    </p>
                </div>
                <button type="button" class="link" onclick={Callback::from(move |_| reports.dispatch(ReportsAction::Remove(id)))} aria-label={format!("Close the report {}", r.label)}>{ "Close" }</button>
            </header>
            <dl class="facts">
                { for host_rows(&r.report.host, &r.report).into_iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd>{ v }</dd></> }) }
            </dl>
            { crate::ladder::explanation(&r.report) }
        </article>
    }
}

/// The exports of the reports' charts (SVG, PNG) and of their figures (CSV).
fn export(
    what: &'static str,
    id: &'static str,
    file: &'static str,
    notice: &UseStateHandle<Option<String>>,
    views: &ViewsContext,
) -> Callback<MouseEvent> {
    let (notice, reports) = (notice.clone(), views.reports.reports.clone());
    Callback::from(move |_: MouseEvent| {
        let result = match what {
            "svg" => util::download_svg(id, file),
            "csv" => {
                let labelled: Vec<(&str, &memwall_report::Report)> =
                    reports.iter().map(|r| (r.label.as_str(), &*r.report)).collect();
                util::download_text(file, "text/csv", &memwall_report::reports_csv(&labelled))
            }
            _ => {
                let notice = notice.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = util::download_png(id, file).await {
                        notice.set(Some(format!("Could not export the PNG: {e}")));
                    }
                });
                Ok(())
            }
        };
        if let Err(e) = result {
            notice.set(Some(format!("Could not export: {e}")));
        }
    })
}

/// Says when the page shows only the reports picked in the Fleet tab, or leaves `memwall
/// serve`'s reports to it.
fn focus_note(views: &ViewsContext) -> Html {
    let state = &views.reports;
    let all = state.reports.len();
    let show_all = {
        let reports = views.reports.clone();
        Callback::from(move |_| reports.dispatch(ReportsAction::ShowAll))
    };
    let to_fleet = Callback::from(|_| {
        util::set_fragment("fleet");
        crate::bridge::post(crate::bridge::NAVIGATE, &wasm_bindgen::JsValue::from_str("fleet"));
    });
    html! {
        <>
            if let Some(ids) = state.focus.as_ref().filter(|_| all > state.visible().len()) {
                <p class="notice focus-note" role="status">
                    { format!("Showing the {} report{} picked in the Fleet tab ({all} open). ", ids.len(), if ids.len() == 1 { "" } else { "s" }) }
                    <button type="button" class="link" onclick={show_all}>{ "Show all open reports" }</button>
                </p>
            }
            if state.left_to_fleet > 0 {
                <p class="muted">{ format!("memwall serve lists {} reports: too many to open side by side here. Pick hosts in the ", state.left_to_fleet) }<button type="button" class="link to-fleet" onclick={to_fleet}>{ "Fleet tab" }</button>{ "." }</p>
            }
        </>
    }
}

/// Where reports are opened: files picked or dropped, or a URL.
#[function_component(OpenReports)]
fn open_reports() -> Html {
    let views = use_views();
    let url = use_state(String::new);
    let dragging = use_state(|| false);
    let on_change = {
        let views = views.clone();
        Callback::from(move |e: Event| {
            open_files(&views, files_of(chart::target::<web_sys::HtmlInputElement>(&e).and_then(|i| i.files())))
        })
    };
    let on_drop = {
        let (views, dragging) = (views.clone(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            open_files(&views, files_of(e.data_transfer().and_then(|d| d.files())));
        })
    };
    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(true);
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let on_url = {
        let url = url.clone();
        Callback::from(move |e: InputEvent| {
            url.set(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
        })
    };
    let on_load_url = {
        let (url, views) = (url.clone(), views.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let url = url.trim().to_string();
            if url.is_empty() {
                return;
            }
            let dispatcher = views.reports.dispatcher();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(match util::fetch_text(&url).await {
                    Ok(text) => ReportsAction::Load { text, origin: url, show: false },
                    Err(e) => ReportsAction::Error(format!("could not load the report at {url}: {e}")),
                });
            });
        })
    };
    html! {
        <div class={classes!("card", "dropzone", dragging.then_some("dragging"))}
            ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
            <p><strong>{ "Drop report files here" }</strong>{ " or " }
                <label class="file-button">{ "choose files" }
                    <input type="file" id="report-file" accept=".json,application/json" multiple=true onchange={on_change} />
                </label>
            </p>
            <form class="row url-form" onsubmit={on_load_url}>
                <label for="report-url">{ "or load from a URL" }</label>
                <input id="report-url" type="url" placeholder="https://example.com/memwall-report.json" value={(*url).clone()} oninput={on_url} />
                <button type="submit">{ "Load" }</button>
            </form>
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub compact: bool,
}

#[function_component(ReportsPage)]
pub fn reports_page(props: &Props) -> Html {
    let views = use_views();
    let log_y = use_state(|| true);
    let notice = use_state(|| None::<String>);
    let palette = views.palette;
    let reports = views.reports.visible();
    let with_ladder: Vec<&LoadedReport> = reports.iter().copied().filter(|r| r.report.ladder.is_some()).collect();
    let with_groupby: Vec<&LoadedReport> = reports.iter().copied().filter(|r| r.report.groupby.is_some()).collect();

    if props.compact {
        return html! {
            <div class="card">
                if reports.is_empty() {
                    <p class="muted">{ "No report: give one with ?report=URL or a share link." }</p>
                }
                <div class="host-line">{ for reports.iter().map(|r| host_line(palette, r)) }</div>
                if !with_ladder.is_empty() { { ladder_chart(palette, *log_y, &with_ladder, "report-ladder-embed") } }
                if !with_groupby.is_empty() { { groupby_chart(palette, &with_groupby, "report-groupby-embed") } }
            </div>
        };
    }

    let export = |what, id, file| export(what, id, file, &notice, &views);
    let shown: Vec<LoadedReport> = reports.iter().map(|r| (*r).clone()).collect();
    let toggle_log = {
        let log_y = log_y.clone();
        Callback::from(move |_| log_y.set(!*log_y))
    };
    html! {
        <>
            <div class="intro">
                <h1>{ "Reports from real hosts" }</h1>
                <p>{ "Open the JSON that " }<code>{ "memwall run" }</code>{ " writes (memwall-report.json), or a run saved from this browser. Several reports overlay in the same charts: a cloud VM against a dedicated server, or this browser against the native tool on the same machine." }</p>
            </div>
            <OpenReports />
            { focus_note(&views) }
            if reports.is_empty() {
                <p class="muted empty">{ "No reports open yet." }</p>
            } else {
                <div class="hosts">{ for reports.iter().map(|r| host_card(&views, r)) }</div>
            }
            if !with_ladder.is_empty() {
                <div class="card">
                    { ladder_chart(palette, *log_y, &with_ladder, "report-ladder") }
                    <div class="row wrap-row">
                        <button type="button" onclick={toggle_log}>{ if *log_y { "Linear y axis" } else { "Log y axis" } }</button>
                        <button type="button" onclick={export("svg", "report-ladder", "memwall-ladders.svg")}>{ "Export SVG" }</button>
                        <button type="button" onclick={export("png", "report-ladder", "memwall-ladders.png")}>{ "Export PNG" }</button>
                        <button type="button" onclick={export("csv", "", "memwall-reports.csv")}>{ "Export CSV" }</button>
                    </div>
                    { ladder_table(&with_ladder) }
                </div>
            }
            if !with_groupby.is_empty() {
                <div class="card">
                    { groupby_chart(palette, &with_groupby, "report-groupby") }
                    <div class="row wrap-row">
                        <button type="button" onclick={export("svg", "report-groupby", "memwall-groupby.svg")}>{ "Export SVG" }</button>
                        <button type="button" onclick={export("png", "report-groupby", "memwall-groupby.png")}>{ "Export PNG" }</button>
                    </div>
                    { groupby_table(&with_groupby) }
                </div>
                { for sweep_charts(palette, &with_groupby) }
            }
            { for engine_charts(palette, &reports) }
            <SensitivityCard reports={shown.clone()} {palette} />
            <CoresCard reports={shown.clone()} {palette} />
            <WatchCard reports={shown} {palette} />
            if let Some(n) = &*notice { <p class="notice" role="status">{ n.clone() }</p> }
            <EmbedPanel kind="report"
                params={reports.iter().filter(|r| r.origin.starts_with("http")).map(|r| ("report".to_string(), r.origin.clone())).collect::<Vec<_>>()}
                report={reports.first().map(|r| r.report.clone())} />
        </>
    }
}
