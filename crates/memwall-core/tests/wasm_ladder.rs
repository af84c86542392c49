//! The ladder as the browser runs it: compiled to wasm, timed by `performance.now()`, in
//! headless Chromium (`cargo test -p memwall-core --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]

use std::ops::ControlFlow;

use memwall_core::clock;
use memwall_core::ladder::{self, HeapArena, LadderEvent, Ring, SampleConfig};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

mod common;

use common::PerformanceClock;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn ring_is_one_cycle_in_wasm() {
    for (lines, seed) in [(2usize, 1u64), (3, 2), (1000, 3), (4096, u64::MAX), (65_537, 0)] {
        let mut buffer = vec![0u8; lines * ladder::LINE_BYTES + ladder::LINE_BYTES];
        let ring = Ring::build(&mut buffer[1..], (lines * ladder::LINE_BYTES) as u64, seed).unwrap();
        let mut order = ring.order();
        order.sort_unstable();
        assert_eq!(order, (0..lines).collect::<Vec<_>>());
        assert_eq!(ring.chase(ring.start(), lines as u64), ring.start());
    }
}

#[wasm_bindgen_test]
fn browser_timer_resolution_is_measured() {
    let clock = PerformanceClock::new();
    let resolution = clock::resolution_ns(&clock, 20);
    // Chromium clamps to 5 µs (isolated) or 100 µs; either way a real, positive, finite step.
    assert!(resolution.is_finite() && resolution > 0.0 && resolution <= 1e6, "{resolution}");
}

#[wasm_bindgen_test]
fn ladder_runs_in_the_browser() {
    let clock = PerformanceClock::new();
    let resolution = clock::resolution_ns(&clock, 20);
    let config = SampleConfig {
        target_sample_ns: ladder::target_sample_ns(resolution, 2e6),
        samples: 3,
        warmup: true,
        seed: 7,
        attempts: 1,
        pattern: ladder::Pattern::Random,
        timer_resolution_ns: resolution,
    };
    let sizes = ladder::ladder_sizes(16 * 1024, 256 * 1024, 1).unwrap();
    let mut measured = 0;
    let points = ladder::run_ladder(&mut HeapArena, &clock, &sizes, &config, ladder::Cycles::Unknown, &mut |event| {
        if let LadderEvent::Measured { .. } = event {
            measured += 1;
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(measured, sizes.len());
    for point in &points {
        assert_eq!(point.samples, 3);
        assert!(point.ns_per_load.median > 0.0 && point.ns_per_load.median < 10_000.0, "{point:?}");
        assert!(point.loads_per_sample >= 16);
    }
}
