#!/usr/bin/env bash
# Five quick probes and five `memwall run`s, back to back (issue 45's "stable on one host");
# the helper builds on this VM are paused for the whole set (`quiet on`). M= the binary, D= out.
set -u
M=${M:-memwall}; D=${D:-.}; H=$(dirname "$0")
{ date -u; uptime; } >"$D/load-start.txt"
for i in 1 2 3 4 5; do
  s=$(date +%s.%N)
  $M groupby --rows 100000 --keys 1000 --kernel adaptive --runs 1 --json "$D/probe-$i.json" >/dev/null 2>"$D/probe-$i.err"
  e=$(date +%s.%N)
  printf 'probe %d (%.1f s): ' $i $(echo "$e - $s" | bc)
  python3 -c "
import json,re;s=open('$D/probe-$i.json').read();m=re.search(r'caches: ([^\"]*?)(\\\\u|\"|;)',s);print(m.group(1) if m else 'no caches phrase')"
done
for i in 1 2 3 4 5; do
  s=$(date +%s.%N)
  $M run --no-groupby --no-join --out "$D/run-$i.json" >"$D/run-$i.txt" 2>&1
  e=$(date +%s.%N)
  printf 'run %d (%.0f s): ' $i $(echo "$e - $s" | bc)
  python3 "$H/levels.py" "$D/run-$i.json" | cut -d' ' -f2-
done
{ date -u; uptime; } >"$D/load-end.txt"
