#!/bin/sh
# tally record --contexts=yes keeps whole stacks. examples/interp calls
# eval -> callobj -> vector -> eval (mutual recursion), eval -> eval
# (direct recursion) and eval -> number, and counts for each of its
# functions the work done while that function is on the stack (the work of
# its outermost activations). From the contexts file of its run:
#  - each function's cost on the stack (cct_on_stack_costs(), printed by
#    tests/tools/onstack.c) as a share of main's is the program's own
#    share within 0.5 points;
#  - the call arcs the reader derives into each called function add up to
#    that cost (calls into a function already on the stack bring none);
#  - the folded stacks of `tally convert --to=folded` give the same cost
#    (the counts of the lines whose stack holds the function);
#  - stacks hold eval several times, but never eval;eval (direct
#    self-recursion is one frame, with the calls of every activation: the
#    calls of each function's contexts add up to the program's count);
#  - --context-depth=N keeps stacks at most N deep and the totals whole.
. "$(dirname "$0")/../lib.sh"

# ($TALLY may be another build, e.g. ASan, without the tool's lib dir beside it)
TALLY_VALGRIND_LIB=$ROOT/build/valgrind/lib
export TALLY_VALGRIND_LIB
ONSTACK=$TMP/onstack
if ! cc -std=c17 -D_GNU_SOURCE -O2 -I"$ROOT/src" -o "$ONSTACK" "$ROOT/tests/tools/onstack.c" \
    "$ROOT/build/libtally.a" -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm; then
    not_ok "build tests/tools/onstack.c (make first)"
    echo "1..$TESTN"
    exit 0
fi
if ! make -s -C "$ROOT/examples" interp >/dev/null 2>&1; then
    not_ok "examples/interp builds"
    echo "1..$TESTN"
    exit 0
fi

FNS="main eval callobj vector number work"
mkdir -p "$TMP/run"
if (cd "$TMP/run" && "$TALLY" record -q --cache-sim=no --contexts=yes --out-file=cg.out \
    --contexts-out-file=run.ctx -- "$ROOT/examples/interp" >prog.txt 2>err.txt) &&
    [ -s "$TMP/run/run.ctx" ] && grep -q '^work ' "$TMP/run/prog.txt"; then
    ok "tally record --contexts=yes examples/interp"
else
    not_ok "tally record --contexts=yes examples/interp"
    tail -n 5 "$TMP/run/err.txt" | diag
    echo "1..$TESTN"
    exit 0
fi
cd "$TMP/run" || exit 1

# "ONSTACK ARCS TOP NAME" of the program's functions, in Ir
"$ONSTACK" run.ctx Ir >on.all 2>on.err || diag <on.err
for f in $FNS; do awk -v f="$f" '$4 == f' on.all; done >on.txt
check "onstack: each of the program's functions once ($(wc -l <on.txt) of 6)" \
    test "$(awk '{ print $4 }' on.txt | sort -u | wc -l)" = 6 -a "$(wc -l <on.txt)" = 6

# the program's shares against the contexts file's, in points of main's
awk 'NR == FNR { u[$1] = $2; next } { t[$4] = $1 }
    END { for (f in t) printf "%s %.3f %.3f %.3f\n", f, 100 * u[f] / u["main"],
              100 * t[f] / t["main"], 100 * u[f] / u["main"] - 100 * t[f] / t["main"] }' \
    prog.txt on.txt | sort >shares.txt
diag <shares.txt
bad=$(awk '{ d = $4 < 0 ? -$4 : $4; if (d >= 0.5 || $2 == "") print $1 }' shares.txt)
cs=$(awk '$1 == "callobj" { print $2 "% / " $3 "%" }' shares.txt)
if [ -z "$bad" ] && [ "$(wc -l <shares.txt)" = 6 ]; then
    ok "each function's cost on the stack is the program's share within 0.5 points (callobj $cs)"
else not_ok "cost on the stack against the program's shares: off for $bad"; fi

# the arcs into every called function add up to its cost on the stack
bad=$(awk '$1 != $2 + $3 { print $4 ": " $1 " != " $2 " + " $3 }' on.all | head -n 5)
if [ -z "$bad" ]; then ok "arcs into each function + its top-level contexts = its cost on the stack ($(wc -l <on.all) functions)"
else not_ok "arcs into each function = its cost on the stack"; echo "$bad" | diag; fi
check "the part's desc says the arcs count outermost activations" sh -c \
    "'$TALLY' convert --to=callgrind run.ctx | grep -qx 'desc: Option: call costs: outermost activations'"

# the folded stacks: per function, the counts of the lines that hold it
"$TALLY" convert --to=folded -o run.folded run.ctx 2>conv.err
awk -v fns="$FNS" 'BEGIN { n = split(fns, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1 }
    { w = $NF; st = $0; sub(/ [^ ]*$/, "", st); k = split(st, a, ";"); delete seen
      for (i = 1; i <= k; i++) if ((a[i] in want) && !(a[i] in seen)) { seen[a[i]] = 1; s[a[i]] += w } }
    END { for (x in want) print s[x] + 0, x }' run.folded | sort -k2 >folded.txt
awk '{ print $1, $4 }' on.txt | sort -k2 >want.txt
same_text "folded stacks: the lines holding each function add up to its cost on the stack" \
    want.txt folded.txt
check "stacks keep every frame: eval;callobj;vector;eval;callobj;vector;eval" \
    grep -q ';eval;callobj;vector;eval;callobj;vector;eval' run.folded
check "direct self-recursion is one frame: no eval;eval" sh -c "! grep -q ';eval;eval[; ]' run.folded"
# calls: the contexts of each function add up to the program's count of
# its activations (eval's direct calls of itself are calls of its context)
awk '/^fn / { v = $0; for (i = 1; i <= 4; i++) sub(/^[^ ]* /, "", v); fn[$2] = v; next }
    /^x / { c[fn[$4]] += $5 } END { for (f in c) print f, c[f] }' run.ctx | sort >calls.all
for f in $FNS; do awk -v f="$f" '$1 == f' calls.all; done | sort >calls.txt
for f in $FNS; do awk -v f="$f" '$1 == f { print $1, $3 }' prog.txt; done | sort >calls.want
same_text "calls of each function's contexts = the program's count of its activations" \
    calls.want calls.txt

# --context-depth=5: no stack deeper, the totals of the run's callgrind file
mkdir -p "$TMP/d"
(cd "$TMP/d" && "$TALLY" record -q --cache-sim=no --contexts=yes --context-depth=5 \
    --out-file=cg.out --contexts-out-file=d.ctx -- "$ROOT/examples/interp" >/dev/null 2>&1)
maxd=$(awk '/^x / { d[$2] = $3 == 0 ? 1 : d[$3] + 1; if (d[$2] > m) m = d[$2] } END { print m + 0 }' \
    "$TMP/d/d.ctx" 2>/dev/null)
t1=$(sed -n 's/^totals: //p' "$TMP/d/cg.out" 2>/dev/null)
t2=$(sed -n 's/^totals: //p' "$TMP/d/d.ctx" 2>/dev/null)
if [ "$maxd" = 5 ] && [ -n "$t2" ] && [ "$t1" = "$t2" ]; then
    ok "--context-depth=5: deepest stack 5, the callgrind file's totals ($t1)"
else not_ok "--context-depth=5: deepest stack $maxd, totals $t2 against the callgrind file's $t1"; fi
echo "1..$TESTN"
