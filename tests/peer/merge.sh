#!/bin/sh
# Peer test of `tally merge` on real Valgrind profiles of examples/.
#
# Cachegrind inputs: the result must hold the same costs as cg_merge 3.19's
# (per file, function and line, and the summary). The two outputs list
# lines in different orders, so both are reduced to a sorted list of
# "file<TAB>function<TAB>line<TAB>counts" (repeated lines summed, short
# lines padded with zeros) before comparing.
# Callgrind inputs: merging a file with itself must double every function's
# self cost as callgrind_annotate reports it, and every call count.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

if ! command -v cg_merge >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "# cg_merge or callgrind_annotate not installed"
    ok "skipped: no Valgrind tools"
    exit 0
fi
if ! make_profiles; then
    not_ok "make_profiles (valgrind on examples/)"
    exit 1
fi

# norm FILE [FACTOR]: per-line costs of a cachegrind file (times FACTOR),
# named by event so that event order does not matter.
norm() {
    awk -v f="${2:-1}" '
    /^events:/ { sub(/^events:[ \t]*/, ""); ne = split($0, ev, " "); next }
    /^fl=/ { fl = substr($0, 4); next }
    /^fn=/ { fn = substr($0, 4); next }
    /^summary:/ { n = split(substr($0, 9), a, " ")
                  for (i = 1; i <= n; i++) printf "summary %s %.0f\n", ev[i], a[i] * f
                  next }
    /^[0-9]/ { n = split($0, a, " "); k = fl "\t" fn "\t" a[1]; keys[k] = 1
               for (i = 2; i <= n; i++) if (a[i] != ".") c[k, i - 1] += a[i] * f
               next }
    END { for (k in keys) { s = k
              for (i = 1; i <= ne; i++) s = s sprintf(" %s=%.0f", ev[i], c[k, i])
              print s } }' "$1" | sort
}

A=$PROF/cache.wordfreq.out
B=$PROF/cache.wordfreq2.out
C=$PROF/cache.recurse.out
M=$PROF/cache.matrix.out

# 1. two files, as cg_merge
"$TALLY" merge -o "$TMP/t2.out" "$A" "$B" 2>"$TMP/err" && cg_merge -o "$TMP/c2.out" "$A" "$B" 2>/dev/null
norm "$TMP/t2.out" >"$TMP/t2.n"
norm "$TMP/c2.out" >"$TMP/c2.n"
same_text "two cachegrind files: same costs as cg_merge" "$TMP/c2.n" "$TMP/t2.n"
if [ "$(grep -c . "$TMP/t2.n")" -gt 1000 ]; then ok "the comparison covers many lines"; else
    not_ok "the comparison covers many lines"; fi
same_text "no warnings on real files" /dev/null "$TMP/err"

# 2. three files (different programs), one of them gzip-compressed
gzip -c "$C" >"$TMP/c.out.gz"
"$TALLY" merge "$A" "$B" "$TMP/c.out.gz" >"$TMP/t3.out" && cg_merge -o "$TMP/c3.out" "$A" "$B" "$C" 2>/dev/null
norm "$TMP/t3.out" >"$TMP/t3.n"
norm "$TMP/c3.out" >"$TMP/c3.n"
same_text "three files, one gzip: same costs as cg_merge" "$TMP/c3.n" "$TMP/t3.n"

# 3. cg_merge 3.19 (a strict parser that checks the summary) accepts our output
if cg_merge -o "$TMP/again.out" "$TMP/t3.out" 2>"$TMP/cgerr"; then
    norm "$TMP/again.out" >"$TMP/again.n"
    same_text "cg_merge reads tally's output back unchanged" "$TMP/t3.n" "$TMP/again.n"
else
    not_ok "cg_merge reads tally's output back unchanged"; diag <"$TMP/cgerr"
fi

# 4. N copies of a file = N times each cost
"$TALLY" merge "$M" "$M" "$M" >"$TMP/m3.out"
norm "$TMP/m3.out" >"$TMP/m3.n"
norm "$M" 3 >"$TMP/m3x.n"
same_text "three copies of cache.matrix.out = 3 x each cost" "$TMP/m3x.n" "$TMP/m3.n"

# 5. callgrind: self cost per function (callgrind_annotate) and call counts double;
# the program total stays callgrind_annotate's total of the original, doubled
fnsums() { # FILE EVENT [FACTOR]: callgrind_annotate's function table, "name cost" lines
    callgrind_annotate --threshold=100 --show="$2" "$1" |
        awk -v f="${3:-1}" '/file:function/ { on = 1; getline; next }
             on && /^ *[0-9,]+ / { v = $1; gsub(/,/, "", v); $1 = ""; $2 = ""; print $0, v * f }
             on && /^$/ { on = 0 }' | sort
}
calls() { # total call count per (caller, callee) name pair
    awk -v f="${2:-1}" '
    function name(v,   id) {
        if (v ~ /^\([0-9]+\)/) { id = v; sub(/\).*/, ")", id); sub(/^\([0-9]+\) ?/, "", v)
            if (v != "") nm[id] = v; return nm[id] }
        return v }
    /^fn=/ { fn = name(substr($0, 4)); next }
    /^cfn=/ { cfn = name(substr($0, 5)); next }
    /^calls=/ { split(substr($0, 7), a, " "); s[fn " -> " cfn] += a[1] * f }
    END { for (k in s) printf "%s %.0f\n", k, s[k] }' "$1" | sort
}
for spec in cg.recurse.out:Ir cgx.wordfreq.out:Ir cgx.wordfreq.out:D1mr cgx.wordfreq.out:Bcm; do
    base=${spec%%:*} ev=${spec#*:}
    F=$PROF/$base
    # (compared with tally's rewrite of the single file: how callgrind_annotate
    # files a function's inlined code depends on the writer's fl=/fi= choices)
    if "$TALLY" merge "$F" "$F" >"$TMP/cg2.out" 2>"$TMP/err" &&
        "$TALLY" merge "$F" >"$TMP/cg1.out" 2>"$TMP/err"; then
        fnsums "$TMP/cg2.out" "$ev" >"$TMP/cg2.f"
        fnsums "$TMP/cg1.out" "$ev" 2 >"$TMP/cgx2.f"
        same_text "callgrind $base twice: $ev per function doubled (callgrind_annotate)" "$TMP/cgx2.f" "$TMP/cg2.f"
    else
        not_ok "callgrind merge of $base"; diag <"$TMP/err"
    fi
done
total() { # FILE EVENT [FACTOR]: sum of callgrind_annotate's function table
    fnsums "$@" | awk '{ s += $NF } END { printf "%.0f\n", s }'
}
for base in cg.recurse.out cgx.wordfreq.out; do
    F=$PROF/$base
    "$TALLY" merge "$F" "$F" >"$TMP/cg2.out" 2>/dev/null
    total "$TMP/cg2.out" Ir >"$TMP/t.got"
    total "$F" Ir 2 >"$TMP/t.want"
    same_text "callgrind $base twice: doubled Ir total over all functions" "$TMP/t.want" "$TMP/t.got"
    calls "$TMP/cg2.out" >"$TMP/cg2.c"
    calls "$F" 2 >"$TMP/cgx2.c"
    same_text "callgrind $base twice: call counts doubled" "$TMP/cgx2.c" "$TMP/cg2.c"
done

# 6. a callgrind file of several parts becomes one part with their sum
P=$PROF/cgparts.recurse.out
"$TALLY" merge -o "$TMP/parts.out" "$P"
want=$(awk '/^totals:/ { s += $2 } END { printf "%.0f", s }' "$P")
got=$(awk '/^(summary|totals):/ { print $2; exit }' "$TMP/parts.out")
nparts=$(grep -c '^part:' "$TMP/parts.out")
if [ "$want" = "$got" ] && [ "$nparts" -le 1 ]; then ok "parts folded into one: total $got"; else
    not_ok "parts folded into one (want total $want got $got, $nparts parts)"; fi
fn1=$(fnsums "$TMP/parts.out" Ir | awk '{ s += $NF } END { print s }')
if [ "$fn1" = "$want" ]; then ok "folded parts: function costs add up to the total"; else
    not_ok "folded parts: function costs $fn1, want $want"; fi

# 7. mixed formats with events in another order: cachegrind + callgrind
X=$PROF/cgx.matrix.out
"$TALLY" merge --format=cachegrind "$M" "$X" >"$TMP/mix.out" 2>"$TMP/err"
awk '/^summary:/ { print }' "$TMP/mix.out" >"$TMP/mix.s"
# the expected sum per event: cachegrind summary + callgrind 'totals:' (its
# self-cost sum; its 'summary:' is a little off, a known Callgrind quirk)
awk '/^events:/ { print } /^totals:/ { sub(/^totals:/, "summary:"); print }' "$X" >"$TMP/x.out"
{ norm "$M" | grep '^summary'; norm "$TMP/x.out" | grep '^summary'; } |
    awk '{ s[$2] += $3 } END { for (e in s) printf "summary %s %.0f\n", e, s[e] }' | sort >"$TMP/mix.want"
norm "$TMP/mix.out" | grep '^summary' >"$TMP/mix.got"
same_text "cachegrind + callgrind (events in another order) summed per event" "$TMP/mix.want" "$TMP/mix.got"
head -n 5 "$TMP/mix.out" | grep '^events:' >"$TMP/mix.ev"
echo "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim" >"$TMP/mix.evw"
same_text "events in the first file's order" "$TMP/mix.evw" "$TMP/mix.ev"
"$TALLY" merge "$M" "$X" 2>/dev/null | head -n 1 >"$TMP/mix.first"
echo "# callgrind format" >"$TMP/mix.firstw"
same_text "mixed inputs without --format give callgrind" "$TMP/mix.firstw" "$TMP/mix.first"
check_written
