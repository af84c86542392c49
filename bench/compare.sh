#!/usr/bin/env bash
# memwall vs DuckDB vs ClickHouse (chDB), one thread, same data, answers checked: see bench/README.md.
# Extra arguments go to bench/compare.py (e.g. --agg count,sum,avg, --join, --runs 3, --pin 1, --preset small).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=bench/.venv
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import duckdb, chdb' 2>/dev/null; then
    echo "setting up $venv (DuckDB and chDB wheels are large; this happens once)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet -r bench/requirements.txt
fi

target_dir=${CARGO_TARGET_DIR:-target}
echo "building memwall (release) into $target_dir" >&2
cargo build --release --quiet -p memwall
exec "$venv/bin/python" bench/compare.py --memwall "$target_dir/release/memwall" "$@"
