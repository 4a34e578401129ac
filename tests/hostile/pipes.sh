#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every input is opened once: a FIFO and a bash process substitution <( )
# into every command give the same output as the plain file (the name of
# the input aside). A command that opened its input twice to sniff the
# format would block on the FIFO, kill the writer with SIGPIPE or read the
# stream from the middle.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"

W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1
P="$ROOT/tests/data/callgrind/jumps.out"
A="$ROOT/tests/golden/complexity/r1.aprof"
cp "$P" prof.out
cp "$P" base.out
cp "$A" rep.aprof
HAVE_BASH=0
command -v bash >/dev/null 2>&1 && HAVE_BASH=1

# same_output NAME FILE ARGS_BEFORE... -- ARGS_AFTER...: run "tally ARGS_BEFORE
# FILE ARGS_AFTER" on the plain file, through a FIFO, and through <( cat FILE )
# (bash); stdout, with the input's name replaced by IN, must be the same.
same_output() {
    name=$1 file=$2
    shift 2
    timeout 20 "$TALLY" "$@" "$file" >plain.txt 2>plain.err
    prc=$?
    sed "s|$file|IN|g" plain.txt >plain.norm
    rm -f fifo
    mkfifo fifo
    (cat "$file" >fifo &)
    timeout 20 "$TALLY" "$@" fifo >fifo.txt 2>fifo.err
    frc=$?
    sed "s|fifo|IN|g" fifo.txt >fifo.norm
    if [ "$prc" = 0 ] && [ "$frc" = 0 ] && cmp -s plain.norm fifo.norm; then ok "$name: FIFO"; else
        not_ok "$name: FIFO"
        { echo "plain exit $prc, FIFO exit $frc"; head -n 5 fifo.err; diff plain.norm fifo.norm | head -n 10; } | diag
    fi
    if [ $HAVE_BASH = 0 ]; then ok "$name: <( ) # SKIP no bash"; return; fi
    # shellcheck disable=SC2016
    timeout 20 bash -c 't=$1; shift; exec "$t" "$@" <(cat "$0")' "$file" "$TALLY" "$@" >ps.txt 2>ps.err
    src=$?
    sed -E "s|/dev/fd/[0-9]+|IN|g" ps.txt >ps.norm
    if [ "$prc" = 0 ] && [ "$src" = 0 ] && cmp -s plain.norm ps.norm; then ok "$name: <( )"; else
        not_ok "$name: <( )"
        { echo "plain exit $prc, <( ) exit $src"; head -n 5 ps.err; diff plain.norm ps.norm | head -n 10; } | diag
    fi
}

same_output annotate prof.out annotate
same_output "annotate (second profile)" prof.out annotate base.out
same_output merge prof.out merge
same_output diff prof.out diff base.out
same_output "convert --to=callgrind" prof.out convert --to=callgrind
same_output "convert --to=folded" prof.out convert --to=folded
same_output flame prof.out flame
same_output graph prof.out graph
same_output complexity rep.aprof complexity
same_output "merge (aprof)" rep.aprof merge

# report writes a directory: its page must exist and hold the function names
for how in fifo procsubst; do
    rm -rf rep fifo
    if [ $how = fifo ]; then
        mkfifo fifo
        (cat prof.out >fifo &)
        timeout 20 "$TALLY" report -o rep fifo >/dev/null 2>rep.err
    elif [ $HAVE_BASH = 1 ]; then
        timeout 20 bash -c 'exec "$1" report -o rep <(cat prof.out)' sh "$TALLY" >/dev/null 2>rep.err
    else
        ok "report: $how # SKIP no bash"
        continue
    fi
    if [ $? = 0 ] && grep -q 'main' rep/index.html; then ok "report: $how"; else
        not_ok "report: $how"
        diag <rep.err
    fi
done

# a program and its gmon.out through a FIFO: gprof and the commands that read it
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    cp "$GPROF/cycles.gmon" g.gmon
    same_output "gprof (gmon.out)" g.gmon gprof -b "$GEX/cycles"
    same_output "convert (program, gmon.out)" g.gmon convert --to=folded "$GEX/cycles"
    same_output "flame (program, gmon.out)" g.gmon flame "$GEX/cycles"
else
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
fi
