#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally's own performance gate (docs/tally-check.md, "tally checks itself").
#
# The reader of callgrind files is measured by counting the instructions
# executed inside callgrind_read() while `tally annotate` reads a fixed
# profile (tests/data/check/annotate-input.out), under `tally record
# --clean-env --toggle-collect=callgrind_read`. The count does not change
# from run to run; it does change with the compiler, its flags, the C
# library and the CPU features the C library picks its string functions
# by, so the baseline is kept with a fingerprint of those
# (tests/data/check/reader.env) and the test skips on a machine that
# differs.
#
#   sh scripts/check-baseline.sh              refresh tests/data/check/reader.out and .env
#   sh scripts/check-baseline.sh --fingerprint print this machine's fingerprint
#   sh scripts/check-baseline.sh --check [CHECK OPTIONS]
#                                             record and check against the baseline
#                                             (exit as tally check: 0, 3, 1, 2)
#
# TALLY is the tally that records (default build/tally); the program
# measured is always build/tally.
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
TALLY=${TALLY:-$ROOT/build/tally}
DATA=tests/data/check

fingerprint() {
    producer=$(readelf --debug-dump=info "$ROOT/build/tally" 2>/dev/null |
        sed -n 's/.*DW_AT_producer *: *\(([^)]*): *\)\{0,1\}//p' | head -n 1)
    echo "compiler: $producer"
    echo "libc: $(getconf GNU_LIBC_VERSION 2>/dev/null)"
    echo "valgrind: $(valgrind --version 2>/dev/null)"
    echo "cpu: $(grep -o -w -E 'avx2|avx512f|avx512bw|avx512vl|erms|fsrm|sse4_2' /proc/cpuinfo 2>/dev/null |
        sort -u | tr '\n' ' ' | sed 's/ $//')"
}

# record_reader OPTIONS...: the recording, with OPTIONS for tally record
record_reader() {
    (cd "$DATA" && "$TALLY" record -q --clean-env --toggle-collect=callgrind_read \
        --baseline-dir=. "$@" -- "$ROOT/build/tally" annotate --auto=no annotate-input.out) \
        >/dev/null 2>"${RECORD_LOG:-/dev/null}"
}

case $1 in
--fingerprint)
    fingerprint
    ;;
--check)
    shift
    out=$(mktemp "${TMPDIR:-/tmp}/tally-self.XXXXXX")
    report=$(mktemp "${TMPDIR:-/tmp}/tally-self.XXXXXX")
    RECORD_LOG=$report.log record_reader --baseline=reader --out-file="$out" -o "$report" "$@"
    rc=$?
    cat "$report"
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || cat "$report.log" >&2
    rm -f "$out" "$report" "$report.log"
    exit $rc
    ;;
"")
    out=$(mktemp "${TMPDIR:-/tmp}/tally-self.XXXXXX")
    record_reader --save-baseline=reader --out-file="$out" || {
        echo "check-baseline.sh: the recording failed" >&2
        rm -f "$out"
        exit 1
    }
    rm -f "$out"
    fingerprint >"$DATA/reader.env"
    echo "refreshed $DATA/reader.out and $DATA/reader.env:"
    cat "$DATA/reader.env"
    ;;
*)
    echo "usage: sh scripts/check-baseline.sh [--fingerprint | --check [CHECK OPTIONS]]" >&2
    exit 2
    ;;
esac
