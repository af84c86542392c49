#!/bin/bash
# adaptive's phases, main+past-llc (base) against the merge going on in the largest part's table (new), taking turns
for t in 1 2 3; do
  for side in base new; do
    [ $side = base ] && B=/tmp/ab/past-llc-2 || B=/tmp/ab/merge-largest
    for s in "uni100k|--rows 10000000 --keys 100000 --skew uniform --seed 18" "zipf99k-heavy03|--rows 10000000 --keys 99000 --skew zipf:1.1 --heavy 0.3 --seed 14" "uni100k-t2|--rows 10000000 --keys 100000 --skew uniform --seed 18 --threads 2" "zipf100k-sessions-t2|--rows 10000000 --keys 100000 --skew zipf:1.1 --order sessions --seed 12 --threads 2"; do
      name=${s%%|*}; args=${s#*|}
      { date -u; uptime; echo "\$ memwall groupby $args --kernel prefetch,tuned,adaptive --runs 5 --caches-from ./caches.json --phases"; $B groupby $args --kernel prefetch,tuned,adaptive --runs 5 --caches-from ./caches.json --phases 2>&1; } > $name-$side-$t.txt
    done
  done
done
