//! The second module: the reports and the races, mounted by the first view the first time one
//! of them is wanted, and the races' worker (the worker runs this same module).

use memwall_web::races::protocol::{RaceJob, Races};
use memwall_web::races::{groupby, join};
use wasm_bindgen::prelude::*;

fn main() {}

/// Mounts the second module's app into `root`, starting from `state` (see `bridge.rs`).
#[wasm_bindgen]
pub fn memwall_views_mount(root: web_sys::Element, state: JsValue) {
    memwall_web::views::mount(root, state);
}

/// Worker side: runs one race job (see `worker.rs`).
#[wasm_bindgen]
pub fn memwall_worker_run(job: JsValue) {
    memwall_web::worker::serve::<Races>(&job, |job, post| match job {
        RaceJob::GroupBy(job) => groupby::job::run(&job, post),
        RaceJob::Join(job) => join::job::run(&job, post),
    });
}
