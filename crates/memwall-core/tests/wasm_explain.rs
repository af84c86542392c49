//! The reading as the page runs it: the corpus of hosts read by the core compiled to wasm, in
//! headless Chromium, the browser's own curves among them (a page declares no caches).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

mod corpus;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn every_corpus_host_reads_right_in_the_browser() {
    let hosts = corpus::hosts();
    assert!(hosts.iter().any(|h| h.report.host.caches.is_empty()), "no browser curve in the corpus");
    let wrong: Vec<String> = hosts.iter().filter_map(corpus::misread).collect();
    assert!(wrong.is_empty(), "{} of {} hosts misread:\n{}", wrong.len(), hosts.len(), wrong.join("\n\n"));
}

mod cloud;

/// The same rules over the real cloud curves, read by the core compiled to wasm: sparse curves of
/// 8-10 sizes, as a report from a cloud host opened in the page carries. The same misses as natively.
#[wasm_bindgen_test]
fn cloud_curves_read_in_the_browser_as_natively() {
    if let Err(why) = cloud::read_all() {
        panic!("{why}");
    }
}
