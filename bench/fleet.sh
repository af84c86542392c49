#!/usr/bin/env bash
# How long `memwall fleet` takes over many reports: the reports kept in examples/reports/, copied
# until there are N (default 1000) in a temporary folder, then read three times (the first from a
# cold page cache, if the system just wrote them).
#
#   bench/fleet.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
memwall=${MEMWALL:-target/release/memwall}
[ -x "$memwall" ] || cargo build --release --locked -p memwall
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sources=(examples/reports/*.json)
for ((i = 0; i < n; i++)); do
    src=${sources[$((i % ${#sources[@]}))]}
    cp "$src" "$dir/$(basename "$src" .json)-$i.json"
done
echo "fleet: $n reports, $(du -sh "$dir" | cut -f1) in all"
for run in 1 2 3; do
    /usr/bin/time -f "fleet: run $run: %e s, %M KB peak" "$memwall" fleet "$dir" >/dev/null
done
