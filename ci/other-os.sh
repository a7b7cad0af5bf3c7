#!/usr/bin/env bash
# md5sum on other operating systems:
#
#   macOS    `cargo clippy -D warnings` (a `cargo check` plus lints) of the
#            md5sum package, all targets, for x86_64-apple-darwin and
#            aarch64-apple-darwin: it compiles there (no macOS machine here
#            to run it on);
#   Windows  the same lints for x86_64-pc-windows-gnu, then a build linked
#            with Debian's mingw-w64 whose tests (unit tests,
#            tests/portable.rs) run under Wine.
#
# Usage: ci/other-os.sh [--install-only] [macos|windows]...  (default: both)
#
# It installs what is missing first (rustup targets; Debian's
# gcc-mingw-w64-x86-64, wine and wine64), so a rerun installs nothing.
# Wine runs in its own prefix, target/wine. Debian 12's Wine 8 lacks
# bcryptprimitives.dll, which every Rust program since 1.78 imports
# (ProcessPrng); ci/wine-bcryptprimitives.c is a stand-in built into that
# prefix.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
INSTALL_ONLY=0
OSES=()
for arg in "$@"; do
    case $arg in
    --install-only) INSTALL_ONLY=1 ;;
    macos | windows) OSES+=("$arg") ;;
    -h | --help)
        sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "ci/other-os.sh: unknown argument '$arg'" >&2
        exit 2
        ;;
    esac
done
[ ${#OSES[@]} -gt 0 ] || OSES=(macos windows)

log() { printf '\n=== %s\n' "$*"; }

ensure_rust_target() {
    if ! rustup target list --installed | grep -qx "$1"; then
        log "rustup target add $1"
        rustup target add "$1"
    fi
}

apt_install() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    log "apt-get install ${missing[*]}"
    while fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock >/dev/null 2>&1; do sleep 5; done
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

export WINEPREFIX=$ROOT/target/wine WINEDEBUG=-all
STUB=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll

for os in "${OSES[@]}"; do
    case $os in
    macos)
        ensure_rust_target x86_64-apple-darwin
        ensure_rust_target aarch64-apple-darwin
        ;;
    windows)
        ensure_rust_target x86_64-pc-windows-gnu
        apt_install gcc-mingw-w64-x86-64 wine wine64
        if [ ! -f "$WINEPREFIX/system.reg" ]; then
            log "creating the Wine prefix $WINEPREFIX"
            wineboot --init >/dev/null 2>&1 || true
            wineserver -w || true
        fi
        if [ ! -f "$STUB" ] || [ "$ROOT/ci/wine-bcryptprimitives.c" -nt "$STUB" ]; then
            x86_64-w64-mingw32-gcc -O2 -shared -o "$STUB" ci/wine-bcryptprimitives.c -ladvapi32
        fi
        ;;
    esac
done
[ "$INSTALL_ONLY" = 0 ] || exit 0

for os in "${OSES[@]}"; do
    start=$SECONDS
    case $os in
    macos)
        for t in x86_64-apple-darwin aarch64-apple-darwin; do
            log "cargo clippy -p md5sum-rs --all-targets --target $t"
            cargo clippy -p md5sum-rs --all-targets --target "$t" --target-dir target -- -D warnings
        done
        ;;
    windows)
        export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
        export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
        log "cargo clippy -p md5sum-rs --all-targets --target x86_64-pc-windows-gnu"
        cargo clippy -p md5sum-rs --all-targets --target x86_64-pc-windows-gnu \
            --target-dir target -- -D warnings
        log "cargo test -p md5sum-rs --target x86_64-pc-windows-gnu (under $(wine --version))"
        # One wineserver for the whole run: one that exits between test
        # binaries while a new client connects fails that client.
        wineserver -p
        trap 'wineserver -k 2>/dev/null || true' EXIT
        cargo test -p md5sum-rs --target x86_64-pc-windows-gnu --target-dir target
        ;;
    esac
    echo "$os: $((SECONDS - start)) s"
done
