#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Counts at their limits, through every command: counts are unsigned 64-bit
# and the callgrind reader keeps the file's self costs of each event, and
# its call counts, at or under 2^64-1 (refused at the line that passes it).
# Inclusive (calls=) costs are not summed by the reader: recursion makes
# their sums pass the total. Every command accepts the file at the limit and
# computes it exactly (128-bit sums), and refuses the one a unit over it with
# the reader's message; diff, whose profiles are signed 64-bit, names the
# file whose costs are too large.
. "$(dirname "$0")/../lib.sh"

W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1
# every figure below comes from Python's integers
py() { python3 -c "$1"; }
MAX=$(py 'print(2**64 - 1)')
HALF=$(py 'print(2**63)')
HALF1=$(py 'print(2**63 - 1)')

# main: self Ir 2^63 (two lines), leaf 2^63-1: the Ir total is exactly 2^64-1.
# Two call sites of leaf with inclusive costs 2^64-1 each (their sum is 2^65-2)
# and call counts 2^63 and 2^63-1 (the file's calls: exactly 2^64-1).
cat >near.cg <<EOF
# callgrind format
version: 1
creator: tests/hostile/counts.sh
events: Ir Dr
fl=a.c
fn=main
1 $(py 'print(2**62)') 1
2 $(py 'print(2**62)') 1
cfn=leaf
calls=$HALF 10
3 $MAX 5
cfn=leaf
calls=$HALF1 10
4 $MAX 5
fn=leaf
10 $HALF1 5
EOF
# one Ir unit more (line 9): the total passes 2^64-1 at leaf's line, the last (17)
sed 's/^2 \([0-9]*\) 1$/2 \1 1\n5 1 0/' near.cg >over.cg
sed "s/^calls=$HALF1 10/calls=$HALF 10/" near.cg >overcalls.cg # one call more, line 13

# --- the file at the limit: accepted by every command ---------------------
for cmd in "annotate" "annotate --inclusive=yes" "merge" "flame" "graph" "convert --to=json" \
    "convert --to=folded" "convert --to=speedscope" "convert --to=callgrind" \
    "convert --to=cachegrind" "diff near.cg"; do
    if "$TALLY" $cmd near.cg >out.txt 2>err.txt; then ok "$cmd accepts self costs summing to 2^64-1"
    else not_ok "$cmd accepts self costs summing to 2^64-1"; diag <err.txt; fi
done
# tally view's application (view, report) keeps 64-bit costs: main's
# inclusive cost here is past 2^64 (see annotate --inclusive below)
"$TALLY" report -o rep.html near.cg >out.txt 2>err.txt
rc=$?
if [ $rc = 1 ] && grep -q "near.cg: a function's cost does not fit in 64 bits: tally view and tally report cannot show it" err.txt &&
    [ ! -e rep.html ]; then
    ok "report -o rep.html: a cost past 2^64 is refused, saying so, and no page is written"
else
    not_ok "report -o rep.html: a cost past 2^64 is refused, saying so (exit $rc)"
    diag <err.txt
fi

# exact figures: the totals as callgrind_annotate prints them (Perl's unsigned
# 64-bit integers hold 2^64-1 exactly)
"$TALLY" annotate near.cg >tally.txt 2>&1
if command -v callgrind_annotate >/dev/null 2>&1; then
    callgrind_annotate near.cg >peer.txt 2>&1
    same_text "annotate at the limit equals callgrind_annotate" peer.txt tally.txt
fi
want=$(py 'print(format(2**64 - 1, ","))')
# Dr: the self lines 1 + 1 + 5 (calls= lines are inclusive)
if grep -q "^$want (100.0%) $((1 + 1 + 5)) (100.0%)  PROGRAM TOTALS" tally.txt; then
    ok "annotate: the Ir total is $want"
else not_ok "annotate: the Ir total is $want"; head -n 20 tally.txt | diag; fi
# inclusive: main holds its self cost and both calls (2^63 + 2 * (2^64-1))
"$TALLY" annotate --inclusive=yes near.cg >incl.txt 2>&1
want=$(py 'print(format(2**63 + 2 * (2**64 - 1), ","))')
if grep -q "^$want .*a.c:main" incl.txt; then ok "annotate --inclusive: main is $want, past 2^64"
else not_ok "annotate --inclusive: main is $want, past 2^64"; head -n 30 incl.txt | diag; fi
# JSON: exact integers, self and inclusive
"$TALLY" convert --to=json -o near.json near.cg 2>/dev/null
if py '
import json, sys
d = json.load(open("near.json"))
def walk(o):
    if isinstance(o, dict):
        for v in o.values(): yield from walk(v)
    elif isinstance(o, list):
        for v in o: yield from walk(v)
    elif isinstance(o, int): yield o
vals = set(walk(d))
need = {2**63, 2**63 - 1, 2**63 + 2 * (2**64 - 1)}
sys.exit(0 if need <= vals else 1)'; then
    ok "convert --to=json: self 2^63 and 2^63-1, inclusive 2^63+2(2^64-1), all exact"
else not_ok "convert --to=json: self 2^63 and 2^63-1, inclusive 2^63+2(2^64-1), all exact"; fi
# graph: the total on the DOT page
"$TALLY" graph -o near.dot near.cg 2>/dev/null
want=$(py 'print(format(2**64 - 1, ","))')
if grep -q "total $want" near.dot; then ok "graph: the total is $want"
else not_ok "graph: the total is $want"; grep -m 3 total near.dot | diag; fi
# pprof's values are signed 64-bit: a stack of 2^63 is refused, saying why
"$TALLY" convert --to=pprof -o near.pb near.cg >/dev/null 2>err.txt
if grep -q "^tally: near.cg: a cost exceeds pprof's 64-bit signed values" err.txt; then
    ok "convert --to=pprof: a stack past 2^63-1 is pprof's limit, said so"
else not_ok "convert --to=pprof: a stack past 2^63-1 is pprof's limit, said so"; diag <err.txt; fi
# diff: signed 64-bit differences; the file whose costs are larger is named
printf 'events: Ir Dr\nfl=a.c\nfn=main\n1 1 1\n' >tiny.cg
"$TALLY" diff tiny.cg near.cg >/dev/null 2>err.txt
if grep -q "^tally: near.cg: its costs of event Ir exceed those of tiny.cg" err.txt; then
    ok "diff: a difference past 2^63-1 names the file"
else not_ok "diff: a difference past 2^63-1 names the file"; diag <err.txt; fi

# --- a unit over: refused by every command, at the reader's line ----------
for cmd in "annotate" "annotate --inclusive=yes" "merge" "flame" "graph" "convert --to=json" \
    "convert --to=folded" "convert --to=pprof" "report -o rep2.html" "diff tiny.cg"; do
    "$TALLY" $cmd over.cg >out.txt 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: over.cg:17: the costs of event Ir sum past 2^64-1" err.txt; then
        ok "$cmd refuses a self cost total past 2^64-1 at its line"
    else not_ok "$cmd refuses a self cost total past 2^64-1 at its line"; diag <err.txt; fi
    "$TALLY" $cmd overcalls.cg >out.txt 2>err.txt
    if [ $? = 1 ] &&
        grep -q "^tally: overcalls.cg:13: the call counts of the file sum past 2^64-1" err.txt; then
        ok "$cmd refuses call counts past 2^64-1 at their line"
    else not_ok "$cmd refuses call counts past 2^64-1 at their line"; diag <err.txt; fi
done

# --- the cachegrind reader keeps the same limit ---------------------------
printf 'desc: x\ncmd: y\nevents: Ir\nfl=a.c\nfn=f\n1 %s\nfn=g\n2 %s\nsummary: %s\n' \
    "$HALF" "$HALF1" "$MAX" >near.cgr
printf 'desc: x\ncmd: y\nevents: Ir\nfl=a.c\nfn=f\n1 %s\nfn=g\n2 %s\nsummary: %s\n' \
    "$HALF" "$HALF" "$MAX" >over.cgr
for cmd in "annotate" "annotate --layout=3.21" "merge" "flame" "graph" "convert --to=json" \
    "report -o rep3.html"; do
    if "$TALLY" $cmd near.cgr >out.txt 2>err.txt && [ ! -s err.txt ]; then
        ok "$cmd accepts a cachegrind file whose costs sum to 2^64-1"
    else not_ok "$cmd accepts a cachegrind file whose costs sum to 2^64-1"; diag <err.txt; fi
    "$TALLY" $cmd over.cgr >out.txt 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: over.cgr:8: the costs of event Ir sum past 2^64-1" err.txt; then
        ok "$cmd refuses a cachegrind file a unit over, at its line"
    else not_ok "$cmd refuses a cachegrind file a unit over, at its line"; diag <err.txt; fi
done
if command -v cg_annotate >/dev/null 2>&1; then
    cg_annotate near.cgr >peer.txt 2>&1
    "$TALLY" annotate near.cgr >tally.txt 2>&1
    same_text "annotate of the cachegrind file at the limit equals cg_annotate" peer.txt tally.txt
fi

# --- and so does the contexts reader (tally record --contexts=yes) ---------
printf '# tally contexts 1\nevents: Ir\nfn 1 0 0 main\nfn 2 0 0 leaf\nx 1 0 1 1 %s\nx 2 1 2 1 %s\ntotals: %s\n' \
    "$HALF" "$HALF1" "$MAX" >near.ctx
printf '# tally contexts 1\nevents: Ir\nfn 1 0 0 main\nfn 2 0 0 leaf\nx 1 0 1 1 %s\nx 2 1 2 1 %s\ntotals: %s\n' \
    "$HALF" "$HALF" "$MAX" >over.ctx
for cmd in "annotate" "merge" "flame" "graph" "convert --to=json" "report -o rep4.html"; do
    if "$TALLY" $cmd near.ctx >out.txt 2>err.txt; then
        ok "$cmd accepts a contexts file whose costs sum to 2^64-1"
    else not_ok "$cmd accepts a contexts file whose costs sum to 2^64-1"; diag <err.txt; fi
    "$TALLY" $cmd over.ctx >out.txt 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: over.ctx:6: the costs of event Ir sum past 2^64-1" err.txt; then
        ok "$cmd refuses a contexts file a unit over, at its line"
    else not_ok "$cmd refuses a contexts file a unit over, at its line"; diag <err.txt; fi
done
echo "1..$TESTN"
