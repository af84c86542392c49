#!/bin/bash
# Runs scripts/wasm-phases.mjs's bench in headless Chromium instead of node: the wasm inlined into
# a page (base64), run synchronously while the page loads, its lines read back with --dump-dom.
#   scripts/wasm-phases-chromium.sh [wasm file] [kernels] [runs] [l2 bytes] [l3 bytes]
set -euo pipefail
wasm=${1:-target/wasm32-unknown-unknown/release-wasm/examples/wasm_phases.wasm}
kernels=${2:-tuned,adaptive} runs=${3:-3} l2=${4:-1048576} l3=${5:-8388608}
page=$(mktemp --suffix=.html)
trap 'rm -f "$page"' EXIT
{
  echo "<!doctype html><pre id=out></pre><script>const WASM='$(base64 -w0 "$wasm")';"
  echo "const ARGS=['$kernels','$runs','$l2','$l3'];"
  # The node bench's body, with its node imports swapped for the page's own.
  sed -n '/^const KERNELS/,$p' "$(dirname "$0")/wasm-phases.mjs" \
    | sed -e 's/process.argv.slice(2)/ARGS/' -e 's/^const file = .*$//' \
          -e 's/await WebAssembly.instantiate(readFileSync(file)/{ instance: new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.from(atob(WASM), (c) => c.charCodeAt(0)))/' \
          -e 's/now_ms: () => performance.now() } })/now_ms: () => performance.now() } }) }/' \
          -e 's/console.log(/document.getElementById("out").textContent += "\\n" + (/'
  echo "</script>"
} > "$page"
${CHROMIUM:-chromium} --headless --no-sandbox --disable-gpu --dump-dom "file://$page" 2>/dev/null \
  | perl -0ne 'print "$1\n" if m{<pre id="out">\n?(.*?)</pre>}s'
