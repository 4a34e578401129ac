#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: valid files of unusual shape (issue 30), each run through an
# original tool (callgrind_annotate, cg_annotate, cg_merge, cg_diff 3.19)
# and through tally at test time; the outputs must be the same text, or
# the same once the deliberate difference of the case (docs/tally-annotate.md,
# "Differences") is applied by its filter.
#
# The inputs are in tests/peer/oddfiles/ (one per class of difference that
# the differential harness, tests/peer/gendiff.sh, found); sources get an
# old mtime and profiles a newer one.
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/peer/oddfiles"

for t in callgrind_annotate cg_annotate cg_merge cg_diff; do
    command -v $t >/dev/null || { echo "ok 1 - # SKIP $t not installed"; exit 0; }
done

# NAME|ORIGINAL COMMAND|TALLY COMMAND (after "$TALLY")|FILTER (sed script on the original's output, or empty)
CASES='cg-dots|cg_annotate --auto=no dots.cg|annotate --auto=no dots.cg|
cg-dots-source|cg_annotate dots.cg|annotate dots.cg|
cg-dots-mixed|cg_annotate mixdots.cg|annotate mixdots.cg|
cg-dots-mixed-t0|cg_annotate --threshold=0 --auto=no mixdots.cg|annotate --threshold=0 --auto=no mixdots.cg|'

rm -rf "$TMP/w" && cp -r "$DATA" "$TMP/w"
touch -d '2020-01-01 00:00:00' "$TMP"/w/*.c
for f in "$TMP"/w/*; do case $f in *.c) ;; *) touch -d '2021-01-01 00:00:00' "$f" ;; esac; done

echo "$CASES" | while IFS='|' read -r name orig mine filter; do
    # shellcheck disable=SC2086
    (cd "$TMP/w" && $orig) >"$TMP/$name.orig" 2>"$TMP/$name.orig.err"
    # shellcheck disable=SC2086
    (cd "$TMP/w" && "$TALLY" $mine) >"$TMP/$name.tally" 2>"$TMP/$name.tally.err"
    if [ ! -s "$TMP/$name.orig" ]; then not_ok "$name: $orig printed nothing"; continue; fi
    [ -n "$filter" ] && sed -i "$filter" "$TMP/$name.orig"
    same_text "$name: tally $mine = $orig" "$TMP/$name.orig" "$TMP/$name.tally"
done
