//! What happens in a browser when memory runs out: wasm32 has at most 4 GiB, and a page that asks
//! for more must get an error it can show, not an abort that kills the module (a dead tab). Run
//! in headless Chromium (`cargo test -p memwall-core --target wasm32-unknown-unknown --test
//! wasm_memory`); a module of its own, so its full memory disturbs no other test.
#![cfg(target_arch = "wasm32")]

use memwall_core::datagen::{self, DataError, DataSpec, Skew};
use memwall_core::ladder::{Arena, HeapArena, LadderError, Ring};
use memwall_core::scratch::ChunkSource;
use memwall_core::scratch::HeapChunks;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const BLOCK: usize = 256 << 20;

#[wasm_bindgen_test]
fn allocations_past_wasm_memory_are_errors_and_the_module_lives_on() {
    // A ladder buffer, taken while there is room; its ring is built once memory is full.
    let mut ring_buffer = Vec::new();
    ring_buffer.try_reserve_exact(BLOCK).unwrap();
    ring_buffer.resize(BLOCK, 0u8);
    // Reserve (untouched, so nothing is resident) blocks of 256 MiB, then smaller ones down to
    // 1 MiB, until the allocator refuses each: after that, less than 1 MiB is left of wasm32's
    // 4 GiB.
    let mut ballast: Vec<Vec<u8>> = Vec::new();
    let mut size = BLOCK;
    while size >= 1 << 20 {
        let mut block = Vec::new();
        if block.try_reserve_exact(size).is_err() {
            size /= 4;
            continue;
        }
        ballast.push(block);
        assert!(ballast.len() <= 64, "more than 4 GiB reserved in wasm32");
    }
    let reserved: usize = ballast.iter().map(Vec::capacity).sum();
    assert!(reserved >= 1 << 30, "only {reserved} bytes reserved before memory ran out");

    // The ring's visiting order: 4 Mi lines, 32 MiB at most.
    match Ring::build(&mut ring_buffer, BLOCK as u64 - 64, 1) {
        Err(LadderError::Allocation(e)) => assert!(e.contains("could not allocate 32.00 MiB for the ring"), "{e}"),
        other => panic!("building a 256 MiB ring in a full wasm memory: {:?}", other.map(|r| r.lines())),
    }
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
    assert_eq!(Ring::build(&mut ring_buffer, BLOCK as u64 - 64, 1).unwrap().lines(), BLOCK / 64 - 1);
}
