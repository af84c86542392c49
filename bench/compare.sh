#!/usr/bin/env bash
# memwall vs DuckDB vs ClickHouse (chDB), one thread, same data, answers checked: see bench/README.md.
# Extra arguments go to bench/compare.py (e.g. --agg count,sum,avg, --join, --runs 3, --pin 1, --preset small).
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(bench/venv.sh)
target_dir=${CARGO_TARGET_DIR:-target}
echo "building memwall (release) into $target_dir" >&2
cargo build --release --quiet -p memwall
exec "$python" bench/compare.py --memwall "$target_dir/release/memwall" "$@"
