#!/bin/sh
# tally report without a browser: the data embedded in index.html (parsed
# as JSON) against values worked out by hand (shipped functions, arcs,
# hidden callers/callees, totals, derived events, source lines), the page
# is self-contained (no network reference), names cannot break out of
# the <script> element, the call graph and flame graph are inline SVG (a
# missing dot only warns), aprof inputs get the complexity section, the
# generated asset header is up to date, usage and input errors.
# tests/browser/report.sh opens the page in Chromium.
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" report "$@"
}

# the page's JSON data, as python sees it
cat >"$TMP/data.py" <<'EOF'
import json, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="tally-data">(.*?)</script>', html, re.S)
d = json.loads(m.group(1))
expr = sys.argv[2]
print(eval(expr, {"d": d, "html": html, "re": re}))
EOF
# jq-like: value EXPECTED NAME PAGE EXPR
value() {
    want=$1 name=$2 page=$3 expr=$4
    got=$(python3 "$TMP/data.py" "$page" "$expr" 2>&1)
    if [ "$got" = "$want" ]; then ok "$name"; else
        not_ok "$name"; printf 'expected: %s\ngot:      %s\n' "$want" "$got" | diag; fi
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
value "['Ir', 'Dr', 'Sum']" "events: base then derived" "$P" 'd["events"]'
value "[97, 9, 106]" "totals by hand (Sum = Ir + Dr)" "$P" 'd["totals"]'
# rank: largest inclusive share over every event: main 100% (Dr 9/9), work
# 88.89% (Dr), helper 37.11% (Ir), tiny 1.03%
value "['main', 'work', 'helper', 'tiny</script><script>alert(1)</script>']" \
    "functions by rank" "$P" '[f["n"] for f in d["funcs"]]'
value "[[50, 5, 55], [80, 8, 88], 2, 0]" "work: self, inclusive, calls" "$P" \
    '[d["funcs"][1]["s"], d["funcs"][1]["i"], d["funcs"][1]["c"], d["funcs"][1]["ho"]]'
value "[[0, 1, 2, 0, [80, 8, 88]], [0, 2, 1, 0, [6, 0, 6]], [1, 2, 4, 0, [30, 3, 33]]]" \
    "arcs between shipped functions" "$P" 'd["arcs"]'
value "0" "the name cannot close the script element" "$P" \
    'html.count("<script>alert")'
value "[]" "no network references (src/href to http:, https:, //)" "$P" \
    're.findall(r"(?:src|href)=\"(?:https?:|//)[^\"]*", html)'
value "0" "no external scripts or stylesheets" "$P" \
    'len(re.findall(r"<script[^>]+src=|<link[^>]+stylesheet", html))'

# --max-functions: main and work only; work's callee helper is hidden
expect "--max-functions=2" 0 "" "" -o top2 --max-functions=2 a.out
value "['main', 'work']" "two functions shipped" "$TMP/top2/index.html" '[f["n"] for f in d["funcs"]]'
value "[[0, 1, 2, 0, [80, 8, 88]]]" "only the arc between them" "$TMP/top2/index.html" 'd["arcs"]'
value "[1, 1]" "hidden callees: main 1 (helper), work 1 (helper)" "$TMP/top2/index.html" \
    '[f["ho"] for f in d["funcs"]]'
value "[4, 3]" "all functions and arcs counted" "$TMP/top2/index.html" '[d["nfunctions"], d["narcs"]]'

# source: a.c is not there; sub/h.c is found through -I (lines 1-4 of it,
# line 3 with helper's costs 36 3 39)
value "{}" "no source without the files" "$P" 'd["src"]'
expect "-I DIR finds sources" 0 "" "" -o src -I srcdir a.out
value "[[1, 'int helper(int x)'], [2, '{'], [3, '    return x * 2;', [36, 3, 39]], [4, '}']]" \
    "helper's annotated lines (context 3)" "$TMP/src/index.html" 'd["src"]["2"][0]["lines"]'
value "srcdir/sub/h.c" "the file as found" "$TMP/src/index.html" 'd["src"]["2"][0]["file"]'
expect "--max-source=0" 0 "" "" -o nosrc --max-source=0 -I srcdir a.out
value "{}" "no source with --max-source=0" "$TMP/nosrc/index.html" 'd["src"]'

# pictures
value "True" "the flame graph is inline SVG" "$P" \
    'bool(re.search(r"<div id=\"flame\" class=\"picture\"><svg", html))'
if command -v dot >/dev/null 2>&1; then
    value "True" "the call graph is inline SVG with node ids" "$P" \
        'bool(re.search(r"<div id=\"callgraph\" class=\"picture\"><svg", html)) and "id=\"f0\"" in html'
else
    ok "the call graph # SKIP dot is not installed"
fi
mkdir -p "$TMP/nodot"
for t in python3; do :; done
(cd "$TMP" && PATH="$TMP/nodot" "$TALLY" report -o nd a.out) >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" = 0 ] && grep -q "warning: report: no call graph.*graphviz" "$TMP/err"; then
    ok "without dot: exit 0 and a warning"; else not_ok "without dot: exit 0 and a warning"; diag <"$TMP/err"; fi
value "True" "without dot: the page says why" "$TMP/nd/index.html" '"not installed (Debian package graphviz)" in html'
expect "--no-callgraph --no-flame" 0 "" "" -o bare --no-callgraph --no-flame a.out
value "[True, True]" "left out on request" "$TMP/bare/index.html" \
    '["left out (--no-callgraph)" in html, "left out (--no-flame)" in html]'

# aprof input: the complexity section and the plots beside the page
if [ -f "$ROOT/tests/golden/complexity/r1.aprof" ]; then
    cp "$ROOT/tests/golden/complexity/r1.aprof" "$TMP/r1.aprof"
    expect "an aprof report" 0 "" "" -o ap r1.aprof
    value "True" "the complexity ranking is on the page" "$TMP/ap/index.html" \
        '"isort" in re.search(r"<pre id=\"complexity\">(.*?)</pre>", html, re.S).group(1)'
    check "the plots are beside it" test -s "$TMP/ap/complexity/index.html"
    # -o NAME.html: one self-contained file, the same plots inlined as data: URIs
    expect "an aprof report as one file" 0 "" "" -o one.html r1.aprof
    check "no directory beside the one file" test ! -e "$TMP/complexity"
    ls "$TMP/ap/complexity" | grep '\.svg$' | sort >"$TMP/plots.dir"
    python3 - "$TMP/one.html" "$TMP/ap/complexity" >"$TMP/inline.out" 2>&1 <<'PY'
import base64, os, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
d = sys.argv[2]
imgs = re.findall(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]*)">', html)
svgs = [base64.b64decode(b).decode("utf-8") for _, b in imgs]
files = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
want = {}
for f in files:
    want[f] = open(os.path.join(d, f), encoding="utf-8").read()
# every plot of the directory is inlined byte for byte, and nothing else
missing = [f for f in files if want[f] not in svgs]
print(len(imgs), len(files), missing)
# no reference to a file beside the page
print(re.findall(r'(?:src|href)="(?!data:|#|https?:)[^"]+"', html))
print('"isort" in ranking:', "isort" in re.search(r'<pre id="complexity">(.*?)</pre>', html, re.S).group(1))
PY
    n=$(wc -l <"$TMP/plots.dir")
    if [ "$(sed -n 1p "$TMP/inline.out")" = "$n $n []" ] && [ "$n" -gt 0 ]; then
        ok "all $n plots of the directory form are inlined byte for byte"
    else not_ok "all plots of the directory form are inlined byte for byte"; diag <"$TMP/inline.out"; fi
    if [ "$(sed -n 2p "$TMP/inline.out")" = "[]" ]; then ok "the one file refers to no file beside it"
    else not_ok "the one file refers to no file beside it"; diag <"$TMP/inline.out"; fi
    if [ "$(sed -n 3p "$TMP/inline.out")" = '"isort" in ranking: True' ]; then
        ok "the one file has the complexity ranking"
    else not_ok "the one file has the complexity ranking"; diag <"$TMP/inline.out"; fi
fi

# the generated asset header is up to date
if command -v clang-format >/dev/null 2>&1; then
    if sh "$ROOT/assets/embed.sh" --stdout | cmp -s - "$ROOT/src/report/html_assets.h"; then
        ok "src/report/html_assets.h matches assets/ (sh assets/embed.sh)"
    else not_ok "src/report/html_assets.h matches assets/ (sh assets/embed.sh)"; fi
fi

# errors
expect "--help" 0 '^usage: tally report' "" --help
expect "no -o" 2 "" 'no output directory' a.out
expect "no input" 2 "" 'report: no profile given, and no tally.out' -o x
expect "unknown option" 2 "" "unknown option '--bogus'" -o x --bogus a.out
expect "bad --max-functions" 2 "" 'max-functions wants a positive number' -o x --max-functions=0 a.out
expect "bad --max-source" 2 "" 'max-source wants a whole number' -o x --max-source=-1 a.out
expect "missing input" 1 "" 'nope.out' -o miss nope.out
check "no page after a failed read" test ! -e "$TMP/miss/index.html"
: >"$TMP/file"
expect "-o names a file" 1 "" 'file: exists and is not a directory' -o file a.out
expect "unknown --event (usage: exit 2)" 2 "" "no event 'Bc'" -o ev --event=Bc a.out
printf 'events: Ir\nfn=f\n1 x\n' >"$TMP/bad.out"
expect "bad input: FILE:LINE" 1 "" 'bad.out:3' -o bad bad.out
check "no page after bad input" test ! -e "$TMP/bad/index.html"

# a program built with -pg and its gmon.out: the page of the gprof analysis
. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    expect "report of PROGRAM gmon.out" 0 "" "" -o gm "$GEX/cycles" "$GPROF/cycles.gmon"
    check "the gmon page: event Time, function burn" \
        sh -c "grep -q '\"Time\"' '$TMP/gm/index.html' && grep -q 'burn' '$TMP/gm/index.html'"
else
    not_ok "build the gprof examples"
    diag <"$TMP/make.log"
fi
