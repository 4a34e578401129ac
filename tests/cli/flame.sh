#!/bin/sh
# tally flame: the SVG is parsed with python3's xml.etree and every frame's
# width is compared with the cost worked out by hand for small profiles
# written here (exact from contexts files, with whole stacks where a
# function recurs; estimated from call arcs with call-count shares); icicle
# layout, --minwidth, --event, colours by cost, differential colours on a
# hand-made pair, the script (node --check when node is installed, and run
# against a small stand-in DOM: search share without double counting nested
# matches, which on whole stacks is a function's cost on the stack, case
# toggle, zoom), inputs summed,
# gmon.out through tally gprof --callgrind-out and as PROGRAM GMON (also on
# either side of --diff), usage and input errors, no
# output file left behind on failure.
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" flame "$@"
}

# ---------------------------------------------------------------- inputs
cat >"$TMP/a.ctx" <<'EOF'
# tally contexts 1
creator: tally-record 0.1
cmd: ./a.out
events: Ir
ob 1 /tmp/a.out
fl 1 a.c
fn 1 1 1 main
fn 2 1 1 work
x 1 0 1 1 120
x 2 1 2 3 900
totals: 1020
EOF
# Estimated: main(10) -> a(20) 1 call, -> b(30) 1 call; a -> c 1 call,
# b -> c 3 calls; c(40) -> e(8) 1 call. c splits 1/4 : 3/4.
cat >"$TMP/arcs.out" <<'EOF'
# callgrind format
events: Ir Dr
fl=t.c
fn=main
1 10 1
cfn=a
calls=1 1
1 32
cfn=b
calls=1 1
1 66
fn=a
1 20
cfn=c
calls=1 1
1 12
fn=b
1 30 4
cfn=c
calls=3 1
1 36
fn=c
1 40
cfn=e
calls=1 1
1 8
fn=e
1 8
EOF
# the costs by hand (Ir), total 108
cat >"$TMP/arcs.want" <<'EOF'
all 108
all;main 108
all;main;a 32
all;main;a;c 12
all;main;a;c;e 2
all;main;b 66
all;main;b;c 36
all;main;b;c;e 6
EOF

# frames.py SVG: one line per frame "STACK WIDTH_PX DATA_W FILL Y", checking
# well-formedness on the way (xml.etree raises on bad XML).
cat >"$TMP/frames.py" <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
path = []
for g in root.iter(NS + "g"):
    if g.get("class") != "frame":
        continue
    d = int(g.get("data-depth"))
    path = path[:d] + [g.get("data-name").replace(" ", "_")]
    r = g.find(NS + "rect")
    print(";".join(path), r.get("width"), g.get("data-w"), r.get("fill"), r.get("y"))
EOF
frames() { python3 "$TMP/frames.py" "$1"; }

# width_check WANT FRAMES: every stack of WANT has width cost/total*1180
width_check() {
    python3 - "$1" "$2" <<'EOF'
import sys
want = dict(l.split() for l in open(sys.argv[1]) if l.strip())
got = {}
for l in open(sys.argv[2]):
    f = l.split()
    got[f[0]] = float(f[1])
total = float(want["all"])
bad = []
for k, v in want.items():
    px = float(v) / total * 1180
    if k not in got:
        bad.append("missing " + k)
    elif abs(got[k] - px) > 0.006:
        bad.append("%s: %s px, expected %.3f" % (k, got[k], px))
for k in got:
    if k not in want:
        bad.append("unexpected " + k)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# ------------------------------------------------------------ exact graph
expect "contexts file to -o" 0 "" "" a.ctx -o a.svg
check "well-formed SVG" python3 -c "import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])" "$TMP/a.svg"
frames "$TMP/a.svg" >"$TMP/a.frames"
printf 'all 1020\nall;main 1020\nall;main;work 900\n' >"$TMP/a.want"
check "exact widths: 1180 px * cost / 1020" width_check "$TMP/a.want" "$TMP/a.frames"
check "work is 1041.18 px wide" grep -q '^all;main;work 1041.18 900 ' "$TMP/a.frames"
check "exact: subtitle says so" grep -Eq '<text id="subtitle"[^>]*>exact: recorded calling contexts<' "$TMP/a.svg"
check "exact: data-kind" grep -q 'data-kind="exact"' "$TMP/a.svg"
check "hover text: name, file, object, costs and shares, calls" \
    grep -q '<title>work (a.c, /tmp/a.out)$' "$TMP/a.svg"
check "hover text: costs" grep -q '^Ir total 900 (88.24%), self 900 (88.24%), calls 3</title>' "$TMP/a.svg"

# whole stacks: eval -> callobj -> vector -> eval ..., eval -> eval, number
# in four branches (the tree of test_cct.c, Ir self costs 10, 20, ..., 80
# down the chain): each frame is as wide as its context's inclusive cost
cat >"$TMP/rec.ctx" <<'EOF'
# tally contexts 1
events: Ir
fn 1 0 0 main
fn 2 0 0 eval
fn 3 0 0 callobj
fn 4 0 0 vector
fn 5 0 0 number
x 1 0 1 1 10
x 2 1 2 2 20
x 3 2 3 2 30
x 4 3 4 2 40
x 5 4 2 3 50
x 6 5 3 1 60
x 7 6 4 1 70
x 8 7 2 1 80
x 9 8 5 1 5
x 10 5 5 2 7
x 11 2 5 1 9
x 12 1 5 1 11
x 13 8 2 4 13
totals: 405
EOF
expect "contexts with a function several times on a stack" 0 "" "" rec.ctx -o rec.svg
frames "$TMP/rec.svg" >"$TMP/rec.frames"
cat >"$TMP/rec.want" <<'EOF'
all 405
all;main 405
all;main;eval 384
all;main;number 11
all;main;eval;callobj 355
all;main;eval;number 9
all;main;eval;callobj;vector 325
all;main;eval;callobj;vector;eval 285
all;main;eval;callobj;vector;eval;callobj 228
all;main;eval;callobj;vector;eval;number 7
all;main;eval;callobj;vector;eval;callobj;vector 168
all;main;eval;callobj;vector;eval;callobj;vector;eval 98
all;main;eval;callobj;vector;eval;callobj;vector;eval;eval 13
all;main;eval;callobj;vector;eval;callobj;vector;eval;number 5
EOF
check "whole stacks: widths of every context, recursion and all" width_check "$TMP/rec.want" "$TMP/rec.frames"

expect "standard output by default" 0 "^<\?xml" "" a.ctx
expect "two files are added up (exact)" 0 'data-name="work" data-x="0" data-w="1800"' "" a.ctx a.ctx
check "summed: still exact" grep -q 'data-kind="exact"' "$TMP/out"

# -------------------------------------------------------- estimated graph
expect "callgrind file" 0 "" "" arcs.out -o arcs.svg
frames "$TMP/arcs.svg" >"$TMP/arcs.frames"
check "estimated widths (the arcs' inclusive costs: a->c 12, b->c 36; by hand)" width_check "$TMP/arcs.want" "$TMP/arcs.frames"
check "estimated: subtitle names the method" \
    grep -q '<text id="subtitle"[^>]*>estimated from call arcs: .*in proportion to the inclusive costs of their calls' "$TMP/arcs.svg"
check "estimated: data-kind" grep -q 'data-kind="estimated"' "$TMP/arcs.svg"

expect "--event=Dr" 0 "" "" --event=Dr arcs.out -o dr.svg
frames "$TMP/dr.svg" >"$TMP/dr.frames"
printf 'all 5\nall;main 5\nall;main;b 4\n' >"$TMP/dr.want"
check "--event=Dr widths" width_check "$TMP/dr.want" "$TMP/dr.frames"

# flame: root at the bottom (y = height - 30 - 16); icicle: root at y 64
H=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' "$TMP/arcs.svg")
check "flame: root frame at the bottom" grep -q "^all 1180.00 108 [^ ]* $((H - 46)).0\$" "$TMP/arcs.frames"
expect "--icicle" 0 "" "" --icicle arcs.out -o ice.svg
frames "$TMP/ice.svg" >"$TMP/ice.frames"
check "icicle: root at the top, main below it" sh -c \
    "grep -q '^all 1180.00 108 [^ ]* 64.0\$' '$TMP/ice.frames' && grep -q '^all;main 1180.00 108 [^ ]* 80.0\$' '$TMP/ice.frames'"
check "icicle: default title" grep -q '<text id="title"[^>]*>Icicle Graph<' "$TMP/ice.svg"

# --minwidth: 10% of 108 = 10.8 drops the two e frames (2 and 6)
expect "--minwidth=10%" 0 "" "" --minwidth=10% arcs.out -o mw.svg
{ frames "$TMP/mw.svg" | cut -d' ' -f1 | tr '\n' ' '; echo; } >"$TMP/mw.list"
echo "all all;main all;main;a all;main;a;c all;main;b all;main;b;c " >"$TMP/mw.want"
same_text "--minwidth=10% leaves out frames under 10.8" "$TMP/mw.want" "$TMP/mw.list"
# 200 px = 18.3 of 108: a/c (12) goes, b/c (36) stays
expect "--minwidth=200 (pixels)" 0 "" "" --minwidth=200 arcs.out -o mw2.svg
{ frames "$TMP/mw2.svg" | cut -d' ' -f1 | tr '\n' ' '; echo; } >"$TMP/mw2.list"
echo "all all;main all;main;a all;main;b all;main;b;c " >"$TMP/mw2.want"
same_text "--minwidth=200 px" "$TMP/mw2.want" "$TMP/mw2.list"

# --colors=cost: c under b has the largest self cost (30) -> 235-200 = 35;
# c under a (10): 235 - 200/3 = 168.33 -> 168; the root (0): 235
expect "--colors=cost" 0 "" "" --colors=cost arcs.out -o cost.svg
frames "$TMP/cost.svg" >"$TMP/cost.frames"
check "colour by cost: largest self" grep -q '^all;main;b;c [^ ]* 36 rgb(255,35,35) ' "$TMP/cost.frames"
check "colour by cost: a third of it" grep -q '^all;main;a;c [^ ]* 12 rgb(255,168,168) ' "$TMP/cost.frames"
check "colour by cost: no self cost" grep -q '^all [^ ]* 108 rgb(255,235,235) ' "$TMP/cost.frames"
expect "--title is escaped" 0 "" "" "--title=a<b & \"c\"" a.ctx -o t.svg
check "escaped title parses back" python3 -c "
import xml.etree.ElementTree as E,sys
r=E.parse(sys.argv[1]).getroot()
t=[e for e in r.iter('{http://www.w3.org/2000/svg}text') if e.get('id')=='title'][0]
sys.exit(0 if t.text=='a<b & \"c\"' else 1)" "$TMP/t.svg"

# ------------------------------------------------------------ differential
# OLD: main 10, main/w 10, main/y 40. NEW: main 10, main/w 30, main/x 5, main/y 10.
cat >"$TMP/old.ctx" <<'EOF'
# tally contexts 1
events: Ir
fn 1 0 0 main
fn 2 0 0 w
fn 3 0 0 y
x 1 0 1 1 10
x 2 1 2 1 10
x 3 1 3 1 40
totals: 60
EOF
cat >"$TMP/new.ctx" <<'EOF'
# tally contexts 1
events: Ir
fn 1 0 0 main
fn 2 0 0 w
fn 3 0 0 y
fn 4 0 0 x
x 1 0 1 1 10
x 2 1 2 1 30
x 3 1 3 1 10
x 4 1 4 1 5
totals: 55
EOF
expect "--diff OLD NEW" 0 "" "" --diff old.ctx new.ctx -o diff.svg
frames "$TMP/diff.svg" >"$TMP/diff.frames"
# rel = (new-old)/max; shade = round(215 - 195*sqrt|rel|): w 10->30 rel 2/3 -> 56,
# x new rel 1 -> 20, y 40->10 rel -3/4 -> 46; unchanged grey 225
check "diff: widths from NEW (55)" grep -q '^all;main 1180.00 55 ' "$TMP/diff.frames"
check "diff: unchanged main is grey" grep -q '^all;main [^ ]* 55 rgb(225,225,225) ' "$TMP/diff.frames"
check "diff: w grew 10 -> 30: red 56" grep -q '^all;main;w [^ ]* 30 rgb(255,56,56) ' "$TMP/diff.frames"
check "diff: x is new: full red 20" grep -q '^all;main;x [^ ]* 5 rgb(255,20,20) ' "$TMP/diff.frames"
check "diff: y shrank 40 -> 10: blue 46" grep -q '^all;main;y [^ ]* 10 rgb(46,46,255) ' "$TMP/diff.frames"
check "diff: old self cost in the data" grep -q 'data-name="y" [^>]*data-old="40"' "$TMP/diff.svg"
check "diff: subtitle says red grew, blue shrank" grep -q 'red: grew, blue: shrank' "$TMP/diff.svg"
check "diff: frames have an outline" grep -q 'fill="rgb(225,225,225)" rx="2" ry="2" stroke="rgb(150,150,150)"' "$TMP/diff.svg"
check "diff: a legend (new, doubled, unchanged, halved, gone)" sh -c "grep -o '<g id=\"legend\">.*</g>' '$TMP/diff.svg' |
    grep '>new<' | grep '>doubled<' | grep '>unchanged<' | grep '>halved<' | grep -q '>gone<'"
# the legend's shades are the formula's: doubled = rel 1/2 -> 77, +10% = rel 1/11 -> 156
check "diff: legend shades follow the formula" sh -c "grep -q 'fill=\"rgb(255,77,77)\"[^>]*/><text[^>]*>doubled<' '$TMP/diff.svg' &&
    grep -q 'fill=\"rgb(255,156,156)\"[^>]*/><text[^>]*>+10%<' '$TMP/diff.svg'"
# --negate: widths from OLD (60: main 10, w 10, y 40); y, which lost 30, is wide;
# x (only in NEW) is not drawn; the colours still say NEW against OLD
expect "--diff --negate OLD NEW" 0 "" "" --diff --negate old.ctx new.ctx -o neg.svg
frames "$TMP/neg.svg" >"$TMP/neg.frames"
check "negate: widths from OLD (60)" grep -q '^all;main 1180.00 60 ' "$TMP/neg.frames"
check "negate: y (40 in OLD) is drawn 40 wide, blue 46" grep -q '^all;main;y [^ ]* 40 rgb(46,46,255) ' "$TMP/neg.frames"
check "negate: w still red 56 (it grew)" grep -q '^all;main;w [^ ]* 10 rgb(255,56,56) ' "$TMP/neg.frames"
check "negate: x (only in NEW) is not drawn" sh -c "! grep -q '^all;main;x ' '$TMP/neg.frames'"
check "negate: the subtitle says widths from OLD" grep -q 'widths: old, --negate' "$TMP/neg.svg"
# the subtitle is narrowed to the picture (1200 - 2 * 10) only when it would
# not fit: exact stacks' short line is left alone; estimated stacks' long
# explanation at 400 wide is squeezed
check "subtitle: a short one keeps its natural length" sh -c "! grep -q '<text id=\"subtitle\"[^>]*textLength' '$TMP/neg.svg'"
expect "--diff --width=400" 0 "" "" --diff --width=400 old.ctx new.ctx -o narrow.svg
check "subtitle: a long one is narrowed to width - 20 (380)" grep -q '<text id="subtitle" x="200.0" y="42" textLength="380" lengthAdjust="spacingAndGlyphs">' "$TMP/narrow.svg"
check "negate: the tooltip gives the self cost after" grep -q 'self after 10, change -30' "$TMP/neg.svg"
expect "--negate without --diff" 2 "" "--negate draws the widths of OLD: it needs --diff" --negate a.ctx

# ----------------------------------------------------------------- script
python3 - "$TMP/arcs.svg" >"$TMP/flame.js" <<'EOF'
import sys, re
s = open(sys.argv[1]).read()
m = re.search(r'<script type="text/ecmascript"><!\[CDATA\[\n(.*?)\]\]></script>', s, re.S)
print(m.group(1) if m else "")
EOF
check "script present (search, zoom, case toggle)" sh -c \
    "grep -q 'new RegExp' '$TMP/flame.js' && grep -q 'window.tallyFlame' '$TMP/flame.js' && grep -q 'ignoreCase' '$TMP/flame.js'"
if command -v node >/dev/null 2>&1; then
    check "node --check accepts the script" node --check "$TMP/flame.js"
    # A stand-in DOM built from the SVG's frames, enough for the script.
    python3 - "$TMP/arcs.svg" >"$TMP/frames.json" <<'EOF'
import sys, json, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
out = {"svg": dict(root.attrib), "frames": []}
for g in root.iter(NS + "g"):
    if g.get("class") == "frame":
        out["frames"].append({"attrs": dict(g.attrib), "rect": dict(g.find(NS + "rect").attrib),
                              "title": g.find(NS + "title").text})
print(json.dumps(out))
EOF
    cat >"$TMP/run.js" <<'EOF'
const fs = require('fs');
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
function el(attrs) {
  const e = {attrs: Object.assign({}, attrs), cls: new Set(), textContent: '', handlers: {},
    getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; },
    setAttribute(k, v) { this.attrs[k] = String(v); },
    addEventListener(t, f) { this.handlers[t] = f; },
    querySelector(s) { return this.children[s] || null; }, children: {}};
  e.classList = {add: c => e.cls.add(c), remove: c => e.cls.delete(c),
    toggle: (c, on) => on ? e.cls.add(c) : e.cls.delete(c), contains: c => e.cls.has(c)};
  return e;
}
const ids = {'tally-flame': el(data.svg)};
for (const id of ['details', 'matched', 'ignorecase', 'unzoom', 'search']) ids[id] = el({});
const gs = data.frames.map(f => {
  const g = el(f.attrs);
  g.children.rect = el(f.rect);
  g.children.text = el({});
  g.children.title = el({}); g.children.title.textContent = f.title;
  return g;
});
ids['tally-flame'].querySelectorAll = () => gs;
global.document = {getElementById: id => ids[id] || null};
global.window = {addEventListener() {}, prompt() { return null; }};
eval(fs.readFileSync(process.argv[3], 'utf8'));
const T = window.tallyFlame;
const byPath = {};
let path = [];
gs.forEach(g => { const d = +g.attrs['data-depth']; path = path.slice(0, d).concat([g.attrs['data-name']]);
  byPath[path.join(';')] = g; });
const out = [];
out.push('frames ' + T.frames);
out.push('a|c ' + T.search('^(a|c)$').toFixed(6));
out.push('matched text ' + ids.matched.textContent);
out.push('c only ' + T.search('^c$').toFixed(6));
out.push('A case-sensitive ' + T.search('^A$', false).toFixed(6));
out.push('A ignoring case ' + T.search('^A$', true).toFixed(6));
out.push('bad regex ' + T.search('(', false) + ' ' + ids.matched.textContent);
T.search('');
gs.forEach(g => g.handlers.click === undefined && out.push('no click handler'));
byPath['all;main;b'].handlers.click();
out.push('zoom b: b width ' + byPath['all;main;b'].children.rect.attrs.width);
out.push('zoom b: b/c width ' + byPath['all;main;b;c'].children.rect.attrs.width);
out.push('zoom b: a hidden ' + byPath['all;main;a'].cls.has('hide'));
out.push('zoom b: main is a faded parent ' + byPath['all;main'].cls.has('parent'));
ids.unzoom.handlers.click();
out.push('reset: a shown ' + !byPath['all;main;a'].cls.has('hide') + ', width ' +
         byPath['all;main;a'].children.rect.attrs.width);
console.log(out.join('\n'));
EOF
    # a (32) with c nested in it counted once, plus c under b (36): 68/108;
    # c alone: (12+36)/108; zoom into b (66): c is 36/66 of 1180 px
    cat >"$TMP/run.want" <<'EOF'
frames 8
a|c 0.629630
matched text Matched: 62.96%
c only 0.444444
A case-sensitive 0.000000
A ignoring case 0.296296
bad regex -1 bad regular expression
zoom b: b width 1180.00
zoom b: b/c width 643.64
zoom b: a hidden true
zoom b: main is a faded parent true
reset: a shown true, width 349.63
EOF
    if node "$TMP/run.js" "$TMP/frames.json" "$TMP/flame.js" >"$TMP/run.out" 2>&1; then
        same_text "script: search share, case toggle, zoom and reset" "$TMP/run.want" "$TMP/run.out"
    else
        not_ok "script runs"; diag <"$TMP/run.out"
    fi
    # whole stacks (rec.svg): nested matches count once, so a function's
    # share is its cost on the stack over the total: eval 384/405, callobj
    # 355/405, callobj|vector 355/405 (vector is always under callobj),
    # number 5+7+9+11 = 32/405, vector|number 325+9+11 = 345/405
    python3 - "$TMP/rec.svg" "$TMP/rec.json" "$TMP/run.js" "$TMP/rec.js" <<'EOF'
import sys, json, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
out = {"svg": dict(root.attrib), "frames": []}
for g in root.iter(NS + "g"):
    if g.get("class") == "frame":
        out["frames"].append({"attrs": dict(g.attrib), "rect": dict(g.find(NS + "rect").attrib),
                              "title": g.find(NS + "title").text})
json.dump(out, open(sys.argv[2], "w"))
js = open(sys.argv[3]).read()
js = js[:js.index("const out = [];")]
js += """const out = [];
for (const re of ['^eval$', '^callobj$', '^(callobj|vector)$', '^number$', '^(vector|number)$'])
  out.push(re + ' ' + T.search(re).toFixed(6) + ' ' + ids.matched.textContent);
console.log(out.join('\\n'));
"""
open(sys.argv[4], "w").write(js)
EOF
    cat >"$TMP/rec.jswant" <<'EOF'
^eval$ 0.948148 Matched: 94.81%
^callobj$ 0.876543 Matched: 87.65%
^(callobj|vector)$ 0.876543 Matched: 87.65%
^number$ 0.079012 Matched: 7.90%
^(vector|number)$ 0.851852 Matched: 85.19%
EOF
    if node "$TMP/rec.js" "$TMP/rec.json" "$TMP/flame.js" >"$TMP/rec.jsout" 2>&1; then
        same_text "script on whole stacks: the search share is the cost on the stack" \
            "$TMP/rec.jswant" "$TMP/rec.jsout"
    else
        not_ok "script runs on whole stacks"; diag <"$TMP/rec.jsout"
    fi
else
    echo "# SKIP: node is not installed: the script is not run"
fi

# the same in a real browser when Debian's chromium is installed
if command -v chromium >/dev/null 2>&1; then
    { echo '<!DOCTYPE html><html><head><title>none</title></head><body>'
      tail -n +2 "$TMP/arcs.svg"
      echo '<script>var T = window.tallyFlame, r = [T.frames, T.search("^(a|c)$").toFixed(4)];'
      echo 'T.zoom(5); r.push(document.querySelectorAll("g.frame.hide").length);'
      echo 'T.reset(); r.push(document.querySelectorAll("g.frame.hide").length);'
      echo 'document.title = "result " + r.join(" ");</script></body></html>'; } >"$TMP/page.html"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$TMP/page.html" \
        2>/dev/null | grep -o '<title>[^<]*</title>' >"$TMP/page.out"
    # frame 5 in document order is main/b: zooming hides all, main/a, a/c, a/c/e
    echo '<title>result 8 0.6296 3 0</title>' >"$TMP/page.want"
    same_text "chromium: the script runs (search share, zoom, reset)" "$TMP/page.want" "$TMP/page.out"
else
    echo "# SKIP: chromium is not installed: the script is not run in a browser"
fi

# --------------------------------------------------------- other inputs
printf 'desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./x\nevents: Ir\nfl=a.c\nfn=f\n1 30\nfn=g\n1 10\nsummary: 40\n' >"$TMP/c.cg"
expect "cachegrind file: one level" 0 "" "" c.cg -o c.svg
frames "$TMP/c.svg" >"$TMP/c.frames"
printf 'all 40\nall;f 30\nall;g 10\n' >"$TMP/c.want"
check "cachegrind widths" width_check "$TMP/c.want" "$TMP/c.frames"
check "cachegrind: subtitle says one level" grep -q 'one level of functions' "$TMP/c.svg"

. "$ROOT/tests/peer/gmon-profiles.sh"
if make_gmon_profiles >"$TMP/make.log" 2>&1; then
    expect_run "gmon.out through tally gprof --callgrind-out" 0 "Flat profile" "" \
        gprof -b --callgrind-out="$TMP/g.out" "$GEX/cycles" "$GPROF/cycles.gmon"
    rm -f "$TMP/out"
    expect "flame of the gprof profile" 0 "" "" --event=Time g.out -o g.svg
    check "gprof profile: well-formed, has main" sh -c \
        "python3 '$TMP/frames.py' '$TMP/g.svg' | grep -q ';main '"
    # the program and its gmon.out as inputs: the same analysis, the same frames
    expect "flame of PROGRAM gmon.out" 0 "" "" "$GEX/cycles" "$GPROF/cycles.gmon" -o g2.svg
    python3 "$TMP/frames.py" "$TMP/g.svg" | sort >"$TMP/g.frames"
    python3 "$TMP/frames.py" "$TMP/g2.svg" | sort >"$TMP/g2.frames"
    check "PROGRAM gmon.out: frames equal those of the --callgrind-out file" \
        sh -c "test -s '$TMP/g.frames' && cmp -s '$TMP/g.frames' '$TMP/g2.frames'"
    expect "a gmon.out without its program" 1 "" "a gmon.out file needs its program" \
        "$GPROF/cycles.gmon"
    # --diff with gmon inputs: each side is a profile, or a program and its
    # gmon.out files. Widths come from NEW (the frames of g2.svg); the same
    # analysis on both sides leaves every frame grey; a shorter OLD run
    # (cycles 100 against 300 loops) colours some frames.
    cut -d' ' -f1-3 "$TMP/g2.frames" >"$TMP/g2.w"
    expect "--diff CALLGRIND PROGRAM GMON" 0 "" "" --diff g.out "$GEX/cycles" \
        "$GPROF/cycles.gmon" -o gd1.svg
    python3 "$TMP/frames.py" "$TMP/gd1.svg" | sort >"$TMP/gd1.frames"
    check "--diff gmon: widths from NEW" sh -c \
        "cut -d' ' -f1-3 '$TMP/gd1.frames' | cmp -s - '$TMP/g2.w'"
    check "--diff gmon: the same analysis on both sides is all grey" sh -c \
        "test -s '$TMP/gd1.frames' && ! grep -v 'rgb(225,225,225)' '$TMP/gd1.frames'"
    expect "--diff PROGRAM GMON PROGRAM GMON" 0 "" "" --diff "$GEX/cycles" \
        "$GPROF/cycles.b.gmon" "$GEX/cycles" "$GPROF/cycles.gmon" -o gd2.svg
    python3 "$TMP/frames.py" "$TMP/gd2.svg" | sort >"$TMP/gd2.frames"
    check "--diff two gmon runs: widths from NEW" sh -c \
        "cut -d' ' -f1-3 '$TMP/gd2.frames' | cmp -s - '$TMP/g2.w'"
    check "--diff two gmon runs: the longer NEW run is coloured" \
        grep -q 'rgb(255,' "$TMP/gd2.frames"
    expect "--diff with one program and two gmon.out files is one input" 2 "" \
        "exactly two inputs" --diff "$GEX/cycles" "$GPROF/cycles.b.gmon" "$GPROF/cycles.gmon"
else
    echo "# SKIP: examples/gprof could not be built"
fi

# a real run: tally record's contexts file (exact) against the callgrind
# file of the same run: main's frame is as wide as annotate's inclusive cost
make -s -C "$ROOT/examples" recurse >/dev/null 2>&1
if "$TALLY" record --contexts=yes --contexts-out-file="$TMP/rec.ctx" --out-file="$TMP/rec.cg" \
        "$ROOT/examples/recurse" >/dev/null 2>"$TMP/rec.err" && [ -s "$TMP/rec.ctx" ]; then
    expect "flame of tally record's contexts file" 0 "" "" rec.ctx -o rec.svg
    want=$("$TALLY" annotate --inclusive=yes "$TMP/rec.cg" | sed -n 's/^ *\([0-9,]*\) .*recurse.c:main .*/\1/p' | tr -d ,)
    got=$(python3 "$TMP/frames.py" "$TMP/rec.svg" | awk '$1 ~ /;main$/ { s += $3 } END { print s }')
    check "exact main ($got) = annotate's inclusive Ir of main ($want)" test -n "$want" -a "$got" = "$want"
    check "recorded: exact" grep -q 'data-kind="exact"' "$TMP/rec.svg"
else
    echo "# SKIP: tally record did not run (Valgrind tool not built?)"
fi

# contexts files with the same events in another order: the trees add up
# (exact); a contexts file with a callgrind file: estimated, and a warning
cat >"$TMP/b.ctx" <<'EOF'
# tally contexts 1
creator: tally-record 0.1
cmd: ./a.out
events: Dr Ir
ob 1 /tmp/a.out
fl 1 a.c
fn 1 1 1 main
fn 2 1 1 work
x 1 0 1 1 5 12
x 2 1 2 3 7 90
totals: 12 102
EOF
printf '# tally contexts 1\nevents: Ir Dr\nob 1 /tmp/a.out\nfl 1 a.c\nfn 1 1 1 main\nfn 2 1 1 work\nx 1 0 1 1 12 5\nx 2 1 2 3 90 7\ntotals: 102 12\n' >"$TMP/b2.ctx"
expect "contexts, events in another order: exact sum of Ir" 0 'data-name="work" data-x="0" data-w="180"' \
    "" --event=Ir b.ctx b2.ctx
check "contexts, events in another order: exact" grep -q 'data-kind="exact"' "$TMP/out"
expect "contexts, events in another order: Dr" 0 'data-name="work" data-x="0" data-w="14"' "" \
    --event=Dr b2.ctx b.ctx
expect "contexts and a callgrind file: estimated" 0 "" "not every input has calling contexts" \
    b2.ctx arcs.out -o mix.svg
check "contexts and a callgrind file: the picture says estimated" grep -q 'data-kind="estimated"' "$TMP/mix.svg"

# ---------------------------------------------------------------- errors
expect "--help" 0 "usage: tally flame" "" --help
expect "-oOUT, as the other commands take it" 0 "" "" -oglued.svg a.ctx
check "-oOUT wrote the picture" grep -q '<svg' "$TMP/glued.svg"
expect "-o without a value" 2 "" "option '-o' needs a value" a.ctx -o
expect "no files" 2 "" "^tally: flame: no profile given, and no tally.out" 
expect "unknown option" 2 "" "unknown option '--bogus'" --bogus a.ctx
expect "--diff needs two inputs" 2 "" "exactly two inputs" --diff a.ctx
expect "bad --minwidth" 2 "" "--minwidth needs" --minwidth=abc a.ctx
expect "--minwidth=inf is refused" 2 "" "--minwidth needs" --minwidth=inf a.ctx
expect "bad --colors" 2 "" "--colors must be" --colors=pink a.ctx
expect "bad --width" 2 "" "--width needs a positive number" --width=0 a.ctx
expect "missing file" 1 "" "^tally: .*nope" nope.out
expect "unknown event (usage: exit 2)" 2 "" "^tally: arcs.out: no event 'Zz' \(the profile has: Ir Dr\)" --event=Zz arcs.out
printf '# tally contexts 1\nevents: Ir\nfn 1 0 0 f\nx 1 0 9 1 5\n' >"$TMP/bad.ctx"
expect "malformed contexts: FILE:LINE: message" 1 "" "^tally: bad.ctx:4: function id used before" bad.ctx -o bad.svg
check "no output file after a failure" test ! -e "$TMP/bad.svg"
expect "unwritable output" 1 "" "^tally: " a.ctx -o no/such/dir/x.svg
check "no temporary files left" sh -c "! ls '$TMP'/no 2>/dev/null && ! ls '$TMP'/.*.tmp* 2>/dev/null"
echo "1..$TESTN"
