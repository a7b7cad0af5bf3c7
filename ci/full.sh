#!/usr/bin/env bash
# The slow checks .ci/run leaves out, run before every release (after
# .ci/run passes) and by the release workflow. Each one is the long form of
# a faster check .ci/run keeps, named beside it:
#
#   feature powerset     every feature set of the library, each feature of
#                        md-5 0.11 alone (.ci/run: none and all features)
#   MSRV, every target   tests and benches too (.ci/run: libraries and
#                        binaries)
#   qemu, whole suites   unit, integration and doc tests, aarch64 with the
#                        soft backend, the compat packages on aarch64 and
#                        s390x (.ci/run: tests/md5.rs and tests/multi.rs)
#   asm in release       the whole suite under fat LTO, one codegen unit and
#                        frame pointers on x86_64, aarch64 and loongarch64
#                        (.ci/run: ci/profile-probe so, and tests/stack.rs
#                        on x86_64)
#   every release file   the aarch64 and musllinux wheels, pip building the
#                        sdist, the suite against the installed wheel with no
#                        Rust on PATH, `cargo install md5sum-rs` from the
#                        packaged crates alone (.ci/run: the x86_64 wheel
#                        from the sdist, its suite in ci/python.sh; the
#                        crates packaged and tested unpacked)
#   musl CPython         the musllinux wheel run by a musl CPython
#                        (ci/musl-python.sh; .ci/run: auditwheel's check)
#   source installs      `pip install ./python[test]` and the DuckDB
#                        extension built by its README's command, each
#                        tested (.ci/run: the wheel and the extension it
#                        carries)
#   fuzzing              30 s a target (.ci/run: 5 s)
#
# Usage: bash ci/full.sh. Installs what it needs as .ci/run does (run that
# first on a new machine). Prints each step's time and a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

mkdir -p target/ci
STEP_MARK="==="
STEP_LOG=$ROOT/target/ci/full.log
: >"$STEP_LOG"
exec > >(tee -a "$STEP_LOG") 2>&1
. ci/step.sh
trap step_failed EXIT

step "feature powerset (cargo hack): the library, and md-5 0.11"
command -v cargo-hack >/dev/null || cargo install cargo-hack --locked
# asm, md5-asm and loongarch64_asm are compatibility no-ops (empty
# features), and oid adds one impl (the OID constant) that no other
# feature's code meets: .ci/run tests them with the smallest and the largest
# set. `default` only names `std` (or `alloc` and `oid`), which are in the
# set. `rayon` implies `std` and only adds the `par_` forms: it goes with
# `std`. The kernels and the scheduler have no feature gates: their slowest
# tests are left to .ci/run.
KERNEL_ONLY=(--skip multi::tests::stagger:: --skip multi::tests::memory::
    --skip multi::tests::lanes:: --skip multi::tests::kernels_random_batches_across_windows)
cargo hack test --feature-powerset --exclude-features default,oid,asm,md5-asm,loongarch64_asm \
    --group-features std,rayon --tests
# md5x's own unit tests, and md5x-block's, under the same sets.
cargo hack test -p md5x --feature-powerset --exclude-features default,oid \
    --group-features std,rayon --lib -- "${KERNEL_ONLY[@]}"
cargo hack test -p md5x-block --feature-powerset --lib
# md-5 0.11's alloc, oid and zeroize are independent of one another: each alone.
cargo hack test --each-feature --exclude-features default --locked \
    --manifest-path compat/md-5-0.11/Cargo.toml --lib --tests

step "MSRV (1.89): every target of every package, the benches too"
cargo +1.89 check --workspace --all-targets --all-features --target-dir target/msrv
for m in compat/md-5-0.11 compat/md5-0.7 compat/md5-0.8 duckdb arrow-import; do
    cargo +1.89 check --locked --manifest-path "$m/Cargo.toml" --all-targets --target-dir target/msrv
done

step "other architectures, whole suites: aarch64 (asm and soft), loongarch64, s390x, i686"
bash ci/cross.sh

step "asm backends in release, whole suites: fat LTO, codegen-units = 1, frame pointers"
bash ci/targets.sh
bash ci/cross.sh --release aarch64 loongarch64

step "every release file this machine can build, each installed and tested (ci/release.sh)"
bash ci/release.sh

step "the musllinux wheel in a musl CPython (ci/musl-python.sh)"
bash ci/musl-python.sh

step "the md5x Python package built from the checkout, tested (ci/python.sh)"
bash ci/python.sh

step "the DuckDB extension built by its README's command, tested (ci/duckdb.sh)"
bash ci/duckdb.sh

step "fuzzing, 30 s a target"
bash ci/fuzz.sh 30

step
step_table
