#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Endless and giant input: /dev/zero and /dev/urandom into every reader of
# every command, under a memory limit (ulimit -v) and a time limit. Each
# must be refused (exit 1) with a message naming the file (and no control
# character from the input in it), never crash, hang or grow without bound:
# text readers stop at the line-length limit or at the first impossible
# byte, the gmon reader at the first header.
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
else
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
fi
