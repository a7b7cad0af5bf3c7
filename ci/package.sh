#!/usr/bin/env bash
# Checks that every package in the repository can be published, in an order
# that works:
#
#   1. `cargo publish --dry-run` in publish order: the root workspace
#      (md5x-block, md5x-testkit, md5x, md-5 0.10 over md5x, md5sum-rs;
#      Cargo orders them, each resolved against the packaged ones before
#      it), then each package under compat/ (md-5 0.11, md5 0.7, md5 0.8),
#      resolved against the md5x-block and md5x-testkit just packaged;
#   2. each packaged .crate holds only plain files and nothing the package
#      does not compile: no CI scripts, no vector generators, no other
#      package;
#   3. each .crate, unpacked outside the repository, passes its own tests,
#      with this repository's crates taken from the other unpacked .crate
#      files (a patch of crates.io, as if they were published), so it holds
#      every file it compiles and its benches build;
#   4. a scratch crate depending on the packaged md5x (not the repository's
#      path) builds and runs the example of md5x's README, as a user who
#      ran `cargo add md5x` would;
#   5. `cargo install md5sum-rs` works from the packaged crates alone, as
#      from crates.io: crates.io is replaced by a directory holding the
#      unpacked md5x and md5sum-rs .crate files (with their checksums) and
#      the third-party crates md5x depends on (`cargo vendor`), so md5x is
#      resolved from its own .crate, with no path and no patch; the
#      installed md5sum then hashes a known answer.
#
# Usage: ci/package.sh [--ci]. It builds in target/, where the other CI
# steps have built the same dependencies already. --ci, as .ci/run runs it:
# steps 1 to 4 (the dry run of the workspace already resolves md5sum-rs
# against the packaged md5x); ci/full.sh runs step 5 too, through
# ci/release.sh.
set -euo pipefail
CI=0
case ${1:-} in
--ci) CI=1 ;;
"") ;;
*)
    echo "ci/package.sh: unknown argument '$1'" >&2
    exit 2
    ;;
esac

cd "$(dirname "$0")/.."
ROOT=$PWD
COMPAT=(md-5-0.11 md5-0.7 md5-0.8)
UNPACKED=$(mktemp -d)
trap 'rm -rf "$UNPACKED"' EXIT

log() { printf '\n=== %s\n' "$*"; }

# No .crate files from an earlier run: the check below counts them.
find target/package -maxdepth 2 -name '*.crate' -delete 2>/dev/null || true

# `--allow-dirty` so that it also runs on a work tree with changes; CI runs
# on a clean clone.
log "cargo publish --dry-run: md5x-block, md5x-testkit, md5x, md-5 0.10, md5sum-rs (one workspace)"
# --no-verify: step 3 builds and tests each .crate unpacked, which is what
# the verification would build, and more.
cargo publish --workspace --dry-run --allow-dirty --no-verify
# Their dependencies on md5x-block and md5x-testkit resolve as they will
# once those are on crates.io: here, to the repository's.
for p in "${COMPAT[@]}"; do
    log "cargo publish --dry-run: compat/$p"
    cargo publish --dry-run --allow-dirty --manifest-path "compat/$p/Cargo.toml" \
        --target-dir target --no-verify \
        --config "patch.crates-io.md5x-block.path=\"$ROOT/block\"" \
        --config "patch.crates-io.md5x-testkit.path=\"$ROOT/testkit\""
done

# The dry run leaves the .crate files in package/ or, with newer Cargo,
# package/tmp-crate/.
mapfile -t CRATES < <(
    find target/package -maxdepth 2 -name '*.crate' -not -path '*/tmp-registry/*' | sort
)
[ ${#CRATES[@]} = 8 ] || {
    echo "FAIL: expected 8 packaged crates, found: ${CRATES[*]}" >&2
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
MD5X=$(cd "$UNPACKED" && echo md5x-[0-9]*)
# This repository's crates, as crates.io will serve them: the unpacked
# .crate files, for every crate but the one they are.
patches() {
    local own=$1 dir name
    for dir in "$UNPACKED"/md5x-[0-9]* "$UNPACKED"/md5x-block-* "$UNPACKED"/md5x-testkit-*; do
        name=$(basename "$dir")
        name=${name%-*}
        [ "$name" = "$own" ] || printf -- '--config\npatch.crates-io.%s.path="%s"\n' "$name" "$dir"
    done
}
export CARGO_TARGET_DIR=$ROOT/target
for dir in "$UNPACKED"/*/; do
    name=$(basename "$dir")
    log "unpacked $name: cargo test, cargo check --benches"
    mapfile -t args < <(patches "${name%-*}")
    # The workspace's test profile gives its packages opt-level 1; md-5 and
    # md5 carry that in their own manifests, the root workspace's members
    # get it here.
    for p in md5x md5x-block md5sum-rs md-5; do
        args+=(--config "profile.test.package.$p.opt-level=1")
    done
    (cd "$dir" && cargo test "${args[@]}" -- --skip write_512_mib --skip write_4_gib)
    (cd "$dir" && cargo check "${args[@]}" --benches)
done

# md5x's README example, in a crate of its own that depends on the unpacked
# md5x: the first ```rust block of the README is its main.rs.
log "a dependent of the packaged $MD5X runs its README example"
DEPENDENT=$UNPACKED/md5x-dependent
mkdir -p "$DEPENDENT/src"
printf '[package]\nname = "md5x-dependent"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nmd5x = { path = "%s" }\n\n[workspace]\n' \
    "$UNPACKED/$MD5X" >"$DEPENDENT/Cargo.toml"
awk '/^```rust$/ { on = 1; next } on && /^```$/ { exit } on' "$UNPACKED/$MD5X/README.md" >"$DEPENDENT/src/main.rs"
grep -q 'fn main' "$DEPENDENT/src/main.rs" || {
    echo "FAIL: no Rust example with a main in $MD5X/README.md" >&2
    exit 1
}
mapfile -t args < <(patches md5x)
(cd "$DEPENDENT" && cargo run "${args[@]}")

[ "$CI" = 0 ] || exit 0

log "cargo install md5sum-rs from the packaged crates alone"
VENDOR=$UNPACKED/registry
# The third-party crates md5x depends on (vendor leaves path dependencies
# out), from a scratch crate that depends on the unpacked md5x.
DEPS=$UNPACKED/md5x-deps
mkdir -p "$DEPS/src"
: >"$DEPS/src/lib.rs"
printf '[package]\nname = "md5x-deps"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nmd5x = { path = "%s" }\n\n[workspace]\n' \
    "$UNPACKED/$MD5X" >"$DEPS/Cargo.toml"
mapfile -t args < <(patches md5x)
(cd "$DEPS" && cargo vendor "${args[@]}" --quiet --versioned-dirs "$VENDOR" >/dev/null)
# md5x-block, md5x and md5sum-rs as crates.io would serve them: each
# .crate unpacked, with the checksum of the .crate.
for c in "${CRATES[@]}"; do
    case $(basename "$c") in
    md5x-* | md5sum-rs-*)
        tar -xzf "$c" -C "$VENDOR"
        printf '{"files":{},"package":"%s"}' "$(sha256sum "$c" | cut -d' ' -f1)" \
            >"$VENDOR/$(basename "$c" .crate)/.cargo-checksum.json"
        ;;
    esac
done
INSTALLED=$UNPACKED/installed
# --debug: what is checked is where the sources come from, not the profile.
CARGO_TARGET_DIR=$ROOT/target cargo install --debug md5sum-rs --root "$INSTALLED" \
    --config 'source.crates-io.replace-with = "packaged"' \
    --config "source.packaged.directory = \"$VENDOR\""
got=$(printf hello | "$INSTALLED/bin/md5sum")
[ "$got" = "5d41402abc4b2a76b9719d911017c592  -" ] || {
    echo "FAIL: the installed md5sum printed '$got'" >&2
    exit 1
}
"$INSTALLED/bin/md5sum" --version | head -2
