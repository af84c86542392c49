#!/bin/bash
# regret per shape: base turns | new turns
cd "${1:-.}"
for s in $(sed 's/^"//; s/|.*//' shapes.txt); do
  b=$(for f in $s-base-*.txt; do grep -o "regret: [0-9.]*" $f | awk '{printf "%s ", $2}'; done)
  n=$(for f in $s-new-*.txt; do grep -o "regret: [0-9.]*" $f | awk '{printf "%s ", $2}'; done)
  k=$(grep -o "adaptive chose [a-z]*" $s-new-1.txt 2>/dev/null | awk '{print $3}')
  printf "%-32s base %-22s new %-22s (new ran %s)\n" "$s" "$b" "$n" "$k"
done
