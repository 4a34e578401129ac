#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a large, real profile for the benchmark and print its path.
#
#   sh bench/make-profile.sh callgrind|cachegrind SIZE_MB
#
# One run of examples/wordfreq under Valgrind gives the base profile:
#   callgrind:  --dump-instr=yes --collect-jumps=yes --cache-sim=yes
#   cachegrind: --cache-sim=yes
# The file of SIZE_MB (10^6 bytes) megabytes or a little more keeps the
# header once and repeats the body (every cost, call and jump line) as
# many times as needed, all inside the one part. The repeated body
# re-defines its compressed names "(id) name" the same way each time,
# which the format allows; its first position is absolute, so the
# relative positions inside every copy mean the same. Readers add the
# copies into the same cost centres, so their memory does not grow with
# the repeat count. The `summary:` and `totals:` values are multiplied by
# the repeat count so that they still describe the file.
#
# Files are cached in bench/cache/ (git-ignored) and rebuilt only when the
# example binary or this script is newer.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$ROOT/bench/cache
KIND=${1:?usage: make-profile.sh callgrind|cachegrind SIZE_MB}
MB=${2:?usage: make-profile.sh callgrind|cachegrind SIZE_MB}
WORDS=${BENCH_WORDS:-20000}
PROG=$ROOT/examples/wordfreq
SELF=$ROOT/bench/make-profile.sh

case $KIND in
callgrind) VGOPTS="--tool=callgrind --dump-instr=yes --collect-jumps=yes --cache-sim=yes" ;;
cachegrind) VGOPTS="--tool=cachegrind --cache-sim=yes" ;;
*) echo "make-profile.sh: unknown kind '$KIND'" >&2; exit 2 ;;
esac
case $MB in
'' | *[!0-9]*) echo "make-profile.sh: SIZE_MB must be a number" >&2; exit 2 ;;
esac

mkdir -p "$CACHE"
[ -x "$PROG" ] || make -s -C "$ROOT/examples" >&2

# shellcheck disable=SC3013 # -nt works in dash and bash
fresh() { # FILE DEP... : FILE exists and is newer than every DEP
    f=$1; shift
    [ -s "$f" ] || return 1
    for d in "$@"; do [ "$f" -nt "$d" ] || return 1; done
}

base=$CACHE/base.$KIND.out
if ! fresh "$base" "$PROG" "$SELF"; then
    echo "bench: profiling examples/wordfreq $WORDS with valgrind --tool=$KIND" >&2
    # run from examples/ so that file names are the ones the tests see;
    # Valgrind's notes about the host's cache go to a log, shown on failure
    cd "$ROOT/examples"
    # shellcheck disable=SC2086
    if ! valgrind -q $VGOPTS "--$KIND-out-file=$base.tmp" ./wordfreq "$WORDS" \
        >/dev/null 2>"$CACHE/valgrind.log"; then
        cat "$CACHE/valgrind.log" >&2
        rm -f "$base.tmp"
        exit 1
    fi
    cd "$ROOT"
    mv "$base.tmp" "$base"
fi

out=$CACHE/$KIND.${MB}MB.out
if fresh "$out" "$base"; then
    echo "$out"
    exit 0
fi

# Split the base: header lines (through `events:`), the stated summary and
# totals, and the body that gets repeated.
tmp=$CACHE/split.$$
trap 'rm -f "$tmp".*' EXIT
awk -v pre="$tmp" '
    BEGIN { inbody = 0 }
    /^summary:/ { sub(/^summary:[ \t]*/, ""); print > (pre ".summary"); next }
    /^totals:/ { sub(/^totals:[ \t]*/, ""); print > (pre ".totals"); next }
    !inbody { print > (pre ".head"); if ($0 ~ /^events:/) inbody = 1; next }
    { print > (pre ".body") }
' "$base"
: >>"$tmp.summary"
: >>"$tmp.totals"

body_size=$(wc -c <"$tmp.body")
head_size=$(wc -c <"$tmp.head")
want=$((MB * 1000000))
reps=$(((want - head_size + body_size - 1) / body_size))
[ "$reps" -ge 1 ] || reps=1

scale() { # multiply every number on the line by $reps (64-bit shell arithmetic)
    line=""
    for v in $1; do
        case $v in
        *[!0-9]*) echo "make-profile.sh: cannot scale '$v'" >&2; exit 1 ;;
        esac
        p=$((v * reps))
        if [ "$v" != 0 ] && [ $((p / reps)) != "$v" ]; then
            echo "make-profile.sh: $v * $reps overflows" >&2
            exit 1
        fi
        line="${line:+$line }$p"
    done
    echo "$line"
}

echo "bench: writing $out ($reps copies of a $body_size byte body)" >&2
# a chunk of up to 64 copies, so that cat runs a few dozen times at most
chunk=64
[ "$reps" -ge "$chunk" ] || chunk=$reps
i=0
while [ $i -lt $chunk ]; do cat "$tmp.body"; i=$((i + 1)); done >"$tmp.chunk"
{
    cat "$tmp.head"
    # callgrind states the summary in the header; cachegrind at the very end
    if [ "$KIND" = callgrind ] && [ -s "$tmp.summary" ]; then
        echo "summary: $(scale "$(cat "$tmp.summary")")"
    fi
    i=0
    while [ $i -lt $((reps / chunk)) ]; do cat "$tmp.chunk"; i=$((i + 1)); done
    i=0
    while [ $i -lt $((reps % chunk)) ]; do cat "$tmp.body"; i=$((i + 1)); done
    if [ -s "$tmp.totals" ]; then echo "totals: $(scale "$(cat "$tmp.totals")")"; fi
    if [ "$KIND" = cachegrind ] && [ -s "$tmp.summary" ]; then
        echo "summary: $(scale "$(cat "$tmp.summary")")"
    fi
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
