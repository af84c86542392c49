#!/usr/bin/env bash
set -e
cd /work/wt/wasmexp
export PATH="/work/main/.tools/bin:/work/main/.tools/npm/node_modules/.bin:$PATH" TRUNK_SKIP_VERSION_CHECK=true CARGO_TARGET_DIR=/tmp/ab/wasmexp
while [ -e /tmp/quiet ]; do sleep 10; done
git checkout -q index.html
nice -n 5 trunk build --release --dist /tmp/dist-z >/tmp/wb-z.log 2>&1; echo z done $(date -u)
sed -i 's/data-wasm-opt="z"/data-wasm-opt="3"/g' index.html
nice -n 5 trunk build --release --dist /tmp/dist-o3 >/tmp/wb-o3.log 2>&1; echo o3 done $(date -u)
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" nice -n 5 trunk build --release --dist /tmp/dist-simd >/tmp/wb-simd.log 2>&1; echo simd done $(date -u)
git checkout -q index.html
