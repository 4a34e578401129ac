# Shared helpers for the shell tests (sourced). Output is TAP-like:
# "ok N - name" or "not ok N - name" plus diagnostics prefixed by "# ".
# TALLY is the binary under test (set by tests/run.sh, else build/tally).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TALLY=${TALLY:-$ROOT/build/tally}
TESTN=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { TESTN=$((TESTN + 1)); echo "ok $TESTN - $1"; }
not_ok() { TESTN=$((TESTN + 1)); echo "not ok $TESTN - $1"; }
diag() { sed 's/^/# /'; }

# check NAME COMMAND... : ok when the command succeeds
check() {
    name=$1; shift
    if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name"; diag <"$TMP/check.out"; fi
}

# same_text NAME EXPECTED ACTUAL : ok when both files are identical
same_text() {
    if diff -u "$2" "$3" >"$TMP/diff.out" 2>&1; then ok "$1"; else
        not_ok "$1"; head -n 80 "$TMP/diff.out" | diag; fi
}

# run_tally WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS...
# Runs "$TALLY ARGS" (in $RUN_DIR when set) with no standard input, keeping
# its output in $TMP/out and $TMP/err. An empty pattern means that stream
# must be empty; patterns are extended regexes. Sets $why: empty when the
# exit code and both streams are as wanted, else what differed.
run_tally() {
    want=$1 outpat=$2 errpat=$3
    shift 3
    (cd "${RUN_DIR:-.}" && "$TALLY" "$@") >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    why=""
    [ "$rc" = "$want" ] || why="exit code $rc, expected $want"
    if [ -z "$outpat" ]; then
        [ -s "$TMP/out" ] && why="$why; unexpected stdout"
    else
        grep -Eq -- "$outpat" "$TMP/out" || why="$why; stdout lacks /$outpat/"
    fi
    if [ -z "$errpat" ]; then
        [ -s "$TMP/err" ] && why="$why; unexpected stderr"
    else
        grep -Eq -- "$errpat" "$TMP/err" || why="$why; stderr lacks /$errpat/"
    fi
}

# expect_run NAME WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS...
# run_tally, then one TAP line; on failure the streams are shown.
expect_run() {
    name=$1
    shift
    run_tally "$@"
    if [ -z "$why" ]; then ok "$name"; else
        not_ok "$name"
        { echo "$why"; echo "stdout:"; head -n 20 "$TMP/out"; echo "stderr:"; head -n 20 "$TMP/err"; } | diag
    fi
}
