//! Whether the second module is wanted from the start: a report named in the URL (`?report=`,
//! a share link's `#report=`), or reports `memwall serve` was given (its `reports/index.json`).
//! The second module opens them; the first view only looks whether there are any.

use memwall_report::index::INDEX_PATH;
use yew::prelude::*;

use crate::context::{AppAction, AppContext, Embed};
use crate::util;

/// Whether `memwall serve`'s list (`reports/index.json`) names a report: a static host has no
/// list. An unreadable list counts as one, so that the second module says what is wrong with it.
async fn served_any() -> bool {
    let Ok(text) = util::fetch_text(INDEX_PATH).await else { return false };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|index| index.get("reports")?.as_array().map(|list| !list.is_empty()))
        .unwrap_or(true)
}

#[hook]
pub fn use_reports_named_on_start(state: &AppContext) {
    let dispatcher = state.dispatcher();
    let embed = state.embed;
    use_effect_with((), move |_| {
        if !util::query_all("report").is_empty() || util::fragment().starts_with("report=") {
            dispatcher.dispatch(AppAction::WantViews);
        } else if embed.is_none() || embed == Some(Embed::Report) {
            wasm_bindgen_futures::spawn_local(async move {
                if served_any().await {
                    dispatcher.dispatch(AppAction::WantViews);
                }
            });
        }
    });
}
