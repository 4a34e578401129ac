#!/bin/sh
# Golden tests of the tally complexity text layout, on the hand-made
# report tests/golden/complexity/r1.aprof (routines of known growth: isort
# 3n^2 + 20, msort 3 n log2 n + 5, scan 4n + 7 with small noise, bsearch
# 9 log2 n + 12, helper constant, ...). The expected files were written by
# tally and checked by hand: totals, shares, calls and tuples against the
# report's p lines, exponents and R^2 against the independent fit of
# tests/cli/complexity_check.py, classes against the functions above.
# unclear.aprof holds routines with and without a clear class (its c lines
# say which and why); its expected ranking puts the classed ones first, by
# class, then the others by cost, each with its reason.
# --min-share defaults to 1%: the cases about other things give 0.
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/golden/complexity"

# NAME|ARGS   (expected output: $DATA/NAME.expected; run in $DATA)
CASES='default|r1.aprof
detail|--min-share=0 --min-points=3 --routine=^isort$ --routine=tiny r1.aprof
filters|--min-share=1 --exclude=sort --top=2 r1.aprof
self|--min-share=0 --cost=self --top=3 --routine=helper r1.aprof
empty|--min-share=0 --include=nothing r1.aprof
merged|--min-share=0 --top=2 r1.aprof r1.aprof
unclear|--min-share=0 --min-points=4 --routine=bands --routine=few unclear.aprof'

echo "$CASES" | while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    (cd "$DATA" && "$TALLY" complexity $args) >"$TMP/$name.out" 2>"$TMP/$name.err"
    same_text "complexity $name ($args)" "$DATA/$name.expected" "$TMP/$name.out"
done
