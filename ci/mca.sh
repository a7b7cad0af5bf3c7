#!/usr/bin/env bash
# Static evidence for the AArch64 and LoongArch64 asm backends, where no such
# hardware is at hand: the instructions per block of the block loop, and
# llvm-mca's estimate of cycles per block, for `soft` as LLVM compiles it
# (`--features force-soft`) against the asm backend, for the same target.
#
# Usage: ci/mca.sh [aarch64] [loongarch64]   (default: both)
#
# Needs what `ci/cross.sh --install-only aarch64 loongarch64` installs, and
# Debian's llvm-19 (installed here if missing). It builds a tiny no_std
# crate whose one function calls `md5::compress` (target/mca/probe), with LTO
# off so the objects hold machine code, disassembles the loop over blocks
# (the longest backward branch in the compress code) and feeds its body to
# llvm-mca-19, which simulates 200 iterations with loop-carried dependencies.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
ARCHES=("$@")
[ ${#ARCHES[@]} -gt 0 ] || ARCHES=(aarch64 loongarch64)

if ! command -v llvm-mca-19 >/dev/null; then
    while fuser /var/lib/dpkg/lock-frontend >/dev/null 2>&1; do sleep 5; done
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends llvm-19 >/dev/null
fi

OUT=$ROOT/target/mca
PROBE=$OUT/probe
mkdir -p "$PROBE/src"
cat >"$PROBE/Cargo.toml" <<EOF
[package]
name = "md5-mca-probe"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[dependencies]
md-5 = { path = "$ROOT", default-features = false }

[features]
force-soft = ["md-5/force-soft"]

[workspace]
EOF
cat >"$PROBE/src/lib.rs" <<'EOF'
#![no_std]
#[no_mangle]
pub fn md5_probe(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    md5::compress(state, blocks)
}
EOF

# build ARCH TRIPLE [FEATURES]: builds the probe; prints its deps directory.
build() {
    local arch=$1 triple=$2 feat=${3:-} dir=$OUT/$1${3:+-soft}
    local cargo=(cargo)
    [ "$arch" = loongarch64 ] && cargo=(cargo +nightly -Zbuild-std=core)
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
        "${cargo[@]}" build -q --release --manifest-path "$PROBE/Cargo.toml" \
        --target "$triple" --target-dir "$dir" ${feat:+--features "$feat"} >&2
    echo "$dir/$triple/release/deps"
}

# loop_body DEPS_DIR OVERHEAD_FILE: writes the instructions of the block
# loop, one a line; the count of the others in its function to OVERHEAD_FILE.
loop_body() {
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && for a in "$1"/libmd5*.rlib "$1"/libmd5_mca_probe*.rlib; do
        ar x "$a"
    done)
    for o in "$tmp"/*.o; do
        llvm-objdump-19 -d -C --no-show-raw-insn "$o" 2>/dev/null || true
    done | python3 "$ROOT/ci/mca_loop.py" "$2"
    rm -rf "$tmp"
}

# mca TRIPLE CPU FILE: cycles per iteration (= per block).
mca() {
    llvm-mca-19 -mtriple="$1" -mcpu="$2" -iterations=200 "$3" 2>/dev/null |
        awk '/^Iterations:/ {it = $2} /^Total Cycles:/ {c = $3} END {printf "%.0f", c / it}'
}

for arch in "${ARCHES[@]}"; do
    case $arch in
    aarch64)
        triple=aarch64-unknown-linux-gnu
        cpus=(apple-m1 neoverse-n1 cortex-a76 cortex-a55 neoverse-v1)
        ;;
    loongarch64)
        # Any loongarch64 triple will do for a no_std rlib.
        triple=loongarch64-unknown-linux-gnu
        cpus=()
        # LLVM 19 knows la464/la664 by name but has no scheduling model for
        # them; llvm-mca would only assume one cycle per instruction.
        ;;
    *)
        echo "ci/mca.sh: unknown arch '$arch'" >&2
        exit 2
        ;;
    esac
    asm_body=$OUT/$arch-asm.s
    soft_body=$OUT/$arch-soft.s
    loop_body "$(build "$arch" "$triple")" "$OUT/$arch-asm.outside" >"$asm_body"
    loop_body "$(build "$arch" "$triple" force-soft)" "$OUT/$arch-soft.outside" >"$soft_body"
    n_asm=$(grep -c . "$asm_body")
    n_soft=$(grep -c . "$soft_body")
    echo
    echo "### $arch ($triple), block loop of md5::compress"
    echo
    printf '| %-28s | %6s | %6s | %10s |\n' "per 64-byte block" soft asm "asm / soft"
    printf '|%s|%s|%s|%s|\n' ------------------------------ -------- -------- ------------
    printf '| %-28s | %6d | %6d | %10.2f |\n' instructions "$n_soft" "$n_asm" \
        "$(echo "$n_asm / $n_soft" | bc -l)"
    o_soft=$(cat "$OUT/$arch-soft.outside")
    o_asm=$(cat "$OUT/$arch-asm.outside")
    printf '| %-28s | %6d | %6d | %10.2f |\n' "instructions outside loop" "$o_soft" "$o_asm" \
        "$(echo "$o_asm / $o_soft" | bc -l)"
    for cpu in "${cpus[@]}"; do
        c_soft=$(mca "$triple" "$cpu" "$soft_body")
        c_asm=$(mca "$triple" "$cpu" "$asm_body")
        printf '| %-28s | %6d | %6d | %10.2f |\n' "llvm-mca cycles, $cpu" "$c_soft" "$c_asm" \
            "$(echo "$c_asm / $c_soft" | bc -l)"
    done
    echo
    echo "(loop bodies: $soft_body, $asm_body)"
done
