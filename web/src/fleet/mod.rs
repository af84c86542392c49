//! The Fleet tab: many hosts side by side, one row per report, as `memwall fleet` shows them
//! (the same rows, read by the same core code compiled to wasm). Its reports come from `memwall
//! serve`'s list, from `?fleet=URL` of a JSON index (`memwall_report::index::ReportsIndex`, its
//! URLs relative to it), or from files dropped here; a prices CSV (dropped, or `?prices=URL`)
//! adds its columns. A row opens its host's report on the Reports page; picked rows open there
//! together, overlaid.

mod load;
mod plot;
pub mod state;
pub mod table;

use yew::prelude::*;

use self::load::IndexKind;
pub use self::load::prefetch_index;
use self::state::{FleetAction, FleetState};
use self::table::FleetTable;
use crate::views::state::{ReportsAction, ViewsContext, use_views};
use crate::{chart, util};

/// Opens the reports of the hosts `ids`: on the Reports page, shown alone; in an embed, in a
/// new tab of the full page (`?report=URL`), since an embed has no Reports page.
fn open(views: &ViewsContext, fleet: &FleetState, ids: &[u32], embedded: bool) {
    let origins: Vec<state::Origin> =
        ids.iter().filter_map(|id| fleet.hosts.iter().find(|h| h.id == *id)).map(|h| h.origin.clone()).collect();
    if embedded {
        let query: Vec<String> = origins
            .iter()
            .filter_map(|o| match o {
                state::Origin::Url(url) => Some(format!("report={}", js_sys::encode_uri_component(url))),
                _ => None,
            })
            .collect();
        let _ = util::window()
            .open_with_url_and_target(&format!("{}?{}", util::page_base_url(), query.join("&")), "_blank");
        return;
    }
    let dispatcher = views.reports.dispatcher();
    wasm_bindgen_futures::spawn_local(async move {
        let mut picked = Vec::new();
        for origin in origins {
            match load::report_text(&origin).await {
                Ok(text) => picked.push((text, origin.name())),
                Err(e) => dispatcher.dispatch(ReportsAction::Error(format!("{}: {e}", origin.name()))),
            }
        }
        dispatcher.dispatch(ReportsAction::Focus(picked));
    });
}

/// Starts reading the fleet the URL names, else `memwall serve`'s, once the tab is first shown.
#[hook]
fn use_fleet_on_first_show(fleet: &UseReducerHandle<FleetState>, shown: bool) {
    let started = use_mut_ref(|| false);
    let dispatcher = fleet.dispatcher();
    use_effect_with(shown, move |&shown| {
        if shown && !*started.borrow() {
            *started.borrow_mut() = true;
            if let Some(url) = util::query("prices") {
                let dispatcher = dispatcher.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let parsed = util::fetch_text(&url)
                        .await
                        .and_then(|text| memwall_core::fleet::prices::Prices::parse(&text).map_err(|e| e.to_string()));
                    dispatcher.dispatch(FleetAction::Prices(parsed.map_err(|e| format!("?prices={url}: {e}"))));
                });
            }
            let (kind, source) = match util::query("fleet") {
                Some(url) => (IndexKind::Named(url.clone()), url),
                None => (IndexKind::Served, "memwall serve".to_string()),
            };
            wasm_bindgen_futures::spawn_local(load::from_index(kind, source, dispatcher));
        }
    });
}

/// Where the rows stand: read so far, still coming, why the list could not be read.
fn status(fleet: &FleetState) -> Html {
    let read = fleet.hosts.len();
    html! {
        <>
            if let Some(e) = &fleet.error {
                <div class="alert fleet-error" role="alert">{ e.clone() }</div>
            }
            if let Some(source) = &fleet.source {
                <p class="muted fleet-status" aria-live="polite" data-rows={read.to_string()} data-pending={fleet.pending.to_string()}>
                    { format!("{read} hosts from {source}") }
                    if fleet.pending > 0 { { format!(", reading {} more…", fleet.pending) } }
                    if !fleet.unreadable.is_empty() { { format!(", {} reports not read (below)", fleet.unreadable.len()) } }
                </p>
            }
            if let Some(note) = &fleet.prices_note {
                <p class="field-error prices-note" role="status">{ note.clone() }</p>
            }
        </>
    }
}

fn unreadable(fleet: &FleetState) -> Html {
    if fleet.unreadable.is_empty() {
        return html! {};
    }
    html! {
        <div class="card unreadable">
            <h2>{ format!("Not read ({})", fleet.unreadable.len()) }</h2>
            <ul>{ for fleet.unreadable.iter().map(|u| html! { <li><strong>{ u.report.clone() }</strong>{ format!(": {}", u.reason) }</li> }) }</ul>
        </div>
    }
}

/// Files picked or dropped: reports, and a prices CSV.
#[function_component(DropFleet)]
fn drop_fleet(props: &DropProps) -> Html {
    let dispatcher = props.fleet.dispatcher();
    let files = |list: Option<web_sys::FileList>| -> Vec<web_sys::File> {
        list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default()
    };
    let on_change = {
        let dispatcher = dispatcher.clone();
        Callback::from(move |e: Event| {
            load::from_files(
                files(chart::target::<web_sys::HtmlInputElement>(&e).and_then(|i| i.files())),
                dispatcher.clone(),
            )
        })
    };
    let on_drop = Callback::from(move |e: DragEvent| {
        e.prevent_default();
        load::from_files(files(e.data_transfer().and_then(|d| d.files())), dispatcher.clone());
    });
    html! {
        <div class="card dropzone" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
            <p><strong>{ "Drop reports here" }</strong>{ " (and a prices CSV: name,usd_per_hour,…) or " }
                <label class="file-button">{ "choose files" }
                    <input type="file" id="fleet-files" accept=".json,.csv,application/json,text/csv" multiple=true onchange={on_change} />
                </label>
            </p>
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct DropProps {
    fleet: UseReducerHandle<FleetState>,
}

/// The filter box, picks and exports over the table.
fn tools(fleet: &UseReducerHandle<FleetState>, compare: Callback<MouseEvent>) -> Html {
    let on_filter = {
        let fleet = fleet.clone();
        Callback::from(move |e: InputEvent| {
            let text = chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default();
            fleet.dispatch(FleetAction::Filter(text));
        })
    };
    let clear = {
        let fleet = fleet.clone();
        Callback::from(move |_| fleet.dispatch(FleetAction::ClearPicks))
    };
    let export = {
        let fleet = fleet.clone();
        Callback::from(move |_| {
            let rows: Vec<_> = fleet.shown().into_iter().map(|h| h.row.clone()).collect();
            let _ = util::download_text("memwall-fleet.csv", "text/csv", &memwall_report::fleet_csv(&rows));
        })
    };
    let picked = fleet.picked.len();
    html! {
        <div class="row wrap-row fleet-tools">
            <label for="fleet-filter">{ "Filter" }</label>
            <input id="fleet-filter" type="search" placeholder="kvm   hypervisor=none   dram_ns<100" value={fleet.filter.clone()} oninput={on_filter} />
            <button type="button" id="fleet-compare" disabled={picked < 2} onclick={compare}>{ format!("Compare {picked} picked") }</button>
            if picked > 0 { <button type="button" class="link" onclick={clear}>{ "Clear picks" }</button> }
            <button type="button" onclick={export}>{ "Export CSV" }</button>
            if let Some(e) = &fleet.filter_error { <p class="field-error" role="alert">{ e.clone() }</p> }
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub compact: bool,
}

#[function_component(FleetPage)]
pub fn fleet_page(props: &Props) -> Html {
    let views = use_views();
    let fleet = use_reducer(FleetState::default);
    let embedded = views.embed.is_some();
    use_fleet_on_first_show(&fleet, embedded || views.page == "fleet");
    let open = {
        let (views, fleet) = (views.clone(), fleet.clone());
        Callback::from(move |ids: Vec<u32>| open(&views, &fleet, &ids, embedded))
    };
    let compare = {
        let (open, fleet) = (open.clone(), fleet.clone());
        Callback::from(move |_| open.emit(fleet.picked.iter().copied().collect()))
    };
    let empty = fleet.source.is_none() && fleet.error.is_none();
    html! {
        <>
            if !props.compact {
                <div class="intro">
                    <h1>{ "Fleet: hosts side by side" }</h1>
                    <p>{ "One row per report, as " }<code>{ "memwall fleet" }</code>{ " prints them. Sort by any column, pick two or more hosts to overlay their reports, click a row to open one." }</p>
                </div>
                <DropFleet fleet={fleet.clone()} />
            }
            { status(&fleet) }
            if empty {
                <p class="muted empty">{ "No fleet yet: drop reports here, serve a folder with memwall serve --reports DIR, or name an index with ?fleet=URL." }</p>
            } else {
                { tools(&fleet, compare) }
                { plot::scatter(views.palette, &fleet, open.clone()) }
                <FleetTable fleet={fleet.clone()} open={open} />
                { unreadable(&fleet) }
            }
            if !props.compact {
                if let Some(url) = util::query("fleet") {
                    <crate::embed::EmbedPanel kind="fleet" params={vec![("fleet".to_string(), url)]} />
                }
            }
        </>
    }
}
