#!/bin/sh
# tally merge: usage errors (exit 2), bad or missing input (exit 1, with
# "tally: FILE[:LINE]: message"), --help, and that -o never leaves a
# partial or stale file behind. Inputs are small files written here; the
# expected sums are worked out by hand.
. "$(dirname "$0")/../lib.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

# run / expect: run_tally / expect_run (tests/lib.sh) for "tally merge", in $TMP.
RUN_DIR=$TMP
run() {
    want=$1 outpat=$2 errpat=$3
    shift 3
    run_tally "$want" "$outpat" "$errpat" merge "$@"
}
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" merge "$@"
}

cat >"$TMP/a.out" <<'EOF'
desc: I1 cache: test
cmd: ./a
events: Ir Dr
fl=x.c
fn=main
1 10 1
2 5 .
summary: 15 1
EOF
cat >"$TMP/b.out" <<'EOF'
cmd: ./b
events: Dr Ir
fl=x.c
fn=main
2 3 4
fn=other
7 1 1
summary: 4 5
EOF
cat >"$TMP/ev.out" <<'EOF'
cmd: ./c
events: Ir Dw
fn=f
1 1 1
summary: 1 1
EOF
printf 'cmd: ./d\nevents: Ir Dr\nfn=f\n1 1 1\n3 x 1\nsummary: 1 1\n' >"$TMP/bad.out"
printf 'cmd: ./e\nevents: Ir Dr\nfn=f\n1 2 2\nsummary: 9 2\n' >"$TMP/warn.out"

# --- success: the sum, by hand -------------------------------------------
expect "a + b to stdout" 0 '^summary: 20 5$' "" a.out b.out
cat >"$TMP/want" <<'EOF'
desc: I1 cache: test
cmd: ./a
events: Ir Dr
fl=x.c
fn=main
1 10 1
2 9 3
fn=other
7 1 1
summary: 20 5
EOF
(cd "$TMP" && "$TALLY" merge a.out b.out) >"$TMP/got" 2>&1
same_text "a + b: exact output (events in a's order, b's reordered)" "$TMP/want" "$TMP/got"
expect "-o writes the file, nothing on stdout" 0 "" "" -o sum.out a.out b.out
same_text "-o content" "$TMP/want" "$TMP/sum.out"
expect "--output=FILE" 0 "" "" --output=sum2.out a.out b.out
same_text "--output content" "$TMP/want" "$TMP/sum2.out"
expect "-o may overwrite an input (read before written)" 0 "" "" -o a2.out a.out b.out
cp "$TMP/a.out" "$TMP/self.out"
expect "merging into one of the inputs" 0 "" "" -o self.out self.out self.out
grep -q '^summary: 30 2$' "$TMP/self.out" && ok "self.out doubled" || not_ok "self.out doubled"
(cd "$TMP" && "$TALLY" merge - b.out <a.out) >"$TMP/stdin.out" 2>&1
same_text "'-' reads standard input" "$TMP/want" "$TMP/stdin.out"
gzip -c "$TMP/b.out" >"$TMP/b.out.gz"
expect "gzip input" 0 '^summary: 20 5$' "" a.out b.out.gz
expect "--format=callgrind" 0 '^# callgrind format' "" --format=callgrind a.out b.out
expect "--format callgrind (separate value)" 0 '^events: Ir Dr' "" --format callgrind a.out
expect "-- ends the options" 0 '^summary: 15 1$' "" -- a.out
expect "summary mismatch is a warning, not an error" 0 '^summary: 17 3$' \
    "^tally: warning: .*warn.out:5: 'summary:' line gives Ir = 9, but the costs add up to 2" \
    a.out warn.out
expect "--help" 0 '^usage: tally merge \[-o OUT\] \[--format=callgrind\|cachegrind\|contexts\] FILE' "" --help
expect "-h" 0 '^usage: tally merge' "" -h
run 0 "" "" --help
for w in -o --output --format callgrind cachegrind 'standard input' 'Exit status'; do
    grep -q -- "$w" "$TMP/out" || not_ok "--help mentions $w"
done
ok "--help mentions every option"

# --- usage errors: exit 2 ---------------------------------------------------
expect "no files" 2 "" "^tally: merge: no input files"
expect "unknown option" 2 "" "^tally: merge: unknown option '--bogus'" --bogus a.out
expect "-o without a value" 2 "" "^tally: merge: option '-o' needs a value" a.out -o
expect "--format without a value" 2 "" "needs a value" a.out --format
expect "bad --format" 2 "" "^tally: merge: unknown format 'gprof'" --format=gprof a.out

# --- bad input: exit 1, nothing written -----------------------------------
expect "missing file" 1 "" "^tally: nosuch.out: " a.out nosuch.out
expect "event mismatch" 1 "" "^tally: ev.out: events differ: 'Ir Dr' versus 'Ir Dw'" a.out ev.out
expect "malformed input: file and line" 1 "" "^tally: bad.out:5: bad count 'x'" a.out bad.out
printf 'hello\n' >"$TMP/text.out"
expect "not a profile" 1 "" "^tally: text.out:1: not a callgrind or cachegrind profile" text.out
: >"$TMP/empty.out"
expect "empty file" 1 "" "^tally: empty.out: empty file" empty.out

rm -f "$TMP/new.out"
expect "malformed input with -o: exit 1" 1 "" "bad.out:5:" -o new.out a.out bad.out
[ -e "$TMP/new.out" ] && not_ok "no OUT after a malformed input" || ok "no OUT after a malformed input"
cp "$TMP/a.out" "$TMP/keep.out"
expect "failing merge into an existing OUT" 1 "" "events differ" -o keep.out a.out ev.out
same_text "existing OUT untouched on failure" "$TMP/a.out" "$TMP/keep.out"
expect "-o into a missing directory" 1 "" "^tally: .*nodir" -o nodir/sum.out a.out
[ -e "$TMP/nodir" ] && not_ok "nothing created for a missing directory" ||
    ok "nothing created for a missing directory"
# --- contexts files: the trees add up, and the sum is a contexts file ------
cat >"$TMP/a.ctx" <<'EOF'
# tally contexts 1
creator: tally-record 0.1
cmd: ./a.out
events: Ir Dr
ob 1 /tmp/a.out
fl 1 a.c
fn 1 1 1 main
fn 2 1 1 work
x 1 0 1 1 120 4
x 2 1 2 3 900 30
totals: 1020 34
EOF
# the same program, events in the other order, and one more context
# (helper called from work); the sum, worked out by hand, is ab.want
cat >"$TMP/b.ctx" <<'EOF'
# tally contexts 1
creator: tally-record 0.1
cmd: ./a.out
events: Dr Ir
ob 1 /tmp/a.out
fl 1 a.c
fn 1 1 1 main
fn 2 1 1 work
fn 3 1 1 helper
x 1 0 1 1 2 60
x 2 1 2 2 10 500
x 3 2 3 4 1 7
totals: 13 567
EOF
cat >"$TMP/ab.want" <<'EOF'
x 1 0 1 2 180 6
x 2 1 2 5 1400 40
x 3 2 3 4 7 1
totals: 1587 47
EOF
expect "contexts files: merged into a contexts file" 0 "" "" -o ab.ctx a.ctx b.ctx
grep -E '^(x|totals:) ' "$TMP/ab.ctx" >"$TMP/got"
same_text "contexts: the trees add up (nodes, calls, costs by event name)" "$TMP/ab.want" "$TMP/got"
check "contexts: the sum is a contexts file" grep -q '^# tally contexts' "$TMP/ab.ctx"
expect "contexts: the sum reads back" 0 "" "" -o ab2.ctx ab.ctx
same_text "contexts: merge of the sum alone is the sum" "$TMP/ab.ctx" "$TMP/ab2.ctx"
expect "contexts + callgrind: callgrind, with a warning" 0 "^# callgrind format" \
    "not every input has calling contexts" a.ctx a.out
rm -f "$TMP/nx.ctx"
expect "--format=contexts without a tree in every input" 1 "" "needs calling contexts in every input" \
    --format=contexts -o nx.ctx a.ctx a.out
[ -e "$TMP/nx.ctx" ] && not_ok "no output after --format=contexts failed" ||
    ok "no output after --format=contexts failed"

ls "$TMP" | grep -v -E '^(a|a2|b|ev|bad|warn|sum|sum2|self|stdin|text|empty|keep)\.out$|^(a|b|ab|ab2)\.(ctx|want)$|^b\.out\.gz$|^(want|got|out|err|stray|check\.out|diff\.out)$' >"$TMP/stray"
same_text "no temporary files left behind" /dev/null "$TMP/stray"
check_written
