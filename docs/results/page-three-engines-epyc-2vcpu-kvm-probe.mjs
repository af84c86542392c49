// What each engine offers the page, on the isolated page and on a static host: run from the repository root
// after scripts/e2e.sh built dist/ and memwall: node docs/results/page-three-engines-epyc-2vcpu-kvm-probe.mjs webkit
import { webkit, chromium, firefox } from "../../e2e/browsers.mjs";
import { DIST, startServer, startStatic } from "../../e2e/lib.mjs";
const iso = await startServer();
const plain = await startStatic(DIST);
const engine = process.argv[2] ?? "webkit";
const b = await ({ webkit, chromium, firefox })[engine]();
const PROBE = `(() => {
  const head = [0,97,115,109,1,0,0,0];
  const simd = new Uint8Array([...head, 1,5,1,96,0,1,123, 3,2,1,0, 10,22,1,20,0,253,12, ...new Array(16).fill(0), 11]);
  const shared = new Uint8Array([...head, 5,4,1,3,1,1]);
  const bad = new Uint8Array([...head, 1,4,1,96,0,0, 3,2,1,0, 10,5,1,3,0,255,11]);
  let step = Infinity, last = performance.now();
  for (let i = 0; i < 2e6; i++) { const t = performance.now(); if (t > last) { step = Math.min(step, t - last); last = t; } }
  return { ua: navigator.userAgent, crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer, atomics: typeof Atomics,
    wasmSimd128: WebAssembly.validate(simd), wasmSharedMemory: WebAssembly.validate(shared), invalidRejected: !WebAssembly.validate(bad),
    timerStepUs: step * 1000, hardwareConcurrency: navigator.hardwareConcurrency, deviceMemory: navigator.deviceMemory ?? null };
})()`;
const t = await b.open();
for (const [where, base] of [["isolated (memwall serve)", iso.base], ["static host", plain.base]]) {
  await t.goto(`${base}?verdict=0`);
  console.log(engine, where, JSON.stringify(await t.eval(PROBE)));
}
await b.close(); iso.server.kill(); plain.server.kill();
