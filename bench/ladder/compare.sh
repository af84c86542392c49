#!/usr/bin/env bash
# Fidelity of memwall's ladder: at every working set from MIN to MAX, memwall's ns per load next
# to a minimal C chase (-O2) and a JavaScript (V8) chase walking the very same ring.
#
#   bench/ladder/compare.sh [MIN] [MAX] [ROUNDS]   (default 16KiB 1GiB 3; on an idle host)
#
# DRAM latency on a shared VM drifts over minutes, so the three are interleaved: each round runs
# memwall, C and JS back to back at one size, on the same CPU, and each figure is the best
# round's median (15 samples of ~5 ms each; memwall with --attempts 1, since the others have no
# retry). The last column runs the same C chase a second time in each round: how far a tool
# differs from itself, the noise floor any other ratio is to be read against. Prints a Markdown
# table.
set -euo pipefail
cd "$(dirname "$0")/../.."
MIN=${1:-16KiB}
MAX=${2:-1GiB}
ROUNDS=${3:-3}
SEED=7
SAMPLES=15
TARGET_MS=5
CPU=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet -p memwall -p memwall-core --example dump_ring
bin=${CARGO_TARGET_DIR:-target}/release
cc -O2 -o "$work/chase" bench/ladder/chase.c

sizes=$("$bin/memwall" ladder --min "$MIN" --max "$MAX" --runs 1 --sample-ms 0.01 --json - 2>/dev/null |
    python3 -c "import json,sys; [print(p['bytes']) for p in json.load(sys.stdin)['ladder']['points']]")

echo "| working set | memwall ns | C -O2 ns | memwall / C | JS (V8) ns | memwall / JS | C again / C |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for bytes in $sizes; do
    "$bin/examples/dump_ring" "$bytes" "$SEED" "$work/ring"
    : > "$work/rounds"
    for _ in $(seq "$ROUNDS"); do
        m=$("$bin/memwall" ladder --min "$bytes" --max "$bytes" --seed "$SEED" --runs "$SAMPLES" \
            --sample-ms "$TARGET_MS" --attempts 1 --pin "$CPU" --json - 2>/dev/null |
            python3 -c "import json,sys; print(json.load(sys.stdin)['ladder']['points'][0]['ns_per_load']['median'])")
        c=$(taskset -c "$CPU" "$work/chase" "$work/ring" "$SAMPLES" "$TARGET_MS" | awk '{print $3}')
        j=$(taskset -c "$CPU" node --max-old-space-size=8192 bench/ladder/chase.mjs "$work/ring" "$SAMPLES" "$TARGET_MS" | awk '{print $3}')
        c2=$(taskset -c "$CPU" "$work/chase" "$work/ring" "$SAMPLES" "$TARGET_MS" | awk '{print $3}')
        echo "$m $c $j $c2" >> "$work/rounds"
    done
    python3 - "$bytes" "$work/rounds" <<'PY'
import sys
size = int(sys.argv[1])
rounds = [list(map(float, line.split())) for line in open(sys.argv[2])]
m, c, j, c2 = (min(r[i] for r in rounds) for i in range(4))
units = ["B", "KiB", "MiB", "GiB"]
v, u = float(size), 0
while v >= 1024 and u < 3:
    v, u = v / 1024, u + 1
print(f"| {v:g} {units[u]} | {m:.2f} | {c:.2f} | {m / c:.3f} | {j:.2f} | {m / j:.3f} | {c2 / c:.3f} |", flush=True)
PY
done
