#!/bin/sh
# tally graph: the DOT text is laid out by Graphviz's own `dot` (-Tjson)
# and what dot draws (node and edge texts, clusters) is compared with
# shares worked out by hand from small profiles written here; thresholds,
# --root/--leaf, --event, recursion (cycles, self-calls, a cycle nothing
# enters), escaping of awkward names, SVG output, usage and input errors,
# a missing or failing dot (no output file left behind).
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" graph "$@"
}

HAVE_DOT=0
command -v dot >/dev/null 2>&1 && HAVE_DOT=1
[ "$HAVE_DOT" = 1 ] || echo "# SKIP: Graphviz 'dot' is not installed (sh scripts/install-deps.sh): layout checks skipped"

# What dot drew, one sorted line per cluster, node and edge:
#   cluster NAME: LABEL TEXT: MEMBERS
#   node NAME: TEXT LINES joined by |
#   edge TAIL->HEAD: TEXT LINES [dashed]
cat >"$TMP/drawn.py" <<'EOF'
import json, sys
d = json.load(sys.stdin)
objs = d.get("objects", [])
def texts(o, key="_ldraw_"):
    return "|".join(op["text"] for op in o.get(key, []) if op.get("op") == "T")
out = []
names = {o["_gvid"]: o["name"] for o in objs if "nodes" not in o and "_gvid" in o}
for o in objs:
    if "nodes" in o:
        members = sorted(names.get(i, "?") for i in o.get("nodes", []))
        out.append("cluster %s: %s: %s" % (o["name"], texts(o), " ".join(members)))
    else:
        out.append("node %s: %s" % (o["name"], texts(o)))
for e in d.get("edges", []):
    st = " dashed" if e.get("style") == "dashed" else ""
    out.append("edge %s->%s: %s%s" % (names[e["tail"]], names[e["head"]], texts(e), st))
print("\n".join(sorted(out)))
EOF
# drawn NAME EXPECTED_FILE ARGS... : run tally graph ARGS, lay out with dot, compare
drawn() {
    name=$1 want=$2
    shift 2
    if [ "$HAVE_DOT" != 1 ]; then ok "$name # SKIP no dot"; return; fi
    (cd "$TMP" && "$TALLY" graph "$@") >"$TMP/g.dot" 2>"$TMP/g.err" </dev/null
    rc=$?
    if [ "$rc" != 0 ]; then not_ok "$name (exit $rc)"; diag <"$TMP/g.err"; return; fi
    if ! dot -Tjson <"$TMP/g.dot" >"$TMP/g.json" 2>"$TMP/dot.err" || [ -s "$TMP/dot.err" ]; then
        not_ok "$name (dot rejected the DOT)"; diag <"$TMP/dot.err"; return
    fi
    python3 "$TMP/drawn.py" <"$TMP/g.json" >"$TMP/g.txt"
    same_text "$name" "$want" "$TMP/g.txt"
}

# --- a small profile; totals: Ir 10+50+36+1 = 97, Dr 1+5+3+0 = 9 -------------
# main: self 10, calls work (2x, 80) and helper (1x, 6): inclusive 96 = 98.97%
# work: self 50 (51.55%), called 2x, inclusive 80 (82.47%), calls helper 4x (30)
# helper: self 36 (37.11%), called 1 + 4 = 5x, inclusive 36
# tiny"x (a quote in the name): self 1, never called: 1.03%
cat >"$TMP/a.out" <<'EOF'
# callgrind format
version: 1
cmd: ./a
events: Ir Dr
fl=a.c
fn=main
1 10 1
cfn=work
calls=2 5
2 80 8
cfn=helper
calls=1 7
3 6 0
fn=work
5 50 5
cfn=helper
calls=4 7
6 30 3
fn=helper
7 36 3
fn=tiny"x
8 1 0
EOF
cat >"$TMP/want" <<'EOF'
edge f0->f1: 82.47%|2×
edge f0->f2: 6.19%|1×
edge f1->f2: 30.93%|4×
node f0: main|98.97%|(10.31%)
node f1: work|82.47%|(51.55%)|2×
node f2: helper|37.11%|(37.11%)|5×
node f3: tiny"x|1.03%|(1.03%)
EOF
drawn "shares, calls and edges by hand (defaults)" "$TMP/want" a.out

grep -v 'f3' "$TMP/want" >"$TMP/want2"
drawn "--node-thres=2 drops tiny (1.03%)" "$TMP/want2" --node-thres=2 a.out
grep -v 'f0->f2' "$TMP/want" >"$TMP/want3"
drawn "--edge-thres=10 drops main->helper (6.19%)" "$TMP/want3" --edge-thres=10 a.out
grep -E 'f0->f1|node f0|node f1' "$TMP/want" >"$TMP/want4"
drawn "--node-thres=50 keeps main and work" "$TMP/want4" --node-thres 50 a.out
grep -E 'f1->f2|node f1|node f2' "$TMP/want" >"$TMP/want5"
drawn "--root=work: work and what it reaches" "$TMP/want5" --root=work a.out
grep -E 'f0->f1|node f0|node f1' "$TMP/want" >"$TMP/want6"
drawn "--leaf='^work\$': work and its callers" "$TMP/want6" '--leaf=^work$' a.out
grep -v 'f3' "$TMP/want" >"$TMP/want7"
drawn "--root=main --leaf=helper: the paths between" "$TMP/want7" --root=main --leaf=helper a.out
# --root/--leaf matches are drawn even below the threshold
grep -E 'node f0|node f3' "$TMP/want" >"$TMP/want8"
drawn "a --root match below the threshold is still drawn" "$TMP/want8" --node-thres=90 --root=main --root=tiny a.out
# Dr: total 9; main 1+8+0 = 9 (100%), work 8 (88.89%, self 55.56%), helper 3
# (33.33%), tiny 0 (dropped); main->helper carries 0 Dr (dropped)
cat >"$TMP/want9" <<'EOF'
edge f0->f1: 88.89%|2×
edge f1->f2: 33.33%|4×
node f0: main|100.00%|(11.11%)
node f1: work|88.89%|(55.56%)|2×
node f2: helper|33.33%|(33.33%)|5×
EOF
drawn "--event=Dr (shares of 9)" "$TMP/want9" --event=Dr a.out
# two inputs are added: same shares, twice the calls
cat >"$TMP/want10" <<'EOF'
edge f0->f1: 82.47%|4×
edge f0->f2: 6.19%|2×
edge f1->f2: 30.93%|8×
node f0: main|98.97%|(10.31%)
node f1: work|82.47%|(51.55%)|4×
node f2: helper|37.11%|(37.11%)|10×
node f3: tiny"x|1.03%|(1.03%)
EOF
drawn "two inputs added up: shares kept, calls doubled" "$TMP/want10" a.out a.out

# --- recursion: total 5 + 20 + 30 + 45 = 100 ---------------------------------
# main -> a (95); a <-> b is a cycle entered from main: cycle 95%; members
# (estimates from nested calls, marked ~): the calls into them, at most the
# cycle's: a min(95 + 60, 95) = 95%, b min(75, 95) = 75%; leaf
# is called 3x by b and 7x by itself (self-calls do not count in its
# inclusive 45); recursive arcs are dashed, count only; calls as gprof
# writes them, N+R: R = calls from inside the recursion (a: 1 from main +
# 2 from b; b: 3 from a; leaf: 3 from b + 7 from itself).
cat >"$TMP/rec.out" <<'EOF'
events: Ir
fn=main
1 5
cfn=a
calls=1 10
2 95
fn=a
10 20
cfn=b
calls=3 20
11 75
fn=b
20 30
cfn=a
calls=2 10
21 60
cfn=leaf
calls=3 30
22 45
fn=leaf
30 45
cfn=leaf
calls=7 30
31 40
EOF
cat >"$TMP/want" <<'EOF'
cluster cluster_cycle1: cycle 1: 2 functions, self 50 (50.00%)|inclusive 95 (95.00%): f1 f2
edge f0->f1: 95.00%|1×
edge f1->f2: 3× dashed
edge f2->f1: 2× dashed
edge f2->f3: 45.00%|3×
edge f3->f3: 7× dashed
node f0: main|100.00%|(5.00%)
node f1: a|~95.00%|(20.00%)|1+2×
node f2: b|~75.00%|(30.00%)|0+3×
node f3: leaf|45.00%|(45.00%)|3+7×
EOF
drawn "recursion: cycle cluster, self-call loop, dashed recursive calls" "$TMP/want" rec.out
(cd "$TMP" && "$TALLY" graph rec.out) >"$TMP/rec.dot" 2>&1
check "recursion: the label explains the ~ of estimates" grep -q "~: estimated (the file's calls nest under recursion)" "$TMP/rec.dot"
# a cycle that nothing enters: inclusive = members' self + calls leaving it.
# Members (estimates, marked ~): y's own cost 20 + 10 = 30 exceeds the 30
# of calls into it by 0, x's 10 falls short of its 25 by 15, so y is taken
# to be at the bottom: the cycle's 40; x: the calls into it, 25.
printf 'events: Ir\nfn=x\n1 10\ncfn=y\ncalls=1 1\n1 30\nfn=y\n1 20\ncfn=x\ncalls=1 1\n1 25\ncfn=z\ncalls=1 1\n1 10\nfn=z\n1 10\n' >"$TMP/loop.out"
cat >"$TMP/want" <<'EOF'
cluster cluster_cycle1: cycle 1: 2 functions, self 30 (75.00%)|inclusive 40 (100.00%): f0 f1
edge f0->f1: 1× dashed
edge f1->f0: 1× dashed
edge f1->f2: 25.00%|1×
node f0: x|~62.50%|(25.00%)|0+1×
node f1: y|~100.00%|(50.00%)|0+1×
node f2: z|25.00%|(25.00%)|1×
EOF
drawn "a cycle nothing enters (no DAG): no hang, cycle 100%" "$TMP/want" loop.out

# counts with thousands separators: total 1,000,000 + 234,567; 121,000 calls
printf 'events: Ir\nfn=main\n1 1000000\ncfn=f\ncalls=121000 1\n1 234567\nfn=f\n1 234567\n' >"$TMP/big.out"
(cd "$TMP" && "$TALLY" graph big.out) >"$TMP/big.dot" 2>&1
check "graph title: total 1,234,567" grep -q 'total 1,234,567' "$TMP/big.dot"
check "node and edge labels: 121,000×" grep -q '121,000×' "$TMP/big.dot"
check "tooltips: inclusive 1,234,567" grep -q 'inclusive: 1,234,567' "$TMP/big.dot"

# --max-nodes: main (self 5) calls f1..f5 (self 50, 40, 30, 20, 10): 155 in
# all; main 100%, f1 32.26%, f2 25.81%, ... all above 0.5%. At most 3:
# main, f1, f2 (the largest inclusive shares); the label says so.
{ printf 'events: Ir\nfn=main\n1 5\n'
  for k in 1 2 3 4 5; do printf 'cfn=f%d\ncalls=1 1\n1 %d\n' $k $((60 - 10 * k)); done
  for k in 1 2 3 4 5; do printf 'fn=f%d\n1 %d\n' $k $((60 - 10 * k)); done; } >"$TMP/many.out"
cat >"$TMP/want" <<'EOF'
edge f0->f1: 32.26%|1×
edge f0->f2: 25.81%|1×
node f0: main|100.00%|(3.23%)
node f1: f1|32.26%|(32.26%)|1×
node f2: f2|25.81%|(25.81%)|1×
EOF
drawn "--max-nodes=3: the three largest" "$TMP/want" --max-nodes=3 many.out
(cd "$TMP" && "$TALLY" graph --max-nodes=3 many.out) >"$TMP/many.dot" 2>&1
check "--max-nodes: the label says how many were cut" grep -q '3 of 6 functions (inclusive >= 0.5%; the 3 largest of 6)' "$TMP/many.dot"
expect_run "--max-nodes=-1 is refused" 2 "" "max-nodes wants a count" graph --max-nodes=-1 "$TMP/many.out"

# --- escaping -------------------------------------------------------------
# names with quotes, backslashes (\n, \l, \N would be DOT escapes), braces,
# <, & and a byte that is not UTF-8 (drawn as ?)
printf 'events: Ir\nfn=a"b\\\\c\n1 10\nfn=x\\\\ny\\\\l\\\\N\n1 10\nfn=std::vector<int>::f(int&) {;}\n1 10\nfn=bad\377byte\n1 10\n' >"$TMP/esc.out"
cat >"$TMP/want" <<'EOF'
node f0: a"b\\c|25.00%|(25.00%)
node f1: x\\ny\\l\\N|25.00%|(25.00%)
node f2: std::vector<int>::f(int&) {;}|25.00%|(25.00%)
node f3: bad?byte|25.00%|(25.00%)
EOF
drawn "escaping: quotes, backslashes, <&{;}, invalid UTF-8" "$TMP/want" esc.out

# --- SVG ---------------------------------------------------------------------
if [ "$HAVE_DOT" = 1 ]; then
    expect "-o a.svg runs dot" 0 "" "" -o a.svg a.out
    if python3 -c "
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]); ns = '{http://www.w3.org/2000/svg}'
texts = [x.text for x in t.iter(ns + 'text')]
ids = [g.get('id') for g in t.iter(ns + 'g') if g.get('class') == 'node']
assert 'tiny\"x' in texts and 'main' in texts, texts
assert sorted(ids) == ['f0', 'f1', 'f2', 'f3'], ids
" "$TMP/a.svg" >"$TMP/py.out" 2>&1; then ok "the SVG parses, with node ids f<function> and the names"; else
        not_ok "the SVG parses, with node ids f<function> and the names"; diag <"$TMP/py.out"; fi
    expect "--format=svg to standard output" 0 '^<svg' "" --format=svg a.out
    expect "--format=dot -o x.svg writes DOT" 0 "" "" --format=dot -o x.svg a.out
    check "x.svg holds DOT text" grep -q '^digraph callgraph' "$TMP/x.svg"
    # a dot that fails: its message is quoted, nothing is left behind
    mkdir -p "$TMP/bin"
    printf '#!/bin/sh\necho "Error: syntax trouble" >&2\nexit 3\n' >"$TMP/bin/dot"
    chmod +x "$TMP/bin/dot"
    rm -f "$TMP/f.svg"
    (cd "$TMP" && PATH="$TMP/bin:$PATH" "$TALLY" graph -o f.svg a.out) >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'failed (exit status 3): Error: syntax trouble' "$TMP/err" &&
        [ ! -e "$TMP/f.svg" ] && [ -z "$(ls "$TMP" | grep '^f\.svg.')" ]; then
        ok "a failing dot: exit 1, its message, no output file"
    else
        not_ok "a failing dot: exit 1, its message, no output file"; diag <"$TMP/err"; ls "$TMP" | diag
    fi
    # a dot that dies of a signal
    printf '#!/bin/sh\nkill -9 $$\n' >"$TMP/bin/dot"
    (cd "$TMP" && PATH="$TMP/bin:$PATH" "$TALLY" graph -o k.svg a.out) >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'killed by signal 9' "$TMP/err" && [ ! -e "$TMP/k.svg" ]; then
        ok "a dot killed by a signal: exit 1, said, no output file"
    else
        not_ok "a dot killed by a signal: exit 1, said, no output file"; diag <"$TMP/err"
    fi
else
    ok "-o a.svg runs dot # SKIP no dot"
fi
# dot missing: a clear message naming the package, no output file
mkdir -p "$TMP/empty"
rm -f "$TMP/m.svg"
(cd "$TMP" && PATH="$TMP/empty" "$TALLY" graph -o m.svg a.out) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "needs the 'dot' program.*graphviz" "$TMP/err" && [ ! -e "$TMP/m.svg" ]; then
    ok "dot missing: exit 1, names the graphviz package, no output"
else
    not_ok "dot missing: exit 1, names the graphviz package, no output"; diag <"$TMP/err"
fi

# --- DOT to a file, and the empty graph ----------------------------------------
expect "-o a.dot writes DOT" 0 "" "" -o a.dot a.out
check "a.dot holds the graph" grep -q 'f0 -> f1' "$TMP/a.dot"
echo >"$TMP/want"
drawn "--node-thres=100 with nothing at 100%: an empty graph" "$TMP/want" --node-thres=100 a.out
expect "the label says how much is shown" 0 '0 of 4 functions' "" --node-thres=100 a.out

# --- errors -------------------------------------------------------------------
expect "--help" 0 '^usage: tally graph' "" --help
expect "no input" 2 "" 'no input files' 
expect "unknown option" 2 "" "unknown option '--bogus'" --bogus a.out
expect "bad threshold" 2 "" 'percentage from 0 to 100' --node-thres=abc a.out
expect "threshold over 100" 2 "" 'percentage from 0 to 100' --edge-thres=101 a.out
expect "bad regex" 2 "" 'root: bad regex' '--root=(' a.out
expect "bad format" 2 "" "unknown format 'jpeg'" --format=jpeg a.out
expect "missing value" 2 "" "needs a value" a.out --event
expect "missing file" 1 "" 'nope.out' nope.out
expect "unknown event (usage: exit 2)" 2 "" "no event 'Bc'.*Ir Dr" --event=Bc a.out
expect "--root matching nothing" 1 "" 'no function matches --root=zzz' --root=zzz a.out
expect "--leaf matching nothing" 1 "" 'no function matches --leaf=zzz' --leaf=zzz a.out
printf 'events: Ir\nfn=f\n1 x\n' >"$TMP/bad.out"
expect "bad input: FILE:LINE" 1 "" 'bad.out:3' bad.out
printf 'events: Dr\nfn=f\n1 1\n' >"$TMP/other.out"
expect "inputs with other events" 1 "" 'events differ' a.out other.out
rm -f "$TMP/no.dot"
run_tally 1 "" "" graph -o no.dot --root=zzz a.out
if [ ! -e "$TMP/no.dot" ]; then ok "no output file after an error"; else not_ok "no output file after an error"; fi

# a program built with -pg and its gmon.out: the gprof analysis's graph, the
# same DOT as from the file `tally gprof --callgrind-out` writes
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    run_tally 0 "" "" gprof -b --callgrind-out="$TMP/g.out" "$GEX/cycles" "$GPROF/cycles.gmon"
    expect "graph of the gprof profile" 0 "" "" -o g1.dot g.out
    expect "graph of PROGRAM gmon.out" 0 "" "" -o g2.dot "$GEX/cycles" "$GPROF/cycles.gmon"
    check "PROGRAM gmon.out: the same DOT as the --callgrind-out file" \
        sh -c "grep -q 'burn' '$TMP/g1.dot' && cmp -s '$TMP/g1.dot' '$TMP/g2.dot'"
    expect "two programs" 1 "" "a second program" -o g3.dot "$GEX/cycles" "$GEX/cycles" \
        "$GPROF/cycles.gmon"
else
    not_ok "build the gprof examples"
    diag <"$TMP/make.log"
fi
