#!/usr/bin/env bash
# Runs an aarch64 memwall under qemu-aarch64 (Debian's qemu-user-static) and checks that it
# works: info, a short ladder, a GROUP BY and a join whose answers must equal those of an x86_64
# memwall on the same generated data, and `serve` answering `/`. Emulated timings mean nothing,
# so the binary must say so: every check also wants the "looks emulated" warning in its output,
# and in the report.
#
#   scripts/check-aarch64.sh AARCH64_MEMWALL [X86_64_MEMWALL]
#
# scripts/release.sh --check runs it on the file it built. Not part of scripts/test.sh: the
# aarch64 build it needs takes longer than CI's time allows (docs/release.md has the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
arm=${1:?usage: scripts/check-aarch64.sh AARCH64_MEMWALL [X86_64_MEMWALL]}
reference=${2:-}
if [ -z "$reference" ]; then
    for candidate in "${CARGO_TARGET_DIR:-target}"/release-stage/memwall-*-x86_64-unknown-linux-musl/memwall \
        "${CARGO_TARGET_DIR:-target}/release/memwall"; do
        [ -x "$candidate" ] && { reference=$candidate; break; }
    done
fi
[ -x "$reference" ] || { echo "check-aarch64: no x86_64 memwall to compare answers with" >&2; exit 2; }
[ -x "$arm" ] || { echo "check-aarch64: $arm is not an executable file" >&2; exit 2; }
# Absolute: serve runs in an empty folder (qemu says nothing when it cannot find the file).
arm=$(realpath "$arm") reference=$(realpath "$reference")
command -v qemu-aarch64-static >/dev/null || { echo "check-aarch64: qemu-aarch64-static is missing: scripts/setup.sh --release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true' EXIT
failures=0
check() { printf '\033[1mcheck-aarch64:\033[0m %s\n' "$*" >&2; }
fail() { printf 'check-aarch64: FAIL %s\n' "$*" >&2; failures=$((failures + 1)); }
arm() { qemu-aarch64-static "$arm" "$@"; }
# Runs the aarch64 binary, timed, its output kept in $work/$name.out.
run() {
    local name=$1; shift
    local started=$SECONDS
    if arm "$@" > "$work/$name.out" 2>&1; then
        check "$name: ok in $((SECONDS - started)) s (memwall $*)"
    else
        fail "$name exited $? (memwall $*): $(tail -3 "$work/$name.out")"
    fi
    grep -q "looks emulated" "$work/$name.out" || fail "$name: no emulation warning in its output"
}
# The (groups, checksum) pairs of a GROUP BY's table, one line per distinct pair.
answers() { awk '$1 ~ /^[a-z_]+$/ && NF >= 12 && $(NF-1) ~ /^[0-9]+$/ { print $(NF-1), $NF }' "$1" | sort -u; }

check "$(arm --version) under $(qemu-aarch64-static --version | head -1)"
arm --version | grep -q aarch64-unknown-linux-musl || fail "--version does not name the aarch64 target"

run info info
grep -q "^cache: " "$work/info.out" || fail "info lists no caches and does not say they are not declared"
sed 's/^/    /' "$work/info.out" >&2

run ladder ladder --max 1MiB --json "$work/ladder.json"
grep -q '"timing_warnings"' "$work/ladder.json" || fail "the ladder report does not say the timings look emulated"

GROUPBY=(groupby --rows 1000000 --keys 100000)
run groupby "${GROUPBY[@]}"
"$reference" "${GROUPBY[@]}" > "$work/groupby-x86.out" 2>&1
if [ "$(answers "$work/groupby.out" | wc -l)" != 1 ] || [ "$(answers "$work/groupby.out")" != "$(answers "$work/groupby-x86.out")" ]; then
    fail "groupby answers differ: aarch64 [$(answers "$work/groupby.out" | tr '\n' ' ')] x86_64 [$(answers "$work/groupby-x86.out" | tr '\n' ' ')]"
else
    check "groupby: every kernel found $(answers "$work/groupby.out") (groups, checksum), as on x86_64"
fi

JOIN=(join --build-keys 20000 --probe-rows 200000 --miss-rate 0.1 --runs 1)
run join "${JOIN[@]}"
"$reference" "${JOIN[@]}" > "$work/join-x86.out" 2>&1
sums() { grep "^exact sums" "$1" || true; }
grep -q "^checked: every run of every kernel" "$work/join.out" || fail "join printed no checks"
if [ -z "$(sums "$work/join.out")" ] || [ "$(sums "$work/join.out")" != "$(sums "$work/join-x86.out")" ]; then
    fail "join sums differ: aarch64 [$(sums "$work/join.out")] x86_64 [$(sums "$work/join-x86.out")]"
else
    check "join: $(sums "$work/join.out"), as on x86_64"
fi

# serve: the front end built in (or none: then the page is not there to check), port chosen by
# the system; the URL comes from its first line.
"$reference" ladder --min 16KiB --max 64KiB --json "$work/report.json" >/dev/null 2>&1
(cd "$work" && exec qemu-aarch64-static "$arm" serve --port 0 --report report.json > serve.out 2>&1) &
server=$!
url=""
for _ in $(seq 100); do
    url=$(sed -n 's/.* at \(http:[^ ]*\).*/\1/p' "$work/serve.out" | head -1)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.2
done
if [ -z "$url" ]; then
    fail "serve printed no URL in 20 s or exited: $(cat "$work/serve.out")"
else
    hostport=${url#http://}; hostport=${hostport%/}
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
    printf 'GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$hostport" >&3
    page=$(cat <&3)
    exec 3<&-
    if [[ "$page" == "HTTP/1.1 200 OK"* && "$page" == *"<title>memwall"* ]]; then
        check "serve: GET / answered 200 with the page ($(printf '%s' "$page" | wc -c) bytes)"
    else
        fail "serve: GET / answered: $(printf '%s' "$page" | head -3)"
    fi
fi
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
server=""

[ "$failures" = 0 ] || { echo "check-aarch64: $failures failed" >&2; exit 1; }
check "all passed"
