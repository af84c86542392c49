//! Small browser chores: files, fetching, downloads, clipboard, compression, what a run may ask
//! of a browser. The window (`dom.rs`), the page's URL (`page_url.rs`) and text formats (`text.rs`)
//! have files of their own, re-exported here for the pages that take them from `util`.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

pub use crate::dom::{browser_name, document, user_agent, window};
pub use crate::page_url::{fragment, page_base_url, query, query_all, set_fragment};
pub use crate::text::{format_date, format_duration, group_digits, minify_json, unix_now};
use crate::worker::js_error;

#[wasm_bindgen(inline_js = r#"
export async function deflate_to_base64url(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
// Reads a byte stream as UTF-8 text, or gives up (undefined) once it passes `cap` bytes: what a
// stranger's server or share link sends is never held whole beyond the cap.
async function read_capped(stream, cap) {
  const reader = stream.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}
export async function inflate_from_base64url(data, cap) {
  const binary = atob(data.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return await read_capped(stream, cap);
}
// Bodies asked for ahead of need (`prefetch_capped`), on the window so that the second wasm
// module, which shares nothing else with the first, takes them: URL -> fetch_capped's promise.
function ahead() {
  return (globalThis.__memwallAhead ??= new Map());
}
export function prefetch_capped(url, cap) {
  if (ahead().has(url)) return;
  const body = fetch_now(url, cap);
  // Never taken (the visitor left the tab) is no error to report.
  body.catch(() => {});
  ahead().set(url, body);
}
// The body as text; a number (the declared length) when the server says it is over `cap`;
// undefined when it turns out to be over `cap` while reading.
export async function fetch_capped(url, cap) {
  const early = ahead().get(url);
  if (early) {
    ahead().delete(url);
    return await early;
  }
  return await fetch_now(url, cap);
}
async function fetch_now(url, cap) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  const declared = Number(response.headers.get("content-length"));
  if (declared > cap) {
    await response.body?.cancel().catch(() => {});
    return declared;
  }
  return response.body ? await read_capped(response.body, cap) : "";
}
export async function svg_to_png(markup, width, height, scale) {
  const url = URL.createObjectURL(new Blob([markup], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext("2d");
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser could not encode a PNG"))), "image/png"));
  } finally {
    URL.revokeObjectURL(url);
  }
}
export async function copy_text(text) {
  await navigator.clipboard.writeText(text);
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn deflate_to_base64url(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn inflate_from_base64url(data: &str, cap: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn fetch_capped(url: &str, cap: f64) -> Result<JsValue, JsValue>;
    fn prefetch_capped(url: &str, cap: f64);
    #[wasm_bindgen(catch)]
    async fn svg_to_png(markup: &str, width: f64, height: f64, scale: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn copy_text(text: &str) -> Result<JsValue, JsValue>;
}

/// The most one run may ask of a page: a wasm32 heap ends at 4 GiB, and the page's own code,
/// the JavaScript side and the copies a run makes need the rest.
pub const MAX_BROWSER_BYTES: u64 = 3 << 30;

/// Refuses, in words a reader can act on, a run that needs more than a browser gives.
pub fn fits_in_browser(needed: u64) -> Result<(), String> {
    if needed <= MAX_BROWSER_BYTES {
        return Ok(());
    }
    Err(format!(
        "this needs about {} of memory; a browser gives WebAssembly at most 4 GiB, so keep it under {} (the native memwall has no such limit)",
        memwall_core::size::format_bytes(needed),
        memwall_core::size::format_bytes(MAX_BROWSER_BYTES)
    ))
}

/// The notice for an export the browser refused, if it did.
pub fn export_notice(result: Result<(), String>) -> Option<String> {
    result.err().map(|e| format!("Could not export: {e}"))
}

/// Compresses text (deflate) into URL-safe base64, for a report carried in a link's fragment.
pub async fn pack(text: &str) -> Result<String, String> {
    let packed = deflate_to_base64url(text).await.map_err(js_error)?;
    packed.as_string().ok_or_else(|| "compression returned no text".into())
}

/// The report a share link carries, inflated, refused once it passes the report crate's cap
/// (a few KiB of link can inflate to gigabytes).
pub async fn unpack(data: &str) -> Result<String, String> {
    let shared = |e: String| format!("the shared link's report: {e}");
    memwall_report::check_size(data.len() as u64).map_err(|e| shared(e.to_string()))?;
    let text = inflate_from_base64url(data, memwall_report::MAX_REPORT_BYTES as f64)
        .await
        .map_err(|e| format!("the link's report is damaged: {}", js_error(e)))?;
    if text.is_undefined() {
        return Err(shared(memwall_report::too_large_stopped().to_string()));
    }
    text.as_string().ok_or_else(|| "the link's report is damaged".into())
}

pub async fn copy_to_clipboard(text: &str) -> Result<(), String> {
    copy_text(text).await.map(|_| ()).map_err(js_error)
}

/// The text of a file the user picked or dropped.
pub async fn read_file(file: &web_sys::File) -> Result<String, String> {
    // Files picked are reports: one past the cap is refused before it is read into memory.
    memwall_report::check_size(file.size() as u64).map_err(|e| e.to_string())?;
    let text = JsFuture::from(file.text()).await.map_err(js_error)?;
    text.as_string().ok_or_else(|| "the file is not text".into())
}

/// GETs a URL (relative to the page) and returns the body, or says why not. Only reports and
/// their index are fetched, so a body past the report crate's cap is refused, by its declared
/// length before reading or by counting while reading.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    let body = fetch_capped(url, memwall_report::MAX_REPORT_BYTES as f64).await.map_err(js_error)?;
    if let Some(declared) = body.as_f64() {
        memwall_report::check_size(declared as u64).map_err(|e| e.to_string())?;
    }
    if body.is_undefined() {
        return Err(memwall_report::too_large_stopped().to_string());
    }
    body.as_string().ok_or_else(|| "the response is not text".into())
}

/// Starts fetching `url` (absolute) now; the first `fetch_text` of the same URL, in either wasm
/// module, takes what it brings instead of fetching again.
pub fn prefetch_text(url: &str) {
    prefetch_capped(url, memwall_report::MAX_REPORT_BYTES as f64);
}

/// Saves `content` as a download named `filename`.
pub fn download_text(filename: &str, mime: &str, content: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_error)?;
    download_blob(filename, &blob)
}

pub fn download_blob(filename: &str, blob: &web_sys::Blob) -> Result<(), String> {
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(js_error)?;
    let anchor: web_sys::HtmlAnchorElement = document().create_element("a").map_err(js_error)?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    // The click has started the download; the object URL can go once this task ends.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The standalone markup of the `<svg>` with this id (charts draw with literal colors and fonts,
/// so the file looks the same outside the page).
pub fn svg_markup(id: &str) -> Result<String, String> {
    let element = document().get_element_by_id(id).ok_or_else(|| format!("no chart '{id}' on the page"))?;
    let serializer = web_sys::XmlSerializer::new().map_err(js_error)?;
    serializer.serialize_to_string(&element).map_err(js_error)
}

pub fn download_svg(id: &str, filename: &str) -> Result<(), String> {
    download_text(filename, "image/svg+xml", &svg_markup(id)?)
}

/// Renders the chart into a PNG at twice its drawn size (crisp on high-density screens).
pub async fn download_png(id: &str, filename: &str) -> Result<(), String> {
    let markup = svg_markup(id)?;
    let element = document().get_element_by_id(id).ok_or("chart is gone")?;
    let (width, height) = viewbox_size(&element).ok_or("chart has no viewBox")?;
    let blob = svg_to_png(&markup, width, height, 2.0).await.map_err(js_error)?;
    download_blob(filename, &blob.unchecked_into())
}

fn viewbox_size(element: &web_sys::Element) -> Option<(f64, f64)> {
    let viewbox = element.get_attribute("viewBox")?;
    let numbers: Vec<f64> = viewbox.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    (numbers.len() == 4).then(|| (numbers[2], numbers[3]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_past_the_browser_limit_is_refused_in_words() {
        assert!(fits_in_browser(MAX_BROWSER_BYTES).is_ok());
        let refused = fits_in_browser(MAX_BROWSER_BYTES + 1).unwrap_err();
        assert!(refused.contains("at most 4 GiB") && refused.contains("keep it under 3 GiB"), "{refused}");
    }

    #[test]
    fn only_a_refused_export_leaves_a_notice() {
        assert_eq!(export_notice(Ok(())), None);
        assert_eq!(export_notice(Err("blocked".into())).as_deref(), Some("Could not export: blocked"));
    }
}
