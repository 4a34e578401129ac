#!/bin/sh
# The progress line: on a terminal (script(1) gives one), reading shows
# "tally: reading FILE: N% (A of B)" on stderr and erases it when done; not
# with -q, and never when stderr is not a terminal. The first second of
# silence is shortened with TALLY_PROGRESS_AFTER_MS.
. "$(dirname "$0")/../lib.sh"

if ! command -v script >/dev/null 2>&1; then
    ok "# SKIP script(1) is not installed"
    exit 0
fi
# a profile that takes a moment to read: 800,000 cost lines, gzip'd
awk 'BEGIN { print "events: Ir Dr"; print "fl=a.c"; print "fn=main";
             for (i = 1; i <= 800000; i++) print i, i % 7, 1 }' | gzip -1 >"$TMP/big.out.gz"
size=$(wc -c <"$TMP/big.out.gz")
export TALLY_PROGRESS_AFTER_MS=0
on_tty() { # ARGS...: run tally with stdout to a file, stderr on a terminal
    script -qec "\"$TALLY\" $* >\"$TMP/stdout\"" "$TMP/tty" >/dev/null 2>&1
}
# the line comes from a thread of its own: on a busy machine the read can end
# before that thread first runs, so a run without it is tried again (3 times)
for try in 1 2 3; do
    on_tty annotate --auto=no "$TMP/big.out.gz"
    grep -aq "tally: reading big.out.gz: *[0-9]*% (.* of .*)" "$TMP/tty" && break
done
if grep -aq "tally: reading big.out.gz: *[0-9]*% (.* of .*)" "$TMP/tty"; then
    ok "a terminal gets the progress line ($size bytes gzip'd)"
else
    not_ok "a terminal gets the progress line"; cat -v "$TMP/tty" | head -n 5 | diag
fi
# the last thing written is the erasing of the line
if tr -d '\n' <"$TMP/tty" | grep -aq "$(printf '\r\033\\[K')Script done"; then
    ok "the progress line is erased at the end"
else
    not_ok "the progress line is erased at the end"; tail -c 300 "$TMP/tty" | cat -v | diag
fi
check "the output is complete" grep -q "PROGRAM TOTALS" "$TMP/stdout"
on_tty annotate -q --auto=no "$TMP/big.out.gz"
if grep -aq "tally: reading" "$TMP/tty"; then not_ok "-q: no progress line"; else ok "-q: no progress line"; fi
on_tty convert --quiet --to=folded -o "$TMP/f" "$TMP/big.out.gz"
if grep -aq "tally: reading" "$TMP/tty"; then not_ok "--quiet: no progress line (convert)"; else
    ok "--quiet: no progress line (convert)"; fi
"$TALLY" annotate --auto=no "$TMP/big.out.gz" >/dev/null 2>"$TMP/err"
if [ -s "$TMP/err" ]; then not_ok "stderr not a terminal: silent"; diag <"$TMP/err"; else
    ok "stderr not a terminal: silent"; fi

# merging: after the inputs are read, the line says which input is being merged
cp "$TMP/big.out.gz" "$TMP/big2.out.gz"
on_tty merge -o "$TMP/sum.out" "$TMP/big.out.gz" "$TMP/big2.out.gz"
if grep -aq "tally: merging big2.out.gz into the sum (2 of 2)" "$TMP/tty"; then
    ok "a merge shows which input is merged"
else
    not_ok "a merge shows which input is merged"; cat -v "$TMP/tty" | head -n 5 | diag
fi
if tr -d '\n' <"$TMP/tty" | grep -aq "$(printf '\r\033\\[K')Script done"; then
    ok "the merging line is erased at the end"
else
    not_ok "the merging line is erased at the end"; tail -c 300 "$TMP/tty" | cat -v | diag
fi
# the sum is the inputs' sum: twice the totals of one
"$TALLY" annotate --auto=no "$TMP/big.out.gz" | grep 'PROGRAM TOTALS' >"$TMP/one"
"$TALLY" annotate --auto=no "$TMP/sum.out" | grep 'PROGRAM TOTALS' >"$TMP/two"
one=$(tr -d ',' <"$TMP/one" | awk '{ print $1 * 2, $3 * 2 }')
two=$(tr -d ',' <"$TMP/two" | awk '{ print $1, $3 }')
if [ "$one" = "$two" ]; then ok "the merge shown is complete"; else
    not_ok "the merge shown is complete ($one vs $two)"; fi
on_tty merge -q -o "$TMP/sum.out" "$TMP/big.out.gz" "$TMP/big2.out.gz"
if grep -aq "tally: merging" "$TMP/tty"; then not_ok "-q: no merging line"; else ok "-q: no merging line"; fi
"$TALLY" merge -o "$TMP/sum.out" "$TMP/big.out.gz" "$TMP/big2.out.gz" 2>"$TMP/err"
if [ -s "$TMP/err" ]; then not_ok "merge, stderr not a terminal: silent"; diag <"$TMP/err"; else
    ok "merge, stderr not a terminal: silent"; fi
# aprof reports too (and complexity and report, which merge them the same way)
printf 'v 4\na ./p\nr "f" "i" 0\np 0 1 1 1 5 1 1 1 1 1 1 1\n' >"$TMP/a.aprof"
printf 'v 4\na ./p\nr "f" "i" 0\np 0 2 1 1 5 1 1 1 1 1 1 1\n' >"$TMP/b.aprof"
on_tty merge -o "$TMP/sum.aprof" "$TMP/a.aprof" "$TMP/b.aprof"
if grep -aq "tally: merging b.aprof into the sum (2 of 2)" "$TMP/tty"; then
    ok "an aprof merge shows which report is merged"
else
    not_ok "an aprof merge shows which report is merged"; cat -v "$TMP/tty" | head -n 5 | diag
fi
for cmd in complexity "report -o $TMP/rep"; do
    on_tty $cmd "$TMP/a.aprof" "$TMP/b.aprof"
    if grep -aq "tally: merging b.aprof into the sum (2 of 2)" "$TMP/tty"; then
        ok "${cmd%% *}: merging aprof reports shows which report is merged"
    else
        not_ok "${cmd%% *}: merging aprof reports shows which report is merged"
        cat -v "$TMP/tty" | head -n 5 | diag
    fi
done
