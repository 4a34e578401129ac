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
