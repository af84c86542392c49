#!/usr/bin/env bash
# How large a round must be: tuned on 50M rows of 10,000 keys (every partition gets rows every
# round), four builds taking turns, twice: main before the rounds (BEFORE), rounds as large as the
# last-level budget (LLC, rss2 at d565fe2), rounds of the per-core cache's rows (L2, the same
# commit with `most_rows` from `tables_bytes`: an experiment, not committed), and the rounds as
# merged (NOW: at least 1,024 rows a partition, at most an eighth of the input).
set -u
D=${D:-.}
for r in 1 2; do
  for who in before llc l2 now; do
    case $who in before) M=$BEFORE ;; llc) M=$LLC ;; l2) M=$L2 ;; now) M=$NOW ;; esac
    { date -u; uptime; echo "\$ memwall groupby --rows 50M --keys 10000 --runs 3 --kernel tuned --no-verify"
      "$M" groupby --rows 50M --keys 10000 --runs 3 --kernel tuned --no-verify 2>&1; } > "$D/$who-$r.txt" 2>&1
  done
done
