//! Times a GROUP BY kernel's phases compiled to wasm32, outside the page: a bench for working on
//! the kernels' wasm code (issue 49), run by `scripts/wasm-phases.mjs` under node (V8, the
//! engine of Chromium). The page's race stays what the suite measures; this only says which phase
//! a change moves, with the same timers (`groupby/phases.rs`) as `memwall groupby --phases`.
//!
//! Natively this example is empty: native phases come from `memwall groupby --phases`.

#[cfg(target_arch = "wasm32")]
mod bench {
    use std::sync::Mutex;

    use memwall_core::budget::CacheBudget;
    use memwall_core::clock::Clock;
    use memwall_core::datagen::{self, DataSpec, Skew};
    use memwall_core::exec::Sequential;
    use memwall_core::groupby::{self, GroupByConfig, Kernel, Phase, PhaseClock, Rows};
    use memwall_core::scratch::{HeapChunks, MemoryPolicy, Scratch};

    #[link(wasm_import_module = "env")]
    unsafe extern "C" {
        /// `performance.now()`, in ms.
        fn now_ms() -> f64;
    }

    struct JsClock;

    impl Clock for JsClock {
        fn now_ns(&self) -> f64 {
            // SAFETY: an import of the harness that only reads the clock.
            unsafe { now_ms() * 1e6 }
        }
    }

    static KEYS: Mutex<Vec<i64>> = Mutex::new(Vec::new());
    /// Per run: total ns, groups, checksum bits, then ns per phase in `Phase::ALL`'s order.
    static OUT: Mutex<[f64; 3 + Phase::ALL.len()]> = Mutex::new([0.0; 3 + Phase::ALL.len()]);

    /// Generates the keys of `rows` rows over `keys` keys (Zipf `zipf`, uniform if 0); 0 on success.
    #[unsafe(no_mangle)]
    pub extern "C" fn generate(rows: u64, keys: u64, zipf: f64, seed: u64) -> u32 {
        let skew = if zipf > 0.0 { Skew::Zipf(zipf) } else { Skew::Uniform };
        match datagen::generate(&DataSpec { rows, keys, skew, seed }) {
            Ok(k) => {
                *KEYS.lock().unwrap() = k;
                0
            }
            Err(_) => 1,
        }
    }

    /// Where the figures of the last [`run`] are.
    #[unsafe(no_mangle)]
    pub extern "C" fn out() -> *const f64 {
        OUT.lock().unwrap().as_ptr()
    }

    /// `runs` runs of kernel number `kernel` (in `Kernel::ALL`'s order) in one warm scratch, sized
    /// by these caches; the last run's figures go to [`out`]. 0 on success.
    #[unsafe(no_mangle)]
    pub extern "C" fn run(kernel: u32, runs: u32, per_core_bytes: u64, last_level_bytes: u64) -> u32 {
        let Some(&kernel) = Kernel::ALL.get(kernel as usize) else { return 1 };
        let keys = KEYS.lock().unwrap();
        let config =
            GroupByConfig { budget: CacheBudget::sized(per_core_bytes, last_level_bytes), ..GroupByConfig::default() };
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Warm);
        for _ in 0..runs.max(1) {
            scratch.begin_run();
            let timer = PhaseClock::new(&JsClock);
            let start = JsClock.now_ns();
            let outcome = groupby::run_timed_in(
                kernel,
                Rows::keys(&keys),
                &config,
                &Sequential,
                &scratch,
                timer.phases(),
                Some(&JsClock),
            );
            let total = JsClock.now_ns() - start;
            let Ok(outcome) = outcome else { return 2 };
            let mut out = OUT.lock().unwrap();
            *out = [0.0; 3 + Phase::ALL.len()];
            out[0] = total;
            out[1] = outcome.result.groups as f64;
            out[2] = f64::from_bits(outcome.result.checksum);
            for (phase, ns) in timer.times() {
                out[3 + phase as usize] = ns;
            }
        }
        0
    }
}
