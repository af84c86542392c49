#!/usr/bin/env bash
# The main job: install what is missing, build memwall (native binary and web bundle), then
# measure this host with `memwall run` (host info, latency ladder, GROUP BY race) into
# memwall-report.json. Extra arguments go to `memwall run` (see `memwall run --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.tools/bin:$PWD/.tools/npm/node_modules/.bin:$PATH"
cargo build --release --locked -p memwall
TRUNK_SKIP_VERSION_CHECK=true trunk build --release >&2
exec "${CARGO_TARGET_DIR:-target}/release/memwall" run "$@"
