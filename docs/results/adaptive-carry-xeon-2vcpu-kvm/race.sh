#!/usr/bin/env bash
# A/B of adaptive on main (MAIN=) and on branch carry (CARRY=), taking turns: the small preset
# with --phases, then every kernel on each row order and with a heavy key, 10M rows each.
# Each run waits while /tmp/quiet exists (another session's cache measurements); each file
# records its start and end in unix seconds, to be checked against /tmp/quiet.log afterwards.
set -u
D=${D:-.}
TURNS=${TURNS:-3}
SHAPES=${SHAPES:-"shuffled sessions first-seen sorted heavy"}
one() { # name binary args...
  local name=$1 bin=$2; shift 2
  while [ -e /tmp/quiet ]; do sleep 15; done
  { date -u; uptime; echo "start $(date +%s)"; echo "\$ memwall $*"; nice -n 10 "$bin" "$@" 2>&1; echo "end $(date +%s)"; } > "$D/$name.txt" 2>&1
}
for t in $(seq 1 "$TURNS"); do
  for side in main carry; do
    if [ $side = main ]; then B=$MAIN; else B=$CARRY; fi
    one "small-phases-$side-$t" "$B" groupby --preset small --kernel adaptive,tuned --phases
    for s in $SHAPES; do
      case $s in
        heavy) args="--heavy 0.5" ;;
        *) args="--order $s" ;;
      esac
      one "$s-$side-$t" "$B" groupby --preset small $args --kernel all
    done
  done
done
