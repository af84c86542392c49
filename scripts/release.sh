#!/usr/bin/env bash
# Builds the release files: one static memwall per target, stripped, with the web front end
# built in, and its debug info split off beside it. From one x86_64 Debian machine, with
# Debian's cross tools (scripts/setup.sh --release installs them):
#
#   dist-release/memwall-<version>-<target>.tar.gz   the binary (memwall-<version>-<target>/memwall)
#   dist-release/memwall-<version>-<target>.debug    its debug info (objcopy --only-keep-debug)
#   dist-release/SHA256SUMS
#
#   scripts/release.sh                       both targets, the front end built by trunk first
#   scripts/release.sh --target TRIPLE       one target (repeatable)
#   scripts/release.sh --dist DIR            embed an already built front end instead
#   scripts/release.sh --check               then scripts/check-aarch64.sh on the aarch64 file
#
# `memwall --version` says the target and the commit (with -dirty when tracked files differ
# from it). See docs/release.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { printf '\033[1mrelease:\033[0m %s\n' "$*" >&2; }
die() { printf 'release: %s\n' "$*" >&2; exit 2; }

targets=()
dist=""
check=false
while [ $# -gt 0 ]; do
    case "$1" in
        --target) [ $# -gt 1 ] || die "--target needs a triple"; targets+=("$2"); shift ;;
        --dist) [ $# -gt 1 ] || die "--dist needs a folder"; dist=$2; shift ;;
        --check) check=true ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
    shift
done
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
for target in "${targets[@]}"; do
    case "$target" in
        x86_64-unknown-linux-musl|aarch64-unknown-linux-musl) ;;
        *) die "no recipe for $target (x86_64-unknown-linux-musl or aarch64-unknown-linux-musl)" ;;
    esac
done

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || die "no version in Cargo.toml's [workspace.package]"
commit=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD -- || commit="$commit-dirty"
export MEMWALL_BUILD_COMMIT=$commit
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$ROOT/$target_dir" ;; esac
out=$ROOT/dist-release
started=$SECONDS
elapsed() { echo "$(( (SECONDS - $1) / 60 )) min $(( (SECONDS - $1) % 60 )) s"; }

scripts/setup.sh --release
export PATH="$ROOT/.tools/bin:$ROOT/.tools/npm/node_modules/.bin:$PATH"

# The front end, frozen in a copy: what is embedded is exactly what was built (with the .br/.gz
# variants the Trunk.toml hook wrote), whatever happens to dist/ meanwhile.
web=$target_dir/release-web
if [ -z "$dist" ]; then
    step=$SECONDS
    say "building the web front end (trunk build --release)"
    TRUNK_SKIP_VERSION_CHECK=true trunk build --release >&2
    dist=$ROOT/dist
    say "front end built in $(elapsed "$step")"
fi
[ -f "$dist/index.html" ] || die "$dist has no index.html: not a built front end"
rm -rf "$web" && mkdir -p "$web" && cp -R "$dist/." "$web/"
rm -f "$web"/e2e-* # a file e2e/run.mjs may have left in dist/
export MEMWALL_EMBED_DIST=$web

mkdir -p "$out"
for target in "${targets[@]}"; do
    step=$SECONDS
    objcopy=objcopy
    if [ "$target" = aarch64-unknown-linux-musl ]; then
        # Debian's aarch64 gcc links (rustc brings musl's own startup files and libc) and
        # compiles the little C there is (zstd): it uses no glibc-only interface.
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc
        export CC_aarch64_unknown_linux_musl=aarch64-linux-gnu-gcc AR_aarch64_unknown_linux_musl=aarch64-linux-gnu-ar
        objcopy=aarch64-linux-gnu-objcopy
    else
        export CC_x86_64_unknown_linux_musl=musl-gcc
    fi
    say "building memwall for $target (release, front end built in)"
    cargo build --release --locked -p memwall --features embed-web --target "$target"
    built=$target_dir/$target/release/memwall
    name=memwall-$version-$target
    stage=$target_dir/release-stage/$name
    rm -rf "$stage" && mkdir -p "$stage"
    "$objcopy" --only-keep-debug --compress-debug-sections=zlib "$built" "$out/$name.debug"
    "$objcopy" --strip-all --add-gnu-debuglink="$out/$name.debug" "$built" "$stage/memwall"
    # Reproducible archives: fixed owners, order and time (the commit's).
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct)" \
        -C "$(dirname "$stage")" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"
    say "$target: $(stat -c %s "$stage/memwall") bytes stripped, built and packed in $(elapsed "$step")"
done

(cd "$out" && rm -f SHA256SUMS && sha256sum -- *.tar.gz *.debug > SHA256SUMS)

say "stamped and linked as:"
for target in "${targets[@]}"; do
    bin=$target_dir/release-stage/memwall-$version-$target/memwall
    run=()
    [ "$target" = aarch64-unknown-linux-musl ] && run=(qemu-aarch64-static)
    printf '  %s\n    %s\n    %s bytes; %s\n' "$target" "$("${run[@]}" "$bin" --version)" \
        "$(stat -c %s "$bin")" "$(file -b "$bin" | cut -d, -f1-2,5-)" >&2
done
ls -l "$out" >&2
say "done in $(elapsed "$started"): $out"
if $check && printf '%s\n' "${targets[@]}" | grep -qx aarch64-unknown-linux-musl; then
    scripts/check-aarch64.sh "$target_dir/release-stage/memwall-$version-aarch64-unknown-linux-musl/memwall"
fi
