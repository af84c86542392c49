//! Reports opened on start: `?report=URL` (repeatable), a report carried in the fragment of a
//! share link (`#report=...`), and those `memwall serve` was given (its `reports/index.json`).

use memwall_report::index::{INDEX_PATH, ReportsIndex};
use yew::prelude::*;

use super::state::{ReportsAction, ReportsState};
use crate::util;

/// The most served reports opened on the Reports page by themselves; more are left to the Fleet tab.
pub const MAX_SIDE_BY_SIDE: usize = 8;

/// Opens them once, when the module is mounted; `served` asks for `memwall serve`'s list too.
#[hook]
pub fn use_reports_named_on_start(reports: &UseReducerHandle<ReportsState>, served: bool) {
    let dispatcher = reports.dispatcher();
    use_effect_with((), move |_| {
        let fragment = util::fragment();
        let urls = util::query_all("report");
        for url in urls.clone() {
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(match util::fetch_text(&url).await {
                    Ok(text) => ReportsAction::Load { text, origin: url, show: true },
                    Err(e) => ReportsAction::Error(format!("could not load the report at {url}: {e}")),
                });
            });
        }
        if let Some(packed) = fragment.strip_prefix("report=").map(str::to_string) {
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(match util::unpack(&packed).await {
                    Ok(text) => ReportsAction::Load { text, origin: "shared link".into(), show: true },
                    Err(e) => ReportsAction::Error(e),
                });
            });
        }
        // An embedded report shows what its URL names; only a bare report embed (or the full
        // page) lists what `memwall serve` was given.
        let named = !urls.is_empty() || fragment.starts_with("report=");
        if served && !(named && crate::util::query("embed").is_some()) {
            wasm_bindgen_futures::spawn_local(load_served(dispatcher));
        }
    });
}

async fn load_served(dispatcher: UseReducerDispatcher<ReportsState>) {
    // Only `memwall serve` has this; on a static host it is simply not there.
    let Ok(text) = util::fetch_text(INDEX_PATH).await else { return };
    let index = match ReportsIndex::from_json(&text) {
        Ok(index) => index,
        Err(e) => return dispatcher.dispatch(ReportsAction::Error(format!("{INDEX_PATH}: {e}"))),
    };
    // A fleet's folder is read by the Fleet tab, one row per report; opening hundreds of reports
    // side by side here would draw hundreds of ladders nobody can tell apart.
    if index.reports.len() > MAX_SIDE_BY_SIDE {
        return dispatcher.dispatch(ReportsAction::LeftToFleet(index.reports.len()));
    }
    for served in index.reports {
        dispatcher.dispatch(match util::fetch_text(&served.url).await {
            Ok(text) => ReportsAction::Served { text, origin: served.name },
            Err(e) => ReportsAction::Error(format!("could not load {}: {e}", served.name)),
        });
    }
}
