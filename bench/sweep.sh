#!/usr/bin/env bash
# memwall vs DuckDB, ClickHouse (chDB), Polars and DataFusion at every cardinality, 1 and all threads,
# answers checked: see bench/README.md. Extra arguments go to bench/sweep.py (--quick, --join, --rounds 2, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(bench/venv.sh)
target_dir=${CARGO_TARGET_DIR:-target}
echo "building memwall (release) into $target_dir" >&2
cargo build --release --quiet -p memwall
exec "$python" bench/sweep.py --memwall "$target_dir/release/memwall" "$@"
