#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `tally record` against Callgrind on programs that mostly start up: little
# of their code runs more than a few times, so the time goes to translating
# it and the memory to what is kept per instruction.
#
#   sh bench/startup.sh        (run by bench/run.sh unless BENCH_STARTUP=no)
#
# The programs, each skipped when it is not installed:
#   node     node --jitless -e 1
#   java     java -version
#   gcc      gcc -O2 -c examples/wordfreq.c (the whole driver, with
#            --trace-children=yes on both sides; the peak is the largest
#            process's, cc1's)
#   python3  /usr/bin/python3 (Debian's, not a shim on PATH) dumping and
#            reading back a JSON document of 3,000 records three times
# Both tools run with their default options (plus --trace-children=yes for
# gcc), in one environment (env -i PATH=/usr/bin:/bin), writing their
# profiles to a scratch directory. The runs are paired: tally, then
# Callgrind, BENCH_STARTUP_RUNS times (default 3), and each row shows
# tally's median CPU seconds (user + system) and peak memory (maximum
# resident set size), Callgrind's, and the medians of the ratios of the
# pairs; on a shared machine a pair sees the same load. Target: both
# ratios at most 1.0 (never slower, never larger than Callgrind).
#
# TALLY_VALGRIND_LIB, when set, is kept (tally record's tool directory: to
# measure another build of the tool with the same tally).
#
# Exit status: 0 when every command ran (targets missed are reported, not
# fatal), 1 otherwise.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
RUNS=${BENCH_STARTUP_RUNS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-startup-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/startup
. "$ROOT/bench/lib.sh"

case $RUNS in '' | *[!0-9]* | 0) die "BENCH_STARTUP_RUNS must be a positive whole number" ;; esac
[ -x "$TIME" ] || die "$TIME is missing; install the Debian package 'time'"
command -v valgrind >/dev/null || die "valgrind is missing; run 'sh scripts/install-deps.sh'"
[ -x "$TALLY" ] || die "$TALLY is missing (run 'make')"

E="env -i PATH=/usr/bin:/bin${TALLY_VALGRIND_LIB:+ TALLY_VALGRIND_LIB=$TALLY_VALGRIND_LIB}"
cat >"$TMP/roundtrip.py" <<'EOF'
import json
d = [{"a": i, "b": [i, str(i), {"c": i * 2}]} for i in range(3000)]
for _ in range(3):
    json.loads(json.dumps(d))
EOF
cp "$ROOT/examples/wordfreq.c" "$TMP/wordfreq.c"

echo "tally record against Callgrind on start-up-heavy programs ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?') cores, $(valgrind --version))"
echo "Default options both (gcc: --trace-children=yes), env -i; $RUNS pairs (tally, then Callgrind) per program."
echo "CPU seconds (user + system) and peak MiB (largest process): medians; ratios: medians of the pairs'."
echo
printf '  %-8s %9s %9s %9s %9s %9s %9s   %s\n' program "tally s" "clg s" "cpu x" "tally MiB" "clg MiB" "peak x" targets

# one NAME CMD... : the pairs of one program, then its row
one() {
    _name=$1
    shift
    _opt=""
    [ "$_name" = gcc ] && _opt=--trace-children=yes
    : >"$TMP/pairs"
    _i=0
    while [ "$_i" -lt "$RUNS" ]; do
        rm -f "$TMP"/out.*
        # shellcheck disable=SC2086 # $E and $_opt are split on purpose
        run_once /dev/null $E "$TALLY" record -q $_opt --out-file="$TMP/out.tally.%p" -- "$@"
        if [ "$RC" != 0 ]; then
            echo "$BENCH_NAME: tally record of $_name failed (exit $RC):" >&2
            head -n 5 "$TMP/stderr" >&2
            failures=$((failures + 1))
            return 1
        fi
        _tc=$CPU _tm=$RSS
        # shellcheck disable=SC2086
        run_once /dev/null $E valgrind -q --tool=callgrind $_opt \
            --callgrind-out-file="$TMP/out.clg.%p" "$@"
        if [ "$RC" != 0 ]; then
            echo "$BENCH_NAME: Callgrind on $_name failed (exit $RC):" >&2
            head -n 5 "$TMP/stderr" >&2
            failures=$((failures + 1))
            return 1
        fi
        echo "$_tc $_tm $CPU $RSS" >>"$TMP/pairs"
        _i=$((_i + 1))
    done
    awk -v name="$_name" 'function med(v, n,   i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        { n++; tc[n] = $1; tm[n] = $2 / 1024; cc[n] = $3; cm[n] = $4 / 1024
          rc[n] = ($3 > 0 ? $1 / $3 : 0); rm[n] = ($4 > 0 ? $2 / $4 : 0) }
        END {
            c = med(rc, n); m = med(rm, n)
            printf "  %-8s %9.2f %9.2f %8.3fx %9.1f %9.1f %8.3fx   cpu %s, peak %s\n", name,
                med(tc, n), med(cc, n), c, med(tm, n), med(cm, n), m,
                (c <= 1 ? "met" : "MISSED"), (m <= 1 ? "met" : "MISSED")
        }' "$TMP/pairs"
}

skip() { printf '  %-8s %s\n' "$1" "skipped: $2"; }

if command -v node >/dev/null; then one node "$(command -v node)" --jitless -e 1; else skip node "node is not installed"; fi
if command -v java >/dev/null; then one java "$(command -v java)" -version; else skip java "java is not installed"; fi
if command -v gcc >/dev/null; then
    one gcc "$(command -v gcc)" -O2 -c "$TMP/wordfreq.c" -o "$TMP/wordfreq.o"
else
    skip gcc "gcc is not installed"
fi
if [ -x /usr/bin/python3 ]; then one python3 /usr/bin/python3 "$TMP/roundtrip.py"; else skip python3 "/usr/bin/python3 is missing"; fi

if [ "$failures" != 0 ]; then
    echo "$BENCH_NAME: $failures command(s) failed" >&2
    exit 1
fi
exit 0
