#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Speed and memory of tally's pictures and converters on the benchmark's
# largest profiles (bench/make-profile.sh): the callgrind file of
# BENCH_VIEWS_MB megabytes (default 200) and the cachegrind file of the
# same size.
#
#   sh bench/views.sh          (run by bench/run.sh unless BENCH_VIEWS=no)
#
# Environment:
#   TALLY           the tally binary (default build/tally)
#   BENCH_VIEWS_MB  profile size in MB, 10^6 bytes (default 200)
#   BENCH_RUNS      runs of each command, the best is kept (default 3)
#
# Timed: tally flame (flame graph and icicle), tally graph (DOT, and SVG
# through Graphviz's dot when it is installed), tally report (the HTML page)
# and tally convert to folded stacks and to pprof. With Chromium installed
# (and chromium-driver and python3-selenium, which drive it), the page that
# tally report wrote is also opened headless, and the time until its table
# and a selected function show is measured (bench/report_load.py, run by
# Debian's /usr/bin/python3).
# Printed per command: wall and CPU seconds, MB of profile read per CPU
# second, peak memory, the size of what it wrote; then the targets of the
# project: each command finishes in a few seconds (<= 5 s of CPU time) and
# the page loads in under 2 seconds.
# Exit status: 0 when every command ran (a missed target is reported, not
# fatal), 1 otherwise.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
MB=${BENCH_VIEWS_MB:-200}
RUNS=${BENCH_RUNS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-views-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/views
. "$ROOT/bench/lib.sh"

case $MB in '' | *[!0-9]* | 0) die "BENCH_VIEWS_MB must be a positive whole number" ;; esac
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make'"

CLG=$(sh bench/make-profile.sh callgrind "$MB") || die "cannot make the $MB MB callgrind profile"
CG=$(sh bench/make-profile.sh cachegrind "$MB") || die "cannot make the $MB MB cachegrind profile"
cat "$CLG" "$CG" >/dev/null # a warm page cache for every run

slowest=0 slowest_name=""
# view LABEL PROFILE OUTPUT CMD... : time CMD (which reads PROFILE and
# writes OUTPUT, a file or a directory) and print its row
view() {
    label=$1 prof=$2 result=$3
    shift 3
    if ! measure "$RUNS" "$TMP/stdout" "$@"; then
        printf '  %-34s %8s\n' "$label" "FAILED"
        return 1
    fi
    bytes=$(wc -c <"$prof" | tr -d ' ')
    if [ -d "$result" ]; then
        outkb=$(du -sk "$result" | cut -f 1)
    else
        outkb=$(($(wc -c <"$result" | tr -d ' ') / 1024))
    fi
    awk -v l="$label" -v w="$WALL" -v c="$CPU" -v b="$bytes" -v r="$RSS" -v o="$outkb" 'BEGIN {
        printf "  %-34s %7.2f %7.2f %8.0f %8.1f %9d\n", l, w, c, (c > 0 ? b / 1e6 / c : 0), r / 1024, o
    }'
    if awk -v a="$CPU" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then
        slowest=$CPU slowest_name=$label
    fi
    return 0
}

echo "== tally flame, graph, report and convert on the $MB MB profiles"
echo "   $(basename "$CLG"): $(awk -v b="$(wc -c <"$CLG")" 'BEGIN { printf "%.1f", b / 1e6 }') MB;" \
    "$(basename "$CG"): $(awk -v b="$(wc -c <"$CG")" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
echo "   best of $RUNS runs; MB/cpu-s = profile MB read per CPU second; peak and output sizes"
echo "   in MiB and KiB."
echo
printf '  %-34s %7s %7s %8s %8s %9s\n' "command (callgrind file)" "wall s" "cpu s" "MB/cpu-s" \
    "peak MiB" "out KiB"
view "tally flame" "$CLG" "$TMP/flame.svg" "$TALLY" flame -o "$TMP/flame.svg" "$CLG"
view "tally flame --icicle --event=D1mr" "$CLG" "$TMP/icicle.svg" \
    "$TALLY" flame --icicle --event=D1mr -o "$TMP/icicle.svg" "$CLG"
view "tally graph -o OUT.dot" "$CLG" "$TMP/graph.dot" "$TALLY" graph -o "$TMP/graph.dot" "$CLG"
if command -v dot >/dev/null; then
    view "tally graph -o OUT.svg (with dot)" "$CLG" "$TMP/graph.svg" \
        "$TALLY" graph -o "$TMP/graph.svg" "$CLG"
else
    printf '  %-34s %s\n' "tally graph -o OUT.svg" "not run: dot is missing (Debian package graphviz)"
fi
view "tally report -o DIR" "$CLG" "$TMP/report" "$TALLY" report -o "$TMP/report" "$CLG"
view "tally convert --to=folded" "$CLG" "$TMP/folded.txt" \
    "$TALLY" convert --to=folded -o "$TMP/folded.txt" "$CLG"
view "tally convert --to=pprof" "$CLG" "$TMP/profile.pb.gz" \
    "$TALLY" convert --to=pprof -o "$TMP/profile.pb.gz" "$CLG"
echo
printf '  %-34s %7s %7s %8s %8s %9s\n' "command (cachegrind file)" "wall s" "cpu s" "MB/cpu-s" \
    "peak MiB" "out KiB"
view "tally flame" "$CG" "$TMP/cg-flame.svg" "$TALLY" flame -o "$TMP/cg-flame.svg" "$CG"
view "tally report -o DIR" "$CG" "$TMP/cg-report" "$TALLY" report -o "$TMP/cg-report" "$CG"

# the page in a real browser, when Chromium is there
load=""
if [ -f "$TMP/report/index.html" ] && { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; } &&
    [ -x /usr/bin/chromedriver ] && /usr/bin/python3 -c 'import selenium.webdriver' >/dev/null 2>&1; then
    /usr/bin/python3 bench/report_load.py "$TMP/report/index.html" "$TMP/shot.png" >"$TMP/load.log" 2>&1
    load=$(sed -n 's/^# page .* loaded in \([0-9.]*\) s$/\1/p' "$TMP/load.log" | head -n 1)
    again=$(sed -n 's/^# again: \([0-9.]*\) s$/\1/p' "$TMP/load.log")
    [ -n "$again" ] && load=$(awk -v a="$load" -v b="$again" 'BEGIN { print (b < a ? b : a) }')
    echo
    echo "  the report page (callgrind file) loads in Chromium in ${load:-?} s (better of at most two loads)"
    if grep -q '^not ok' "$TMP/load.log"; then
        grep '^not ok' "$TMP/load.log" | sed 's/^/  /'
    fi
fi

echo
echo "== targets (views)"
target() { printf '  %-46s %-28s %s\n' "$1" "$2" "$(verdict "$3")"; }
[ -n "$slowest_name" ] &&
    target "every command above takes <= 5 s of CPU" "${slowest}s ($slowest_name)" "$slowest <= 5"
[ -n "$load" ] && target "the report page loads in under 2 s" "${load}s" "$load < 2"
[ "$failures" = 0 ] || exit 1
exit 0
