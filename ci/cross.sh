#!/usr/bin/env bash
# Runs the library's whole test suite (unit, integration and doc tests) on
# other architectures under qemu-user, so every backend is tested on the
# instruction set it is written for:
#
#   aarch64       aarch64-unknown-linux-gnu, qemu: the aarch64-asm backend
#   aarch64-soft  the same with `--features force-soft`: soft on aarch64
#   loongarch64   loongarch64-unknown-linux-musl, nightly -Zbuild-std, qemu
#                 (la464): the loongarch64-asm backend
#   s390x         s390x-unknown-linux-gnu, qemu: big-endian, soft
#   i686          i686-unknown-linux-gnu, native: 32-bit, soft
#
# `aarch64` also tests the packages under compat/ (md-5 0.11, md5 0.7 and
# 0.8), and `s390x` the md5 0.8 package (big-endian), which compile the same
# backend sources.
#
# With --release the unit and integration tests (no doc tests) build in
# the release profile as a dependent would push it: `lto = "fat"`,
# `codegen-units = 1` and `-Cforce-frame-pointers=yes`, where the asm
# backends have the fewest registers (a frame pointer taken, and inlined
# into callers that need one), in target/release-fp (ci/targets.sh's, for
# the same RUSTFLAGS; target/nightly-release-fp for loongarch64).
#
# --ci, what .ci/run runs on every change: tests/md5.rs and tests/multi.rs
# only (every length and random pieces against upstream md-5 and the soft
# backend, every kernel against single-stream digests), and no compat
# package (they compile the same backend sources). --probe-only, with
# --release: only ci/profile-probe.
# ci/full.sh runs the whole form.
#
# Usage: ci/cross.sh [--install-only] [--ci] [--release [--probe-only]] [TARGET...]
#        (default: all targets)
#
# It first installs whatever the chosen targets lack (rustup targets, Debian
# cross compilers, qemu-user 10 from bookworm-backports, the `ziglang` PyPI
# package for the loongarch64 musl linker); every step checks before it
# installs, so a rerun installs nothing. Builds go to target/ (stable),
# target/nightly (loongarch64's -Zbuild-std), which a rerun reuses. Each test run prints the target and `md5::backend()`, and
# `tests/md5.rs::backend_is_the_expected_one` fails when a target falls back
# to a backend it should not use.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
ALL_TARGETS=(aarch64 aarch64-soft loongarch64 s390x i686)
INSTALL_ONLY=0
RELEASE=0
CI=0
PROBE_ONLY=0
TARGETS=()
for arg in "$@"; do
    case $arg in
    --install-only) INSTALL_ONLY=1 ;;
    --release) RELEASE=1 ;;
    --ci) CI=1 ;;
    --probe-only) PROBE_ONLY=1 ;;
    aarch64 | aarch64-soft | loongarch64 | s390x | i686) TARGETS+=("$arg") ;;
    -h | --help)
        sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "ci/cross.sh: unknown target '$arg' (known: ${ALL_TARGETS[*]})" >&2
        exit 2
        ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

log() { printf '\n=== %s\n' "$*"; }

# --- installation -----------------------------------------------------------

APT_UPDATED=0
apt_wait() {
    while fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock >/dev/null 2>&1; do
        sleep 5
    done
}

# Adds bookworm-backports for the mirror the machine's sources already use.
ensure_backports() {
    if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        return
    fi
    local mirror
    mirror=$(grep -rhs -E '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
        /etc/apt/sources.list.d/*.list 2>/dev/null |
        grep -o -E 'https?://[^ ]*/debian/?' | grep -v security | head -n1 || true)
    mirror=${mirror:-http://deb.debian.org/debian}
    log "adding bookworm-backports ($mirror)"
    echo "deb ${mirror%/} bookworm-backports main" >/etc/apt/sources.list.d/bookworm-backports.list
    APT_UPDATED=0
}

apt_update_once() {
    ensure_backports # before the one update, so that it fetches backports too
    if [ "$APT_UPDATED" = 0 ]; then
        apt_wait
        apt-get update -qq
        APT_UPDATED=1
    fi
}

# apt_install [-t RELEASE] PKG...: installs the packages that are missing.
apt_install() {
    local release=()
    if [ "$1" = -t ]; then
        release=(-t "$2")
        shift 2
    fi
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    log "apt-get install ${missing[*]}"
    apt_update_once
    apt_wait
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${release[@]}" "${missing[@]}" >/dev/null
}

# qemu-user 10 (bookworm-backports): bookworm's 7.2 dies with SIGILL on
# loongarch64 binaries that use LSX. The other targets run on either.
ensure_qemu() {
    local bin=$1 need_major=${2:-0} have
    if command -v "$bin" >/dev/null; then
        have=$("$bin" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
        [ "${have:-0}" -ge "$need_major" ] && return 0
    fi
    # Fetch the backports list if it never was, even after an earlier update.
    ls /var/lib/apt/lists/ | grep -q bookworm-backports || APT_UPDATED=0
    apt_update_once
    apt_wait
    log "apt-get install -t bookworm-backports qemu-user"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        -t bookworm-backports qemu-user >/dev/null
}

# For the toolchain that `cargo` runs here (the default, or a pinned one).
ensure_rust_target() {
    if ! rustup target list --installed | grep -qx "$1"; then
        log "rustup target add $1"
        rustup target add "$1"
    fi
}

ZIG_CC=$ROOT/target/cross-tools/loongarch64-musl-cc
ensure_zig_cc() {
    if ! python3 -c 'import ziglang' 2>/dev/null; then
        log "pip install ziglang"
        python3 -m pip install -q ziglang
    fi
    mkdir -p "$(dirname "$ZIG_CC")"
    # rustc passes gcc-style flags; zig cc takes them, and links its own
    # static musl. With -Zbuild-std the sysroot has no library directory for
    # the target; drop such -L arguments, which zig would warn about.
    cat >"$ZIG_CC.tmp" <<'EOF'
#!/usr/bin/env python3
import os, sys
args, out = sys.argv[1:], []
while args:
    arg = args.pop(0)
    if arg == "-L" and args:
        arg += args.pop(0)
    if arg.startswith("-L") and not os.path.isdir(arg[2:]):
        continue
    out.append(arg)
cmd = [sys.executable, "-m", "ziglang", "cc", "-target", "loongarch64-linux-musl"]
os.execv(sys.executable, cmd + out)
EOF
    chmod +x "$ZIG_CC.tmp"
    mv "$ZIG_CC.tmp" "$ZIG_CC"
}

install_for() {
    case $1 in
    aarch64 | aarch64-soft)
        ensure_rust_target aarch64-unknown-linux-gnu
        apt_install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
        ensure_qemu qemu-aarch64
        ;;
    loongarch64)
        if ! rustup toolchain list | grep -q '^nightly'; then
            log "rustup toolchain install nightly"
            rustup toolchain install nightly --profile minimal --component rust-src
        fi
        if ! rustup component list --toolchain nightly --installed | grep -q '^rust-src'; then
            log "rustup component add rust-src --toolchain nightly"
            rustup component add rust-src --toolchain nightly
        fi
        ensure_qemu qemu-loongarch64 10
        ensure_zig_cc
        ;;
    s390x)
        ensure_rust_target s390x-unknown-linux-gnu
        apt_install gcc-s390x-linux-gnu libc6-dev-s390x-cross
        ensure_qemu qemu-s390x
        ;;
    i686)
        ensure_rust_target i686-unknown-linux-gnu
        # A cross gcc, not gcc-multilib: Debian's gcc-multilib conflicts
        # with (removes) the other cross compilers. libc6-i386 lets the host
        # run the binaries natively, and lib32gcc-s1 gives them the libgcc_s
        # that unwinding (the tests' catch_unwind) loads.
        apt_install gcc-i686-linux-gnu libc6-dev-i386-cross libc6-i386 lib32gcc-s1
        ;;
    esac
}

for t in "${TARGETS[@]}"; do
    install_for "$t"
done
[ "$INSTALL_ONLY" = 0 ] || exit 0

# --- tests ------------------------------------------------------------------

PROFILE=()
# The library's three packages: md-5's tests run md5x through its name,
# md5x's and md5x-block's unit tests run the kernels and backends.
SUITE=(--workspace --exclude md5sum-rs --exclude md5x-testkit)
SUFFIX=
if [ "$RELEASE" = 1 ]; then
    PROFILE=(--release)
    # The doc tests are examples, run by the debug runs; linked one by one
    # with fat LTO and run under qemu they took minutes, and they reach no
    # asm that the unit and integration tests do not.
    SUITE+=(--lib --tests)
    SUFFIX=-release
    export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
    export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Cforce-frame-pointers=yes"
elif [ "$CI" = 1 ]; then
    SUITE=(--test md5 --test multi)
fi

# cargo_test TRIPLE [CARGO ARGS...]: runs the suite, then prints the backend
# the build selected (the backend test asserts it; this puts it in the log).
cargo_test() {
    local triple=$1
    shift
    if [ "$PROBE_ONLY" = 1 ]; then
        log "ci/profile-probe --target $triple ${PROFILE[*]} $*"
        "${CARGO[@]}" run -q --manifest-path ci/profile-probe/Cargo.toml --target "$triple" \
            --target-dir "$TARGET_DIR" "${PROFILE[@]}" "$@"
        return
    fi
    log "cargo test --target $triple ${PROFILE[*]} ${SUITE[*]} $*"
    "${CARGO[@]}" test --target "$triple" --target-dir "$TARGET_DIR" "${PROFILE[@]}" "${SUITE[@]}" "$@"
    local backend
    backend=$("${CARGO[@]}" test -q --target "$triple" --target-dir "$TARGET_DIR" "${PROFILE[@]}" "$@" --test md5 \
        backend_is_the_expected_one -- --nocapture 2>&1 |
        sed -n 's/^md5::backend() = //p')
    echo "target: $triple ${PROFILE[*]:+${PROFILE[*]} }${*:+($*) }backend: ${backend:?no backend line}"
    if [ "$RELEASE" = 1 ] && [[ " $* " != *" --features "* ]]; then
        # A dependent with its own `lto = "fat"` release profile.
        log "ci/profile-probe --target $triple ${PROFILE[*]} $*"
        "${CARGO[@]}" run -q --manifest-path ci/profile-probe/Cargo.toml --target "$triple" \
            --target-dir "$TARGET_DIR" "${PROFILE[@]}" "$@"
    fi
}

# compat_test TRIPLE PACKAGE...: the test suites of packages under compat/,
# which compile the same backend sources. The md5 packages' 512 MiB and 4 GiB
# inputs would take minutes under qemu; the host runs them.
compat_test() {
    local triple=$1 p
    shift
    [ "$CI" = 0 ] && [ "$PROBE_ONLY" = 0 ] || return 0
    for p in "$@"; do
        [ -f "compat/$p/Cargo.toml" ] || continue
        log "compat/$p: cargo test --target $triple ${PROFILE[*]}"
        cargo test --locked --manifest-path "compat/$p/Cargo.toml" --target "$triple" \
            --target-dir "$TARGET_DIR" "${PROFILE[@]}" -- --skip write_512_mib --skip write_4_gib
    done
}

run_target() {
    local t=$1
    CARGO=(cargo)
    TARGET_DIR=target
    [ "$RELEASE" = 0 ] || TARGET_DIR=target/release-fp
    case $t in
    aarch64 | aarch64-soft)
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
        if [ "$t" = aarch64 ]; then
            cargo_test aarch64-unknown-linux-gnu
            # In release, the root package's tests and ci/profile-probe
            # already run these asm sources under that profile.
            [ "$RELEASE" = 1 ] || compat_test aarch64-unknown-linux-gnu md-5-0.11 md5-0.7 md5-0.8
        else
            cargo_test aarch64-unknown-linux-gnu --features md-5/force-soft
        fi
        ;;
    loongarch64)
        # rustup serves no std for this target: build it from rust-src.
        export CARGO_TARGET_LOONGARCH64_UNKNOWN_LINUX_MUSL_LINKER=$ZIG_CC
        export CARGO_TARGET_LOONGARCH64_UNKNOWN_LINUX_MUSL_RUNNER="qemu-loongarch64 -cpu la464"
        CARGO=(cargo +nightly)
        TARGET_DIR=target/nightly
        [ "$RELEASE" = 0 ] || TARGET_DIR=target/nightly-release-fp
        cargo_test loongarch64-unknown-linux-musl -Zbuild-std
        ;;
    s390x)
        export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
        export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu"
        cargo_test s390x-unknown-linux-gnu
        compat_test s390x-unknown-linux-gnu md5-0.8
        ;;
    i686)
        export CARGO_TARGET_I686_UNKNOWN_LINUX_GNU_LINKER=i686-linux-gnu-gcc
        cargo_test i686-unknown-linux-gnu
        ;;
    esac
}

for t in "${TARGETS[@]}"; do
    start=$SECONDS
    run_target "$t"
    echo "$t${PROFILE[*]:+ ${PROFILE[*]}}: $((SECONDS - start)) s"
done
