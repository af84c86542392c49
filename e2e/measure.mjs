// Measures the browser against the native tool on this machine, and the page itself:
//   - ladder at 256 MiB: ns per load, browser (wasm in Chromium) vs native `memwall ladder`
//   - GROUP BY tuned at the small preset (10 M rows, 1.7 M keys), one thread, browser vs native
//     (each sized by its own ladder; native's scratch on small pages as the browser's, and on huge pages)
//   - page weight (wasm + js gzipped) and time to interactive
// Each browser and native figure is the median of RUNS independent runs, interleaved so that a
// change in the machine's load hits both alike. Writes e2e/artifacts/measurements.json.
//
//   node e2e/measure.mjs            (after scripts/e2e.sh has built dist/ and memwall)
//   RUNS=5 node e2e/measure.mjs

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ARTIFACTS, MEMWALL, checkInputs, launch, nativeGroupBy, pageWeight, startServer } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const { base, server } = await startServer();
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
context.setDefaultTimeout(600_000);

// Keyed on what the page marks for tests (the row's data-bytes and data-median), not its wording.
async function browserLadder(bytes) {
  const page = await context.newPage();
  const n = String(parseSize(bytes));
  await page.goto(`${base}?min=${bytes}&max=${bytes}&patterns=random&verdict=0`);
  await page.click("form.controls button.primary");
  await page.waitForSelector(`#ladder-table tbody tr[data-bytes="${n}"]`);
  const median = await page.evaluate((n) => Number(document.querySelector(`#ladder-table tbody tr[data-bytes="${n}"]`).dataset.median), n);
  await page.close();
  return { median };
}

function parseSize(text) {
  const m = /^(\d+)(KiB|MiB|GiB)$/.exec(text);
  return Number(m[1]) * { KiB: 1 << 10, MiB: 1 << 20, GiB: 1 << 30 }[m[2]];
}

function nativeLadder(bytes, hugePages) {
  const out = execFileSync(MEMWALL, ["ladder", "--min", bytes, "--max", bytes, "--huge-pages", hugePages, "--json", "-"], { stdio: ["ignore", "pipe", "ignore"] });
  return JSON.parse(out).ladder.points[0].ns_per_load.median;
}

async function browserGroupBy(kernel) {
  const page = await context.newPage();
  // Sized by the page's own ladder, as native is by its own probe: the race waits for the first look.
  await page.goto(`${base}?kernels=${kernel}&runs=3#groupby`);
  await page.waitForSelector('#first-look[data-state="done"]', { state: "attached" });
  await page.click("section[aria-label='GROUP BY race'] form.controls button.primary");
  const row = `#groupby-table tbody tr[data-kernel="${kernel}"]`;
  await page.waitForSelector(row);
  const nsPerRow = await page.evaluate((row) => Number(document.querySelector(row).dataset.nsPerRow), row);
  await page.close();
  return { nsPerRow };
}

async function timeToInteractive() {
  const fresh = await browser.newContext();
  const page = await fresh.newPage();
  await page.goto(base);
  await page.waitForFunction(() => performance.getEntriesByName("memwall-interactive").length > 0);
  const tti = await page.evaluate(() => performance.getEntriesByName("memwall-interactive")[0].startTime);
  await fresh.close();
  return tti;
}

const results = { runs: RUNS, ladder: { bytes: "256MiB", browser: [], native_off: [], native_thp: [] }, groupby: { kernel: "tuned", browser: [], native: [], native_thp: [] }, tti_ms: [] };
for (let i = 0; i < RUNS; i++) {
  const b = await browserLadder("256MiB");
  results.ladder.browser.push(b.median);
  results.ladder.native_off.push(nativeLadder("256MiB", "off"));
  results.ladder.native_thp.push(nativeLadder("256MiB", "thp"));
  console.log(`ladder 256 MiB run ${i + 1}: browser ${b.median} ns, native ${results.ladder.native_off.at(-1).toFixed(2)} ns (huge pages off), ${results.ladder.native_thp.at(-1).toFixed(2)} ns (thp)`);
}
for (let i = 0; i < RUNS; i++) {
  const b = await browserGroupBy("tuned");
  // Native's scratch on small pages is the browser's memory policy (wasm has no huge pages).
  const n = nativeGroupBy("tuned", 3, "off");
  results.groupby.native_thp.push(nativeGroupBy("tuned", 3, "thp").nsPerRow);
  results.groupby.rows = n.rows;
  results.groupby.browser.push(b.nsPerRow);
  results.groupby.native.push(n.nsPerRow);
  console.log(`groupby tuned run ${i + 1}: browser ${b.nsPerRow} ns/row (the page's small preset), native ${n.nsPerRow.toFixed(2)} ns/row on small pages, ${results.groupby.native_thp.at(-1).toFixed(2)} on huge pages (${n.rows} rows, 1 thread)`);
}
for (let i = 0; i < 5; i++) results.tti_ms.push(await timeToInteractive());
results.weight = pageWeight();

const ladderRatio = median(results.ladder.browser) / median(results.ladder.native_off);
const groupbyRatio = median(results.groupby.browser) / median(results.groupby.native);
results.summary = {
  ladder_256mib_browser_ns: median(results.ladder.browser),
  ladder_256mib_native_ns: median(results.ladder.native_off),
  ladder_256mib_native_thp_ns: median(results.ladder.native_thp),
  ladder_ratio: ladderRatio,
  groupby_tuned_browser_ns_per_row: median(results.groupby.browser),
  groupby_tuned_native_ns_per_row: median(results.groupby.native),
  groupby_tuned_native_thp_ns_per_row: median(results.groupby.native_thp),
  groupby_ratio: groupbyRatio,
  page_weight_wasm_js_gzip_bytes: results.weight.wasmJsGzip,
  page_weight_total_gzip_bytes: results.weight.totalGzip,
  tti_ms_median: median(results.tti_ms),
};
writeFileSync(path.join(ARTIFACTS, "measurements.json"), JSON.stringify(results, null, 2));
console.log(JSON.stringify(results.summary, null, 2));
await browser.close();
server.kill();
