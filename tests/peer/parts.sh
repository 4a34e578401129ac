#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of the parts `tally record` writes (Callgrind's client requests
# and the options that make parts) against Callgrind 3.19.
#
# tests/peer/callgraph/requests.c uses every request of callgrind.h: dumps
# with and without a label, zero, toggle, instrumentation off and on. It
# runs under Callgrind and under tally record in one environment (as in
# callgraph.sh), once per option. tests/tools/partcmp.py then compares the
# files part by part: the same number of parts, `part:` numbers and
# `desc: Trigger:` lines; the totals and main's self cost within 16 Ir (a
# block that runs across a dump or a switch: Callgrind charges it when it
# starts, tally as its instructions run); the self costs of work, phase_a
# and phase_b (whole calls inside one part) equal.
# --dump-every-bb: the same parts as Callgrind's, at the same points.
# tally annotate reads every part (its total is their sum).
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1 || [ ! -f /usr/include/valgrind/callgrind.h ]; then
    ok "skipped: no Valgrind or no callgrind.h"
    exit 0
fi
if [ ! -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ]; then
    not_ok "tally's Valgrind tool is built"
    exit 1
fi
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=/usr/bin:/bin"
CMP="python3 $ROOT/tests/tools/partcmp.py"
cc -O1 -g -o "$TMP/requests" "$ROOT/tests/peer/callgraph/requests.c" 2>"$TMP/ccerr" || {
    not_ok "requests.c builds"
    diag <"$TMP/ccerr"
    exit 1
}

# run NAME OPTIONS...: $TMP/NAME.cg (Callgrind), $TMP/NAME.tl (tally)
run() {
    n=$1
    shift
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --combine-dumps=yes \
        --callgrind-out-file="$TMP/$n.cg" "$@" ./requests >/dev/null 2>"$TMP/$n.cgerr" </dev/null)
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
        --out-file="$TMP/$n.tl" "$@" ./requests >/dev/null 2>"$TMP/$n.tlerr" </dev/null)
}

compare() { # NAME PARTCMP-OPTIONS... CGFILES TLFILES
    n=$1
    shift
    if $CMP "$@" >"$TMP/$n.cmp" 2>&1; then
        ok "$n: parts as Callgrind's ($(grep -c '^part' "$TMP/$n.cmp") parts)"
    else
        not_ok "$n: parts as Callgrind's"
        diag <"$TMP/$n.cmp"
    fi
}

FNS="--tol 16 --fns main --exact work,phase_a,phase_b"
run requests
compare requests $FNS "$TMP/requests.cg" "$TMP/requests.tl"
run dumpbefore --dump-before=phase_a
compare dump-before $FNS "$TMP/dumpbefore.cg" "$TMP/dumpbefore.tl"
run dumpafter --dump-after=phase_b
compare dump-after $FNS "$TMP/dumpafter.cg" "$TMP/dumpafter.tl"
run zerobefore --zero-before=phase_b
compare zero-before $FNS "$TMP/zerobefore.cg" "$TMP/zerobefore.tl"
run instroff --instr-atstart=no
compare instr-atstart=no $FNS "$TMP/instroff.cg" "$TMP/instroff.tl"

# --instr-at-start (Cachegrind's name) is the same option
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
    --out-file="$TMP/instroff2.tl" --instr-at-start=no ./requests >/dev/null 2>&1 </dev/null)
compare instr-at-start=no $FNS "$TMP/instroff.cg" "$TMP/instroff2.tl"

# --dump-every-bb: the same parts at the same points, also around the
# requests and while instrumentation is off (no loop unrolled, the count
# checked when the scheduler has run 5,000 blocks, as Callgrind does)
for every in 10000 1000 100; do
    run everybb$every --dump-every-bb=$every
    compare "dump-every-bb=$every" --tol 16 --fns main,work "$TMP/everybb$every.cg" "$TMP/everybb$every.tl"
done

# --combine-dumps=no: Callgrind's file names, one part each
(cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind \
    --callgrind-out-file="$TMP/sep.cg" ./requests >/dev/null 2>&1 </dev/null)
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --combine-dumps=no \
    --callgrind-out-file="$TMP/sep.tl" ./requests >/dev/null 2>&1 </dev/null)
cgl=$(cd "$TMP" && ls sep.cg* | sed 's/^sep\.cg//' | tr '\n' ' ')
tll=$(cd "$TMP" && ls sep.tl* | sed 's/^sep\.tl//' | tr '\n' ' ')
if [ "$cgl" = "$tll" ]; then ok "combine-dumps=no: the same files ($cgl)"; else
    not_ok "combine-dumps=no: the same files"
    echo "Callgrind: $cgl; tally: $tll" | diag
fi
files() { for s in .1 .2 .3 .4 ''; do printf '%s%s:' "$TMP/$1" "$s"; done | sed 's/:$//'; }
compare combine-dumps=no $FNS "$(files sep.cg)" "$(files sep.tl)"

# Each thread's own collection state (tests/peer/callgraph/threadcollect.c):
# B's loop is never counted, whatever the interleaving; a signal handler
# starts from --collect-atstart. The loops' counts do not depend on the
# schedule and are compared exactly; the totals within 100 Ir (with the
# start-up code collected, the blocks that cross a function's edge are
# charged a few Ir apart, as in every run of both tools); within 5000 Ir
# where the workers are collected (how long they wait for each other at the
# end depends on the schedule).
if cc -O1 -g -pthread -o "$TMP/threadcollect" "$ROOT/tests/peer/callgraph/threadcollect.c" \
    2>"$TMP/ccerr"; then
    k=0
    # --fair-sched=yes: the threads take turns (Valgrind's default lock lets
    # one thread run on for long, so the others' loops might not overlap)
    for opts in "--toggle-collect=measured" "--collect-atstart=no" \
        "--toggle-collect=main --collect-atstart=yes" "--toggle-collect=measured --separate-threads=yes"; do
        opts="--fair-sched=yes $opts"
        k=$((k + 1))
        # shellcheck disable=SC2086 # the options are words
        (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind \
            --callgrind-out-file="$TMP/tc$k.cg" $opts ./threadcollect >/dev/null 2>&1 </dev/null)
        # shellcheck disable=SC2086
        (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
            --out-file="$TMP/tc$k.tl" $opts ./threadcollect >/dev/null 2>&1 </dev/null)
        cgf="$TMP/tc$k.cg" tlf="$TMP/tc$k.tl" tol=100
        case $opts in *atstart=yes*) tol=5000 ;; esac
        case $opts in *separate-threads*)
            cgf=$(cd "$TMP" && ls tc$k.cg-* | sed "s|^|$TMP/|" | tr '\n' ':' | sed 's/:$//')
            tlf=$(cd "$TMP" && ls tc$k.tl-* | sed "s|^|$TMP/|" | tr '\n' ':' | sed 's/:$//')
            ;;
        esac
        compare "threads $opts" --tol $tol --exact spin_a,spin_b,spin_c,measured,on_alarm "$cgf" "$tlf"
    done
else
    not_ok "threadcollect.c builds"
    diag <"$TMP/ccerr"
fi

# tally's reader takes every part: annotate's total is the sum of the parts
sum=$(awk '/^totals:/ { s += $2 } END { print s }' "$TMP/requests.tl")
shown=$("$TALLY" annotate "$TMP/requests.tl" 2>&1 | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
if [ -n "$sum" ] && [ "$sum" = "$shown" ]; then ok "tally annotate reads every part ($sum Ir)"; else
    not_ok "tally annotate reads every part"
    echo "sum of the parts $sum, annotate $shown" | diag
fi
echo "1..$TESTN"
