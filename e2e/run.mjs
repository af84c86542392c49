// End-to-end test of memwall's web front end, in a real (headless) Chromium.
//
// Builds nothing: it expects dist/ from `trunk build --release` and the native `memwall` binary
// (scripts/e2e.sh does both). It serves dist/ with `memwall serve`, so the real server is under
// test too, drives the pages, and saves a screenshot of each in e2e/artifacts/.
//
// Environment: MEMWALL_BIN (default <repo>/${CARGO_TARGET_DIR:-target}/release/memwall),
// MEMWALL_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium).

import { execFileSync } from "node:child_process";
import { connect } from "node:net";
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { ARTIFACTS, DIST, EMBEDDED, MEMWALL, ROOT, checkInputs, expect, harness, launch, pageWeight, startServer } from "./lib.mjs";

const TIMEOUT = 120_000;
checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), "memwall-e2e-"));

// A native report, as a user would produce one.
const nativeReport = path.join(work, "native-report.json");
execFileSync(MEMWALL, ["ladder", "--min", "16KiB", "--max", "256KiB", "--json", nativeReport], { stdio: ["ignore", "ignore", "inherit"] });
const hostName = JSON.parse(readFileSync(nativeReport, "utf8")).host.name;
// A native bandwidth report: the browser does not stream, so its bandwidth comes from reports.
const bandwidthReport = path.join(work, "native-bandwidth.json");
execFileSync(MEMWALL, ["bandwidth", "--min", "16KiB", "--max", "1MiB", "--runs", "1", "--json", bandwidthReport], { stdio: ["ignore", "ignore", "inherit"] });
// A tiny native join on the sides the page's join generates (the small preset's skew and seed),
// to set the browser's run against: the real `memwall join`, one run of every kernel.
const JOIN = { build: 20000, probe: 200000, miss: 0.1 };
const joinReport = path.join(work, "native-join.json");
execFileSync(MEMWALL, ["join", "--build-keys", String(JOIN.build), "--probe-rows", String(JOIN.probe), "--miss-rate", String(JOIN.miss),
  "--skew", "zipf:0.575", "--runs", "1", "--declared-caches", "--json", joinReport], { stdio: ["ignore", "ignore", "inherit"] });
const malformed = path.join(work, "malformed.json");
writeFileSync(malformed, '{"schema_version": 1, "tool": {"name": "memwall"');
const wrongVersion = path.join(work, "from-the-future.json");
writeFileSync(wrongVersion, JSON.stringify({ schema_version: 99, tool: { name: "memwall", version: "9.0.0" } }));
// The native report with one latency no machine measures.
const impossible = path.join(work, "impossible.json");
const impossibleReport = JSON.parse(readFileSync(nativeReport, "utf8"));
impossibleReport.ladder.points[0].ns_per_load.min = -1;
writeFileSync(impossible, JSON.stringify(impossibleReport));
// A 100 MB report target, served from dist/ (same origin, as ?report= URLs are): sparse, so it
// costs no disk and no time to make.
const hugeName = "e2e-100MB-report.json";
const hugeFd = openSync(path.join(DIST, hugeName), "w");
ftruncateSync(hugeFd, 100_000_000);
closeSync(hugeFd);
process.on("exit", () => rmSync(path.join(DIST, hugeName), { force: true }));
// A share link whose report inflates to 65 MiB (past the 64 MiB cap) from ~65 KiB of link.
const bomb = deflateRawSync(Buffer.alloc(65 << 20, 0x20), { level: 9 }).toString("base64url");

// The real server, on a port the system picks.
const { base, server } = await startServer([nativeReport]);
console.log(`e2e: memwall serve at ${base}, host name in the native report: ${hostName}`);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
context.setDefaultTimeout(TIMEOUT);

const { test, summary } = harness();
const pageErrors = [];
async function newPage(url) {
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`${url}: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(`${url}: console: ${m.text()}`); });
  await page.goto(url);
  await page.waitForSelector("main section:not([hidden]) h1, main.embed .card");
  return page;
}
// `host` is the Host header: the served address with its port, as a browser sends it, unless a
// test names another.
function rawStatus(target, host = new URL(base).host) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.0\r\nHost: ${host}\r\n\r\n`));
    let head = "";
    socket.on("data", (d) => (head += d));
    socket.on("end", () => resolve(Number(head.split(" ")[1])));
    socket.on("error", reject);
  });
}
const shot = async (page, name) => (await page.evaluate(() => window.scrollTo(0, 0)), page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true }));

const page = await newPage(base);

await test("the page loads cross-origin isolated, served with wasm's content type", async () => {
  expect(await page.evaluate(() => crossOriginIsolated) === true, "crossOriginIsolated is false: COOP/COEP missing");
  const wasm = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name).find((n) => n.endsWith(".wasm")));
  const response = await page.request.get(wasm);
  expect(response.headers()["content-type"] === "application/wasm", `wasm served as ${response.headers()["content-type"]}`);
  // Sent raw: a browser or URL parser would normalize the dots away before asking.
  for (const target of ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/snippets/..%2f..%2f..%2fetc%2fpasswd"]) {
    const status = await rawStatus(target);
    expect(status === 400, `GET ${target} got HTTP ${status}`);
  }
});

await test("the page runs under its Content-Security-Policy, and other host names are refused", async () => {
  const policy = (await page.request.get(base)).headers()["content-security-policy"] || "";
  expect(policy.includes("script-src 'self' 'wasm-unsafe-eval'"), `policy: ${policy}`);
  const meta = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content);
  expect(meta === policy, `the meta policy differs from the header: ${meta}`);
  expect(await page.evaluate(() => !document.querySelector("script:not([src])")), "an inline script is in the page");
  // What a DNS-rebinding page would send: its own name for this server's address.
  for (const host of ["attacker.example", `attacker.example:${new URL(base).port}`]) {
    const status = await rawStatus("/reports/index.json", host);
    expect(status === 403, `Host: ${host} got HTTP ${status}`);
  }
});

await test("the report given to memwall serve is listed on start", async () => {
  await page.waitForSelector(".tab .count");
  await page.click("text=Reports");
  await page.waitForSelector(`.host-name:has-text("${hostName}")`);
});

await test("a running ladder can be cancelled, and the page stays responsive meanwhile", async () => {
  await page.click(".tab:has-text('Latency ladder')");
  const ladder = page.locator("section[aria-label='Latency ladder']");
  await ladder.getByRole("textbox", { name: "Largest working set" }).fill("256MiB");
  await page.click("button:has-text('Run in this browser')");
  await page.waitForFunction(() => document.querySelectorAll("#ladder-table tbody tr").length >= 2);
  // The main thread answers while the worker chases pointers: switch pages and back.
  await page.click(".tab:has-text('Reports')");
  await page.click(".tab:has-text('Latency ladder')");
  await page.click("button:has-text('Cancel')");
  const notice = await page.locator(".notice").innerText();
  expect(/^Cancelled after \d+ of 29 sizes/.test(notice), `notice: ${notice}`);
  await page.waitForSelector("button:has-text('Run in this browser')");
});

await test("the ladder runs in a worker and grows the chart and table point by point", async () => {
  await page.click(".tab:has-text('Latency ladder')");
  const ladder = page.locator("section[aria-label='Latency ladder']");
  await ladder.getByRole("textbox", { name: "Smallest working set" }).fill("16KiB");
  await ladder.getByRole("textbox", { name: "Largest working set" }).fill("1MiB");
  await page.click("button:has-text('Run in this browser')");
  // Responsive while measuring: the Cancel button is there and the page answers.
  await page.waitForSelector("button:has-text('Cancel')", { timeout: 10_000 });
  expect(await page.evaluate(() => 1 + 1) === 2, "page unresponsive");
  await page.waitForSelector("text=points measured in");
  const rows = await page.locator("#ladder-table tbody tr").count();
  expect(rows === 13, `expected 13 sizes from 16 KiB to 1 MiB at 2 per doubling, the table has ${rows}`);
  const dots = await page.locator("#ladder-chart g.series").first().locator("circle").count();
  expect(dots === 13, `expected 13 points in the chart, found ${dots}`);
  const timer = await page.locator(".timer-note").innerText();
  expect(/cross-origin isolated/.test(timer) && !/not cross-origin/.test(timer), `timer note: ${timer}`);
  const first = await page.locator("#ladder-table tbody tr").first().innerText();
  expect(/^16 KiB/.test(first), `first row: ${first}`);
  await shot(page, "ladder");
});

await test("a native report from `memwall ladder --json` opens and shows its host name", async () => {
  await page.click(".tab:has-text('Reports')");
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", nativeReport);
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n + 1, before);
  const names = await page.locator(".host-name").allInnerTexts();
  // Opened twice (served, then picked), so the second is told apart as "name (2)".
  expect(names.includes(hostName) && names.includes(`${hostName} (2)`), `host names shown: ${names}`);
  await page.waitForSelector("#report-ladder");
  await shot(page, "reports");
});

// A report with the sections of `memwall cores`, `watch` and `sensitivity`, measured on a real host.
const vmHidesReport = path.join(ROOT, "examples", "reports", "zen3-milan-2vcpu-kvm-vm-hides.json");

await test("a report with cores, watch and sensitivity sections draws its heatmap, timeline and slowdown chart", async () => {
  await page.click(".tab:has-text('Reports')");
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", vmHidesReport);
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n + 1, before, { timeout: 10_000 });
  const expected = JSON.parse(readFileSync(vmHidesReport, "utf8"));
  await page.waitForSelector("#report-sensitivity g.series", { timeout: 10_000 });
  const curves = await page.locator("#report-sensitivity g.series").count();
  expect(curves === expected.sensitivity.length, `expected ${expected.sensitivity.length} slowdown curves, found ${curves}`);
  const noise = await page.locator("#report-sensitivity g.y-band").count();
  expect(noise === curves, `expected a noise band per curve, found ${noise}`);
  const cpus = expected.cores.cpus.length;
  const cells = await page.locator(".cores-heatmap svg g.cell").count();
  expect(cells === cpus * cpus, `expected ${cpus * cpus} heatmap cells, found ${cells}`);
  const tiers = await page.locator(".cores-heatmap svg text.tier").count();
  expect(tiers >= 1, "the heatmap names no tier");
  const points = await page.locator(".watch-timeline svg g.series").count();
  expect(points === expected.watch.points.length, `expected ${expected.watch.points.length} watched points, found ${points}`);
  const read = expected.watch.samples.filter((s) => s.steal_jiffies !== undefined && s.total_jiffies > 0).length;
  const steal = await page.locator(".watch-timeline svg rect.share").count();
  expect(steal === read, `expected steal for ${read} intervals, found ${steal}`);
  // The report opened before has none of these sections, and each card says so.
  const missing = await page.locator(".vm-hides .missing").count();
  expect(missing === 3, `expected the three cards to name the reports without their section, found ${missing}`);
  await shot(page, "reports-vm-hides");
  // Closed again, so the tests after this one see the reports they expect.
  await page.locator("article.host").last().locator("button:has-text('Close')").click();
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n, before);
  expect(await page.locator(".vm-hides").count() === 0, "the cards stayed after their report was closed");
});

// bench/sweep.py's output on a real host: memwall's kernels against four SQL engines by cardinality.
const engineSweep = path.join(ROOT, "examples", "engine-sweeps", "xeon-2vcpu-kvm-sweep-quick.json");

await test("an engine sweep from bench/sweep.py draws each panel with the engines overlaid and where adaptive stands", async () => {
  await page.click(".tab:has-text('Reports')");
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", engineSweep);
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n + 1, before, { timeout: 10_000 });
  const points = JSON.parse(readFileSync(engineSweep, "utf8")).engine_sweeps[0].points;
  // In the page's order: by query, then distribution, then thread count.
  const order = (a, b) => a.query.localeCompare(b.query) || (a.series < b.series ? -1 : a.series > b.series ? 1 : 0) || a.threads - b.threads;
  const panels = [...new Set([...points].sort(order).map((p) => `${p.query}|${p.series}|${p.threads}`))];
  await page.waitForSelector(".engine-sweep svg g.series", { timeout: 10_000 });
  const cards = page.locator(".engine-sweep");
  expect(await cards.count() === panels.length, `expected ${panels.length} panels, found ${await cards.count()}`);
  for (const [i, panel] of panels.entries()) {
    const here = points.filter((p) => `${p.query}|${p.series}|${p.threads}` === panel);
    const lines = new Set(here.map((p) => p.engine)).size;
    const drawn = await cards.nth(i).locator("svg g.series").count();
    expect(drawn === lines, `${panel}: expected ${lines} lines, found ${drawn}`);
    // Adaptive against the fastest engine at each number of keys, counted here from the file.
    const keys = [...new Set(here.map((p) => p.keys))];
    const first = keys.filter((k) => {
      const at = here.filter((p) => p.keys === k);
      const adaptive = at.find((p) => p.engine === "memwall adaptive");
      const best = Math.min(...at.filter((p) => !p.engine.startsWith("memwall ")).map((p) => p.ns_per_row));
      return adaptive && (best / adaptive.ns_per_row) * 1.05 >= 1;
    }).length;
    const standing = await cards.nth(i).locator(".standing").innerText();
    expect(standing.includes(`first at ${first} of ${keys.length} points`), `${panel}: ${standing}`);
  }
  await shot(page, "reports-engine-sweep");
  await page.locator("article.host").last().locator("button:has-text('Close')").click();
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n, before);
});

await test("the ladder also measures other patterns and memory-level parallelism, and draws a report's bandwidth", async () => {
  await page.click(".tab:has-text('Reports')");
  await page.setInputFiles("#report-file", bandwidthReport);
  await page.click(".tab:has-text('Latency ladder')");
  const ladder = page.locator("section[aria-label='Latency ladder']");
  await ladder.getByRole("textbox", { name: "Smallest working set" }).fill("16KiB");
  await ladder.getByRole("textbox", { name: "Largest working set" }).fill("256KiB");
  await ladder.getByRole("checkbox", { name: "page-local" }).check();
  await ladder.getByRole("checkbox", { name: "memory-level parallelism" }).check();
  await page.click("button:has-text('Run in this browser')");
  await page.waitForSelector("text=points measured in", { timeout: 120_000 });
  const legend = await page.locator("#ladder-chart .legend").textContent();
  expect(/page-local, [a-z ]*pages · [^·]*this run\)/.test(legend), `legend: ${legend}`);
  const curves = await page.locator("#ladder-chart g.series").count();
  expect(curves >= 2, `expected the random and page-local curves, found ${curves} series`);
  const knees = await page.locator(".knees").innerText();
  expect(/this run/.test(knees) && /chase/.test(knees), `parallelism: ${knees}`);
  // The core's advice, as `memwall run` prints it, for this browser's run.
  const advice = await ladder.locator("ul.advice").innerText();
  expect(/Memory-level parallelism: /.test(advice) && /Fast working set/.test(advice), `advice: ${advice}`);
  const chains = await page.locator("#parallelism-chart g.series circle").count();
  expect(chains === 7, `expected 7 chase counts, found ${chains}`);
  const bandwidth = await page.locator("#bandwidth-chart g.series").count();
  expect(bandwidth === 2, `expected read and copy from the bandwidth report, found ${bandwidth} series`);
  await shot(page, "ladder-patterns");
  await ladder.getByRole("checkbox", { name: "page-local" }).uncheck();
  await ladder.getByRole("checkbox", { name: "memory-level parallelism" }).uncheck();
  await page.click(".tab:has-text('Reports')");
});

await test("charts export as SVG and PNG, data as CSV", async () => {
  const download = async (button) => {
    const [file] = await Promise.all([page.waitForEvent("download"), page.click(`section[aria-label='Reports'] button:has-text('${button}')`)]);
    const saved = path.join(ARTIFACTS, file.suggestedFilename());
    await file.saveAs(saved);
    return readFileSync(saved);
  };
  const svg = (await download("Export SVG")).toString("utf8");
  expect(svg.startsWith("<svg") && svg.includes("Latency per load") && svg.includes("</svg>"), `SVG: ${svg.slice(0, 80)}`);
  const png = await download("Export PNG");
  expect(png.subarray(1, 4).toString() === "PNG" && png.length > 10_000, `PNG of ${png.length} bytes`);
  const csv = (await download("Export CSV")).toString("utf8").split("\n");
  expect(csv[0].startsWith("report,source,bytes,ns_per_load_min"), `CSV header: ${csv[0]}`);
  expect(csv.filter((l) => l.startsWith(`${hostName},native,`)).length === 9, `CSV rows for ${hostName}: ${csv.length}`);
});

await test("a malformed report shows a clear error and changes nothing else", async () => {
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", malformed);
  const alert = page.locator(".alert[role=alert]");
  await alert.waitFor();
  const text = await alert.innerText();
  expect(text.includes("malformed.json") && text.includes("not a memwall report"), `alert: ${text}`);
  expect(await page.locator("article.host").count() === before, "a report was added or removed");
  await shot(page, "reports-error");
  await page.setInputFiles("#report-file", wrongVersion);
  await page.waitForSelector(".alert:has-text('unsupported report schema_version 99')");
  expect(await page.locator("article.host").count() === before, "a report was added or removed");
});

await test("a report with impossible figures is marked and not drawn", async () => {
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", impossible);
  const marked = page.locator(".alert.implausible");
  await marked.waitFor();
  const text = await marked.innerText();
  expect(text.includes("impossible.json") && text.includes("impossible figure") && text.includes("-1"), `mark: ${text}`);
  expect(await page.locator("article.host").count() === before, "an impossible report was drawn");
});

await test("a 100 MB ?report= target and a share link that inflates past the cap give a message; the tab lives", async () => {
  // A page that shows no message in 30 s shows what it does show instead.
  const shown = async (page, locator) => {
    await locator.waitFor({ timeout: 30_000 }).catch(async (e) => {
      throw new Error(`${e.message.split("\n")[0]}; the page shows: ${(await page.locator("main").innerText()).slice(0, 300)}`);
    });
    return locator.innerText();
  };
  if (EMBEDDED) {
    console.log("     (front end built in: no folder to serve a 100 MB file from; only the share link is checked)");
  } else {
    const big = await newPage(`${base}?report=${hugeName}`);
    const text = await shown(big, big.locator(".alert[role=alert]"));
    expect(text.includes(hugeName) && text.includes("more than a memwall report can be"), `alert: ${text}`);
    await big.click(".tab:has-text('GROUP BY race')");
    expect(await big.evaluate(() => 1 + 1) === 2, "the tab died");
    await shot(big, "report-too-large");
    await big.close();
  }
  const started = Date.now();
  const shared = await newPage(`${base}#report=${bomb}`);
  const message = await shown(shared, shared.locator(".alert[role=alert]"));
  expect(message.includes("shared link") && message.includes("reading stopped there"), `alert: ${message}`);
  await shared.click(".tab:has-text('GROUP BY race')");
  expect(await shared.evaluate(() => 1 + 1) === 2, "the tab died");
  console.log(`     a ${(bomb.length / 1024).toFixed(0)} KiB share link inflating to 65 MiB: refused in ${Date.now() - started} ms`);
  await shared.close();
});

await test("an embed's autorun starts small runs only", async () => {
  const embed = await newPage(`${base}?embed=ladder&min=16KiB&max=256MiB&autorun=1`);
  const notice = await embed.locator(".notice").innerText();
  expect(notice.includes("starts when you press Run"), `notice: ${notice}`);
  await embed.waitForTimeout(500);
  expect(await embed.locator("button:has-text('Cancel')").count() === 0, "a 256 MiB run started by itself");
  await embed.goto(`${base}?embed=ladder&min=16KiB&max=32KiB&autorun=1`);
  await embed.waitForFunction(() => document.querySelectorAll("#ladder-chart-embed g.series circle").length === 3);
  await embed.close();
});

await test("a working set wasm cannot allocate is a message on the page, and the tab lives", async () => {
  // 2 GiB passes the page's own limit, but one wasm32 allocation cannot exceed 2 GiB: the ring's
  // allocation fails, which must come back as an error, not abort the worker.
  const ladder = await newPage(`${base}?min=2GiB&max=2GiB`);
  await ladder.click("button:has-text('Run in this browser')");
  const alert = ladder.locator("section[aria-label='Latency ladder'] .alert");
  await alert.waitFor({ timeout: 30_000 });
  const text = await alert.innerText();
  expect(text.includes("could not allocate 2.00 GiB"), `alert: ${text}`);
  await ladder.waitForSelector("button:has-text('Run in this browser')");
  expect(await ladder.evaluate(() => 1 + 1) === 2, "the tab died");
  await ladder.close();
});

await test("a small GROUP BY race runs naive, radix and tuned, which agree", async () => {
  await page.click(".tab:has-text('GROUP BY race')");
  const section = page.locator("section[aria-label='GROUP BY race']");
  await section.getByRole("textbox", { name: "Rows", exact: true }).fill("300000");
  await section.getByRole("textbox", { name: "Distinct keys", exact: true }).fill("50000");
  await section.locator("button:has-text('Run the race')").click();
  await page.waitForSelector("#groupby-table tbody tr");
  const rows = await page.locator("#groupby-table tbody tr").allInnerTexts();
  expect(rows.length === 3, `expected 3 kernels, got ${rows.length}`);
  const checksums = new Set(rows.map((r) => r.trim().split(/\s+/).pop()));
  expect(checksums.size === 1, `kernels disagree: ${[...checksums]}`);
  // The page says what was checked, and only that: this small race is checked every way.
  const rules = await page.locator("#groupby-rules").innerText();
  expect(rules.includes("memory: warm for every kernel"), `rules: ${rules}`);
  expect(rules.includes("matched a sort-and-count reference") && rules.includes("agreed with every other kernel"), `rules: ${rules}`);
  expect(rules.includes("no prefetch instruction"), `rules: ${rules}`);
  expect(await page.locator("#groupby-race rect").count() >= 3, "no race bars");
  await page.waitForTimeout(7000); // let the partitioning animation finish for the screenshot
  await shot(page, "groupby");
});

await test("a small join race runs every kernel, which agree on matches and checksum", async () => {
  await page.click(".tab:has-text('Join race')");
  const section = page.locator("section[aria-label='Join race']");
  await section.getByRole("textbox", { name: "Build keys", exact: true }).fill("100000");
  await section.getByRole("textbox", { name: "Probe rows", exact: true }).fill("1000000");
  await section.getByRole("textbox", { name: "Miss rate", exact: true }).fill("0.1");
  await section.locator("button:has-text('Run the join')").click();
  await page.waitForSelector("#join-table tbody tr", { timeout: 30_000 });
  const rows = (await page.locator("#join-table tbody tr").allInnerTexts()).map((r) => r.trim().split(/\s+/));
  expect(rows.length === 5, `expected 5 kernels, got ${rows.length}`);
  // matches and checksum are the last two cells; with a 10% miss rate some rows must miss.
  const agreed = new Set(rows.map((cells) => cells.slice(-2).join(" ")));
  expect(agreed.size === 1, `kernels disagree: ${[...agreed]}`);
  const matches = Number(rows[0].at(-2).replace(/,/g, ""));
  expect(matches > 800_000 && matches < 1_000_000, `matches: ${rows[0].at(-2)}`);
  const rules = await page.locator("#join-rules").innerText();
  expect(rules.includes("matched a sort-and-merge reference") && rules.includes("agreed with every other kernel"), `rules: ${rules}`);
  expect(await page.locator("#join-race rect").count() >= 5, "no race bars");
  // Bad input is a one-line message on the page, and the race cannot start.
  await section.getByRole("textbox", { name: "Miss rate", exact: true }).fill("2");
  const error = await section.locator(".field-error").innerText();
  expect(error.includes("miss rate"), `error: ${error}`);
  expect(await section.locator("button:has-text('Run the join')").isDisabled(), "ran with a bad miss rate");
  await shot(page, "join");
});

await test("the GROUP BY race computes the aggregates chosen, and every kernel reports the same totals", async () => {
  await page.click(".tab:has-text('GROUP BY race')");
  const section = page.locator("section[aria-label='GROUP BY race']");
  const state = async () => section.locator("#radix-state").innerText();
  expect((await state()).includes("8 B of state"), `count-only state: ${await state()}`);
  await section.getByRole("checkbox", { name: "sum", exact: true }).check();
  await section.getByRole("checkbox", { name: "max", exact: true }).check();
  // count, sum and max of i64: a 128-bit sum, a count and a max, 40 bytes a group, 16 a row.
  expect((await state()).includes("40 B of state a group beside its 8-byte key, 16 B a scattered row"), `state: ${await state()}`);
  await section.getByRole("textbox", { name: "Rows", exact: true }).fill("200000");
  await section.getByRole("textbox", { name: "Distinct keys", exact: true }).fill("30000");
  await section.locator("button:has-text('Run the race')").click();
  await page.waitForSelector("#groupby-totals tbody tr");
  const header = await page.locator("#groupby-totals thead").innerText();
  expect(/total count\s+total sum\s+total max/.test(header), `totals header: ${header}`);
  const rows = (await page.locator("#groupby-totals tbody tr").allInnerTexts()).map((r) => r.trim().split(/\s+/));
  expect(rows.length === 3, `expected 3 kernels, got ${rows.length}`);
  expect(new Set(rows.map((r) => r.slice(1).join(" "))).size === 1, `kernels' totals differ: ${JSON.stringify(rows)}`);
  expect(rows[0][1] === "200000" && /^-?\d+$/.test(rows[0][2]), `totals: ${rows[0]}`);
  const caption = await page.locator("#groupby-totals caption").innerText();
  expect(caption.includes("count, sum, max over generated i64 values"), `caption: ${caption}`);
  // Put the page back as the later tests expect it.
  await section.getByRole("checkbox", { name: "sum", exact: true }).uncheck();
  await section.getByRole("checkbox", { name: "max", exact: true }).uncheck();
});

await test("a GROUP BY embed carries ?agg= and ?value=, and refuses a bad one in words", async () => {
  const embed = await newPage(`${base}?embed=groupby&rows=100000&keys=10000&kernels=naive,tuned&agg=sum,count&value=f64`);
  await embed.click("button:has-text('Run the race')");
  await embed.waitForSelector(".totals-line");
  const line = await embed.locator(".totals-line").innerText();
  expect(/^totals over all groups: count 100000, sum -?[\d.e+-]+$/.test(line), `totals: ${line}`);
  await embed.goto(`${base}?embed=groupby&rows=100000&keys=10000&agg=sum,median`);
  await embed.waitForSelector(".field-error");
  const error = await embed.locator(".field-error").innerText();
  expect(error.includes("unknown aggregate 'median'"), `error: ${error}`);
  expect(await embed.locator("button:has-text('Run the race')").isDisabled(), "ran with a bad aggregate");
  await embed.goto(`${base}?embed=groupby&rows=100000&keys=10000&agg=sum&value=u8`);
  const typeError = await embed.locator(".field-error").innerText();
  expect(typeError.includes("unknown value type 'u8'"), `error: ${typeError}`);
  await embed.close();
});

await test("a join embed runs the kernels its URL names, and refuses a bad size in words", async () => {
  const embed = await newPage(`${base}?embed=join&build=${JOIN.build}&probe=${JOIN.probe}&miss=0.1&kernels=naive,partitioned`);
  expect(await embed.locator("header.top").count() === 0, "navigation shown in an embed");
  await embed.click("button:has-text('Run the join')");
  await embed.waitForFunction(() => !document.querySelector("button.danger") && document.querySelectorAll("#join-race-embed rect").length >= 2);
  const bars = await embed.locator("#join-race-embed").textContent();
  expect(bars.includes("naive") && bars.includes("partitioned") && !bars.includes("prefetch"), `bars: ${bars}`);
  await shot(embed, "embed-join");
  await embed.goto(`${base}?embed=join&build=lots`);
  const error = await embed.locator(".field-error").innerText();
  expect(error.startsWith("build keys:"), `error: ${error}`);
  await embed.close();
});

await test("the browser's join is set against a native `memwall join` report: a ratio on the same sizes only", async () => {
  await page.click(".tab:has-text('Reports')");
  const before = await page.locator("article.host").count();
  await page.setInputFiles("#report-file", joinReport);
  await page.waitForFunction((n) => document.querySelectorAll("article.host").length === n + 1, before);
  await page.click(".tab:has-text('Join race')");
  const section = page.locator("section[aria-label='Join race']");
  // The join test's race (other sizes) is still on the page: no ratio, a sentence saying why.
  const different = await section.locator("#join-vs-native .join-different").first().innerText();
  expect(different.includes("different joins"), `without a ratio: ${different}`);
  await section.getByRole("textbox", { name: "Build keys", exact: true }).fill(String(JOIN.build));
  await section.getByRole("textbox", { name: "Probe rows", exact: true }).fill(String(JOIN.probe));
  await section.getByRole("textbox", { name: "Miss rate", exact: true }).fill(String(JOIN.miss));
  await section.locator("button:has-text('Run the join')").click();
  await page.waitForSelector("#join-vs-native table.join-ratios tbody tr", { timeout: 30_000 });
  const rows = (await page.locator("#join-vs-native table.join-ratios tbody tr").allInnerTexts()).map((r) => r.trim().split(/\s+/));
  expect(rows.length === 5, `expected a ratio for each of 5 kernels, got ${rows.length}`);
  for (const cells of rows) {
    const [browserNs, nativeNs, ratio] = [Number(cells[1]), Number(cells[2]), Number(cells.at(-1).replace("×", ""))];
    expect(browserNs > 0 && nativeNs > 0 && Math.abs(ratio - browserNs / nativeNs) <= 0.02 * ratio + 0.01, `row: ${cells}`);
  }
  const verdict = await page.locator("#join-vs-native").innerText();
  expect(verdict.includes("Same join"), `the same generator should give the same answer: ${verdict}`);
  // Both sides' partitions, counted from the generated rows.
  const captions = await page.locator("#join-partitions figcaption").allInnerTexts();
  expect(captions.length === 2 && captions[0].includes("build keys") && captions[1].includes("probe rows"), `captions: ${captions}`);
  await shot(page, "join-vs-native");
});

await test("a share link carries a report in its fragment", async () => {
  await page.click(".tab:has-text('Reports')");
  const panel = page.locator("section[aria-label='Reports'] details.embed-panel");
  await panel.locator("summary").click();
  await panel.locator("button:has-text('Make a share link')").click();
  const link = await panel.locator(".share input").inputValue();
  expect(link.includes("#report="), `link: ${link}`);
  const shared = await newPage(link);
  await shared.waitForSelector(`.host-name:has-text("${hostName}")`);
  await shared.close();
});

await test("embed mode renders one compact widget without navigation", async () => {
  const embed = await newPage(`${base}?embed=ladder&min=16KiB&max=64KiB`);
  expect(await embed.locator("header.top").count() === 0, "navigation shown in an embed");
  await embed.click("button:has-text('Run in this browser')");
  await embed.waitForFunction(() => document.querySelectorAll("#ladder-chart-embed g.series circle").length === 5);
  await shot(embed, "embed-ladder");
  await embed.goto(`${base}?embed=report&report=reports/0/native-report.json`);
  await embed.waitForSelector(`.host-line:has-text("${hostName}")`);
  const chips = await embed.locator(".host-chip").count();
  expect(chips === 1, `the embed shows ${chips} reports, not just the one its URL names`);
  await embed.waitForSelector("#report-ladder-embed");
  await shot(embed, "embed-report");
  await embed.close();
});

await test("phone width and the dark theme", async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark", deviceScaleFactor: 2 });
  const small = await phone.newPage();
  await small.goto(base);
  await small.waitForSelector("main h1");
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow <= 1, `the page is ${overflow}px wider than a phone`);
  expect(await small.evaluate(() => document.documentElement.dataset.theme) === "dark", "the dark preference was not followed");
  await shot(small, "phone-dark");
  await phone.close();
});

await test("the page weighs what it should and is interactive", async () => {
  const weight = pageWeight();
  console.log(`     page weight: wasm + js ${(weight.wasmJsGzip / 1024).toFixed(0)} KiB gzipped (${weight.files.map((f) => `${f.file} ${(f.gzip / 1024).toFixed(1)} KiB`).join(", ")})`);
  expect(weight.files.some((f) => f.file.endsWith(".wasm")), "index.html loads no wasm");
  const fresh = await newPage(base);
  const tti = await fresh.evaluate(() => performance.getEntriesByName("memwall-interactive")[0]?.startTime);
  expect(typeof tti === "number", "the app never marked itself interactive");
  console.log(`     time to interactive: ${tti.toFixed(0)} ms (localhost, navigation start to the app's first render)`);
  await fresh.close();
});

await test("no script errors on any page", async () => {
  expect(pageErrors.length === 0, pageErrors.join("\n"));
});

await browser.close();
server.kill();
console.log(`e2e: screenshots in ${path.relative(ROOT, ARTIFACTS)}/`);
process.exit(summary("e2e") === 0 ? 0 : 1);
