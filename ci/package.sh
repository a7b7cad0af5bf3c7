#!/usr/bin/env bash
# Checks that every package in the repository can be published, in an order
# that works:
#
#   1. `cargo publish --dry-run` for the root workspace (md-5 0.10, then
#      md5sum-rs, verified against the packaged md-5) and for each package
#      under compat/ (md-5 0.11, md5 0.7, md5 0.8);
#   2. each packaged .crate holds only plain files (the links to the shared
#      backend sources stored as copies) and nothing the package does not
#      compile: no CI scripts, no vector generators, no other package;
#   3. each .crate, unpacked outside the repository, passes its own tests
#      (md5sum-rs against the unpacked md-5), so it holds every file it compiles
#      and its benches build.
#
# Usage: ci/package.sh. It builds in target/ (root packages) and
# target/compat/ (compat packages), where the other CI steps have built the
# same dependencies already.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
COMPAT=(md-5-0.11 md5-0.7 md5-0.8)
UNPACKED=$(mktemp -d)
trap 'rm -rf "$UNPACKED"' EXIT

log() { printf '\n=== %s\n' "$*"; }

# No .crate files from an earlier run: the check below counts them.
find target/package target/compat/package -maxdepth 2 -name '*.crate' -delete 2>/dev/null || true

# `--allow-dirty` so that it also runs on a work tree with changes; CI runs
# on a clean clone.
log "cargo publish --dry-run: md-5 0.10 and md5sum-rs (one workspace)"
cargo publish --workspace --dry-run --allow-dirty
for p in "${COMPAT[@]}"; do
    log "cargo publish --dry-run: compat/$p"
    cargo publish --dry-run --allow-dirty --manifest-path "compat/$p/Cargo.toml" \
        --target-dir target/compat
done

# The dry run leaves the .crate files in package/ or, with newer Cargo,
# package/tmp-crate/.
mapfile -t CRATES < <(
    for d in target/package target/compat/package; do
        find "$d" -maxdepth 2 -name '*.crate' -not -path '*/tmp-registry/*'
    done | sort
)
[ ${#CRATES[@]} = 5 ] || {
    echo "FAIL: expected 5 packaged crates, found: ${CRATES[*]}" >&2
    exit 1
}

FAILED=0
for c in "${CRATES[@]}"; do
    log "contents of $c"
    tar -tvzf "$c" | awk '{ print $1, $3, $6 }'
    # Only plain files: a link would point outside the unpacked crate.
    if tar -tvzf "$c" | grep -v '^-'; then
        echo "FAIL: $c holds something other than plain files" >&2
        FAILED=1
    fi
    if tar -tzf "$c" | cut -d/ -f2- |
        grep -E '^(\.ci|ci|compat|md5sum|fuzz|target)/|\.(sh|py)$|^data/md5\.txt$'; then
        echo "FAIL: $c holds files its package does not use" >&2
        FAILED=1
    fi
    tar -xzf "$c" -C "$UNPACKED"
done
[ "$FAILED" = 0 ] || exit 1

# Unpacked outside the repository, so that no workspace above them applies.
# The md5 packages' 512 MiB and 4 GiB inputs run in their own CI steps.
MD5_010=$(cd "$UNPACKED" && echo md-5-0.10.*)
for dir in "$UNPACKED"/*/; do
    name=$(basename "$dir")
    log "unpacked $name: cargo test, cargo check --benches"
    args=()
    export CARGO_TARGET_DIR=$ROOT/target/compat
    case $name in
    md-5-0.10.*) export CARGO_TARGET_DIR=$ROOT/target ;;
    md5sum-*)
        export CARGO_TARGET_DIR=$ROOT/target
        args=(--config "patch.crates-io.md-5.path=\"$UNPACKED/$MD5_010\"")
        ;;
    esac
    (cd "$dir" && cargo test "${args[@]}" -- --skip write_512_mib --skip write_4_gib)
    (cd "$dir" && cargo check "${args[@]}" --benches)
done
