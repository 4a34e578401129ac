#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Speed and memory of input-sensitive profiling (`tally record
# --input-sensitive=yes`, RMS and DRMS) on the workload of bench/record.sh:
# bzip2 -9 compressing a generated text file.
#
#   sh bench/rms.sh            (run by bench/run.sh unless BENCH_RMS=no)
#
# Environment:
#   TALLY          the tally binary (default build/tally)
#   BENCH_RMS_MB   input size in MB, 10^6 bytes (default 8, the size of
#                  bench/record.sh; each MB costs about 4 s for all runs)
#   BENCH_RMS_RUNS runs of each command, the best is kept (default 1;
#                  native: 3)
#
# Printed: CPU seconds (user + system), the slowdown against native, the
# peak resident memory (/usr/bin/time %M) and its ratio to
# `valgrind --tool=none` on the same command, and the issue's targets:
#   RMS slowdown <= 25 x native (aprof reported 41 to 53 x)
#   peak memory  <= 3 x valgrind --tool=none
# Exit status: 0 when every command ran (a missed target is reported, not
# fatal), 1 otherwise.
# shellcheck disable=SC2086 # $PROG is split into words on purpose
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
MB=${BENCH_RMS_MB:-8}
RUNS=${BENCH_RMS_RUNS:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-rms-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/rms
. "$ROOT/bench/lib.sh"

case $MB in '' | *[!0-9]* | 0) die "BENCH_RMS_MB must be a positive whole number" ;; esac
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"
BZIP2=$(command -v bzip2) || die "bzip2 is missing; run 'sh scripts/install-deps.sh'"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make'"

# the input of bench/record.sh (bench/lib.sh makes it when it is missing)
input=$(text_input "$MB") || exit 1
cat "$input" >/dev/null

row() {
    if [ -z "$CPU" ]; then
        printf '  %-46s %8s\n' "$1" "FAILED"
        return
    fi
    awk -v l="$1" -v c="$CPU" -v n="$NATIVE" -v r="$RSS" -v nr="${NONE_RSS:-0}" 'BEGIN {
        printf "  %-46s %8.2f %8.1fx %9.1f", l, c, (n > 0 ? c / n : 0), r / 1024
        if (nr > 0) printf " %8.2fx", r / nr
        printf "\n"
    }'
}

PROG="$BZIP2 -9 -c $input"
echo "input-sensitive profiling benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?')" \
    "cores, $(valgrind --version))"
echo "Workload: bzip2 -9 -c on a generated text of $MB MB (bench/cache/$(basename "$input"))."
echo "CPU seconds (user + system), best of $RUNS (native: of 3); memory: peak RSS in MiB."
echo
printf '  %-46s %8s %9s %9s %9s\n' "command" "cpu s" "slowdown" "peak MiB" "x none"

NATIVE=0 NONE_RSS=0
measure 3 /dev/null $PROG
NATIVE=${CPU:-0}
row "native"
[ -n "$CPU" ] || die "bzip2 failed natively"
measure "$RUNS" /dev/null valgrind -q --tool=none $PROG
NONE_RSS=${RSS:-0}
row "valgrind --tool=none"

OUT="--out-file=$TMP/tally.out.%p --aprof-out-file=$TMP/tally.aprof.%p"
measure "$RUNS" /dev/null "$TALLY" record -q $OUT --input-sensitive=yes -- $PROG
row "tally record --input-sensitive=yes"
RMS_CPU=$CPU RMS_RSS=$RSS
measure "$RUNS" /dev/null "$TALLY" record -q $OUT --input-sensitive=yes --drms=yes -- $PROG
row "tally record --input-sensitive=yes --drms=yes"
DRMS_RSS=$RSS
measure "$RUNS" /dev/null "$TALLY" record -q $OUT --input-sensitive=yes --cost=instr -- $PROG
row "tally record --input-sensitive=yes --cost=instr"
measure "$RUNS" /dev/null "$TALLY" record -q $OUT --cache-sim=no -- $PROG
row "tally record --cache-sim=no (no RMS, reference)"

echo
echo "== targets"
target() { printf '  %-46s %-12s %s\n' "$1" "$2" "$(verdict "$3")"; }
if [ -n "$RMS_CPU" ] && [ "$NATIVE" != 0 ]; then
    s=$(awk -v a="$RMS_CPU" -v b="$NATIVE" 'BEGIN { printf "%.1f", a / b }')
    target "RMS slowdown <= 25x native" "${s}x" "$s <= 25"
fi
if [ -n "$RMS_RSS" ] && [ "$NONE_RSS" != 0 ]; then
    m=$(awk -v a="$RMS_RSS" -v b="$NONE_RSS" 'BEGIN { printf "%.2f", a / b }')
    target "RMS peak memory <= 3x --tool=none" "${m}x" "$m <= 3"
fi
if [ -n "$DRMS_RSS" ] && [ "$NONE_RSS" != 0 ]; then
    m=$(awk -v a="$DRMS_RSS" -v b="$NONE_RSS" 'BEGIN { printf "%.2f", a / b }')
    target "DRMS peak memory <= 3x --tool=none" "${m}x" "$m <= 3"
fi
[ "$failures" = 0 ] || exit 1
exit 0
