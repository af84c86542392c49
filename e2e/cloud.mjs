// The Cloud tab end to end, in headless Chromium, against the real `memwall serve`:
//   - the first view downloads nothing of the shelf; opening the tab fetches the second module
//     and the shelf (their compressed sizes printed, gzip and the brotli memwall serve sends);
//   - opened once the first look has its verdict: every instance type's row and this browser's
//     dot, the time from the click printed (the curves are read in wasm meanwhile);
//   - the table's rows and text are `memwall cloud`'s; filtering and sorting every row (times
//     printed) keep what `memwall cloud --filter` keeps;
//   - a dot clicked lays its type's curve over the visitor's, found in the chart's DOM;
//   - a report opened on the Reports tab is placed too; the VM-against-metal view lists the AWS
//     pairs; a bad filter term says why; the attribution is on the page.
// Timings are printed, not asserted: they depend on the machine's load.

import { execFileSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { ARTIFACTS, DIST, MEMWALL, ROOT, checkInputs, expect, gzipOf, harness, launch, pageWeight, startServer } from "./lib.mjs";

checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const FIRST_VIEW_MAX = 350 * 1024;
const ZEN3 = path.join(ROOT, "examples", "reports", "zen3-2vcpu-kvm-run.json");

/** `memwall cloud ARGS --json -`, parsed. */
const cloudJson = (...args) =>
  JSON.parse(execFileSync(MEMWALL, ["cloud", ...args, "--json", "-"], { maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] }));
/** The table `memwall cloud` prints as Markdown: one array of cells per row. */
const cloudMarkdown = (...args) =>
  execFileSync(MEMWALL, ["cloud", ...args, "--markdown", "-"], { maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] })
    .toString().split("\n").filter((l) => l.startsWith("|")).slice(2).map((l) => l.slice(1, -1).split("|").map((c) => c.trim()));

const ALL = cloudJson().rows.length;
const { base, server } = await startServer();
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme: "light" });
context.setDefaultTimeout(60_000);
const { test, summary } = harness();
const pageErrors = [];
const shot = async (page, name) => (await page.evaluate(() => window.scrollTo(0, 0)), page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true }));
const rows = (page) => page.evaluate(() => Number(document.querySelector("#cloud-table")?.getAttribute("aria-rowcount") ?? 1) - 1);
/** ms from running `change` in the page to the frame after it (layout and paint counted). */
const timed = (page, change) => page.evaluate(async (change) => {
  const t0 = performance.now();
  new Function(change)();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  return performance.now() - t0;
}, change);

const page = await context.newPage();
page.on("pageerror", (e) => pageErrors.push(e.message));
page.on("console", (m) => { if (m.type() === "error") pageErrors.push(`console: ${m.text()}`); });
const seen = new Map();
page.on("response", (r) => {
  const file = r.status() < 400 ? gzipOf(r.url()) : null;
  if (file && !seen.has(file.file)) seen.set(file.file, file);
});
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

await test("the first view downloads nothing of the shelf and stays within its weight", async () => {
  await page.goto(base);
  await page.waitForSelector('#first-look[data-state="done"]', { timeout: 120_000 });
  const files = [...seen.values()];
  const gzip = files.reduce((a, f) => a + f.gzip, 0);
  console.log(`     first view (ladder, first look): ${kib(gzip)} gzipped (${files.map((f) => `${f.file} ${kib(f.gzip)}`).join(", ")}); index.html's own files ${kib(pageWeight().totalGzip)}`);
  expect(!files.some((f) => f.file.includes("shelf")), "the first view fetched the shelf");
  expect(gzip <= FIRST_VIEW_MAX, `the first view is ${kib(gzip)} gzipped`);
});

await test("opened after the first look, the tab shows every type and this browser's dot", async () => {
  const before = new Set(seen.keys());
  await page.evaluate(() => { window.cloudClicked = performance.now(); });
  await page.click(".tab:has-text('Cloud')");
  const done = await page.waitForFunction((n) => {
    const table = document.querySelector("#cloud-table");
    const ring = document.querySelector("#cloud-scatter circle.highlight");
    return table?.getAttribute("aria-rowcount") === String(n + 1) && ring ? performance.now() - window.cloudClicked : false;
  }, ALL, { timeout: 60_000, polling: 10 });
  const ms = await done.jsonValue();
  const status = page.locator(".cloud-status");
  const [fetchMs, readMs] = [await status.getAttribute("data-fetch-ms"), await status.getAttribute("data-read-ms")];
  const files = [...seen.values()].filter((f) => !before.has(f.file));
  const shelf = path.join(DIST, "cloud", "shelf.json");
  const br = statSync(`${shelf}.br`).size;
  console.log(`     Cloud tab: ${ALL} rows and this browser's dot ${ms.toFixed(0)} ms after the click (shelf fetched in ${fetchMs} ms, every curve read in wasm in ${readMs} ms)`);
  console.log(`     Cloud tab downloads: ${files.map((f) => `${f.file} ${kib(f.gzip)} gzipped`).join(", ")}; the shelf as memwall serve sends it to Chromium (brotli): ${kib(br)}`);
  expect(files.some((f) => f.file === "cloud/shelf.json"), "the tab did not fetch the shelf");
  const dots = await page.locator("#cloud-scatter circle.dot:not(.highlight)").count();
  const plotted = cloudJson().rows.filter((r) => r.effective_llc_bytes != null && r.dram_ns != null).length;
  expect(dots === plotted, `${dots} dots, ${plotted} types have both figures`);
  const title = await page.locator("#cloud-scatter circle.highlight title").first().textContent();
  expect(title.startsWith("this browser's first look (yours)"), `the ring says: ${title}`);
  const attribution = await page.locator("#cloud-attribution").innerText();
  expect(attribution.includes("Spare Cores") && attribution.includes("CC BY-SA 4.0"), `attribution: ${attribution}`);
  await shot(page, "cloud");
});

await test("the table is memwall cloud's, and filtering and sorting every row keep what it keeps", async () => {
  await page.click("#cloud-table button[data-sort='host']");
  const shown = await page.locator("#cloud-table tr.host-row").evaluateAll((trs) =>
    trs.slice(0, 30).map((r) => [...r.querySelectorAll("th, td")].slice(1).map((c) => c.innerText.trim())));
  const printed = cloudMarkdown("--sort", "type", "--limit", "30");
  expect(JSON.stringify(shown) === JSON.stringify(printed), `page:\n${JSON.stringify(shown.slice(0, 3))}\nmemwall cloud:\n${JSON.stringify(printed.slice(0, 3))}`);
  const sortMs = await timed(page, "document.querySelector(\"#cloud-table button[data-sort='dram_ns']\").click();");
  const dram = await page.locator("#cloud-table tr.host-row td:nth-child(10)").allInnerTexts();
  const numbers = dram.filter((t) => t !== "-").map(Number);
  expect(numbers.length > 10 && numbers.every((v, i) => i === 0 || numbers[i - 1] <= v), `DRAM ns sorted: ${dram.slice(0, 12)}`);
  const filter = (term) => `const i = document.querySelector('#cloud-filter'); i.value = ${JSON.stringify(term)}; i.dispatchEvent(new Event('input', { bubbles: true }));`;
  const filterMs = await timed(page, filter("arch=aarch64 fast>=32MiB"));
  const kept = cloudJson("--filter", "arch=aarch64", "--filter", "fast>=32MiB").rows.length;
  expect(await rows(page) === kept && kept > 0 && kept < ALL, `${await rows(page)} rows kept, memwall cloud keeps ${kept}`);
  const clearMs = await timed(page, filter(""));
  expect(await rows(page) === ALL, "clearing the filter did not bring every row back");
  console.log(`     every row: sorted by DRAM ns in ${sortMs.toFixed(0)} ms; filtered to ${kept} in ${filterMs.toFixed(0)} ms, back to ${ALL} in ${clearMs.toFixed(0)} ms`);
  await page.fill("#cloud-filter", "colour=red");
  const error = await page.locator(".fleet-tools .field-error").innerText();
  expect(error.includes("no column \"colour\""), `error: ${error}`);
  await page.fill("#cloud-filter", "");
});

await test("a dot clicked lays its type's curve over this browser's", async () => {
  const dot = page.locator("#cloud-scatter circle.dot:not(.highlight)").first();
  const label = await dot.locator("title").textContent();
  const type = label.split(" (")[0];
  await dot.dispatchEvent("click");
  await page.waitForSelector("#cloud-curves g.series");
  const series = await page.locator("#cloud-curves g.series").count();
  const legend = await page.locator("#cloud-curves").textContent();
  expect(series === 2, `${series} curves drawn: this browser's and the type's`);
  expect(legend.includes(type) && legend.includes("first look (yours"), `the chart holds: ${legend.slice(0, 300)}`);
  const points = await page.locator("#cloud-curves g.series").nth(1).locator("circle").count();
  const entry = cloudJson("--filter", `type=${type.split(" ")[1]}`).rows.find((r) => `${r.shelf.provider} ${r.host}` === type);
  expect(entry && points > 0, `${type}: ${points} points drawn`);
  await shot(page, "cloud-overlay");
});

await test("a report opened is placed too, and the VM-against-metal view lists the AWS pairs", async () => {
  await page.click(".tab:has-text('Reports')");
  await page.setInputFiles("#report-file", ZEN3);
  await page.waitForSelector("article.host");
  await page.click(".tab:has-text('Cloud')");
  await page.waitForFunction(() => document.querySelectorAll("#cloud-scatter circle.highlight").length === 2);
  await page.click("#cloud-pairs-toggle");
  const types = await page.locator("#cloud-pairs tr.pair-row").evaluateAll((trs) => trs.map((r) => r.dataset.type));
  for (const name of ["m9g.metal-48xl", "m9g.large", "x8i.metal-48xl", "x8i.large"]) {
    expect(types.includes(name), `the pairs view has no ${name}`);
  }
  await page.click("#cloud-pairs tr.pair-row[data-type='x8i.large']");
  await page.waitForFunction(() => document.querySelector("#cloud-overlay")?.dataset.types === "2");
  await shot(page, "cloud-pairs");
});

await test("no script errors", async () => {
  expect(pageErrors.length === 0, pageErrors.join("\n"));
});

await browser.close();
server.kill();
process.exit(summary("cloud") ? 1 : 0);
