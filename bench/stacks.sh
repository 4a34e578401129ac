#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How near the stacks estimated from call arcs come to the exact stacks of
# the same run, on real programs: bzip2, sqlite3 and python3, each run once
# under `tally record --contexts=yes` (which writes the exact stacks, the
# contexts file, and the callgrind file of the run).
#
#   sh bench/stacks.sh          (run by bench/run.sh unless BENCH_STACKS=no)
#
# Printed per program, on Ir: the error (the sum over every stack of
# |estimated - exact| over the total; 0 = the exact stacks, 2 = no cost on a
# stack of its own, bench/stackerr.c) of the estimate by the arcs' inclusive
# costs (tally's rule), by call counts (gprof's rule: the same arcs with
# their costs set to 0), both from the contexts file's own arcs, and from
# the tool's callgrind file (whose function names differ for code without
# symbols: docs/internals/stacks.md). Exit status: 0 when every command ran.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-stacks-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/stacks
. "$ROOT/bench/lib.sh"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make'"
[ -f build/libtally.a ] || die "build/libtally.a is missing; run 'make'"
cc -std=c17 -D_GNU_SOURCE -O2 -Isrc -o "$TMP/stackerr" bench/stackerr.c build/libtally.a \
    -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm || die "cannot build bench/stackerr.c"
export TALLY_VALGRIND_LIB="$ROOT/build/valgrind/lib"

seq 1 200000 >"$TMP/numbers.txt"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
SQL="create table t(a,b); with recursive c(x) as (select 1 union all select x+1 from c where x<20000) \
insert into t select x, x*7%1000 from c; create index i on t(b); \
select b, count(*), sum(a) from t group by b order by 2 desc limit 3;"
echo "Stacks estimated from call arcs against the exact stacks of the same run (error on Ir)"
printf '  %-10s %14s %10s %10s %12s\n' program "total Ir" "by costs" "by counts" "tool's file"
failed=0
for prog in bzip2 sqlite3 python3; do
    case $prog in
    bzip2) set -- bzip2 -c "$TMP/numbers.txt" ;;
    sqlite3) set -- sqlite3 :memory: "$SQL" ;;
    python3) set -- "$PY" -c 'import json; print(len(json.dumps([{str(i): i * i} for i in range(5000)])))' ;;
    esac
    d=$TMP/$prog
    mkdir -p "$d"
    if ! command -v "$1" >/dev/null 2>&1 ||
        ! (cd "$d" && "$TALLY" record --contexts=yes -- "$@" >/dev/null 2>"$d/rec.err"); then
        printf '  %-10s %14s\n' "$prog" FAILED
        failed=$((failed + 1))
        continue
    fi
    ctx=$(ls "$d"/tally.ctx.*)
    cgo=$(ls "$d"/tally.out.*)
    if (cd "$d" && "$TALLY" convert --to=callgrind -o arcs.out "$ctx") &&
        awk 'z { print $1, 0; z = 0; next } /^calls=/ { z = 1 } { print }' "$d/arcs.out" \
            >"$d/counts.out" &&
        "$TMP/stackerr" "$ctx" "$d/arcs.out" "$d/counts.out" "$cgo" >"$d/err.txt"; then
        awk -v p="$prog" '{ r[NR] = $3; t = NR == 1 ? $2 : t }
            END { printf "  %-10s %14s %10s %10s %12s\n", p, t, r[1], r[2], r[3] }' "$d/err.txt"
    else
        printf '  %-10s %14s\n' "$prog" FAILED
        failed=$((failed + 1))
    fi
done
[ "$failed" = 0 ]
