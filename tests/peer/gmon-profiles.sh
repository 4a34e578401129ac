# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the gprof peer tests (a library, not a test: tests/run.sh
# skips it). make_gmon_profiles builds the programs of examples/gprof/ with
# -pg (into build/gprof-examples/, see examples/gprof/Makefile) and runs
# each once to get its gmon.out, kept in build/gprof-profiles/ and reused
# while the binaries and this script do not change. Samples differ from run
# to run, so every comparison runs tally and gprof on the SAME files.
#
# Sets GEX (the binaries, plus cs.map) and GPROF (the profiles):
#   cycles.gmon        cycles (300 loops, ~0.7 s of samples)
#   cycles.b.gmon      cycles 100 (a second run, to sum with the first)
#   cycles-nopie.gmon  cycles-nopie
#   cycles-moved.gmon  cycles-moved 100
#   selfrec.gmon       selfrec (fib 24)
#   selfrec.b.gmon     selfrec 20
#   selfrec-O2.gmon    selfrec-O2
#   cs.gmon            cs
#   many.gmon          many 300
#   shapes.gmon        shapes
# Programs run in a scratch folder under GPROF, so gmon.out lands there.
GEX="$ROOT/build/gprof-examples"
GPROF="$ROOT/build/gprof-profiles"
GMON_RUNS="cycles:cycles: cycles.b:cycles:100 cycles-nopie:cycles-nopie: cycles-moved:cycles-moved:100
selfrec:selfrec:
selfrec.b:selfrec:20 selfrec-O2:selfrec-O2: cs:cs: many:many:300 shapes:shapes:"

make_gmon_profiles() {
    make -s -C "$ROOT/examples/gprof" OUT="$GEX" >/dev/null || return 1
    mkdir -p "$GPROF/run"
    stamp="$GPROF/.stamp"
    if [ -f "$stamp" ] && [ "$stamp" -nt "$ROOT/tests/peer/gmon-profiles.sh" ]; then
        fresh=yes
        for b in "$GEX"/*; do
            [ -x "$b" ] && [ "$b" -nt "$stamp" ] && fresh=no
        done
        [ "$fresh" = yes ] && return 0
    fi
    rm -f "$GPROF"/*.gmon
    for r in $GMON_RUNS; do
        name=${r%%:*} rest=${r#*:}
        prog=${rest%%:*} arg=${rest#*:}
        (
            cd "$GPROF/run" || exit 1
            rm -f gmon.out
            # shellcheck disable=SC2086 # the argument is absent or one word
            "$GEX/$prog" $arg >/dev/null && [ -s gmon.out ] && mv gmon.out "$GPROF/$name.gmon"
        ) || { echo "gmon-profiles: running $prog $arg failed" >&2; return 1; }
    done
    touch "$stamp"
}
