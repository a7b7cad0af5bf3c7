#!/usr/bin/env bash
# Every workspace's tests in release, run again and again while a busy loop
# runs on each core: a test whose verdict depends on how threads are
# scheduled fails here, where a quiet machine would pass it, before it
# fails a landing's CI on a busy one.
#
#   bash ci/under-load.sh            # 20 runs of every workspace
#   bash ci/under-load.sh 5 root python
#
# Workspaces: root (the library, md5x, md5sum-rs; no doc tests), compat (md-5 0.11, md5
# 0.7 and 0.8), python (pytest over the package ci/python.sh installs) and
# duckdb (its unit tests, and pytest over the extension ci/duckdb.sh
# builds). Everything is built, and the venvs made, before the load starts.
# Each run prints one line; a failing run keeps its output in
# target/under-load/. Exits non-zero if any run failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${1:-20}
shift || true
workspaces=("$@")
[ ${#workspaces[@]} -gt 0 ] || workspaces=(root compat python duckdb)
logs=$root/target/under-load
mkdir -p "$logs"

. "$root/ci/step.sh"

compat=(md-5-0.11 md5-0.7 md5-0.8)
# Doc tests are left out: rustdoc compiles each anew on every run (minutes
# on two cores), and `cargo test --workspace` runs them.
run_root() { cargo test -q --workspace --release --lib --bins --tests "$@"; }
run_compat() {
    for p in "${compat[@]}"; do
        cargo test -q --release --locked --manifest-path "compat/$p/Cargo.toml" \
            --target-dir target/compat-release "$@"
    done
}
run_python() {
    [ "${1-}" = --no-run ] && return
    target/python-venv/bin/python -m pytest python/tests -q -p no:cacheprovider
}
duckdb_env() {
    export MD5X_DUCKDB_EXTENSION=$extension
    export MD5X_DUCKDB_CLI=$root/target/duckdb-venv/bin/duckdb
    export MD5X_DUCKDB_1_2=$root/target/duckdb-1.2 MD5X_DUCKDB_OLD=$root/target/duckdb-1.1
}
extension=
run_duckdb() {
    cargo test -q --release --locked --manifest-path duckdb/Cargo.toml "$@"
    if [ "${1-}" = --no-run ]; then
        extension=$(cargo run -q --release --locked --manifest-path duckdb/Cargo.toml)
        return
    fi
    (duckdb_env && target/duckdb-venv/bin/python -m pytest duckdb/tests -q -p no:cacheprovider)
}

step "build (no load yet)"
for w in "${workspaces[@]}"; do
    case $w in
    python) target/python-venv/bin/python -c 'import md5x' 2>/dev/null || bash ci/python.sh ;;
    duckdb) [ -x target/duckdb-venv/bin/python ] || bash ci/duckdb.sh ;;
    root | compat) ;;
    *) echo "unknown workspace $w (root, compat, python, duckdb)" >&2; exit 2 ;;
    esac
    "run_$w" --no-run
done

step "$runs runs of each workspace, a busy loop on each of $(nproc) cores beside them"
busy=()
for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null || true' EXIT
failed=0
for w in "${workspaces[@]}"; do
    passed=0
    for i in $(seq "$runs"); do
        start=$SECONDS
        if "run_$w" >"$logs/$w.last" 2>&1; then
            passed=$((passed + 1))
            echo "$w run $i: passed, $((SECONDS - start)) s"
        else
            echo "$w run $i: FAILED, $((SECONDS - start)) s (output: $logs/$w.failed-$i)"
            mv "$logs/$w.last" "$logs/$w.failed-$i"
        fi
    done
    echo "$w: $passed of $runs runs passed"
    [ "$passed" = "$runs" ] || failed=1
done
step
exit $failed
