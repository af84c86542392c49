#!/usr/bin/env bash
# End-to-end test of the web front end in a real, headless Chromium:
#   1. trunk builds dist/ (offline: the wasm-bindgen-cli and wasm-opt it needs are local),
#   2. cargo builds the native memwall (a no-op when it is up to date),
#   3. e2e/run.mjs serves dist/ with `memwall serve` and drives the pages with playwright-core,
#   4. e2e/serve.mjs checks what the server sends: compressed bytes, 304s on a reload,
#   4b. e2e/fleet.mjs: the Fleet tab (sorting, scatter, opening and comparing hosts, prices,
#      ?fleet= indexes and their errors) and 1,000 served reports (every row; the time printed),
#   4c. e2e/cloud.mjs: the Cloud tab (the shelf fetched only when it opens, every type and this
#      browser's dot, the table against `memwall cloud`, a dot's curve overlaid, the pairs; the
#      time to open it, to sort and filter every row and the downloads' sizes printed),
#   5. e2e/anywhere.mjs --ci: the page on a plain static host and in another origin's iframe, the
#      first look's verdict with no click, the embed snippet pasted into another origin's page,
#      each view's weight, browser-vs-native ratios (timings printed, not asserted: they depend on
#      the machine's load), then the same in Firefox ESR and in WebKit (WebKitGTK under Xvfb),
#   6. e2e/verdicts.mjs: each engine's navigation to verdict and levels beside `memwall run`'s.
# Screenshots of every page land in e2e/artifacts/. Exits non-zero when a check fails.
#
# Needs what `scripts/setup.sh --test` installs: trunk and wasm-bindgen in .tools/bin, npm's
# binaryen@132.0.0 in .tools/npm, Chromium, Firefox ESR, geckodriver in .tools/bin, WebKitGTK's
# WebKitWebDriver and Xvfb, and e2e/node_modules (playwright-core, selenium-webdriver).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$ROOT/.tools/bin:$ROOT/.tools/npm/node_modules/.bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
TARGET_DIR=${CARGO_TARGET_DIR:-target}
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac

missing() { echo "e2e: $1 is missing: run scripts/setup.sh --test" >&2; exit 2; }
command -v trunk >/dev/null || missing "trunk"
command -v wasm-bindgen >/dev/null || missing "wasm-bindgen"
wasm-opt --version 2>/dev/null | grep -q "version 132" || missing "wasm-opt 132 (npm binaryen@132.0.0 in .tools/npm)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing "Chromium"
[ -d e2e/node_modules/playwright-core ] || missing "playwright-core (e2e/node_modules)"
command -v firefox-esr >/dev/null || missing "Firefox ESR"
[ -x .tools/bin/geckodriver ] || command -v geckodriver >/dev/null || missing "geckodriver"
[ -x "${WEBKIT_DRIVER:-/usr/bin/WebKitWebDriver}" ] || missing "WebKitWebDriver (webkit2gtk-driver)"
command -v Xvfb >/dev/null || missing "Xvfb (xvfb)"

# Says what starts and when, so a slow run shows where its time went.
at() { printf 'e2e: %s (at %d min %02d s)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }

# trunk runs cargo offline, so everything must already be in the local registry.
cargo fetch --locked --quiet
at "building the web front end (trunk build --release)"
trunk build --release
at "building the native memwall"
cargo build --release --locked --quiet -p memwall
export MEMWALL_BIN="$TARGET_DIR/release/memwall" MEMWALL_DIST="$ROOT/dist"
# A panic in the parquet crate must reach the user as one line and exit 2 in the release build
# too, whose panic strategy differs from the tests' (Cargo.toml, native/src/input/contain.rs).
at "the release binary on a malformed Parquet file"
bad=native/tests/corpus/dictionary-encoding-without-dictionary.parquet
rc=0; err=$("$MEMWALL_BIN" groupby --input "$bad" 2>&1 >/dev/null) || rc=$?
if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || ! grep -q "not a readable Parquet file" <<<"$err"; then
    echo "e2e: memwall groupby --input $bad: want exit 2 and one line, got exit $rc: $err" >&2
    exit 1
fi
at "e2e/run.mjs"
node e2e/run.mjs
# What the server sends: the compressed wasm's bytes on the wire, and 304s on a second load.
at "e2e/serve.mjs"
node e2e/serve.mjs
at "e2e/fleet.mjs"
node e2e/fleet.mjs
at "e2e/cloud.mjs"
node e2e/cloud.mjs
at "e2e/anywhere.mjs chromium --ci"
node e2e/anywhere.mjs chromium --ci
# The same page in a second engine: Firefox ESR over WebDriver (geckodriver), its own timer rules.
at "e2e/anywhere.mjs firefox --ci"
node e2e/anywhere.mjs firefox --ci
# The third engine: WebKit (Safari's), as WebKitGTK's MiniBrowser on an Xvfb display of its own.
at "e2e/anywhere.mjs webkit --ci"
webkit_started=$SECONDS
node e2e/anywhere.mjs webkit --ci
at "WebKit's checks took $(( (SECONDS - webkit_started) / 60 )) min $(( (SECONDS - webkit_started) % 60 )) s"
node e2e/verdicts.mjs chromium firefox webkit
at "done"
