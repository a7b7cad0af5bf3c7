#!/usr/bin/env bash
# Builds every file a release uploads that this machine can build into one
# folder, target/dist/, and checks each where its users would install it:
#
#   md5x-V.tar.gz          the Python sdist (`maturin sdist`, as it makes
#                          it), installed with pip into a fresh
#                          venv from the tarball alone, then the test suite it
#                          carries run against it
#   md5x-V-cp311-abi3-manylinux2014_x86_64...whl
#   md5x-V-cp311-abi3-manylinux2014_aarch64...whl
#   md5x-V-cp311-abi3-musllinux_1_2_x86_64.whl
#                          built from the unpacked sdist with `maturin build
#                          --zig` (zig from the ziglang PyPI package links
#                          against glibc 2.17 or musl: no Docker, no
#                          manylinux image), each checked by `auditwheel
#                          show` (the platform tag it claims, so no library
#                          outside the policy); the x86_64 manylinux one
#                          installed with `pip install --no-index` into a
#                          fresh venv whose PATH has no cargo or rustc, and
#                          the whole pytest suite run against it from a copy
#                          outside the source tree; the aarch64 one run
#                          under qemu-aarch64 by Debian's arm64 CPython 3.11
#                          (ci/wheel_smoke.py against hashlib); the musllinux
#                          one audited here, and run by ci/musl-python.sh in
#                          a musl CPython it builds (too slow for CI)
#   md5x-block-V.crate, md5x-testkit-V.crate, md5x-V.crate, md5sum-rs-V.crate
#                          the crates.io uploads, in publish order, from
#                          ci/package.sh (its dry runs, unpacked tests and
#                          dependents), each carrying both licence files
#   SHA256SUMS             of the files above
#
# and checks .github/workflows/release.yml, which builds the rest (macOS,
# Windows, Linux aarch64 musl) and uploads on a version tag, against
# GitHub's workflow schema.
#
# Usage: ci/release.sh [--ci] [--reuse-crates]
#   --ci            what .ci/run needs on every change: the sdist, the
#                   x86_64 manylinux wheel built from it, audited and
#                   installed without Rust (ci/python.sh then runs the test
#                   suite against that file), the crates and the workflow;
#                   the aarch64 and musllinux wheels and pip building the
#                   sdist are left to ci/full.sh, the whole script
#   --reuse-crates  take the .crate files ci/package.sh left in
#                   target/package (.ci/run runs it just before) instead of
#                   running it again
#
# Idempotent: tools go to a venv in target/release-tools, Rust builds to
# target/ (one folder for every stable build), downloads to
# target/release-wheelhouse; target/dist is made anew. Each step prints its
# time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

REUSE_CRATES=0
CI=0
for arg in "$@"; do
    case $arg in
    --reuse-crates) REUSE_CRATES=1 ;;
    --ci) CI=1 ;;
    *)
        echo "ci/release.sh: unknown argument '$arg'" >&2
        exit 2
        ;;
    esac
done

DIST=$root/target/dist
TOOLS=$root/target/release-tools
WHEELHOUSE=$root/target/release-wheelhouse
WORK=$root/target/release-work
# Versions this script was proven with; the workflow takes the same.
TOOL_PINS=(maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2 check-jsonschema==0.39.0)

. "$root/ci/step.sh"
fail() {
    echo "ci/release.sh: FAIL: $*" >&2
    exit 1
}

# single LINES: true if LINES is one non-empty line (one file found).
single() {
    [ -n "$1" ] && [ "$(wc -l <<<"$1")" = 1 ]
}

apt_wait() {
    while fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock >/dev/null 2>&1; do
        sleep 5
    done
}

# --- tools -----------------------------------------------------------------

step "tools: maturin, zig, auditwheel, check-jsonschema (venv); Rust targets; qemu-aarch64"
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt_wait
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv
fi
[ -x "$TOOLS/bin/python" ] || python3 -m venv "$TOOLS"
"$TOOLS/bin/python" -m pip install -q "${TOOL_PINS[@]}"
export PATH=$TOOLS/bin:$PATH
for t in x86_64-unknown-linux-musl aarch64-unknown-linux-gnu; do
    grep -qx "$t" <<<"$(rustup target list --installed)" || rustup target add "$t"
done
# musl's libc, which auditwheel reads to audit the musllinux wheel.
MUSL_LIB=/usr/lib/x86_64-linux-musl
if [ ! -f "$MUSL_LIB/libc.so" ]; then
    apt_wait
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q musl
fi
# qemu-user (and the aarch64 target) as ci/cross.sh installs them.
[ "$CI" = 1 ] || bash ci/cross.sh --install-only aarch64 >/dev/null
maturin --version
python3 -m ziglang version

# --- the sdist ---------------------------------------------------------------

step "sdist (maturin sdist)"
rm -rf "$DIST" "$WORK"
mkdir -p "$DIST" "$WORK"
maturin sdist --manifest-path python/Cargo.toml --out "$DIST"
SDIST=$(find "$DIST" -name 'md5x-*.tar.gz')
# No folder of it both a crate and a Python package, which would put Rust
# sources into the wheel.
both=$(tar -tzf "$SDIST" | awk -F/ '
    /\/Cargo\.toml$/ { sub(/\/Cargo\.toml$/, ""); crate[$0] = 1 }
    /\/__init__\.py$/ { sub(/\/__init__\.py$/, ""); py[$0] = 1 }
    END { for (d in py) if (d in crate) print d }')
[ -z "$both" ] || fail "a crate and a Python package share a folder of the sdist: $both"
SDIST_NAME=$(basename "$SDIST" .tar.gz) # md5x-V
VERSION=${SDIST_NAME#md5x-}
# --touch: the sdist dates every file 2006 (maturin's fixed time), so kept
# dates would leave cargo's build of the last sdist, unpacked to this same
# path, looking fresh after a change.
tar -xzf "$SDIST" -C "$WORK" --touch
SRC=$WORK/$SDIST_NAME
for f in LICENSE-MIT LICENSE-APACHE python/tests/conftest.py; do
    [ -f "$SRC/$f" ] || fail "the sdist lacks $f"
done

# --- wheels ------------------------------------------------------------------

# build_wheel TRIPLE COMPATIBILITY PLATFORM_TAG: a wheel from the unpacked
# sdist, audited; prints nothing else on stdout but its path.
build_wheel() {
    local triple=$1 compat=$2 tag=$3 wheel ldpaths
    (cd "$SRC" && CARGO_TARGET_DIR=$root/target maturin build --release --zig \
        --target "$triple" --compatibility "$compat" --out "$DIST") >&2
    wheel=$(find "$DIST" -name "md5x-$VERSION-cp311-abi3-*$tag*.whl")
    single "$wheel" || fail "no single $tag wheel in $DIST"
    # For musl, auditwheel reads musl's libc.so (Debian's musl), not glibc's
    # linker script of that name, which it cannot parse.
    ldpaths=()
    [[ $tag != musllinux* ]] || ldpaths=(--ldpaths "$MUSL_LIB")
    auditwheel show --json "${ldpaths[@]}" "$wheel" >"$WORK/audit.json"
    python3 - "$WORK/audit.json" "$tag" >&2 <<'AUDIT'
import json, sys
report, tag = json.load(open(sys.argv[1])), sys.argv[2]
print("auditwheel:", json.dumps(report))
if report["overall_tag"] == tag:
    sys.exit(0)
# auditwheel knows musl's libc by Alpine's name, libc.musl-<arch>.so.1;
# musl toolchains elsewhere (zig, rust-musl-cross) name it libc.so, which
# musl's loader, as any libc.* name, resolves to itself.
if tag.startswith("musllinux") and report["sym_tag"] == tag and set(report["external_libs"]) == {"libc.so"}:
    print(f"auditwheel: {tag}, musl's libc named libc.so")
    sys.exit(0)
sys.exit(f"auditwheel finds the wheel {report['overall_tag']}, not {tag}")
AUDIT
    for f in LICENSE-MIT LICENSE-APACHE; do
        grep -q "dist-info/licenses/$f " <<<"$(python3 -m zipfile -l "$wheel")" || fail "$wheel lacks $f"
    done
    echo "$wheel"
}

step "wheel: manylinux2014 x86_64 (maturin --zig), auditwheel"
WHEEL_X86=$(build_wheel x86_64-unknown-linux-gnu manylinux2014 manylinux_2_17_x86_64)
if [ "$CI" = 0 ]; then
    step "wheel: manylinux2014 aarch64 (maturin --zig), auditwheel"
    WHEEL_ARM=$(build_wheel aarch64-unknown-linux-gnu manylinux2014 manylinux_2_17_aarch64)
    step "wheel: musllinux_1_2 x86_64 (maturin --zig), auditwheel"
    build_wheel x86_64-unknown-linux-musl musllinux_1_2 musllinux_1_2_x86_64 >/dev/null
fi

# --- the Python tests, against what was installed ------------------------------

# --ci installs md5x alone (its smoke test needs nothing else); the suite
# runs in ci/python.sh, against the same file.
EXTRAS="[test]"
[ "$CI" = 0 ] || EXTRAS=
step "wheelhouse: the test suite's dependencies and maturin, as wheels"
[ "$CI" = 1 ] || mapfile -t NEEDS < <(python3 -c '
import sys, tomllib
p = tomllib.load(open(sys.argv[1], "rb"))
print(*p["project"]["optional-dependencies"]["test"], *p["build-system"]["requires"], sep="\n")
' "$SRC/pyproject.toml")
[ "$CI" = 1 ] || python3 -m pip download -q --only-binary=:all: -d "$WHEELHOUSE" "${NEEDS[@]}"
mkdir -p "$WHEELHOUSE"

# fresh_venv DIR: a new venv with pip, from the machine's python3.
fresh_venv() {
    rm -rf "$1"
    python3 -m venv "$1"
}

# run_suite VENV FROM: the pytest suite of the sdist's python/tests, copied
# with the README its examples come from into a folder of their own, run by
# VENV's python; md5x must be VENV's.
run_suite() {
    local venv=$1 copy
    copy=$(mktemp -d "$WORK/suite.XXXX")
    cp -r "$SRC/python/tests" "$copy/tests"
    cp "$SRC/python/README.md" "$copy/README.md"
    (cd "$copy/tests" && "$venv/bin/python" - "$venv" <<'EOF'
import pathlib, sys, md5x
where = pathlib.Path(md5x.__file__).resolve()
print("md5x", md5x.__version__, "from", where)
assert where.is_relative_to(pathlib.Path(sys.argv[1]).resolve()), "md5x is not the venv's"
EOF
    )
    (cd "$copy/tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider)
    (cd "$copy" && "$venv/bin/python" "$root/ci/wheel_smoke.py" "$venv")
}

step "the manylinux x86_64 wheel: pip install --no-index, no cargo or rustc on PATH, pytest (--ci: a smoke test)"
VENV=$WORK/venv-wheel
fresh_venv "$VENV"
NO_RUST_PATH=$VENV/bin:/usr/local/bin:/usr/bin:/bin
for tool in cargo rustc; do
    if PATH=$NO_RUST_PATH command -v "$tool" >/dev/null; then
        fail "$tool is on $NO_RUST_PATH"
    fi
done
env -u CARGO_HOME -u RUSTUP_HOME PATH="$NO_RUST_PATH" "$VENV/bin/python" -m pip install -q \
    --no-index --find-links "$WHEELHOUSE" "md5x$EXTRAS @ file://$WHEEL_X86"
if [ "$CI" = 1 ]; then
    (cd "$WORK" && PATH=$NO_RUST_PATH "$VENV/bin/python" "$root/ci/wheel_smoke.py" "$VENV")
else
    PATH=$NO_RUST_PATH run_suite "$VENV"
fi

if [ "$CI" = 0 ]; then
    step "the sdist alone: pip install md5x-$VERSION.tar.gz into a fresh venv (builds it), pytest"
    VENV=$WORK/venv-sdist
    fresh_venv "$VENV"
    CARGO_TARGET_DIR=$root/target "$VENV/bin/python" -m pip install -q \
        --no-index --find-links "$WHEELHOUSE" "md5x[test] @ file://$SDIST"
    run_suite "$VENV"

    # --- aarch64 under qemu --------------------------------------------------------

    step "the manylinux aarch64 wheel under qemu-aarch64: Debian's arm64 CPython 3.11, against hashlib"
    # Debian's own packages, unpacked into a root that qemu-aarch64 -L serves
    # the loader and libraries from; the wheel unpacked into a folder on
    # PYTHONPATH (a wheel is a zip of its installed files).
    SYSROOT=$root/target/release-aarch64-root
    DEBS=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 libexpat1 zlib1g libssl3
        libffi8 libgcc-s1)
    if [ ! -x "$SYSROOT/usr/bin/python3.11" ]; then
        if ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
            dpkg --add-architecture arm64
        fi
        apt_wait
        apt-get update -qq
        rm -rf "$SYSROOT.debs" "$SYSROOT"
        mkdir -p "$SYSROOT.debs" "$SYSROOT"
        (cd "$SYSROOT.debs" && apt-get download -qq -o APT::Sandbox::User=root "${DEBS[@]/%/:arm64}")
        for deb in "$SYSROOT.debs"/*.deb; do
            dpkg -x "$deb" "$SYSROOT"
        done
    fi
    SITE=$WORK/aarch64-site
    rm -rf "$SITE"
    python3 -m zipfile -e "$WHEEL_ARM" "$SITE"
    (cd "$WORK" && PYTHONPATH=$SITE qemu-aarch64 -L "$SYSROOT" "$SYSROOT/usr/bin/python3.11" \
        "$root/ci/wheel_smoke.py" "$SITE")
fi

# --- crates ----------------------------------------------------------------------

step "crates: md5x-block, md5x-testkit, md5x, md5sum-rs (ci/package.sh: dry runs, unpacked tests, dependents)"
[ "$REUSE_CRATES" = 1 ] || bash ci/package.sh
for name in md5x-block md5x-testkit md5x md5sum-rs; do
    crate=$(find target/package -maxdepth 2 -name "$name-[0-9]*.crate" -not -path '*/tmp-registry/*')
    single "$crate" || fail "no single $name .crate in target/package"
    [ "$(basename "$crate")" = "$name-$VERSION.crate" ] || fail "$crate: not version $VERSION of the sdist"
    cp "$crate" "$DIST/"
done
for crate in target/package/*.crate target/package/tmp-crate/*.crate; do
    [ -f "$crate" ] || continue
    for f in LICENSE-MIT LICENSE-APACHE; do
        grep -qx "[^/]*/$f" <<<"$(tar -tzf "$crate")" || fail "$crate lacks $f"
    done
done

# --- the workflow --------------------------------------------------------------

step "the release workflow against GitHub's schema (check-jsonschema, offline)"
check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/release.yml

step "the artifacts"
(cd "$DIST" && sha256sum -- * >SHA256SUMS && stat -c '%9s  %n' -- *)
step
