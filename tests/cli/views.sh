#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One number in every view: a function's inclusive cost (its time on the
# stack, counted once) is the same in `tally annotate --inclusive=yes`,
# `tally convert --to=json`, `tally graph` (tooltips), `tally report` (the
# page's data), `tally check --inclusive=yes` (per-function limits) and, from the contexts file of the same run, in `tally
# annotate`, `tally convert --to=folded` and `tally flame` (the frames of a
# function that have no frame of it above them).
#
# The program is tests/peer/truth/interp.c (mutual recursion eval ->
# callobj -> vector -> eval, entered at two places), recorded once with
# --contexts=yes. The views of the callgrind file must agree to the
# instruction; those of the contexts file within 0.2 points of the total
# (the two files charge a few instructions differently: PLT stubs, the
# first block of a thread) and the flame graph within 0.2 points (frames
# narrower than its minimum width are left out).
. "$(dirname "$0")/../lib.sh"
command -v valgrind >/dev/null 2>&1 || {
    echo "ok 1 - views # SKIP valgrind is not installed"
    exit 0
}
SRC=$ROOT/tests/peer/truth
export TALLY_VALGRIND_LIB="${TALLY_VALGRIND_LIB:-$ROOT/build/valgrind/lib}"
gcc -std=c17 -O1 -g -pthread -o "$TMP/interp" "$SRC/interp.c" 2>"$TMP/cc.err" || {
    not_ok "interp.c builds"
    diag <"$TMP/cc.err"
    exit 1
}
(cd "$TMP" && "$TALLY" record -q --contexts=yes --out-file=tl.out --contexts-out-file=tl.ctx \
    -- ./interp >/dev/null 2>"$TMP/rec.err")
check "tally record --contexts=yes writes both files" test -s "$TMP/tl.out" -a -s "$TMP/tl.ctx"

FUNCS="main eval callobj vector prim lookup work"

# annotate: "COST  file:function ..." with --show-percs=no
annotate_rows() { # FILE OUT
    (cd "$TMP" && "$TALLY" annotate --inclusive=yes --threshold=100 --auto=no --show=Ir \
        --show-percs=no "$1") | awk '
        /^ *[0-9][0-9,]*  / { v = $1; gsub(/,/, "", v); r = $0; sub(/^ *[0-9,]+  /, "", r)
            sub(/^[^:]*:/, "", r); sub(/ \[.*$/, "", r); sub(/ <cycle [0-9]+>( \(estimated\))?$/, "", r)
            print r, v }' >"$2"
}
annotate_rows tl.out "$TMP/annotate.txt"
annotate_rows tl.ctx "$TMP/annotate-ctx.txt"
(cd "$TMP" && "$TALLY" convert --to=json -o tl.json tl.out) &&
    python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    print(f["name"], f["inclusive"][0])' "$TMP/tl.json" >"$TMP/json.txt"
(cd "$TMP" && "$TALLY" graph --node-thres=0 -o tl.dot tl.out) &&
    python3 -c '
import re, sys
for m in re.finditer(r"tooltip=\"([^\"\\]*)\\nfile:.*?\\ninclusive: ([0-9,]+)", open(sys.argv[1]).read()):
    print(m.group(1), m.group(2).replace(",", ""))' "$TMP/tl.dot" >"$TMP/graph.txt"
(cd "$TMP" && "$TALLY" report --no-callgraph --no-flame -o rep tl.out >/dev/null 2>&1) &&
    python3 "$ROOT/tests/tools/reportcheck.py" eval "$TMP/rep/index.html" \
        '"\n".join("%s %s" % (r["name"], r["incl"][0]) for r in s["answers"]["functions"]["rows"])' \
        >"$TMP/report.txt"
# tally check --inclusive=yes: every function beyond an absolute limit of
# 0 is listed with its value (the loader is left out by default, so
# nothing of it is named here)
(cd "$TMP" && "$TALLY" check --inclusive=yes --format=json -o check.json \
    --limit="^($(echo $FUNCS | tr ' ' '|'))\$:Ir<=0" tl.out tl.out) 
python3 -c '
import json, sys
for o in json.load(open(sys.argv[1]))["limits"]:
    for h in o["hits"]:
        print(h["function"], h["new"])' "$TMP/check.json" >"$TMP/check.txt"
(cd "$TMP" && "$TALLY" convert --to=folded -o tl.folded tl.ctx) &&
    awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); delete seen
        for (i = 1; i <= k; i++) { if (!(f[i] in seen)) on[f[i]] += n; seen[f[i]] = 1 } }
        END { for (x in on) print x, on[x] }' "$TMP/tl.folded" >"$TMP/folded.txt"
(cd "$TMP" && "$TALLY" flame -o tl.svg tl.ctx) &&
    python3 -c '
import re, sys
fr = []
for m in re.finditer(r"<g class=\"frame\"([^>]*)>", open(sys.argv[1]).read()):
    a = dict(re.findall(r"data-([a-z]+)=\"([^\"]*)\"", m.group(1)))
    fr.append((int(a["depth"]), float(a["x"]), float(a["w"]), a["name"]))
fr.sort()
parent = {}
bydepth = {}
for k, f in enumerate(fr):
    bydepth.setdefault(f[0], []).append(k)
for k, (d, x, w, n) in enumerate(fr):
    for j in bydepth.get(d - 1, []):
        pd, px, pw, pn = fr[j]
        if px <= x and x + w <= px + pw + 1e-6 * max(1, pw):
            parent[k] = j
            break
on = {}
for k, (d, x, w, n) in enumerate(fr):
    j, top = parent.get(k), True
    while j is not None:
        if fr[j][3] == n:
            top = False
            break
        j = parent.get(j)
    if top:
        on[n] = on.get(n, 0) + w
for n, v in on.items():
    print(n, int(round(v)))' "$TMP/tl.svg" >"$TMP/flame.txt"

total=$(awk '$1 == "main" { print $2 }' "$TMP/annotate.txt")
# compare NAME OUT TOLERANCE-IN-POINTS: each of FUNCS in OUT against annotate's
compare() {
    if awk -v tol="$3" -v total="$total" -v funcs="$FUNCS" '
        FNR == NR { a[$1] = $2; next } { b[$1] = $2 }
        END { n = split(funcs, f, " "); bad = 0
            for (i = 1; i <= n; i++) {
                x = f[i]
                if (!(x in a) || !(x in b)) { printf "%s missing (annotate %s, view %s)\n", x, a[x], b[x]; bad = 1; continue }
                d = 100 * (b[x] - a[x]) / total; if (d < 0) d = -d
                if (d > tol) { printf "%s: annotate %s, view %s (%.3f points)\n", x, a[x], b[x], d; bad = 1 } }
            exit bad }' "$TMP/annotate.txt" "$2" >"$TMP/cmp.txt" 2>&1 && [ -n "$total" ]; then
        ok "$1"
    else
        not_ok "$1"
        diag <"$TMP/cmp.txt"
    fi
}
compare "convert --to=json: the same inclusive costs as annotate, to the instruction" "$TMP/json.txt" 0
compare "graph: the same inclusive costs in the tooltips" "$TMP/graph.txt" 0
compare "report: the same inclusive costs in the page's data" "$TMP/report.txt" 0
compare "check --inclusive=yes: the same inclusive costs per function" "$TMP/check.txt" 0
compare "annotate of the contexts file: within 0.2 points" "$TMP/annotate-ctx.txt" 0.2
compare "folded stacks of the contexts file: time on the stack within 0.2 points" "$TMP/folded.txt" 0.2
compare "flame graph of the contexts file: topmost frames within 0.2 points" "$TMP/flame.txt" 0.2

# none of them is an estimate: tally record's calls count each recursion once
if grep -q "estimated" "$TMP/tl.json" || grep -q '"e":1' "$TMP/rep/index.html" ||
    grep -q '~[0-9]' "$TMP/tl.dot"; then
    not_ok "no view marks an estimate on tally record's file"
else
    ok "no view marks an estimate on tally record's file"
fi
# sums keep the marker only when every input has it: tally merge of the
# file with itself stays exact; with a copy that lacks the line (as a file
# of another producer would) the cycle's members become estimates
sed '/^desc: Option: call costs: outermost activations$/d' "$TMP/tl.out" >"$TMP/nomark.out"
(cd "$TMP" && "$TALLY" merge -o same.out tl.out tl.out && "$TALLY" merge -o mixed.out tl.out nomark.out)
if grep -q '^desc: Option: call costs: outermost activations$' "$TMP/same.out" &&
    ! grep -q 'outermost activations' "$TMP/mixed.out" &&
    (cd "$TMP" && "$TALLY" annotate --inclusive=yes --auto=no mixed.out) | grep -q 'callobj <cycle 1> (estimated)' &&
    ! (cd "$TMP" && "$TALLY" annotate --inclusive=yes --auto=no same.out) | grep -q estimated; then
    ok "merge: exact only when every input counts each recursion once"
else
    not_ok "merge: exact only when every input counts each recursion once"
fi
echo "1..$TESTN"
