#!/usr/bin/env bash
# The main job, measuring first: build the native memwall and measure this host with `memwall run`
# (host info, latency ladder, GROUP BY race) into memwall-report.json; only then install what the
# web front end needs and build it, so the report can be opened in the page. On a fresh machine
# the first figures come after the native build (minutes), not after the web tools' ~20 minutes.
# Extra arguments go to `memwall run` (see `memwall run --help`); with --serve, the page is served
# once the front end is built.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${CARGO_TARGET_DIR:-target}/release/memwall"
say() { printf '\033[1mrun:\033[0m %s\n' "$*" >&2; }

# --serve waits for the web front end, which is built after the measurement: `memwall run` must
# not serve (it would find no bundle on a first run), so it is taken out here and done last.
serve=false
out=memwall-report.json
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --serve) serve=true ;;
        # Help and version are all the user asked for: nothing to build the front end for.
        -h|--help|-V|--version) cargo build --release --locked --quiet -p memwall; exec "$BIN" run "$1" ;;
        --out) args+=("$1"); [ $# -gt 1 ] && { out=$2; args+=("$2"); shift; } ;;
        --out=*) out=${1#--out=}; args+=("$1") ;;
        *) args+=("$1") ;;
    esac
    shift
done

if [ -x "$BIN" ]; then
    say "building memwall (native, release; only what changed)"
else
    say "building memwall (native, release; the first build takes a few minutes)"
fi
cargo build --release --locked -p memwall
"$BIN" run ${args[@]+"${args[@]}"}

say "measured: the report is $out. Now preparing the web front end to look at it in the page"
say "(installs missing tools once, up to ~20 minutes on 2 cores; Ctrl-C skips it, the report stays)"
scripts/setup.sh
export PATH="$PWD/.tools/bin:$PWD/.tools/npm/node_modules/.bin:$PATH"
say "building the web front end into dist/ (trunk build --release; a few minutes the first time)"
TRUNK_SKIP_VERSION_CHECK=true trunk build --release >&2
if $serve; then
    exec "$BIN" serve --report "$out"
fi
say "done. To look at the report in the page: $BIN serve --report $out  (then open http://127.0.0.1:8417)"
