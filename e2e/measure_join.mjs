// Browser vs native on the same join: the page's join race (wasm in Chromium, one thread) and
// `memwall join` (one thread) on the same generated sides, the ratio per kernel read from the
// page's own "Browser vs native" table, which holds the native report opened in it.
// Interleaved RUNS times; prints each run and the medians, writes e2e/artifacts/join-vs-native.json.
//
//   node e2e/measure_join.mjs                     (after scripts/e2e.sh has built dist/ and memwall)
//   RUNS=3 BUILD=1700000 PROBE=10000000 MISS=0.1 node e2e/measure_join.mjs

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ARTIFACTS, MEMWALL, checkInputs, launch, startServer } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 3);
const [BUILD, PROBE, MISS] = [process.env.BUILD ?? "1700000", process.env.PROBE ?? "10000000", process.env.MISS ?? "0.1"];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), "memwall-join-"));
const { base, server } = await startServer();
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
context.setDefaultTimeout(600_000);

const perKernel = {};
const differing = [];
for (let i = 0; i < RUNS; i++) {
  const report = path.join(work, `native-${i}.json`);
  // The page's sides: the small preset's skew and seed; one thread, as the browser.
  execFileSync(MEMWALL, ["join", "--build-keys", BUILD, "--probe-rows", PROBE, "--miss-rate", MISS, "--skew", "zipf:0.575",
    "--threads", "1", "--runs", "3", "--json", report], { stdio: ["ignore", "ignore", "inherit"] });
  const page = await context.newPage();
  await page.goto(`${base}?build=${BUILD}&probe=${PROBE}&miss=${MISS}#reports`);
  await page.setInputFiles("#report-file", report);
  await page.waitForSelector("article.host");
  await page.click(".tab:has-text('Join race')");
  await page.locator("section[aria-label='Join race'] button:has-text('Run the join')").click();
  await page.waitForSelector("#join-vs-native table.join-ratios tbody tr");
  const rows = (await page.locator("#join-vs-native table.join-ratios tbody tr").allInnerTexts()).map((r) => r.trim().split(/\s+/));
  const verdict = await page.locator("#join-vs-native").innerText();
  await page.close();
  for (const cells of rows) {
    const entry = (perKernel[cells[0]] ??= { browser: [], native: [], ratio: [] });
    entry.browser.push(Number(cells[1]));
    entry.native.push(Number(cells[2]));
    entry.ratio.push(Number(cells.at(-1).replace("×", "")));
  }
  const same = verdict.includes("Same join");
  if (!same) differing.push(i + 1);
  console.log(`run ${i + 1}: ${rows.map((c) => `${c[0]} ${c[1]} / ${c[2]} = ${c.at(-1)}`).join(", ")}${same ? " (same matches and checksum)" : " (ANSWERS DIFFER)"}`);
}
const summary = Object.fromEntries(Object.entries(perKernel).map(([k, v]) => [k, { browser_ns_per_probe: median(v.browser), native_ns_per_probe: median(v.native), ratio: median(v.ratio) }]));
writeFileSync(path.join(ARTIFACTS, "join-vs-native.json"), JSON.stringify({ runs: RUNS, build_keys: BUILD, probe_rows: PROBE, miss_rate: MISS, perKernel, summary }, null, 2));
console.log(JSON.stringify(summary, null, 2));
await browser.close();
server.kill();
// The timings are figures to read; the answers are a check: the browser's join and the native
// one must agree on matches and checksum in every run.
if (differing.length > 0) {
  console.error(`measure_join: the browser's and the native join gave different answers in run(s) ${differing.join(", ")}`);
  process.exit(1);
}
