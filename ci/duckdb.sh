#!/usr/bin/env bash
# The DuckDB extension (duckdb/), from a clean clone: format and lints, its
# unit tests, md5x.duckdb_extension built by the README's command, then
# duckdb/tests against DuckDB 2.0.x (the duckdb Python package), 1.5.x
# (PyPI's duckdb-cli), 1.2.x (the oldest it loads into) and 1.1.x (which
# must refuse it with a message), installed under target/. Each step prints
# its time.
#
#   bash ci/duckdb.sh                     # all of the above
#   bash ci/duckdb.sh --deps-only         # only the DuckDBs (.ci/run
#                                         # downloads them beside its builds)
#   bash ci/duckdb.sh --from-venv VENV    # the extension is the one VENV's
#                                         # md5x package carries; the CLI,
#                                         # which cannot load that one (it
#                                         # uses the Python process's
#                                         # symbols), gets a debug build
#
# .ci/run takes the second form with the wheel it tested (its other steps
# lint and test this crate); ci/full.sh the first.
#
# Idempotent: a later run reuses the venv, the old DuckDB and the build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
from_venv=
deps_only=0
case ${1:-} in
--from-venv) from_venv=$(realpath "${2:?--from-venv needs a venv}") ;;
--deps-only) deps_only=1 ;;
"") ;;
*)
    echo "ci/duckdb.sh: unknown argument '$1'" >&2
    exit 2
    ;;
esac
venv=$root/target/duckdb-venv
v1_2=$root/target/duckdb-1.2
old=$root/target/duckdb-1.1
cargo=(--locked --manifest-path duckdb/Cargo.toml)

. "$root/ci/step.sh"
. "$root/ci/venv.sh"

step "DuckDB 2.0.x (Python), 1.5.x (CLI), 1.2.x and 1.1.x (Python)"
venv_at "$venv"
pip=("$venv/bin/python" -m pip install --disable-pip-version-check -q)
"${pip[@]}" "duckdb>=2.0,<2.1" "duckdb-cli>=1.5,<1.6" "pytest>=8"
[ -d "$v1_2/duckdb" ] || "${pip[@]}" --target "$v1_2" "duckdb>=1.2,<1.3"
[ -d "$old/duckdb" ] || "${pip[@]}" --target "$old" "duckdb>=1.1,<1.2"
"$venv/bin/python" -c 'import duckdb; print("duckdb (Python)", duckdb.__version__)'
"$venv/bin/duckdb" --version

[ "$deps_only" = 0 ] || {
    step
    exit 0
}

if [ -z "$from_venv" ]; then
    step "fmt, clippy, unit tests, MSRV"
    cargo fmt --manifest-path duckdb/Cargo.toml --check
    cargo clippy "${cargo[@]}" --all-targets -- -D warnings
    cargo test "${cargo[@]}"
    # The MSRV (.ci/run installs it).
    cargo +1.89 check "${cargo[@]}" --all-targets --target-dir target/msrv

    step "cargo run --release --manifest-path duckdb/Cargo.toml (md5x.duckdb_extension)"
    extension=$(cargo run "${cargo[@]}" --release)
else
    step "md5x.duckdb_extension from $from_venv's md5x package"
    # md5x.duckdb writes it (the native module and DuckDB's footer) into
    # the cache folder named here; every DuckDB below is linux_amd64.
    cache=$root/target/duckdb-from-venv
    rm -rf "$cache"
    extension=$(MD5X_DUCKDB_CACHE=$cache "$from_venv/bin/python" -c \
        'import md5x.duckdb; print(md5x.duckdb.extension_path("linux_amd64"))')
    step "cargo run --manifest-path duckdb/Cargo.toml (a debug md5x.duckdb_extension, for the CLI)"
    cli_extension=$(cargo run "${cargo[@]}" --target-dir target)
fi
cli_extension=${cli_extension:-$extension}
ls -l "$extension" "$cli_extension"

step "python -m pytest duckdb/tests"
MD5X_DUCKDB_EXTENSION=$extension MD5X_DUCKDB_CLI_EXTENSION=$cli_extension MD5X_DUCKDB_CLI=$venv/bin/duckdb MD5X_DUCKDB_1_2=$v1_2 MD5X_DUCKDB_OLD=$old \
    "$venv/bin/python" -m pytest duckdb/tests -q -p no:cacheprovider

step
