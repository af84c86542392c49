//! Writes the ring memwall's ladder uses for one working set, as little-endian u32 `next`
//! indices (line i points to line next[i]), so another implementation of the chase (the C and
//! JavaScript baselines in bench/ladder) can walk exactly the same cycle.
//!
//! `cargo run --release -p memwall-core --example dump_ring -- BYTES SEED OUT`

use memwall_core::ladder::{LINE_BYTES, ring_seed, sattolo_cycle};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [bytes, seed, out] = args.as_slice() else {
        eprintln!("usage: dump_ring BYTES SEED OUT");
        std::process::exit(2);
    };
    let bytes = memwall_core::size::parse_size(bytes).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let seed: u64 = seed.parse().unwrap_or_else(|e| {
        eprintln!("bad seed: {e}");
        std::process::exit(2)
    });
    let next = sattolo_cycle((bytes / LINE_BYTES as u64) as usize, ring_seed(seed, bytes));
    let raw: Vec<u8> = next.iter().flat_map(|n| n.to_le_bytes()).collect();
    if let Err(e) = std::fs::write(out, raw) {
        eprintln!("writing {out}: {e}");
        std::process::exit(1);
    }
}
