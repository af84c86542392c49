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
# The house rules: no command file names another, no import circles between files, no non-test
# file over 500 lines (docs/architecture.md, "House rules, checked").
scripts/house.sh
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo clippy --locked -p memwall-web --target wasm32-unknown-unknown -- -D warnings
cargo clippy --locked -p memwall-core --target wasm32-unknown-unknown --tests -- -D warnings

step "core as wasm, in headless Chromium"
cargo test --locked -p memwall-core --target wasm32-unknown-unknown --test 'wasm_*'

step "web UI end to end, in headless Chromium"
scripts/e2e.sh

# The aarch64 build takes longer than this script may (docs/release.md): the check runs on a file
# scripts/release.sh made, named by MEMWALL_AARCH64 or found where release.sh leaves it, whenever
# the release tools (qemu-aarch64-static) are present; it is skipped, and says so, without them.
step "aarch64 under qemu-aarch64 (MEMWALL_AARCH64=path to a release build)"
aarch64="${MEMWALL_AARCH64:-}"
if [ -z "$aarch64" ]; then
    aarch64=$(ls -t "${CARGO_TARGET_DIR:-target}"/release-stage/memwall-*-aarch64-unknown-linux-musl/memwall 2>/dev/null | head -1 || true)
fi
if [ -n "$aarch64" ] && command -v qemu-aarch64-static >/dev/null; then
    scripts/check-aarch64.sh "$aarch64"
elif [ -n "${MEMWALL_AARCH64:-}" ]; then
    echo "MEMWALL_AARCH64 is set but qemu-aarch64-static is missing: run scripts/setup.sh --release" >&2
    exit 1
else
    echo "skipped: no aarch64 release build here (scripts/release.sh makes one; --check runs this after it)" >&2
fi
step "all passed"
