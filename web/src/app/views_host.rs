//! The first view's side of the second module (see `bridge.rs`): fetch and mount it once it is
//! wanted, keep it told of the page and the theme, hand it the reports measured here, and take
//! what it says back about its reports and where to go.

use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::bridge::{self, Listener};
use crate::context::{AppAction, AppContext, Page};
use crate::overlay;

/// Where the second module is.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ViewsStatus {
    #[default]
    NotWanted,
    Fetching,
    Ready,
    Failed(String),
}

/// What the second module is told: theme, page, whether embedded (and as what), the first
/// look once measured and the ladder tab's last run once read (in the state it mounts with, or in the next word after it: never in a
/// word of its own that could come before the second module listens).
fn views_state(state: &AppContext) -> JsValue {
    bridge::object(&[
        ("theme", JsValue::from_str(state.theme.name())),
        ("page", JsValue::from_str(state.page.slug())),
        ("embed", state.embed.map_or(JsValue::NULL, |e| JsValue::from_str(e.slug()))),
        ("first_look", state.first_look.as_deref().map_or(JsValue::NULL, |json| JsValue::from_str(json))),
        ("ladder_run", state.ladder_run.as_deref().map_or(JsValue::NULL, |json| JsValue::from_str(json))),
    ])
}

#[hook]
pub fn use_views(state: &AppContext) -> ViewsStatus {
    let status = use_state(ViewsStatus::default);
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |_| {
            let reports = {
                let dispatcher = dispatcher.clone();
                Listener::new(bridge::REPORTS, move |detail| {
                    let count = bridge::field(&detail, "count").as_f64().unwrap_or(0.0) as usize;
                    let text = bridge::field(&detail, "overlays").as_string().unwrap_or_default();
                    // The second module wrote it; text it cannot read is a bug, and the chart
                    // simply goes without the reports.
                    let overlays = overlay::decode(&text).unwrap_or_default();
                    dispatcher.dispatch(AppAction::Reports { count, overlays });
                })
            };
            let navigate = Listener::new(bridge::NAVIGATE, move |detail| {
                if let Some(page) = detail.as_string().as_deref().and_then(Page::from_slug) {
                    dispatcher.dispatch(AppAction::Navigate(page));
                }
            });
            move || drop((reports, navigate))
        });
    }
    {
        let (status, payload) = (status.clone(), views_state(state));
        use_effect_with(state.views, move |&wanted| {
            if wanted && *status == ViewsStatus::NotWanted {
                status.set(ViewsStatus::Fetching);
                wasm_bindgen_futures::spawn_local(async move {
                    status.set(match bridge::mount_views(payload).await {
                        Ok(()) => ViewsStatus::Ready,
                        Err(e) => ViewsStatus::Failed(e),
                    });
                });
            }
        });
    }
    let ready = *status == ViewsStatus::Ready;
    {
        let payload = views_state(state);
        let ladders = (state.first_look.clone(), state.ladder_run.clone());
        use_effect_with((state.page, state.theme, ready, ladders), move |(_, _, ready, _)| {
            if *ready {
                bridge::post(bridge::STATE, &payload);
            }
        });
    }
    {
        let (outbox, dispatcher) = (state.outbox.clone(), state.dispatcher());
        use_effect_with((outbox, ready), move |(outbox, ready)| {
            if *ready && !outbox.is_empty() {
                for json in outbox.iter() {
                    bridge::post(bridge::ADD_REPORT, &JsValue::from_str(json));
                }
                dispatcher.dispatch(AppAction::Sent);
            }
        });
    }
    (*status).clone()
}
