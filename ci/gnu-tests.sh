#!/usr/bin/env bash
# GNU coreutils 9.1's own md5sum tests (tests/misc/md5sum.pl,
# md5sum-bsd.sh, md5sum-newline.pl, md5sum-parallel.sh), run against this
# md5sum through coreutils' own harness: a directory holding the binary as
# `src/md5sum` stands in for coreutils' build tree, and each test gets the
# environment that coreutils' `make check` gives it.
#
# The coreutils source is fetched at run time, as Debian bookworm ships it,
# into $GNU_TESTS_DIR (default target/coreutils-src), once: a later run
# reuses it. apt's own sources, lists and caches are left untouched.
#
#   bash ci/gnu-tests.sh                        # builds md5sum, tests it
#   MD5SUM=/path/to/md5sum bash ci/gnu-tests.sh # tests that binary
#
# Exits non-zero if any test fails or is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${GNU_TESTS_DIR:-$root/target/coreutils-src}
src=$dir/coreutils-9.1
tests=(md5sum.pl md5sum-bsd.sh md5sum-newline.pl md5sum-parallel.sh)

need() {
    local missing=()
    for cmd in "$@"; do
        IFS=: read -r bin pkg <<<"$cmd"
        command -v "$bin" >/dev/null || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
}

fetch() {
    [ ! -f "$src/tests/misc/md5sum.pl" ] || return 0
    need dpkg-source:dpkg-dev perl:perl xz:xz-utils
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
    echo 'deb-src http://deb.debian.org/debian bookworm main' >"$dir/src.list"
    local apt=(-q -o "Dir::Etc::SourceList=$dir/src.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
        -o APT::Sandbox::User=root)
    apt-get "${apt[@]}" update
    (cd "$dir" && apt-get "${apt[@]}" source --download-only coreutils)
    local dsc
    dsc=$(ls "$dir"/coreutils_9.1-*.dsc | tail -1)
    # Unpacked beside its final place, so that an interrupted run is redone.
    rm -rf "$src.part"
    dpkg-source --no-check -x "$dsc" "$src.part"
    mv "$src.part" "$src"
}

fetch
need xargs:findutils
if [ -z "${MD5SUM:-}" ]; then
    cargo build -q -p md5sum-rs --manifest-path "$root/Cargo.toml"
    MD5SUM=$root/target/debug/md5sum
fi
MD5SUM=$(realpath "$MD5SUM")
[ -x "$MD5SUM" ] || { echo "gnu-tests: $MD5SUM is not an executable" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
ln -s "$MD5SUM" "$work/src/md5sum"
echo "gnu-tests: GNU coreutils 9.1's md5sum tests, against $MD5SUM"

failed=0
for t in "${tests[@]}"; do
    # What coreutils' TESTS_ENVIRONMENT sets up (tests/local.mk), with
    # $work as the build tree.
    set +e
    (
        cd "$work"
        . "$src/tests/lang-default"
        . "$src/tests/envvar-check"
        export TMPDIR=/tmp VERSION=9.1 abs_top_builddir=$work abs_top_srcdir=$src \
            abs_srcdir=$src built_programs=md5sum fail=0 host_os=linux-gnu srcdir=$src \
            top_srcdir=$src PERL=perl SHELL=/bin/sh VERBOSE=no PATH=$work/src:$PATH
        case $t in
            *.pl) perl -w -I"$src/tests" -MCuSkip -MCoreutils -M"CuTmpdir qw($t)" \
                "$src/tests/misc/$t" ;;
            *) /bin/sh "$src/tests/misc/$t" 9>&2 ;;
        esac
    ) >"$work/$t.log" 2>&1
    rc=$?
    set -e
    case $rc in
        0) echo "PASS: $t" ;;
        77) echo "SKIP: $t (counted as a failure)"; failed=1 ;;
        *) echo "FAIL: $t (exit $rc)"; failed=1 ;;
    esac
    [ $rc = 0 ] || sed 's/^/    /' "$work/$t.log"
done
exit $failed
