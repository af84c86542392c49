//! Measuring off the main thread.
//!
//! A measurement is a tight synchronous loop that would freeze the page, so it runs in a Web
//! Worker. The worker runs *this same wasm module*: the page hands it the compiled
//! `WebAssembly.Module` and the URL of the wasm-bindgen glue, the worker instantiates it (a fresh
//! memory of its own) and calls [`memwall_worker_run`] with one job. Results come back as JSON
//! messages, point by point. One worker per run: cancelling is `terminate()`, which stops a
//! pointer chase mid-sample without the kernel having to poll for it.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::Callback;

use crate::jobs::{Job, WorkerEvent};

#[wasm_bindgen]
extern "C" {
    /// The URL of the wasm-bindgen glue module: an `import.meta` import is emitted into the glue
    /// itself, so this is the glue's own URL (hashed by trunk), which the worker imports.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: String;
}

/// The worker's bootstrap. A module worker from a Blob URL needs no extra file in dist/ and
/// inherits the page's cross-origin isolation (and so its fine timers).
const BOOTSTRAP: &str = r#"
self.onmessage = async (event) => {
  self.onmessage = null;
  const { glue, module, job } = event.data;
  try {
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    bindings.memwall_worker_run(job);
  } catch (error) {
    self.postMessage(JSON.stringify({ event: "Failed", message: "the measuring worker stopped: " + String((error && error.message) || error) }));
  }
};
"#;

thread_local! {
    static BOOTSTRAP_URL: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn bootstrap_url() -> Result<String, String> {
    BOOTSTRAP_URL.with(|cell| {
        if let Some(url) = cell.borrow().as_ref() {
            return Ok(url.clone());
        }
        let parts = js_sys::Array::of1(&JsValue::from_str(BOOTSTRAP));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_error)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_error)?;
        *cell.borrow_mut() = Some(url.clone());
        Ok(url)
    })
}

/// A running worker; dropping it terminates the worker (cancel, or leaving the page).
pub struct WorkerHandle {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl std::fmt::Debug for WorkerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WorkerHandle")
    }
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        // Unhook first: a message already queued must not reach a dropped closure.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Starts a worker on `job`; every event it sends arrives through `on_event`.
pub fn spawn(job: &Job, on_event: Callback<WorkerEvent>) -> Result<WorkerHandle, String> {
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&bootstrap_url()?, &options).map_err(js_error)?;

    let events = on_event.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |message: web_sys::MessageEvent| {
        let event = match message.data().as_string() {
            Some(text) => serde_json::from_str::<WorkerEvent>(&text).unwrap_or_else(|e| WorkerEvent::Failed {
                message: format!("unreadable message from the worker: {e}"),
            }),
            None => WorkerEvent::Failed { message: "unreadable message from the worker".into() },
        };
        events.emit(event);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
        let detail = js_sys::Reflect::get(&event, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "no details".into());
        on_event.emit(WorkerEvent::Failed { message: format!("the measuring worker failed to start: {detail}") });
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

    let message = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&message, &key.into(), value).map_err(js_error);
    set("glue", &JsValue::from_str(&GLUE_URL.with(String::clone)))?;
    set("module", &wasm_bindgen::module())?;
    set("job", &JsValue::from_str(&serde_json::to_string(job).map_err(|e| e.to_string())?))?;
    worker.post_message(&message).map_err(js_error)?;
    Ok(WorkerHandle { worker, _on_message: on_message, _on_error: on_error })
}

/// Worker side: runs one job, posting each [`Event`] to the page as JSON.
#[wasm_bindgen]
pub fn memwall_worker_run(job: &str) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = move |event: &WorkerEvent| {
        if let Ok(text) = serde_json::to_string(event) {
            // A failed post means the page is gone; there is no one left to tell.
            let _ = scope.post_message(&JsValue::from_str(&text));
        }
    };
    // With panic = "abort" a panic is a wasm trap; say what it was before the trap.
    let hook_post = post.clone();
    std::panic::set_hook(Box::new(move |info| {
        hook_post(&WorkerEvent::Failed { message: format!("internal error: {info}") });
    }));
    match serde_json::from_str::<Job>(job) {
        Ok(job) => crate::jobs::run(job, &mut |event| post(&event)),
        Err(e) => post(&WorkerEvent::Failed { message: format!("unreadable job: {e}") }),
    }
}

pub fn js_error(value: JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}
