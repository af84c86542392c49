// What the e2e test and the measurements share: where things are, `memwall serve`, Chromium.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
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

/** Starts `memwall serve` on a free port; resolves to { base, server }. */
export async function startServer(reports = []) {
  const front = EMBEDDED ? [] : ["--dist", DIST];
  const args = ["serve", ...front, "--port", "0", ...reports.flatMap((r) => ["--report", r])];
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
