// What `memwall serve` costs the page over the wire: the front end's wasm compressed (bytes on
// the wire against its gzip -9 size), and a second load of the page answered with 304s.
//
// Builds nothing (scripts/e2e.sh runs it after run.mjs, on the same dist/ and memwall).
import { request } from "node:http";
import { checkInputs, launch, pageWeight, startServer } from "./lib.mjs";

checkInputs();
const { base, server } = await startServer([]);
const failures = [];
const expect = (condition, message) => condition || failures.push(message);

/** GET `url` with `headers`, counting the body's bytes as they come (nothing decoded). */
function wire(url, headers) {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk) => (bytes += chunk.length));
      response.on("end", () => resolve({ status: response.statusCode, headers: response.headers, bytes }));
    }).on("error", reject).end();
  });
}

const weight = pageWeight();
const wasm = weight.files.find((f) => f.file.endsWith(".wasm"));
const sent = await wire(new URL(wasm.file, base), { "accept-encoding": "gzip, deflate, br, zstd" });
console.log(`serve: ${wasm.file}: ${wasm.bytes} bytes, ${sent.bytes} on the wire as ${sent.headers["content-encoding"] ?? "identity"} (gzip -9: ${wasm.gzip})`);
expect(sent.status === 200 && sent.bytes <= wasm.gzip, `the wasm went out as ${sent.bytes} bytes, more than its gzip size ${wasm.gzip}`);
const gzipOnly = await wire(new URL(wasm.file, base), { "accept-encoding": "gzip" });
console.log(`serve: the same with Accept-Encoding: gzip only: ${gzipOnly.bytes} bytes as ${gzipOnly.headers["content-encoding"] ?? "identity"}`);
expect(gzipOnly.bytes <= wasm.gzip, `gzip-only clients got ${gzipOnly.bytes} bytes`);

// A page load, then the same page again in the same browser: the files are asked for again
// (no-cache) with their ETags, and come back as 304s without a body. Chromium reports such an
// answer with the cached response's 200, so the request's headers and sizes are what tell.
const browser = await launch();
const context = await browser.newContext();
async function load() {
  const files = new Map();
  const page = await context.newPage();
  page.on("requestfinished", async (request) => {
    const path = new URL(request.url()).pathname;
    if (!request.url().startsWith(base) || path.startsWith("/reports/")) return;
    const etag = (await request.allHeaders())["if-none-match"];
    files.set(path, { etag, body: (await request.sizes()).responseBodySize });
  });
  await page.goto(base);
  await page.waitForSelector("main section:not([hidden]) h1");
  await page.waitForLoadState("networkidle");
  await page.close();
  return files;
}
const first = await load();
const second = await load();
const revalidated = [...second.entries()].filter(([, f]) => f.etag && f.body === 0);
const sum = (files) => [...files.values()].reduce((a, f) => a + f.body, 0);
console.log(`serve: first load ${first.size} files, ${sum(first)} body bytes; second load ${second.size} files, ${revalidated.length} revalidated with no body, ${sum(second)} body bytes`);
expect(first.size >= 3 && revalidated.length === second.size, `a second load downloaded unchanged files again: ${[...second.entries()].map(([p, f]) => `${p} ${f.body} bytes`)}`);
// The status itself, asked for as the browser did.
const [path, { etag }] = revalidated[0] ?? ["/", {}];
// The ETag names the variant the browser got (brotli), so ask as it did.
const conditional = await wire(new URL(path, base), { "if-none-match": etag ?? "", "accept-encoding": "gzip, deflate, br, zstd" });
console.log(`serve: GET ${path} with If-None-Match ${etag}: ${conditional.status}, ${conditional.bytes} bytes`);
expect(conditional.status === 304 && conditional.bytes === 0, `a conditional GET got ${conditional.status}`);

await browser.close();
server.kill();
for (const failure of failures) console.log(`FAIL ${failure}`);
console.log(`serve: ${failures.length === 0 ? "ok" : `${failures.length} failed`}`);
process.exit(failures.length === 0 ? 0 : 1);
