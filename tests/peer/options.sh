#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of tally record's --fn-skip, --skip-direct-rec,
# --separate-recs[N] and --separate-callers[N] against Callgrind 3.19, in
# one environment (`env -i`, one VALGRIND_LIB holding both tools, as
# tests/peer/callgraph.sh). On tests/peer/options/opts.c (recursion, a
# function to skip, PLT calls into libc), for each set of options:
#  - the calls among the program's functions (names with their 'K levels
#    and 'caller contexts, and counts) equal Callgrind's;
#  - the self costs of its functions equal Callgrind's, apart from main,
#    whose difference from Callgrind's (the PLT stubs main calls through,
#    which tally charges to their targets) is the one without options;
#  - the calls into libc through the PLT equal Callgrind's (--skip-plt=yes,
#    its default; --skip-plt=no is in tests/peer/format.sh).
# tally refuses a --separate-recs without a function.
. "$(dirname "$0")/../lib.sh"

peer_start
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH"
CHECK="python3 $ROOT/tests/tools/cgcheck.py"
if ! cc -O1 -g -fno-inline -o "$TMP/opts" "$ROOT/tests/peer/options/opts.c" 2>"$TMP/ccerr"; then
    not_ok "the test program builds"
    diag <"$TMP/ccerr"
    exit 1
fi

# run NAME CALLGRIND-OPTIONS -- TALLY-OPTIONS
run() {
    n=$1
    shift
    copts=
    while [ "$1" != "--" ]; do copts="$copts $1"; shift; done
    shift
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --callgrind-out-file="$TMP/$n.cg" \
        $copts ./opts >/dev/null 2>"$TMP/$n.cgerr" </dev/null)
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
        --out-file="$TMP/$n.tl" "$@" ./opts >/dev/null 2>"$TMP/$n.tlerr" </dev/null)
}
own() { # FILE KIND: the program's functions only (not main's roots, not 0x...)
    $CHECK "$2" "$1" /opts | grep -E "^(fib|ping|pong|helper|leaf|via)"
}
main_self() { $CHECK self-in "$1" /opts | sed -n "s/^main.* \([0-9]*\)$/\1/p"; }

compare() { # NAME LABEL
    n=$1
    own "$TMP/$n.cg" arcs-in >"$TMP/$n.ca"
    own "$TMP/$n.tl" arcs-in >"$TMP/$n.ta"
    $CHECK arcs-in "$TMP/$n.cg" /opts | grep "^main" >>"$TMP/$n.ca"
    $CHECK arcs-in "$TMP/$n.tl" /opts | grep "^main" >>"$TMP/$n.ta"
    same_text "$2: calls among the program's functions equal Callgrind's ($(wc -l <"$TMP/$n.ca") arcs)" \
        "$TMP/$n.ca" "$TMP/$n.ta"
    own "$TMP/$n.cg" self-in >"$TMP/$n.cs"
    own "$TMP/$n.tl" self-in >"$TMP/$n.ts"
    same_text "$2: self costs of the program's functions equal Callgrind's ($(wc -l <"$TMP/$n.cs") functions)" \
        "$TMP/$n.cs" "$TMP/$n.ts"
    d=$(($(main_self "$TMP/$n.cg") - $(main_self "$TMP/$n.tl")))
    if [ "$d" = "$base_d" ]; then
        ok "$2: main's self cost differs from Callgrind's as without options ($d)"
    else
        not_ok "$2: main's self cost differs from Callgrind's as without options ($d, not $base_d)"
    fi
}

run base --separate-recs=1 --
base_d=$(($(main_self "$TMP/base.cg") - $(main_self "$TMP/base.tl")))
compare base "no options (Callgrind --separate-recs=1)"
$CHECK arcs "$TMP/base.cg" | grep -E "^main -> (puts|snprintf|__strlen)" >"$TMP/plt.c"
$CHECK arcs "$TMP/base.tl" | grep -E "^main -> (puts|snprintf|__strlen)" >"$TMP/plt.t"
same_text "--skip-plt=yes: main's calls through the PLT into libc equal Callgrind's" \
    "$TMP/plt.c" "$TMP/plt.t"

run skip --separate-recs=1 --fn-skip='help*' -- --fn-skip='help*'
compare skip "--fn-skip='help*'"
if grep -q helper "$TMP/skip.tl"; then
    not_ok "--fn-skip: the skipped function is not in the file"
else
    ok "--fn-skip: the skipped function is not in the file"
fi
run recs2 -- --separate-recs=2
compare recs2 "--separate-recs=2 (Callgrind's default)"
run recs3 --separate-recs=3 -- --separate-recs=3
compare recs3 "--separate-recs=3"
run dr --skip-direct-rec=yes -- --separate-recs=2 --skip-direct-rec=yes
compare dr "--separate-recs=2 --skip-direct-rec=yes"
run cal1 --separate-callers=1 -- --separate-recs=2 --separate-callers=1
compare cal1 "--separate-recs=2 --separate-callers=1"
run cal2 --separate-recs=1 --separate-callers=2 -- --separate-callers=2
compare cal2 "--separate-callers=2"
run calfn --separate-recs=1 --separate-callers2=helper -- --separate-callers2=helper
compare calfn "--separate-callers2=helper"

# what tally refuses
for o in --separate-recs3= --separate-recs=x; do
    if "$TALLY" record "$o" -- true >/dev/null 2>"$TMP/err"; then
        not_ok "$o is refused"
    else
        ok "$o is refused ($(head -c 60 "$TMP/err"))"
    fi
done

