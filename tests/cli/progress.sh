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
on_tty annotate --auto=no "$TMP/big.out.gz"
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
