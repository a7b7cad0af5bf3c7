#!/usr/bin/env bash
# Patches this repository's packages into scratch dependents, as a user
# would, and checks that the swap changes nothing but md-5's (or md5's)
# source: for each line it builds a throwaway crate in a temp dir, lists its
# packages with `cargo tree --prefix none -e normal` before and after the
# `[patch.crates-io]` line and `cargo update -p NAME`, compares the lists
# (name and version of every package, the patched one by name only), prints
# `cargo tree -i NAME` to show the path source, then builds and runs the
# crate, which checks digests through the real dependent's API.
#
#   md-5 0.10  postgres-protocol 0.6.10, and md-5 alone
#   md-5 0.11  postgres-protocol 0.6.12, and md-5 alone
#   md5 0.7    md5 alone (with HEAVY=1 also `cargo check` of pdf 0.10)
#   md5 0.8    md5 alone (with HEAVY=1 also `cargo check` of rust-s3 0.37)
#
# Allowed differences, printed when they occur: every line gains md5x-block
# (the compression backends; no `digest`), md-5 0.10 gains md5x too (the
# library it re-exports); on x86 a tree holding md-5 0.10 and nothing that
# already uses `cpufeatures` gains it (md5::multi detects AVX2 at run
# time); a tree holding md5 0.7 or 0.8 and no `cfg-if` gains it (md5x-block's
# backend dispatch). Anything else fails.
#
# Usage: ci/patch-trees.sh [LINE...]   LINE: md-5-0.10 md-5-0.11 md5-0.7 md5-0.8
# Builds go to target/, as every stable build of CI does.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=$ROOT/target
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
HOST_ARCH=$(uname -m)
FAILED=0

log() { printf '\n=== %s\n' "$*"; }

# packages DIR: the sorted package list of DIR's tree for the host.
packages() {
    (cd "$1" && cargo tree -q --prefix none -e normal) | sed -e 's/ (\*)$//' | sort -u
}

# show FILE: a package list on a few lines.
show() { tr '\n' ' ' <"$1" | fold -s -w 100 | sed 's/^/    /'; echo; }

# check_line NAME DIR PATCH_PATH ALLOWED_EXTRA RUN(run|check)
check_line() {
    local name=$1 dir=$2 patch=$3 allowed=$4 mode=$5
    (cd "$dir" && cargo generate-lockfile -q)
    packages "$dir" >"$dir/before.txt"
    {
        echo
        echo "[patch.crates-io]"
        echo "$name = { path = \"$patch\" }"
    } >>"$dir/Cargo.toml"
    (cd "$dir" && cargo update -q -p "$name")
    packages "$dir" >"$dir/after.txt"
    echo "--- before ($(wc -l <"$dir/before.txt") packages):"
    show "$dir/before.txt"
    echo "--- after ($(wc -l <"$dir/after.txt") packages):"
    show "$dir/after.txt"
    # Compared with the patched package's version and source left out, but
    # not its count: a second version of it would show as an added line.
    local f added removed
    for f in before after; do
        sed "s/^$name v.*/$name/" "$dir/$f.txt" | sort >"$dir/$f.cmp"
    done
    added=$(comm -13 "$dir/before.cmp" "$dir/after.cmp")
    removed=$(comm -23 "$dir/before.cmp" "$dir/after.cmp")
    if [ -z "$added$removed" ]; then
        echo "--- the same packages but $name's version and source"
    else
        echo "--- after, added: $(echo ${added:-none}); removed: $(echo ${removed:-none})"
        local extra
        extra=$(printf '%s\n' "$added" | grep -v -x -E "${allowed:-^$}" || true)
        if [ -n "$removed" ] || [ -n "$extra" ]; then
            echo "FAIL: the patch changed more than $name's source" >&2
            FAILED=1
        else
            echo "--- allowed: $(echo $added)"
        fi
    fi
    echo "--- cargo tree -i $name:"
    (cd "$dir" && cargo tree -q -i "$name" -e normal --depth 1)
    if ! (cd "$dir" && cargo tree -q -i "$name" --depth 0 | grep -q "($patch)"); then
        echo "FAIL: $name does not come from $patch" >&2
        FAILED=1
    fi
    if [ "$mode" = run ]; then
        (cd "$dir" && cargo run -q)
    else
        (cd "$dir" && cargo check -q)
        echo "cargo check: ok"
    fi
}

# new_crate DIR DEPS MAIN: a binary crate with the given [dependencies] body
# and main.rs.
new_crate() {
    mkdir -p "$1/src"
    printf '[package]\nname = "scratch"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n%s\n\n[workspace]\n' \
        "$2" >"$1/Cargo.toml"
    printf '%s\n' "$3" >"$1/src/main.rs"
}

BLOCK='md5x-block v.*'
MD5X="md5x v.*|$BLOCK"
[[ $HOST_ARCH != x86_64 && $HOST_ARCH != i?86 ]] || MD5X+='|cpufeatures v.*'
CFG_IF="cfg-if v.*|$BLOCK"

# postgres_protocol::password::md5 is "md5" + hex(md5(password + user)),
# here from Python's hashlib.
PG_MAIN='fn main() {
    let got = postgres_protocol::password::md5(b"pass", "user");
    assert_eq!(got, "md57f409a7c046daea1c2c60502d7e2becc");
    println!("postgres-protocol password::md5: {got} (ok)");
}'

md5_main() { # the whole md5 API, against digests from Python's hashlib
    cat <<EOF
#![allow(deprecated)]
use std::io::Write;
fn main() {
    let d = md5::compute(b"The quick brown fox jumps over the lazy dog");
    assert_eq!(format!("{d:x}"), "9e107d9d372bb6826bd81d3542a419d6");
    assert_eq!(format!("{d:X}"), "9E107D9D372BB6826BD81D3542A419D6");
    assert_eq!(format!("{d:?}"), "9e107d9d372bb6826bd81d3542a419d6");
    let mut c = md5::Context::new();
    for _ in 0..10 {
        c.consume([b'a'; 100]);
    }
    let mut w = c.clone();
    w.write_all(b"").unwrap();
    let bytes: [u8; 16] = md5::Digest::from(w).into();
    assert_eq!(bytes[..], c.$1()[..]);
    assert_eq!(format!("{:x}", md5::Digest(bytes)), "cabe45dcc9ae5b66ba86600cca6b8ba8");
    println!("md5 {d:x}, {:x} (ok)", md5::Digest(bytes));
}
EOF
}

line_md5_010() {
    log "md-5 0.10: postgres-protocol 0.6.10"
    new_crate "$SCRATCH/pg010" 'postgres-protocol = "=0.6.10"' "$PG_MAIN"
    check_line md-5 "$SCRATCH/pg010" "$ROOT" "$MD5X" run
    log "md-5 0.10 alone"
    new_crate "$SCRATCH/md5-010" 'md-5 = "0.10"' 'use md5::{Digest, Md5};
fn main() {
    let d = Md5::digest(b"The quick brown fox jumps over the lazy dog");
    assert_eq!(format!("{d:x}"), "9e107d9d372bb6826bd81d3542a419d6");
    println!("md-5 0.10 {d:x} (ok, backend {})", md5::backend());
}'
    check_line md-5 "$SCRATCH/md5-010" "$ROOT" "$MD5X" run
}

line_md5_011() {
    log "md-5 0.11: postgres-protocol 0.6.12"
    new_crate "$SCRATCH/pg011" 'postgres-protocol = "=0.6.12"' "$PG_MAIN"
    check_line md-5 "$SCRATCH/pg011" "$ROOT/compat/md-5-0.11" "$BLOCK" run
    log "md-5 0.11 alone"
    new_crate "$SCRATCH/md5-011" 'md-5 = "0.11"' 'use md5::{Digest, Md5};
fn main() {
    let d = Md5::digest(b"The quick brown fox jumps over the lazy dog");
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "9e107d9d372bb6826bd81d3542a419d6");
    println!("md-5 0.11 {hex} (ok, backend {})", md5::backend());
}'
    check_line md-5 "$SCRATCH/md5-011" "$ROOT/compat/md-5-0.11" "$BLOCK" run
}

line_md5_07() {
    log "md5 0.7 alone"
    new_crate "$SCRATCH/md5-07" 'md5 = "0.7"' "$(md5_main compute)"
    check_line md5 "$SCRATCH/md5-07" "$ROOT/compat/md5-0.7" "$CFG_IF" run
    if [ "${HEAVY:-0}" = 1 ]; then
        log "md5 0.7: pdf 0.10"
        new_crate "$SCRATCH/pdf" 'pdf = "=0.10.0"' 'fn main() {}'
        check_line md5 "$SCRATCH/pdf" "$ROOT/compat/md5-0.7" "$CFG_IF" check
    fi
}

line_md5_08() {
    log "md5 0.8 alone"
    new_crate "$SCRATCH/md5-08" 'md5 = "0.8"' "$(md5_main finalize)"
    check_line md5 "$SCRATCH/md5-08" "$ROOT/compat/md5-0.8" "$CFG_IF" run
    if [ "${HEAVY:-0}" = 1 ]; then
        log "md5 0.8: rust-s3 0.37"
        new_crate "$SCRATCH/s3" 'rust-s3 = "0.37"' 'fn main() {}'
        check_line md5 "$SCRATCH/s3" "$ROOT/compat/md5-0.8" "$CFG_IF" check
    fi
}

LINES=("$@")
[ ${#LINES[@]} -gt 0 ] || LINES=(md-5-0.10 md-5-0.11 md5-0.7 md5-0.8)
for line in "${LINES[@]}"; do
    start=$SECONDS
    case $line in
    md-5-0.10) line_md5_010 ;;
    md-5-0.11) line_md5_011 ;;
    md5-0.7) line_md5_07 ;;
    md5-0.8) line_md5_08 ;;
    *)
        echo "ci/patch-trees.sh: unknown line '$line'" >&2
        exit 2
        ;;
    esac
    echo "$line: $((SECONDS - start)) s"
done
[ "$FAILED" = 0 ] || {
    echo "ci/patch-trees.sh: FAILED" >&2
    exit 1
}
