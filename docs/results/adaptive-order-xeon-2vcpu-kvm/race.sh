#!/usr/bin/env bash
# A/B of adaptive before (BASE=, main e862566) and after the order test (NEW=), taking turns,
# every memwall kernel on each data shape, 1 thread; regret is the tool's own line.
# Each file starts with `date -u`, `uptime` and its start in unix seconds.
set -u
D=${D:-.}
TURNS=${TURNS:-2}
shapes=(
  "small|--preset small"
  "sessions|--preset small --order sessions"
  "sorted|--preset small --order sorted"
  "first-seen|--preset small --order first-seen"
  "heavy|--preset small --heavy 0.5"
  "zipf780k-sessions-s11|--rows 10000000 --keys 780000 --skew zipf:0.9 --order sessions --seed 11"
  "zipf100k-sessions-s12|--rows 10000000 --keys 100000 --skew zipf:1.1 --order sessions --seed 12"
  "uni300k-sorted-s13|--rows 20000000 --keys 300000 --skew uniform --order sorted --seed 13"
  "zipf99k-heavy03-s14|--rows 10000000 --keys 99000 --skew zipf:1.1 --heavy 0.3 --seed 14"
  "zipf30k-sessions-s15|--rows 10000000 --keys 30000 --skew zipf:1.1 --order sessions --seed 15"
)
one() { # name binary args...
  local name=$1 bin=$2; shift 2
  { date -u; uptime; echo "start $(date +%s)"; echo "\$ memwall $*"; "$bin" "$@" 2>&1; echo "end $(date +%s)"; } > "$D/$name.txt" 2>&1
}
for t in $(seq 1 "$TURNS"); do
  for entry in "${shapes[@]}"; do
    name=${entry%%|*}; args=${entry#*|}
    for side in base new; do
      if [ $side = base ]; then B=$BASE; else B=$NEW; fi
      # shellcheck disable=SC2086
      one "$name-$side-$t" "$B" groupby $args --kernel all --runs 3
    done
  done
done
