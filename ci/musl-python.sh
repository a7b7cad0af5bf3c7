#!/usr/bin/env bash
# Runs the musllinux wheel in a musl CPython: no registry this machine
# reaches serves one (Alpine's packages are not among them), so this
# builds CPython 3.11 from Debian's source package (`apt-get source
# python3.11`, private apt lists, the system's left alone) with Debian's
# musl-gcc, dynamically linked by musl's loader (Debian's musl), and runs
# ci/wheel_smoke.py with the wheel unpacked on its PYTHONPATH. hashlib's md5
# there is CPython's own (_md5, built in), not OpenSSL's.
#
# Usage: ci/musl-python.sh [WHEEL]   (default: the musllinux wheel in
#        target/dist, from ci/release.sh)
#
# Not part of .ci/run: building CPython takes about 11 minutes on this
# 2-core machine, more than the rest of ci/release.sh. The build is kept
# in target/musl-python, so a rerun takes seconds. Exits non-zero if the
# wheel does not load or a digest differs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
wheel=${1:-$(find target/dist -name 'md5x-*-musllinux_1_2_x86_64.whl' | head -n1)}
[ -f "$wheel" ] || {
    echo "ci/musl-python.sh: no musllinux wheel; run ci/release.sh first" >&2
    exit 1
}
dir=$root/target/musl-python
python=$dir/root/bin/python3.11

need() {
    local missing=()
    for p in "$@"; do
        grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
    done
    [ ${#missing[@]} = 0 ] && return
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

if [ ! -x "$python" ]; then
    need musl musl-tools dpkg-dev
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
    # The source from the Debian mirror the machine's apt already uses.
    mirror=$(grep -rhs -E '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ |
        grep -o -E 'https?://[^ ]*/debian/?' | grep -v security | head -n1 || true)
    [ -n "$mirror" ] || {
        echo "ci/musl-python.sh: no Debian mirror in the apt sources" >&2
        exit 1
    }
    echo "deb-src ${mirror%/} bookworm main" >"$dir/src.list"
    apt=(-q -o "Dir::Etc::SourceList=$dir/src.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o APT::Sandbox::User=root)
    apt-get "${apt[@]}" update
    (cd "$dir" && apt-get "${apt[@]}" source --download-only python3.11)
    rm -rf "$dir/src"
    mkdir "$dir/src"
    tar -xzf "$(ls "$dir"/python3.11_*.orig.tar.gz)" -C "$dir/src" --strip-components=1
    # configure rejects musl-gcc, which reports the host's multiarch
    # (x86_64-linux-gnu) while compiling for musl.
    # shellcheck disable=SC2016 # the wrapper's own "$1" and "$@"
    printf '#!/bin/sh\n[ "$1" = --print-multiarch ] && exit 0\nexec musl-gcc "$@"\n' >"$dir/cc"
    chmod +x "$dir/cc"
    # The modules the smoke test imports, built in: setup.py would build
    # them shared with the host's glibc headers.
    printf '%s\n' '*static*' 'math mathmodule.c -lm' '_md5 md5module.c' '_sha1 sha1module.c' \
        '_sha256 sha256module.c' '_sha512 sha512module.c' '_random _randommodule.c' \
        '_struct _struct.c' '_bisect _bisectmodule.c' '_heapq _heapqmodule.c' \
        'select selectmodule.c' '_posixsubprocess _posixsubprocess.c' 'fcntl fcntlmodule.c' \
        'array arraymodule.c' >"$dir/src/Modules/Setup.local"
    (cd "$dir/src" && CC=$dir/cc ./configure -q --prefix="$dir/root" --without-ensurepip \
        --disable-test-modules && make -j"$(nproc)" -s && make -s install) >"$dir/build.log" 2>&1 ||
        {
            tail -n 30 "$dir/build.log" >&2
            exit 1
        }
fi

"$dir/root/bin/python3.11" -c 'import platform, sys; print(sys.version.split()[0], platform.libc_ver())'
grep -q ld-musl <<<"$(/lib/ld-musl-x86_64.so.1 --list "$python" 2>&1)" || {
    echo "ci/musl-python.sh: $python is not linked by musl's loader" >&2
    exit 1
}
site=$dir/site
rm -rf "$site"
python3 -m zipfile -e "$wheel" "$site"
# hashlib logs to stderr each algorithm it lacks here (sha3, blake2): shown
# only if the check fails.
(cd "$dir" && PYTHONPATH=$site "$python" "$root/ci/wheel_smoke.py" "$site" 2>"$dir/smoke.err") || {
    cat "$dir/smoke.err" >&2
    exit 1
}
