#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of tally record's running cost, the source of its calls'
# inclusive costs: the instrumented code adds a block's Ir, Dr and Dw to
# it packed into words (docs/internals/tool.md, "The call graph"), which C
# code unpacks at each entry point and at each time slice.
# tests/peer/runcost/loops.c runs calls of over 2^24 instructions and
# 2^20 loads and stores without a call inside (many of Valgrind's
# scheduling quanta), with few and with many loads and stores per block.
# Both tools run in one environment (env -i, one VALGRIND_LIB holding
# both); Callgrind with --cache-sim=yes, which counts Dr and Dw.
# Compared:
#  - the inclusive Ir, Dr and Dw of the calls to light, heavy and mixed
#    against Callgrind's (elsewhere the Dr/Dw split differs: tally counts
#    a modify as the read, as Cachegrind, docs/internals/tool.md);
#  - in tally's file, those inclusive costs (from the running cost)
#    against the callees' self costs (from the per-instruction counters).
. "$(dirname "$0")/../lib.sh"

peer_start gcc
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH VALGRIND_LIB=$LIB"
peer_build loops "$ROOT/tests/peer/runcost/loops.c"

# costs FILE: "call CALLER -> CALLEE Ir Dr Dw" for every call of light,
# heavy or mixed (from the line after calls=, which holds the inclusive
# cost) and "self FN Ir Dr Dw" for those three functions, sorted
costs() {
    awk 'function nm(v,   id, r) {
            if (v !~ /^\(/) return v
            id = substr(v, 1, index(v, ")")); r = substr(v, index(v, ")") + 2)
            if (r != "") n[id] = r
            return n[id]
        }
        /^positions:/ { np = NF - 1; next }
        /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i + np - 1; next }
        /^fn=/ { fn = nm(substr($0, 4)); next }
        /^cfn=/ { cfn = nm(substr($0, 5)); next }
        /^calls=/ { incl = 1; next }
        /^[0-9+*-]/ {
            if (incl) {
                incl = 0
                if (cfn !~ /^(light|heavy|mixed)$/) next
                k = "call " fn " -> " cfn
            } else {
                if (fn !~ /^(light|heavy|mixed)$/) next
                k = "self " fn
            }
            ir[k] += $col["Ir"]; dr[k] += $col["Dr"]; dw[k] += $col["Dw"]
        }
        END { for (k in ir) print k, ir[k], dr[k], dw[k] }' "$1" | sort
}

rm -f "$TMP/cl.out" "$TMP/tl.out"
(cd "$TMP" && $E valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$TMP/cl.out" \
    ./loops >/dev/null 2>"$TMP/cl.err")
(cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/tl.out" ./loops >/dev/null 2>"$TMP/tl.err")
if [ ! -s "$TMP/cl.out" ] || [ ! -s "$TMP/tl.out" ]; then
    not_ok "both tools wrote their files"
    diag <"$TMP/tl.err"
    exit 1
fi
costs "$TMP/cl.out" | grep '^call' >"$TMP/cl.calls"
costs "$TMP/tl.out" >"$TMP/tl.costs"
grep '^call' "$TMP/tl.costs" >"$TMP/tl.calls"

# the calls this test is about are there, each over 2^24 Ir and 2^20 Dr
# and Dw (light's loops and heavy's between two calls)
if awk '$2 == "main" && $4 == "light" && $5 > 16777216 && $6 > 1048576 && $7 > 1048576 { l = 1 }
        $2 == "main" && $4 == "heavy" && $5 > 16777216 && $6 > 1048576 && $7 > 1048576 { h = 1 }
        $2 == "mixed" { m++ }
        END { exit !(l && h && m == 2) }' "$TMP/tl.calls"; then
    ok "main -> light, main -> heavy (each over 2^24 Ir, 2^20 Dr and Dw), mixed -> both"
else
    not_ok "main -> light, main -> heavy (each over 2^24 Ir, 2^20 Dr and Dw), mixed -> both"
    diag <"$TMP/tl.calls"
fi
same_text "inclusive Ir Dr Dw of the calls of light, heavy and mixed equal Callgrind's" \
    "$TMP/cl.calls" "$TMP/tl.calls"

# inclusive (running cost) = self (per-instruction counters): for each of
# the three, the inclusive costs of the calls to it less its self cost and
# the inclusive costs of the calls it makes (mixed's to light and heavy)
awk '$1 == "call" { d = $4; c = $2
                    i[d] += $5; r[d] += $6; w[d] += $7; i[c] -= $5; r[c] -= $6; w[c] -= $7 }
     $1 == "self" { i[$2] -= $3; r[$2] -= $4; w[$2] -= $5 }
     END { for (k in i) if (k != "main") print k, i[k], r[k], w[k] }' "$TMP/tl.costs" |
    sort >"$TMP/tl.diff"
printf '%s\n' "heavy 0 0 0" "light 0 0 0" "mixed 0 0 0" >"$TMP/zero"
same_text "in tally's file, inclusive costs of those calls equal the callees' self costs" \
    "$TMP/zero" "$TMP/tl.diff"
