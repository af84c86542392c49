#!/usr/bin/env bash
# Installs what memwall needs beyond the Rust toolchain, idempotently: each step checks first and
# does nothing when the right version is already there. Tools go to .tools/ (ignored by git);
# only the browsers (Chromium, Firefox ESR, WebKitGTK) and Xvfb come from the system's package manager.
#
#   scripts/setup.sh          what building the web front end needs (wasm target, trunk,
#                             wasm-bindgen, wasm-opt); the native memwall needs only Rust.
#                             scripts/run.sh calls it after measuring, so it never delays figures
#   scripts/setup.sh --test   also what the tests need (rustfmt, clippy, Chromium, chromedriver,
#                             Firefox ESR, geckodriver, WebKitGTK's WebKitWebDriver and Xvfb,
#                             e2e npm packages, Prometheus)
#   scripts/setup.sh --release  also what scripts/release.sh needs: the two musl targets, Debian's
#                             musl and aarch64 cross tools, and qemu-user-static for the checks
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/.tools
export PATH="$TOOLS/bin:$TOOLS/npm/node_modules/.bin:$PATH"

TRUNK_VERSION=0.21.14        # 0.22 needs a newer rustc than this toolchain
GECKODRIVER_VERSION=0.37.1   # drives Firefox ESR for the e2e checks in a second engine
want_test=false
want_release=false
[ "${1:-}" = "--test" ] && want_test=true
[ "${1:-}" = "--release" ] && want_release=true

say() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }
# Installs run without --quiet: cargo's and npm's own progress is what shows the wait is moving.
started=0
begin() { say "$*"; started=$SECONDS; }
took() { say "$1 in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s"; }

# The tools are built to run a few builds and tests, not to be fast themselves: without trunk's
# own release profile (fat LTO in one codegen unit), at opt-level 1, with no TLS (they never
# download: Trunk.toml is offline, the test runner is given its chromedriver) and sharing one
# build folder, the three build in 14 min on a 2-vCPU Zen 3 guest (trunk 8.3, wasm-bindgen-cli
# 3.3, geckodriver 2.3), where trunk alone took about 15 before; wasm-bindgen runs as fast.
install_tool() {
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
        CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_TARGET_DIR="$TOOLS/build" \
        cargo install --root "$TOOLS" --locked "$@"
}

# Installs those of the named Debian packages that dpkg does not record as installed (one removed
# with its configuration left behind counts as missing), without their recommends; `why` says
# what they are for.
apt_install_missing() {
    local why=$1 package missing=()
    shift
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    begin "installing ${missing[*]} from the system's packages ($why; about a minute)"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    # A fresh VM's first minutes often hold dpkg's lock (unattended-upgrades, another install):
    # wait for it (up to 10 minutes) instead of failing at once.
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
    took "installed ${missing[*]}"
}

# The version checks below let grep read all a tool's output (no -q): with pipefail, grep -q
# quitting at its first match can kill the tool with SIGPIPE and fail the check at random.

# wasm-bindgen-cli must be exactly the wasm-bindgen that Cargo.lock resolved.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$WASM_BINDGEN_VERSION" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    begin "adding the wasm32-unknown-unknown target (a download, under a minute)"
    rustup target add wasm32-unknown-unknown
    took "added the wasm32 target"
fi

if ! "$TOOLS/bin/trunk" --version 2>/dev/null | grep "trunk $TRUNK_VERSION" >/dev/null; then
    begin "installing trunk $TRUNK_VERSION into .tools: compiled from source, ~8 minutes on 2 cores, once"
    install_tool trunk --version "$TRUNK_VERSION" --no-default-features
    took "installed trunk"
fi

if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep "wasm-bindgen $WASM_BINDGEN_VERSION" >/dev/null; then
    begin "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION into .tools: compiled from source, ~3 minutes on 2 cores, once"
    install_tool wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features
    took "installed wasm-bindgen-cli"
fi

# wasm-opt for trunk's release build: npm's binaryen (Debian's and the wasm-opt crate's are too
# old for wasm-bindgen's output). Trunk.toml asks for exactly version 132.
BINARYEN_VERSION=132.0.0
if ! "$TOOLS/npm/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep "version ${BINARYEN_VERSION%%.*}" >/dev/null; then
    begin "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into .tools/npm: a download, under a minute"
    mkdir -p "$TOOLS/npm"
    npm install --no-audit --no-fund --prefix "$TOOLS/npm" "binaryen@$BINARYEN_VERSION" >&2
    took "installed wasm-opt"
fi

# trunk builds offline; everything cargo needs must be in the local registry cache first.
cargo fetch --locked --quiet

if $want_test; then
    for component in rustfmt clippy; do
        if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
            say "adding the $component component (the tests lint and check formatting)"
            rustup component add "$component"
        fi
    done
    if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
        begin "installing Chromium and chromedriver from the system's packages (about a minute)"
        SUDO=""
        [ "$(id -u)" = 0 ] || SUDO=sudo
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
        took "installed Chromium"
    fi
    # The second engine: Debian's Firefox ESR, driven over WebDriver by geckodriver (from
    # crates.io; Debian 12 does not package it, and GitHub's binaries cannot be downloaded).
    if ! command -v firefox-esr >/dev/null; then
        begin "installing Firefox ESR from the system's packages (about a minute)"
        SUDO=""
        [ "$(id -u)" = 0 ] || SUDO=sudo
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends firefox-esr >/dev/null
        took "installed Firefox ESR"
    fi
    # The third engine: WebKit (Safari's engine) as Debian packages it, WebKitGTK with its
    # WebDriver (webkit2gtk-driver: /usr/bin/WebKitWebDriver), run on a virtual X display (xvfb:
    # Xvfb and xvfb-run), since WebKitGTK has no headless mode. Checked per package, as dpkg
    # records it: a package removed but its config left behind reads as missing.
    apt_install_missing "WebKit for the e2e checks" webkit2gtk-driver xvfb
    # A real Prometheus for `memwall watch --listen`'s test (native/tests/cli_exporter.rs): Debian's
    # package, for its binary only; the test starts its own on a loopback port with a data folder of
    # its own, never the service the package may enable.
    if ! command -v prometheus >/dev/null; then
        begin "installing Prometheus from the system's packages (under a minute)"
        SUDO=""
        [ "$(id -u)" = 0 ] || SUDO=sudo
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
        took "installed Prometheus"
    fi
    if ! "$TOOLS/bin/geckodriver" --version 2>/dev/null | grep "geckodriver $GECKODRIVER_VERSION" >/dev/null; then
        begin "installing geckodriver $GECKODRIVER_VERSION into .tools: compiled from source, ~2 minutes on 2 cores, once"
        install_tool geckodriver --version "$GECKODRIVER_VERSION"
        took "installed geckodriver"
    fi
    if [ -f e2e/package-lock.json ] && ! (cd e2e && npm ls --silent >/dev/null 2>&1); then
        say "installing the e2e test's npm packages (playwright-core drives the system Chromium)"
        (cd e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --silent --no-audit --no-fund)
    fi
fi
if $want_release; then
    for target in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
        if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
            begin "adding the $target target (a download, under a minute)"
            rustup target add "$target"
            took "added $target"
        fi
    done
    # Debian 12's packages, each named (recommends are not installed, so a package that gcc only
    # recommends must be here too): musl-tools (musl-gcc, for the C in x86_64 builds),
    # gcc-aarch64-linux-gnu (the aarch64 linker and C compiler) with binutils-aarch64-linux-gnu
    # (its objcopy) and libc6-dev-arm64-cross (the C headers zstd-sys and others compile
    # against: without it, `bits/libc-header-start.h: No such file or directory`),
    # qemu-user-static (qemu-aarch64-static runs the result) and file (checks what was linked).
    release_packages=(musl-tools gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross
        qemu-user-static file)
    apt_install_missing "the cross tools" "${release_packages[@]}"
fi
# The tools' shared build folder is only needed while one of them is missing.
rm -rf "$TOOLS/build"
say "ready"
