#!/bin/sh
# tally diff: usage errors (exit 2), bad or missing input (exit 1, with
# "tally: FILE[:LINE]: message"), output options, and -o atomicity.
. "$(dirname "$0")/../lib.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

# run / expect: run_tally / expect_run (tests/lib.sh) for "tally diff", in $TMP.
RUN_DIR=$TMP
run() {
    want=$1 outpat=$2 errpat=$3
    shift 3
    run_tally "$want" "$outpat" "$errpat" diff "$@"
}
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" diff "$@"
}

cat >"$TMP/a.out" <<'EOF'
cmd: ./prog 1
events: Ir Dr
fl=a.c
fn=main
1 10 2
fn=f
3 7 0
summary: 17 2
EOF
cat >"$TMP/b.out" <<'EOF'
cmd: ./prog 2
events: Ir Dr
fl=a.c
fn=main
1 12 2
summary: 12 2
EOF
cat >"$TMP/other.out" <<'EOF'
cmd: ./prog 3
events: Ir Dw
fl=a.c
fn=main
1 1 1
summary: 1 1
EOF
printf 'cmd: x\nevents: Ir\nfl=a.c\nfn=main\n1 1\n2 zz\nsummary: 1\n' >"$TMP/bad.out"
printf 'this is not a profile\n' >"$TMP/text.out"
: >"$TMP/empty.out"

# --- usage --------------------------------------------------------------
expect "--help" 0 '^usage: tally diff \[options\] FILE1 FILE2' '' --help
expect "-h" 0 '--mod-funcname=s/REGEX/REPL/' '' -h
expect "--help documents --by" 0 '--by=line' '' --help
expect "no files" 2 '' '^tally: diff: give exactly two profiles'
expect "one file" 2 '' '^tally: diff: give exactly two profiles' a.out
expect "three files" 2 '' '^tally: diff: give exactly two profiles' a.out b.out a.out
expect "unknown option" 2 '' "^tally: diff: unknown option '--frob'" --frob a.out b.out
expect "--by=bogus" 2 '' "^tally: diff: --by takes 'function' or 'line', not 'bogus'" \
    --by=bogus a.out b.out
expect "--by without value" 2 '' "needs a value" a.out b.out --by
expect "--mod-filename without value" 2 '' "needs a value" a.out b.out --mod-filename
expect "-o without value" 2 '' "needs a value" a.out b.out -o
expect "--mod-filename not s///" 2 '' \
    "^tally: diff: --mod-filename: bad substitution 'main': expected the form" \
    --mod-filename=main a.out b.out
expect "--mod-funcname bad flag" 2 '' "--mod-funcname: .*flags 'x' not understood" \
    '--mod-funcname=s/a/b/x' a.out b.out
expect "--mod-funcname bad regex" 2 '' "--mod-funcname: .*bad regex: missing closing parenthesis" \
    '--mod-funcname=s/(a/b/' a.out b.out
expect "--mod-funcname missing slash" 2 '' "no closing '/' after the replacement" \
    '--mod-funcname=s/a/b' a.out b.out
expect "--mod-funcname bad group" 2 '' "refers to group 2, but the regex has only 1" \
    '--mod-funcname=s/(a)/\2/' a.out b.out
# usage is checked before any file is opened
expect "usage error wins over missing files" 2 '' "--by takes" --by=x nosuch1 nosuch2

# --- bad input ------------------------------------------------------------
expect "missing first file" 1 '' '^tally: nosuch\.out: cannot open' nosuch.out b.out
expect "missing second file" 1 '' '^tally: nosuch\.out: cannot open' a.out nosuch.out
expect "bad count line" 1 '' '^tally: bad\.out:6: ' a.out bad.out
expect "not a profile" 1 '' '^tally: text\.out:1: not a callgrind or cachegrind profile' \
    text.out b.out
expect "empty file" 1 '' '^tally: empty\.out: ' a.out empty.out
expect "different events" 1 '' \
    "^tally: other\.out: the events differ: 'Ir Dr' in a\.out versus 'Ir Dw' in other\.out" a.out other.out

# --- output -------------------------------------------------------------------
expect "stdout" 0 '^summary: -5 0$' '' a.out b.out
cp "$TMP/out" "$TMP/want"
expect "-o FILE" 0 '' '' -o res1.out a.out b.out
same_text "-o FILE content" "$TMP/want" "$TMP/res1.out"
expect "-oFILE" 0 '' '' -ores2.out a.out b.out
same_text "-oFILE content" "$TMP/want" "$TMP/res2.out"
expect "--output=FILE" 0 '' '' --output=res3.out a.out b.out
same_text "--output=FILE content" "$TMP/want" "$TMP/res3.out"
expect "-- ends options" 0 '^fn=f$' '' -- a.out b.out
(cd "$TMP" && "$TALLY" diff a.out - <b.out) >"$TMP/stdin.out" 2>&1
if grep -q '^0 -7 0$' "$TMP/stdin.out" && grep -q '^summary: -5 0$' "$TMP/stdin.out"; then ok "stdin as FILE2 (content)"; else
    not_ok "stdin as FILE2 (content)"; diag <"$TMP/stdin.out"; fi
gzip -c "$TMP/b.out" >"$TMP/b.out.gz"
expect "gzip input" 0 '^summary: -5 0$' '' a.out b.out.gz
expect "--by=line" 0 '^1 2 0$' '' --by=line a.out b.out
expect "--by=function" 0 '^0 2 0$' '' --by=function a.out b.out
expect "--mod-funcname" 0 '^fn=MAIN$' '' '--mod-funcname=s/main/MAIN/' a.out b.out
expect "--mod-filename" 0 '^fl=src/a\.c$' '' '--mod-filename=s/^/src\//' a.out b.out
if "$TALLY" help diff 2>&1 | grep -q '^usage: tally diff'; then ok "tally help diff"; else
    not_ok "tally help diff"; fi

# --- -o atomicity -------------------------------------------------------------
printf 'precious\n' >"$TMP/keep.out"
expect "-o with bad input fails" 1 '' 'bad\.out:6' -o keep.out a.out bad.out
if [ "$(cat "$TMP/keep.out")" = precious ]; then ok "-o: old file kept on bad input"; else
    not_ok "-o: old file kept on bad input"; fi
expect "-o with different events fails" 1 '' 'events differ' -o keep.out a.out other.out
if [ "$(cat "$TMP/keep.out")" = precious ]; then ok "-o: old file kept on event mismatch"; else
    not_ok "-o: old file kept on event mismatch"; fi
expect "-o new file, bad input" 1 '' 'cannot open' -o fresh.out a.out nosuch.out
if [ ! -e "$TMP/fresh.out" ]; then ok "-o: no file made on failure"; else
    not_ok "-o: no file made on failure"; fi
expect "-o into a missing directory" 1 '' 'nodir/x\.out' -o nodir/x.out a.out b.out
leftovers=$(ls -A "$TMP" | grep -v -e '\.out$' -e '\.gz$' -e '^out$' -e '^err$' -e '^want$' \
    -e '^check.out$' -e '^diff.out$')
if [ -z "$leftovers" ]; then ok "-o: no temporary files left behind"; else
    not_ok "-o: no temporary files left behind"; echo "$leftovers" | diag; fi
expect "-o replaces an existing file" 0 '' '' -o keep.out a.out b.out
same_text "-o replaced content" "$TMP/want" "$TMP/keep.out"
# writing to a full device fails with exit 1 (and says so)
if [ -w /dev/full ]; then
    (cd "$TMP" && "$TALLY" diff a.out b.out) >/dev/full 2>"$TMP/full.err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q '^tally: ' "$TMP/full.err"; then ok "stdout write error: exit 1"; else
        not_ok "stdout write error: exit 1 (got $rc)"; diag <"$TMP/full.err"; fi
fi
# one way in (issue 26): a program and its gmon.out files are one input, as
# every command reads them; the same run on both sides differs by nothing
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles; then
    expect "PROG GMON PROG GMON" 0 '^summary: 0$' '' "$GEX/cycles" "$GPROF/cycles.gmon" \
        "$GEX/cycles" "$GPROF/cycles.gmon"
    expect "PROG GMON GMON: one input, not two" 2 '' 'give exactly two profiles' \
        "$GEX/cycles" "$GPROF/cycles.gmon" "$GPROF/cycles.b.gmon"
else
    not_ok "build the gprof examples"
fi

check_written
