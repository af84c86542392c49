#!/usr/bin/env bash
# Runs a bench script (bench/NAME.py) with the bench venv's python and a release memwall, built
# first: `bench/memwall-py.sh compare.py ARGS...` runs `bench/compare.py --memwall ... ARGS...`.
set -euo pipefail
cd "$(dirname "$0")/.."
script=$1
shift
python=$(bench/venv.sh)
target_dir=${CARGO_TARGET_DIR:-target}
echo "building memwall (release) into $target_dir" >&2
cargo build --release --quiet -p memwall
exec "$python" "bench/$script" --memwall "$target_dir/release/memwall" "$@"
