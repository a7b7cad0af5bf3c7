#!/usr/bin/env bash
# Builds the guest blob for ci/avx512-emu/run.py: this crate's md5::multi
# (kernel choice, scheduler, Lanes and every kernel, AVX-512 included) as a
# staticlib (guest/), linked with ld at the address run.py loads it, and
# flattened with objcopy. Outputs in target/avx512-emu/: guest.bin (the
# blob), guest.syms (name and address of each function), guest.dis (objdump).
#
# The crate is built for the ordinary x86_64-unknown-linux-gnu target with no
# target-wide CPU flags (never target-cpu=native): the AVX-512 kernel gets its
# features from its own #[target_feature(enable = "avx512f,avx512vl")], as in
# any build of the crate.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=target/avx512-emu
mkdir -p "$OUT"
# RUSTFLAGS would change the dependencies' build too; keep the host's out.
RUSTFLAGS= cargo build -q --release --locked --manifest-path ci/avx512-emu/guest/Cargo.toml \
    --target-dir "$OUT/cargo"
ENTRIES=(guest_backend guest_set_avx512_groups guest_set_stagger_spread guest_set_whole_lines guest_digest_many guest_digest_offsets guest_digest_views guest_digest_affixed guest_encode
    guest_lanes)
ld -static -nostdlib --gc-sections --no-warn-rwx-segments -T ci/avx512-emu/link.ld \
    "${ENTRIES[@]/#/--undefined=}" -o "$OUT/guest.elf" "$OUT/cargo/release/libmd5_avx512_guest.a"
# Nothing may be left for a loader to fix: no relocations, no dynamic section.
if readelf -r "$OUT/guest.elf" | grep -q 'R_X86_64'; then
    echo "ci/avx512-emu/build.sh: relocations left in the blob" >&2
    exit 1
fi
objcopy -O binary "$OUT/guest.elf" "$OUT/guest.bin"
nm --defined-only "$OUT/guest.elf" | awk '$2 ~ /^[Tt]$/ {print $3, $1}' >"$OUT/guest.syms"
objdump -d --no-show-raw-insn "$OUT/guest.elf" >"$OUT/guest.dis"
echo "guest blob: $(stat -c %s "$OUT/guest.bin") bytes"
