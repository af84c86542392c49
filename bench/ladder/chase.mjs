// The same chase written for a JavaScript JIT (V8 via Node): one Uint32Array over the working
// set, each line's first element holding the index of the next line's, walking the ring memwall
// builds (from a dump_ring file). memwall's ladder must never be slower than this.
//
//   node chase.mjs RING_FILE SAMPLES TARGET_MS   ->  "bytes min median"
import { readFileSync } from "node:fs";

const [file, samplesArg, targetArg] = process.argv.slice(2);
const raw = readFileSync(file);
const next = new Uint32Array(raw.buffer, raw.byteOffset, raw.length / 4);
const lines = next.length;
const words = 16; // 64-byte lines of 4-byte elements
const ring = new Uint32Array(lines * words);
for (let i = 0; i < lines; i++) ring[i * words] = next[i] * words;
const samples = Number(samplesArg);
const target = Number(targetArg) * 1e6;
const now = () => Number(process.hrtime.bigint());

function chase(p, hops) {
  for (let i = 0; i < hops; i++) p = ring[p];
  return p;
}

let p = chase(0, lines);
let hops = 256;
for (;;) {
  const t0 = now();
  p = chase(p, hops);
  const elapsed = now() - t0;
  if (elapsed >= target / 4) { hops = Math.max(16, Math.floor((hops * target) / elapsed)); break; }
  hops *= elapsed < target / 64 ? 8 : 2;
}
const ns = [];
for (let s = 0; s < samples; s++) {
  const t0 = now();
  p = chase(p, hops);
  const t1 = now();
  p = chase(p, 2 * hops);
  const t2 = now();
  ns.push((t2 - t1 - (t1 - t0)) / hops);
}
ns.sort((a, b) => a - b);
console.log(`${lines * 64} ${ns[0].toFixed(4)} ${ns[Math.floor(samples / 2)].toFixed(4)} ${p}`);
