// The Fleet tab end to end, in headless Chromium, against the real `memwall serve`:
//   - the kept reports (every one in examples/reports) on first open, the same rows and text `memwall fleet`
//     prints, sorted by a header both ways, the scatter's dots, a host opened, two compared, a
//     prices CSV dropped and sorted by;
//   - `?fleet=URL` of a static JSON index (with a report that does not parse and one that is not
//     there, both listed with their reason), and the messages for a missing index, a malformed
//     one and a URL that is none;
//   - 1,000 reports made by perturbing the kept ones (figures varied by a few %, distinct host
//     names) served with `memwall serve --reports DIR` (rows read by the server: from a server
//     started just before, then on a reload) and from a static index `memwall fleet --index`
//     wrote: every row reachable (the table draws the rows in view as they scroll in), the last
//     one drawn at the end; the times from navigation to the table, of the scroll to its end and
//     of a sort of all rows printed (not asserted: they depend on the machine's load).
// Screenshots land in e2e/artifacts/. Needs what scripts/e2e.sh builds (dist/, the native memwall).

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ARTIFACTS, DIST, MEMWALL, ROOT, checkInputs, expect, harness, launch, startServer } from "./lib.mjs";

checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const EXAMPLES = path.join(ROOT, "examples", "reports");
const work = mkdtempSync(path.join(tmpdir(), "memwall-fleet-"));
const COUNT = 1000;

/** `memwall fleet ARGS --json -`, parsed. */
function fleetJson(...args) {
  return JSON.parse(execFileSync(MEMWALL, ["fleet", ...args, "--json", "-"], { maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] }));
}

/** The table `memwall fleet` prints as Markdown: one array of cells per row. */
function fleetMarkdown(...args) {
  const text = execFileSync(MEMWALL, ["fleet", ...args, "--markdown", "-"], { maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] }).toString();
  return text.split("\n").filter((l) => l.startsWith("|")).slice(2).map((l) => l.slice(1, -1).split("|").map((c) => c.trim()));
}

// A report varied as another run on a similar host would be: every latency of a point by the
// same factor (so min <= median <= max and cycles = ns x GHz still hold), the races' times and
// the streaming rates by a factor per report. Sizes, counts and the data are left alone.
function perturb(report, i, random) {
  const near = (spread) => 1 + (random() * 2 - 1) * spread;
  const latency = near(0.04), race = near(0.05), stream = near(0.05);
  const scaleAll = (node, f) => {
    if (typeof node === "number") return node * f;
    if (Array.isArray(node)) return node.map((x) => scaleAll(x, f));
    if (node && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, scaleAll(v, f)]));
    return node;
  };
  const LATENCY = new Set(["ns_per_load", "samples_ns_per_load", "ns_per_load_median", "ns_per_load_before", "ns_per_load_after", "cycles_per_load"]);
  const RACE = new Set(["seconds", "samples_seconds", "first_run_seconds", "build_seconds", "probe_seconds", "ns_per_row", "ns_per_probe"]);
  const walk = (node, f) => {
    if (Array.isArray(node)) return node.map((x) => walk(x, f));
    if (!node || typeof node !== "object") return node;
    // A ladder point: its own small jitter on top of the report's factor.
    const pointF = "bytes" in node && "ns_per_load" in node ? f * near(0.01) : f;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => {
      if (LATENCY.has(k)) return [k, scaleAll(v, pointF)];
      if (RACE.has(k)) return [k, scaleAll(v, race)];
      if (k.endsWith("_gb_per_s")) return [k, scaleAll(v, stream)];
      return [k, walk(v, pointF)];
    }));
  };
  const varied = walk(report, latency);
  varied.host.name = `${report.host.name ?? "host"}-${String(i).padStart(4, "0")}`;
  return varied;
}

// A small deterministic generator, so a failure can be reproduced.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const kept = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")).sort();
// In dist/, so that the page's own server also serves them as a static host would.
// The reports in r/, the index `memwall fleet --index` writes beside it (not among them).
const BIG = "e2e-fleet-1000";
rmSync(path.join(DIST, BIG), { recursive: true, force: true });
const big = path.join(DIST, BIG, "r");
mkdirSync(big, { recursive: true });
process.on("exit", () => rmSync(path.join(DIST, BIG), { recursive: true, force: true }));
{
  const random = mulberry32(2026);
  const bases = kept.map((f) => JSON.parse(readFileSync(path.join(EXAMPLES, f), "utf8")));
  for (let i = 0; i < COUNT; i++) {
    writeFileSync(path.join(big, `host-${String(i).padStart(4, "0")}.json`), JSON.stringify(perturb(bases[i % bases.length], i, random)));
  }
}

// A static index (as any web host serves one), beside the page in dist/ so it is same-origin:
// two kept reports, one that does not parse, one that is not there. URLs relative to the index.
const STATIC = "e2e-fleet";
const staticDir = path.join(DIST, STATIC);
mkdirSync(path.join(staticDir, "r"), { recursive: true });
process.on("exit", () => rmSync(staticDir, { recursive: true, force: true }));
cpSync(path.join(EXAMPLES, kept[0]), path.join(staticDir, "r", kept[0]));
cpSync(path.join(EXAMPLES, kept[1]), path.join(staticDir, "r", kept[1]));
writeFileSync(path.join(staticDir, "r", "broken.json"), '{"schema_version": 1, "tool":');
writeFileSync(path.join(staticDir, "index.json"), JSON.stringify({
  reports: [kept[0], kept[1], "broken.json", "gone.json"].map((name) => ({ name, url: `r/${name}` })),
}));
writeFileSync(path.join(staticDir, "malformed.json"), '{"reports": [{"name": "a.json"}]}');

const prices = path.join(work, "prices.csv");
const stems = kept.map((f) => f.replace(/\.json$/, ""));
writeFileSync(prices, `name,usd_per_hour\n${stems[0]},0.2\n${stems[1]},0.05\n${stems[2]},0.1\nnot-measured,1\n`);

execFileSync(MEMWALL, ["fleet", big, "--index", path.join(DIST, BIG, "index.json")], { stdio: "ignore" });
const { base, server } = await startServer([], [EXAMPLES]);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, colorScheme: "light" });
context.setDefaultTimeout(60_000);
const suite = harness();
const { summary } = suite;
// FLEET_ONLY=words runs only the checks whose name holds them (while working on one).
const test = (name, body) => (!process.env.FLEET_ONLY || name.includes(process.env.FLEET_ONLY) ? suite.test(name, body) : null);
const pageErrors = [];
const shot = async (page, name) => (await page.evaluate(() => window.scrollTo(0, 0)), page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true }));
async function open(url) {
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`${url}: ${e.message}`));
  await page.goto(url);
  return page;
}
const rowCount = (page) => page.locator("#fleet-table tr.host-row").count();
const column = (page, i) => page.locator(`#fleet-table tr.host-row td:nth-child(${i})`).allInnerTexts();
const fleetSection = "section[aria-label='Fleet']";

const native = fleetJson(EXAMPLES);
const plotted = native.rows.filter((r) => r.effective_llc_bytes != null && r.dram_ns != null).length;

await test("the kept reports, served with --reports, are the Fleet tab's rows on first open, as memwall fleet prints them", async () => {
  const page = await open(`${base}#fleet`);
  await page.waitForFunction((n) => document.querySelectorAll("#fleet-table tr.host-row").length === n, native.rows.length);
  const table = fleetMarkdown(EXAMPLES, "--sort", "report");
  await page.click("#fleet-table button[data-sort='report']");
  const shown = await page.locator("#fleet-table tr.host-row").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("th, td")].slice(1).map((c) => c.innerText.trim())));
  expect(JSON.stringify(shown) === JSON.stringify(table), `page rows:\n${JSON.stringify(shown)}\nmemwall fleet:\n${JSON.stringify(table)}`);
  const dots = await page.locator("#fleet-scatter circle.dot").count();
  expect(dots === plotted, `${dots} dots in the scatter, ${plotted} hosts have both figures`);
  const legend = await page.locator("#fleet-scatter .legend").textContent();
  expect(/VM/.test(legend) && /bare metal/.test(legend), `legend: ${legend}`);
  await shot(page, "fleet");
  await page.close();
});

await test("a header sorts by its figure, again the other way; rows without it stay last", async () => {
  const page = await open(`${base}#fleet`);
  await page.waitForFunction((n) => document.querySelectorAll("#fleet-table tr.host-row").length === n, native.rows.length);
  const dram = 1 + 1 + 6; // the pick box, then report, host, cpu, vCPUs, hypervisor, LLC: DRAM ns is the 8th cell
  const numbers = async () => (await page.locator("#fleet-table tr.host-row").evaluateAll((rows, i) =>
    rows.map((r) => r.children[i - 1].innerText.trim()), dram)).filter((t) => t !== "-").map(Number);
  await page.click("#fleet-table button[data-sort='dram_ns']");
  const up = await numbers();
  expect(up.length >= 2 && up.every((v, i) => i === 0 || up[i - 1] <= v), `ascending: ${up}`);
  expect(await page.getAttribute("#fleet-table th[aria-sort]", "aria-sort") === "ascending", "aria-sort");
  await page.click("#fleet-table button[data-sort='dram_ns']");
  const down = await numbers();
  expect(down.every((v, i) => i === 0 || down[i - 1] >= v) && down[0] === Math.max(...up), `descending: ${down}`);
  // The filter box takes --filter's terms.
  await page.fill("#fleet-filter", "dram_ns<90");
  const kept = await rowCount(page);
  expect(kept === native.rows.filter((r) => r.dram_ns != null && r.dram_ns < 90).length && kept < native.rows.length, `${kept} rows kept by dram_ns<90`);
  await page.fill("#fleet-filter", "");
  await page.close();
});

await test("a row opens its host's report; two picked open together, overlaid", async () => {
  const page = await open(`${base}#fleet`);
  await page.waitForFunction((n) => document.querySelectorAll("#fleet-table tr.host-row").length === n, native.rows.length);
  const rows = page.locator("#fleet-table tr.host-row");
  const host = (await rows.nth(1).locator("td").nth(1).innerText()).trim();
  await rows.nth(1).locator("td").nth(2).click();
  await page.waitForSelector("section[aria-label='Reports']:not([hidden]) article.host");
  const cards = await page.locator("section[aria-label='Reports'] article.host .host-name").allInnerTexts();
  expect(cards.length === 1 && cards[0].startsWith(host), `opened: ${cards}, wanted ${host}`);
  await page.click(".tab:has-text('Fleet')");
  await rows.nth(0).locator("input[type=checkbox]").check();
  await rows.nth(2).locator("input[type=checkbox]").check();
  await page.click("#fleet-compare");
  await page.waitForFunction(() => document.querySelectorAll("section[aria-label='Reports'] article.host").length === 2);
  const series = await page.locator("#report-ladder g.series").count();
  expect(series === 2, `${series} ladders overlaid`);
  expect(await page.locator(".focus-note").count() === 1, "no word that only the picked reports are shown");
  await shot(page, "fleet-compare");
  await page.close();
});

await test("a prices CSV dropped beside the reports adds a column to sort by, and names what matched nothing", async () => {
  const page = await open(`${base}#fleet`);
  await page.waitForFunction((n) => document.querySelectorAll("#fleet-table tr.host-row").length === n, native.rows.length);
  await page.setInputFiles("#fleet-files", prices);
  await page.click("#fleet-table button[data-sort='usd_per_hour']");
  const last = (await page.locator("#fleet-table thead th").count());
  const usd = await column(page, last);
  const wanted = ["0.05", "0.1", "0.2", ...Array(native.rows.length - 3).fill("-")];
  expect(JSON.stringify(usd) === JSON.stringify(wanted), `usd_per_hour sorted: ${usd}`);
  const note = await page.locator(".prices-note").innerText();
  expect(note.includes("not-measured"), `note: ${note}`);
  await page.close();
});

await test("?fleet=URL reads a static index; reports that cannot be read are listed with why", async () => {
  const page = await open(`${base}?fleet=${STATIC}/index.json`);
  await page.waitForFunction(() => document.querySelector(".fleet-status")?.dataset.pending === "0" && document.querySelector(".unreadable"));
  expect(await rowCount(page) === 2, `${await rowCount(page)} rows`);
  const unread = await page.locator(".unreadable li").allInnerTexts();
  expect(unread.length === 2 && unread.some((t) => t.startsWith("broken.json")) && unread.some((t) => /gone\.json.*404/.test(t)), `unreadable: ${unread}`);
  await shot(page, "fleet-static-index");
  await page.close();
  const embed = await open(`${base}?embed=fleet&fleet=${STATIC}/index.json`);
  await embed.waitForFunction(() => document.querySelectorAll("#fleet-table tr.host-row").length === 2);
  expect(await embed.locator("header.top").count() === 0, "an embed has no page header");
  await embed.close();
});

await test("a missing index, a malformed one and a URL that is none each say so", async () => {
  for (const [fleet, wanted] of [
    [`${STATIC}/nothing-here.json`, /404/],
    [`${STATIC}/malformed.json`, /not a list of reports.*missing field `url`/],
    ["http://[not a url", /not a URL/],
  ]) {
    const page = await open(`${base}?fleet=${encodeURIComponent(fleet)}`);
    const text = await page.locator(".fleet-error").innerText();
    expect(wanted.test(text), `?fleet=${fleet}: ${text}`);
    await page.close();
  }
});

/** Opens `url` (a fresh document, never the same one with another hash), waits until the table
 * holds COUNT hosts and says how long from navigation that took. The table draws only the rows in
 * its view (web/src/fleet/table.rs): so it also scrolls to the end, where the last host must be
 * drawn, checks that the table is as tall as COUNT rows, and times a sort of all of them. */
async function timeToRows(page, url, what) {
  await page.goto("about:blank");
  await page.goto(url);
  const at = await page.waitForFunction((n) => {
    const table = document.querySelector("#fleet-table");
    if (table?.getAttribute("aria-rowcount") !== String(n + 1) || !table.querySelector("tr.host-row")) return false;
    return performance.now();
  }, COUNT, { timeout: 120_000, polling: 20 });
  const ms = await at.jsonValue();
  const drawn = await page.locator("#fleet-table tr.host-row").count();
  const dots = await page.locator("#fleet-scatter circle.dot").count();
  // Where the time went: when each download the rows wait for ended (from navigation).
  const ends = await page.evaluate(() => performance.getEntriesByType("resource")
    .filter((r) => /\.wasm(\?|$)|fleet\.json$|index\.json$/.test(r.name))
    .map((r) => `${r.name.split("/").pop().replace(/\?.*/, "").replace(/-[0-9a-f]{16}/, "")} ${(r.responseEnd / 1000).toFixed(2)} s`));
  const tall = await page.evaluate(() => document.querySelector("#fleet-table tbody").getBoundingClientRect().height
    / document.querySelector("#fleet-table tr.host-row").getBoundingClientRect().height);
  expect(Math.abs(tall - COUNT) <= 2, `the table is ${tall.toFixed(1)} rows tall for ${COUNT} hosts`);
  // A frame after the change, so that layout and paint are counted.
  const timed = (change) => page.evaluate(async (change) => {
    const t0 = performance.now();
    new Function(change)();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    return performance.now() - t0;
  }, change);
  const scrollMs = await timed("const s = document.querySelector('.fleet-table'); s.scrollTop = s.scrollHeight;");
  await page.waitForSelector(`#fleet-table tr[aria-rowindex="${COUNT + 1}"]`);
  const lastName = (await page.locator(`#fleet-table tr[aria-rowindex="${COUNT + 1}"] th`).innerText()).trim();
  expect(lastName.endsWith(`-${String(COUNT - 1).padStart(4, "0")}`), `the last row is ${lastName}`);
  const sortMs = await timed("document.querySelector(\"#fleet-table button[data-sort='dram_ns']\").click();");
  console.log(`fleet: ${COUNT} reports ${what}: navigation to a table of ${COUNT} rows in ${(ms / 1000).toFixed(2)} s `
    + `(${drawn} drawn, the rest as they scroll into view: to the last in ${scrollMs.toFixed(0)} ms; sorting all by DRAM ns `
    + `${sortMs.toFixed(0)} ms); ${dots} dots (downloads ended: ${ends.join(", ")})`);
  expect(await page.locator(".unreadable").count() === 0, "some of the perturbed reports were not read");
}

await test(`${COUNT} reports served with --reports: every row reachable, from a fresh server and on a reload`, async () => {
  // Started now, so the first load includes the server reading the 1,000 reports.
  const bigServer = await startServer([], [big]);
  process.on("exit", () => bigServer.server.kill());
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`1000: ${e.message}`));
  await timeToRows(page, `${bigServer.base}#fleet`, "from a memwall serve --reports started just before");
  await timeToRows(page, `${bigServer.base}#fleet`, "from the same server, reloaded");
  await shot(page, "fleet-1000");
  await page.close();
});

await test(`${COUNT} reports from a static index memwall fleet --index wrote: every row reachable`, async () => {
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`1000 static: ${e.message}`));
  await timeToRows(page, `${base}?fleet=${BIG}/index.json#fleet`, "from a static index with rows (memwall fleet --index)");
  // A row still opens its report, fetched from the URL the index gives: the last one, in view
  // after the scroll to the end (the first drawn is in the margin above the view).
  const last = page.locator(`#fleet-table tr[aria-rowindex="${COUNT + 1}"]`);
  const host = (await last.locator("td").nth(1).innerText()).trim();
  await last.locator("td").nth(2).click();
  await page.waitForSelector("section[aria-label='Reports']:not([hidden]) article.host");
  const cards = await page.locator("section[aria-label='Reports'] article.host .host-name").allInnerTexts();
  expect(cards.length === 1 && cards[0].startsWith(host), `opened: ${cards}, wanted ${host}`);
  await page.close();
});

await browser.close();
server.kill();
rmSync(work, { recursive: true, force: true });
if (pageErrors.length) console.log(`page errors:\n  ${pageErrors.join("\n  ")}`);
process.exit(summary("fleet") || pageErrors.length ? 1 : 0);
