#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally on real profiles of a big program: gcc's cc1 compiling a generated
# C file (see bench/README.md, "Real profiles"). Each row runs tally and the
# tool it is compared with in the same run and prints the ratio.
#
#   sh bench/real.sh           (run by bench/run.sh unless BENCH_REAL=no)
#
# Environment:
#   BENCH_RUNS          runs of each command, the best is kept (default 3)
#   BENCH_PEER          "no" skips callgrind_annotate and cg_merge
#   BENCH_REAL_COPIES   renamed copies in the big callgrind file (default 15)
#   BENCH_REAL_FILES    cachegrind files of the many-file merge (default 300)
#   BENCH_REAL_STREAM   "no" skips the big file 15 times over on standard
#                       input (about 4.5 GB read through a pipe)
#
# The profiles are made once and cached in bench/cache/real/ (git-ignored):
#   cc1.callgrind   valgrind --tool=callgrind --dump-instr=yes --cache-sim=yes
#                   --branch-sim=yes of cc1 -O2 on the generated file
#                   (13 events; minutes to make under Callgrind)
#   cc1.callgrind.gz  the same, gzip-compressed
#   big.callgrind   BENCH_REAL_COPIES copies of cc1.callgrind, one part each,
#                   the function names and their ids renamed per copy (so the
#                   sum has that many times the distinct functions)
#   cg/cg.N.out     cachegrind --cache-sim=yes of cc1 on a smaller generated
#                   file, then BENCH_REAL_FILES variants of it (a tenth of the
#                   count lines dropped, counts scaled, summary recomputed)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
RUNS=${BENCH_RUNS:-3}
PEER=${BENCH_PEER:-yes}
COPIES=${BENCH_REAL_COPIES:-15}
NFILES=${BENCH_REAL_FILES:-300}
CACHE=$ROOT/bench/cache/real
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-real.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

BENCH_NAME=bench/real
. "$ROOT/bench/lib.sh"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make' first"
CC1=$(gcc -print-prog-name=cc1)
[ -x "$CC1" ] || die "gcc's cc1 is missing"
mkdir -p "$CACHE/cg" || die "cannot create $CACHE"

# gen_c N : a C file of N functions with loops, switches and calls, the
# same on every machine
gen_c() {
    awk -v n="$1" 'BEGIN {
        print "struct s { int a[16]; double d; struct s *next; };"
        for (i = 0; i < n; i++) {
            printf "static int f%d(struct s *p, int x) {\n", i
            printf "    int t = x * %d;\n", i % 7 + 1
            printf "    for (int k = 0; k < 16; k++) t += p->a[k] * (k ^ %d);\n", i % 5
            printf "    switch (t %% %d) {\n", i % 4 + 3
            for (c = 0; c < i % 4 + 3; c++) printf "    case %d: t += %d; p->d *= 1.%d; break;\n", c, c * i, c
            print "    }"
            if (i > 0) printf "    if (p->next) t += f%d(p->next, t - 1);\n", int(i / 2)
            print "    return t;\n}"
        }
        print "int run(struct s *p) { int t = 0;"
        for (i = 0; i < n; i++) printf "    t += f%d(p, %d);\n", i, i
        print "    return t; }"
    }'
}

filesize() { wc -c <"$1" | tr -d ' '; }

cg=$CACHE/cc1.callgrind
if [ ! -s "$cg" ]; then
    echo "bench/real: profiling cc1 -O2 under Callgrind (a few minutes, once)" >&2
    gen_c 120 >"$CACHE/gen.c"
    valgrind -q --tool=callgrind --dump-instr=yes --cache-sim=yes --branch-sim=yes \
        --callgrind-out-file="$cg.tmp" "$CC1" -quiet -O2 "$CACHE/gen.c" -o /dev/null \
        2>"$CACHE/valgrind.log" || { cat "$CACHE/valgrind.log" >&2; die "callgrind failed"; }
    mv "$cg.tmp" "$cg"
fi
[ -s "$cg.gz" ] || gzip -c "$cg" >"$cg.gz"
big=$CACHE/big.callgrind
if [ ! -s "$big" ]; then
    k=0
    while [ "$k" -lt "$COPIES" ]; do
        perl -pe 'BEGIN { $k = shift @ARGV; $o = $k * 1000000 }
            if ($k && /^(c?fn)=\((\d+)\)(.*)$/) {
                $_ = "$1=(" . ($2 + $o) . ")" . ($3 ne "" ? "$3_c$k" : "") . "\n" }' "$k" "$cg"
        k=$((k + 1))
    done >"$big.tmp" && mv "$big.tmp" "$big"
fi
cgbase=$CACHE/cc1.cachegrind
if [ ! -s "$cgbase" ]; then
    echo "bench/real: profiling cc1 -O2 under Cachegrind (once)" >&2
    gen_c 30 >"$CACHE/gen30.c"
    valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$cgbase.tmp" \
        "$CC1" -quiet -O2 "$CACHE/gen30.c" -o /dev/null 2>"$CACHE/valgrind.log" ||
        { cat "$CACHE/valgrind.log" >&2; die "cachegrind failed"; }
    mv "$cgbase.tmp" "$cgbase"
fi
if [ ! -s "$CACHE/cg/cg.$NFILES.out" ]; then
    k=1
    while [ "$k" -le "$NFILES" ]; do
        # (%.0f: mawk prints large numbers as 3.13644e+09 otherwise)
        awk -v k="$k" 'BEGIN { srand(k) }
            /^[0-9]/ { if (rand() < 0.1) next
                       n = split($0, a, " "); s = a[1]
                       for (i = 2; i <= n; i++) { v = a[i] * (1 + k % 3); t[i - 1] += v; s = s sprintf(" %.0f", v) }
                       print s; next }
            /^summary:/ { s = "summary:"; for (i = 1; i <= ne; i++) s = s sprintf(" %.0f", t[i]); print s; next }
            /^events:/ { ne = NF - 1 }
            { print }' "$cgbase" >"$CACHE/cg/cg.$k.out"
        k=$((k + 1))
    done
fi

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
# line LABEL BYTES: one row for the last measurement
line() {
    awk -v l="$1" -v b="$2" -v w="$WALL" -v c="$CPU" -v r="$RSS" 'BEGIN {
        mb = b / 1e6; rmb = r * 1024 / 1e6
        printf "  %-34s %8.3f %8.1f %7.2f %8.1f %8.1f %8.3f\n", l, w, (w > 0 ? mb / w : 0),
            c, (c > 0 ? mb / c : 0), rmb, rmb / mb }'
}
head_row() {
    printf '  %-34s %8s %8s %7s %8s %8s %8s\n' "command" "wall s" "MB/s" "cpu s" "MB/cpu-s" \
        "peak MB" "RSS/size"
}
# ratio NAME: B over A (wall and cpu) of the last two measurements
ratio() {
    echo "  $1: $(awk -v a="$A_WALL" -v b="$WALL" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }')x" \
        "(wall), $(awk -v a="$A_CPU" -v b="$CPU" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }')x (cpu)"
}

bytes=$(filesize "$cg")
cat "$cg" "$big" >/dev/null
echo "== real profiles: cc1 -O2 under Callgrind (13 events, --dump-instr=yes), $(mb "$bytes") MB"
head_row
measure "$RUNS" "$TMP/out" "$TALLY" annotate "$cg"
line "tally annotate" "$bytes"
A_WALL=$WALL A_CPU=$CPU
if [ "$PEER" != no ] && [ -n "$A_WALL" ]; then
    measure 1 "$TMP/out" callgrind_annotate "$cg"
    line "callgrind_annotate" "$bytes"
    [ -n "$WALL" ] && ratio "callgrind_annotate / tally (target >= 100x)"
fi
# the same on one thread: what the two-thread read (callgrind_split.c) gives
measure "$RUNS" "$TMP/out" env TALLY_READ_SPLIT=off "$TALLY" annotate "$cg"
line "tally annotate, 1 reader" "$bytes"
[ -n "$WALL" ] && [ -n "$A_WALL" ] && ratio "one reader / two"

gzb=$(filesize "$cg.gz")
measure "$RUNS" "$TMP/out" "$TALLY" annotate --auto=no "$cg.gz"
line "tally annotate --auto=no (.gz)" "$bytes"
A_WALL=$WALL A_CPU=$CPU
measure "$RUNS" "$TMP/out" zcat "$cg.gz"
line "zcat ($(mb "$gzb") MB compressed)" "$bytes"
[ -n "$WALL" ] && [ -n "$A_WALL" ] && ratio "zcat / tally (target >= 1.0x)"

bbytes=$(filesize "$big")
echo
echo "== $COPIES renamed copies of it in one file, $(mb "$bbytes") MB"
head_row
measure "$RUNS" "$TMP/out" "$TALLY" annotate --auto=no "$big"
line "tally annotate --auto=no" "$bbytes"
[ -n "$WALL" ] && echo "  targets: >= 400 MB/s wall, RSS/size <= 0.25"
A_WALL=$WALL A_CPU=$CPU
measure "$RUNS" "$TMP/out" env TALLY_READ_SPLIT=off "$TALLY" annotate --auto=no "$big"
line "annotate --auto=no, 1 reader" "$bbytes"
[ -n "$WALL" ] && [ -n "$A_WALL" ] && ratio "one reader / two"

if [ "${BENCH_REAL_STREAM:-yes}" != no ]; then
    # shellcheck disable=SC2016 # expanded by the inner shell
    measure 1 "$TMP/out" sh -c 'i=0; while [ $i -lt 15 ]; do cat "$1"; i=$((i + 1)); done |
        "$2" annotate --auto=no -' sh "$big" "$TALLY"
    line "the same 15 times on stdin" $((bbytes * 15))
    echo "  target: the speed above; peak memory as for one copy of the file"
fi

set -- "$CACHE"/cg/cg.*.out
n=$#
tb=$(cat "$@" | wc -c | tr -d ' ')
echo
echo "== merge of $n cachegrind files of cc1 ($(mb "$tb") MB in all)"
head_row
measure "$RUNS" "$TMP/out" "$TALLY" merge -o "$TMP/merged.tally" "$@"
line "tally merge" "$tb"
A_WALL=$WALL A_CPU=$CPU
if [ "$PEER" != no ] && [ -n "$A_WALL" ]; then
    measure 1 "$TMP/out" cg_merge -o "$TMP/merged.cg" "$@"
    line "cg_merge" "$tb"
    [ -n "$WALL" ] && ratio "cg_merge / tally (target >= 5x)"
fi
[ "$failures" = 0 ] || exit 1
exit 0
