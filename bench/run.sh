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
#   BENCH_GPROF  "no" skips tally gprof versus GNU gprof (bench/gprof.sh)
#   BENCH_RECORD "no" skips tally record versus Cachegrind and Callgrind
#                (bench/record.sh)
#   BENCH_STARTUP "no" skips tally record against Callgrind on programs that
#                mostly start up: node, java, gcc's driver, python3
#                (bench/startup.sh)
#   BENCH_RMS    "no" skips input-sensitive profiling (tally record
#                --input-sensitive=yes, bench/rms.sh)
#   BENCH_VIEWS  "no" skips tally flame, graph, report and convert on the
#                largest profiles (bench/views.sh)
#   BENCH_STACKS "no" skips the error of estimated stacks against exact ones
#                on bzip2, sqlite3 and python3 (bench/stacks.sh)
#   BENCH_INCL   "no" skips the error of inclusive costs from Callgrind's
#                files against tally record's time on the stack on python3,
#                sqlite3, cc1 and bzip2 (bench/inclusive.sh), with
#                Callgrind's defaults and with --separate-recs=1
#   BENCH_VIEW   "no" skips tally view on those profiles (bench/view.sh: the
#                page usable, click answers, memory, 100 clients)
#   BENCH_REAL   "no" skips the real profiles of gcc's cc1: annotate against
#                callgrind_annotate, gzip against zcat, renamed copies for
#                size, and a merge of 300 cachegrind files against cg_merge
#                (bench/real.sh)
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
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

BENCH_NAME=bench
. "$ROOT/bench/lib.sh"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make bench' (or 'make') first"
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"

filesize() { wc -c <"$1" | tr -d ' '; }

# row LABEL BYTES : print one result line for the last measurement
row() {
    if [ -z "$WALL" ]; then
        printf '  %-22s %9s\n' "$1" "FAILED"
        return
    fi
    awk -v l="$1" -v b="$2" -v w="$WALL" -v c="$CPU" -v r="$RSS" 'BEGIN {
        mb = b / 1e6; rmb = r * 1024 / 1e6
        printf "  %-20s %8.3f %8.1f %7.2f %8.1f %8.1f %8.3f\n", l, w, (w > 0 ? mb / w : 0),
            c, (c > 0 ? mb / c : 0), rmb, rmb / mb
    }'
}

header() {
    printf '  %-20s %8s %8s %7s %8s %8s %8s\n' "tool" "wall s" "MB/s" "cpu s" "MB/cpu-s" \
        "peak MB" "RSS/size"
}


echo "tally benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?') cores," \
    "$($TALLY --version))"
echo "Workload: examples/wordfreq ${BENCH_WORDS:-20000} under Valgrind; the profile body is"
echo "repeated inside one part to reach each size (see bench/make-profile.sh)."
echo "tally: best of $RUNS runs; Valgrind tools: one run. MB = 10^6 bytes."

# ---------------------------------------------------------------- callgrind
echo
echo "== tally annotate vs callgrind_annotate (callgrind, --dump-instr=yes"
echo "   --collect-jumps=yes --cache-sim=yes)"
lin=""      # "bytes cpu-seconds" pairs of tally, for the linearity check
last_ratio="" last_wall_ratio="" last_speed="" last_cpu_speed="" last_rss_ratio="" last_size=""
for mb in $SIZES; do
    f=$(sh bench/make-profile.sh callgrind "$mb") || die "cannot make the $mb MB profile"
    bytes=$(filesize "$f")
    cat "$f" >/dev/null # both tools start from a warm page cache
    echo
    echo "-- $(basename "$f"): $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
    header
    measure "$RUNS" "$TMP/tally.out" "$TALLY" annotate "$f"
    row "tally annotate" "$bytes"
    t_wall=$WALL t_cpu=$CPU t_rss=$RSS
    if [ -n "$t_wall" ]; then
        lin="$lin $bytes $t_cpu"
        last_speed=$(awk -v b="$bytes" -v w="$t_wall" 'BEGIN { printf "%.1f", b / 1e6 / w }')
        last_cpu_speed=$(awk -v b="$bytes" -v w="$t_cpu" 'BEGIN { printf "%.1f", (w > 0 ? b / 1e6 / w : 0) }')
        last_rss_ratio=$(awk -v b="$bytes" -v r="$t_rss" 'BEGIN { printf "%.3f", r * 1024 / b }')
        last_size=$mb
    fi
    if [ "$PEER" != no ]; then
        measure 1 "$TMP/peer.out" callgrind_annotate "$f"
        row "callgrind_annotate" "$bytes"
        if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
            last_wall_ratio=$(awk -v a="$WALL" -v b="$t_wall" 'BEGIN { printf "%.0f", a / b }')
            last_ratio=$(awk -v a="$CPU" -v b="$t_cpu" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }')
            echo "  throughput ratio tally / callgrind_annotate: ${last_wall_ratio}x (wall)," \
                "${last_ratio}x (cpu)"
        fi
    fi
done

if [ -n "$lin" ]; then
    echo
    echo "-- CPU time per MB of tally annotate (linear growth keeps it flat)"
    # shellcheck disable=SC2086
    set -- $lin
    first=""
    while [ $# -ge 2 ]; do
        spm=$(awk -v b="$1" -v w="$2" 'BEGIN { printf "%.2f", w * 1000 / (b / 1e6) }')
        printf '  %7.1f MB: %s ms/MB\n' "$(awk -v b="$1" 'BEGIN { print b / 1e6 }')" "$spm"
        [ -z "$first" ] && first=$spm
        lastspm=$spm
        shift 2
    done
    growth=$(awk -v a="$first" -v b="$lastspm" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
    echo "  ms/MB at the largest size / at the smallest: $growth"
fi

# --------------------------------------------------------------- cachegrind
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
    t_wall=$WALL t_cpu=$CPU
    if [ "$PEER" != no ]; then
        measure 1 "$TMP/peer.out" cg_annotate "$f"
        row "cg_annotate" "$bytes"
        if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
            echo "  throughput ratio tally / cg_annotate:" \
                "$(awk -v a="$WALL" -v b="$t_wall" 'BEGIN { printf "%.0f", a / b }')x (wall)," \
                "$(awk -v a="$CPU" -v b="$t_cpu" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }')x (cpu)"
        fi
    fi

    if [ "$MERGE" != no ]; then
        echo
        echo "== tally merge vs cg_merge (the cachegrind file above, twice)"
        header
        measure "$RUNS" "$TMP/tally.out" "$TALLY" merge -o "$TMP/merged.tally" "$f" "$f"
        row "tally merge" $((bytes * 2))
        t_wall=$WALL t_cpu=$CPU
        if [ "$PEER" != no ]; then
            measure 1 "$TMP/peer.out" cg_merge -o "$TMP/merged.cg" "$f" "$f"
            row "cg_merge" $((bytes * 2))
            if [ -n "$WALL" ] && [ -n "$t_wall" ]; then
                echo "  throughput ratio tally / cg_merge:" \
                    "$(awk -v a="$WALL" -v b="$t_wall" 'BEGIN { printf "%.1f", a / b }')x (wall)," \
                    "$(awk -v a="$CPU" -v b="$t_cpu" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x (cpu)"
            fi
        fi
    fi
fi

# ------------------------------------------------------------------ targets
# Judged on CPU time: tally is single-threaded, and on a shared machine the
# wall time also counts the time spent waiting for a free core.
echo
echo "== targets (callgrind, largest size: ${last_size:-?} MB; speeds from CPU time)"
target() { printf '  %-46s %-24s %s\n' "$1" "$2" "$(verdict "$3")"; }
if [ -n "$last_cpu_speed" ]; then
    target ">= 400 MB/s on one core" "$last_cpu_speed (wall: $last_speed)" "$last_cpu_speed >= 400"
    target "peak memory <= 1/4 of the file size" "$last_rss_ratio" "$last_rss_ratio <= 0.25"
fi
if [ -n "$last_ratio" ]; then
    target ">= 100x the throughput of callgrind_annotate" "${last_ratio}x (wall: ${last_wall_ratio}x)" \
        "$last_ratio >= 100"
fi
if [ -n "${growth:-}" ]; then
    target "linear: ms/MB grows by at most 25%" "$growth" "$growth <= 1.25"
fi

# ----------------------------------------------------------- real profiles
# cc1 under Callgrind and Cachegrind, each row against its peer: bench/real.sh
if [ "${BENCH_REAL:-yes}" != no ]; then
    echo
    TALLY="$TALLY" BENCH_RUNS="$RUNS" BENCH_PEER="$PEER" sh bench/real.sh ||
        failures=$((failures + 1))
    # tally view on the same profiles (made by real.sh): bench/view.sh
    if [ "${BENCH_VIEW:-yes}" != no ]; then
        echo
        TALLY="$TALLY" sh bench/view.sh || failures=$((failures + 1))
    fi
fi

# -------------------------------------------------------------------- gprof
# its own program, timings and targets: see bench/gprof.sh
if [ "${BENCH_GPROF:-yes}" != no ]; then
    echo
    TALLY="$TALLY" BENCH_RUNS="$RUNS" sh bench/gprof.sh || failures=$((failures + 1))
fi
# ------------------------------------------------------------- tally record
# its own workload, timings and targets: see bench/record.sh
if [ "${BENCH_RECORD:-yes}" != no ]; then
    echo
    TALLY="$TALLY" sh bench/record.sh || failures=$((failures + 1))
fi
# ----------------------------------------- tally record on start-up programs
# node, java, gcc's driver, python3 against Callgrind: see bench/startup.sh
if [ "${BENCH_STARTUP:-yes}" != no ]; then
    echo
    TALLY="$TALLY" sh bench/startup.sh || failures=$((failures + 1))
fi
# ------------------------------------------------ input-sensitive profiling
# RMS/DRMS speed and memory on the same workload: see bench/rms.sh
if [ "${BENCH_RMS:-yes}" != no ]; then
    echo
    TALLY="$TALLY" sh bench/rms.sh || failures=$((failures + 1))
fi
# ------------------------------------------ flame, graph, report, convert
# the pictures on the largest profiles: see bench/views.sh
if [ "${BENCH_VIEWS:-yes}" != no ]; then
    echo
    TALLY="$TALLY" BENCH_RUNS="$RUNS" sh bench/views.sh || failures=$((failures + 1))
fi
# ------------------------------------------ estimated against exact stacks
if [ "${BENCH_STACKS:-yes}" != no ]; then
    echo
    TALLY="$TALLY" sh bench/stacks.sh || failures=$((failures + 1))
fi
# ------------------------------------------ inclusive costs: estimate against truth
if [ "${BENCH_INCL:-yes}" != no ]; then
    echo
    TALLY="$TALLY" sh bench/inclusive.sh || failures=$((failures + 1))
    echo "  (the same with Callgrind's --separate-recs=1: no recursion levels)"
    TALLY="$TALLY" CG_OPTS=--separate-recs=1 sh bench/inclusive.sh | tail -n +3 ||
        failures=$((failures + 1))
fi
if [ "$failures" != 0 ]; then
    echo "bench: $failures command(s) failed" >&2
    exit 1
fi
exit 0
