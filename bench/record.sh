#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Speed of `tally record` (tally's own Valgrind tool) against Cachegrind and
# Callgrind on one real program: bzip2 compressing a generated text file.
#
#   sh bench/record.sh         (run by bench/run.sh unless BENCH_RECORD=no)
#
# Environment (bench/run.sh skips this script when BENCH_RECORD=no):
#   TALLY             the tally binary (default build/tally)
#   BENCH_RECORD_MB   input size in MB, 10^6 bytes (default 8; each MB costs
#                     roughly 20 s for all the runs together)
#   BENCH_RECORD_RUNS native runs, the best is kept (default 3)
#   BENCH_RECORD_VG_RUNS  runs of each Valgrind command, the best is kept
#                     (default 1; more on a busy machine)
#
# The input is made once by a fixed generator (words, numbers and line
# breaks from a Park-Miller sequence, no rand()) and
# kept in bench/cache/.  Every command compresses it with `bzip2 -9 -c`
# to /dev/null: natively, under Cachegrind (plain and --branch-sim=yes),
# under Callgrind (plain, and --cache-sim=yes --branch-sim=yes) and under
# `tally record` with the event sets that match each of them.  Times are
# CPU seconds (user + system; the tools are single-threaded and the machine
# may be shared); wall seconds are shown too.  Printed: each slowdown
# against native, each ratio to its peer and the issue's two targets:
#   calls + Ir (tally --cache-sim=no)       <= 0.8 x Callgrind plain
#   calls + cache + branch simulation       <= Cachegrind --branch-sim=yes
#                                              (so >= 2.5x faster than Callgrind
#                                              with the same events)
# Exit status: 0 when every peer command ran (targets missed, or tally
# record not available, are reported, not fatal), 1 otherwise.
# shellcheck disable=SC2086 # $VG and $PROG are split into words on purpose
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
MB=${BENCH_RECORD_MB:-8}
RUNS=${BENCH_RECORD_RUNS:-3}
VGRUNS=${BENCH_RECORD_VG_RUNS:-1}
TIME=/usr/bin/time
CACHE=$ROOT/bench/cache
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-record-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

die() {
    echo "bench/record: $*" >&2
    exit 1
}
case $MB in '' | *[!0-9]* | 0) die "BENCH_RECORD_MB must be a positive whole number" ;; esac
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"
BZIP2=$(command -v bzip2) || die "bzip2 is missing; run 'sh scripts/install-deps.sh'"

# ------------------------------------------------------------------ input
# Text of MB * 10^6 bytes: 70% of the words from 40 common ones, 25% from
# 100, 5% numbers; lines end after about 17 words.  Park-Miller
# (x = 16807 x mod 2^31 - 1) stays below 2^53, so exact in awk's doubles.
input=$CACHE/record-input.${MB}MB.txt
if [ ! -s "$input" ]; then
    mkdir -p "$CACHE" || die "cannot create $CACHE"
    awk -v target="$((MB * 1000000))" 'BEGIN {
        nw = split("the of and to in is that for it as with was on be by at this are from " \
            "or an which have not but had his they were their one all been has more when " \
            "there can will would its who also into other some what only time them these " \
            "two may first than then new any such like over after most about made out used " \
            "many where being well should each between through", w, " ")
        x = 12345; n = 0
        while (n < target) {
            x = (x * 16807) % 2147483647
            r = x % 1000
            if (r >= 950) {
                s = sprintf("%d", x % 100000) (r >= 990 ? ".\n" : " ")
            } else {
                i = 1 + int(x / 1000) % (r < 700 ? 40 : nw)
                s = w[i] (r % 17 == 0 ? ",\n" : " ")
            }
            if (n + length(s) > target) s = substr("\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 1, target - n)
            printf "%s", s
            n += length(s)
        }
    }' >"$input.tmp" || die "cannot write $input.tmp"
    mv "$input.tmp" "$input" || die "cannot write $input"
fi
bytes=$(wc -c <"$input" | tr -d ' ')
cat "$input" >/dev/null # warm page cache for every run

# ------------------------------------------------------------- measuring
failures=0
# run_once CMD... : run CMD (output to /dev/null) and set WALL, CPU
# (user + system) and RC
run_once() {
    t0=$(date +%s%N)
    "$TIME" -f '%U %S' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr"
    RC=$?
    t1=$(date +%s%N)
    WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(tail -n 1 "$TMP/time")
    CPU=$(awk -v u="${1:-0}" -v s="${2:-0}" 'BEGIN { printf "%.2f", u + s }')
}

# measure N CMD... : best CPU (and its wall) of N runs; empty on failure
measure() {
    n=$1
    shift
    best="" bestwall=""
    i=0
    while [ "$i" -lt "$n" ]; do
        run_once "$@"
        if [ "$RC" != 0 ]; then
            echo "bench/record: '$*' failed (exit $RC):" >&2
            head -n 5 "$TMP/stderr" >&2
            CPU="" WALL=""
            return 1
        fi
        if [ -z "$best" ] || awk -v a="$CPU" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$CPU bestwall=$WALL
        fi
        i=$((i + 1))
    done
    CPU=$best WALL=$bestwall
}

# row LABEL [PEER_CPU PEER_NAME] : print the last measurement, its slowdown
# against native and, when given, its time as a fraction of a peer's
row() {
    if [ -z "$CPU" ]; then
        printf '  %-44s %8s\n' "$1" "FAILED"
        return
    fi
    awk -v l="$1" -v w="$WALL" -v c="$CPU" -v n="$NATIVE" -v p="${2:-}" -v pn="${3:-}" 'BEGIN {
        printf "  %-44s %8.2f %8.2f %8.1fx", l, w, c, (n > 0 ? c / n : 0)
        if (p != "" && p > 0) printf "   %.2fx %s", c / p, pn
        printf "\n"
    }'
}

verdict() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "MISSED"; fi; }

VG="valgrind -q"
PROG="$BZIP2 -9 -c $input"

echo "tally record benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?')" \
    "cores, $(valgrind --version))"
echo "Workload: bzip2 -9 -c on a generated text of $(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB" \
    "(bench/cache/$(basename "$input"))."
echo "CPU seconds (user + system); native: best of $RUNS runs, Valgrind: best of $VGRUNS."
echo "slowdown = CPU time / native CPU time; \"x peer\" = CPU time / the peer's CPU time."
echo
printf '  %-44s %8s %8s %9s   %s\n' "command" "wall s" "cpu s" "slowdown" "x peer"

measure "$RUNS" $PROG || failures=$((failures + 1))
NATIVE=${CPU:-0}
row "native"
[ -n "$CPU" ] || die "bzip2 failed natively"

measure "$VGRUNS" $VG --tool=cachegrind --cachegrind-out-file="$TMP/cg.out" $PROG || failures=$((failures + 1))
row "cachegrind"
CG=$CPU
measure "$VGRUNS" $VG --tool=cachegrind --branch-sim=yes --cachegrind-out-file="$TMP/cg.out" $PROG ||
    failures=$((failures + 1))
row "cachegrind --branch-sim=yes"
CGB=$CPU
measure "$VGRUNS" $VG --tool=callgrind --callgrind-out-file="$TMP/clg.out" $PROG || failures=$((failures + 1))
row "callgrind"
CLG=$CPU
measure "$VGRUNS" $VG --tool=callgrind --cache-sim=yes --branch-sim=yes --callgrind-out-file="$TMP/clg.out" \
    $PROG || failures=$((failures + 1))
row "callgrind --cache-sim=yes --branch-sim=yes"
CLGS=$CPU

# tally record: usable when it profiles /bin/true into a file
TR="" TRS=""
why=""
if [ ! -x "$TALLY" ]; then
    why="$TALLY is missing (run 'make')"
elif ! "$TALLY" record --out-file="$TMP/probe.%p" -- /bin/true >"$TMP/probe.log" 2>&1; then
    why=$(grep -m 1 . "$TMP/probe.log")
elif ! ls "$TMP"/probe.* >/dev/null 2>&1; then
    why="it wrote no profile"
fi
# the call graph rows need --calls=yes; while the tool refuses it they run
# without calls, and the call targets are not judged
CALLS=--calls=yes nocalls=""
if [ -z "$why" ] &&
    ! "$TALLY" record -q --calls=yes --out-file="$TMP/probe.%p" -- /bin/true >"$TMP/probe.log" 2>&1; then
    CALLS=--calls=no
    nocalls="tally record has no call graph yet ($(grep -m 1 . "$TMP/probe.log"))"
fi
echo
if [ -n "$why" ]; then
    echo "  tally record not available: ${why:-it failed}"
else
    [ -n "$nocalls" ] && echo "  note: $nocalls; the calls rows below run with --calls=no"
    TOUT="--out-file=$TMP/tally.out.%p"
    measure "$VGRUNS" "$TALLY" record "$TOUT" "$CALLS" --cache-sim=no -- $PROG
    row "tally record $CALLS --cache-sim=no" "$CLG" "callgrind"
    TR=$CPU
    measure "$VGRUNS" "$TALLY" record "$TOUT" --calls=no -- $PROG
    row "tally record --calls=no" "$CG" "cachegrind"
    measure "$VGRUNS" "$TALLY" record "$TOUT" --calls=no --branch-sim=yes -- $PROG
    row "tally record --calls=no --branch-sim=yes" "$CGB" "cachegrind --branch-sim"
    measure "$VGRUNS" "$TALLY" record "$TOUT" "$CALLS" --branch-sim=yes -- $PROG
    row "tally record $CALLS --branch-sim=yes" "$CLGS" "callgrind --cache/branch-sim"
    TRS=$CPU
fi

echo
echo "== targets (CPU time)"
target() { printf '  %-58s %-14s %s\n' "$1" "$2" "$3"; }
# judge LABEL TALLY_CPU PEER_CPU LIMIT
judge() {
    if [ -z "$2" ] || [ -z "$3" ]; then
        target "$1" "-" "not measured"
        return
    fi
    r=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
    if [ -n "$nocalls" ]; then
        target "$1" "${r}x" "not judged (no call graph)"
    else
        target "$1" "${r}x" "$(verdict "$r <= $4")"
    fi
}
judge "calls + Ir: tally <= 0.8 x callgrind" "$TR" "$CLG" 0.8
judge "calls + cache + branch: tally <= cachegrind --branch-sim" "$TRS" "$CGB" 1
if [ -n "$TRS" ] && [ -n "$CLGS" ]; then
    r=$(awk -v a="$CLGS" -v b="$TRS" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    target "  (speed-up over callgrind with the same events)" "${r}x" ""
fi

if [ "$failures" != 0 ]; then
    echo "bench/record: $failures command(s) failed" >&2
    exit 1
fi
exit 0
