#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`: profile a small program and show what tally makes of it.
#
# make demo first installs what is missing (scripts/install-deps.sh) and
# builds build/tally and examples/. This script then
#   1. runs examples/wordfreq under tally record (tally's Valgrind tool),
#   2. shows the function table (self cost), then inclusive costs,
#   3. shows who calls whom (call tree),
#   4. shows the source of wordfreq.c with the cost of every line,
#   5. reads the same profile compressed with gzip,
#   6. profiles the program with Cachegrind at two input sizes and shows
#      what changed with tally diff,
#   7. records the exact stacks and draws a flame graph, an HTML report and
#      a call graph (kept in build/demo/),
#   8. measures how isort's cost grows with its input (tally complexity).
# Everything else is written to a temporary folder removed at the end.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TALLY=$ROOT/build/tally
EX=$ROOT/examples
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tally-demo.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$TALLY" ] || die "build/tally is missing: run 'make demo' (it builds first)"
[ -x "$EX/wordfreq" ] || die "examples/wordfreq is missing: run 'make demo'"
command -v valgrind >/dev/null || die "valgrind is missing: run 'sh scripts/install-deps.sh'"

step() {
    printf '\n\n'
    printf '%s\n' "################################################################################"
    printf '## %s\n' "$1"
    printf '%s\n' "################################################################################"
    shift
    for line in "$@"; do printf '   %s\n' "$line"; done
    echo
}

# say CMD...: print the command as a user would type it
say() { printf '$ %s\n' "$*" | sed "s|$WORK/|\$DEMO/|g; s|$TALLY|tally|g"; }
# show CMD...: print the command, then run it
show() {
    say "$@"
    "$@" || die "'$*' failed"
}
# keep FILE CMD...: print the command, then run it with its output in FILE
keep() {
    out=$1
    shift
    say "$@"
    "$@" >"$out" || die "'$*' failed"
}

# Work from examples/ so tally shortens file names relative to it and finds
# the sources; $DEMO in the printed commands stands for the temporary folder.
cd "$EX" || exit 1

step "1. Profile a program with tally record" \
    "wordfreq counts the words of 5000 generated ones with a hash table and" \
    "sorts them. tally record runs it under tally's own Valgrind tool, on a" \
    "simulated CPU, and counts every instruction executed (Ir) and every data" \
    "read and write (Dr, Dw), per source line and per call; the result is a" \
    "callgrind-format file."
say tally record -q --cache-sim=no --out-file="$WORK/callgrind.out" -- ./wordfreq 5000
"$TALLY" record -q --cache-sim=no --out-file="$WORK/callgrind.out" -- ./wordfreq 5000 \
    >"$WORK/wordfreq.txt" 2>"$WORK/valgrind.log" || { cat "$WORK/valgrind.log"; die "tally record failed"; }
echo "wrote \$DEMO/callgrind.out ($(wc -c <"$WORK/callgrind.out") bytes; the program's own output went to a file)"

step "2. Where do the instructions go? (self cost per function)" \
    "Each row: instructions executed in that function itself (not in the" \
    "functions it calls), its share of the program total, then FILE:FUNCTION" \
    "and the binary it lives in. Rows stop once 99% of the total is shown."
show "$TALLY" annotate --auto=no "$WORK/callgrind.out"

step "3. Inclusive cost (a function plus everything it calls)" \
    "With --inclusive=yes each row counts the calls too. main is close to" \
    "100% (the rest is start-up code that runs before it), and qsort" \
    "includes its comparison function by_count and the strcmp it calls."
show "$TALLY" annotate --auto=no --inclusive=yes "$WORK/callgrind.out"

step "4. Who calls whom" \
    "--tree=caller lists above each function (marked *) the functions that" \
    "call it (marked <), with the cost of those calls and how many there were." \
    "msort_with_tmp is glibc's merge sort calling itself: tally record counts" \
    "each recursion once, so its calls to itself show their count and no cost" \
    "(.), and the caller rows of a function add up to its inclusive cost, the" \
    "cost spent while it is on the stack." \
    "Only the start of the output is shown here."
keep "$WORK/tree.txt" "$TALLY" annotate --auto=no --tree=caller "$WORK/callgrind.out"
head -n 45 "$WORK/tree.txt"
echo "[... $(wc -l <"$WORK/tree.txt") lines in all]"

step "5. The source, line by line" \
    "By default tally annotate also prints every source file it can find" \
    "with the cost of each line ('.' = nothing happened there). Here only" \
    "the part about wordfreq.c is shown."
keep "$WORK/annotated.txt" "$TALLY" annotate "$WORK/callgrind.out"
awk '/^-- .*wordfreq\.c/ { on = 1 } on { print; if (++n >= 70) exit }' "$WORK/annotated.txt"
echo "[... $(wc -l <"$WORK/annotated.txt") lines in all]"

step "6. Compressed profiles" \
    "Profiles compress well. tally reads gzip and zstd files directly," \
    "recognised by their content, not their name."
gzip -9 -c "$WORK/callgrind.out" >"$WORK/callgrind.out.gz"
echo "\$DEMO/callgrind.out.gz: $(wc -c <"$WORK/callgrind.out.gz") bytes"
show "$TALLY" annotate --auto=no --threshold=50 "$WORK/callgrind.out.gz"

step "7. What changed between two runs?" \
    "Cachegrind profiles of wordfreq with 5000 and then 20000 words;" \
    "tally diff subtracts the first from the second (per function) and" \
    "tally annotate shows where the extra instructions went."
say valgrind --tool=cachegrind --cachegrind-out-file="$WORK/small.out" ./wordfreq 5000
say valgrind --tool=cachegrind --cachegrind-out-file="$WORK/big.out" ./wordfreq 20000
for run in small:5000 big:20000; do
    valgrind -q --tool=cachegrind --cachegrind-out-file="$WORK/${run%:*}.out" ./wordfreq "${run#*:}" \
        >/dev/null 2>>"$WORK/valgrind.log" || { cat "$WORK/valgrind.log"; die "valgrind failed"; }
done
show "$TALLY" diff -o "$WORK/change.out" "$WORK/small.out" "$WORK/big.out"
show "$TALLY" annotate --show=Ir --auto=no "$WORK/change.out"

# the pictures stay after the demo, in build/demo/
PICS=$ROOT/build/demo
mkdir -p "$PICS" || die "cannot create $PICS"

step "8. Exact stacks, and pictures" \
    "With --contexts=yes tally record also keeps every distinct stack of" \
    "calls (the calling-context tree), so the flame graph is exact, not" \
    "guessed from caller/callee pairs. tally report writes tally view's page" \
    "as one HTML file (table, callers and callees, source, flame and call" \
    "graphs; tally view FILE serves the same page for a profile of any size);" \
    "given both files of the recording it joins them: exact stacks, and" \
    "source lines from the callgrind file;" \
    "tally graph draws the call graph with Graphviz. Open the files in a" \
    "browser: they are kept in build/demo/."
say tally record -q --cache-sim=no --contexts=yes --contexts-out-file="$WORK/wordfreq.ctx" \
    --out-file="$WORK/ctx.out" -- ./wordfreq 5000
"$TALLY" record -q --cache-sim=no --contexts=yes --contexts-out-file="$WORK/wordfreq.ctx" \
    --out-file="$WORK/ctx.out" -- ./wordfreq 5000 >/dev/null 2>>"$WORK/valgrind.log" ||
    { cat "$WORK/valgrind.log"; die "tally record --contexts=yes failed"; }
show "$TALLY" flame --title=wordfreq -o "$PICS/flame.svg" "$WORK/wordfreq.ctx"
show "$TALLY" report -o "$PICS/report" "$WORK/wordfreq.ctx" "$WORK/ctx.out"
if command -v dot >/dev/null; then
    show "$TALLY" graph -o "$PICS/callgraph.svg" "$WORK/callgrind.out"
fi
show "$TALLY" convert --to=folded -o "$WORK/wordfreq.folded" "$WORK/wordfreq.ctx"
echo "the five stacks with the most instructions (from main down; tally convert --to=folded):"
awk '{ n = $NF; sub(/ [0-9]+$/, ""); sub(/^.*;main;/, "...;main;"); printf "%9d  %s\n", n, $0 }' \
    "$WORK/wordfreq.folded" | sort -n -r | head -n 5 | cut -c 1-100
echo
echo "pictures: $PICS/flame.svg, $PICS/report/index.html$(command -v dot >/dev/null &&
    echo ", $PICS/callgraph.svg")"

step "9. How does the cost grow with the input?" \
    "--input-sensitive=yes measures, for every call of every routine, how" \
    "much memory it read that it had not written (its input size, RMS) and" \
    "what it cost. examples/complexity/isort sorts reversed arrays of 30 to" \
    "600 ints by insertion; tally complexity fits cost = a + b*n^c per" \
    "routine and ranks the routines by growth: isort comes out as n^2."
say tally record -q --cache-sim=no --input-sensitive=yes --aprof-out-file="$WORK/isort.aprof" \
    --out-file="$WORK/isort.out" -- ./complexity/isort
"$TALLY" record -q --cache-sim=no --input-sensitive=yes --aprof-out-file="$WORK/isort.aprof" \
    --out-file="$WORK/isort.out" -- ./complexity/isort >/dev/null 2>>"$WORK/valgrind.log" ||
    { cat "$WORK/valgrind.log"; die "tally record --input-sensitive=yes failed"; }
keep "$WORK/cx.txt" "$TALLY" complexity --plot "$PICS/complexity" "$WORK/isort.aprof"
sed -n '1,12p' "$WORK/cx.txt"
echo "plots: $PICS/complexity/index.html"

step "Done" \
    "Next: 'tally --help' for every command, docs/tally.md for the manual;" \
    "the pictures of steps 8 and 9 are in build/demo/;" \
    "'tally view PROFILE' explores any profile in the browser (docs/tally-view.md)."
