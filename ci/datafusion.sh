#!/usr/bin/env bash
# md5x in DataFusion (datafusion/), from a clean clone: format and lints,
# the crate's tests, then the md5x_datafusion Python package installed by
# pip from the checkout into a venv under target/, and its tests against
# PyPI's datafusion 55.x, with a datafusion 54.x beside it that it must
# refuse with a message. Each step prints its time.
#
# Everything builds in the release profile, in datafusion/target: the
# tests, the Python module (maturin's default) and the bench then share one
# compiled DataFusion, the largest part of the time; clippy checks in that
# profile too, so that it reuses the build's proc-macros and build scripts.
#
# Idempotent: a later run reuses the venv, datafusion 54 and the builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=$root/target/datafusion-venv
other=$root/target/datafusion-54
cargo=(--locked --manifest-path datafusion/Cargo.toml --release)

. "$root/ci/step.sh"

step "fmt, clippy (md5x-datafusion and its Python module)"
cargo fmt --manifest-path datafusion/Cargo.toml --all --check
cargo clippy "${cargo[@]}" --workspace --all-targets --all-features -- -D warnings

step "cargo test --release --all-features (datafusion/)"
cargo test "${cargo[@]}" --all-features

step "venv: datafusion 55.x, pytest, maturin; datafusion 54.x apart"
# Debian and Ubuntu ship venv's ensurepip apart, in python3-venv.
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv
fi
if ! "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --disable-pip-version-check -q)
"${pip[@]}" "datafusion>=55,<56" "pyarrow>=16" "pytest>=8" "maturin>=1.9.4,<2"
# Its dependencies are the venv's; only the package differs.
[ -d "$other/datafusion" ] || "${pip[@]}" --no-deps --target "$other" "datafusion>=54,<55"
"$venv/bin/python" -c 'import datafusion; print("datafusion (Python)", datafusion.__version__)'

step "pip install ./datafusion (md5x_datafusion), pytest datafusion/python/tests"
# maturin's build hooks run the `maturin` command: the venv's, on PATH.
PATH="$venv/bin:$PATH" "${pip[@]}" --no-build-isolation --force-reinstall --no-deps ./datafusion
MD5X_DATAFUSION_OTHER_MAJOR=$other \
    "$venv/bin/python" -m pytest datafusion/python/tests -q -p no:cacheprovider

step
