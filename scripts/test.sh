#!/usr/bin/env bash
# Every test memwall has: native unit and CLI tests, lints, the core compiled to wasm and tested
# in headless Chromium, and the web UI end to end in Chromium against the real trunk build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
export PATH="$PWD/.tools/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"

# Each step says when it started, so a slow CI run shows where its time went.
step() { printf '\n\033[1m== %s\033[0m (at %d min %02d s)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }

step "native: unit and CLI tests"
# setup.sh installed Prometheus: the exporter's test must run against it here, not skip.
MEMWALL_REQUIRE_PROMETHEUS=1 cargo test --locked --workspace

step "lints"
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo clippy --locked -p memwall-web --target wasm32-unknown-unknown -- -D warnings
cargo clippy --locked -p memwall-core --target wasm32-unknown-unknown --tests -- -D warnings

step "core as wasm, in headless Chromium"
cargo test --locked -p memwall-core --target wasm32-unknown-unknown --test 'wasm_*'

step "web UI end to end, in headless Chromium"
scripts/e2e.sh

# The aarch64 build takes longer than this script may (docs/release.md): the check runs on a file
# scripts/release.sh made, named by MEMWALL_AARCH64, and is skipped without one.
step "aarch64 under qemu-aarch64 (MEMWALL_AARCH64=path to a release build)"
if [ -n "${MEMWALL_AARCH64:-}" ]; then
    scripts/check-aarch64.sh "$MEMWALL_AARCH64"
else
    echo "skipped: no MEMWALL_AARCH64 (scripts/release.sh --check runs it after building)" >&2
fi
step "all passed"
