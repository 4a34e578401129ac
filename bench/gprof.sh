#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark of `tally gprof` against GNU gprof on a big generated program
# (run by bench/run.sh, or on its own: sh bench/gprof.sh).
#
# The program comes from examples/gprof/gen-prog.sh: BENCH_GPROF_FUNCS
# functions (default 20000, every 5th static) and a dense call graph (each
# calls 3 others, with cycles), built with gcc -pg -g -O0 and run for
# BENCH_GPROF_ROUNDS rounds (default 8, under a second) so that the
# histogram has samples. Program, gmon.out and the sources are cached in
# bench/cache/ and rebuilt when gen-prog.sh or the settings change.
#
# Both tools then read the same executable and gmon.out, with -b, in
# function mode and with -l (line by line); tally runs BENCH_RUNS times (the
# best is kept), gprof once. Prints the times, the ratios and whether the
# targets are met: not slower than gprof in function mode, at least 5x
# faster with -l; and whether both printed the same bytes.
# Exit status: 0 when every command ran (a missed target is reported, not
# fatal), 1 when something failed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
RUNS=${BENCH_RUNS:-3}
FUNCS=${BENCH_GPROF_FUNCS:-20000}
ROUNDS=${BENCH_GPROF_ROUNDS:-8}
CACHE="$ROOT/bench/cache/gprof"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-bench-gprof.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/gprof
. "$ROOT/bench/lib.sh"

[ -x "$TALLY" ] || die "$TALLY is missing; run 'make' first"
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v gprof >/dev/null || die "gprof is missing; run 'sh scripts/install-deps.sh'"

# ------------------------------------------------------------ the program
mkdir -p "$CACHE"
key="funcs=$FUNCS rounds=$ROUNDS gen=$(cksum <examples/gprof/gen-prog.sh | cut -d' ' -f1)"
if [ ! -s "$CACHE/gmon.out" ] || [ "$(cat "$CACHE/key" 2>/dev/null)" != "$key" ]; then
    rm -f "$CACHE/key" "$CACHE/gmon.out"
    echo "bench/gprof: generating and building a program of $FUNCS functions (once; about 30 s)" >&2
    sh examples/gprof/gen-prog.sh "$FUNCS" >"$CACHE/big.c" || die "gen-prog.sh failed"
    gcc -pg -g -O0 -o "$CACHE/big" "$CACHE/big.c" || die "cannot build $CACHE/big"
    (cd "$CACHE" && ./big "$ROUNDS" >/dev/null) || die "$CACHE/big failed"
    [ -s "$CACHE/gmon.out" ] || die "$CACHE/big wrote no gmon.out"
    echo "$key" >"$CACHE/key"
fi
EXE="$CACHE/big"
GMON="$CACHE/gmon.out"

row() { # LABEL
    if [ -z "$WALL" ]; then printf '  %-22s %8s\n' "$1" FAILED; return; fi
    printf '  %-22s %8.3f %8.2f %9.1f\n' "$1" "$WALL" "$CPU" "$(awk -v r="$RSS" 'BEGIN { print r / 1024 }')"
}

text=$(size "$EXE" | awk 'NR == 2 { print $1 }')
echo "== tally gprof vs GNU gprof ($(gprof --version | head -n 1))"
echo "   program: $FUNCS generated functions, $(awk -v t="$text" 'BEGIN { printf "%.1f", t / 1e6 }') MB of text;" \
    "gmon.out $(wc -c <"$GMON" | tr -d ' ') bytes"
echo "   tally: best of $RUNS runs; gprof: one run. Times in seconds; memory in MiB."

results=""
for mode in function line; do
    opt=""
    [ "$mode" = line ] && opt="-l"
    echo
    echo "-- $mode mode: gprof -b${opt:+ $opt} EXE gmon.out"
    printf '  %-22s %8s %8s %9s\n' tool "wall s" "cpu s" "peak MiB"
    # shellcheck disable=SC2086 # opt is empty or one word
    measure "$RUNS" "$TMP/tally.out" "$TALLY" gprof -b $opt "$EXE" "$GMON"
    row "tally gprof"
    tw=$WALL tc=$CPU
    # shellcheck disable=SC2086
    measure 1 "$TMP/gprof.out" gprof -b $opt "$EXE" "$GMON"
    row "gprof"
    gw=$WALL gc=$CPU
    if cmp -s "$TMP/tally.out" "$TMP/gprof.out"; then same="yes"; else same="NO"; fi
    echo "  same output: $same"
    if [ -n "$tw" ] && [ -n "$gw" ]; then
        ratio=$(awk -v g="$gc" -v t="$tc" 'BEGIN { printf "%.1f", (t > 0 ? g / t : 999) }')
        wratio=$(awk -v g="$gw" -v t="$tw" 'BEGIN { printf "%.1f", (t > 0 ? g / t : 999) }')
        echo "  gprof time / tally time: ${ratio}x (cpu), ${wratio}x (wall)"
        results="$results $mode:$ratio:$wratio"
    fi
done

# Second case: the same generator with "wrap", so that nearly every function
# is in ONE cycle (gprof's cycle search is quadratic there); function mode.
if [ "${BENCH_GPROF_CYCLE:-yes}" != no ]; then
    WC="$CACHE/one-cycle"
    mkdir -p "$WC"
    wkey="$key wrap"
    if [ ! -s "$WC/gmon.out" ] || [ "$(cat "$WC/key" 2>/dev/null)" != "$wkey" ]; then
        rm -f "$WC/key" "$WC/gmon.out"
        echo "bench/gprof: building the one-cycle program (once; about 30 s)" >&2
        sh examples/gprof/gen-prog.sh "$FUNCS" 3 wrap >"$WC/big.c" || die "gen-prog.sh failed"
        gcc -pg -g -O0 -o "$WC/big" "$WC/big.c" || die "cannot build $WC/big"
        (cd "$WC" && ./big "$ROUNDS" >/dev/null) || die "$WC/big failed"
        [ -s "$WC/gmon.out" ] || die "$WC/big wrote no gmon.out"
        echo "$wkey" >"$WC/key"
    fi
    echo
    echo "-- one cycle of (nearly) all $FUNCS functions: gprof -b EXE gmon.out"
    printf '  %-22s %8s %8s %9s\n' tool "wall s" "cpu s" "peak MiB"
    measure "$RUNS" "$TMP/tally.out" "$TALLY" gprof -b "$WC/big" "$WC/gmon.out"
    row "tally gprof"
    tw=$WALL tc=$CPU
    measure 1 "$TMP/gprof.out" gprof -b "$WC/big" "$WC/gmon.out"
    row "gprof"
    gw=$WALL gc=$CPU
    if cmp -s "$TMP/tally.out" "$TMP/gprof.out"; then same="yes"; else same="NO"; fi
    echo "  same output: $same"
    if [ -n "$tw" ] && [ -n "$gw" ]; then
        ratio=$(awk -v g="$gc" -v t="$tc" 'BEGIN { printf "%.1f", (t > 0 ? g / t : 999) }')
        wratio=$(awk -v g="$gw" -v t="$tw" 'BEGIN { printf "%.1f", (t > 0 ? g / t : 999) }')
        echo "  gprof time / tally time: ${ratio}x (cpu), ${wratio}x (wall)"
        results="$results cycle:$ratio:$wratio"
    fi
fi

echo
echo "== targets (ratios of CPU time)"
for r in $results; do
    mode=${r%%:*} rest=${r#*:}
    ratio=${rest%%:*} wratio=${rest#*:}
    if [ "$mode" = function ]; then
        printf '  %-46s %-22s %s\n' "function mode: not slower than gprof" "${ratio}x (wall ${wratio}x)" \
            "$(verdict "$ratio >= 1")"
    elif [ "$mode" = cycle ]; then
        printf '  %-46s %-22s %s\n' "one big cycle: not slower than gprof" "${ratio}x (wall ${wratio}x)" \
            "$(verdict "$ratio >= 1")"
    else
        printf '  %-46s %-22s %s\n' "-l: at least 5x faster than gprof" "${ratio}x (wall ${wratio}x)" \
            "$(verdict "$ratio >= 5")"
    fi
done
if [ "$failures" != 0 ]; then
    echo "bench/gprof: $failures command(s) failed" >&2
    exit 1
fi
exit 0
