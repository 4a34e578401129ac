#!/bin/sh
# tally annotate on the command line: --help, bad options (exit 2), bad or
# missing input (exit 1, "tally: FILE:LINE: message"), source arguments,
# several profiles, compressed input and derived events.
. "$(dirname "$0")/../lib.sh"
G="$ROOT/tests/golden/annotate"


cd "$G" || exit 1
expect_run "--help" 0 '^usage: tally annotate ' '' annotate --help
expect_run "-h" 0 '--inclusive=yes\|no' '' annotate -h
expect_run "help annotate" 0 '--tree=none\|caller\|calling\|both' '' help annotate
for opt in --threshold --context --include --mod-filename --layout --diff --no-annotate; do
    expect_run "--help documents $opt" 0 "$opt" '' annotate --help
done

# bad usage: exit 2 with a message
expect_run "no profile" 2 '' 'no profile given' annotate
expect_run "unknown option" 2 '' "unknown option '--frob'" annotate --frob g1.out
expect_run "--threshold out of range" 2 '' 'bad --threshold' annotate --threshold=101 g1.out
expect_run "--threshold not a number" 2 '' 'bad --threshold' annotate --threshold=abc g1.out
expect_run "--context negative" 2 '' 'bad --context' annotate --context=-1 g1.out
expect_run "--tree bad" 2 '' '--tree takes' annotate --tree=up g1.out
expect_run "--inclusive bad" 2 '' '--inclusive takes yes or no' annotate --inclusive=maybe g1.out
expect_run "--show-percs bad" 2 '' '--show-percs takes' annotate --show-percs=1 g1.out
expect_run "--auto bad" 2 '' '--auto takes' annotate --auto=on g1.out
expect_run "--sort bad threshold" 2 '' 'bad --sort' annotate --sort=Ir:x g1.out
expect_run "--show without value" 2 '' "option '--show' needs a value" annotate g1.out --show
expect_run "-I without value" 2 '' "option '-I' needs a value" annotate g1.out -I
expect_run "--show unknown event" 2 '' "--show event 'Bogus' did not appear in input" \
    annotate --show=Bogus g1.out
expect_run "--sort unknown event" 2 '' "--sort event 'Nope' did not appear in input" \
    annotate --sort=Nope g1.out

# --layout=3.21 (cg_annotate 3.21+): its usage rules
expect_run "--layout bad" 2 '' "--layout takes 3.19 or 3.21, not '4'" annotate --layout=4 c1.out
expect_run "--diff without --layout=3.21" 2 '' '--diff is part of --layout=3.21' annotate --diff c1.out c1.out
for o in --group=class --asm --event=X=Ir+Dr; do
    expect_run "--layout=3.21 refuses $o" 2 '' "${o%%=*}.* is not part of cg_annotate 3\.21\+'s layout" \
        annotate --layout=3.21 "$o" c1.out
done
expect_run "--asm-syntax without --asm" 2 '' '--asm-syntax=att goes with --asm' \
    annotate --asm-syntax=att c1.out
expect_run "--layout=3.21 --diff of one profile" 2 '' '--diff needs exactly two profiles' \
    annotate --layout=3.21 --diff c1.out
expect_run "--layout=3.21 --diff of three profiles" 2 '' '--diff needs exactly two profiles' \
    annotate --layout=3.21 --diff c1.out c1.out c1.out
expect_run "--layout=3.21 --inclusive=yes" 2 '' "--inclusive=yes is not part of cg_annotate 3.21" \
    annotate --layout=3.21 --inclusive=yes c1.out
expect_run "--layout=3.21 --tree" 2 '' "--tree is not part" annotate --layout=3.21 --tree=both c1.out
expect_run "--layout=3.21 -I" 2 '' "-I/--include is not part" annotate --layout=3.21 -I inc c1.out
expect_run "--layout=3.21 --sort=EV:PCT" 2 '' "--sort=EVENT:PERCENT is not part" \
    annotate --layout=3.21 --sort=Ir:5 c1.out
expect_run "--layout=3.21 source after --" 2 '' 'source files after "--" is not part' \
    annotate --layout=3.21 c1.out -- c1.c
expect_run "--layout=3.21 --threshold not a number" 2 '' "bad --threshold value 'x1'" \
    annotate --layout=3.21 --threshold=x1 c1.out
expect_run "--layout=3.21 --threshold over 100" 2 '' "bad --threshold value '101'" \
    annotate --layout=3.21 --threshold=101 c1.out
expect_run "--layout=3.21 --threshold=5e-1 prints 0.5" 0 '^Threshold:        0\.5%$' '' \
    annotate --layout=3.21 --threshold=5e-1 --no-annotate c1.out
expect_run "--layout=3.21 --show unknown event" 2 '' "--show event 'Nope' is not in the 'events:' line" \
    annotate --layout=3.21 --show=Nope c1.out
expect_run "--layout=3.21 a callgrind file" 1 '' "^tally: g1.out: not a cachegrind profile" \
    annotate --layout=3.21 g1.out
expect_run "--layout=3.21 a source file as a profile" 1 '' "^tally: c1.c" annotate --layout=3.21 c1.c
printf 'cmd: x\nevents: Ir Dr\nfl=a.c\nfn=f\n1 2 3\nsummary: 2 4\n' >"$TMP/badsum.cg"
expect_run "--layout=3.21 summary: not the sum: FILE:LINE" 1 '' \
    "^tally: $TMP/badsum.cg:6: 'summary:' line gives Dr = 4, but the costs add up to 3" \
    annotate --layout=3.21 "$TMP/badsum.cg"
printf 'cmd: x\nevents: Dr Ir\nfl=a.c\nfn=f\n1 2 3\nsummary: 2 3\n' >"$TMP/other.cg"
expect_run "--layout=3.21 other events" 1 '' "its events are not those of c1.out" \
    annotate --layout=3.21 c1.out "$TMP/other.cg"
expect_run "--layout=3.21 --show-percs yes (value after a space)" 0 'PROGRAM TOTALS' '' \
    annotate --layout=3.21 --show-percs yes c1.out

# bad input: exit 1 with FILE[:LINE]
expect_run "missing profile" 1 '' '^tally: no-such\.out' annotate no-such.out
printf "# callgrind format\nevents: Ir\nfl=a.c\nfn=f\n1 2\nbogus line here\n" >"$TMP/bad.out"
expect_run "malformed callgrind profile: FILE:LINE" 1 '' "^tally: $TMP/bad.out:6: " annotate "$TMP/bad.out"
printf 'cmd: x\nevents: Ir\nfl=a.c\nfn=f\n1 2 3\nsummary: 2\n' >"$TMP/bad2.out"
expect_run "malformed cachegrind profile: FILE:LINE" 1 '' "^tally: $TMP/bad2.out:5: " annotate "$TMP/bad2.out"
expect_run "source not found" 1 '' 'nothere\.c: source file not found' annotate g1.out -- nothere.c
cp g1.out "$TMP/g1-copy.out"
printf 'cmd: x\nevents: Dr\nfl=a.c\nfn=f\n1 2\nsummary: 2\n' >"$TMP/other.out"
expect_run "profiles with different events" 1 '' '^tally: ' annotate g1.out "$TMP/other.out"

# arguments: later profiles are summed, other files are sources, "--" forces sources
expect_run "two profiles are summed" 0 '2,000 \(100.0%\) 410 \(100.0%\)  PROGRAM TOTALS' '' \
    annotate --auto=no g1.out "$TMP/g1-copy.out"
expect_run "two profiles: header names both" 0 "^Profile data files 'g1.out', '$TMP/g1-copy.out'" '' \
    annotate --auto=no g1.out "$TMP/g1-copy.out"
expect_run "a source argument" 0 '^-- User-annotated source: c1.c' '' annotate --auto=no g1.out c1.c
expect_run "after --, a profile is a source" 0 '^-- User-annotated source: c1.out' '' \
    annotate --auto=no g1.out -- c1.out
expect_run "-I DIR (separate argument)" 0 '^-- Auto-annotated source: inc/ \+ lib/missing.c' '' \
    annotate -I inc g1.out
expect_run "-IDIR" 0 '^-- Auto-annotated source: inc/ \+ lib/missing.c' '' annotate -Iinc/ g1.out
expect_run "--include DIR" 0 '^Include dirs:     inc/$' '' annotate --include inc g1.out

# input forms and derived events
gzip -c g1.out >"$TMP/g1.out.gz"
expect_run "gzip input" 0 '1,000 \(100.0%\) 205 \(100.0%\)  PROGRAM TOTALS' '' annotate --auto=no "$TMP/g1.out.gz"
"$TALLY" annotate --auto=no - <g1.out >"$TMP/out" 2>&1
grep -q 'PROGRAM TOTALS' "$TMP/out" && ok "stdin input has totals" || not_ok "stdin input has totals"
printf '# callgrind format\nevent: Sum = Ir + 2 Dr\nevents: Ir Dr\nfl=a.c\nfn=f\n1 10 3\nfn=g\n2 1 10\n' >"$TMP/derived.out"
# Sum: f = 10 + 6 = 16, g = 1 + 20 = 21, so g comes first
expect_run "derived event in --show/--sort" 0 '^21 \(56.76%\)  a.c:g' '' \
    annotate --auto=no --show=Sum --sort=Sum "$TMP/derived.out"
expect_run "no summary: PROGRAM TOTALS (calculated)" 0 'PROGRAM TOTALS \(calculated\)' '' \
    annotate --auto=no "$TMP/derived.out"

# renames: rows that become equal are summed (sq 300 + sum 107 = 407)
expect_run "--mod-funcname merges rows" 0 '^407 \(40.70%\) 86 \(41.95%\)  g1.c:math \[/tmp/g1\]' '' \
    annotate --auto=no --threshold=100 '--mod-funcname=s/^s(q|um)$/math/' g1.out
expect_run "--mod-filename renames files" 0 '  lib/found.c:helper' '' \
    annotate --auto=no --threshold=100 '--mod-filename=s/missing/found/' g1.out
expect_run "--mod-filename bad expression" 2 '' '--mod-filename: ' annotate '--mod-filename=s/(/x/' g1.out

# line numbers at the top of the 64-bit range are "bogus lines", not a crash
printf '# callgrind format\nevents: Ir\nfl=c1.c\nfn=f\n3 5\n18446744073709551615 7\n' >"$TMP/huge.out"
expect_run "huge line numbers" 0 '<bogus line 18446744073709551615>' '' annotate "$TMP/huge.out"
# a source file without a final newline, binary bytes included
printf 'a\nb\001\nc' >"$TMP/src.c"
printf '# callgrind format\nevents: Ir\nfl=%s\nfn=f\n3 5\n' "$TMP/src.c" >"$TMP/src.out"
expect_run "source without final newline" 0 '^5 \(100.0%\)  c$' '' annotate "$TMP/src.out"

# Two calls of one arc whose inclusive costs add up past 2^64-1. A view that
# shows call costs refuses them; --auto=no alone reads call counts only and
# does not add call costs up, and prints the table as callgrind_annotate 3.19
# does (main 5 = 62.50% of 8, f 3 = 37.50%).
printf '# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n1 5\ncfn=f\ncalls=1 10\n2 18446744073709551615\ncfn=f\ncalls=1 10\n2 18446744073709551615\nfl=a.c\nfn=f\n10 3\ntotals: 8\n' >"$TMP/callsum.out"
expect_run "call costs past 2^64-1: --inclusive=yes refuses them" 1 '' \
    'callsum.out:11: call costs overflow 64 bits when added up' \
    annotate --auto=no --inclusive=yes "$TMP/callsum.out"
expect_run "call costs past 2^64-1: --tree=caller refuses them" 1 '' \
    'call costs overflow 64 bits' annotate --auto=no --tree=caller "$TMP/callsum.out"
expect_run "call costs past 2^64-1: --auto=no does not add them up" 0 '^3 \(37.50%\)  a.c:f$' '' \
    annotate --auto=no "$TMP/callsum.out"

# --- one way in: annotate reads what every command reads (issue 26) --------
# An aprof report: the same message and exit status as convert's.
AP="$ROOT/tests/golden/complexity/r1.aprof"
"$TALLY" convert --to=folded "$AP" >/dev/null 2>"$TMP/conv.err"; crc=$?
expect_run "aprof report: refused as convert refuses it" $crc '' \
    "^tally: .*r1.aprof:1: an aprof report \(input-sensitive profile\), not a cost profile" \
    annotate "$AP"
same_text "aprof report: the same message as convert" "$TMP/conv.err" "$TMP/err"
# an aprof report after a profile is an input too, not a source file to annotate
expect_run "aprof report after a profile: an input, refused" 1 '' 'an aprof report' \
    annotate g1.out "$AP"
# A pipe (a FIFO): the same report as the file, but for the name in the header.
"$TALLY" annotate g1.out >"$TMP/file.txt" 2>&1
rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
cat g1.out >"$TMP/fifo" &
"$TALLY" annotate "$TMP/fifo" >"$TMP/pipe.txt" 2>&1 || true
wait
sed '/^Profile data file/d' "$TMP/file.txt" >"$TMP/file.cut"
sed '/^Profile data file/d' "$TMP/pipe.txt" >"$TMP/pipe.cut"
same_text "a pipe: the same report as the file" "$TMP/file.cut" "$TMP/pipe.cut"
cat g1.out | "$TALLY" annotate - 2>&1 | sed '/^Profile data file/d' >"$TMP/stdin.cut"
same_text "standard input: the same report as the file" "$TMP/file.cut" "$TMP/stdin.cut"
# A per-thread set (an empty FILE, FILE-01, FILE-02): as the members given one by one.
mkdir -p "$TMP/set" && : >"$TMP/set/cg.out.9"
cp g1.out "$TMP/set/cg.out.9-01" && cp g1.out "$TMP/set/cg.out.9-02"
(cd "$TMP/set" && "$TALLY" annotate --auto=no cg.out.9 >set.txt 2>&1 &&
    "$TALLY" annotate --auto=no cg.out.9-01 cg.out.9-02 >members.txt 2>&1)
same_text "a per-thread set: as its members" "$TMP/set/members.txt" "$TMP/set/set.txt"
grep -q '2,000 (100.0%)' "$TMP/set/set.txt" && ok "a per-thread set: the sum of its threads" ||
    not_ok "a per-thread set: the sum of its threads"
# A program and its gmon.out: the profile `tally gprof --callgrind-out` writes.
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles; then
    "$TALLY" gprof -b --callgrind-out="$TMP/gp.cg" "$GEX/cycles" "$GPROF/cycles.gmon" >/dev/null 2>&1
    expect_run "PROG gmon.out: read as every command reads it" 0 'PROGRAM TOTALS' '' \
        annotate --auto=no "$GEX/cycles" "$GPROF/cycles.gmon"
    # the file has a totals: line, the profile in memory has its totals calculated
    sed '/^Profile data file/d; s/ (calculated)$//' "$TMP/out" >"$TMP/gmon.cut"
    "$TALLY" annotate --auto=no "$TMP/gp.cg" 2>&1 | sed '/^Profile data file/d' >"$TMP/gpcg.cut"
    same_text "PROG gmon.out: as the file of gprof --callgrind-out" "$TMP/gpcg.cut" "$TMP/gmon.cut"
    "$TALLY" convert --to=folded "$GPROF/cycles.gmon" >/dev/null 2>"$TMP/conv.err"
    expect_run "gmon.out without its program: as convert says" 1 '' 'needs its program' \
        annotate "$GPROF/cycles.gmon"
    same_text "gmon.out without its program: convert's message" "$TMP/conv.err" "$TMP/err"
else
    not_ok "build the gprof examples"
fi
