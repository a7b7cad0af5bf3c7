#!/usr/bin/env bash
# md5x in DataFusion (datafusion/), from a clean clone: format and lints,
# the crate's tests, then the md5x_datafusion Python package installed by
# pip from the checkout into a venv under target/, and its tests against
# PyPI's datafusion 55.x, with a datafusion 54.x beside it that it must
# refuse with a message. Each step prints its time.
#
# Everything builds in the dev profile, in datafusion/target: the tests
# and the Python module (maturin --profile dev, through
# MATURIN_PEP517_ARGS) share one compiled DataFusion, the largest part of
# the time. A cold release build of DataFusion took 43 minutes on a loaded
# 2-core machine, more than all of .ci/run; the dev build 4 to 8 minutes
# (248 s with the tests, from a fresh clone). md5x and md-5, which the
# tests run over 2 GiB rows, are optimised in the dev profile
# (datafusion/Cargo.toml). The module users get from pip install is a
# release build of the same code.
#
# Idempotent: a later run reuses the venv, datafusion 54 and the builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=$root/target/datafusion-venv
other=$root/target/datafusion-54
cargo=(--locked --manifest-path datafusion/Cargo.toml)
# As .ci/run builds: no incremental state, line tables only.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only

. "$root/ci/step.sh"
. "$root/ci/venv.sh"

step "fmt, clippy (md5x-datafusion and its Python module)"
cargo fmt --manifest-path datafusion/Cargo.toml --all --check
cargo clippy "${cargo[@]}" --workspace --all-targets --all-features -- -D warnings

step "cargo test --all-features (datafusion/)"
cargo test "${cargo[@]}" --all-features

step "venv: datafusion 55.x, pytest, maturin; datafusion 54.x apart"
venv_at "$venv"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check -q)
"${pip[@]}" "datafusion>=55,<56" "pyarrow>=16" "pytest>=8" "maturin>=1.9.4,<2"
# Its dependencies are the venv's; only the package differs.
[ -d "$other/datafusion" ] || "${pip[@]}" --no-deps --target "$other" "datafusion>=54,<55"
"$venv/bin/python" -c 'import datafusion; print("datafusion (Python)", datafusion.__version__)'

step "pip install ./datafusion (md5x_datafusion), pytest datafusion/python/tests"
# maturin's build hooks run the `maturin` command: the venv's, on PATH.
PATH="$venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" \
    "${pip[@]}" --no-build-isolation --force-reinstall --no-deps ./datafusion
MD5X_DATAFUSION_OTHER_MAJOR=$other \
    "$venv/bin/python" -m pytest datafusion/python/tests -q -p no:cacheprovider

step
