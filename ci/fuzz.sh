#!/usr/bin/env bash
# Runs the cargo-fuzz targets of fuzz/ (libFuzzer, nightly, AddressSanitizer)
# for a fixed time each, starting from the committed seeds in
# fuzz/seeds/TARGET. Every target checks results against an independent
# oracle (see fuzz/fuzz_targets/*.rs), so a wrong digest fails like a crash.
# Inputs that fail land in fuzz/artifacts/TARGET/; new coverage in the
# ignored fuzz/corpus/TARGET/, which a rerun starts from too.
#
# Usage: ci/fuzz.sh [SECONDS] [TARGET...]   (default: 20 s, every target)
#
# A release's long runs: ci/fuzz.sh --long SECONDS [TARGET...] (default:
# the batch targets multi, multi_forms, lanes) runs each on every core
# (libFuzzer's -fork) and prints its executions. Those targets hash tens of
# KiB an input, so two libFuzzer costs outweigh their own there: entropic
# scheduling's bookkeeping per feature (off: -entropic=0) and the hooks on
# every integer comparison (off: built with --no-trace-compares, into
# fuzz/target-batch so the smoke build stays as it is). Rates with and
# without: benches/RESULTS.md, "Fuzzing".
#
# Installs the nightly toolchain and cargo-fuzz if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

LONG=
if [ "${1:-}" = --long ]; then
    LONG=1
    shift
fi
SECONDS_EACH=20
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
    SECONDS_EACH=$1
    shift
fi
TARGETS=("$@")

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

if [ -n "$LONG" ]; then
    [ ${#TARGETS[@]} -gt 0 ] || TARGETS=(multi multi_forms lanes)
    for t in "${TARGETS[@]}"; do
        # cargo fuzz builds one target a call when it is given one.
        cargo +nightly fuzz build --fuzz-dir fuzz --no-trace-compares --target-dir fuzz/target-batch "$t"
    done
    for t in "${TARGETS[@]}"; do
        printf '\n=== fuzz %s, %s s on %s cores\n' "$t" "$SECONDS_EACH" "$(nproc)"
        mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
        start=$SECONDS
        # -fork prints "#EXECUTIONS: cov: ..." as its jobs end; the last is the total.
        "fuzz/target-batch/$(rustc -vV | sed -n 's/^host: //p')/release/$t" \
            "fuzz/corpus/$t" "fuzz/seeds/$t" -artifact_prefix="fuzz/artifacts/$t/" \
            -fork="$(nproc)" -entropic=0 -max_total_time="$SECONDS_EACH" 2>&1 |
            grep -E '^#[0-9]+: |==[0-9]+==|SUMMARY|panicked|assertion' | tail -n 3
        [ "${PIPESTATUS[0]}" = 0 ] || {
            echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
            exit 1
        }
        echo "$t: $((SECONDS - start)) s"
    done
    exit 0
fi
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(backend multi multi_forms lanes serial_011 check_line etag_parse etag_multipart arrow_import)

cargo +nightly fuzz build --fuzz-dir fuzz
for t in "${TARGETS[@]}"; do
    printf '\n=== fuzz %s, %s s\n' "$t" "$SECONDS_EACH"
    mkdir -p "fuzz/corpus/$t"
    start=$SECONDS
    cargo +nightly fuzz run --fuzz-dir fuzz "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>&1 |
        grep -E '^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|==[0-9]+==|thread|SUMMARY|assertion|panicked)' ||
        true
    # grep hides libFuzzer's chatter; the exit status is cargo fuzz's.
    [ "${PIPESTATUS[0]}" = 0 ] || {
        echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
        exit 1
    }
    echo "$t: $((SECONDS - start)) s"
done
