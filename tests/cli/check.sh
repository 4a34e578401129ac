#!/bin/sh
# tally check: every exit status (0 within, 3 beyond, 1 bad input, 2 usage),
# every limit form (soft percent, negative percent, hard count, per-function
# regex, derived and built-in events), the text, Markdown and JSON outputs,
# several files per side, --ignore-object, --flame-diff, baselines (check
# --baseline and record --save-baseline / --baseline / --clean-env), and a
# two-version program whose regression is caught in the right function.
#
# Expected numbers are computed here from the profiles' own cost lines
# (awk sums), never copied from tally's output.
. "$(dirname "$0")/../lib.sh"
RUN_DIR=$TMP

expect() { # NAME WANT_RC STDOUT_RE STDERR_RE ARGS... (tally check ARGS)
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" check "$@"
}

# sum FILE FUNC COL: the sum of column COL (1 = the first event) of the
# cost lines of function FUNC ("" = every function) in a simple callgrind
# file (fn= lines, cost lines "LINE C1 C2 ..."; no calls); objects named
# in $SKIP_OB (a regex on ob= values) left out.
sum() {
    awk -v fn="$2" -v col="$3" -v skip="${SKIP_OB:-^$}" '
        /^ob=/ { ob = substr($0, 4); next }
        /^fn=/ { cur = substr($0, 4); next }
        /^[0-9]/ { if ((fn == "" || cur == fn) && !(skip != "^$" && ob ~ skip)) s += $(col + 1) }
        END { printf "%d\n", s }' "$1"
}
# pct BASE NEW: the change as tally prints it ("+2.00%", "0.00%")
pct() {
    awk -v b="$1" -v n="$2" 'BEGIN {
        if (b == n) { print "0.00%"; exit }
        printf "%+.2f%%\n", (n - b) / b * 100 }'
}
commify() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
signed() { if [ "$1" -gt 0 ]; then echo "+$(commify "$1")"; else commify "$1"; fi; }
# esc TEXT: TEXT as an extended regex matching itself
esc() { printf '%s\n' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }

# --- hand-made profiles -----------------------------------------------------
cat >"$TMP/a.out" <<'EOF'
events: Ir Dr
fl=a.c
fn=main
1 1000 100
fn=parse_line
2 5000 400
fn=other
3 2000 50
EOF
# parse_line +12%, other -300: the total grows by 300 Ir
cat >"$TMP/b.out" <<'EOF'
events: Ir Dr
fl=a.c
fn=main
1 1000 100
fn=parse_line
2 5600 400
fn=other
3 1700 60
EOF
# the total grows by more than 10%
sed 's/^2 5600 400$/2 6500 400/' "$TMP/b.out" >"$TMP/c.out"
# 10% better than a.out
sed 's/^2 5000 400$/2 4200 400/' "$TMP/a.out" >"$TMP/better.out"

bI=$(sum "$TMP/a.out" "" 1) nI=$(sum "$TMP/b.out" "" 1)
bD=$(sum "$TMP/a.out" "" 2) nD=$(sum "$TMP/b.out" "" 2)
cI=$(sum "$TMP/c.out" "" 1)
P=$(pct "$bI" "$nI")
PC=$(pct "$bI" "$cI")
Pparse=$(pct "$(sum "$TMP/a.out" parse_line 1)" "$(sum "$TMP/b.out" parse_line 1)")

# --- exit 0 and 3 with the default limit (Ir +10%) -----------------------------
expect "within the default limit (Ir $P): exit 0" 0 "^PASSED: 1 limit" "" a.out b.out
expect "the text names the default limit and the change" 0 \
    "^  ok +Ir=\\+10%: total Ir $(commify "$bI") -> $(commify "$nI") \\(\\$P; limit \\+10%\\)" "" a.out b.out
expect "beyond the default limit (Ir $PC): exit 3" 3 "^  EXCEEDED Ir=\\+10%: total Ir" "" a.out c.out
expect "the text's totals row is derived from the inputs" 0 \
    "^Ir +$(commify "$bI") +$(commify "$nI") +$(esc "$(signed $((nI - bI)))") +$(esc "$P")$" "" a.out b.out

# --- soft limits: the boundary, negative limits ---------------------------------
# exactly at the change: within (the limit is "at most")
lim=$(awk -v b="$bI" -v n="$nI" 'BEGIN { printf "%.10g", (n - b) / b * 100 }')
expect "soft limit equal to the change ($lim%): exit 0" 0 '"status": "ok"' "" -q --format=json --limit="Ir=+$lim%" a.out b.out
below=$(awk -v l="$lim" 'BEGIN { printf "%.10g", l - 0.01 }')
expect "soft limit just below the change ($below%): exit 3" 3 "EXCEEDED Ir=\\+$below%" "" --limit="Ir=+$below%" a.out b.out
expect "negative limit met by an improvement of $(pct "$bI" "$(sum "$TMP/better.out" "" 1)"): exit 0" 0 "PASSED" "" \
    --limit=Ir=-5% a.out better.out
expect "negative limit without the improvement: exit 3" 3 "EXCEEDED Ir=-5%" "" --limit=Ir=-5% a.out b.out
expect "Dr limit (Dr $(pct "$bD" "$nD")) beyond 1%: exit 3" 3 "EXCEEDED Dr=\\+1%: total Dr $(commify "$bD") -> $(commify "$nD")" "" \
    --limit=Dr=+1% a.out b.out

# --- hard limits ---------------------------------------------------------------
expect "hard limit equal to NEW's total: exit 0" 0 "PASSED" "" --limit="Ir<=$nI" a.out b.out
expect "hard limit one below NEW's total: exit 3" 3 "EXCEEDED Ir<=$((nI - 1))" "" --limit="Ir<=$((nI - 1))" a.out b.out
expect "hard limit in e notation (5e9)" 0 "limit <= 5,000,000,000" "" --limit="Ir<=5e9" a.out b.out

# --- per-function limits --------------------------------------------------------
expect "per-function limit beyond in parse_line ($Pparse): exit 3" 3 \
    "^ +parse_line: Ir $(commify "$(sum "$TMP/a.out" parse_line 1)") -> $(commify "$(sum "$TMP/b.out" parse_line 1)") \\(\\$Pparse\\)" "" \
    --limit='parse_.*:Ir=+5%' a.out b.out
expect "per-function limit: main unchanged: exit 0" 0 "ok +main:Ir=\\+5%: 1 function within" "" --limit='main:Ir=+5%' a.out b.out
expect "per-function hard limit" 3 "EXCEEDED o.*:Ir<=1000: 1 of 1 function beyond" "" --limit='o.*:Ir<=1000' a.out b.out
nfn=$(grep -c '^fn=' "$TMP/b.out")
expect "--top caps the functions listed under a limit ($nfn beyond, 1 shown)" 3 "^ +and $((nfn - 1)) more \\(--top=N shows N\\)" "" \
    --top=1 --limit='.*:Ir<=0' a.out b.out
expect "a regex matching no function is said" 0 "note: limit 'zz.*:Ir=\\+1%': no function matches" "" \
    --limit='zz.*:Ir=+1%' a.out b.out
expect "a bad regex is a usage error" 2 "" "check: --limit: function regex '\\(': " --limit='(:Ir=+1%' a.out b.out

# --- derived events ---------------------------------------------------------------
x_b=$((bI + 2 * bD)) x_n=$((nI + 2 * nD))
expect "user event X=Ir+2*Dr: totals derived" 0 "\"event\": \"X\", \"formula\": \"Ir\\+2\\*Dr\", \"base\": $x_b, \"new\": $x_n, \"delta\": $((x_n - x_b))" "" \
    --format=json --event='X=Ir+2*Dr' --limit=X=+10% a.out b.out
expect "user event with a minus term" 0 "\"event\": \"Y\", .*\"base\": $((bI - bD)), \"new\": $((nI - nD))," "" \
    --format=json --event='Y = Ir - Dr' --limit=Y=+50% a.out b.out
# a profile with the cache and branch events of tally record --cache-sim=yes --branch-sim=yes
cat >"$TMP/cache-a.out" <<'EOF'
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=a.c
fn=main
1 1000 10 2 300 20 3 100 5 1 50 7 4 2
fn=work
2 9000 1 1 800 40 30 200 9 8 500 30 10 3
EOF
sed 's/^2 9000 1 1 800 40 30/2 9100 1 1 800 90 60/' "$TMP/cache-a.out" >"$TMP/cache-b.out"
cyc() { # FILE: Ir + 10 (Bim + Bcm) + 10 (I1mr + D1mr + D1mw) + 100 (ILmr + DLmr + DLmw); no Ge, no L2 events
    awk '/^[0-9]/ { s += $2 + 10 * ($14 + $12) + 10 * ($3 + $6 + $9) + 100 * ($4 + $7 + $10) } END { print s }' "$1"
}
cb=$(cyc "$TMP/cache-a.out") cn=$(cyc "$TMP/cache-b.out")
expect "built-in Cyc (KCachegrind's estimate) from the cache and branch events" 3 \
    "\"event\": \"Cyc\", \"formula\": \"Ir \\+ 10 Bm \\+ 10 L1m \\+ 20 Ge \\+ 100 L2m \\+ 100 LLm\", \"base\": $cb, \"new\": $cn," "" \
    --format=json --limit=Cyc=+1% cache-a.out cache-b.out
expect "Cyc on a profile without cache events: Ir, and a note" 0 \
    "note: a.out has no Bim Bcm I1mr D1mr D1mw ILmr DLmr DLmw: the built-in events count them as 0" "" \
    --limit=Cyc=+10% a.out b.out
expect "--show adds a column" 0 "^Dr +$(commify "$bD") +$(commify "$nD")" "" --show=Dr a.out b.out

# --- the outputs -------------------------------------------------------------------
run_tally 3 "" "" check --format=markdown --limit=Ir=+1% --limit='parse_.*:Ir=+5%' a.out b.out
cp "$TMP/out" "$TMP/md"
check "markdown: the heading says how many limits failed" grep -qx '### tally check: FAILED (2 of 2 limits exceeded)' "$TMP/md"
check "markdown: the totals row" grep -qxF "| \`Ir\` | $(commify "$bI") | $(commify "$nI") | $(signed $((nI - bI))) | $P |" "$TMP/md"
pb=$(sum "$TMP/a.out" parse_line 1) pn=$(sum "$TMP/b.out" parse_line 1)
ob=$(sum "$TMP/a.out" other 1) on=$(sum "$TMP/b.out" other 1)
check "markdown: the functions, the largest change first" sh -c "
    grep -A4 '^| function |' '$TMP/md' | sed -n '3,4p' >'$TMP/md.rows'
    printf '%s\n' '| \`parse_line\` | $(commify "$pb") | $(commify "$pn") | $(signed $((pn - pb))) | $Pparse |' \
        '| \`other\` | $(commify "$ob") | $(commify "$on") | $(signed $((on - ob))) | $(pct "$ob" "$on") |' | cmp -s - '$TMP/md.rows'"
check "markdown: the limits hit" grep -qxF "| \`parse_.*:Ir=+5%\` | **exceeded** | \`parse_line\` | $(commify "$pb") | $(commify "$pn") | $Pparse |" "$TMP/md"
check "markdown: main (unchanged) is not listed" sh -c "! grep -q '\`main\`' '$TMP/md'"

run_tally 3 "" "" check --format=json --limit=Ir=+1% --limit='parse_.*:Ir=+5%' --limit='Ir<=99999999' a.out b.out
cp "$TMP/out" "$TMP/json"
if python3 - "$TMP/json" "$bI" "$nI" "$pb" "$pn" "$ob" "$on" <<'EOF' >"$TMP/py.out" 2>&1; then
import json, sys
d = json.load(open(sys.argv[1]))
bI, nI, pb, pn, ob, on = map(int, sys.argv[2:])
assert d["schema"] == 1 and d["status"] == "exceeded" and d["exceeded"] == 2, d
t = d["totals"][0]
assert (t["event"], t["base"], t["new"], t["delta"]) == ("Ir", bI, nI, nI - bI), t
assert abs(t["percent"] - (nI - bI) / bI * 100) < 1e-4, t
f = d["functions"]
assert [x["name"] for x in f] == ["parse_line", "other"], f
assert f[0]["base"]["Ir"] == pb and f[0]["new"]["Ir"] == pn and f[0]["delta"]["Ir"] == pn - pb
assert f[1]["delta"]["Ir"] == on - ob and abs(f[1]["percent"]["Ir"] - (on - ob) / ob * 100) < 1e-4
l = d["limits"]
assert [x["status"] for x in l] == ["exceeded", "exceeded", "ok"], l
assert l[1]["functions"] == "parse_.*" and l[1]["checked"] == 1 and l[1]["hits"][0]["function"] == "parse_line"
assert l[2]["kind"] == "absolute" and l[2]["value"] == 99999999 and l[2]["hits"][0]["function"] is None
EOF
    ok "json: valid, with the derived totals, functions and limits"
else
    not_ok "json: valid, with the derived totals, functions and limits"; diag <"$TMP/py.out"
fi
# names that JSON must escape or replace: a quote, a backslash, bytes that are not UTF-8
printf 'events: Ir Dr\nfl=a.c\nfn=q"uo\\te\n1 3 0\nfn=caf\351\377\n1 5 0\n' >"$TMP/odd.out"
run_tally 3 "" "" check --format=json a.out odd.out
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); n = [f["name"] for f in d["functions"]]
assert "q\"uo\\te" in n and "caf\ufffd\ufffd" in n, n' "$TMP/out" >"$TMP/py.out" 2>&1; then
    ok "json: odd names escaped, bytes that are not UTF-8 replaced"; else
    not_ok "json: odd names escaped, bytes that are not UTF-8 replaced"; diag <"$TMP/py.out"; fi
expect "--top=1 lists one function" 0 "" "" --top=1 -o top.txt a.out b.out
check "--top=1: only parse_line" sh -c "grep -c '  parse_line\$' '$TMP/top.txt' | grep -qx 1 && ! grep -q '  other\$' '$TMP/top.txt'"
expect "-o writes the report to a file" 3 "" "" -o rep.md --format=markdown a.out c.out
check "-o: the report is in the file" grep -q '^### tally check: FAILED' "$TMP/rep.md"

# --- several files per side; program-less operands -----------------------------------
expect "several files per side are added up (--new)" 0 \
    "^Ir +$(commify $((bI + bI))) +$(commify $((nI + bI)))" "" a.out a.out --new b.out a.out
expect "--new with nothing after it" 2 "" "check: NEW has no file" a.out --new

# --- --ignore-object -----------------------------------------------------------------
cat >"$TMP/ld-a.out" <<'EOF'
events: Ir
ob=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
fl=rtld.c
fn=_dl_start
1 5000
ob=/tmp/prog
fl=a.c
fn=main
1 1000
EOF
sed 's/^1 5000$/1 9000/' "$TMP/ld-a.out" >"$TMP/ld-b.out"
lb=$(SKIP_OB=ld-linux sum "$TMP/ld-a.out" "" 1) ln_=$(SKIP_OB=ld-linux sum "$TMP/ld-b.out" "" 1)
expect "ld.so is left out by default" 0 "^Ir +$(commify "$lb") +$(commify "$ln_") " "" ld-a.out ld-b.out
expect "--ignore-object= counts it" 3 "^Ir +$(commify "$(sum "$TMP/ld-a.out" "" 1)") +$(commify "$(sum "$TMP/ld-b.out" "" 1)") " "" \
    --ignore-object= ld-a.out ld-b.out
expect "--ignore-object=REGEX leaves out another object" 3 "^Ir +$(commify "$(SKIP_OB=prog sum "$TMP/ld-a.out" "" 1)") " "" \
    --ignore-object=prog ld-a.out ld-b.out

# --- flame diff -----------------------------------------------------------------------
expect "--flame-diff writes the differential flame graph" 0 "PASSED" "check: the differential flame graph is in d.svg" \
    --flame-diff=d.svg a.out b.out
check "the flame diff is SVG naming the changed function" sh -c "grep -q '<svg' '$TMP/d.svg' && grep -q 'parse_line' '$TMP/d.svg'"

# --- gmon.out inputs: a program followed by its gmon.out on each side --------------------
if command -v cc >/dev/null 2>&1 && (cd "$TMP" && cc -pg -g -O1 -o gm-old "$ROOT/examples/regress.c" &&
        ./gm-old >/dev/null && mv gmon.out old.gmon && cp gm-old gm-new && ./gm-new >/dev/null &&
        mv gmon.out new.gmon); then
    expect "gmon.out inputs (PROGRAM GMON each side): the default limit is on Time" 0 \
        "^  ok +Time=\\+10%: total Time" "" gm-old old.gmon gm-new new.gmon
else
    ok "# SKIP no cc -pg"
fi

# --- check --baseline ------------------------------------------------------------------
mkdir -p "$TMP/bl"
cp "$TMP/a.out" "$TMP/bl/v1.out"
expect "--baseline=NAME --baseline-dir=DIR is BASE" 3 "^base: bl/v1.out" "" --baseline=v1 --baseline-dir=bl c.out
TALLY_BASELINE_DIR=bl expect "TALLY_BASELINE_DIR sets the folder" 0 "^base: bl/v1.out" "" --baseline=v1 b.out
expect "a missing baseline: exit 1" 1 "" "check: no baseline 'v2' \\(bl/v2.out missing\\); save one with" \
    --baseline=v2 --baseline-dir=bl b.out
expect "a baseline name with a slash: exit 2" 2 "" "baseline name '../x'" --baseline=../x b.out

# --- errors ------------------------------------------------------------------------------
expect "one profile only: exit 2" 2 "" "check: give BASE and NEW" a.out
expect "no profile: exit 2" 2 "" "check: give BASE and NEW" --limit=Ir=+1%
expect "a limit without %: exit 2" 2 "" "limit 'Ir=\\+2': '\\+2' is not a percentage" --limit=Ir=+2 a.out b.out
expect "a limit without an operator: exit 2" 2 "" "limit 'Ir': write EVENT=" --limit=Ir a.out b.out
expect "a negative hard limit: exit 2" 2 "" "is not a count" --limit='Ir<=-5' a.out b.out
expect "a bad --event: exit 2" 2 "" "check: --event: 'Cyc' is no definition: write NAME=FORMULA" --event='Cyc' a.out b.out
expect "a bad formula: exit 2" 2 "" "^tally: a.out: event 'Cyc': an event or a number is missing before '\\*' in 'Ir\\+\\*2'" \
    --event='Cyc=Ir+*2' --limit=Cyc=+1% a.out b.out
expect "a limit on an event the profiles lack: exit 2" 2 "" "^tally: a.out: no event 'Bogus' \\(the profile has: Ir Dr\\)" \
    --limit=Bogus=+1% a.out b.out
expect "an event defined in terms of itself: exit 2" 2 "" "event 'X' is defined in terms of itself" \
    --event='X=Ir+X' --limit=X=+1% a.out b.out
expect "a bad --ignore-object regex: exit 2" 2 "" "--ignore-object '.*': missing closing parenthesis" --ignore-object='(' a.out b.out
expect "a bad --format: exit 2" 2 "" "check: --format takes text, markdown or json, not 'xml'" --format=xml a.out b.out
expect "a misspelt option: did you mean" 2 "" "unknown option '--limt=Ir=\\+1%'; did you mean '--limit'" --limt=Ir=+1% a.out b.out
expect "an unreadable file: exit 1" 1 "" "^tally: nothere.out: " a.out nothere.out
printf 'events: Ir\nfn=main\n1 2\nbogus line here\n' >"$TMP/bad.out"
expect "a malformed profile: exit 1 with FILE:LINE" 1 "" "^tally: bad.out:4: " a.out bad.out
printf 'events: Ir\nfl=a.c\nfn=f\n1 9223372036854775807\nfl=b.c\nfn=f\n1 1\n' >"$TMP/big.out"
expect "costs of one name beyond 64 bits: exit 1" 1 "" "^tally: big.out: the costs of f do not fit in 64 bits" a.out big.out
expect "-q drops the notes (flame diff)" 0 '"status": "ok"' "" -q --flame-diff=q.svg --format=json a.out b.out
expect "--help" 0 "^usage: tally check" "" --help

# --- record: baselines, a two-version program ----------------------------------------------
if ! command -v valgrind >/dev/null 2>&1 || [ ! -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] ||
        ! command -v cc >/dev/null 2>&1; then
    ok "# SKIP record --save-baseline / --baseline: no valgrind, tool or cc"
    exit 0
fi
# the tests' own tally (not an ASan build) records: record finds the tool beside its binary
REC=$ROOT/build/tally
cc -g -O1 -o "$TMP/regress-old" "$ROOT/examples/regress.c" &&
    cc -g -O1 -DSLOW -o "$TMP/regress-new" "$ROOT/examples/regress.c"
(cd "$TMP" && FOO_FROM_TEST=1 "$REC" record -q --clean-env --save-baseline=demo --out-file=old.out -- ./regress-old) \
    >"$TMP/rec.out" 2>"$TMP/rec.err"
check "record --save-baseline=demo writes .tally/baselines/demo.out" cmp "$TMP/old.out" "$TMP/.tally/baselines/demo.out"
(cd "$TMP" && "$REC" record -q --clean-env --baseline=demo --flame-diff=regress.svg --format=json \
    --limit=Ir=+5% --limit='.*:Ir=+20%' -o report.json --out-file=new.out -- ./regress-new) >"$TMP/rec.out" 2>"$TMP/rec.err"
rc=$?
if [ "$rc" = 3 ]; then ok "record --baseline: the slow path exceeds the limit (exit 3)"; else
    not_ok "record --baseline: the slow path exceeds the limit (exit 3), got $rc"; diag <"$TMP/rec.err"; fi
# the function that grew most is the slow path, and the numbers are the recorded ones
nb=$("$TALLY" annotate --auto=no --threshold=100 "$TMP/new.out" | awk '/normalise_slow/ { gsub(/,/, "", $1); print $1; exit }')
if python3 - "$TMP/report.json" "$nb" <<'EOF' >"$TMP/py.out" 2>&1; then
import json, sys
d = json.load(open(sys.argv[1]))
f = d["functions"][0]
assert f["name"] == "normalise_slow" and f["base"]["Ir"] == 0 and f["new"]["Ir"] == int(sys.argv[2]), f
hits = [h["function"] for l in d["limits"] for h in l["hits"] if h["exceeded"]]
assert "normalise_slow" in hits and "main" not in hits, hits
EOF
    ok "the regression is attributed to normalise_slow (its Ir from tally annotate of NEW)"
else
    not_ok "the regression is attributed to normalise_slow"; diag <"$TMP/py.out"; fi
check "the flame diff of record --baseline shows normalise_slow, new (no OLD cost)" \
    grep -Eq 'normalise_slow" [^>]*data-self="[1-9][0-9]*" [^>]*data-old="0"' "$TMP/regress.svg"
(cd "$TMP" && "$REC" record -q --clean-env --baseline=demo --out-file=again.out -- ./regress-old) >"$TMP/rec.out" 2>&1
check "record --baseline of the same program: exit 0, no change" sh -c "grep -q '^PASSED' '$TMP/rec.out' && grep -q '^Ir .* 0 *0.00%\$' '$TMP/rec.out'"
(cd "$TMP" && FOO_FROM_TEST=1 "$REC" record -q --clean-env --save-baseline=envp --out-file=env.out -- /usr/bin/env) \
    >"$TMP/env.txt" 2>/dev/null
check "--clean-env: the program sees the fixed environment, not the caller's" sh -c "
    grep -qx 'HOME=/' '$TMP/env.txt' && grep -qx 'LC_ALL=C' '$TMP/env.txt' &&
    grep -qx 'PATH=/usr/bin:/bin' '$TMP/env.txt' && ! grep -q FOO_FROM_TEST '$TMP/env.txt'"
(cd "$TMP" && "$REC" record -q --clean-env --out-file=seven.out -- sh -c 'exit 7') >/dev/null 2>&1
rc=$?
if [ "$rc" = 7 ] && [ -s "$TMP/seven.out" ]; then ok "record --clean-env alone: the program's exit status (7), the profile written"; else
    not_ok "record --clean-env alone: the program's exit status (got $rc)"; fi
expect_run "record: check options without --baseline: exit 2" 2 "" "need --baseline=NAME" record --limit=Ir=+1% -- /bin/true
expect_run "record --baseline of a missing baseline: exit 1 before running" 1 "" "no baseline 'nope'" \
    record --baseline=nope -- /bin/true

# --- a benchmark region: TALLY_START / TALLY_STOP of tally.h ------------------------------
if [ -f /usr/include/valgrind/valgrind.h ]; then
    cat >"$TMP/region.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <tally.h>
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
    unsigned long t = 0;
    for (unsigned long i = 0; i < n; i++)
        t += i * i;
    return t;
}
int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1000;
    TALLY_START;
    unsigned long t = work(n);
    TALLY_STOP;
    printf("%lu\n", t % 7);
    return 0;
}
C
    cc -g -O1 -I"$ROOT/build/valgrind/include" -o "$TMP/region" "$TMP/region.c"
    (cd "$TMP" && "$REC" record -q --clean-env --collect-atstart=no --save-baseline=region \
        --out-file=r1.out -- ./region 1000) >/dev/null 2>&1
    # the same region with more work: only work() grows, by its loop
    (cd "$TMP" && "$REC" record -q --clean-env --collect-atstart=no --baseline=region \
        --format=json -o region.json --out-file=r2.out -- ./region 2000) >/dev/null 2>&1
    rc=$?
    w1=$("$TALLY" annotate --auto=no --threshold=100 "$TMP/r1.out" | awk '/:work / { gsub(/,/, "", $1); print $1; exit }')
    w2=$("$TALLY" annotate --auto=no --threshold=100 "$TMP/r2.out" | awk '/:work / { gsub(/,/, "", $1); print $1; exit }')
    if [ "$rc" = 3 ] && python3 - "$TMP/region.json" "$w1" "$w2" <<'PY' >"$TMP/py.out" 2>&1; then
import json, sys
d = json.load(open(sys.argv[1]))
w1, w2 = int(sys.argv[2]), int(sys.argv[3])
names = {f["name"] for f in d["functions"]}
f = d["functions"][0]
assert f["name"] == "work" and f["base"]["Ir"] == w1 and f["new"]["Ir"] == w2, f
# nothing outside the region was counted: besides work(), only the few
# instructions of the call and the client requests (no start-up, no printf)
assert d["totals"][0]["base"] - w1 < 200, (d["totals"][0], w1)
PY
        ok "TALLY_START/TALLY_STOP: only the region is counted, and work() doubling is caught (exit 3)"
    else
        not_ok "TALLY_START/TALLY_STOP: only the region is counted (exit $rc)"; diag <"$TMP/py.out"
    fi
else
    ok "# SKIP no valgrind/valgrind.h for a client-request program"
fi
