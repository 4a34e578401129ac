#!/bin/sh
# tally's own performance gate: the instructions of the callgrind reader
# (callgrind_read, under tally record --clean-env --toggle-collect) while
# `tally annotate` reads tests/data/check/annotate-input.out, checked with
# tally check against the baseline committed in tests/data/check/reader.out.
# A regression of the reader by more than 2% fails. The count is exact on
# one machine (checked: two recordings agree) but depends on the compiler,
# its flags, the C library and the CPU: on a machine whose fingerprint
# differs from tests/data/check/reader.env the comparison is skipped.
# Refresh the baseline with: sh scripts/check-baseline.sh
. "$(dirname "$0")/../lib.sh"

case $TALLY in
*/asan/*)
    ok "# SKIP the self-check measures the optimised build (build/tally), not ASan"
    exit 0
    ;;
esac
if ! command -v valgrind >/dev/null 2>&1 || [ ! -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ]; then
    ok "# SKIP no valgrind or no tool built"
    exit 0
fi
here=$(sh "$ROOT/scripts/check-baseline.sh" --fingerprint)
if [ "$here" != "$(cat "$ROOT/tests/data/check/reader.env")" ]; then
    ok "# SKIP the baseline was made on another toolchain or CPU; refresh it with sh scripts/check-baseline.sh"
    { echo "baseline:"; cat "$ROOT/tests/data/check/reader.env"; echo "here:"; echo "$here"; } | diag
    exit 0
fi

# two recordings give the same count (the gate needs no noise margin)
TMPDIR=$TMP sh "$ROOT/scripts/check-baseline.sh" --check --format=json --limit='Ir<=1e15' >"$TMP/r1.json"
TMPDIR=$TMP sh "$ROOT/scripts/check-baseline.sh" --check --format=json --limit='Ir<=1e15' >"$TMP/r2.json"
n1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][0]["new"])' "$TMP/r1.json" 2>&1)
n2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][0]["new"])' "$TMP/r2.json" 2>&1)
if [ -n "$n1" ] && [ "$n1" = "$n2" ] && [ "$n1" -gt 1000000 ]; then
    ok "two recordings of the reader count the same instructions ($n1)"
else
    not_ok "two recordings of the reader count the same instructions ($n1, $n2)"
fi

# the gate itself: exit 0 within +2% of the committed baseline
TMPDIR=$TMP sh "$ROOT/scripts/check-baseline.sh" --check --limit=Ir=+2% >"$TMP/gate.txt" 2>&1
rc=$?
if [ "$rc" = 0 ]; then ok "the callgrind reader is within +2% of its committed baseline"; else
    not_ok "the callgrind reader is within +2% of its committed baseline (exit $rc; if the change is meant, refresh with sh scripts/check-baseline.sh)"
    diag <"$TMP/gate.txt"
fi

# and it bites: a hard limit one instruction below what was counted fails
TMPDIR=$TMP sh "$ROOT/scripts/check-baseline.sh" --check --limit="Ir<=$((n1 - 1))" >"$TMP/bite.txt" 2>&1
rc=$?
if [ "$rc" = 3 ]; then ok "a limit below the count fails the gate (exit 3)"; else
    not_ok "a limit below the count fails the gate (exit $rc)"; diag <"$TMP/bite.txt"; fi
