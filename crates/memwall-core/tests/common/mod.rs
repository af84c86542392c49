//! What the wasm tests share: the browser's clock.

use memwall_core::clock::Clock;

/// `performance.now()`, the only clock a page has.
pub struct PerformanceClock(js_sys::Function, js_sys::wasm_bindgen::JsValue);

impl PerformanceClock {
    pub fn new() -> Self {
        let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap();
        let now = js_sys::Reflect::get(&performance, &"now".into()).unwrap();
        Self(now.into(), performance)
    }
}

impl Clock for PerformanceClock {
    fn now_ns(&self) -> f64 {
        self.0.call0(&self.1).unwrap().as_f64().unwrap() * 1e6
    }
}
