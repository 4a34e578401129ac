#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of tally record's options of the file's form against Callgrind
# 3.19, in one environment (`env -i`, one VALGRIND_LIB holding both tools,
# as tests/peer/options.sh), on tests/peer/options/opts.c:
#   --compress-strings=no  names in full every time, no (N) ids;
#   --compress-pos=no      every position absolute (no +n, -n, *);
#   --dump-line=no         with --dump-instr=yes, `positions: instr` and
#                          addresses alone; without it, Callgrind's "Using
#                          source line as position." and lines as usual.
# For each, the form of tally's file is Callgrind's (same `positions:`,
# ids and subpositions present or not in both, the same fields in calls=
# lines), and the file holds what the default file of the same options
# holds: the self costs and calls of the program's functions, `tally
# annotate`'s output and callgrind_annotate's rows (no warnings).
. "$(dirname "$0")/../lib.sh"

peer_start callgrind_annotate
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=/usr/bin:/bin"
CHECK="python3 $ROOT/tests/tools/cgcheck.py"
if ! cc -O1 -g -fno-inline -o "$TMP/opts" "$ROOT/tests/peer/options/opts.c" 2>"$TMP/ccerr"; then
    not_ok "the test program builds"
    diag <"$TMP/ccerr"
    exit 1
fi

# run NAME OPTIONS...: NAME.cg from Callgrind, NAME.tl from tally
run() {
    n=$1
    shift
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --callgrind-out-file="$TMP/$n.cg" \
        "$@" ./opts >/dev/null 2>"$TMP/$n.cgerr" </dev/null)
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record --cache-sim=no \
        --out-file="$TMP/$n.tl" "$@" ./opts >/dev/null 2>"$TMP/$n.tlerr" </dev/null)
}

# same_data NAME BASE LABEL [CALLGRIND_ANNOTATE-OPTIONS]: tally's NAME.tl
# holds what BASE.tl holds
same_data() {
    n=$1 b=$2 label=$3
    shift 3
    for k in self-in arcs-in; do
        $CHECK $k "$TMP/$b.tl" /opts >"$TMP/$b.$k"
        $CHECK $k "$TMP/$n.tl" /opts >"$TMP/$n.$k"
    done
    cat "$TMP/$b.self-in" "$TMP/$b.arcs-in" >"$TMP/$b.own"
    cat "$TMP/$n.self-in" "$TMP/$n.arcs-in" >"$TMP/$n.own"
    same_text "$label: the self costs and calls of the program's functions are the default file's" \
        "$TMP/$b.own" "$TMP/$n.own"
    for x in "$b" "$n"; do
        "$TALLY" annotate "$@" "$TMP/$x.tl" 2>&1 | grep -v -e "^Profile data file" -e "(PID " >"$TMP/$x.ta"
        callgrind_annotate "$@" "$TMP/$x.tl" 2>"$TMP/$x.caerr" |
            grep -v -e "^Profile data file" -e "(PID " >"$TMP/$x.ca"
    done
    same_text "$label: tally annotate $* prints what it prints for the default file" \
        "$TMP/$b.ta" "$TMP/$n.ta"
    same_text "$label: callgrind_annotate $* prints what it prints for the default file" \
        "$TMP/$b.ca" "$TMP/$n.ca"
    if [ -s "$TMP/$n.caerr" ]; then
        not_ok "$label: callgrind_annotate $* reads the file without warnings"
        head -n 5 "$TMP/$n.caerr" | diag
    else
        ok "$label: callgrind_annotate $* reads the file without warnings"
    fi
}

# same_count NAME LABEL REGEX: as many lines match REGEX in tally's file
# as in Callgrind's, both none or both some
same_count() {
    c=$(grep -c -E -- "$3" "$TMP/$1.cg")
    t=$(grep -c -E -- "$3" "$TMP/$1.tl")
    if { [ "$c" = 0 ] && [ "$t" = 0 ]; } || { [ "$c" != 0 ] && [ "$t" != 0 ]; }; then
        ok "$2 (Callgrind $c, tally $t)"
    else
        not_ok "$2 (Callgrind $c, tally $t)"
    fi
}

same_positions() { # NAME LABEL
    grep "^positions:" "$TMP/$1.cg" >"$TMP/$1.cpos"
    grep "^positions:" "$TMP/$1.tl" >"$TMP/$1.tpos"
    same_text "$2: positions: as Callgrind's ($(cat "$TMP/$1.cpos"))" "$TMP/$1.cpos" "$TMP/$1.tpos"
}

# (Callgrind's "(below main)" is a name, not an id)
IDS='^c?(ob|fl|fi|fe|fn)=\([0-9]|^(cfi|cfl|jfi|jfn)=\([0-9]'
SUBPOS='^[-+*]|^0x[0-9a-f]+ [-+*]|^calls=[0-9]+ [-+*]'

run base
run instr --dump-instr=yes
same_count base "default: names as (N) ids" "$IDS"
same_count instr "--dump-instr=yes: subpositions" "$SUBPOS"

run cs --compress-strings=no
same_count cs "--compress-strings=no: no (N) ids" "$IDS"
same_count cs "--compress-strings=no: function names in full" "^fn=main$"
same_positions cs "--compress-strings=no"
same_data cs base "--compress-strings=no"
run csi --compress-strings=no --dump-instr=yes --collect-jumps=yes
same_count csi "--compress-strings=no --dump-instr=yes --collect-jumps=yes: no (N) ids" "$IDS"
same_count csi "--compress-strings=no --dump-instr=yes --collect-jumps=yes: jump targets in full" \
    "^jfi=[^(]"
same_data csi instr "--compress-strings=no --dump-instr=yes --collect-jumps=yes"

run cp --compress-pos=no
same_count cp "--compress-pos=no: no subpositions" "$SUBPOS"
same_data cp base "--compress-pos=no"
run cpi --compress-pos=no --dump-instr=yes
same_count cpi "--compress-pos=no --dump-instr=yes: no subpositions" "$SUBPOS"
same_count cpi "--compress-pos=no --dump-instr=yes: absolute positions" "^0x[0-9a-f]+ [0-9]+ [0-9]"
same_positions cpi "--compress-pos=no --dump-instr=yes"
same_data cpi instr "--compress-pos=no --dump-instr=yes"

run dl --dump-line=no
same_positions dl "--dump-line=no"
if grep -q "Using source line as position\." "$TMP/dl.cgerr" &&
    grep -q "Using source line as position\." "$TMP/dl.tlerr"; then
    ok "--dump-line=no without --dump-instr: lines, said as Callgrind says it"
else
    not_ok "--dump-line=no without --dump-instr: lines, said as Callgrind says it"
    diag <"$TMP/dl.tlerr"
fi
same_data dl base "--dump-line=no"
run dli --dump-line=no --dump-instr=yes --collect-jumps=yes
same_positions dli "--dump-line=no --dump-instr=yes"
same_count dli "--dump-line=no --dump-instr=yes: calls= with a line" "^calls=[0-9]+ 0x[0-9a-f]+ +[0-9]"
same_count dli "--dump-line=no --dump-instr=yes: calls= with an address" "^calls=[0-9]+ 0x[0-9a-f]+ *$"
same_count dli "--dump-line=no --dump-instr=yes: jumps with a line" "^j(ump|cnd)=[0-9/]+ 0x[0-9a-f]+ +[0-9]"
# callgrind_annotate cannot annotate source without lines (it warns on
# Callgrind's file too): rows only
same_data dli instr "--dump-line=no --dump-instr=yes" --auto=no

# --skip-plt=no: each stub of .plt is a function `0x... [PLT]` (object ???)
# between the caller and the target, with the stub's code as its self cost
(cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --callgrind-out-file="$TMP/plt.cg" \
    --separate-recs=1 --skip-plt=no ./opts >/dev/null 2>"$TMP/plt.cgerr" </dev/null)
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record --cache-sim=no \
    --out-file="$TMP/plt.tl" --skip-plt=no ./opts >/dev/null 2>"$TMP/plt.tlerr" </dev/null)
$CHECK arcs "$TMP/plt.cg" | grep -F "[PLT]" >"$TMP/plt.ca"
$CHECK arcs "$TMP/plt.tl" | grep -F "[PLT]" >"$TMP/plt.ta"
same_text "--skip-plt=no: the calls into and out of PLT stubs equal Callgrind's ($(wc -l <"$TMP/plt.ca") arcs)" \
    "$TMP/plt.ca" "$TMP/plt.ta"
$CHECK self-in "$TMP/plt.cg" '???' | grep -F "[PLT]" >"$TMP/plt.cs"
$CHECK self-in "$TMP/plt.tl" '???' | grep -F "[PLT]" >"$TMP/plt.ts"
same_text "--skip-plt=no: the self costs of the PLT stubs equal Callgrind's ($(wc -l <"$TMP/plt.cs") stubs)" \
    "$TMP/plt.cs" "$TMP/plt.ts"
$CHECK self-in "$TMP/plt.cg" /opts | grep -E "^(main|fib|ping|pong|helper|leaf|via)" >"$TMP/plt.cm"
$CHECK self-in "$TMP/plt.tl" /opts | grep -E "^(main|fib|ping|pong|helper|leaf|via)" >"$TMP/plt.tm"
same_text "--skip-plt=no: the self costs of the program's functions (main's too) equal Callgrind's" \
    "$TMP/plt.cm" "$TMP/plt.tm"
for x in base plt; do
    "$TALLY" annotate "$TMP/$x.tl" 2>&1 | grep "PROGRAM TOTALS" >"$TMP/$x.tt"
    callgrind_annotate "$TMP/$x.tl" 2>"$TMP/$x.caerr" | grep "PROGRAM TOTALS" >"$TMP/$x.ct"
done
same_text "--skip-plt=no: tally annotate's totals are the default file's" "$TMP/base.tt" "$TMP/plt.tt"
same_text "--skip-plt=no: callgrind_annotate's totals are the default file's" "$TMP/base.ct" "$TMP/plt.ct"
if [ -s "$TMP/plt.caerr" ]; then
    not_ok "--skip-plt=no: callgrind_annotate reads the file without warnings"
    head -n 5 "$TMP/plt.caerr" | diag
else
    ok "--skip-plt=no: callgrind_annotate reads the file without warnings"
fi
"$TALLY" annotate "$TMP/plt.tl" 2>&1 | grep -F "[PLT]" | sed 's/ *(.*%) *//' | sort >"$TMP/plt.tr"
callgrind_annotate "$TMP/plt.tl" 2>/dev/null | grep -F "[PLT]" | sed 's/ *(.*%) *//' | sort >"$TMP/plt.cr"
same_text "--skip-plt=no: tally annotate and callgrind_annotate show the same stub rows ($(wc -l <"$TMP/plt.cr"))" \
    "$TMP/plt.cr" "$TMP/plt.tr"

# values tally record checks before Valgrind starts
for o in --compress-strings=maybe --compress-pos= --dump-line=1; do
    if "$TALLY" record "$o" -- true >/dev/null 2>"$TMP/err"; then
        not_ok "$o is refused"
    else
        ok "$o is refused ($(head -c 60 "$TMP/err"))"
    fi
done
