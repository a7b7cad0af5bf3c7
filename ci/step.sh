# Sourced by the CI scripts. `step NAME` prints a header for the step that
# starts, after a line saying how long the one before it took; `step` alone
# closes the last. STEP_MARK, set before sourcing, marks the headers:
# .ci/run's with ===, the scripts it calls with --- (the default).
#
# With STEP_LOG set (a file the script's whole output is also written to),
# each closed step's time is kept for `step_table`, and `step_failed`, run
# from an EXIT trap, prints the output of the step that failed, last, where
# it can be read.
#
# `beside NAME COMMAND...` runs a single-threaded step in the background,
# its output kept apart, while the script goes on with the next; `joined`
# waits for every such step, prints each one's output and time, and fails
# if one did (its output printed last).
STEP_MARK=${STEP_MARK:----}
STEP_START=$SECONDS
STEP_NAME=
STEP_TIMES=()
step() {
    if [ -n "$STEP_NAME" ]; then
        printf -- '%s %s: %d s\n' "$STEP_MARK" "$STEP_NAME" $((SECONDS - STEP_START))
        STEP_TIMES+=("$((SECONDS - STEP_START))	$STEP_NAME")
    fi
    STEP_NAME=$*
    STEP_START=$SECONDS
    STEP_OFFSET=0
    [ -z "${STEP_LOG:-}" ] || STEP_OFFSET=$(stat -c %s "$STEP_LOG" 2>/dev/null || echo 0)
    [ $# -eq 0 ] || printf -- '\n%s %s\n' "$STEP_MARK" "$*"
}

# Every closed step and its time, longest first, then the total.
step_table() {
    printf '\n%s step times (s), longest first\n' "$STEP_MARK"
    printf '%s\n' "${STEP_TIMES[@]}" | sort -t '	' -k1,1nr | awk -F '\t' '{ printf "%6d  %s\n", $1, $2 }'
    printf '%6d  total\n' "$SECONDS"
}

# For an EXIT trap: after a failure, the failed step's own output again.
step_failed() {
    local rc=$?
    [ "$rc" != 0 ] || return 0
    [ -n "${STEP_LOG:-}" ] && [ -n "$STEP_NAME" ] || return "$rc"
    sleep 1 # the tee behind STEP_LOG catches up
    local output
    output=$(tail -c +"$((STEP_OFFSET + 1))" "$STEP_LOG" | tail -n 300)
    printf '\n%s FAILED (exit %d): %s, after %d s; its output:\n%s\n' \
        "$STEP_MARK" "$rc" "$STEP_NAME" $((SECONDS - STEP_START)) "$output"
    printf '%s FAILED: %s\n' "$STEP_MARK" "$STEP_NAME"
    return "$rc"
}

BESIDE_PIDS=()
BESIDE_NAMES=()
BESIDE_STARTS=()
beside() {
    local name=$1 log
    shift
    log=${BESIDE_DIR:-${TMPDIR:-/tmp}}/beside-${#BESIDE_PIDS[@]}.log
    mkdir -p "$(dirname "$log")"
    printf -- '%s %s: started beside the next steps\n' "$STEP_MARK" "$name"
    (
        start=$SECONDS rc=0
        ("$@") || rc=$?
        echo $((SECONDS - start)) >"$log.time"
        exit "$rc"
    ) >"$log" 2>&1 &
    BESIDE_PIDS+=($!)
    BESIDE_NAMES+=("$name")
    BESIDE_STARTS+=("$SECONDS")
}

joined() {
    local i rc failed=() log
    for i in "${!BESIDE_PIDS[@]}"; do
        rc=0
        wait "${BESIDE_PIDS[$i]}" || rc=$?
        log=${BESIDE_DIR:-${TMPDIR:-/tmp}}/beside-$i.log
        local took
        took=$(cat "$log.time" 2>/dev/null || echo $((SECONDS - BESIDE_STARTS[i])))
        if [ "$rc" = 0 ]; then
            printf -- '\n%s %s (beside)\n' "$STEP_MARK" "${BESIDE_NAMES[$i]}"
            cat "$log"
            printf -- '%s %s (beside): %d s\n' "$STEP_MARK" "${BESIDE_NAMES[$i]}" "$took"
            STEP_TIMES+=("$took	${BESIDE_NAMES[$i]} (beside)")
        else
            failed+=("$i")
        fi
    done
    for i in "${failed[@]}"; do
        log=${BESIDE_DIR:-${TMPDIR:-/tmp}}/beside-$i.log
        printf -- '\n%s FAILED: %s (beside); its output:\n' "$STEP_MARK" "${BESIDE_NAMES[$i]}"
        tail -n 300 "$log"
        printf -- '%s FAILED: %s (beside)\n' "$STEP_MARK" "${BESIDE_NAMES[$i]}"
    done
    BESIDE_PIDS=()
    BESIDE_NAMES=()
    BESIDE_STARTS=()
    [ ${#failed[@]} = 0 ]
}
