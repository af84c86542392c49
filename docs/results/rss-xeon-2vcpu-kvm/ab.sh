#!/usr/bin/env bash
# main (before) and rss2 (after) taking turns on one quiet VM: peak RSS on 100M rows of one key,
# then the small preset's speed (3 rounds), then the clickbench preset once each.
# BEFORE and AFTER name the two release binaries (cargo build --release -p memwall).
set -u
D=${D:-.}
stamp() { { date -u; uptime; } ; }
for who in before after; do
  M=$([ $who = before ] && echo "$BEFORE" || echo "$AFTER")
  for k in "tuned 1" "tuned 2" "adaptive 1"; do
    set -- $k
    { stamp; echo "\$ /usr/bin/time -f '%M KB %e s' memwall groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify"
      /usr/bin/time -f '%M KB %e s' "$M" groupby --rows 100M --keys 1 --kernel $1 --runs 1 --threads $2 --no-verify 2>&1; } > "$D/$who-rss-$1-t$2.txt" 2>&1
  done
done
for r in 1 2 3; do
  for who in before after; do
    M=$([ $who = before ] && echo "$BEFORE" || echo "$AFTER")
    { stamp; echo "\$ memwall groupby --preset small --kernel all"; "$M" groupby --preset small --kernel all 2>&1; } > "$D/$who-small-$r.txt" 2>&1
  done
done
for who in before after; do
  M=$([ $who = before ] && echo "$BEFORE" || echo "$AFTER")
  { stamp; echo "\$ memwall groupby --preset clickbench --kernel tuned,radix,adaptive --no-verify"; "$M" groupby --preset clickbench --kernel tuned,radix,adaptive --no-verify 2>&1; } > "$D/$who-clickbench.txt" 2>&1
done
stamp > "$D/end.txt"
