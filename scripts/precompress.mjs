// Writes NAME.br (brotli, quality 11) and NAME.gz (gzip, level 9) beside each text and wasm
// file of a built front end, for `memwall serve` to send to browsers that accept them: smaller
// than compressing on the fly, and no CPU spent per request (native/src/serve/assets.rs).
//
// Run by trunk after a release build (Trunk.toml's post_build hook, on its staging folder), or
// by hand: node scripts/precompress.mjs DIR. A variant is written only when it is smaller.
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error("precompress: no folder given (node scripts/precompress.mjs DIR)");
  process.exit(2);
}
if (!process.argv[2] && process.env.TRUNK_PROFILE !== "release") {
  process.exit(0); // a debug `trunk serve` loop: not worth the seconds
}

const COMPRESSIBLE = /\.(wasm|js|mjs|css|html|svg|json|map|txt)$/i;
let before = 0;
let after = 0;
function walk(folder) {
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) {
      walk(file);
      continue;
    }
    if (!COMPRESSIBLE.test(name)) continue;
    const bytes = readFileSync(file);
    const variants = [
      [".br", brotliCompressSync(bytes, { params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        [constants.BROTLI_PARAM_MODE]: name.endsWith(".wasm") ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      } })],
      [".gz", gzipSync(bytes, { level: 9 })],
    ];
    for (const [ext, packed] of variants) {
      if (packed.length < bytes.length) {
        writeFileSync(file + ext, packed);
      } else {
        // A stale variant from an earlier build must not be served instead of this file.
        try { unlinkSync(file + ext); } catch {}
      }
    }
    before += bytes.length;
    after += Math.min(bytes.length, variants[0][1].length);
  }
}
walk(dir);
console.error(`precompress: ${dir}: ${before} bytes, ${after} as brotli`);
