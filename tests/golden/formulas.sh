#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Cost formulas (--event=NAME=FORMULA and the built-in events) in every
# command that shows costs, on tests/golden/formulas/p.out (hand-written,
# with the cache and branch events, calls and recursion).
#
# The oracle: augment() writes a copy of a profile with one more base event
# whose count on every cost line (and in summary:) is the formula worked
# out here, by awk, from that line's counts; the weights are written out by
# hand below, not taken from tally. callgrind_annotate 3.19 then computes
# the augmented file's totals, functions, inclusive costs and annotated
# lines; tally annotate with the formula must print the same (the line
# "Events recorded:" aside: only the augmented file has the event). The
# expected files (NAME.expected) are tally's outputs, kept (FORMULAS_REGEN=1)
# once they were equal to the oracle's but for the two differences named at
# the comparison; the oracle is run again whenever the Valgrind tools are
# installed.
# The commands without a callgrind_annotate layout (graph, flame, convert)
# are checked against arithmetic on `tally convert --to=json`; tally report
# (tally view's page) takes base events only and must say so.
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/golden/formulas"

# augment FILE OUT NAME=WEIGHTS...: WEIGHTS like "Ir:1,Bcm:10"; events not named weigh 0
augment() {
    a_in=$1 a_out=$2
    shift 2
    awk -v defs="$*" '
        BEGIN { nd = split(defs, d, " ")
                for (k = 1; k <= nd; k++) { eq = index(d[k], "="); dn[k] = substr(d[k], 1, eq - 1)
                    nw[k] = split(substr(d[k], eq + 1), w, ",")
                    for (j = 1; j <= nw[k]; j++) { split(w[j], kv, ":"); wn[k, j] = kv[1]; wv[k, j] = kv[2] } }
                np = 1 }
        function extra(first,   k, j, e, v, s, out) {
            out = ""
            for (k = 1; k <= nd; k++) {
                s = 0
                for (j = 1; j <= nw[k]; j++) { e = col[wn[k, j]]; if (e) { v = $(first + e - 1); s += wv[k, j] * (v == "" ? 0 : v) } }
                out = out " " s
            }
            return out
        }
        function padded(first,   i, s) { s = $0; for (i = NF; i < first + ne - 1; i++) s = s " 0"; return s }
        /^positions:/ { np = NF - 1; print; next }
        /^events:/ { ne = NF - 1; for (i = 2; i <= NF; i++) col[$i] = i - 1
                     s = $0; for (k = 1; k <= nd; k++) s = s " " dn[k]; print s; next }
        /^(summary|totals):/ { print padded(2) extra(2); next }
        /^[0-9+*-]/ { print padded(np + 1) extra(np + 1); next }
        { print }' "$a_in" >"$a_out"
}

CEST="CEst=Ir:1,Bcm:10,Bim:10,I1mr:10,D1mr:10,D1mw:10,ILmr:100,DLmr:100,DLmw:100"
HIT="Hit=Dr:1,Dw:1,D1mr:-1,D1mw:-1"
CYC2="Cyc2=Ir:2,Dr:2,Dw:2,D1mr:-2,D1mw:-2"

# annotate: NAME|ORACLE DEFINITIONS|ORACLE OPTIONS|TALLY OPTIONS (on p.out, oracle
# callgrind_annotate; the cases named cg-* are on tests/golden/annotate/c1.out, a
# cachegrind file with negative counts, and their oracle is cg_annotate)
CASES="cest-inclusive|$CEST|--show=Ir,CEst --sort=Ir,CEst --inclusive=yes|--show=Ir,CEst --sort=Ir,CEst --inclusive=yes
cest-tree|$CEST|--show=CEst,Ir --sort=CEst --tree=both --context=1|--show=CEst,Ir --sort=CEst --tree=both --context=1
defined|$HIT $CYC2|--sort=Cyc2 --auto=no|--event=Hit=Dr+Dw-D1mr-D1mw --event=Cyc2=2*(Ir+Hit) --sort=Cyc2 --auto=no
defined-default|$HIT|--context=0|--event=Hit=Dr+Dw-D1mr-D1mw --context=0
cg-defined|W=Ir:1,Dr:3|--context=1|--event=W=Ir+3*Dr --context=1"

have_ca=0
command -v callgrind_annotate >"$TMP/which" 2>&1 && command -v cg_annotate >"$TMP/which" 2>&1 &&
    have_ca=1
mkdir -p "$TMP/t" "$TMP/o"
cp "$DATA/p.c" "$DATA/p.out" "$ROOT/tests/golden/annotate/c1.c" "$ROOT/tests/golden/annotate/c1.out" "$TMP/t/"
cp "$DATA/p.c" "$ROOT/tests/golden/annotate/c1.c" "$TMP/o/"
touch -d '2020-01-01 00:00:00' "$TMP/t/p.c" "$TMP/o/p.c" "$TMP/t/c1.c" "$TMP/o/c1.c"
touch -d '2021-01-01 00:00:00' "$TMP/t/p.out" "$TMP/t/c1.out"
while IFS='|' read -r name defs oopts topts; do
    case $name in cg-*) in=c1.out tool=cg_annotate ;; *) in=p.out tool=callgrind_annotate ;; esac
    # shellcheck disable=SC2086
    (cd "$TMP/t" && "$TALLY" annotate $topts $in) >"$TMP/$name.raw" 2>"$TMP/$name.err"
    grep -v '^Events recorded:' "$TMP/$name.raw" >"$TMP/$name.out"
    if [ "$have_ca" = 1 ]; then
        # shellcheck disable=SC2086
        augment "$TMP/t/$in" "$TMP/o/$in" $defs
        touch -d '2021-01-01 00:00:00' "$TMP/o/$in"
        # shellcheck disable=SC2086
        (cd "$TMP/o" && $tool $oopts $in) 2>&1 | grep -v '^Events recorded:' >"$TMP/$name.ca"
        # Two differences are known and left out of the comparison: where an event
        # has no count in any line of a function, tally prints "." as callgrind_annotate
        # does, but the augmented file has zeros there (the extra column needs every
        # column before it); and callgrind_annotate adds up rec's recursive calls into
        # its inclusive cost (190 Ir), where tally counts the time on the stack once
        # (76 Ir: every call of rec is rec's own; checked below)
        for f in ca out; do
            sed -e 's/ \.$/ 0/' -e ':a' -e 's/ \. / 0 /' -e 'ta' "$TMP/$name.$f" |
                if [ "$name" = cest-inclusive ]; then grep -v 'p.c:rec \['; else cat; fi >"$TMP/$name.$f.n"
        done
        same_text "annotate $name: $tool on the file with the formula worked out per line" \
            "$TMP/$name.ca.n" "$TMP/$name.out.n"
    fi
    # FORMULAS_REGEN=1 keeps tally's output as the expected one (after the comparison above)
    [ "${FORMULAS_REGEN:-0}" = 1 ] && cp "$TMP/$name.out" "$DATA/annotate-$name.expected"
    same_text "annotate $name ($topts): the golden output" "$DATA/annotate-$name.expected" "$TMP/$name.out"
done <<EOF_CASES
$CASES
EOF_CASES

# rec's inclusive costs are its self costs (all its calls are to itself): the row of
# --inclusive=yes equals the row without it
(cd "$TMP/t" && "$TALLY" annotate --show=Ir,CEst --auto=no p.out) | grep 'p.c:rec \[' >"$TMP/rec.self"
grep 'p.c:rec \[' "$TMP/cest-inclusive.out" >"$TMP/rec.incl"
sed -i -e 's/([ 0-9.]*%)//g' -e 's/  */ /g' -e 's/^ //' "$TMP/rec.self" "$TMP/rec.incl"
if [ -s "$TMP/rec.self" ] && cmp -s "$TMP/rec.self" "$TMP/rec.incl"; then
    ok "annotate: a recursive function's inclusive CEst is its self CEst ($(tr -s ' ' <"$TMP/rec.self"))"
else
    not_ok "annotate: a recursive function's inclusive CEst is its self CEst"
    cat "$TMP/rec.self" "$TMP/rec.incl" | diag
fi

# --- errors ------------------------------------------------------------------------------
RUN_DIR=$TMP/t
expect_run "annotate: a formula naming no event of the profile: exit 2" 2 "" \
    "^tally: p.out: event 'X': no event 'Foo' \\(the profile has: Ir Dr" annotate --event='X=Ir+Foo' p.out
expect_run "annotate: a product of two events: exit 2" 2 "" \
    "^tally: p.out: event 'X': a product of two events is no cost" annotate --event='X=Ir*Dr' p.out
expect_run "annotate: no definition: exit 2" 2 "" \
    "^tally: annotate: --event: 'Ir' is no definition: write NAME=FORMULA" annotate --event=Ir p.out
expect_run "annotate: a name the profile has: exit 2" 2 "" \
    "^tally: p.out: event 'Dr' is already an event of the profile" annotate --event='Dr=Ir' p.out
printf 'events: Ir\nfl=a.c\nfn=f\n1 5\n' >"$TMP/t/ir.out"
expect_run "annotate: a built-in whose events the profile lacks: exit 2" 2 "" \
    "^tally: annotate: --show event 'L1m' did not appear in input" annotate --show=L1m ir.out

# --- graph, flame, convert: the derived numbers against arithmetic on JSON --------------
# expect_fn FUNCTION SELF INCLUSIVE for CEst, worked out from the base events of
# `tally convert --to=json` with the weights of $CEST above
(cd "$TMP/t" && "$TALLY" convert --to=json p.out) >"$TMP/p.json" 2>"$TMP/json.err"
python3 - "$TMP/p.json" "$CEST" >"$TMP/want" <<'EOF_PY'
import json, sys
prof = json.load(open(sys.argv[1]))
names = [e["name"] for e in prof["events"]]
w = dict(kv.split(":") for kv in sys.argv[2].split("=", 1)[1].split(","))
def cest(v):
    return sum(int(w.get(n, 0)) * x for n, x in zip(names, v))
for f in prof["functions"]:
    print(f["name"], cest(f["self"]), cest(f["inclusive"]))
print("TOTAL", cest(prof["totals"]), cest(prof["totals"]))
EOF_PY
if [ "$(wc -l <"$TMP/want")" = 5 ]; then ok "convert --to=json: four functions and the total for the oracle"; else
    not_ok "convert --to=json: four functions and the total for the oracle"; diag <"$TMP/want"; fi

# graph: every node's tooltip says "inclusive: N (...)\nself: N (...)"
(cd "$TMP/t" && "$TALLY" graph --event=CEst p.out) >"$TMP/graph.dot" 2>"$TMP/graph.err"
[ "${FORMULAS_REGEN:-0}" = 1 ] && cp "$TMP/graph.dot" "$DATA/graph-cest.expected"
same_text "graph --event=CEst: the golden DOT" "$DATA/graph-cest.expected" "$TMP/graph.dot"
sed -n 's/.*tooltip="\([^\\]*\)\\n.*inclusive: \([0-9,]*\) .*self: \([0-9,]*\) .*/\1 \3 \2/p' "$TMP/graph.dot" |
    tr -d , | sort >"$TMP/graph.got"
grep -v TOTAL "$TMP/want" | sort >"$TMP/want.fn"
same_text "graph --event=CEst: each function's self and inclusive CEst from the JSON's events" \
    "$TMP/want.fn" "$TMP/graph.got"
(cd "$TMP/t" && "$TALLY" graph --event='Cyc2=2*(Ir+Dr+Dw-D1mr-D1mw)' p.out) >"$TMP/graph2.dot" 2>&1
want=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); n=[e["name"] for e in p["events"]]; t=dict(zip(n,p["totals"])); print(format(2*(t["Ir"]+t["Dr"]+t["Dw"]-t["D1mr"]-t["D1mw"]), ","))' "$TMP/p.json")
check "graph --event=NAME=FORMULA: the total is the formula of the JSON's totals ($want)" \
    grep -q "event Cyc2, total ${want:-none}\\\\n" "$TMP/graph2.dot"

# flame: one frame per function here (no function has two callers;
# rec's recursion is folded), so a frame's width is the function's inclusive cost
frames() { sed -n 's/.*data-name="\([^"]*\)" data-x="[0-9]*" data-w="\([0-9]*\)" data-self="\([0-9]*\)".*/\1 \3 \2/p' "$1" | grep -v '^all ' | sort; }
(cd "$TMP/t" && "$TALLY" flame --event=CEst -o f.svg p.out) 2>"$TMP/flame.err"
frames "$TMP/t/f.svg" >"$TMP/flame.got"
same_text "flame --event=CEst: each frame's self and total CEst from the JSON's events" "$TMP/want.fn" "$TMP/flame.got"
[ "${FORMULAS_REGEN:-0}" = 1 ] && cp "$TMP/t/f.svg" "$DATA/flame-cest.expected"
same_text "flame --event=CEst: the golden SVG" "$DATA/flame-cest.expected" "$TMP/t/f.svg"

# convert --to=folded: a stack's count is its frame's self cost
(cd "$TMP/t" && "$TALLY" convert --to=folded --event=CEst p.out) >"$TMP/folded" 2>"$TMP/folded.err"
[ "${FORMULAS_REGEN:-0}" = 1 ] && cp "$TMP/folded" "$DATA/folded-cest.expected"
same_text "convert --to=folded --event=CEst: the golden stacks" "$DATA/folded-cest.expected" "$TMP/folded"
awk '{ n = split($1, f, ";"); print f[n], $2 }' "$TMP/folded" | sort >"$TMP/folded.got"
awk '{ print $1, $2 }' "$TMP/want.fn" >"$TMP/want.self"
same_text "convert --to=folded --event=CEst: each stack's count is the JSON's self CEst" "$TMP/want.self" "$TMP/folded.got"
# callgrind output keeps a definition as an event: line, which tally reads back
(cd "$TMP/t" && "$TALLY" convert --to=callgrind --event='M=2*(Dr+Dw)' -o m.out p.out) 2>"$TMP/m.err"
check "convert --to=callgrind --event=NAME=FORMULA: an 'event:' line" grep -qx 'event: M = 2\*(Dr+Dw)' "$TMP/t/m.out"
(cd "$TMP/t" && "$TALLY" annotate --show=M --auto=no m.out) >"$TMP/m.ann" 2>&1
(cd "$TMP/t" && "$TALLY" annotate --event='M=2*Dr+2*Dw' --show=M --auto=no p.out) >"$TMP/p.ann" 2>&1
sed -i '/^Profile data file\|^Events recorded/d' "$TMP/m.ann" "$TMP/p.ann"
same_text "convert --to=callgrind: the kept event reads back with the same costs" "$TMP/p.ann" "$TMP/m.ann"

# --- where a derived event cannot go: a clear message, exit 2 --------------------------------
expect_run "flame: a formula with a negative factor: exit 2" 2 "" \
    "^tally: event 'H' has a negative factor: a flame graph or a stack needs costs" \
    flame --event='H=Ir-Dr' -o h.svg p.out
expect_run "convert --to=pprof with a derived event: exit 2" 2 "" \
    "^tally: convert: --event=CEst: a derived event is drawn by --to=folded" convert --to=pprof -o x.pb --event=CEst p.out
expect_run "convert --to=cachegrind with a definition: exit 2" 2 "" \
    "only callgrind files keep a derived event" convert --to=cachegrind --event='M=Dr' p.out
expect_run "graph: a formula naming no event: exit 2" 2 "" "^tally: p.out: event 'X': no event 'Nope'" \
    graph --event='X=Nope' p.out
total=$(awk '$1 == "TOTAL" { print $2 }' "$TMP/want")
expect_run "report --event=NAME=FORMULA (tally view's page: base events only): exit 2" 2 "" \
    "^tally: --event=C=Ir\\+Dr defines an event \\(NAME=FORMULA\\), which is not one this command can show" \
    report --event='C=Ir+Dr' -o rep.html p.out
expect_run "report --event=CEst: exit 2" 2 "" "^tally: --event=CEst: the page's pictures show a base event, and CEst is derived" \
    report --event=CEst -o rep.html p.out
expect_run "check: the built-in CEst's total is the JSON's ($total)" 0 "\"event\": \"CEst\", .*\"base\": $total, \"new\": $total," "" \
    check --format=json --limit=CEst=+0% -q p.out p.out
