#!/usr/bin/env bash
# The md5x Python package (python/), from a clean clone: a virtual
# environment under target/, the package built from source and installed
# with its test dependencies (`pip install ./python[test]`, which fetches
# maturin into pip's isolated build environment and compiles the Rust
# code), then its tests, and the Polars tests again with Polars 1.x. Each
# step prints its time.
#
#   bash ci/python.sh                  # venv in target/python-venv
#   MD5X_VENV=/path bash ci/python.sh  # another venv
#   bash ci/python.sh --wheel FILE     # no build: installs the wheel FILE
#                                      # (.ci/run: the one ci/release.sh
#                                      # built) and tests that
#   bash ci/python.sh --deps-only      # only the venv and the test
#                                      # dependencies (Polars 1.x too), which
#                                      # .ci/run downloads beside its builds
#
# Idempotent: a later run reuses the venv and the Rust build directory
# (target/), and reinstalls the package from the current source.
# Exits non-zero if a step or a test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=${MD5X_VENV:-$root/target/python-venv}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}

wheel=
deps_only=0
case ${1:-} in
--wheel) wheel=$(realpath "${2:?--wheel needs a file}") ;;
--deps-only) deps_only=1 ;;
"") ;;
*)
    echo "ci/python.sh: unknown argument '$1'" >&2
    exit 2
    ;;
esac

. "$root/ci/step.sh"
. "$root/ci/venv.sh"

step "python3 with venv"
venv_at "$venv"
python3 --version
polars1=$root/target/python-polars1

if [ "$deps_only" = 1 ]; then
    step "pip install: the test extra's requirements, and Polars 1.x apart"
    mapfile -t needs < <("$venv/bin/python" -c '
import sys, tomllib
print(*tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]["test"], sep="\n")
' python/pyproject.toml)
    "$venv/bin/python" -m pip install --disable-pip-version-check -q "${needs[@]}"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --target "$polars1" "polars>=1.0,<2"
    step
    exit 0
fi

if [ -z "$wheel" ]; then
    step "pip install ./python[test] (builds the wheel with maturin)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q "./python[test]"
else
    step "pip install $(basename "$wheel")[test]"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "$wheel"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q "md5x[test] @ file://$wheel"
fi
# The installed package, not python/python's source, is what runs.
"$venv/bin/python" - "$venv" <<'EOF'
import pathlib, sys, md5x
where = pathlib.Path(md5x.__file__).resolve()
print("md5x", md5x.__version__, "from", where)
assert where.is_relative_to(pathlib.Path(sys.argv[1]).resolve()), "md5x is not the venv's"
EOF

step "python -m pytest python/tests"
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider

# The test extra installs the current Polars (2.x); the Polars tests run
# again with the last Polars 1.x, installed apart (pip --target, about
# 180 MB, once) and put first on the path, with the same build of md5x:
# both export strings as views and must take md5x's views back.
step "Polars 1.x: python -m pytest python/tests -k polars"
if ! PYTHONPATH=$polars1 "$venv/bin/python" -c 'import polars; assert polars.__version__.startswith("1.")' 2>/dev/null; then
    rm -rf "$polars1"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --target "$polars1" "polars>=1.0,<2"
fi
PYTHONPATH=$polars1 "$venv/bin/python" -c 'import polars; print("polars", polars.__version__, polars.__file__)'
PYTHONPATH=$polars1 "$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider -k polars

step
