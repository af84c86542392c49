#!/usr/bin/env bash
# Fidelity of memwall's ladder: at every working set from --min to --max, memwall's median ns per
# load next to a minimal C chase (-O2) and a JavaScript (V8) chase walking the very same ring.
#
#   bench/ladder/compare.sh [MIN] [MAX]     (default 16KiB 1GiB; run on an otherwise idle host)
#
# Prints a Markdown table: size, memwall, C, memwall/C, JS, memwall/JS.
set -euo pipefail
cd "$(dirname "$0")/../.."
MIN=${1:-16KiB}
MAX=${2:-1GiB}
SEED=7
SAMPLES=15
TARGET_MS=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet -p memwall -p memwall-core --example dump_ring
bin=${CARGO_TARGET_DIR:-target}/release
cc -O2 -o "$work/chase" bench/ladder/chase.c

"$bin/memwall" ladder --min "$MIN" --max "$MAX" --seed "$SEED" --runs "$SAMPLES" --sample-ms "$TARGET_MS" \
    --pin 1 --json "$work/memwall.json" >&2
sizes=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); [print(p['bytes'], p['ns_per_load']['median']) for p in r['ladder']['points']]" "$work/memwall.json")

echo "| working set | memwall ns | C -O2 ns | memwall / C | JS (V8) ns | memwall / JS |"
echo "|---|---:|---:|---:|---:|---:|"
while read -r bytes memwall; do
    "$bin/examples/dump_ring" "$bytes" "$SEED" "$work/ring"
    c=$(taskset -c 1 "$work/chase" "$work/ring" "$SAMPLES" "$TARGET_MS" | awk '{print $3}')
    js=$(taskset -c 1 node --max-old-space-size=8192 bench/ladder/chase.mjs "$work/ring" "$SAMPLES" "$TARGET_MS" | awk '{print $3}')
    python3 - "$bytes" "$memwall" "$c" "$js" <<'PY'
import sys
size, m, c, j = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
units = ["B", "KiB", "MiB", "GiB"]
v, u = float(size), 0
while v >= 1024 and u < 3:
    v, u = v / 1024, u + 1
label = f"{v:g} {units[u]}"
print(f"| {label} | {m:.2f} | {c:.2f} | {m / c:.3f} | {j:.2f} | {m / j:.3f} |")
PY
done <<< "$sizes"
