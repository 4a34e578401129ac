#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally annotate --group=object|file|class.
#
# 1. The layout: golden outputs on tests/golden/groups/cpp.out (hand-written,
#    see its comments for the costs by construction). GROUPS_REGEN=1 makes the
#    expected files again from tally (after the checks below pass).
# 2. The numbers, checked apart from the grouping code: every group's self cost
#    is the sum of its functions' self costs in `tally convert --to=json`
#    (the test assigns the functions to groups itself, from the JSON's
#    objects, files and names); the file groups of cpp.out, which never call
#    back into one another, have the inclusive costs of its comments.
# 3. A C++ program recorded with tally record (groups/gr.cc), whose group
#    inclusive costs are known by construction: namespace alpha is entered
#    once, through alpha::outer(), so its inclusive cost is that function's,
#    however deep alpha::rec() recurses; beta's is beta::work()'s; the two
#    instances of geo::Box are one group.
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/golden/groups"

# rows FILE: "NAME SELF INCL" of a one-event group table printed with --show-percs=no
rows() {
    awk '/^-- Functions grouped by/ { t = 1; next } t && /^-+$/ { n++; next }
         t && n >= 2 && NF == 0 { exit }
         t && n >= 2 && NF >= 3 { gsub(",", "", $1); gsub(",", "", $2); name = $3
             for (i = 4; i <= NF && $i != "<cycle" && $i != "(estimate)"; i++) name = name " " $i
             print name, $1, $2 }' "$1" | sort
}

# json_groups JSON KIND EVENT: "NAME SELF" per group, summed from the JSON's functions
json_groups() {
    python3 - "$1" "$2" "$3" "$DATA" <<'EOF_PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from classof import cls
prof = json.load(open(sys.argv[1]))
kind, ev = sys.argv[2], sys.argv[3]
col = [e["name"] for e in prof["events"]].index(ev)
sums = {}
for f in prof["functions"]:
    key = {"object": f.get("object") or "(none)", "file": f.get("file") or "(none)",
           "class": cls(f["name"])}[kind]
    sums[key] = sums.get(key, 0) + f["self"][col]
for k, v in sorted(sums.items()):
    if v: print(k, v)
EOF_PY
}

# --- 1 and 2: the hand-written profile ---------------------------------------------------
CASES='class|--group=class cpp.out
object|--group=object --inclusive=yes --show=Ir cpp.out
file|--group=file --show-percs=no --event=W=Ir+2*Dr --show=W,Ir cpp.out'
while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    (cd "$DATA" && "$TALLY" annotate $args) >"$TMP/$name.out" 2>"$TMP/$name.err"
    [ "${GROUPS_REGEN:-0}" = 1 ] && cp "$TMP/$name.out" "$DATA/$name.expected"
    same_text "annotate $args: the golden output" "$DATA/$name.expected" "$TMP/$name.out"
done <<EOF_CASES
$CASES
EOF_CASES

(cd "$DATA" && "$TALLY" convert --to=json cpp.out) >"$TMP/cpp.json"
for kind in class object file; do
    (cd "$DATA" && "$TALLY" annotate --group=$kind --show=Ir --show-percs=no cpp.out) >"$TMP/g.out"
    rows "$TMP/g.out" | awk '{ print $1, $2 }' | sort >"$TMP/g.self"
    json_groups "$TMP/cpp.json" $kind Ir | sort >"$TMP/j.self"
    same_text "cpp.out --group=$kind: each group's self Ir is the sum of its functions' in the JSON" \
        "$TMP/j.self" "$TMP/g.self"
done
(cd "$DATA" && "$TALLY" annotate --group=file --show=Ir --show-percs=no cpp.out) >"$TMP/f.out"
rows "$TMP/f.out" >"$TMP/f.rows"
printf '%s\n' "lib.cc 400 800" "main.cc 110 950" "string.c 320 320" "util.cc 120 120" >"$TMP/f.want"
same_text "cpp.out --group=file: the inclusive costs by construction (no file calls back)" \
    "$TMP/f.want" "$TMP/f.rows"
check "cpp.out --group=class: groups that call each other round are marked" \
    grep -q '^<cycle N>: groups that call each other round; their inclusive costs are estimates' "$TMP/class.out"

# --- errors --------------------------------------------------------------------------------
RUN_DIR=$DATA
expect_run "--group=function: exit 2" 2 "" "^tally: annotate: --group takes object, file or class, not 'function'" \
    annotate --group=function cpp.out
expect_run "--group with --tree: exit 2" 2 "" "^tally: annotate: --group shows every group .*: --tree does not apply" \
    annotate --group=file --tree=both cpp.out
expect_run "--group with a source file: exit 2" 2 "" "a source file does not apply" \
    annotate --group=file cpp.out -- gr.cc
expect_run "--group with --mod-funcname: exit 2" 2 "" "--mod-funcname does not apply" \
    annotate --group=class --mod-funcname='s/a/b/' cpp.out
RUN_DIR=

# --- 3: a recorded C++ program --------------------------------------------------------------
if ! command -v g++ >"$TMP/which" 2>&1; then
    echo "ok $((TESTN + 1)) - # SKIP no g++"
    exit 0
fi
g++ -O0 -g -o "$TMP/gr" "$DATA/gr.cc" 2>"$TMP/cc.err" || { not_ok "g++ gr.cc"; diag <"$TMP/cc.err"; exit 0; }
(cd "$TMP" && "$TALLY" record -q --out-file=gr.out ./gr) >"$TMP/rec.out" 2>&1
if [ ! -s "$TMP/gr.out" ]; then not_ok "tally record gr"; diag <"$TMP/rec.out"; exit 0; fi
"$TALLY" convert --to=json "$TMP/gr.out" >"$TMP/gr.json"
"$TALLY" annotate --group=class --show=Ir --show-percs=no "$TMP/gr.out" >"$TMP/gc.out"
rows "$TMP/gc.out" >"$TMP/gc.rows"
incl() { python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
print(sum(f["inclusive"][0] for f in p["functions"] if f["name"] in sys.argv[2:]))' "$TMP/gr.json" "$@"; }
selfs() { python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
print(sum(f["self"][0] for f in p["functions"] if f["name"] in sys.argv[2:]))' "$TMP/gr.json" "$@"; }
want_alpha=$(incl "alpha::outer(long)")
want_beta=$(incl "beta::work(long)")
box_self=$(selfs "geo::Box<int>::get() const" "geo::Box<long>::get() const")
got() { awk -v g="$1" -v f="$2" '$1 == g { print $f }' "$TMP/gc.rows"; }
[ -n "$want_alpha" ] && [ "$want_alpha" -gt 0 ] && [ "$(got alpha 3)" = "$want_alpha" ] &&
    ok "recorded: alpha's inclusive Ir is alpha::outer()'s ($want_alpha), recursion inside counted once" ||
    { not_ok "recorded: alpha's inclusive Ir is alpha::outer()'s"; diag <"$TMP/gc.rows"; echo "want $want_alpha" | diag; }
[ "$(got beta 3)" = "$want_beta" ] && [ "$(got beta 2)" = "$want_beta" ] &&
    ok "recorded: beta's self and inclusive Ir are beta::work()'s ($want_beta)" ||
    { not_ok "recorded: beta's inclusive Ir is beta::work()'s"; diag <"$TMP/gc.rows"; echo "want $want_beta" | diag; }
[ "$(got 'geo::Box<...>' 2)" = "$box_self" ] && [ "$(got 'geo::Box<...>' 3)" = "$box_self" ] &&
    ok "recorded: geo::Box<int> and geo::Box<long> are one group ($box_self)" ||
    { not_ok "recorded: geo::Box<...> is one group"; diag <"$TMP/gc.rows"; echo "want $box_self" | diag; }
for kind in class object file; do
    "$TALLY" annotate --group=$kind --show=Ir --show-percs=no "$TMP/gr.out" >"$TMP/g.out"
    rows "$TMP/g.out" | awk '{ s = $NF; $NF = ""; $(NF-1) = ""; sub(/ +$/, ""); print }' >"$TMP/g.name"
    rows "$TMP/g.out" | awk '{ print $(NF-1) }' >"$TMP/g.s"
    paste -d ' ' "$TMP/g.name" "$TMP/g.s" | sort >"$TMP/g.self"
    json_groups "$TMP/gr.json" $kind Ir | sort >"$TMP/j.self"
    same_text "recorded --group=$kind: each group's self Ir is the sum of its functions' in the JSON" \
        "$TMP/j.self" "$TMP/g.self"
done

# --- 4: the same program with its stacks recorded (--contexts=yes): exact inclusive costs ----
# The oracle: the exact stacks of `tally convert --to=folded` of the contexts file; a group's
# inclusive cost is the sum of the counts of the stacks that hold any of its functions (each
# stack once, however many of its functions it holds), the functions assigned to classes by
# the test's own reading of their names.
(cd "$TMP" && "$TALLY" record -q --contexts=yes --out-file=grc.out --contexts-out-file=grc.ctx ./gr) \
    >"$TMP/rec2.out" 2>&1
if [ ! -s "$TMP/grc.ctx" ]; then not_ok "tally record --contexts=yes gr"; diag <"$TMP/rec2.out"; exit 0; fi
"$TALLY" convert --to=folded --event=Ir -q "$TMP/grc.ctx" >"$TMP/grc.folded" 2>"$TMP/folded.err"
python3 - "$TMP/grc.folded" "$DATA" >"$TMP/grc.want" <<'EOF_PY'
import sys
sys.path.insert(0, sys.argv[2])
from classof import cls
incl = {}
for line in open(sys.argv[1]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    for g in {cls(f) for f in stack.split(";")}:
        incl[g] = incl.get(g, 0) + int(count)
for g, v in sorted(incl.items()):
    print(g, v)
EOF_PY
"$TALLY" annotate --group=class --show=Ir --show-percs=no "$TMP/grc.out" "$TMP/grc.ctx" >"$TMP/gx.out" 2>&1
rows "$TMP/gx.out" | awk '{ print $1, $3 }' | sort >"$TMP/gx.got"
same_text "recorded with stacks: every class's inclusive Ir equals the sum of the stacks that hold it" \
    "$TMP/grc.want" "$TMP/gx.got"
check "recorded with stacks: the table says its inclusive costs are exact" \
    grep -q '^Inclusive costs from the recorded stacks: exact\.' "$TMP/gx.out"
