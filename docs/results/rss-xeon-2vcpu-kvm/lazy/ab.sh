#!/usr/bin/env bash
# main (before) and rss2 at d6dd6c4 (lazy: rounds of at least 1,024 rows a partition, at most an
# eighth of the input; the largest round's region taken only once a round needs it; small kept
# tables counted with a check a row) taking turns, A B A B, on one VM another session was
# building on.
# Usage: BEFORE=/tmp/mwlead/before AFTER=/tmp/mwlead/lazy D=. ./ab.sh
set -u
D=${D:-.}
stamp() { date -u; uptime; }
bin() { [ "$1" = before ] && echo "$BEFORE" || echo "$AFTER"; }
for k in "tuned 1" "tuned 2" "adaptive 1" "adaptive 2"; do
  set -- $k
  for who in before lazy; do
    { stamp; echo "\$ /usr/bin/time -f '%M KB %e s' memwall groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify"
      /usr/bin/time -f '%M KB %e s' "$(bin $who)" groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify 2>&1; } > "$D/$who-rss-$1-t$2.txt" 2>&1
  done
done
for r in 1 2 3; do
  for w in "keys10k --rows 50M --keys 10000 --runs 3" "keys300k --rows 50M --keys 300000 --runs 3" "small --preset small"; do
    set -- $w; name=$1; shift
    for who in before lazy; do
      { stamp; echo "\$ memwall groupby $* --kernel tuned --no-verify"; "$(bin $who)" groupby "$@" --kernel tuned --no-verify 2>&1; } > "$D/$who-$name-$r.txt" 2>&1
    done
  done
done
for r in 1 2 3; do
  for who in before lazy; do
    { stamp; echo "\$ memwall groupby --preset clickbench --kernel tuned --no-verify"; "$(bin $who)" groupby --preset clickbench --kernel tuned --no-verify 2>&1; } > "$D/$who-clickbench-$r.txt" 2>&1
  done
done
{ stamp; echo "\$ memwall groupby --preset small --kernel all"; "$AFTER" groupby --preset small --kernel all 2>&1; } > "$D/lazy-small-all.txt" 2>&1
stamp > "$D/end.txt"
