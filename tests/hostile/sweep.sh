#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mutation sweep, short version (make check): mutants of the real files
# of tests/fuzz/corpus and of a gmon.out through every command, on the
# ASan+UBSan build when there is one. `make hostile` runs the long version
# (SWEEP_MUTANTS=1500). See tests/hostile/sweep.py for what is counted.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"

T=${ASAN_TALLY:-$ROOT/build/asan/tally}
[ -x "$T" ] || T=$TALLY
N=${SWEEP_MUTANTS:-40}
C="$ROOT/tests/fuzz/corpus"
set -- "$C"/fuzz_callgrind/* "$C"/fuzz_cachegrind/* "$C"/fuzz_contexts/* "$C"/fuzz_aprof/*
EXE=""
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    EXE="$GEX/cycles"
    set -- "$@" "$GPROF/cycles.gmon"
fi
python3 "$ROOT/tests/hostile/sweep.py" --tally "$T" --mutants "$N" --seed "${SWEEP_SEED:-14}" \
    --work "$TMP/sweep" ${EXE:+--gmon-exe "$EXE"} "$@" >"$TMP/sweep.txt" 2>&1
rc=$?
echo "# $(basename "$T"): $(head -n 1 "$TMP/sweep.txt")"
for what in "crashes 0" "hangs 0" "sanitizer reports 0" "refusals without a file name 0" \
    "leftovers 0"; do
    if head -n 1 "$TMP/sweep.txt" | grep -q "$what"; then ok "sweep of $N mutants: $what"; else
        not_ok "sweep of $N mutants: $what"
    fi
done
if [ $rc != 0 ]; then head -n 60 "$TMP/sweep.txt" | diag; fi
[ $rc = 0 ] || [ $rc = 1 ] || not_ok "sweep.py itself failed (exit $rc)"
