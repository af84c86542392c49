//! Reading a fleet: the reports an index lists (`memwall serve`'s `reports/index.json`, or
//! `?fleet=URL` of a JSON index), or files dropped on the page (reports, and a prices CSV).
//!
//! An index that carries the rows (`memwall serve`'s `reports/fleet.json`, or one written by
//! `memwall fleet --index`) is drawn from at once. Any other report is fetched, read into its row
//! by the core (`memwall_core::fleet::row`, as `memwall fleet` reads it) and dropped. A few are
//! fetched at once (a browser opens six connections to a host), and the rows go to the table in
//! batches, so a thousand reports cost a few renders rather than a thousand.

use std::cell::RefCell;
use std::rc::Rc;

use memwall_core::fleet::prices::Prices;
use memwall_report::Report;
use memwall_report::fleet::{FleetRow, Unreadable};
use memwall_report::index::{FLEET_PATH, INDEX_PATH, ReportsIndex};
use yew::prelude::*;

use super::state::{FleetAction, FleetState, Origin};
use crate::util;
use crate::worker::js_error;

type Dispatcher = UseReducerDispatcher<FleetState>;

/// Reports fetched at once.
const IN_FLIGHT: usize = 6;
/// A batch goes to the table once it is as large as what the table holds (so a thousand rows
/// cost about ten renders, not a render per row), at least this many rows...
const BATCH_ROWS: usize = 32;
/// ...or once its first row has waited this long (ms), for a slow server.
const BATCH_MS: f64 = 1500.0;

/// `url` made absolute against `base` (itself absolute), or why it is not a URL.
fn absolute(url: &str, base: &str) -> Result<String, String> {
    web_sys::Url::new_with_base(url, base)
        .map(|u| u.href())
        .map_err(|e| format!("{url:?} is not a URL ({})", js_error(e)))
}

/// A report's text read into its row, or why it cannot be.
fn read(text: &str, name: &str) -> Result<FleetRow, Unreadable> {
    // The checks every report opened in the page gets, implausible figures included.
    Report::from_untrusted_json(text)
        .map(|report| memwall_core::fleet::row(report, name))
        .map_err(|e| Unreadable { report: name.into(), reason: e.to_string() })
}

/// Rows waiting for their batch.
#[derive(Default)]
struct Batch {
    rows: Vec<(FleetRow, Origin)>,
    unreadable: Vec<Unreadable>,
    since: f64,
    /// Reports already sent to the table.
    sent: usize,
}

impl Batch {
    /// Sends what waits when it is large enough or has waited long enough, or when `last`.
    fn flush(&mut self, dispatcher: &Dispatcher, last: bool) {
        let now = js_sys::Date::now();
        let waiting = self.rows.len() + self.unreadable.len();
        if last || waiting >= self.sent.max(BATCH_ROWS) || now - self.since >= BATCH_MS {
            self.since = now;
            self.sent += waiting;
            let (rows, unreadable) = (std::mem::take(&mut self.rows), std::mem::take(&mut self.unreadable));
            if last || !rows.is_empty() || !unreadable.is_empty() {
                dispatcher.dispatch(FleetAction::Batch { rows, unreadable });
            }
        }
    }
}

/// Where an index comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexKind {
    /// `memwall serve`'s: its URLs are relative to the page (as `memwall_report::index` says),
    /// and a page on a static host has none, which is no error.
    Served,
    /// Named by `?fleet=URL`: its URLs are relative to the index itself.
    Named(String),
}

/// `memwall serve`'s index with rows, else (an older server) its plain one; `None` on a static
/// host, which has neither.
async fn served_index(page: &str) -> Option<(String, String)> {
    for path in [FLEET_PATH, INDEX_PATH] {
        if let Ok(url) = absolute(path, page)
            && let Ok(text) = util::fetch_text(&url).await
        {
            return Some((url, text));
        }
    }
    None
}

/// Starts fetching the index the Fleet tab reads first (`?fleet=`'s, else `memwall serve`'s with
/// rows) while the module that reads it is still downloading: the page opens on the fleet.
pub fn prefetch_index() {
    let page = util::window().location().href().unwrap_or_default();
    if let Ok(url) = absolute(util::query("fleet").as_deref().unwrap_or(FLEET_PATH), &page) {
        util::prefetch_text(&url);
    }
}

/// Reads the reports an index lists.
pub async fn from_index(kind: IndexKind, source: String, dispatcher: Dispatcher) {
    let page = util::window().location().href().unwrap_or_default();
    let (located, text) = match &kind {
        IndexKind::Served => match served_index(&page).await {
            Some(found) => found,
            None => return,
        },
        IndexKind::Named(index_url) => {
            let located = match absolute(index_url, &page) {
                Ok(url) => url,
                Err(e) => return dispatcher.dispatch(FleetAction::Failed(format!("The fleet index: {e}."))),
            };
            match util::fetch_text(&located).await {
                Ok(text) => (located, text),
                Err(e) => {
                    return dispatcher.dispatch(FleetAction::Failed(format!(
                        "Could not fetch the fleet index at {index_url}: {e}."
                    )));
                }
            }
        }
    };
    let index_url = match &kind {
        IndexKind::Served => located.as_str(),
        IndexKind::Named(url) => url.as_str(),
    };
    let index = match ReportsIndex::from_json(&text) {
        Ok(index) => index,
        Err(e) => {
            return dispatcher.dispatch(FleetAction::Failed(format!(
                "The fleet index at {index_url} is not a list of reports ({{\"reports\": [{{\"name\": …, \"url\": …}}]}}): {e}."
            )));
        }
    };
    dispatcher.dispatch(FleetAction::Begin { source, count: index.reports.len() });
    let base = if matches!(kind, IndexKind::Named(_)) { located } else { page };
    let mut batch = Batch { since: js_sys::Date::now(), ..Batch::default() };
    let mut queue: Vec<(String, Result<String, String>)> = Vec::new();
    for entry in index.reports.into_iter().rev() {
        let url = absolute(&entry.url, &base);
        match (entry.row, entry.unreadable, url) {
            (Some(row), _, Ok(url)) => batch.rows.push((row, Origin::Url(url))),
            (None, Some(reason), _) => batch.unreadable.push(Unreadable { report: entry.name, reason }),
            (_, _, url) => queue.push((entry.name, url)),
        }
    }
    // The index's own rows, in its order, in one render now (an empty batch costs nothing).
    batch.rows.reverse();
    batch.unreadable.reverse();
    batch.flush(&dispatcher, true);
    if queue.is_empty() {
        return;
    }
    let queue = Rc::new(RefCell::new(queue));
    let batch = Rc::new(RefCell::new(batch));
    let running = Rc::new(RefCell::new(IN_FLIGHT));
    for _ in 0..IN_FLIGHT {
        let (queue, batch, running, dispatcher) = (queue.clone(), batch.clone(), running.clone(), dispatcher.clone());
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                let next = queue.borrow_mut().pop();
                let Some((name, url)) = next else { break };
                let read = match url {
                    Ok(url) => match util::fetch_text(&url).await {
                        Ok(text) => read(&text, &name).map(|row| (row, Origin::Url(url))),
                        Err(e) => Err(Unreadable { report: name, reason: format!("could not fetch it: {e}") }),
                    },
                    Err(e) => Err(Unreadable { report: name, reason: e }),
                };
                let mut batch = batch.borrow_mut();
                match read {
                    Ok(row) => batch.rows.push(row),
                    Err(unreadable) => batch.unreadable.push(unreadable),
                }
                batch.flush(&dispatcher, false);
            }
            *running.borrow_mut() -= 1;
            if *running.borrow() == 0 {
                batch.borrow_mut().flush(&dispatcher, true);
            }
        });
    }
}

/// Reads files picked or dropped: reports become the fleet (replacing what was shown), a
/// `.csv` is the prices joined onto it.
pub fn from_files(files: Vec<web_sys::File>, dispatcher: Dispatcher) {
    let (prices, reports): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|f| f.name().to_lowercase().ends_with(".csv"));
    for file in prices {
        let dispatcher = dispatcher.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.name();
            let parsed = util::read_file(&file).await.and_then(|text| Prices::parse(&text).map_err(|e| e.to_string()));
            dispatcher.dispatch(FleetAction::Prices(parsed.map_err(|e| format!("{name}: {e}"))));
        });
    }
    if reports.is_empty() {
        return;
    }
    dispatcher.dispatch(FleetAction::Begin { source: format!("{} files", reports.len()), count: reports.len() });
    wasm_bindgen_futures::spawn_local(async move {
        let mut batch = Batch { since: js_sys::Date::now(), ..Batch::default() };
        for file in reports {
            let name = file.name();
            match util::read_file(&file).await {
                Ok(text) => match read(&text, &name) {
                    Ok(row) => batch.rows.push((row, Origin::File(file))),
                    Err(unreadable) => batch.unreadable.push(unreadable),
                },
                Err(e) => batch.unreadable.push(Unreadable { report: name, reason: e }),
            }
            batch.flush(&dispatcher, false);
        }
        batch.flush(&dispatcher, true);
    });
}

/// The text of a row's report, read again from where it came from.
pub async fn report_text(origin: &Origin) -> Result<String, String> {
    match origin {
        Origin::Url(url) => util::fetch_text(url).await,
        Origin::File(file) => util::read_file(file).await,
        Origin::Shelf(_) => Err("an instance type of the cloud shelf has no report of its own".into()),
    }
}
