#!/usr/bin/env bash
# A/B over the quick sweep's data: each side in turn, every file, kernels naive,tuned,prefetch,adaptive.
set -u
OUT=$1; shift; TURNS=${TURNS:-2}; CACHES=${CACHES:?}; DATA=${DATA:?}; FILES=${FILES:?}
mkdir -p "$OUT"
for t in $(seq 1 $TURNS); do for f in $FILES; do for side in "$@"; do
  name=$(basename $side)
  { date -u; echo "\$ memwall groupby --input $DATA/$f.parquet --column key --kernel naive,tuned,prefetch,adaptive --runs 3 --threads 1 --memory warm --caches-from $CACHES"; 
    /tmp/ab/$side groupby --input $DATA/$f.parquet --column key --kernel naive,tuned,prefetch,adaptive --runs 3 --threads 1 --memory warm --caches-from $CACHES 2>&1; } > "$OUT/$f-$name-$t.txt"
done; done; done
for f in $FILES; do for side in "$@"; do name=$(basename $side); echo "$f $name: $(grep -h "adaptive's regret" $OUT/$f-$name-*.txt | sed 's/ (its best.*over / /; s/, the fastest.*//' | tr '\n' ' ')"; done; done
