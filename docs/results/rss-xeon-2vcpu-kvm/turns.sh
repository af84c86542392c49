#!/usr/bin/env bash
# main (before) and a build of branch rss2 (NAME) taking turns, A B A B, on one VM another
# session was building on. Run inside a subfolder named for the build, e.g. in lazy/:
#   BEFORE=/tmp/mwlead/before AFTER=/tmp/mwlead/lazy NAME=lazy CLICKBENCH_RUNS=3 D=. ../turns.sh
# share/ (rss2 at 49ec4c3) ran it with NAME=share and CLICKBENCH_RUNS=2, lazy/ (d6dd6c4) with
# NAME=lazy and CLICKBENCH_RUNS=3 (both runs copied the script into their folder; the copies
# differed only in these two settings, and share/ named its binary SHARE instead of AFTER).
set -u
D=${D:-.}
stamp() { date -u; uptime; }
bin() { [ "$1" = before ] && echo "$BEFORE" || echo "$AFTER"; }
for k in "tuned 1" "tuned 2" "adaptive 1" "adaptive 2"; do
  set -- $k
  for who in before "$NAME"; do
    { stamp; echo "\$ /usr/bin/time -f '%M KB %e s' memwall groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify"
      /usr/bin/time -f '%M KB %e s' "$(bin $who)" groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify 2>&1; } > "$D/$who-rss-$1-t$2.txt" 2>&1
  done
done
for r in 1 2 3; do
  for w in "keys10k --rows 50M --keys 10000 --runs 3" "keys300k --rows 50M --keys 300000 --runs 3" "small --preset small"; do
    set -- $w; name=$1; shift
    for who in before "$NAME"; do
      { stamp; echo "\$ memwall groupby $* --kernel tuned --no-verify"; "$(bin $who)" groupby "$@" --kernel tuned --no-verify 2>&1; } > "$D/$who-$name-$r.txt" 2>&1
    done
  done
done
for r in $(seq "${CLICKBENCH_RUNS:-3}"); do
  for who in before "$NAME"; do
    { stamp; echo "\$ memwall groupby --preset clickbench --kernel tuned --no-verify"; "$(bin $who)" groupby --preset clickbench --kernel tuned --no-verify 2>&1; } > "$D/$who-clickbench-$r.txt" 2>&1
  done
done
{ stamp; echo "\$ memwall groupby --preset small --kernel all"; "$AFTER" groupby --preset small --kernel all 2>&1; } > "$D/$NAME-small-all.txt" 2>&1
stamp > "$D/end.txt"
