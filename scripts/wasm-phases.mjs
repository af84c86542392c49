// Times GROUP BY kernels' phases compiled to wasm32, under node (V8, Chromium's engine): the
// bench behind issue 49's profile of where the page loses to native. Not the suite's figure
// (that is e2e/anywhere.mjs, in Chromium); this says which phase a change to the wasm code moves.
//
//   nice -n 19 cargo build --profile release-wasm --target wasm32-unknown-unknown \
//     -p memwall-core --example wasm_phases
//   node scripts/wasm-phases.mjs [kernels=tuned,adaptive] [runs=3] [l2 bytes] [l3 bytes]
//
// Data: the small preset (10 M rows, 1.7 M keys, Zipf 0.575, seed 42), as `memwall groupby
// --preset small`; one warm scratch per kernel, as the page races. Prints each run's ns/row and
// ns/row per phase, groups and checksum (to set against native's).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const KERNELS = ["naive", "radix", "tuned", "prefetch", "adaptive"]; // Kernel::ALL's order
const PHASES = ["sample", "trial", "scatter", "split", "aggregate", "emit", "merge", "given-up"]; // Phase::ALL's
const [names = "tuned,adaptive", runs = "3", l2 = String(1 << 20), l3 = String(8 << 20)] = process.argv.slice(2);
const file = process.env.WASM ?? "target/wasm32-unknown-unknown/release-wasm/examples/wasm_phases.wasm";
const { instance } = await WebAssembly.instantiate(readFileSync(file), { env: { now_ms: () => performance.now() } });
const wasm = instance.exports;
const ROWS = 10_000_000;
if (wasm.generate(BigInt(ROWS), 1_700_000n, 0.575, 42n) !== 0) throw new Error("generate failed");
for (const name of names.split(",")) {
  const kernel = KERNELS.indexOf(name);
  if (kernel < 0) throw new Error(`unknown kernel ${name}`);
  for (let i = 0; i < Number(runs); i++) {
    // One run a call, so each is printed; the scratch is warm from the first call's warm-up.
    if (wasm.run(kernel, i === 0 ? 2 : 1, BigInt(l2), BigInt(l3)) !== 0) throw new Error(`${name} failed`);
    const out = new Float64Array(wasm.memory.buffer, wasm.out(), 3 + PHASES.length);
    const checksum = new BigUint64Array(wasm.memory.buffer, wasm.out() + 16, 1)[0];
    const phases = PHASES.map((p, j) => [p, out[3 + j]]).filter(([, ns]) => ns > 0)
      .map(([p, ns]) => `${p} ${(ns / ROWS).toFixed(2)}`).join(", ");
    console.log(`${name} run ${i + 1}: ${(out[0] / ROWS).toFixed(2)} ns/row (${phases}); ${out[1]} groups, checksum ${checksum.toString(16).padStart(16, "0")}`);
  }
}
