#!/bin/sh
# Peer test: tally annotate against callgrind_annotate / cg_annotate 3.19
# on real profiles of examples/ (tests/peer/profiles.sh). The function rows
# (names and costs) of both outputs are parsed and compared.
#
# Deliberate differences, handled here and listed in docs/tally-annotate.md:
#  - tally strips the current directory from every file name; callgrind_annotate
#    forgets it for cfi= names. Oracle names are normalised the same way, and
#    the oracle's duplicate "/cwd/f.c:fn" rows (which only --inclusive=yes makes)
#    are folded into "f.c:fn".
#  - ties: cg_annotate leaves them in hash order, tally orders them by name, so
#    cachegrind rows (and tree lines) are compared as sets; callgrind rows in order.
#  - --inclusive=yes: rows of recursive functions (a cycle in the oracle's own
#    call graph) differ on purpose; for them we check they never exceed the
#    total. Every other row must be equal.
#  - multi-part files (cgparts.*): callgrind_annotate uses the last part's
#    summary; tally sums all parts, so we check tally's total against the sum
#    of every summary: line instead.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"

if ! command -v callgrind_annotate >/dev/null || ! command -v cg_annotate >/dev/null; then
    echo "ok 1 - # SKIP oracles not installed"; exit 0
fi
make_profiles || { not_ok "make_profiles"; exit 1; }
cd "$ROOT/examples" || exit 1
CWD=$(pwd)

# annotate_rows.pl MODE CWD < report: rows | objrows (rows with their [object]) | tree
parse() { perl "$ROOT/tests/peer/annotate_rows.pl" "$1" "$CWD"; }

# compare NAME KIND(ordered|sets) ORACLE_OUT TALLY_OUT
compare_rows() {
    parse objrows <"$3" >"$TMP/o.rows"; parse objrows <"$4" >"$TMP/t.rows"
    if [ "$2" = sets ]; then sort -o "$TMP/o.rows" "$TMP/o.rows"; sort -o "$TMP/t.rows" "$TMP/t.rows"; fi
    if [ ! -s "$TMP/o.rows" ]; then not_ok "$1 (no rows parsed)"; return; fi
    same_text "$1" "$TMP/o.rows" "$TMP/t.rows"
}

CG_FILES="cg.recurse cg.wordfreq cgx.wordfreq cgx.recurse cgx.matrix"
# tally record's own files go through the same comparisons: callgrind_annotate
# and tally annotate show the same rows on them (one fn id per function,
# cfi=/cob= only where they differ, inlined code under fi=)
if [ -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] &&
    (cd "$ROOT/examples" && "$TALLY" record -q --out-file="$TMP/tl.wordfreq.out" ./wordfreq 5000 \
        >/dev/null 2>&1 && "$TALLY" record -q --dump-instr=yes --cache-sim=yes \
        --branch-sim=yes --out-file="$TMP/tlx.recurse.out" ./recurse >/dev/null 2>&1); then
    cp "$TMP/tl.wordfreq.out" "$TMP/tlx.recurse.out" "$PROF/"
    CG_FILES="$CG_FILES tl.wordfreq tlx.recurse"
else
    not_ok "tally record writes files of the examples to compare"
fi
CACHE_FILES="cache.wordfreq cache.wordfreq2 cache.matrix cache.recurse"

for f in $CG_FILES; do
    in="$PROF/$f.out"
    for opts in "" "--threshold=100" "--show=Ir --sort=Ir" "--threshold=100 --show-percs=no"; do
        callgrind_annotate $opts "$in" >"$TMP/o.txt" 2>/dev/null
        "$TALLY" annotate $opts "$in" >"$TMP/t.txt" 2>"$TMP/t.err"
        compare_rows "callgrind $f ${opts:-default}" ordered "$TMP/o.txt" "$TMP/t.txt"
    done
    case $f in cgx.*)
        callgrind_annotate --sort=Dr "$in" >"$TMP/o.txt" 2>/dev/null
        "$TALLY" annotate --sort=Dr "$in" >"$TMP/t.txt" 2>/dev/null
        compare_rows "callgrind $f --sort=Dr" ordered "$TMP/o.txt" "$TMP/t.txt" ;;
    esac

    # trees: every call edge (caller -> callee, count, costs) as the oracle's
    # '>' lines give them; tally's '<' lines must give the same edges
    callgrind_annotate --tree=both --threshold=100 --auto=no "$in" >"$TMP/o.txt" 2>/dev/null
    "$TALLY" annotate --tree=both --threshold=100 --auto=no "$in" >"$TMP/t.txt" 2>/dev/null
    parse tree <"$TMP/o.txt" | grep '^>' >"$TMP/o.edges"
    parse tree <"$TMP/t.txt" >"$TMP/t.all"
    grep '^>' "$TMP/t.all" >"$TMP/t.edges"
    same_text "callgrind $f --tree=both callee edges" "$TMP/o.edges" "$TMP/t.edges"
    sed 's/^>/</' "$TMP/t.edges" >"$TMP/t.edges2"
    grep '^<' "$TMP/t.all" >"$TMP/t.in"
    same_text "callgrind $f --tree=both caller lines match callee lines" "$TMP/t.edges2" "$TMP/t.in"

    # inclusive: equal outside recursion, never above the total inside it
    total=$(grep -m1 '^summary:' "$in" | awk '{print $2}')
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$in" >"$TMP/o.txt" 2>/dev/null
    "$TALLY" annotate --inclusive=yes --threshold=100 --auto=no "$in" >"$TMP/t.txt" 2>/dev/null
    parse rows <"$TMP/o.txt" >"$TMP/o.rows"; parse rows <"$TMP/t.txt" >"$TMP/t.rows"
    # the oracle's own call graph, for finding recursive functions
    awk -F'\t' '{split($1, a, " -> "); sub(/^> /, "", a[1]); print a[1] "\t" a[2]}' "$TMP/o.edges" >"$TMP/graph"
    if perl "$ROOT/tests/peer/annotate_incl.pl" "$TMP/graph" "$TMP/o.rows" "$TMP/t.rows" "$total" >"$TMP/incl.log" 2>&1; then
        ok "callgrind $f --inclusive=yes (non-recursive equal, recursive <= total): $(tail -n 1 "$TMP/incl.log" | sed "s/^# //")"
    else
        not_ok "callgrind $f --inclusive=yes"; head -n 40 "$TMP/incl.log" | diag
    fi
done

for f in $CACHE_FILES; do
    in="$PROF/$f.out"
    for opts in "" "--threshold=0" "--show=Ir --sort=Ir" "--sort=Dr" "--sort=DLmr:1,Ir" "--show-percs=no"; do
        cg_annotate $opts "$in" >"$TMP/o.txt" 2>/dev/null
        "$TALLY" annotate $opts "$in" >"$TMP/t.txt" 2>"$TMP/t.err"
        compare_rows "cachegrind $f ${opts:-default}" sets "$TMP/o.txt" "$TMP/t.txt"
    done
done

# several parts: the total is the sum of every part's summary
in="$PROF/cgparts.recurse.out"
want=$(awk '/^summary:/ {s += $2} END {print s}' "$in")
got=$("$TALLY" annotate --auto=no "$in" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
if [ "$want" = "$got" ]; then ok "cgparts: total is the sum of all parts ($want)"; else
    not_ok "cgparts: total $got, want $want"; fi
# ... and the rows add up to it (exclusive costs, everything listed)
sum=$("$TALLY" annotate --auto=no --threshold=100 --show-percs=no "$in" >"$TMP/t.txt"; parse rows <"$TMP/t.txt" |
    awk -F'\t' '{split($2, c, " "); s += c[1]} END {print s}')
if [ "$sum" = "$want" ]; then ok "cgparts: rows add up to the total"; else
    not_ok "cgparts: rows add up to $sum, want $want"; fi

# One FILE:FUNCTION row, functions of several objects: code without symbols
# is named by its offset in its object, and every library has an `_init`.
# callgrind_annotate labels the row with the object of the last fn= line
# that named it. Here liba's 0x1000 is seen first, libb's next, and liba's
# named again last; for _init it is the other way round. The outputs must
# be the same text (tally used to label it with the object of the last record it added).
cat >"$TMP/shared.out" <<'CG'
version: 1
creator: tally-test
cmd: shared
positions: line
events: Ir Dr
ob=/bin/prog
fl=prog.c
fn=main
10 40 4
cob=/lib/liba.so
cfi=???
cfn=0x0000000000001000
calls=3 0
11 502 20
ob=/lib/liba.so
fl=???
fn=0x0000000000001000
0 500 20
ob=/lib/libb.so
fl=???
fn=0x0000000000001000
0 30 1
fn=_init
0 7
ob=/lib/liba.so
fl=???
fn=0x0000000000001000
0 2
fn=_init
0 9 2
ob=/lib/libb.so
fl=???
fn=_init
0 1
totals: 589 27
CG
for opts in "--auto=no" "--auto=no --tree=both" "--auto=no --inclusive=yes"; do
    callgrind_annotate $opts "$TMP/shared.out" >"$TMP/o.txt" 2>&1
    "$TALLY" annotate $opts "$TMP/shared.out" >"$TMP/t.txt" 2>&1
    same_text "rows shared by several objects: labelled as callgrind_annotate labels them ($opts)" \
        "$TMP/o.txt" "$TMP/t.txt"
done
grep -q '???:0x0000000000001000 \[/lib/liba.so\]' "$TMP/o.txt" &&
    grep -q '???:_init \[/lib/libb.so\]' "$TMP/o.txt" &&
    ok "callgrind_annotate: the last fn= line names the row's object" ||
    not_ok "callgrind_annotate labels shared rows otherwise than this test assumes"

# 70,000 functions: tally sorts this many rows in two halves on two CPUs
# (report/annotate.c, sort_entries); the costs repeat, so ties are ordered by
# name. Every row must come out as callgrind_annotate prints it.
awk 'BEGIN { print "events: Ir Dr"; print "fl=a.c"
    for (i = 0; i < 70000; i++) {
        printf "fn=f%05d_%d\n0 %d", (i * 7919) % 70000, i % 3, i % 97 + 1
        if (i % 5) printf " %d", i % 5
        printf "\n" } }' >"$TMP/many.out"
callgrind_annotate --threshold=100 "$TMP/many.out" | grep 'a\.c:' >"$TMP/o.txt"
"$TALLY" annotate --threshold=100 "$TMP/many.out" | grep 'a\.c:' >"$TMP/t.txt"
[ "$(wc -l <"$TMP/o.txt")" -eq 70000 ] && cmp -s "$TMP/o.txt" "$TMP/t.txt" &&
    ok "70,000 rows with ties: the order and costs of callgrind_annotate" ||
    not_ok "70,000 rows with ties differ from callgrind_annotate ($(diff "$TMP/o.txt" "$TMP/t.txt" | head -3 | tr '\n' ' '))"

# The same rows with thresholds: where only the first sort event has one,
# tally sorts only the rows above the last cost the table shows (report/
# annotate.c, shown_rows); the table stops inside a run of equal costs.
# With a second threshold every row is sorted. Either way the rows shown
# must be callgrind_annotate's.
for args in "" "--threshold=90" "--sort=Dr:95" "--sort=Ir:90,Dr:50" "--sort=Dr,Ir --threshold=80"; do
    # shellcheck disable=SC2086
    callgrind_annotate $args "$TMP/many.out" | grep 'a\.c:' >"$TMP/o.txt"
    # shellcheck disable=SC2086
    "$TALLY" annotate $args "$TMP/many.out" | grep 'a\.c:' >"$TMP/t.txt"
    n=$(wc -l <"$TMP/o.txt")
    [ "$n" -gt 1000 ] && [ "$n" -lt 70000 ] && cmp -s "$TMP/o.txt" "$TMP/t.txt" &&
        ok "70,000 rows, ${args:-default thresholds}: the $n rows of callgrind_annotate" ||
        not_ok "70,000 rows, ${args:-default thresholds}: $n rows; differ from callgrind_annotate ($(diff "$TMP/o.txt" "$TMP/t.txt" | head -3 | tr '\n' ' '))"
done
