#!/bin/sh
# tally report without a browser. The page is tally view's application with
# a snapshot of the API's answers inside (gzip, base64): on a profile made
# by hand, the shipped rows, callers, callees, source lines and totals
# against values worked out by hand, the rank of the shipped functions
# against the JSON export (tests/tools/reportcheck.py rank), what is left
# out and said so, the page self-contained and names unable to break out
# of it; on real profiles (a recording with its source, two inputs, --base,
# an aprof report) every answer of the page equals the answer of a tally
# view server on the same inputs (reportcheck.py server); usage and input
# errors. tests/browser/view.sh opens the page in Chromium.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/viewlib.sh"

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" report "$@"
}
RC="python3 $ROOT/tests/tools/reportcheck.py"
# value EXPECTED NAME PAGE EXPR: EXPR of the page's snapshot `s` (and `html`)
value() {
    want=$1 name=$2 page=$3 expr=$4
    got=$($RC eval "$page" "$expr" 2>&1)
    if [ "$got" = "$want" ]; then ok "$name"; else
        not_ok "$name"; printf 'expected: %s\ngot:      %s\n' "$want" "$got" | diag; fi
}
# keys PAGE REGEX: the snapshot's keys (answers and pictures) matching REGEX, sorted
KEYS='sorted(k for k in list(s["answers"]) + list(s["svg"]) if re.match(R, k))'
keys() {
    $RC eval "$1" "$(echo "$KEYS" | sed "s|R|r'$2'|")"
}

mkdir -p "$TMP/srcdir/sub"
printf 'int helper(int x)\n{\n    return x * 2;\n}\n' >"$TMP/srcdir/sub/h.c"
# Ir: main 10, work 50, helper 36, tiny 1 = 97; Dr: 1 + 5 + 3 = 9; Sum = Ir + Dr
cat >"$TMP/a.out" <<'EOF'
# callgrind format
version: 1
cmd: ./a 1
event: Sum = Ir + Dr
events: Ir Dr
fl=a.c
fn=main
1 10 1
cfn=work
calls=2 5
2 80 8
cfl=sub/h.c
cfn=helper
calls=1 7
3 6 0
fn=work
5 50 5
cfl=sub/h.c
cfn=helper
calls=4 7
6 30 3
fl=sub/h.c
fn=helper
3 36 3
fl=a.c
fn=tiny</script><script>alert(1)</script>
8 1 0
EOF
expect "a report" 0 "" "" -o page a.out
P=$TMP/page/index.html
check "index.html written" test -s "$P"
value "['Ir', 'Dr']" "events: the base events" "$P" '[e["name"] for e in s["answers"]["meta"]["events"]]'
value "['97', '9']" "totals by hand" "$P" '[str(t) for t in s["answers"]["meta"]["totals"]]'
# rank: largest inclusive share over every event: main 100% (Dr 9/9), work
# 88.89% (Dr 8/9), helper 37.11% (Ir 36/97), tiny 1.03% (Ir 1/97)
value "['main', 'work', 'helper', 'tiny</script><script>alert(1)</script>']" \
    "functions by rank" "$P" '[r["name"] for r in s["answers"]["functions"]["rows"]]'
value "[['50', '5'], ['80', '8'], 2]" "work: self, inclusive, calls" "$P" \
    '[[str(x) for x in r["self"]], [str(x) for x in r["incl"]], r["calls"]] if (r := s["answers"]["functions"]["rows"][1]) else 0'
"$TALLY" convert --to=json -o "$TMP/a.json" "$TMP/a.out" || not_ok "the JSON export of a.out"
checks "rank" $RC rank "$P" "$TMP/a.json"
# work's callees: helper, 4 calls, inclusive 30 Ir 3 Dr; its caller main, 2 calls, 80 8
ID_WORK=$($RC eval "$P" 's["answers"]["functions"]["rows"][1]["id"]')
value "[('helper', 4, ['30', '3'])]" "work's callees by hand" "$P" \
    "[(c['name'], c['calls'], [str(x) for x in c['incl']]) for c in s['answers']['function?id=$ID_WORK']['callees']]"
value "[('main', 2, ['80', '8'])]" "work's callers by hand" "$P" \
    "[(c['name'], c['calls'], [str(x) for x in c['incl']]) for c in s['answers']['function?id=$ID_WORK']['callers']]"
value "0" "a name cannot close the script element" "$P" 'html.count("<script>alert")'
value "[]" "no network references (src/href to http:, https:, //)" "$P" \
    're.findall(r"(?:src|href)=\"(?:https?:|//)[^\"]*", html)'
value "0" "no external scripts or stylesheets" "$P" \
    'len(re.findall(r"<script[^>]+src=|<link[^>]+stylesheet", html))'
value "1" "one page script" "$P" 'len(re.findall(r"<script>", html))'

# --max-functions: main and work only
expect "--max-functions=2" 0 "" "" -o top2 --max-functions=2 a.out
value "['main', 'work']" "two functions shipped" "$TMP/top2/index.html" \
    '[r["name"] for r in s["answers"]["functions"]["rows"]]'
value "True" "the page says what it holds" "$TMP/top2/index.html" \
    '"holds 2 of the 4 functions" in s["note"]'
value "[2, 4]" "meta says what was shipped out of how much" "$TMP/top2/index.html" \
    '[s["answers"]["meta"]["snapshot"]["functions"], s["answers"]["meta"]["snapshot"]["all"]]'
ID_HELPER=$($RC eval "$P" 's["answers"]["functions"]["rows"][2]["id"]')
value "[]" "nothing of a function left out" "$TMP/top2/index.html" \
    "[k for k in list(s['answers']) + list(s['svg']) if k.endswith('id=$ID_HELPER') or 'id=$ID_HELPER&' in k]"

# source: a.c is not there; sub/h.c is found through -I (line 3 with
# helper's costs 36 Ir 3 Dr, called from work's line 6)
expect "-I DIR finds sources" 0 "" "" -o src -I srcdir a.out
value "[(3, '    return x * 2;', ['36', '3'])]" "helper's line with its cost" "$TMP/src/index.html" \
    "[(l['n'], l['text'], [str(x) for x in l['self']]) for f in s['answers']['source?id=$ID_HELPER']['files'] for l in f['lines'] if l['self'] and any(int(x) for x in l['self'])]"
expect "--max-source=0" 0 "" "" -o nosrc --max-source=0 -I srcdir a.out
value "[]" "no source with --max-source=0" "$TMP/nosrc/index.html" \
    '[k for k in s["answers"] if k.startswith("source")]'

# pictures: the flame graph of each event, a function's flame graph and
# sandwich, the call graph around it (needs dot)
value "['flame?ev=0', 'flame?ev=1']" "the whole flame graph of each event" "$P" \
    'sorted(k for k in s["answers"] if re.fullmatch(r"flame\?ev=\d+", k))'
value "4" "each function's sandwich" "$P" 'len([k for k in s["answers"] if k.startswith("sandwich?ev=0&id=")])'
if command -v dot >/dev/null 2>&1; then
    value "True" "the call graph around work, with its node" "$P" \
        "'<svg' in s['svg']['graph?down=2&ev=0&id=$ID_WORK&up=2'] and 'id=\"f$ID_WORK\"' in s['svg']['graph?down=2&ev=0&id=$ID_WORK&up=2']"
else
    ok "the call graph # SKIP dot is not installed"
fi
mkdir -p "$TMP/nodot"
(cd "$TMP" && PATH="$TMP/nodot" "$TALLY" report -o nd a.out) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 0 ] && grep -q "warning: report: no call graph.*graphviz" "$TMP/err"; then
    ok "without dot: exit 0 and a warning"; else not_ok "without dot: exit 0 and a warning"; diag <"$TMP/err"; fi
value "[True, []]" "without dot: the page says why, and has no graph" "$TMP/nd/index.html" \
    '["Graphviz" in s["note"], list(s["svg"])]'
expect "--no-callgraph --no-flame" 0 "" "" -o bare --no-callgraph --no-flame a.out
value "[True, True, []]" "left out on request, and said" "$TMP/bare/index.html" \
    '["(--no-callgraph)" in s["note"], "(--no-flame)" in s["note"], [k for k in list(s["answers"]) + list(s["svg"]) if re.match("flame|sandwich|graph", k)]]'
expect "--max-graphs=1 --max-trees=2" 0 "" "" -o few --max-graphs=1 --max-trees=2 a.out
value "[1, 2, 2]" "--max-graphs and --max-trees" "$TMP/few/index.html" \
    '[len([k for k in s["svg"] if k.startswith("graph")]) if s["svg"] else 1, len([k for k in s["answers"] if k.startswith("sandwich")]), len([k for k in s["answers"] if re.match("flame.*id=", k)])]'
expect "--event=Dr" 0 "" "" -o dr --event=Dr a.out
value "[1, 4, 0]" "--event: the page opens on it, its pictures are of it" "$TMP/dr/index.html" \
    '[s["answers"]["meta"]["snapshot"]["ev"], len([k for k in s["answers"] if k.startswith("sandwich?ev=1&")]), len([k for k in s["answers"] if k.startswith("sandwich?ev=0&")])]'

# real profiles: every answer of the page is the server's
EX=$ROOT/examples/recurse
env -i PATH="$PATH" "$ROOT/build/tally" record --out-file="$TMP/rec.out" -- "$EX" 16 >"$TMP/rec.log" 2>&1 ||
    { not_ok "tally record of examples/recurse"; diag <"$TMP/rec.log"; }
env -i PATH="$PATH" "$ROOT/build/tally" record --out-file="$TMP/rec12.out" -- "$EX" 12 >"$TMP/rec.log" 2>&1 ||
    { not_ok "tally record of examples/recurse 12"; diag <"$TMP/rec.log"; }
# same_as_view NAME ARGS...: report ARGS, then the server on ARGS answers the same
same_as_view() {
    what=$1
    shift
    expect "$what: the report" 0 "" "" -o "$TMP/same.html" "$@"
    start_view "$TMP/v.log" "$@"
    if [ -n "$URL" ]; then
        checks "$what" $RC server "$URL" "$TMP/same.html"
        stop_view "$what: the server"
    else
        not_ok "$what: tally view starts"
        diag <"$TMP/v.log"
    fi
}
same_as_view "a recording with its source" -I "$ROOT/examples" "$TMP/rec.out"
value "True" "the source of the recording is in the page" "$TMP/same.html" \
    'any(f["path"] and f["path"].endswith("recurse.c") for k, a in s["answers"].items() if k.startswith("source") for f in a["files"])'
same_as_view "two inputs (two parts, summed)" "$TMP/rec.out" "$TMP/rec12.out"
value "the sum of its 2 parts" "two inputs: the parts summed, and said" "$TMP/same.html" \
    's["answers"]["meta"]["snapshot"]["parts"]'
same_as_view "a comparison (--base)" --base="$TMP/rec12.out" "$TMP/rec.out"
value "True" "the comparison's rows carry the base's costs" "$TMP/same.html" \
    'all("base_incl" in r for r in s["answers"]["functions"]["rows"])'
checks "rank (with a base)" $RC rank "$TMP/same.html" "$(
    "$TALLY" convert --to=json -o "$TMP/rec.json" "$TMP/rec.out" && echo "$TMP/rec.json")"
IS=$ROOT/examples/complexity/isort
env -i PATH="$PATH" "$ROOT/build/tally" record --input-sensitive=yes --aprof-out-file="$TMP/is.aprof" \
    --out-file="$TMP/is.out" -- "$IS" >"$TMP/rec.log" 2>&1 || { not_ok "tally record of isort"; diag <"$TMP/rec.log"; }
same_as_view "a profile and its aprof report" "$TMP/is.out" "$TMP/is.aprof"
value "True" "the complexity of isort is in the page" "$TMP/same.html" \
    'any(a.get("name") == "isort" for k, a in s["answers"].items() if k.startswith("complexity"))'
expect "an aprof report alone" 1 "" "aprof report alone is no profile" -o alone.html "$TMP/is.aprof"
check "no page for an aprof report alone" test ! -e "$TMP/alone.html"
"$TALLY" diff "$TMP/rec.out" "$TMP/rec12.out" >"$TMP/d.out" 2>"$TMP/d.err" || not_ok "tally diff"
expect "a profile of differences" 0 "" "" -o d.html d.out
value "[True, []]" "differences: no flame graph, and said" "$TMP/d.html" \
    '["holds differences" in s["note"], [k for k in s["answers"] if re.match("flame|sandwich", k)]]'

# -o NAME.html: one file, no directory
expect "-o NAME.html" 0 "" "" -o one.html a.out
check "one file written" test -s "$TMP/one.html"
check "no directory made" test ! -e "$TMP/one"

# errors
expect "--help" 0 '^usage: tally report' "" --help
expect "no -o" 2 "" 'no output directory' a.out
expect "no input" 2 "" 'report: no profile given, and no tally.out' -o x
expect "unknown option" 2 "" "unknown option '--bogus'" -o x --bogus a.out
expect "bad --max-functions" 2 "" 'max-functions wants a positive number' -o x --max-functions=0 a.out
expect "bad --max-source" 2 "" 'max-source wants a whole number' -o x --max-source=-1 a.out
expect "bad --max-graphs" 2 "" 'max-graphs wants a whole number' -o x --max-graphs=x a.out
expect "bad --editor" 2 "" 'editor wants a template with {path}' -o x --editor=vi a.out
expect "missing input" 1 "" 'nope.out' -o miss nope.out
check "no directory after a failed read" test ! -e "$TMP/miss"
: >"$TMP/file"
expect "-o names a file" 1 "" 'file: exists and is not a directory' -o file a.out
expect "unknown --event (usage: exit 2)" 2 "" "no event 'Bc'" -o ev --event=Bc a.out
expect "derived --event (usage: exit 2)" 2 "" "Sum is derived" -o ev --event=Sum a.out
check "no directory after a usage error" test ! -e "$TMP/ev"
expect "missing base" 1 "" 'nothing.out' -o nb --base=nothing.out a.out
printf 'events: Ir\nfn=f\n1 x\n' >"$TMP/bad.out"
expect "bad input: FILE:LINE" 1 "" 'bad.out:3' -o bad bad.out
check "no page after bad input" test ! -e "$TMP/bad/index.html"

# a program built with -pg and its gmon.out: the page of the gprof analysis
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    expect "report of PROGRAM gmon.out" 0 "" "" -o gm "$GEX/cycles" "$GPROF/cycles.gmon"
    value "[['Time'], True]" "the gmon page: event Time, function burn" "$TMP/gm/index.html" \
        '[[e["name"] for e in s["answers"]["meta"]["events"]], any(r["name"] == "burn" for r in s["answers"]["functions"]["rows"])]'
else
    not_ok "build the gprof examples"
    diag <"$TMP/make.log"
fi
