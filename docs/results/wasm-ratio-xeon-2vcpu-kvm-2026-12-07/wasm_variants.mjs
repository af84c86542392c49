// Browser tuned/adaptive GROUP BY (the page's small preset, runs=3) for several builds of the front
// end, taking turns with native `memwall groupby --preset small --threads 1`.
//   DISTS=/tmp/dist-z,/tmp/dist-o3 ROUNDS=3 MEMWALL_BIN=... node e2e/wasm_variants.mjs
import { spawn, execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
const MEMWALL = process.env.MEMWALL_BIN;
const DISTS = process.env.DISTS.split(",");
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KERNEL = process.env.KERNEL ?? "tuned";
const EXTRA = process.env.EXTRA ?? "";
const NATIVE_ARGS = (process.env.NATIVE_ARGS ?? "").split(" ").filter(Boolean);
async function serve(dist) {
  const server = spawn(MEMWALL, ["serve", "--dist", dist, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const base = await new Promise((resolve) => { let s = ""; server.stdout.on("data", (c) => { s += c; const m = s.match(/at (http:\/\/\S+)/); if (m) resolve(m[1]); }); });
  return { base, server };
}
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"] });
const servers = await Promise.all(DISTS.map(serve));
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < DISTS.length; i++) {
    const ctx = await browser.newContext(); ctx.setDefaultTimeout(600_000);
    const page = await ctx.newPage();
    await page.goto(`${servers[i].base}?kernels=${KERNEL}&runs=3${EXTRA}#groupby`);
    if (!EXTRA.includes("verdict=0")) await page.waitForSelector('#first-look[data-state="done"]', { timeout: 120_000, state: "attached" });
    const sized = await page.evaluate(() => document.body.innerText.match(/Sized by[^.]*\./)?.[0] ?? "");
    await page.click("section[aria-label='GROUP BY race'] form.controls button.primary");
    const row = `#groupby-table tbody tr[data-kernel="${KERNEL}"]`;
    await page.waitForSelector(row);
    const ns = await page.evaluate((row) => Number(document.querySelector(row).dataset.nsPerRow), row);
    const after = await page.evaluate(() => document.body.innerText.match(/Sized by[^\n]*/)?.[0] ?? "");
    console.log(`round ${r + 1} ${DISTS[i]} ${EXTRA} browser ${KERNEL} ${ns.toFixed(2)} ns/row (${after})`);
    await ctx.close();
  }
  const out = execFileSync(MEMWALL, ["groupby", "--preset", "small", "--kernel", KERNEL, "--threads", "1", "--runs", "3", ...NATIVE_ARGS, "--json", "-"], { stdio: ["ignore", "pipe", "ignore"] });
  const rep = JSON.parse(out).groupby;
  console.log(`round ${r + 1} native ${KERNEL} ${NATIVE_ARGS.join(" ")} ${rep.runs[0].ns_per_row.toFixed(2)} ns/row`);
}
await browser.close(); servers.forEach((s) => s.server.kill());
