#!/usr/bin/env bash
# main (before) and rss2 at 49ec4c3 (share: rounds of at least 1,024 rows a partition, at most
# an eighth of the input) taking turns, A B A B, on one VM another session was building on.
# Usage: BEFORE=/tmp/mwlead/before SHARE=/tmp/mwlead/share8 D=. ./ab.sh
set -u
D=${D:-.}
stamp() { date -u; uptime; }
bin() { [ "$1" = before ] && echo "$BEFORE" || echo "$SHARE"; }
for k in "tuned 1" "tuned 2" "adaptive 1" "adaptive 2"; do
  set -- $k
  for who in before share; do
    { stamp; echo "\$ /usr/bin/time -f '%M KB %e s' memwall groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify"
      /usr/bin/time -f '%M KB %e s' "$(bin $who)" groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify 2>&1; } > "$D/$who-rss-$1-t$2.txt" 2>&1
  done
done
for r in 1 2 3; do
  for w in "keys10k --rows 50M --keys 10000 --runs 3" "keys300k --rows 50M --keys 300000 --runs 3" "small --preset small"; do
    set -- $w; name=$1; shift
    for who in before share; do
      { stamp; echo "\$ memwall groupby $* --kernel tuned --no-verify"; "$(bin $who)" groupby "$@" --kernel tuned --no-verify 2>&1; } > "$D/$who-$name-$r.txt" 2>&1
    done
  done
done
for r in 1 2; do
  for who in before share; do
    { stamp; echo "\$ memwall groupby --preset clickbench --kernel tuned --no-verify"; "$(bin $who)" groupby --preset clickbench --kernel tuned --no-verify 2>&1; } > "$D/$who-clickbench-$r.txt" 2>&1
  done
done
{ stamp; echo "\$ memwall groupby --preset small --kernel all"; "$SHARE" groupby --preset small --kernel all 2>&1; } > "$D/share-small-all.txt" 2>&1
stamp > "$D/end.txt"
