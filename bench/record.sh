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
# A row with --contexts=yes shows the price of the calling context tree
# (exact stacks for tally flame); it has no peer, its target is against
# tally record without it, in the same run:
#   calls + contexts (--contexts=yes)       <= 1.3 x calls alone
# Exit status: 0 when every command ran (targets missed, or tally record
# not available, are reported, not fatal), 1 otherwise.
# shellcheck disable=SC2086 # $VG and $PROG are split into words on purpose
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
MB=${BENCH_RECORD_MB:-8}
RUNS=${BENCH_RECORD_RUNS:-3}
VGRUNS=${BENCH_RECORD_VG_RUNS:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-record-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/record
. "$ROOT/bench/lib.sh"

case $MB in '' | *[!0-9]* | 0) die "BENCH_RECORD_MB must be a positive whole number" ;; esac
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"
BZIP2=$(command -v bzip2) || die "bzip2 is missing; run 'sh scripts/install-deps.sh'"

# the input: a generated text (bench/lib.sh), kept in bench/cache/
input=$(text_input "$MB") || exit 1
bytes=$(wc -c <"$input" | tr -d ' ')
cat "$input" >/dev/null # warm page cache for every run

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

measure "$RUNS" /dev/null $PROG
NATIVE=${CPU:-0}
row "native"
[ -n "$CPU" ] || die "bzip2 failed natively"

measure "$VGRUNS" /dev/null $VG --tool=cachegrind --cachegrind-out-file="$TMP/cg.out" $PROG
row "cachegrind"
CG=$CPU
measure "$VGRUNS" /dev/null $VG --tool=cachegrind --branch-sim=yes --cachegrind-out-file="$TMP/cg.out" $PROG
row "cachegrind --branch-sim=yes"
CGB=$CPU
measure "$VGRUNS" /dev/null $VG --tool=callgrind --callgrind-out-file="$TMP/clg.out" $PROG
row "callgrind"
CLG=$CPU
measure "$VGRUNS" /dev/null $VG --tool=callgrind --cache-sim=yes --branch-sim=yes --callgrind-out-file="$TMP/clg.out" \
    $PROG
row "callgrind --cache-sim=yes --branch-sim=yes"
CLGS=$CPU

# tally record: usable when it profiles /bin/true into a file
TR="" TRS="" TC=""
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
    measure "$VGRUNS" /dev/null "$TALLY" record "$TOUT" "$CALLS" --cache-sim=no -- $PROG
    row "tally record $CALLS --cache-sim=no" "$CLG" "callgrind"
    TR=$CPU
    measure "$VGRUNS" /dev/null "$TALLY" record "$TOUT" "$CALLS" --cache-sim=no --contexts=yes \
        --contexts-out-file="$TMP/tally.ctx.%p" -- $PROG
    row "  ... and --contexts=yes (exact stacks)" "$CLG" "callgrind"
    TC=$CPU
    # the cache simulation is off by default (as in Callgrind); Cachegrind
    # 3.19 has it on, so the rows against it ask for it
    measure "$VGRUNS" /dev/null "$TALLY" record "$TOUT" --calls=no --cache-sim=yes -- $PROG
    row "tally record --calls=no --cache-sim=yes" "$CG" "cachegrind"
    measure "$VGRUNS" /dev/null "$TALLY" record "$TOUT" --calls=no --cache-sim=yes --branch-sim=yes -- $PROG
    row "tally record --calls=no --cache/branch-sim" "$CGB" "cachegrind --branch-sim"
    measure "$VGRUNS" /dev/null "$TALLY" record "$TOUT" "$CALLS" --cache-sim=yes --branch-sim=yes -- $PROG
    row "tally record $CALLS --cache/branch-sim" "$CLGS" "callgrind --cache/branch-sim"
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
judge "contexts: tally --contexts=yes <= 1.3 x tally (same run)" "$TC" "$TR" 1.3
if [ -n "$TRS" ] && [ -n "$CLGS" ]; then
    r=$(awk -v a="$CLGS" -v b="$TRS" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    target "  (speed-up over callgrind with the same events)" "${r}x" ""
fi

if [ "$failures" != 0 ]; then
    echo "bench/record: $failures command(s) failed" >&2
    exit 1
fi
exit 0
