#!/bin/bash
# prefetch vs tuned on ordered shapes whose table outgrows the last level (the pay-back's open case)
B=${B:-/tmp/ab/trial-phase}
while read -r name args; do
  echo "== $name: $args"
  $B groupby $args --kernel prefetch,tuned --runs 9 --caches-from ./caches.json 2>&1 | grep -E "^(prefetch|tuned) |^generated"
done <<'L'
uni2m-sorted --rows 10000000 --keys 2000000 --skew uniform --order sorted --seed 16
uni1m-sorted --rows 10000000 --keys 1000000 --skew uniform --order sorted --seed 21
uni4m-sorted --rows 20000000 --keys 4000000 --skew uniform --order sorted --seed 22
uni1m-sorted-20 --rows 20000000 --keys 1000000 --skew uniform --order sorted --seed 23
zipf780k-sessions --rows 10000000 --keys 780000 --skew zipf:0.9 --order sessions --seed 11
uni1m-sessions --rows 10000000 --keys 1000000 --skew uniform --order sessions --seed 24
uni2m-sessions --rows 20000000 --keys 2000000 --skew uniform --order sessions --seed 25
zipf2m-sessions --rows 20000000 --keys 2000000 --skew zipf:1.1 --order sessions --seed 26
L
