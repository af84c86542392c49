#!/usr/bin/env bash
# Every kernel raced on the data shapes of issue 47, 10M rows, one thread, 3 rounds taking turns;
# predicted (the cost model, from the race's own quick ladder) beside measured, and adaptive's
# regret. Run from the repository root with a release build. Writes beside this script.
set -euo pipefail
D=$(dirname "$0")
M=${MEMWALL:-target/release/memwall}
race() { # name, then memwall groupby's data flags
  local name=$1; shift
  "$M" groupby --kernel all --threads 1 --runs 3 "$@" --json "$D/$name.json" | tee "$D/$name.txt"
}
for order in shuffled sessions first-seen sorted; do
  race "zipf0.8-781601-$order" --rows 10M --keys 781601 --skew zipf:0.8 --order "$order"
done
race "zipf1.1-99000-heavy0.3-shuffled" --rows 10M --keys 99000 --skew zipf:1.1 --heavy 0.3
race "uniform-99000-heavy0.3-sessions" --rows 10M --keys 99000 --order sessions --heavy 0.3
