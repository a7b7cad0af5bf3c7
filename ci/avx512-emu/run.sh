#!/usr/bin/env bash
# Tests md5::multi's AVX-512 kernel on any x86_64 host: builds the guest blob
# (build.sh) and runs it in the Bochs CPU emulator (run.py), checking every
# digest against Python's hashlib. See run.py for the checks.
#
# Installs what it needs first, idempotently: binutils and a C compiler
# (apt), python3-venv (apt), and bochscpu-python in a venv under
# target/avx512-emu/venv (pip). A rerun installs nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/avx512-emu/venv
BOCHSCPU=bochscpu-python==0.4.0

missing=()
command -v ld >/dev/null && command -v objcopy >/dev/null || missing+=(binutils)
command -v cc >/dev/null || missing+=(gcc)
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
    while fuser /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock >/dev/null 2>&1; do sleep 5; done
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Not `python -c 'import bochscpu'`: on glibc < 2.38 that needs the shim
# run.py loads first.
if ! "$VENV/bin/pip" show -q bochscpu-python >/dev/null 2>&1; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "$BOCHSCPU"
fi

start=$SECONDS
ci/avx512-emu/build.sh
echo "build: $((SECONDS - start)) s"
"$VENV/bin/python" ci/avx512-emu/run.py --blob target/avx512-emu/guest.bin
