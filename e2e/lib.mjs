// What the e2e suites and the measurements share: where things are, `memwall serve`, a plain
// static server, Chromium, the native figures set against the browser's, a small test harness.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "..");
export const MEMWALL = process.env.MEMWALL_BIN ?? path.resolve(ROOT, process.env.CARGO_TARGET_DIR ?? "target", "release", "memwall");
export const DIST = process.env.MEMWALL_DIST ?? path.join(ROOT, "dist");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS = path.join(HERE, "artifacts");
// MEMWALL_EMBEDDED=1: serve the front end built into MEMWALL_BIN (a release build), from an
// empty folder so that no dist/ can be found; DIST then only names the build that was embedded.
export const EMBEDDED = process.env.MEMWALL_EMBEDDED === "1";

export function checkInputs() {
  for (const [what, file] of [["memwall binary", MEMWALL], ["built front end", path.join(DIST, "index.html")], ["Chromium", CHROMIUM]]) {
    if (!existsSync(file)) {
      console.error(`e2e: no ${what} at ${file} (scripts/e2e.sh builds the first two; scripts/setup.sh --test installs Chromium)`);
      process.exit(2);
    }
  }
}

/** Starts `memwall serve` on a free port with these `--report` files and `--reports` folders;
 * resolves to { base, server }. */
export async function startServer(reports = [], folders = []) {
  const front = EMBEDDED ? [] : ["--dist", DIST];
  const args = ["serve", ...front, "--port", "0", ...reports.flatMap((r) => ["--report", r]), ...folders.flatMap((d) => ["--reports", d])];
  const cwd = EMBEDDED ? mkdtempSync(path.join(tmpdir(), "memwall-e2e-empty-")) : undefined;
  const server = spawn(MEMWALL, args, { stdio: ["ignore", "pipe", "inherit"], cwd });
  const base = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`memwall serve printed no URL: ${seen}`)), 15_000);
    server.stdout.on("data", (chunk) => {
      seen += chunk;
      const match = seen.match(/at (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`memwall serve exited with ${code}: ${seen}`)));
  });
  return { base, server };
}

/** Headless Chromium with the flags this (root, container) machine needs. */
export function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
}

/** The files index.html loads (script, wasm, CSS, snippets), with their raw and gzipped sizes. */
export function pageWeight() {
  const html = readFileSync(path.join(DIST, "index.html"), "utf8");
  const urls = new Set([...html.matchAll(/(?:href|src|from|module_or_path:)\s*=?\s*['"]\.?\/?([^'"]+\.(?:js|wasm|css))['"]/g)].map((m) => m[1]));
  const files = [...urls].map((file) => {
    const bytes = readFileSync(path.join(DIST, file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (f) => files.filter(f).reduce((a, x) => a + x.gzip, 0);
  return { files, wasmJsGzip: sum((x) => /\.(wasm|js)$/.test(x.file)), totalGzip: sum(() => true) };
}

/** A plain static server over `dir` (Python's http.server: no COOP/COEP, no compression), as a
 * static host serves dist/; resolves to { base, server }. Debian's python3, not a pyenv shim,
 * so that the process killed is the server itself. */
export async function startStatic(dir, host = "127.0.0.1") {
  const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const server = spawn(python, ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0"], { stdio: ["ignore", "pipe", "ignore"] });
  const port = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`http.server printed no port: ${seen}`)), 15_000);
    server.stdout.on("data", (chunk) => {
      seen += chunk;
      const match = seen.match(/port (\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`http.server exited with ${code}: ${seen}`)));
  });
  return { base: `http://${host}:${port}/`, server };
}

/** What a blog post embedding memwall looks like: its own page, another origin, one iframe:
 * `src`'s, or the `snippet` a writer pasted as it is. */
export function blogPost(src, snippet = null) {
  const iframe = snippet ?? `<iframe id="memwall" src="${src.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}" title="memwall" width="100%" height="900" style="border:0;max-width:820px"></iframe>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post about memory</title></head>
<body><h1>How far away is memory?</h1><p>Measure it yourself:</p>
${iframe}
</body></html>`;
}

/** gzip -9 size of a file of dist/ named by a URL's path, or null when it is not one. */
export function gzipOf(url) {
  const file = path.join(DIST, decodeURIComponent(new URL(url).pathname).replace(/^\/+/, "") || "index.html");
  if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) return null;
  const bytes = readFileSync(file);
  return { file: path.relative(DIST, file), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** A small test harness shared by the suites: `test(name, body)` runs and reports one check. */
export function harness() {
  const results = [];
  return {
    results,
    async test(name, body) {
      const started = Date.now();
      try {
        await body();
        results.push({ name, ok: true });
        console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (error) {
        results.push({ name, ok: false });
        console.log(`FAIL ${name}: ${String(error?.message ?? error).split("\n").slice(0, 8).join("\n     ")}`);
      }
    },
    summary(suite) {
      const failed = results.filter((r) => !r.ok).length;
      console.log(`${suite}: ${results.length - failed} passed, ${failed} failed`);
      return failed;
    },
  };
}

export function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** The native ladder at one size, as `memwall ladder` measures it on small pages: median ns. */
export function nativeLadderMedian(size) {
  const out = execFileSync(MEMWALL, ["ladder", "--min", size, "--max", size, "--huge-pages", "off", "--json", "-"], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 << 20 });
  return JSON.parse(out).ladder.points[0].ns_per_load.median;
}

/** The native GROUP BY on the small preset, one thread, as the page races it: ns per row.
 * `pages` is the scratch's pages (thp: native's default; off: small pages, the memory a browser's
 * wasm gets). */
export function nativeGroupBy(kernel, runs = 3, pages = "thp") {
  const args = ["groupby", "--preset", "small", "--kernel", kernel, "--threads", "1", "--runs", String(runs), "--scratch-pages", pages, "--json", "-"];
  const out = execFileSync(MEMWALL, args, { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 << 20 });
  const report = JSON.parse(out).groupby;
  // The caches native sized by, as adaptive's choice names them (when it ran).
  const caches = report.runs.map((r) => r.choice?.reason.match(/\(caches: ([^)]*)\)/)?.[1]).find(Boolean);
  return { rows: report.dataset.rows, nsPerRow: report.runs[0].ns_per_row, byKernel: Object.fromEntries(report.runs.map((r) => [r.kernel, r.ns_per_row])),
    best: Object.fromEntries(report.runs.map((r) => [r.kernel, (r.seconds.min * 1e9) / report.dataset.rows])), caches };
}

/** The levels a report's ladder names that tell where L2 ends and what comes after it. */
export function l2AndAfter(levels) {
  const caches = levels.filter((l) => l.cause !== "tlb").sort((a, b) => a.bytes - b.bytes);
  const l2 = caches.find((l) => l.name === "L2");
  const after = l2 && caches.find((l) => l.bytes > l2.bytes && !l.name.startsWith("L2"));
  return { l2, after };
}

/** Whether two readings agree on where L2 ends (its last size or where it runs out, within one
 * doubling) and on whether what follows it is a cache or DRAM. */
export function sameL2Story(a, b) {
  if (!a.l2 || !b.l2 || !a.after || !b.after) return false;
  const near = (x, y) => x > 0 && y > 0 && Math.max(x, y) / Math.min(x, y) <= 2;
  const l2Agrees = near(a.l2.bytes, b.l2.bytes) || near(a.l2.capacity ?? 0, b.l2.capacity ?? 0);
  return l2Agrees && a.after.cause === b.after.cause;
}

export const describeL2 = ({ l2, after }) =>
  l2 ? `L2 to ${kib(l2.bytes)}${l2.capacity ? ` (runs out by ${kib(l2.capacity)})` : ""}, then ${after ? `${after.name} (${after.cause}) from ${kib(after.bytes)}` : "nothing"}` : "no L2";

/** A reading's levels in one line, as the page's first look names them (TLB levels left out). */
export const describeLevels = (levels) =>
  levels.filter((l) => l.cause !== "tlb").sort((a, b) => a.bytes - b.bytes)
    .map((l) => `${l.name} ${l.cause === "dram" ? "from" : "to"} ${kib(l.bytes)} ${l.ns.toFixed(1)} ns`).join(" · ") || "no levels";

/** Each level of `native` set against the level of the same name in `page`: whether it ends
 * within one ladder step (the coarser of the two ladders' size ratios) of where native's ends.
 * Returns { agree, rows }: every level agrees, and one line per level. */
export function levelsWithinStep(page, native, step) {
  const rows = [];
  let agree = true;
  for (const n of native.filter((l) => l.cause !== "tlb")) {
    const p = page.find((l) => l.name === n.name && l.cause === n.cause);
    const within = p && Math.max(p.bytes, n.bytes) / Math.min(p.bytes, n.bytes) <= step * (1 + 1e-9);
    agree &&= Boolean(within);
    rows.push(`${n.name}: native ${kib(n.bytes)}, browser ${p ? kib(p.bytes) : "none"} (${within ? "within" : "not within"} one step)`);
  }
  return { agree, rows };
}

/** The size ratio between a ladder's consecutive sizes (the largest, where they vary). */
export function ladderStep(sizes) {
  const sorted = [...new Set(sizes)].sort((a, b) => a - b);
  let step = 1;
  for (let i = 1; i < sorted.length; i++) step = Math.max(step, sorted[i] / sorted[i - 1]);
  return step;
}

export const kib = (bytes) => (bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`);
