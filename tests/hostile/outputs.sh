#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs and messages under hostile use: -o onto an input is refused and
# the input stays intact (merge into one of its inputs is the documented
# exception); SIGTERM and SIGINT while an output is written leave no
# temporary file; refusals name the file that is wrong, however long its
# event list.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"

W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1
cp "$ROOT/tests/data/callgrind/jumps.out" x.out
cp x.out keep.out

# ------------------------------------------------------------ -o onto an input
onto_input() { # NAME ARGS...: refused with exit 2 naming x.out, x.out intact
    name=$1
    shift
    "$TALLY" "$@" >out.txt 2>err.txt
    rc=$?
    if [ $rc = 2 ] && grep -q 'would overwrite the input x.out' err.txt && cmp -s x.out keep.out; then
        ok "$name"
    else
        not_ok "$name"
        { echo "exit $rc"; cat err.txt; } | diag
        cp keep.out x.out
    fi
}
onto_input "flame -o x.out x.out" flame -o x.out x.out
onto_input "convert -o onto its input" convert --to=json -o x.out x.out
onto_input "graph -o ./x.out x.out" graph -o ./x.out x.out
ln -s x.out link.out
onto_input "diff -o through a symbolic link" diff -o link.out keep.out x.out
onto_input "report -o x.out x.out" report -o x.out x.out
"$TALLY" convert --to=json -o new.json new.json >/dev/null 2>err.txt
if [ $? = 2 ] && grep -q 'would overwrite the input new.json' err.txt && [ ! -e new.json ]; then
    ok "an output named like a missing input is refused"
else not_ok "an output named like a missing input is refused"; diag <err.txt; fi
"$TALLY" merge -o x.out x.out keep.out >/dev/null 2>err.txt
if [ $? = 0 ] && ! cmp -s x.out keep.out && grep -q '^events: Ir' x.out; then
    ok "merge into one of its inputs (documented) still works"
else not_ok "merge into one of its inputs (documented) still works"; diag <err.txt; fi
cp keep.out x.out
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    cp "$GPROF/cycles.gmon" g.gmon
    cp g.gmon g.keep
    "$TALLY" gprof -b --callgrind-out=g.gmon "$GEX/cycles" g.gmon >/dev/null 2>err.txt
    if [ $? = 2 ] && grep -q 'would overwrite the input g.gmon' err.txt && cmp -s g.gmon g.keep; then
        ok "gprof --callgrind-out onto its gmon.out"
    else not_ok "gprof --callgrind-out onto its gmon.out"; diag <err.txt; fi
    # a damaged gmon.out after its program is named, by every command
    head -c 30 g.gmon >bad.gmon
    printf 'XXXX' | dd of=bad.gmon conv=notrunc 2>/dev/null
    for cmd in "gprof -b" "convert --to=folded" flame graph merge; do
        # shellcheck disable=SC2086
        "$TALLY" $cmd "$GEX/cycles" bad.gmon >/dev/null 2>err.txt
        if [ $? = 1 ] && grep -q '^tally: bad.gmon: ' err.txt; then ok "$cmd: a bad gmon.out is named"
        else not_ok "$cmd: a bad gmon.out is named"; diag <err.txt; fi
    done
    # a GNU histogram with an inverted range (low_pc above high_pc): one
    # validation in the reader, so every command refuses it alike
    python3 -c '
import struct, sys
h = b"gmon" + struct.pack("<I", 1) + bytes(12)
h += bytes([0]) + struct.pack("<QQII", 0x2000, 0x1000, 2, 100) + b"seconds".ljust(15, b"\0") + b"s"
h += struct.pack("<HH", 1, 1)
sys.stdout.buffer.write(h)' >inv.gmon
    for cmd in "gprof -b" "convert --to=folded" flame graph merge; do
        # shellcheck disable=SC2086
        "$TALLY" $cmd "$GEX/cycles" inv.gmon >/dev/null 2>err.txt
        if [ $? = 1 ] && grep -q '^tally: inv.gmon: histogram record at byte 20: low_pc' err.txt; then
            ok "$cmd: an inverted histogram range is refused"
        else not_ok "$cmd: an inverted histogram range is refused"; diag <err.txt; fi
    done
else
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
fi

# ------------------------------------------------------------ -o onto a FIFO or a device
# written in place: a rename over it would replace the FIFO (or /dev/null)
# with a regular file
mkfifo out.fifo
cat out.fifo >fifo.txt &
catpid=$!
"$TALLY" convert --to=folded -o out.fifo x.out 2>err.txt
rc=$?
sleep 1
kill $catpid 2>/dev/null # still waiting only when nothing was written into the FIFO
if [ $rc = 0 ] && [ -p out.fifo ] && grep -q . fifo.txt; then ok "-o onto a FIFO writes into it"
else not_ok "-o onto a FIFO writes into it"; { echo "exit $rc"; cat err.txt; ls -l; } | diag; fi

# ------------------------------------------------------------ 1,000 events
awk 'BEGIN { printf "events:"; for (i = 0; i < 1000; i++) printf " Event%d", i; print "";
    print "fl=a.c"; print "fn=f"; printf "1"; for (i = 0; i < 1000; i++) printf " 1"; print "" }' >many.out
for cmd in merge "convert --to=json" flame graph diff; do
    # shellcheck disable=SC2086
    "$TALLY" $cmd x.out many.out >/dev/null 2>err.txt
    if [ $? = 1 ] && grep -q '^tally: many.out: .*(1000 events)' err.txt; then
        ok "$cmd: events differ names the file with 1,000 events"
    else not_ok "$cmd: events differ names the file with 1,000 events"; diag <err.txt; fi
done

# ------------------------------------------------------------ the file to blame in a join
# the contexts and callgrind files of one run whose costs disagree: the one
# whose own costs do not add up to its totals line is named
printf '# tally contexts 1\ncmd: ./a\npid: 7\nevents: Ir\nfl 1 a.c\nfn 1 0 1 main\nfn 2 0 1 work\nx 1 0 1 1 10\nx 2 1 2 3 90\ntotals: 100\n' >p.ctx
printf '# callgrind format\nversion: 1\ncmd: ./a\npid: 7\npositions: line\nevents: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=3 1\n1 90\nfn=work\n1 90\ntotals: 100\n' >p.out
"$TALLY" convert --to=folded p.ctx p.out >pair.txt 2>err.txt
if [ $? = 0 ] && grep -q '^main;work 90$' pair.txt; then ok "a contexts + callgrind pair is joined"
else not_ok "a contexts + callgrind pair is joined"; diag <err.txt; fi
sed 's/^x 2 1 2 3 90$/x 2 1 2 3 91/' p.ctx >bad.ctx
sed 's/^1 90$/1 91/' p.out >bad.out
for pair in "bad.ctx p.out bad.ctx" "p.ctx bad.out bad.out" "p.out bad.ctx bad.ctx"; do
    set -- $pair
    "$TALLY" flame "$1" "$2" >/dev/null 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: $3: .*not the contexts and callgrind files of one run" err.txt; then
        ok "join of $1 and $2 names $3"
    else not_ok "join of $1 and $2 names $3"; diag <err.txt; fi
done

# ------------------------------------------------------------ signals
# a profile whose conversion takes a while to write (about a second: long
# enough that the signal comes while the temporary file is there)
awk 'BEGIN { print "events: Ir Dr Dw"; print "fl=big.c";
    for (f = 0; f < 300000; f++) { print "fn=function_number_" f; for (l = 1; l <= 5; l++) print l, f, l, 1 } }' >big.out
for sig in TERM INT; do
    rm -f big.json big.json.tmp*
    # tally is started with SIGINT at its default: a shell's background job,
    # and so python under one (nohup, `&`), starts with SIGINT ignored, and a
    # program that inherits it ignored rightly keeps it so
    python3 - "$TALLY" "$sig" <<'PY' >sig.txt 2>&1
import glob, os, signal, subprocess, sys, time
tally, sig = sys.argv[1], getattr(signal, "SIG" + sys.argv[2])
# a run that ends before the signal comes (a busy machine can hold the
# signal back past the rename) proves nothing: up to 5 tries
for attempt in range(5):
    p = subprocess.Popen([tally, "convert", "--to=json", "-o", "big.json", "big.out"],
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    end = time.time() + 30
    while time.time() < end and not glob.glob("big.json.tmp*") and p.poll() is None:
        time.sleep(0.002)
    seen = bool(glob.glob("big.json.tmp*"))
    p.send_signal(sig)
    rc = p.wait()
    if not (seen and rc == 0):
        break
    os.remove("big.json")
print("seen" if seen else "missed", rc)
PY
    left=$(ls big.json.tmp* big.json 2>/dev/null | wc -l)
    if grep -q "^seen -" sig.txt && [ "$left" = 0 ]; then ok "SIG$sig while writing leaves no file"
    else not_ok "SIG$sig while writing leaves no file"; { cat sig.txt; ls; } | diag; fi
done
