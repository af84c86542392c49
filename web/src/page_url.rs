//! The page's own URL: its query parameters, its fragment, its base for embed and share links.

use wasm_bindgen::JsValue;

use crate::dom::window;

/// All values of a query parameter of the page's URL.
pub fn query_all(name: &str) -> Vec<String> {
    let search = window().location().search().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else { return Vec::new() };
    params.get_all(name).iter().filter_map(|v| v.as_string()).collect()
}

pub fn query(name: &str) -> Option<String> {
    query_all(name).into_iter().next()
}

/// The page's fragment without the `#`.
pub fn fragment() -> String {
    let hash = window().location().hash().unwrap_or_default();
    hash.strip_prefix('#').unwrap_or(&hash).to_string()
}

/// Replaces the fragment without adding a history entry or scrolling.
pub fn set_fragment(fragment: &str) {
    let url = if fragment.is_empty() {
        let location = window().location();
        format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default())
    } else {
        format!("#{fragment}")
    };
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// The page's URL without query and fragment: the base of embed and share links.
pub fn page_base_url() -> String {
    let location = window().location();
    format!("{}{}", location.origin().unwrap_or_default(), location.pathname().unwrap_or_default())
}
