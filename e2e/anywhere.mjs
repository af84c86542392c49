// The page anywhere, in Chromium, Firefox or WebKit: the first look's verdict from a cold start (and its
// agreement with `memwall run` on this machine), the page on a plain static host and its embed in
// another origin's blog post, their figures against the isolated page's; in Chromium also what
// each view weighs and the browser-vs-native ratios. Prints a summary, writes
// e2e/artifacts/anywhere-<engine>.json.
//
//   node e2e/anywhere.mjs [chromium|firefox|webkit] [--ci]   (after scripts/e2e.sh has built dist/ and memwall)
//
// --ci (how scripts/e2e.sh runs it): what depends on the machine's load (the verdict's time,
// figures within 10% of the isolated page) is measured and printed, not asserted: on a shared CI
// machine those are figures to read, not a pass or fail. The first look agreeing with `memwall
// run` on this machine depends on two timed runs and is only printed; the readers' agreement is
// asserted on kept curves instead (every report in examples/reports/, read by the page's wasm and
// by `memwall explain`), where nothing is timed.
// Everything else (the page works on a static host and in an iframe, says which timer it got,
// the first view's weight) is asserted either way.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EngineHung, PageNeverCame, chromium, firefox, webkit } from "./browsers.mjs";
import {
  FIGURE_LADDER, againstIsolated, browserGroupBy, browserLadderAt, embedFirstLook, embedRun, embedSnippet, fastest,
  firstLook, groupByRace, joinRace, judgedSizes, ladderFigures, nativeLevels, nativeReadingOf, nativeRun, nativeSizes,
  openReport, pageReadingOf, readingsDiffer,
} from "./checks.mjs";
import {
  ARTIFACTS, DIST, MEMWALL, ROOT, blogPost, checkInputs, describeL2, describeLevels, expect, gzipOf, harness, l2AndAfter,
  ladderStep, levelsWithinStep, nativeGroupBy, nativeLadderMedian, sameL2Story, startServer, startStatic,
} from "./lib.mjs";

const ENGINES = { chromium, firefox, webkit };
const ENGINE = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "chromium";
if (!ENGINES[ENGINE]) {
  console.error(`anywhere: no engine ${ENGINE}: chromium, firefox or webkit`);
  process.exit(2);
}
const CI = process.argv.includes("--ci");
/** A goal that depends on the machine: asserted when run by hand, printed under --ci. */
function goal(met, message) {
  if (CI) {
    if (!met) console.log(`     goal not met on this run (printed, not asserted under --ci): ${message}`);
  } else {
    expect(met, message);
  }
}
const FIRST_VIEW_MAX = 350 * 1024;
/** The kept reports both readers read in the deterministic agreement check. */
const EXAMPLES = path.join(ROOT, "examples", "reports");
const VERDICT_MAX_MS = 15_000;
/** The ladder the embed snippet is copied with: short (13 sizes, two curves), to DRAM on any host. */
const SNIPPET_LADDER = "min=16KiB&max=64MiB&ppo=1&patterns=random,page-local";
checkInputs();
mkdirSync(ARTIFACTS, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), "memwall-anywhere-"));
const summary = { engine: ENGINE };
const { test: harnessTest, summary: finish } = harness();
/** A check in this engine. Where the engine stops answering (`EngineHung`), or a page it loaded
 * never came up at all (`PageNeverCame`: the app not mounted after minutes, where the same page
 * comes up in seconds), the check runs once more in a fresh session, and says so with what the
 * page held: a stuck browser is the engine's fault, not the page's, and must not fail the run
 * alone. Any other failure, or a second one of these, fails the check. */
const test = (name, body) =>
  harnessTest(name, async () => {
    try {
      await body();
    } catch (error) {
      if (!(error instanceof EngineHung || error instanceof PageNeverCame)) throw error;
      const what = error instanceof EngineHung ? "hung" : "never showed a page it loaded";
      console.log(`     ${browser.name} ${what} (${error.message}): the check once more, in a fresh session`);
      await browser.close();
      browser = await ENGINES[ENGINE]();
      await body();
    }
  });

// The isolated page (`memwall serve` sends COOP/COEP), the same dist/ from a plain static server,
// and a blog post on another origin (another host name and port) embedding the static one.
const iso = await startServer();
const plain = await startStatic(DIST);
const blogDir = mkdtempSync(path.join(tmpdir(), "memwall-blog-"));
writeFileSync(path.join(blogDir, "post.html"), blogPost(`${plain.base}?embed=ladder&${FIGURE_LADDER}`));
writeFileSync(path.join(blogDir, "verdict.html"), blogPost(`${plain.base}?embed=ladder&verdict=1`));
const blog = await startStatic(blogDir, "localhost");
const servers = [iso.server, plain.server, blog.server];
process.on("exit", () => servers.forEach((s) => s.kill()));
console.log(`anywhere (${ENGINE}): isolated ${iso.base}, static ${plain.base}, blog ${blog.base}`);

// The native reading to set the first look against: once per machine, shared by both engines.
// Keyed by the boot: a kept checkout (e2e/artifacts survives) can wake up on another VM, whose
// caches the last machine's reading would misstate.
const bootId = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "unknown-boot";
  }
})();
const nativeFile = path.join(ARTIFACTS, `native-run-${bootId}.json`);
const nativeLevelsHere = existsSync(nativeFile) && process.env.MEMWALL_FRESH_NATIVE !== "1" ? nativeLevels(nativeFile) : nativeRun(nativeFile);
const native = l2AndAfter(nativeLevelsHere);
summary.native = describeL2(native);

const nativeStep = ladderStep(nativeSizes(nativeFile));
summary.native_levels = describeLevels(nativeLevelsHere);
let browser = await ENGINES[ENGINE]();
console.log(`     ${browser.version}`);
summary.browser = browser.version;

if (ENGINE === "chromium") {
  await test("the first view (ladder and verdict) weighs at most 350 KiB gzipped; the other views load when first opened", async () => {
    const tab = await browser.open();
    const seen = new Map();
    tab.page.on("response", (r) => {
      const file = r.status() < 400 ? gzipOf(r.url()) : null;
      if (file && !seen.has(file.file)) seen.set(file.file, file);
    });
    const view = async (name, open) => {
      const before = new Set(seen.keys());
      await open();
      const files = [...seen.values()].filter((f) => !before.has(f.file));
      const gzip = files.reduce((a, f) => a + f.gzip, 0);
      console.log(`     ${name}: ${(gzip / 1024).toFixed(1)} KiB gzipped (${files.map((f) => `${f.file} ${(f.gzip / 1024).toFixed(1)}`).join(", ") || "nothing new"})`);
      return gzip;
    };
    const weights = {};
    weights.first = await view("first view (ladder, first look)", async () => {
      await tab.goto(plain.base);
      await tab.waitFor('#first-look[data-state="done"]', 60_000);
    });
    for (const [name, slug, ready] of [["GROUP BY race", "GROUP BY race", "section[aria-label='GROUP BY race'] h1"],
      ["join race", "Join race", "section[aria-label='Join race'] h1"], ["reports", "Reports", "#report-file"]]) {
      weights[name] = await view(`${name} (first opened after the first view)`, async () => {
        await tab.page.click(`.tab:has-text('${slug}')`);
        await tab.waitFor(ready, 60_000);
      });
    }
    summary.weights_gzip_bytes = weights;
    await tab.close();
    expect(weights.first <= FIRST_VIEW_MAX, `the first view is ${(weights.first / 1024).toFixed(1)} KiB gzipped`);
  });
}

for (const [where, base] of [["isolated page (memwall serve)", iso.base], ["static host, not isolated", plain.base]]) {
  await test(`navigation to verdict on a cold cache, ${where}: the first look reads the levels`, async () => {
    const tab = await browser.open();
    const look = await firstLook(tab, base);
    await tab.close();
    const reading = l2AndAfter(look.levels);
    // Each level's end against native's, within the coarser ladder's step (the first look's sizes
    // are read from the table behind its chart, native's from its report).
    const step = Math.max(ladderStep(look.sizes), nativeStep);
    const agreement = levelsWithinStep(look.levels, nativeLevelsHere, step);
    console.log(`     navigation to verdict: ${(look.ms / 1000).toFixed(1)} s; timer ${look.timer.ns / 1000} µs, ${look.isolated ? "isolated" : "not isolated"}; ${describeL2(reading)}`);
    console.log(`     ${ENGINE.padEnd(8)} levels: ${describeLevels(look.levels)}`);
    console.log(`     native   levels: ${describeLevels(nativeLevelsHere)}  (memwall run)`);
    console.log(`     each level's end within one step (x${step.toFixed(2)}) of native's: ${agreement.agree ? "yes" : "no"}: ${agreement.rows.join("; ")}`);
    summary[`verdict_${base === iso.base ? "isolated" : "static"}`] = { ms: look.ms, timer_ns: look.timer.ns, isolated: look.isolated,
      reading: describeL2(reading), levels: describeLevels(look.levels), within_one_step: agreement.agree };
    expect(look.isolated === (base === iso.base), `crossOriginIsolated is ${look.isolated}`);
    expect(look.timer.isolated === look.isolated, "the timer note says otherwise");
    goal(look.ms <= VERDICT_MAX_MS, `the verdict came after ${look.ms.toFixed(0)} ms`);
    // Live agreement depends on this run's timings: printed, never asserted (the deterministic
    // agreement, the same kept curves read by both readers, is asserted below).
    console.log(`     first look and \`memwall run\` ${sameL2Story(reading, native) ? "agree" : "disagree"} about L2 and what follows it`);
  });
}

await test("the same kept curves read by the page (wasm) and by `memwall explain` (native) give the same levels", async () => {
  const kept = readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")).sort();
  expect(kept.length > 0, `no kept reports in ${EXAMPLES}`);
  for (const name of kept) {
    const file = path.join(EXAMPLES, name);
    // A fresh tab per report: the same URL again is only a fragment change, which keeps the
    // reports opened before.
    const tab = await browser.open();
    const page = await pageReadingOf(tab, plain.base, file);
    await tab.close();
    const native = nativeReadingOf(file);
    const differ = readingsDiffer(page, native);
    expect(differ === "", `${name}: ${differ}`);
    console.log(`     ${name}: ${page.length} levels, the same in both readers`);
  }
});

await test("an embed in another origin's page shows no first look unless it asks for one, and then gives it; the panel's snippet pasted into a blog post runs and says what it found", async () => {
  const tab = await browser.open();
  await embedFirstLook(tab, `${blog.base}post.html`, false);
  const look = await embedFirstLook(tab, `${blog.base}verdict.html`, true);
  expect(look.levels.some((l) => l.cause === "dram" || l.cause === "cache"), `levels: ${JSON.stringify(look.levels)}`);
  console.log(`     embedded first look: ${describeL2(l2AndAfter(look.levels))}; timer ${look.timer.ns / 1000} µs`);
  // The snippet exactly as the panel gives it, on the page set to a short ladder (one size per
  // doubling to 64 MiB, random and page-local), pasted into a post on the blog's origin.
  const snippet = await embedSnippet(tab, `${plain.base}?${SNIPPET_LADDER}&verdict=0`);
  writeFileSync(path.join(blogDir, "snippet.html"), blogPost(null, snippet));
  const run = await embedRun(tab, `${blog.base}snippet.html`);
  await tab.screenshot(path.join(ARTIFACTS, `embed-snippet-${ENGINE}.png`));
  await tab.close();
  console.log(`     snippet: ${snippet}`);
  console.log(`     pasted embed's reading: ${run.headline}`);
  console.log(`     its levels: ${describeLevels(run.levels)}; legend: ${run.legend.map((l) => JSON.stringify(l)).join(", ")}`);
  expect(!run.placeholder, "the chart still said \"Press Run\" while the run measured");
  expect(run.headline.trim().length > 0 && run.levels.length > 0, `no verdict sentence or levels: ${JSON.stringify(run)}`);
  const shown = new Set(run.legend.map((l) => l.trim()));
  expect(shown.size >= 2 && run.legend.length === shown.size, `the legend's entries cannot be told apart: ${JSON.stringify(run.legend)}`);
  for (const pattern of ["random", "page-local"]) {
    expect(run.legend.some((l) => l.startsWith(`${pattern}, `) && l.includes("pages")), `no legend entry names ${pattern} and its pages: ${JSON.stringify(run.legend)}`);
  }
});

// Firefox gives a page that is not isolated a 1 ms timer, so its static and iframe ladders stretch
// every sample to seconds: the six ladders ran over three minutes here (a build beside them), too long
// for every CI run. Under --ci they run in Chromium only; by hand, in every engine.
const figuresHere = ENGINE === "chromium" || !CI;
if (!figuresHere) console.log(`     skipped under --ci in ${browser.name}: the static and iframe figures against the isolated page's (run \`node e2e/anywhere.mjs ${ENGINE}\` by hand)`);
if (figuresHere) await test("on a static host and in another origin's iframe the ladder runs and names its timer; its figures at 16 KiB, 256 KiB and 64 MiB set against the isolated page's (goal: within 10%)", async () => {
  const tab = await browser.open();
  const runs = { isolated: [], static: [], iframe: [] };
  // Two rounds, interleaved, so that a change in the machine's load hits all three alike; each
  // size's fastest median is kept (noise only ever adds time).
  for (let round = 0; round < 2; round++) {
    runs.isolated.push(await ladderFigures(tab, `${iso.base}?${FIGURE_LADDER}&verdict=0`));
    runs.static.push(await ladderFigures(tab, `${plain.base}?${FIGURE_LADDER}&verdict=0`));
    runs.iframe.push(await ladderFigures(tab, `${blog.base}post.html`, "#memwall"));
  }
  await tab.close();
  for (const [name, list] of Object.entries(runs)) {
    const { timer, isolated } = list[0];
    console.log(`     ${name}: timer ${timer.ns / 1000} µs, ${isolated ? "cross-origin isolated" : "not isolated"}`);
    expect(timer && timer.isolated === isolated && (name === "isolated") === isolated, `${name}: timer ${JSON.stringify(timer)}, isolated ${isolated}`);
  }
  const isolated = fastest(runs.isolated), others = { static: fastest(runs.static), iframe: fastest(runs.iframe) };
  const named = againstIsolated(isolated, others);
  named.rows.forEach((r) => console.log(`     ${r}`));
  // Judged where this host's levels leave each size's reading to the host rather than to a level
  // edge (checks.mjs, judgedSizes); the sizes named above are printed either way.
  const sizes = judgedSizes(nativeLevelsHere);
  sizes.filter((s) => s.why).forEach((s) => console.log(`     ${s.why}`));
  const judged = sizes.some((s) => s.why) ? againstIsolated(isolated, others, sizes.map((s) => s.judged)) : named;
  if (judged !== named) judged.rows.forEach((r) => console.log(`     judged: ${r}`));
  summary.figures_worst_difference = { named_sizes: named.worst, judged_sizes: judged.worst, judged_at_bytes: sizes.map((s) => s.judged) };
  goal(judged.worst <= 0.1, `a figure differs by ${(judged.worst * 100).toFixed(1)}%`);
});

// In Chromium, e2e/run.mjs runs the races and opens reports; here the other engines do.
if (ENGINE !== "chromium") {
  const nativeReport = path.join(work, "native-report.json");
  execFileSync(MEMWALL, ["ladder", "--min", "16KiB", "--max", "256KiB", "--json", nativeReport], { stdio: ["ignore", "ignore", "inherit"] });
  const hostName = JSON.parse(readFileSync(nativeReport, "utf8")).host.name;
  await test("a small GROUP BY race: naive, radix and tuned agree", async () => {
    const tab = await browser.open();
    await groupByRace(tab, iso.base);
    await tab.close();
  });
  await test("a small join race: every kernel agrees on matches and checksum", async () => {
    const tab = await browser.open();
    await joinRace(tab, iso.base);
    await tab.close();
  });
  await test("a native report opens from a file and shows its host", async () => {
    const tab = await browser.open();
    await openReport(tab, plain.base, nativeReport, hostName);
    await tab.close();
  });
}

/** Issue 49: the browser's GROUP BY within this factor of native's, tuned and adaptive. */
const GROUPBY_RATIO_GOAL = 1.5;

if (ENGINE === "chromium") {
  await test("browser against native, one run each: the ladder at 256 MiB and tuned and adaptive GROUP BY on the small preset", async () => {
    const tab = await browser.open();
    const ladderBrowser = await browserLadderAt(tab, iso.base, 256 << 20);
    const ladderNative = nativeLadderMedian("256MiB");
    // One race of both kernels each side, each sized by its own ladder (the page's first look;
    // native's probe, which adaptive in the race asks for), warm scratch both. The goal is judged
    // under the same memory policy: native's scratch on small pages, as a browser's wasm memory
    // is (no huge pages there); native on transparent huge pages, its default, is printed beside.
    const groupbyBrowser = await browserGroupBy(tab, iso.base, "tuned,adaptive");
    const groupbyNative = nativeGroupBy("tuned,adaptive", 3, "off");
    const groupbyNativeThp = nativeGroupBy("tuned,adaptive", 3, "thp");
    await tab.close();
    summary.ratios = { ladder_256mib: { browser_ns: ladderBrowser, native_ns: ladderNative, ratio: ladderBrowser / ladderNative } };
    console.log(`     ladder 256 MiB: browser ${ladderBrowser.toFixed(1)} ns, native ${ladderNative.toFixed(1)} ns (small pages): ${(ladderBrowser / ladderNative).toFixed(2)}x`);
    for (const kernel of ["tuned", "adaptive"]) {
      const [b, n] = [groupbyBrowser.nsPerRow[kernel], groupbyNative.byKernel[kernel]];
      // The best of each side's runs too: on a shared VM, load only ever adds time.
      const [bBest, nBest] = [groupbyBrowser.best[kernel], groupbyNative.best[kernel]];
      const thp = groupbyNativeThp.byKernel[kernel];
      summary.ratios[`groupby_${kernel}_small`] = { browser_ns_per_row: b, native_small_pages_ns_per_row: n, ratio: b / n, best_ratio: bBest / nBest,
        native_thp_ns_per_row: thp, ratio_to_native_thp: b / thp };
      // Issue 49's goal, printed and not asserted: the ratio moves with the VM's load.
      const goal = b / n <= GROUPBY_RATIO_GOAL ? "goal met" : "goal not met";
      console.log(`     GROUP BY ${kernel}, small preset, one thread, warm scratch on small pages both: browser ${b.toFixed(2)} ns/row, native ${n.toFixed(2)} ns/row: ${(b / n).toFixed(2)}x (medians of 3 runs; best runs ${bBest.toFixed(2)} and ${nBest.toFixed(2)}: ${(bBest / nBest).toFixed(2)}x; ${goal}: at most ${GROUPBY_RATIO_GOAL}x); native on transparent huge pages ${thp.toFixed(2)} ns/row: ${(b / thp).toFixed(2)}x`);
      expect(b > 0 && n > 0 && thp > 0, `a ${kernel} figure is missing`);
    }
    console.log(`     browser: ${groupbyBrowser.sizedBy} native: sized by ${groupbyNative.caches ?? "(not named)"}`);
    expect(ladderBrowser > 0 && ladderNative > 0, "a figure is missing");
  });
}

await test("no script errors", async () => {
  expect(browser.errors.length === 0, browser.errors.join("\n"));
});

await browser.close();
writeFileSync(path.join(ARTIFACTS, `anywhere-${ENGINE}.json`), JSON.stringify(summary, null, 2));
console.log(`anywhere (${ENGINE}) summary: ${JSON.stringify(summary)}`);
process.exit(finish(`anywhere (${ENGINE})`) === 0 ? 0 : 1);
