//! The browser's clock for the core: `performance.now()`, in the page or in a worker.
//!
//! Its resolution is coarsened on purpose (100 µs in Chrome, 5 µs when the page is cross-origin
//! isolated); the core measures it and sizes each sample so that it does not matter.

use memwall_core::clock::Clock;
use wasm_bindgen::JsCast;

#[derive(Debug, Clone)]
pub struct PerformanceClock {
    performance: web_sys::Performance,
}

impl PerformanceClock {
    /// The clock of whatever global scope this runs in (`Window` or `DedicatedWorkerGlobalScope`
    /// both have `performance`, so it is read off the global object rather than either type).
    pub fn new() -> Result<Self, String> {
        js_sys::Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
            .map(|performance| Self { performance })
            .ok_or_else(|| "this browser has no performance.now() clock".to_string())
    }
}

impl Clock for PerformanceClock {
    fn now_ns(&self) -> f64 {
        self.performance.now() * 1e6
    }
}

/// Whether this global scope is cross-origin isolated (COOP + COEP), which is what buys the fine
/// timers. Workers inherit it from the page.
pub fn cross_origin_isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}
