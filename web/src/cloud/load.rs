//! The shelf fetched (`cloud/shelf.json` beside the page, copied there by trunk) the first time
//! the Cloud tab opens, and read here by the core: every curve's levels by the reader the page
//! and `memwall cloud` share. Nothing of it is in either wasm module.

use std::rc::Rc;

use memwall_core::cloud::{self, LoadedShelf};
use yew::prelude::*;

use crate::fleet::state::{FleetAction, FleetState, Origin};
use crate::util;

/// Where the shelf is, relative to the page.
pub const SHELF_URL: &str = "cloud/shelf.json";

/// The shelf once read, and what reading it took.
#[derive(Debug, Clone)]
pub struct Read {
    pub loaded: Rc<LoadedShelf>,
    /// Milliseconds fetching the file, and reading it (parsing, then every curve's levels).
    pub fetch_ms: f64,
    pub read_ms: f64,
    pub bytes: usize,
}

impl PartialEq for Read {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.loaded, &other.loaded)
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum Status {
    #[default]
    NotYet,
    Loading,
    Ready(Read),
    Failed(String),
}

/// Starts fetching the shelf now (the first view calls this when the Cloud tab opens, so the
/// file comes down beside the second module rather than after it).
pub fn prefetch() {
    let page = util::window().location().href().unwrap_or_default();
    if let Ok(url) = web_sys::Url::new_with_base(SHELF_URL, &page) {
        util::prefetch_text(&url.href());
    }
}

fn now() -> f64 {
    util::window().performance().map_or(0.0, |p| p.now())
}

/// Fetches and reads the shelf once `shown`; its rows go to `fleet` (the fleet's table state).
#[hook]
pub fn use_shelf_on_first_show(shown: bool, fleet: &UseReducerHandle<FleetState>) -> UseStateHandle<Status> {
    let status = use_state(Status::default);
    {
        let (status, fleet) = (status.clone(), fleet.dispatcher());
        use_effect_with(shown, move |&shown| {
            if shown && *status == Status::NotYet {
                status.set(Status::Loading);
                wasm_bindgen_futures::spawn_local(async move { status.set(load(&fleet).await) });
            }
        });
    }
    status
}

async fn load(fleet: &UseReducerDispatcher<FleetState>) -> Status {
    let started = now();
    let text = match util::fetch_text(SHELF_URL).await {
        Ok(text) => text,
        Err(e) => return Status::Failed(format!("could not load the cloud shelf ({SHELF_URL}): {e}")),
    };
    let fetched = now();
    let (loaded, rows) = match cloud::shelf_rows(&text) {
        Ok(read) => read,
        Err(e) => return Status::Failed(format!("{SHELF_URL}: {e}")),
    };
    let read_ms = now() - fetched;
    fleet.dispatch(FleetAction::Begin { source: "the cloud shelf".into(), count: rows.len() });
    let rows = rows.into_iter().enumerate().map(|(i, row)| (row, Origin::Shelf(i))).collect();
    fleet.dispatch(FleetAction::Batch { rows, unreadable: vec![] });
    Status::Ready(Read { loaded: Rc::new(loaded), fetch_ms: fetched - started, read_ms, bytes: text.len() })
}
