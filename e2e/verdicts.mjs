// Each engine's first look beside the native reading, from what e2e/anywhere.mjs kept
// (e2e/artifacts/anywhere-<engine>.json): navigation to verdict on the isolated page and on a
// plain static host, the levels each read, and whether each level ends within one ladder step of
// where `memwall run` put it. Printed only: both depend on the machine's load.
//
//   node e2e/verdicts.mjs chromium firefox webkit   (after e2e/anywhere.mjs ran in each)

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ARTIFACTS } from "./lib.mjs";

const engines = process.argv.slice(2);
let native = null;
const rows = [];
for (const engine of engines) {
  const file = path.join(ARTIFACTS, `anywhere-${engine}.json`);
  if (!existsSync(file)) {
    rows.push(`${engine}: no ${path.relative(process.cwd(), file)} (did anywhere.mjs ${engine} run?)`);
    continue;
  }
  const summary = JSON.parse(readFileSync(file, "utf8"));
  native ??= summary.native_levels;
  for (const where of ["isolated", "static"]) {
    const v = summary[`verdict_${where}`];
    if (!v) {
      rows.push(`${engine} ${summary.browser ?? ""}, ${where}: no verdict`);
      continue;
    }
    const within = v.within_one_step === undefined ? "" : `; every level's end within one step of native's: ${v.within_one_step ? "yes" : "no"}`;
    const timer = Number((v.timer_ns / 1000).toPrecision(3));
    rows.push(`${`${engine} ${summary.browser ?? ""}`.padEnd(26)} ${where.padEnd(8)} ${(v.ms / 1000).toFixed(1).padStart(5)} s, timer ${timer} µs: ${v.levels ?? v.reading}${within}`);
  }
}
console.log("navigation to the first look's verdict, and its levels, in each engine:");
rows.forEach((r) => console.log(`  ${r}`));
console.log(`  ${"native memwall run".padEnd(35)} ${native ?? "(no reading kept)"}`);
