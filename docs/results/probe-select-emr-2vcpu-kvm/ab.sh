#!/usr/bin/env bash
# A/B of flat::find's branch-free first probe: BASE and NEW binaries take turns on each shape,
# every run sized by one ladder (caches.json, the sweep's page-local ladder of this host).
set -u
TURNS=${TURNS:-2}
shapes=(
  "uni100k|--rows 10000000 --keys 100000 --skew uniform --seed 18"
  "zipf100k|--rows 10000000 --keys 100000 --skew zipf:1.1 --seed 18"
  "uni1m|--rows 10000000 --keys 1000000 --skew uniform --seed 18"
  "small|--preset small"
  "heavy03|--rows 10000000 --keys 300000 --skew zipf:1.1 --order sessions --heavy 0.3 --seed 17"
)
for t in $(seq 1 "$TURNS"); do
  for entry in "${shapes[@]}"; do
    name=${entry%%|*}; args=${entry#*|}
    for side in base new; do
      if [ $side = base ]; then B=$BASE; else B=$NEW; fi
      # shellcheck disable=SC2086
      { date -u; echo "\$ memwall groupby $args --kernel naive,tuned,prefetch,adaptive --runs 5 --caches-from caches.json"
        "$B" groupby $args --kernel naive,tuned,prefetch,adaptive --runs 5 --caches-from caches.json 2>&1; } > "$name-$side-$t.txt"
    done
  done
done
