#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally view on the real profiles of bench/real.sh: how soon the page is
# usable, how fast each click is answered (the call graph's dot included),
# the server's memory against the file, and 100 clients at once
# (bench/view_bench.py). The targets: the 15 MB cc1 profile usable within
# 1 s, clicks answered within 50 ms (median) and 200 ms (worst); the big
# file (15 renamed copies) usable within 2 s, clicks within 200 ms, memory
# at most half the file.
#
#   sh bench/view.sh      (run by bench/run.sh after bench/real.sh, unless BENCH_VIEW=no)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
CACHE=$ROOT/bench/cache/real
BENCH_NAME=bench/view
. "$ROOT/bench/lib.sh"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make' first"
for f in cc1.callgrind big.callgrind; do
    [ -s "$CACHE/$f" ] || die "$CACHE/$f is missing: run 'sh bench/real.sh' first (it makes it)"
done
command -v dot >/dev/null || die "Graphviz's dot is missing (sh scripts/install-deps.sh)"
echo "== tally view of cc1's profile, $(wc -c <"$CACHE/cc1.callgrind" | awk '{printf "%.1f", $1 / 1e6}') MB"
python3 bench/view_bench.py "$TALLY" "$CACHE/cc1.callgrind" 1 50 200 0.5 || exit 1
echo "== tally view of the big file, $(wc -c <"$CACHE/big.callgrind" | awk '{printf "%.1f", $1 / 1e6}') MB"
python3 bench/view_bench.py "$TALLY" "$CACHE/big.callgrind" 2 200 200 0.5 || exit 1
