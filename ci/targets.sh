#!/usr/bin/env bash
# The builds a user's target or profile may ask for that the test runs of
# .ci/run and ci/cross.sh do not make:
#
# 1. The library alone, with `-Dwarnings`, for targets it has no tests on:
#    bare metal (x86_64 and aarch64 without an OS, UEFI, the softfloat
#    aarch64 ABI where NEON must stay off, Cortex-M), riscv64, wasm32, macOS
#    and Windows; without default features everywhere, and with them where
#    the target has std. Only `rustup target add` is needed: an rlib links
#    nothing.
# 2. The host's asm backend (x86_64) in the release profile with
#    `lto = "fat"`, `codegen-units = 1` and `-Cforce-frame-pointers=yes`:
#    the library's tests and tests/*.rs, then ci/profile-probe, a crate
#    that depends on this one with that profile and calls `Lanes::update`,
#    `digest_many` and `Md5`.
#    ci/cross.sh --release does the same for aarch64 and loongarch64.
#    --ci, as .ci/run runs it: of the tests, only tests/stack.rs (frame
#    sizes, a release-only property); ci/full.sh runs them all.
#
# Usage: ci/targets.sh [--install-only | --ci]
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\n=== %s\n' "$*"; }

# TARGET:std or TARGET:nostd
LIB_TARGETS=(
    x86_64-unknown-none:nostd
    x86_64-unknown-uefi:nostd
    aarch64-unknown-none:nostd
    aarch64-unknown-none-softfloat:nostd
    thumbv7em-none-eabi:nostd
    riscv64gc-unknown-linux-gnu:std
    wasm32-unknown-unknown:std
    aarch64-apple-darwin:std
    x86_64-pc-windows-msvc:std
)

installed=$(rustup target list --installed)
for entry in "${LIB_TARGETS[@]}"; do
    t=${entry%%:*}
    if ! grep -qx "$t" <<<"$installed"; then
        log "rustup target add $t"
        rustup target add "$t"
    fi
done
[ "${1:-}" != --install-only ] || exit 0
SUITE=(--workspace --exclude md5sum-rs --exclude md5x-testkit --lib --tests)
[ "${1:-}" != --ci ] || SUITE=(--test stack)

start=$SECONDS
for entry in "${LIB_TARGETS[@]}"; do
    t=${entry%%:*}
    log "cargo build --lib --target $t --no-default-features"
    RUSTFLAGS=-Dwarnings cargo build -q --lib --target "$t" --no-default-features \
        --target-dir target/targets
    if [ "${entry#*:}" = std ]; then
        log "cargo build --lib --target $t"
        RUSTFLAGS=-Dwarnings cargo build -q --lib --target "$t" --target-dir target/targets
    fi
done
echo "library builds: $((SECONDS - start)) s"

start=$SECONDS
export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
export RUSTFLAGS=-Cforce-frame-pointers=yes
log "cargo test --release ${SUITE[*]}, lto = fat, codegen-units = 1, forced frame pointers"
cargo test --release "${SUITE[@]}" --target-dir target/release-fp

log "a dependent with lto = fat, codegen-units = 1, forced frame pointers"
cargo run -q --release --manifest-path ci/profile-probe/Cargo.toml --target-dir target/release-fp
echo "release profile builds: $((SECONDS - start)) s"
