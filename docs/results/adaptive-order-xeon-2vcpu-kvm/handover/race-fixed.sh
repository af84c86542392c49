#!/usr/bin/env bash
# As ../race.sh (e809116: the final code of the session, the flat table handing over past the per-core cache), but every run sized by one ladder (caches.json, `memwall ladder --pattern
# page-local --json caches.json`, taken once), so that the two sides differ only in their code.
set -u
D=${D:-.}
TURNS=${TURNS:-3}
shapes=(
  "zipf99k-heavy03-s14|--rows 10000000 --keys 99000 --skew zipf:1.1 --heavy 0.3 --seed 14"
  "zipf100k-sessions-s12|--rows 10000000 --keys 100000 --skew zipf:1.1 --order sessions --seed 12"
  "uni100k-s18|--rows 10000000 --keys 100000 --skew uniform --seed 18"
  "uni300k-sorted-s13|--rows 20000000 --keys 300000 --skew uniform --order sorted --seed 13"
  "small|--preset small"
  "sessions|--preset small --order sessions"
  "sorted|--preset small --order sorted"
  "zipf780k-sessions-s11|--rows 10000000 --keys 780000 --skew zipf:0.9 --order sessions --seed 11"
  "first-seen|--preset small --order first-seen"
  "uni2m-sorted-s16|--rows 10000000 --keys 2000000 --skew uniform --order sorted --seed 16"
  "zipf300k-sessions-heavy03-s17|--rows 10000000 --keys 300000 --skew zipf:1.1 --order sessions --heavy 0.3 --seed 17"
)
one() { local name=$1 bin=$2; shift 2
  { date -u; uptime; echo "start $(date +%s)"; echo "\$ memwall $*"; "$bin" "$@" 2>&1; echo "end $(date +%s)"; } > "$D/$name.txt" 2>&1; }
for t in $(seq 1 "$TURNS"); do
  for entry in "${shapes[@]}"; do
    name=${entry%%|*}; args=${entry#*|}
    for side in base new; do
      if [ $side = base ]; then B=$BASE; else B=$NEW; fi
      # shellcheck disable=SC2086
      one "$name-$side-$t" "$B" groupby $args --kernel naive,tuned,prefetch,adaptive --runs 3 --caches-from caches.json
    done
  done
done
