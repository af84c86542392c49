// The checks that run in every engine (see browsers.mjs), keyed on what the page marks for them
// (data attributes, performance marks), never on its wording.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { MEMWALL, expect, kib } from "./lib.mjs";

/** The sizes the static-host and iframe figures are compared at, and the ladder that has them. */
export const FIGURE_SIZES = [16 << 10, 256 << 10, 64 << 20];
export const FIGURE_LADDER = "min=16KiB&max=64MiB&ppo=1&patterns=random";
const LAST = String(64 << 20);

const FIRST_LOOK_DONE = '#first-look[data-state="done"]';
const FIRST_LOOK_ENDED = '#first-look[data-state="done"], #first-look[data-state="stopped"]';

/** The levels a reading in `scope` names (the first look's, or an embed's run's). */
const LEVELS_IN = (scope) => `[...document.querySelectorAll("${scope} li[data-level]")].map((li) => ({ name: li.dataset.level,
  bytes: Number(li.dataset.bytes), cause: li.dataset.cause, capacity: li.dataset.capacity ? Number(li.dataset.capacity) : null,
  ns: Number(li.dataset.ns) }))`;
const LEVELS = LEVELS_IN("#first-look");
/** The sizes a run measured, from the table behind its chart. */
const SIZES = (table) => `[...document.querySelectorAll("#${table} tbody tr[data-bytes]")].map((tr) => Number(tr.dataset.bytes))`;
/** What a chart's legend shows: each entry's visible text (the full name is its <title>). */
const LEGEND = (chart) => `[...document.querySelectorAll("#${chart} .legend text")]
  .map((t) => [...t.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(""))`;
const TIMER = `(() => { const n = document.querySelector(".timer-note[data-timer-ns]");
  return n && { ns: Number(n.dataset.timerNs), isolated: n.dataset.isolated === "true" }; })()`;
const MEDIANS = (table) => `Object.fromEntries([...document.querySelectorAll("#${table} tbody tr[data-bytes]")]
  .map((tr) => [tr.dataset.bytes, Number(tr.dataset.median)]))`;

/** Opens `url` (a first visit: nothing cached) and waits for the first look's verdict: how long
 * from navigation, what it read, and which timer it had. */
export async function firstLook(tab, url) {
  await tab.goto(url);
  await tab.waitFor(FIRST_LOOK_ENDED, 60_000);
  const state = await tab.eval(`document.querySelector("#first-look").dataset.state`);
  const why = await tab.eval(`document.querySelector("#first-look").innerText`);
  expect(state === "done", `the first look stopped: ${why}`);
  const ms = await tab.eval(`performance.getEntriesByName("memwall-verdict")[0]?.startTime ?? null`);
  expect(typeof ms === "number", "the page never marked its verdict");
  return { ms, levels: await tab.eval(LEVELS), sizes: await tab.eval(SIZES("ladder-table")), timer: await tab.eval(TIMER),
    isolated: await tab.eval("crossOriginIsolated") };
}

/** The native reading `memwall run` makes of this host (levels from its ladder), to 128 MiB. */
export function nativeRun(out) {
  execFileSync(MEMWALL, ["run", "--no-groupby", "--no-join", "--max", "128MiB", "--chains", "1,2", "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  return nativeLevels(out);
}

/** The sizes a native report's ladder measured. */
export function nativeSizes(file) {
  return JSON.parse(readFileSync(file, "utf8")).ladder.points.map((p) => p.bytes);
}

/** The levels of a native report's ladder, as the page's first look names them. */
export function nativeLevels(file) {
  return JSON.parse(readFileSync(file, "utf8")).ladder.levels.map((l) => ({
    name: l.name, bytes: l.size_bytes, cause: l.cause, capacity: l.capacity_bytes ?? null, ns: l.ns_per_load,
  }));
}

/** FIGURE_SIZES as they are judged on this host. A size in the upper half of a cache level as
 * `memwall run` read it, or where the level runs out, measures which physical pages a new buffer
 * got (each ladder allocates its own, and set conflicts decide that point) more than how the page
 * is hosted: there the level's middle stands in for it, the largest power of two at most half of
 * the level's reach and above the level before. Returns [{ size, judged, why }]. */
export function judgedSizes(levels) {
  const caches = levels.filter((l) => l.cause === "cache").sort((a, b) => a.bytes - b.bytes);
  const reach = (l) => l.capacity ?? l.bytes;
  return FIGURE_SIZES.map((size) => {
    const i = caches.findIndex((l) => l.bytes / 2 < size && size <= reach(l));
    if (i < 0) return { size, judged: size };
    let middle = 16 << 10;
    while (middle * 2 <= caches[i].bytes / 2) middle *= 2;
    if (middle <= (i > 0 ? reach(caches[i - 1]) : 0) || middle >= size) return { size, judged: size };
    const why = `${kib(size)} is at the edge of ${caches[i].name} here (to ${kib(caches[i].bytes)}, runs out by ${kib(reach(caches[i]))}): judged at ${kib(middle)}`;
    return { size, judged: middle, why };
  });
}

/** The ladder at FIGURE_SIZES: on a page (`url` with FIGURE_LADDER), or in the embed of a blog
 * post (`frame` set: the iframe's selector). Returns { medians, timer }. */
export async function ladderFigures(tab, url, frame) {
  await tab.goto(url);
  const measure = async (t, table) => {
    await t.waitFor("button.primary", 60_000);
    await t.click(table === "ladder-table" ? "form.controls button.primary" : "main.embed button.primary");
    await t.waitFor(`#${table} tbody tr[data-bytes="${LAST}"]`, 300_000);
    return { medians: await t.eval(MEDIANS(table)), timer: await t.eval(TIMER), isolated: await t.eval("crossOriginIsolated") };
  };
  return frame ? tab.inFrame(frame, (f) => measure(f, "ladder-table-embed")) : measure(tab, "ladder-table");
}

/** The embed of a blog post: no first look unless it asks for one (`verdict=1`). */
export async function embedFirstLook(tab, blogUrl, asks) {
  await tab.goto(blogUrl);
  return tab.inFrame("#memwall", async (f) => {
    await f.waitFor("main.embed .card", 60_000);
    if (!asks) {
      expect(!(await f.exists("#first-look")), "an embed measured a first look it did not ask for");
      return null;
    }
    await f.waitFor(FIRST_LOOK_DONE, 60_000);
    return { levels: await f.eval(LEVELS), timer: await f.eval(TIMER) };
  });
}

/** The "Embed in a blog post" panel's snippet, as a writer copies it from the page at `url`. */
export async function embedSnippet(tab, url) {
  await tab.goto(url);
  await tab.waitFor("textarea#embed-ladder", 60_000);
  return tab.eval(`document.querySelector("textarea#embed-ladder").value`);
}

/** A blog post holding a pasted snippet (its one iframe): Run pressed in the embed, then what the
 * run's reading says and what the chart's legend shows. */
export async function embedRun(tab, blogUrl) {
  await tab.goto(blogUrl);
  return tab.inFrame("iframe", async (f) => {
    await f.waitFor("main.embed button.primary", 60_000);
    await f.click("main.embed button.primary");
    // While it runs, the chart holds no stale "Press Run" placeholder (checked once it started).
    await f.waitFor("main.embed .progress-row", 60_000);
    const placeholder = await f.eval(`[...document.querySelectorAll("#ladder-chart-embed text")].some((t) => t.textContent.startsWith("Press Run"))`);
    await f.waitFor("#run-reading[data-state='done']", 600_000);
    return { placeholder, headline: await f.eval(`document.querySelector("#run-reading .headline").textContent`),
      levels: await f.eval(LEVELS_IN("#run-reading")), legend: await f.eval(LEGEND("ladder-chart-embed")) };
  });
}

/** A small GROUP BY race: every kernel ran and all agree on the checksum. */
export async function groupByRace(tab, base) {
  await tab.goto(`${base}?rows=300000&keys=50000&verdict=0#groupby`);
  await tab.click("section[aria-label='GROUP BY race'] form.controls button.primary");
  await tab.waitFor("#groupby-table tbody tr[data-kernel]", 120_000);
  const rows = await tab.eval(`[...document.querySelectorAll("#groupby-table tbody tr")].map((tr) => [tr.dataset.kernel, tr.querySelector("code").textContent])`);
  expect(rows.length === 3 && new Set(rows.map((r) => r[1])).size === 1, `kernels: ${JSON.stringify(rows)}`);
  expectSizedBy(await tab.eval(`document.querySelector("#groupby-sized-by").textContent`));
  return rows;
}

/** A small join race: every kernel ran and all agree on matches and checksum; sized by the
 * page's first look, which it waits for. */
export async function joinRace(tab, base) {
  await tab.goto(`${base}?build=100000&probe=1000000&miss=0.1#join`);
  await tab.waitFor(FIRST_LOOK_DONE, 60_000);
  await tab.click("section[aria-label='Join race'] form.controls button.primary");
  await tab.waitFor("#join-table tbody tr", 120_000);
  const rows = await tab.eval(`[...document.querySelectorAll("#join-table tbody tr")].map((tr) => [...tr.cells].slice(-2).map((c) => c.textContent).join(" "))`);
  expect(rows.length === 5 && new Set(rows).size === 1, `kernels: ${JSON.stringify(rows)}`);
  const sized = await tab.eval(`document.querySelector("#join-sized-by").textContent`);
  expectSizedBy(sized);
  expect(sized.includes("as the ladder read") && sized.includes("this page's first look at"), `sized by: ${sized}`);
  return rows;
}

/** A race page names the caches it was sized by and where they came from (with `verdict=0` no
 * ladder ran on the page, so it must say what stood in). */
function expectSizedBy(text) {
  const named = /^Sized by L2 [\d.]+ [KMG]iB and (L\d|last-level cache) [\d.]+ [KMG]iB/.test(text);
  const whence = /this page's first look at|the Latency ladder tab's run at|No ladder has been measured on this page yet/.test(text);
  expect(named && whence, `sized by: ${text}`);
}

const REPORT_LEVELS = `[...document.querySelectorAll("article.host p.levels span[data-level]")].map((s) => ({ name: s.dataset.level,
  bytes: Number(s.dataset.bytes), cause: s.dataset.cause, capacity: s.dataset.capacity ? Number(s.dataset.capacity) : null,
  ns: Number(s.dataset.ns) }))`;

/** The levels the page (the core as wasm) reads from a kept report's curve when it opens it. */
export async function pageReadingOf(tab, base, file) {
  await tab.goto(`${base}?verdict=0#reports`);
  await tab.setFile("#report-file", file);
  await tab.waitFor("article.host", 60_000);
  return tab.eval(REPORT_LEVELS);
}

/** The levels the native reader (`memwall explain --json -`) reads from the same kept report. */
export function nativeReadingOf(file) {
  const json = execFileSync(MEMWALL, ["explain", file, "--json", "-"], { stdio: ["ignore", "pipe", "ignore"] }).toString();
  return (JSON.parse(json).ladder?.levels ?? []).map((l) => ({
    name: l.name, bytes: l.size_bytes, cause: l.cause, capacity: l.capacity_bytes ?? null, ns: l.ns_per_load,
  }));
}

/** Whether two readings name the same levels: names, sizes, causes and reaches exactly, the ns
 * within 1e-12 relative (wasm's libm may differ from the host's in a last bit). "" when they do. */
export function readingsDiffer(page, native) {
  if (page.length !== native.length) return `${page.length} levels in the page, ${native.length} native`;
  for (let i = 0; i < page.length; i++) {
    const [a, b] = [page[i], native[i]];
    const same = a.name === b.name && a.bytes === b.bytes && a.cause === b.cause && a.capacity === b.capacity
      && Math.abs(a.ns - b.ns) <= 1e-12 * Math.max(Math.abs(a.ns), Math.abs(b.ns));
    if (!same) return `level ${i}: page ${JSON.stringify(a)}, native ${JSON.stringify(b)}`;
  }
  return "";
}

/** A native report opened from a file shows its host. */
export async function openReport(tab, base, file, hostName) {
  await tab.goto(`${base}?verdict=0#reports`);
  await tab.setFile("#report-file", file);
  await tab.waitFor(".host-name", 60_000);
  const names = await tab.eval(`[...document.querySelectorAll(".host-name")].map((h) => h.textContent)`);
  expect(names.includes(hostName), `host names: ${names}`);
}

/** This browser's ladder at one size on the isolated page: median ns (the run keyed on the
 * table row the page marks with the size). */
export async function browserLadderAt(tab, base, bytes) {
  await tab.goto(`${base}?min=${bytes}&max=${bytes}&patterns=random&verdict=0`);
  await tab.click("form.controls button.primary");
  await tab.waitFor(`#ladder-table tbody tr[data-bytes="${bytes}"]`, 300_000);
  return tab.eval(`Number(document.querySelector('#ladder-table tbody tr[data-bytes="${bytes}"]').dataset.median)`);
}

/** This browser's GROUP BY on the small preset (the page's default data), one kernel: ns/row. */
export async function browserGroupBy(tab, base, kernels) {
  // Sized by the page's own ladder, as native sizes by its: the first look finishes first.
  await tab.goto(`${base}?kernels=${kernels}&runs=3#groupby`);
  await tab.waitFor(FIRST_LOOK_DONE, 60_000);
  await tab.click("section[aria-label='GROUP BY race'] form.controls button.primary");
  const names = kernels.split(",");
  await tab.waitFor(`#groupby-table tbody tr[data-kernel="${names.at(-1)}"]`, 600_000);
  const rows = await tab.eval(`[...document.querySelectorAll("#groupby-table tbody tr")].map((tr) => [tr.dataset.kernel, Number(tr.dataset.nsPerRow), Number(tr.dataset.bestNsPerRow)])`);
  const nsPerRow = Object.fromEntries(rows.map(([k, median]) => [k, median]));
  const best = Object.fromEntries(rows.map(([k, , min]) => [k, min]));
  return { nsPerRow, best, sizedBy: await tab.eval(`document.querySelector("#groupby-sized-by").textContent`) };
}

/** Each figure set against the isolated page's: the worst relative difference and a table row. */
export function againstIsolated(isolated, others, sizes = FIGURE_SIZES) {
  let worst = 0;
  const rows = sizes.map((bytes) => {
    const base = isolated[bytes];
    const cells = Object.entries(others).map(([name, medians]) => {
      const diff = medians[bytes] / base - 1;
      worst = Math.max(worst, Math.abs(diff));
      return `${name} ${medians[bytes].toFixed(2)} ns (${diff >= 0 ? "+" : ""}${(diff * 100).toFixed(1)}%)`;
    });
    return `${String(bytes >> 10).padStart(6)} KiB: isolated ${base.toFixed(2)} ns · ${cells.join(" · ")}`;
  });
  return { worst, rows };
}

/** The lowest median per size over several runs: noise only ever adds time. */
export function fastest(runs) {
  const out = {};
  for (const bytes of Object.keys(runs[0].medians)) out[bytes] = Math.min(...runs.map((r) => r.medians[bytes]));
  return out;
}
