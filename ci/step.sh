# Sourced by the CI scripts. `step NAME` prints a header for the step that
# starts, after a line saying how long the one before it took; `step` alone
# closes the last. STEP_MARK, set before sourcing, marks the headers:
# .ci/run's with ===, the scripts it calls with --- (the default).
STEP_MARK=${STEP_MARK:----}
STEP_START=$SECONDS
STEP_NAME=
step() {
    [ -z "$STEP_NAME" ] || printf -- '%s %s: %d s\n' "$STEP_MARK" "$STEP_NAME" $((SECONDS - STEP_START))
    STEP_NAME=$*
    STEP_START=$SECONDS
    [ $# -eq 0 ] || printf -- '\n%s %s\n' "$STEP_MARK" "$*"
}
