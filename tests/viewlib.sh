# Shared by tests/cli/view.sh and tests/cli/report.sh (sourced after lib.sh):
# a tally view server in the background, and checkers' PASS/FAIL lines as
# TAP.

# start_view LOG ARGS... : start tally view in the background; sets $VPID and $URL
start_view() {
    log=$1
    shift
    : >"$log"
    "$TALLY" view --no-browser "$@" 2>"$log" &
    VPID=$!
    URL=""
    for _ in $(seq 1 100); do
        URL=$(sed -n 's/^tally: view at //p' "$log")
        [ -n "$URL" ] && break
        kill -0 "$VPID" 2>/dev/null || break
        sleep 0.1
    done
}

# stop_view NAME : SIGTERM, then it must end with status 0 within 5 s
stop_view() {
    kill -TERM "$VPID" 2>/dev/null
    for _ in $(seq 1 50); do
        kill -0 "$VPID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$VPID" 2>/dev/null; then
        kill -KILL "$VPID"
        not_ok "$1: stops on SIGTERM"
    else
        wait "$VPID"
        rc=$?
        if [ $rc = 0 ]; then ok "$1: stops on SIGTERM with status 0"; else
            not_ok "$1: status $rc after SIGTERM"; diag <"$TMP/v.log"; fi
    fi
}

# checks PREFIX COMMAND... : the PASS/FAIL lines of viewcheck.py as TAP
checks() {
    prefix=$1
    shift
    "$@" >"$TMP/checks.out" 2>&1
    while IFS= read -r line; do
        case $line in
        PASS\ *) ok "$prefix: ${line#PASS }" ;;
        FAIL\ *) not_ok "$prefix: ${line#FAIL }" ;;
        *) echo "$line" | diag ;;
        esac
    done <"$TMP/checks.out"
    grep -q '^PASS' "$TMP/checks.out" || not_ok "$prefix: the checker ran"
}

