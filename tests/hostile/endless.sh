#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Endless and giant input: /dev/zero and /dev/urandom into every reader of
# every command, under a memory limit (ulimit -v) and a time limit. Each
# must be refused (exit 1) with a message naming the file (and no control
# character from the input in it), never crash, hang or grow without bound:
# text readers stop at the line-length limit or at the first impossible
# byte, the gmon reader at the first header or at its record limit.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"

LIMIT_KB=1048576 # 1 GiB of address space: the old readers needed many
W="$TMP/work"
mkdir -p "$W"

# limited NAME FILE ARGS...: run tally ARGS under the limits; ok when it exits
# 1 and its last message starts "tally: FILE" (FILE as given)
limited() {
    name=$1 file=$2
    shift 2
    (ulimit -v $LIMIT_KB && cd "$W" && exec timeout 30 "$TALLY" "$@") >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    last=$(grep -av 'warning' "$TMP/err" | tail -n 1)
    # a message quoting binary input shows no control character (ESC, ...)
    if tr -d '\n\t' <"$TMP/err" | LC_ALL=C grep -aq '[[:cntrl:]]'; then rc="$rc (control characters)"; fi
    case "$rc:$last" in
    "1:tally: $file"*) ok "$name" ;;
    *)
        not_ok "$name"
        echo "exit $rc; stderr: $(head -c 300 "$TMP/err")" | diag
        ;;
    esac
}

for dev in /dev/zero /dev/urandom; do
    limited "annotate $dev" "$dev" annotate "$dev"
    limited "merge $dev" "$dev" merge "$dev"
    limited "diff $dev" "$dev" diff "$ROOT/tests/data/callgrind/jumps.out" "$dev"
    limited "convert $dev" "$dev" convert --to=json "$dev"
    limited "flame $dev" "$dev" flame "$dev"
    limited "graph $dev" "$dev" graph "$dev"
    limited "report $dev" "$dev" report -o "$W/rep" "$dev"
    limited "complexity $dev" "$dev" complexity "$dev"
    limited "merge --format=aprof $dev" "$dev" merge --format=aprof "$dev"
done
if [ -d "$W/rep" ]; then not_ok "report leaves no directory for a refused input"; else
    ok "report leaves no directory for a refused input"; fi

# the same streamed through standard input: refused at once, or at the line limit
for cmd in annotate merge complexity; do
    (ulimit -v $LIMIT_KB && head -c 300000000 /dev/zero | timeout 30 "$TALLY" $cmd -) \
        >"$TMP/out" 2>"$TMP/err"
    if grep -q '^tally: -:1: ' "$TMP/err"; then ok "$cmd: 300 MB of zeros on stdin"
    else not_ok "$cmd: 300 MB of zeros on stdin"; head -c 300 "$TMP/err" | diag; fi
done

# gmon.out: refused at its first header, on a path and on a pipe
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    EXE="$GEX/cycles"
    limited "gprof /dev/zero" /dev/zero gprof -b "$EXE" /dev/zero
    limited "flame: a program and /dev/zero" /dev/zero flame "$EXE" /dev/zero
    (ulimit -v $LIMIT_KB && timeout 30 "$TALLY" gprof -b "$EXE" - </dev/zero) >"$TMP/out" 2>"$TMP/err"
    if grep -q '^tally: -: does not appear to be in gmon.out format' "$TMP/err"; then
        ok "gprof: /dev/zero on stdin"
    else not_ok "gprof: /dev/zero on stdin"; head -c 300 "$TMP/err" | diag; fi
    # a plausible old BSD header (64-bit, no histogram bins) then arcs that never end:
    # stopped at the record limit (2^24 by default) with bounded memory and time
    printf '\000\020\000\000\000\000\000\000\000\040\000\000\000\000\000\000\024\000\000\000\000\000\000\000' \
        >"$TMP/bsdhdr"
    (ulimit -v $LIMIT_KB && cat "$TMP/bsdhdr" /dev/urandom | timeout 60 "$TALLY" gprof -b "$EXE" -) \
        >"$TMP/out" 2>"$TMP/err"
    if grep -q '^tally: -: more than 16777216 records (arcs, blocks, histograms) at byte 402653204: ' "$TMP/err"
    then ok "gprof: endless BSD arcs on a pipe stop at the record limit"
    else not_ok "gprof: endless BSD arcs on a pipe stop at the record limit"; head -c 300 "$TMP/err" | diag; fi
    # a stream longer than the reader's chunk: read alike from a pipe and a file, and a
    # cut one names the same byte both ways (the decoded bytes are given back on a pipe)
    from=$(nm "$EXE" | awk '$3 == "green" { print $1 }')
    to=$(nm "$EXE" | awk '$3 == "blue" { print $1 }')
    python3 -c 'import struct, sys
out, a, b = sys.stdout.buffer, int(sys.argv[1], 16) + 4, int(sys.argv[2], 16)
out.write(struct.pack("<QQI", 0x1000, 0x2000, 20))  # old BSD, 64-bit: no bins
for i in range(200000):
    out.write(struct.pack("<QQQ", a, b, 1))
out.write(bytes(30))' "$from" "$to" >"$TMP/long.gmon"
    head -c 3000000 "$TMP/long.gmon" >"$TMP/cut.gmon"
    "$TALLY" gprof -b -q "$EXE" "$TMP/long.gmon" >"$TMP/file.out" 2>&1
    cat "$TMP/long.gmon" | "$TALLY" gprof -b -q "$EXE" - >"$TMP/pipe.out" 2>&1
    sed 's|/.*long.gmon|-|' "$TMP/file.out" >"$TMP/file2.out"
    same_text "a long gmon file reads alike from a pipe and a file" "$TMP/file2.out" "$TMP/pipe.out"
    # 200000 arcs green -> blue of count 1, then 30 bytes: one more (zero) arc and 6 bytes
    grep -q '200000/200000 *green' "$TMP/pipe.out" && ok "a long pipe's arcs are all counted" ||
        { not_ok "a long pipe's arcs are all counted"; head -n 30 "$TMP/pipe.out" | diag; }
    grep -q "ignoring 6 trailing bytes at byte $((20 + 200001 * 24))" "$TMP/pipe.out" &&
        ok "a pipe's trailing bytes are named at their offset in the stream" ||
        not_ok "a pipe's trailing bytes are named at their offset in the stream"
    cat "$TMP/cut.gmon" | "$TALLY" gprof -b -q "$EXE" - >/dev/null 2>"$TMP/cut.err"
    cut_arcs=$(((3000000 - 20) / 24))
    grep -q "ignoring $((3000000 - 20 - cut_arcs * 24)) trailing bytes at byte $((20 + cut_arcs * 24))" "$TMP/cut.err" &&
        ok "a cut pipe is named at its offset in the stream" ||
        { not_ok "a cut pipe is named at its offset in the stream"; diag <"$TMP/cut.err"; }
    for cmd in flame graph "convert --to=folded" "report -o $W/rep2" merge annotate; do
        (ulimit -v $LIMIT_KB && cat "$TMP/bsdhdr" /dev/urandom |
            timeout 30 "$TALLY" --max-records=100000 $cmd "$EXE" -) >"$TMP/out" 2>"$TMP/err"
        if grep -q '^tally: -: more than 100000 records .* at byte 2400020: ' "$TMP/err"
        then ok "$cmd: --max-records=100000 stops endless BSD arcs"
        else not_ok "$cmd: --max-records=100000 stops endless BSD arcs"; head -c 300 "$TMP/err" | diag; fi
    done
else
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
fi
expect_run "--max-records wants a count" 2 "" "^tally: --max-records needs a number" --max-records=x annotate a
