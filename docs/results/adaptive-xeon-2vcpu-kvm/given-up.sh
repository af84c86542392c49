#!/usr/bin/env bash
# Where adaptive's time goes on the small preset (--phases), and the checksums of every kernel,
# with one release build (M) of the final code.
set -u
D=${D:-.}
for r in 1 2; do
  { date -u; uptime; echo "\$ memwall groupby --preset small --kernel adaptive,tuned --phases"
    "$M" groupby --preset small --kernel adaptive,tuned --phases 2>&1; } > "$D/phases-$r.txt" 2>&1
done
{ date -u; uptime; echo "\$ memwall groupby --preset small --kernel all"; "$M" groupby --preset small --kernel all 2>&1; } > "$D/groupby-small-all.txt" 2>&1
{ date -u; uptime; echo "\$ memwall join --preset small --kernel all"; "$M" join --preset small --kernel all 2>&1; } > "$D/join-small-all.txt" 2>&1
{ date -u; uptime; "$M" --version; } > "$D/end.txt" 2>&1
