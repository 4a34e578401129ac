#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally's benchmark: speed and memory of tally against the Valgrind tools
# on the same large, real profiles (see bench/README.md).
#
#   sh bench/run.sh            (what `make bench` runs, after building)
#
# Environment:
#   BENCH_SIZES  callgrind file sizes in MB (default "50 100 200")
#   BENCH_RUNS   runs of each tally command, the best is kept (default 3)
#   BENCH_PEER   "no" skips the (slow) Valgrind tools
#   BENCH_MERGE  "no" skips tally merge versus cg_merge
#
# For every file it prints wall time, throughput (MB = 10^6 bytes) and peak
# resident memory of each tool, then the throughput ratio, how time grows
# with size, and whether each target of the project is met:
#   >= 100x the throughput of callgrind_annotate, >= 400 MB/s,
#   peak memory <= 1/4 of the file size, time linear in the file size.
# Exit status: 0 when every command ran (targets missed are reported, not
# fatal), 1 when a command failed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
SIZES=${BENCH_SIZES:-"50 100 200"}
RUNS=${BENCH_RUNS:-3}
PEER=${BENCH_PEER:-yes}
MERGE=${BENCH_MERGE:-yes}
TIME=/usr/bin/time
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make bench' (or 'make') first"
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"

failures=0

# run_once OUT CMD... : run CMD (stdout to OUT) and set WALL (seconds, from
# the nanosecond clock), RSS (peak resident KiB) and RC.
run_once() {
    out=$1
    shift
    t0=$(date +%s%N)
    "$TIME" -f '%M' -o "$TMP/time" "$@" >"$out" 2>"$TMP/stderr"
    RC=$?
    t1=$(date +%s%N)
    WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    RSS=$(tail -n 1 "$TMP/time")
    case $RSS in '' | *[!0-9]*) RSS=0 ;; esac
}

# measure RUNS OUT CMD... : best wall time of RUNS runs (and the largest
# peak memory seen); a failing run is reported and counted.
measure() {
    n=$1
    shift
    best="" maxrss=0
    i=0
    while [ "$i" -lt "$n" ]; do
        run_once "$@"
        if [ "$RC" != 0 ]; then
            shift
            echo "bench: '$*' failed (exit $RC):" >&2
            head -n 5 "$TMP/stderr" >&2
            failures=$((failures + 1))
            WALL="" RSS=""
            return 1
        fi
        if [ -z "$best" ] || awk -v a="$WALL" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$WALL
        fi
        [ "$RSS" -gt "$maxrss" ] && maxrss=$RSS
        i=$((i + 1))
    done
    WALL=$best RSS=$maxrss
    return 0
}

filesize() { wc -c <"$1" | tr -d ' '; }

# row LABEL BYTES : print one result line for the last measurement
row() {
    if [ -z "$WALL" ]; then
        printf '  %-22s %9s\n' "$1" "FAILED"
        return
    fi
    awk -v l="$1" -v b="$2" -v w="$WALL" -v r="$RSS" 'BEGIN {
        mb = b / 1e6; rmb = r / 1024
        printf "  %-22s %9.3f %10.1f %10.1f %9.3f\n", l, w, (w > 0 ? mb / w : 0), rmb, rmb / mb
    }'
}

header() {
    printf '  %-22s %9s %10s %10s %9s\n' "tool" "wall s" "MB/s" "peak MB" "RSS/size"
}

# ok_or_miss COND_AWK_EXPR : "met" or "MISSED"
verdict() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "MISSED"; fi; }

echo "tally benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?') cores," \
    "$($TALLY --version))"
echo "Workload: examples/wordfreq ${BENCH_WORDS:-20000} under Valgrind; the profile body is"
echo "repeated inside one part to reach each size (see bench/make-profile.sh)."
echo "tally: best of $RUNS runs; Valgrind tools: one run. MB = 10^6 bytes."

# ---------------------------------------------------------------- callgrind
echo
echo "== tally annotate vs callgrind_annotate (callgrind, --dump-instr=yes"
echo "   --collect-jumps=yes --cache-sim=yes)"
lin=""      # "bytes seconds" pairs of tally, for the linearity check
last_ratio="" last_speed="" last_rss_ratio="" last_size=""
for mb in $SIZES; do
    f=$(sh bench/make-profile.sh callgrind "$mb") || die "cannot make the $mb MB profile"
    bytes=$(filesize "$f")
    cat "$f" >/dev/null # both tools start from a warm page cache
    echo
    echo "-- $(basename "$f"): $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
    header
    measure "$RUNS" "$TMP/tally.out" "$TALLY" annotate "$f"
    row "tally annotate" "$bytes"
    t_wall=$WALL t_rss=$RSS
    if [ -n "$t_wall" ]; then
        lin="$lin $bytes $t_wall"
        last_speed=$(awk -v b="$bytes" -v w="$t_wall" 'BEGIN { printf "%.1f", b / 1e6 / w }')
        last_rss_ratio=$(awk -v b="$bytes" -v r="$t_rss" 'BEGIN { printf "%.3f", r * 1024 / b }')
        last_size=$mb
    fi
    if [ "$PEER" != no ]; then
        measure 1 "$TMP/peer.out" callgrind_annotate "$f"
        row "callgrind_annotate" "$bytes"
        if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
            last_ratio=$(awk -v a="$WALL" -v b="$t_wall" 'BEGIN { printf "%.0f", a / b }')
            echo "  throughput ratio tally / callgrind_annotate: ${last_ratio}x"
        fi
    fi
done

if [ -n "$lin" ]; then
    echo
    echo "-- time per MB of tally annotate (linear growth keeps it flat)"
    # shellcheck disable=SC2086
    set -- $lin
    first=""
    while [ $# -ge 2 ]; do
        spm=$(awk -v b="$1" -v w="$2" 'BEGIN { printf "%.3f", w * 1000 / (b / 1e6) }')
        printf '  %7.1f MB: %s ms/MB\n' "$(awk -v b="$1" 'BEGIN { print b / 1e6 }')" "$spm"
        [ -z "$first" ] && first=$spm
        lastspm=$spm
        shift 2
    done
    growth=$(awk -v a="$first" -v b="$lastspm" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
    echo "  ms/MB at the largest size / at the smallest: $growth"
fi

# --------------------------------------------------------------- cachegrind
cg_ratio=""
mb=""
for mb in $SIZES; do :; done # the largest (last) size
if [ -n "$mb" ]; then
    echo
    echo "== tally annotate vs cg_annotate (cachegrind --cache-sim=yes)"
    f=$(sh bench/make-profile.sh cachegrind "$mb") || die "cannot make the $mb MB cachegrind profile"
    bytes=$(filesize "$f")
    cat "$f" >/dev/null
    echo
    echo "-- $(basename "$f"): $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
    header
    measure "$RUNS" "$TMP/tally.out" "$TALLY" annotate "$f"
    row "tally annotate" "$bytes"
    t_wall=$WALL
    if [ "$PEER" != no ]; then
        measure 1 "$TMP/peer.out" cg_annotate "$f"
        row "cg_annotate" "$bytes"
        if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
            cg_ratio=$(awk -v a="$WALL" -v b="$t_wall" 'BEGIN { printf "%.0f", a / b }')
            echo "  throughput ratio tally / cg_annotate: ${cg_ratio}x"
        fi
    fi

    if [ "$MERGE" != no ]; then
        echo
        echo "== tally merge vs cg_merge (the cachegrind file above, twice)"
        header
        measure "$RUNS" "$TMP/tally.out" "$TALLY" merge -o "$TMP/merged.tally" "$f" "$f"
        row "tally merge" $((bytes * 2))
        t_wall=$WALL
        if [ "$PEER" != no ]; then
            measure 1 "$TMP/peer.out" cg_merge -o "$TMP/merged.cg" "$f" "$f"
            row "cg_merge" $((bytes * 2))
            if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
                echo "  throughput ratio tally / cg_merge: $(awk -v a="$WALL" -v b="$t_wall" \
                    'BEGIN { printf "%.1f", a / b }')x"
            fi
        fi
    fi
fi

# ------------------------------------------------------------------ targets
echo
echo "== targets (callgrind, largest size: ${last_size:-?} MB)"
if [ -n "$last_speed" ]; then
    printf '  %-44s %-10s %s\n' ">= 400 MB/s on one core" "$last_speed" \
        "$(verdict "$last_speed >= 400")"
    printf '  %-44s %-10s %s\n' "peak memory <= 1/4 of the file size" "$last_rss_ratio" \
        "$(verdict "$last_rss_ratio <= 0.25")"
fi
if [ -n "$last_ratio" ]; then
    printf '  %-44s %-10s %s\n' ">= 100x the throughput of callgrind_annotate" "${last_ratio}x" \
        "$(verdict "$last_ratio >= 100")"
fi
if [ -n "${growth:-}" ]; then
    printf '  %-44s %-10s %s\n' "linear: ms/MB grows by at most 25%" "$growth" \
        "$(verdict "$growth <= 1.25")"
fi
if [ "$failures" != 0 ]; then
    echo "bench: $failures command(s) failed" >&2
    exit 1
fi
exit 0
