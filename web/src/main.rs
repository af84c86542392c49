//! The first view: the app, and the ladder's worker (the worker runs this same module).

use wasm_bindgen::prelude::*;

fn main() {
    // The same module also runs inside the ladder's worker, which has no window and must not
    // mount the app.
    if web_sys::window().is_none() {
        return;
    }
    yew::Renderer::<memwall_web::app::App>::new().render();
}

/// Worker side: runs one ladder job (see `worker.rs`).
#[wasm_bindgen]
pub fn memwall_worker_run(job: JsValue) {
    use memwall_web::ladder::{job, protocol};
    memwall_web::worker::serve::<protocol::Ladder>(&job, job::run);
}
