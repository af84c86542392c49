#!/usr/bin/env bash
# A/B of the trial's rest priced from its two slices (small.rs `rest_ns`): BASE and NEW take
# turns at each point, every run sized by one ladder (caches.json: the cost-fit ladder of this
# host, L2 2 MiB, L3 16 MiB). Run in this folder: BASE=... NEW=... TURNS=N ./ab.sh
set -u
TURNS=${TURNS:-2}
points=()
for k in 4096 16384 32768 65536 131072; do
  for skew in uniform zipf:1.1; do points+=("k$k-${skew%%:*}|--rows 8Mi --keys $k --skew $skew --seed 3"); done
done
for t in $(seq 1 "$TURNS"); do
  for entry in "${points[@]}"; do
    name=${entry%%|*}; args=${entry#*|}
    for side in base new; do
      if [ $side = base ]; then B=$BASE; else B=$NEW; fi
      # shellcheck disable=SC2086
      { date -u; echo "\$ memwall groupby $args --kernel naive,tuned,prefetch,adaptive --runs 3 --threads 1 --caches-from caches.json"
        "$B" groupby $args --kernel naive,tuned,prefetch,adaptive --runs 3 --threads 1 --caches-from caches.json 2>&1; } > "$name-$side-$t.txt"
    done
  done
done
