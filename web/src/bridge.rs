//! The first view and the second module on one page.
//!
//! The reports and the races (GROUP BY and join: their pages, kernels and workers) are a second
//! wasm module, `memwall-views`, fetched the first time one of them is wanted (a page of its
//! opened, a report named or added), so that a visitor who came for the ladder downloads neither
//! serde's reading of the report schema nor the kernels. Each module runs its own yew app: the
//! first view owns the page and the theme and tells the second; the second owns the reports and
//! tells the first how many are open and what of each the ladder's chart draws (`overlay.rs`).
//! The second draws into elements the first renders for it (`#views-…`), through portals. Both
//! sides speak through DOM events on the document, with plain objects and text as the payload.

use wasm_bindgen::prelude::*;

use crate::worker::js_error;

#[wasm_bindgen(inline_js = r#"
export async function load_views(glue, wasm, state) {
  const views = await import(glue);
  await views.default({ module_or_path: wasm });
  // The second app's own root draws nothing itself (its pages go into the first view's
  // elements through portals), so it stays out of the layout.
  const root = document.createElement("div");
  root.hidden = true;
  document.body.append(root);
  views.memwall_views_mount(root, state);
}
export function send(kind, detail) {
  document.dispatchEvent(new CustomEvent(kind, { detail }));
}
export function listen(kind, callback) {
  const handler = (event) => callback(event.detail);
  document.addEventListener(kind, handler);
  return () => document.removeEventListener(kind, handler);
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn load_views(glue: &str, wasm: &str, state: &JsValue) -> Result<JsValue, JsValue>;
    fn send(kind: &str, detail: &JsValue);
    fn listen(kind: &str, callback: &Closure<dyn FnMut(JsValue)>) -> js_sys::Function;
}

/// First view to second: the theme, the page shown, the embed, and this browser's first look
/// and the ladder tab's last run, each as a report's JSON once measured (`{ theme, page, embed,
/// first_look, ladder_run }`).
pub const STATE: &str = "memwall:state";
/// First view to second: a report measured in this browser, as JSON, to add.
pub const ADD_REPORT: &str = "memwall:add-report";
/// Second to first view: the reports open (`{ count, overlays }`, see `overlay.rs`).
pub const REPORTS: &str = "memwall:reports";
/// Second to first view: show this page (a page's slug), as opening a report named in the URL does.
pub const NAVIGATE: &str = "memwall:navigate";

/// The elements the second module draws into.
pub const ALERTS_HOST: &str = "views-alerts";
pub const REPORTS_HOST: &str = "views-reports";
pub const RACES_HOST: &str = "views-races";
pub const FLEET_HOST: &str = "views-fleet";
pub const CLOUD_HOST: &str = "views-cloud";

/// trunk names the second module's files after its binary, without a content hash (see Trunk.toml);
/// the first view's own hashed name goes on their URLs, so a new build is never paired with a
/// stale cached second module.
fn views_url(file: &str) -> Result<String, String> {
    let glue = crate::worker::glue_url();
    let version = glue.rsplit('/').next().unwrap_or_default().trim_end_matches(".js").to_string();
    let url = web_sys::Url::new_with_base(file, &glue).map_err(js_error)?;
    url.search_params().set("v", &version);
    Ok(url.href())
}

/// Fetches, starts and mounts the second module, with the state it starts from.
pub async fn mount_views(state: JsValue) -> Result<(), String> {
    load_views(&views_url("memwall-views.js")?, &views_url("memwall-views_bg.wasm")?, &state)
        .await
        .map(|_| ())
        .map_err(|e| format!("could not load the reports and races: {}", js_error(e)))
}

pub fn post(kind: &str, detail: &JsValue) {
    send(kind, detail);
}

/// Hears `kind` until dropped.
pub struct Listener {
    stop: js_sys::Function,
    _callback: Closure<dyn FnMut(JsValue)>,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Listener")
    }
}

impl Listener {
    pub fn new(kind: &str, on: impl FnMut(JsValue) + 'static) -> Self {
        let callback = Closure::<dyn FnMut(JsValue)>::new(on);
        let stop = listen(kind, &callback);
        Self { stop, _callback: callback }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

/// The element with this id, for a portal.
pub fn host(id: &str) -> Option<web_sys::Element> {
    crate::util::document().get_element_by_id(id)
}

/// A field of a payload object.
pub fn field(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// A payload object from (key, value) pairs.
pub fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let object = js_sys::Object::new();
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&object, &(*key).into(), value);
    }
    object.into()
}
