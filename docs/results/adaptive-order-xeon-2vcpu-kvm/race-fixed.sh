#!/usr/bin/env bash
# As race.sh, but every run sized by one ladder ($D/caches.json, `memwall ladder --pattern
# page-local --json caches.json`, taken once), so that the two sides differ only in their code.
# The shapes are $D/shapes.txt, one `name|groupby flags` a line; each step's folder (fixed,
# runs-chao, heaps, sunk, handover) holds its own, each line as a bash list wrote it (in double
# quotes, which are taken off). Run in the folder: D=. BASE=... NEW=... TURNS=N; without BASE, only
# NEW runs.
set -u
D=${D:-.}
TURNS=${TURNS:-3}
mapfile -t shapes < "$D/shapes.txt"
one() { local name=$1 bin=$2; shift 2
  { date -u; uptime; echo "start $(date +%s)"; echo "\$ memwall $*"; "$bin" "$@" 2>&1; echo "end $(date +%s)"; } > "$D/$name.txt" 2>&1; }
for t in $(seq 1 "$TURNS"); do
  for entry in "${shapes[@]}"; do
    entry=${entry#\"}; entry=${entry%\"}
    name=${entry%%|*}; args=${entry#*|}
    for side in ${BASE:+base} new; do
      if [ $side = base ]; then B=${BASE:-}; else B=$NEW; fi
      # shellcheck disable=SC2086
      one "$name-$side-$t" "$B" groupby $args --kernel naive,tuned,prefetch,adaptive --runs 3 --caches-from "$D/caches.json"
    done
  done
done
