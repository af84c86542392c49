//! What happens in a browser when memory runs out: wasm32 has at most 4 GiB, and a page that asks
//! for more must get an error it can show, not an abort that kills the module (a dead tab). Run
//! in headless Chromium (`cargo test -p memwall-core --target wasm32-unknown-unknown --test
//! wasm_memory`); a module of its own, so its full memory disturbs no other test.
#![cfg(target_arch = "wasm32")]

use memwall_core::groupby::ChunkSource;
use memwall_core::groupby::HeapChunks;
use memwall_core::groupby::datagen::{self, DataError, DataSpec, Skew};
use memwall_core::ladder::{Arena, HeapArena};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const BLOCK: usize = 256 << 20;

#[wasm_bindgen_test]
fn allocations_past_wasm_memory_are_errors_and_the_module_lives_on() {
    // Reserve (untouched, so nothing is resident) 256 MiB blocks until the allocator refuses:
    // after that, less than a block is left of wasm32's 4 GiB.
    let mut ballast: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = Vec::new();
        if block.try_reserve_exact(BLOCK).is_err() {
            break;
        }
        ballast.push(block);
        assert!(ballast.len() <= 16, "more than 4 GiB reserved in wasm32");
    }
    assert!(ballast.len() >= 4, "only {} blocks of 256 MiB before memory ran out", ballast.len());

    // Generated keys: 64 Mi rows of 8 bytes, 512 MiB.
    let spec = DataSpec { rows: 64 << 20, keys: 1000, skew: Skew::Uniform, seed: 1 };
    match datagen::generate(&spec) {
        Err(e @ DataError::Allocation { .. }) => {
            assert_eq!(e.to_string(), "could not allocate 512 MiB for 67108864 rows of keys")
        }
        other => panic!("generating 512 MiB in a full wasm memory: {:?}", other.map(|k| k.len())),
    }
    // A ladder ring and the GROUP BY scratch pool.
    let ring = HeapArena.allocate(2 * BLOCK).map(|b| b.len());
    assert!(ring.as_ref().is_err_and(|e| e.contains("could not allocate 512")), "{ring:?}");
    let chunk = HeapChunks.map(2 * BLOCK).map(|_| ());
    assert!(chunk.as_ref().is_err_and(|e| e.contains("could not allocate 512")), "{chunk:?}");

    // Memory given back, the same module works again.
    drop(ballast);
    let small = DataSpec { rows: 10_000, keys: 100, skew: Skew::Uniform, seed: 1 };
    assert_eq!(datagen::generate(&small).unwrap().len(), 10_000);
    assert!(HeapArena.allocate(BLOCK).is_ok());
}
