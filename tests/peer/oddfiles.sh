#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: valid files of unusual shape (issue 30), each run through an
# original tool (callgrind_annotate, cg_annotate, cg_merge, cg_diff 3.19)
# and through tally at test time; the outputs must be the same text, or
# the same once the deliberate difference of the case (docs/tally-annotate.md,
# "Differences") is applied by its filter.
#
# The inputs are in tests/peer/oddfiles/ (the minimised files of each class
# of difference that the differential harness, tests/peer/gendiff.sh,
# found); sources get an old mtime and profiles a newer one. Commands run
# in a copy of that folder, with $TALLY in the environment.
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/peer/oddfiles"

for t in callgrind_annotate cg_annotate cg_merge cg_diff; do
    command -v $t >/dev/null || { echo "ok 1 - # SKIP $t not installed"; exit 0; }
done
export TALLY

# NAME|ORIGINAL (shell)|TALLY (shell)|FILTER (sed script applied to both outputs, or empty)
CASES='cg-dots|cg_annotate --auto=no dots.cg|$TALLY annotate --auto=no dots.cg|
cg-dots-source|cg_annotate dots.cg|$TALLY annotate dots.cg|
cg-dots-mixed|cg_annotate mixdots.cg|$TALLY annotate mixdots.cg|
cg-bare-fl|cg_annotate --auto=no fl-named.cg|$TALLY annotate --auto=no fl.cg|s/fl-named.cg/fl.cg/
cg-bare-fl-diff|cg_diff old.cg fl-named.cg >d.cg && cg_annotate --auto=no d.cg|$TALLY diff -o d.cg old.cg fl.cg && $TALLY annotate --auto=no d.cg|s/fl-named.cg/fl.cg/
clg-fi-empty|callgrind_annotate --auto=no --threshold=100 emptyfi.out|$TALLY annotate --auto=no --threshold=100 emptyfi.out|/^\.  *h\.h:main$/d
clg-fi-empty-tree|callgrind_annotate --auto=no --inclusive=yes --tree=caller --threshold=100 emptyfi.out|$TALLY annotate --auto=no --inclusive=yes --tree=caller --threshold=100 emptyfi.out|/h\.h:main$/,/^$/d
clg-fn-inlined|callgrind_annotate --auto=no --inclusive=yes inl.out|$TALLY annotate --auto=no --inclusive=yes inl.out|
clg-fn-inlined-tree|callgrind_annotate --auto=no --tree=both --threshold=100 inl.out|$TALLY annotate --auto=no --tree=both --threshold=100 inl.out|
clg-sum-label-lean|callgrind_annotate --auto=no --threshold=100 labels.out|$TALLY annotate --auto=no --threshold=100 empty.out labels.out|1,/file:function/d
clg-sum-label-full|callgrind_annotate --auto=yes --threshold=100 labels.out|$TALLY annotate --auto=yes --threshold=100 empty.out labels.out|1,/file:function/d
clg-nocost|callgrind_annotate nocost.out|$TALLY annotate nocost.out|
clg-nocost-context|callgrind_annotate --context=2 --inclusive=yes nocost.out|$TALLY annotate --context=2 --inclusive=yes nocost.out|
clg-nocost-bogus|callgrind_annotate nocost-bogus.out|$TALLY annotate nocost-bogus.out|
clg-jump-source|callgrind_annotate jump.out|$TALLY annotate jump.out|
clg-jump-source-tree|callgrind_annotate --tree=both --context=1 jump.out|$TALLY annotate --tree=both --context=1 jump.out|
clg-pct-exact99|callgrind_annotate --auto=no exact99.out|$TALLY annotate --auto=no exact99.out|
clg-pct-big99|callgrind_annotate --auto=no big99.out|$TALLY annotate --auto=no big99.out|
clg-pct-big50|callgrind_annotate --auto=no --threshold=50 big50.out|$TALLY annotate --auto=no --threshold=50 big50.out|
clg-pct-big50-incl|callgrind_annotate --auto=no --threshold=50 --inclusive=yes big50.out|$TALLY annotate --auto=no --threshold=50 --inclusive=yes big50.out|
cg-pct-5|cg_annotate --auto=no --threshold=5 cache5.out|$TALLY annotate --auto=no --threshold=5 cache5.out|
clg-concat-creator|callgrind_annotate --auto=no concat.out|$TALLY annotate --auto=no concat.out|
clg-concat-header|callgrind_annotate --auto=no concat2.out|$TALLY annotate --auto=no concat2.out|
clg-concat-split|callgrind_annotate --auto=no concat.out|TALLY_READ_SPLIT=64 $TALLY annotate --auto=no concat.out|
clg-name-blanks|sed "s/ *\$//" trailing.out >n.out && callgrind_annotate --auto=no n.out|$TALLY annotate --auto=no trailing.out|s/n\.out/trailing.out/
clg-file-blanks|sed "s/ *\$//" trailfile.out >n.out && callgrind_annotate --auto=no n.out|$TALLY annotate --auto=no trailfile.out|s/n\.out/trailfile.out/
cg-name-blanks|cg_annotate --auto=no trail.cg|$TALLY annotate --auto=no trail.cg|
clg-header-values|sed "s/ *\$//;s/0042/42/;s/0x7/7/;s/03/3/" hdr.out >n.out && callgrind_annotate --auto=no n.out|$TALLY annotate --auto=no hdr.out|s/n\.out/hdr.out/
clg-summary-value|sed "s/summary: 0100/summary: 100/" summary0.out >n.out && callgrind_annotate --auto=no n.out|$TALLY annotate --auto=no summary0.out|s/n\.out/summary0.out/
cg-summary-value|sed "s/summary: 0100/summary: 100/" summary0.cg >n.cg && cg_annotate --auto=no n.cg|$TALLY annotate --auto=no summary0.cg|s/n\.cg/summary0.cg/
cg-dots-middle|cg_annotate middots.cg|$TALLY annotate middots.cg|
cg-dots-middle-show|cg_annotate --show=Dr,Bc --sort=Bc middots.cg|$TALLY annotate --show=Dr,Bc --sort=Bc middots.cg|
cg-dots-middle-t0|cg_annotate --threshold=0 --show-percs=no middots.cg|$TALLY annotate --threshold=0 --show-percs=no middots.cg|
cg-file-no-lines|cg_annotate --threshold=0 --auto=no nolines.cg lines.c|$TALLY annotate --threshold=0 --auto=no nolines.cg lines.c|
cg-file-no-lines-auto|mv a.c a.h && cg_annotate --threshold=0 nolines.cg; mv a.h a.c|mv a.c a.h && $TALLY annotate --threshold=0 nolines.cg; mv a.h a.c|
clg-file-no-lines-user|callgrind_annotate --auto=no nolines.out lines.c|$TALLY annotate --auto=no nolines.out lines.c|
cg-dots-mixed-t0|cg_annotate --threshold=0 --auto=no mixdots.cg|$TALLY annotate --threshold=0 --auto=no mixdots.cg|
cg-emptyfn|cg_annotate --threshold=0 --auto=no emptyfn.cg|$TALLY annotate --threshold=0 --auto=no emptyfn.cg|
cg-emptyfn-merge|cg_merge -o m.cg emptyfn.cg && cat m.cg|$TALLY merge -o - emptyfn.cg|/^fl=/d;s/  */ /g;s/ $//'

rm -rf "$TMP/w" && cp -r "$DATA" "$TMP/w"
touch -d '2020-01-01 00:00:00' "$TMP"/w/*.c
for f in "$TMP"/w/*; do case $f in *.c) ;; *) touch -d '2021-01-01 00:00:00' "$f" ;; esac; done

echo "$CASES" | while IFS='|' read -r name orig mine filter; do
    (cd "$TMP/w" && sh -c "$orig") >"$TMP/$name.orig" 2>"$TMP/$name.orig.err"
    (cd "$TMP/w" && sh -c "$mine") >"$TMP/$name.tally" 2>"$TMP/$name.tally.err"
    if [ ! -s "$TMP/$name.orig" ]; then not_ok "$name: $orig printed nothing"; continue; fi
    [ -n "$filter" ] && sed -i "$filter" "$TMP/$name.orig" "$TMP/$name.tally"
    same_text "$name: tally = $orig" "$TMP/$name.orig" "$TMP/$name.tally"
done
