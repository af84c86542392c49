#!/usr/bin/env bash
# The cost model's fit data (crates/memwall-core/src/cost/fit): run from the repository root
# with a release build (cargo build --release --locked -p memwall). Writes beside this script,
# or into the folder given as its one argument.
set -euo pipefail
D=${1:-$(dirname "$0")}
M=${MEMWALL:-target/release/memwall}
# The ladder as adaptive's quick probe reads it (page-local, on THP), to 256 MiB so DRAM shows,
# with the parallelism curve for the knee.
"$M" ladder --pattern page-local --huge-pages thp --min 16KiB --max 256MiB --points-per-octave 1 \
  --runs 5 --sample-ms 2 --chains 1,2,4,8,16,32 --json "$D/ladder.json"
"$M" bandwidth --min 16KiB --max 512MiB --json "$D/bandwidth.json"
# Each kernel's ns/row from 1Ki to 8Mi groups over 8Mi rows, one thread, best of 3 rounds.
"$M" sweep cardinality --rows 8Mi --min-keys 1Ki --max-keys 8Mi --threads 1 --runs 3 \
  --caches-from "$D/ladder.json" --json "$D/sweep.json"
