//! Measuring off the main thread.
//!
//! A measurement is a tight synchronous loop that would freeze the page, so it runs in a Web
//! Worker. The worker runs *the wasm module of the page that starts it*: the first view's module
//! for the ladder, the races module for the races. The page hands the worker its compiled
//! `WebAssembly.Module` and the URL of its wasm-bindgen glue; the worker instantiates it (a fresh
//! memory of its own) and calls the module's `memwall_worker_run` with one job. Events come back
//! one message each. One worker per run: cancelling is `terminate()`, which stops a pointer chase
//! mid-sample without the kernel having to poll for it.
//!
//! What a job and its events look like is the [`Protocol`]'s business; this module only carries
//! them, and carries failures (a job that could not be read, a trap, a worker that never started)
//! the same way for every protocol.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The URL of the wasm-bindgen glue module: an `import.meta` import is emitted into the glue
    /// itself, so this is the glue's own URL (hashed by trunk), which the worker imports.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: String;
}

/// How a kind of job travels to a worker and its events back.
pub trait Protocol: 'static {
    type Job;
    type Event: 'static;
    fn encode_job(job: &Self::Job) -> Result<JsValue, String>;
    fn decode_job(message: &JsValue) -> Result<Self::Job, String>;
    fn encode_event(event: &Self::Event) -> JsValue;
    fn decode_event(message: &JsValue) -> Result<Self::Event, String>;
    /// Whether the worker has nothing more to say after this event.
    fn is_last(event: &Self::Event) -> bool;
}

/// What reaches a page from its worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Message<E> {
    Event(E),
    /// The run is over without a result; the message says why, in words for the page.
    Failed(String),
}

/// The worker's bootstrap. A module worker from a Blob URL needs no extra file in dist/ and
/// inherits the page's cross-origin isolation (and so its fine timers). A failure to start is
/// posted in the shape [`failure`] reads.
const BOOTSTRAP: &str = r#"
self.onmessage = async (event) => {
  self.onmessage = null;
  const { glue, module, job } = event.data;
  try {
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    bindings.memwall_worker_run(job);
  } catch (error) {
    self.postMessage({ failed: "the measuring worker stopped: " + String((error && error.message) || error) });
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

/// The failure a message carries, if it is one (from the bootstrap or from [`serve`]).
fn failure(message: &JsValue) -> Option<String> {
    if !message.is_object() {
        return None;
    }
    js_sys::Reflect::get(message, &"failed".into()).ok().and_then(|f| f.as_string())
}

/// Starts a worker of this module on `job`; every event it sends arrives through `on_message`.
pub fn spawn<P: Protocol>(
    job: &P::Job,
    on_message: impl FnMut(Message<P::Event>) + 'static,
) -> Result<WorkerHandle, String> {
    let job = P::encode_job(job)?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&bootstrap_url()?, &options).map_err(js_error)?;
    let deliver = std::rc::Rc::new(RefCell::new(on_message));

    let to_page = deliver.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |message: web_sys::MessageEvent| {
        let data = message.data();
        let message = match failure(&data) {
            Some(why) => Message::Failed(why),
            None => P::decode_event(&data)
                .map(Message::Event)
                .unwrap_or_else(|e| Message::Failed(format!("unreadable message from the worker: {e}"))),
        };
        (to_page.borrow_mut())(message);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
        let detail = js_sys::Reflect::get(&event, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "no details".into());
        (deliver.borrow_mut())(Message::Failed(format!("the measuring worker failed to start: {detail}")));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));

    let message = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&message, &key.into(), value).map_err(js_error);
    set("glue", &JsValue::from_str(&glue_url()))?;
    set("module", &wasm_bindgen::module())?;
    set("job", &job)?;
    worker.post_message(&message).map_err(js_error)?;
    Ok(WorkerHandle { worker, _on_message: on_message, _on_error: on_error })
}

/// The URL of this module's wasm-bindgen glue.
pub fn glue_url() -> String {
    GLUE_URL.with(String::clone)
}

/// Worker side: reads one job of `P` and runs it, posting each event to the page; an error or a
/// panic is posted as the run's failure.
pub fn serve<P: Protocol>(job: &JsValue, run: impl FnOnce(P::Job, &mut dyn FnMut(P::Event)) -> Result<(), String>) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // A failed post means the page is gone; there is no one left to tell.
    let post = move |message: &JsValue| {
        let _ = scope.post_message(message);
    };
    let fail = {
        let post = post.clone();
        move |why: String| {
            let message = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&message, &"failed".into(), &JsValue::from_str(&why));
            post(&message);
        }
    };
    // With panic = "abort" a panic is a wasm trap; say what it was before the trap.
    let hook_fail = fail.clone();
    std::panic::set_hook(Box::new(move |info| hook_fail(format!("internal error: {info}"))));
    let job = match P::decode_job(job) {
        Ok(job) => job,
        Err(e) => return fail(format!("unreadable job: {e}")),
    };
    if let Err(why) = run(job, &mut |event| post(&P::encode_event(&event))) {
        fail(why);
    }
}

pub fn js_error(value: JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}
