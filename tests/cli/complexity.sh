#!/bin/sh
# tally complexity: usage errors, bad input, JSON validity and content
# (checked against an independent fit in complexity_check.py), merging,
# plots (well-formed, self-contained SVG and HTML), atomic output.
. "$(dirname "$0")/../lib.sh"
R1="$ROOT/tests/golden/complexity/r1.aprof"
CHECK="$ROOT/tests/cli/complexity_check.py"

# --- usage ---
expect_run "--help" 0 "usage: tally complexity" "" complexity --help
expect_run "no report" 2 "" "complexity: no reports given" complexity
expect_run "unknown option" 2 "" "unknown option '--bogus'" complexity --bogus "$R1"
expect_run "bad --min-points" 2 "" "min-points wants a whole number, not 'x'" \
    complexity --min-points=x "$R1"
expect_run "bad --min-share" 2 "" "min-share wants a percentage" complexity --min-share=101 "$R1"
expect_run "bad --min-r2" 2 "" "min-r2 wants a number from 0 to 1" complexity --min-r2=2 "$R1"
expect_run "--min-r2 keeps good fits" 0 "^ +1 +2\.00 .* isort$" "" complexity --min-r2=0.9996 "$R1"
if grep -q "operator<<" "$TMP/out" || ! grep -q "R^2 >= 0.9996" "$TMP/out"; then
    not_ok "--min-r2 drops a poorer fit (R^2 0.9995)"; else ok "--min-r2 drops a poorer fit (R^2 0.9995)"; fi
expect_run "bad --top" 2 "" "top wants a positive whole number" complexity --top=0 "$R1"
expect_run "bad --cost" 2 "" "unknown cost 'total'" complexity --cost=total "$R1"
expect_run "bad --format" 2 "" "unknown format 'xml'" complexity --format=xml "$R1"
expect_run "missing value" 2 "" "option '--include' needs a value" complexity "$R1" --include
expect_run "bad --include pattern" 2 "" "bad pattern '\(': missing closing parenthesis" \
    complexity --include='(' "$R1"
expect_run "bad --routine pattern" 2 "" "bad pattern '\[z-a\]'" complexity --routine='[z-a]' "$R1"
expect_run "listed as a command" 0 "complexity +cost growth" "" --help

# --- bad input ---
expect_run "missing report" 1 "" "^tally: $TMP/nosuch.aprof: " complexity "$TMP/nosuch.aprof"
printf 'v 4\nr "f" "/x" 1\np 1 2 3\n' >"$TMP/short.aprof"
expect_run "malformed report: FILE:LINE" 1 "" "^tally: $TMP/short.aprof:3: " \
    complexity "$TMP/short.aprof"
printf 'v 4\na ./other\nr "f" "/x" 1\np 1 2 3 3 3 9 1 3 3 3 3 9\n' >"$TMP/other.aprof"
expect_run "reports of different programs" 1 "" "^tally: .*other.aprof" \
    complexity "$R1" "$TMP/other.aprof"

# --- text ---
expect_run "text ranking" 0 "^ +1 +2\.00 +1\.0000 +n\^2 +12 +18 +304,140 +25\.31% +isort$" "" \
    complexity "$R1"
expect_run "--routine shows the tuple table" 0 "^ +120 +2 +43,220 +43,160\.0 +43,100$" "" \
    complexity --routine='^isort$' "$R1"
expect_run "--routine without a match warns" 0 "Rank" "warning: no routine matches --routine" \
    complexity --routine=nothing "$R1"

# --- JSON: valid, and equal to an independent computation ---
run_tally 0 "" "" complexity --format=json --min-share=0 "$R1"
cp "$TMP/out" "$TMP/r1.json"
check "JSON is valid (python3 -m json.tool)" python3 -m json.tool "$TMP/r1.json"
check "JSON: totals, shares, tuples, fits and classes" python3 "$CHECK" "$R1" "$TMP/r1.json" \
    isort=n^2 "msort=n log n" scan=n "bsearch=log n" helper=1
run_tally 0 "" "" complexity --format=json --min-points=1 --routine=. --cost=self "$R1"
check "JSON with every routine, self costs, is valid" python3 -m json.tool "$TMP/out"
if grep -q '"name": "operator<<(int) \\"&x\\""' "$TMP/out"; then ok "JSON escapes names"; else
    not_ok "JSON escapes names"; fi
run_tally 0 "" "" complexity --format=json --include=nothing "$R1"
check "JSON with an empty ranking is valid" python3 -m json.tool "$TMP/out"

# --- no clear class: the reason in the text, the JSON, the plots and the page ---
# unclear.aprof's c lines say which class or reason each routine must get, and why
U="$ROOT/tests/golden/complexity/unclear.aprof"
run_tally 0 "" "" complexity --format=json --min-share=0 --min-points=1 "$U"
cp "$TMP/out" "$TMP/u.json"
check "JSON (version 2): each routine's class or reason, and the ranking by class then cost" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 2, d["version"]
got = {r["name"]: (r["class"], r["reason"]) for r in d["ranking"]}
want = {"grow": ("n^2", None), "log": ("log n", None), "flat": ("1", None),
        "bands": (None, "two clusters"), "down": (None, "negative exponent (-1.00)"),
        "few": (None, "too few sizes (4)"), "narrow": (None, "n range too narrow (100 to 150)")}
for k, v in want.items():
    assert got[k] == v, (k, got[k], v)
find = [n for n in got if n.startswith("std::_Rb_tree")][0]
assert got[find] == ("n", None), got[find]
# n^2, n, log n, then 1, then the unclear ones by cost: 12,660 12,375 9,600 30
order = [r["name"] for r in d["ranking"]]
assert order == ["grow", find, "log", "flat", "down", "narrow", "bands", "few"], order
b = [r for r in d["ranking"] if r["name"] == "bands"][0]
assert b["nearest_class"] is not None and b["fit"]["status"] == "fitted"
c = b["checks"]
assert c["sizes"] == 8 and c["clusters"] == 2 and abs(c["cluster_ratio"] - 4) < 0.05, c
assert sorted(g["sizes"] for g in c["groups"]) == [4, 4], c["groups"]
assert all(abs(g["exponent"] - 1) < 0.01 for g in c["groups"]), c["groups"]  # 100n, 400n
' "$TMP/u.json"
expect_run "the text gives the reasons" 0 "no clear class: two clusters +8 +8 +9,600 +9\.60% +bands$" "" \
    complexity --min-share=0 --min-points=1 "$U"
expect_run "--plot of unclear.aprof" 0 "Rank" "" \
    complexity --min-share=0 --min-points=1 --plot="$TMP/uplots" "$U"
check "two clusters: the reason in the plot, a dashed curve per cluster, no one curve through both" \
    python3 -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
assert "no clear class: two clusters, 4.0 times apart at similar n" in texts, texts
curves = root.findall(".//%sg[@class=\"curve\"]" % ns)
assert len(curves) == 2 and all(c.get("stroke-dasharray") for c in curves), len(curves)
' "$TMP/uplots/r4-bands.svg"
check "a routine with a class: \"class: n^2\" and its curve in the plot" python3 -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
texts = ["".join(t.itertext()) for t in ET.parse(sys.argv[1]).getroot().iter(ns + "text")]
assert "class: n^2" in texts and "class n^2: cost = 0 + 10 * n^2" in texts, texts
' "$TMP/uplots/r0-grow.svg"
check "the page gives the reasons and the clusters" sh -c '
grep -q "<td>no clear class: two clusters</td>" "$1" &&
grep -q "Clusters: two, 4.0 times apart at similar n: 4 sizes from 1 to 7" "$1" &&
grep -q "; no clear class: n range too narrow (100 to 150);" "$1"' _ "$TMP/uplots/index.html"
check "a long C++ name: the whole of it in the tooltip, its start and its own name shown" python3 -c '
import glob, json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
name = [r["name"] for r in json.load(open(sys.argv[1]))["ranking"] if r["name"].startswith("std::")][0]
for f in glob.glob(sys.argv[2] + "/r3-*.svg"):
    root = ET.parse(f).getroot()
    assert root.find(ns + "title").text == name, f
    lines = root.findall(".//%stext[@class=\"title\"]" % ns)
    assert 1 <= len(lines) <= 3, len(lines)
    assert all(t.find(ns + "title").text == name for t in lines)
    shown = "".join(t.find(ns + "title").tail for t in lines)
    assert len(shown) < len(name) / 3, shown  # templates collapsed: 749 characters are too many
    assert shown.startswith("std::_Rb_tree<") and "::find(" in shown, shown
' "$TMP/u.json" "$TMP/uplots"

# --- the default --min-share (1%): noise is left out, and counted ---
run_tally 0 "" "" complexity --format=json "$R1"
cp "$TMP/out" "$TMP/r1d.json"
check "default: the ranking is the routines of at least 1% (from the --min-share=0 JSON)" python3 -c '
import json, sys
full = json.load(open(sys.argv[1])); dflt = json.load(open(sys.argv[2]))
def names(d): return [r["name"] for r in d["ranking"]]
want = [r["name"] for r in full["ranking"] if r["share"] >= 1.0]
assert names(dflt) == want, (names(dflt), want)
assert len(want) < len(names(full)), "nothing was left out"
assert dflt["filters"]["min_share"] == 1, dflt["filters"]
' "$TMP/r1.json" "$TMP/r1d.json"
# left out for the share: ranked with --min-share=0 (at least 5 sizes), under 1%
nleft=$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["ranking"] if r["share"] < 1.0))' "$TMP/r1.json")
expect_run "default: the text says how many were left out ($nleft)" 0 "share >= 1%: $nleft below it left out" "" \
    complexity "$R1"
expect_run "default --plot" 0 "Rank" "" complexity --plot="$TMP/dplots" "$R1"
check "default: the plots page says what was left out" \
    grep -q "Left out: $nleft routines under 1% of the program cost" "$TMP/dplots/index.html"

# --- not an aprof report ---
printf 'events: Ir\nfn=main\n1 10\n' >"$TMP/cg.out"
expect_run "a callgrind file: not an aprof report" 1 "" "^tally: .*cg.out: not an aprof report" complexity "$TMP/cg.out"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' >"$TMP/pic.png"
expect_run "a PNG: not an aprof report, no raw bytes" 1 "" "^tally: .*pic.png: not an aprof report \\(" \
    complexity "$TMP/pic.png"
check "the PNG's bytes are not echoed" sh -c "! grep -q PNG '$TMP/err'"

# --- merged reports: calls and costs add up, shares stay ---
run_tally 0 "" "" complexity --format=json --min-share=0 "$R1" "$R1"
cp "$TMP/out" "$TMP/r11.json"
check "two reports are merged" python3 -c '
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
assert two["program_cost"] == 2 * one["program_cost"], "k"
for a, b in zip(one["ranking"], two["ranking"]):
    assert a["name"] == b["name"], a["name"]
    assert b["calls"] == 2 * a["calls"] and b["cost"] == 2 * a["cost"], a["name"]
    assert abs(a["share"] - b["share"]) < 1e-9, a["name"]
    assert abs(a["fit"]["c"] - b["fit"]["c"]) < 1e-9, a["name"]
' "$TMP/r1.json" "$TMP/r11.json"

# --- output file ---
expect_run "-o writes the file" 0 "" "" complexity -o "$TMP/out.txt" "$R1"
if grep -q "isort" "$TMP/out.txt"; then ok "-o content"; else not_ok "-o content"; fi
expect_run "-o into a missing directory fails" 1 "" "^tally: " \
    complexity -o "$TMP/no/such/dir/out.txt" "$R1"
if [ -e "$TMP/no" ]; then not_ok "nothing is left behind"; else ok "nothing is left behind"; fi

# --- plots ---
P="$TMP/plots"
expect_run "--plot" 0 "Rank" "" complexity --min-share=0 --plot="$P" --routine=tiny "$R1"
n_svg=$(ls "$P"/*.svg 2>/dev/null | wc -l)
# 6 ranked routines and tiny (not ranked), two plots each
if [ "$n_svg" = 14 ]; then ok "one cost and one frequency plot per routine"; else
    not_ok "one cost and one frequency plot per routine"; echo "$n_svg SVG files" | diag; fi
check "every SVG is well-formed XML" python3 -c '
import sys, xml.etree.ElementTree as ET
for f in sys.argv[1:]:
    root = ET.parse(f).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f
' "$P"/*.svg
check "the cost plot has 3 series, the fit and tooltips" python3 -c '
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
series = root.findall(".//s:g[@class=\"series\"]", ns)
assert len(series) == 3, len(series)
for g in series:
    assert len(g.findall("s:circle", ns)) == 12, "12 sizes"
tips = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
assert any(t.startswith("n = 120, 2 calls: worst 43,220, average 43,160.0, best 43,100") for t in tips), tips[:3]
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert "cost = 20 + 3 * n^2.000" in texts, texts
assert len(root.findall(".//s:g[@class=\"curve\"]", ns)) == 2
' "$P/r1-isort.svg"
check "the frequency plot has one stem per size" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
lines = root.findall(".//{http://www.w3.org/2000/svg}g[@class=\"series\"]/{http://www.w3.org/2000/svg}line")
assert len(lines) == 16, len(lines)
' "$P/r3-bsearch-freq.svg"
check "index.html links every plot" sh -c '
for f in "$1"/*.svg; do grep -q "href=\"$(basename "$f")\"" "$1/index.html" || exit 1; done' _ "$P"
if grep -Eiq '(src|href)="(https?:)?//' "$P/index.html" "$P"/*.svg ||
    grep -Eiq '<script|@import|url\(http' "$P/index.html" "$P"/*.svg; then
    not_ok "plots are self-contained"; else ok "plots are self-contained"; fi
check "index.html is well-formed" python3 -c '
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []
    def handle_starttag(self, tag, a):
        if tag not in ("meta", "img", "br"): self.stack.append(tag)
    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, tag
p = P(); p.feed(open(sys.argv[1]).read()); assert not p.stack, p.stack
' "$P/index.html"
expect_run "--plot --log" 0 "Rank" "" complexity --min-share=0 --log --plot="$TMP/logplots" "$R1"
check "log-scale SVGs are well-formed" python3 -c '
import sys, xml.etree.ElementTree as ET
for f in sys.argv[1:]: ET.parse(f)
' "$TMP"/logplots/*.svg
if grep -q "not positive: not shown on the log scale" "$TMP/logplots/r7-operator___int____x_.svg"
then ok "log scale says a size 0 is not shown"; else not_ok "log scale says a size 0 is not shown"; fi
# a routine name that is not UTF-8 (Latin-1 e-acute, an overlong '/'), with
# markup and a control character: the plots and the page still parse
printf 'v 4\nr "caf\351\300\257<x>&\001" "img" 0\np 0 1 1 1 1 1 1 1 1 1 1 1\np 0 2 2 2 2 4 1 2 2 2 2 4\np 0 4 4 4 4 16 1 4 4 4 4 16\n' \
    >"$TMP/latin1.aprof"
expect_run "--plot of a name that is not UTF-8" 0 "Rank" "" \
    complexity --min-points=1 --plot="$TMP/l1plots" "$TMP/latin1.aprof"
check "plots of a name that is not UTF-8 are well-formed, each bad byte shown as '?'" python3 -c '
import sys, xml.etree.ElementTree as ET
texts = []
for f in sys.argv[1:]:
    texts += ["".join(e.itertext()) for e in ET.parse(f).getroot().iter()]
assert any("caf???<x>&" in t for t in texts), texts
' "$TMP"/l1plots/*.svg
check "its index.html is UTF-8" python3 -c '
import sys; assert "caf???&lt;x&gt;&amp;" in open(sys.argv[1], encoding="utf-8").read()' \
    "$TMP/l1plots/index.html"
: >"$TMP/afile"
expect_run "--plot onto a file fails" 1 "" "afile: not a directory" \
    complexity --plot="$TMP/afile" "$R1"

# --- reports of examples/complexity recorded by tally record (when the tool works) ---
# Recorded with the plain build (its tool sits beside it), analysed with $TALLY
# (which may be the ASan build).
CX=$ROOT/examples/complexity
REC=$ROOT/build/tally
recorded=0
if command -v valgrind >/dev/null 2>&1 && [ -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] &&
    [ -x "$REC" ] && make -s -C "$CX" CC=gcc >"$TMP/make.out" 2>&1; then
    recorded=1
    for p in isort scan msort matmul bsearch rsum isortmix throw; do
        (cd "$TMP" && "$REC" record -q --input-sensitive=yes --aprof-out-file="$TMP/$p.aprof" \
            --out-file="$TMP/$p.cg" -- "$CX/$p") >/dev/null 2>"$TMP/$p.err" || cat "$TMP/$p.err"
    done >"$TMP/rec.err"
    if [ -s "$TMP/rec.err" ]; then
        not_ok "record examples/complexity"
        diag <"$TMP/rec.err"
        recorded=0
    fi
fi
if [ "$recorded" = 1 ]; then
    # ROUTINE REPORT EXPONENT CLASS ("-": any class): exponent within 0.1, in terms of RMS
    # (binary search: RMS counts the probes, so its cost is linear in RMS)
    for want in "isort isort 2 n^2" "scan scan 1 n" "msort msort 1.1 n log n" \
        "mul matmul 1.5 -" "find bsearch 1 n" "rsum rsum 1 n"; do
        set -- $want
        r=$1 rep=$2 c=$3
        shift 3
        cls="$*"
        run_tally 0 "" "" complexity --format=json --include="^$r\$" "$TMP/$rep.aprof"
        check "recorded $rep: $r grows as n^$c ($cls)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranking"][0]
assert r["name"] == sys.argv[2], r["name"]
assert abs(r["fit"]["c"] - float(sys.argv[3])) < 0.1, r["fit"]
assert sys.argv[4] == "-" or r["class"] == sys.argv[4], r["class"]
' "$TMP/out" "$r" "$c" "$cls"
    done
    # calls in two clusters: sorted against reversed input (20 sizes each: every other n of
    # 10..400), and calls that throw (every third n of 8..2000: 28 of 84 sizes)
    for want in "isortmix ^isort$ 20 20" "throw ::checked_sum 28 56"; do
        set -- $want
        run_tally 0 "" "" complexity --format=json --include="$2" "$TMP/$1.aprof"
        check "recorded $1: two clusters of $3 and $4 sizes, no class" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["ranking"]
assert len(r) == 1, [x["name"] for x in r]
r = r[0]
assert r["class"] is None and r["reason"] == "two clusters", (r["class"], r["reason"])
g = sorted(x["sizes"] for x in r["checks"]["groups"])
assert g == sorted(int(a) for a in sys.argv[2:4]), g
' "$TMP/out" "$3" "$4"
    done
    run_tally 0 "" "" complexity --format=json --include='^(isort|main)$' --min-points=1 \
        "$TMP/isort.aprof"
    cp "$TMP/out" "$TMP/isort.json"
    check "recorded isort: JSON equals an independent computation" python3 "$CHECK" \
        "$TMP/isort.aprof" "$TMP/isort.json" isort=n^2
else
    ok "skipped: no Valgrind, tool or gcc for examples/complexity (or recording failed)"
fi

echo "1..$TESTN"
