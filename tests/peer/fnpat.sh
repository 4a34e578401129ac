#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of tally record's function patterns, -q and --dump-instr
# addresses against Callgrind 3.19, in one environment (`env -i`, one
# VALGRIND_LIB holding both tools, as tests/peer/callgraph.sh):
#  - --toggle-collect with `*` and `?` patterns on a C++ program with
#    namespaces (demangled names, matching functions nested in each other)
#    gives Callgrind's totals, also given twice;
#  - a pattern that matches no function is reported, not under -q;
#  - -q: nothing on standard error, whatever files are written;
#  - --dump-instr=yes --collect-jumps=yes: the addresses of cost lines,
#    call targets and jump targets are Callgrind's (tests/tools/cgaddrs.py):
#    equal for the PIE's own code, Callgrind's all among tally's for the
#    shared libraries and the loader; and objdump on the PIE at the file's
#    address of a function disassembles that function (as KCachegrind's
#    Machine Code view does).
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
    ok "skipped: no Valgrind or no g++"
    exit 0
fi
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH"
if ! g++ -O0 -g -o "$TMP/shop" "$ROOT/tests/peer/fnpat/shop.cc" 2>"$TMP/ccerr"; then
    not_ok "the test program builds"
    diag <"$TMP/ccerr"
    exit 1
fi

cg() { # OUT OPTIONS...
    o=$1
    shift
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --callgrind-out-file="$o" \
        "$@" ./shop >/dev/null 2>"$o.err" </dev/null)
}
tl() { # OUT OPTIONS...
    o=$1
    shift
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record --cache-sim=no --out-file="$o" \
        "$@" ./shop >/dev/null 2>"$o.err" </dev/null)
}
total() { sed -n 's/^summary: \([0-9]*\).*/\1/p' "$1" | head -n 1; }

n=0
for pats in "*take*" "shop::Basket::tak?(int)" "shop::take_all(*)" "shop::????_all(*)|*::fill(*)" \
    "*count_taken*|main"; do
    n=$((n + 1))
    set -f # the patterns are options, not file names
    set --
    IFS='|'
    for p in $pats; do set -- "$@" "--toggle-collect=$p"; done
    unset IFS
    set +f
    cg "$TMP/p$n.cg" "$@"
    tl "$TMP/p$n.tl" "$@"
    a=$(total "$TMP/p$n.tl") b=$(total "$TMP/p$n.cg")
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" -gt 0 ]; then
        ok "--toggle-collect='$pats': total $a, as Callgrind's"
    else
        not_ok "--toggle-collect='$pats': total $a, Callgrind $b"
        tail -n 3 "$TMP/p$n.tl.err" | diag
    fi
    if grep -q "matched no function" "$TMP/p$n.tl.err"; then
        not_ok "--toggle-collect='$pats': no pattern reported as unmatched"
    else ok "--toggle-collect='$pats': no pattern reported as unmatched"; fi
done

tl "$TMP/none.tl" --toggle-collect='*nothing*' --toggle-collect='*take*'
if grep -q "^==[0-9]*== tally: warning: --toggle-collect=\*nothing\* matched no function that ran$" \
    "$TMP/none.tl.err" && [ "$(grep -c "matched no function" "$TMP/none.tl.err")" = 1 ]; then
    ok "a pattern that matches nothing is reported, the other not"
else
    not_ok "a pattern that matches nothing is reported, the other not"
    diag <"$TMP/none.tl.err"
fi

tl "$TMP/q.tl" -q --toggle-collect='*nothing*' --contexts=yes --contexts-out-file="$TMP/q.ctx" \
    --cachegrind-out-file="$TMP/q.cgf"
if [ ! -s "$TMP/q.tl.err" ] && [ -s "$TMP/q.tl" ] && [ -s "$TMP/q.ctx" ] && [ -s "$TMP/q.cgf" ]; then
    ok "-q: three files written and nothing said"
else
    not_ok "-q: three files written and nothing said"
    diag <"$TMP/q.tl.err"
fi

# addresses
cg "$TMP/i.cg" --dump-instr=yes --collect-jumps=yes
tl "$TMP/i.tl" -q --dump-instr=yes --collect-jumps=yes
python3 "$ROOT/tests/tools/cgaddrs.py" "$TMP/i.cg" >"$TMP/i.cga"
python3 "$ROOT/tests/tools/cgaddrs.py" "$TMP/i.tl" >"$TMP/i.tla"
# the PIE's own code (below 0x100000; PLT stubs and .init have no debug
# info and keep their run-time addresses, as in Callgrind)
grep -E '^shop .* 0x[0-9a-f]{1,5}$' "$TMP/i.cga" >"$TMP/pie.cg"
grep -E '^shop .* 0x[0-9a-f]{1,5}$' "$TMP/i.tla" >"$TMP/pie.tl"
if [ -s "$TMP/pie.cg" ]; then
    same_text "--dump-instr: the PIE's addresses equal Callgrind's ($(wc -l <"$TMP/pie.cg"))" \
        "$TMP/pie.cg" "$TMP/pie.tl"
else not_ok "--dump-instr: Callgrind wrote addresses within the PIE"; fi
for o in libc.so.6 ld-linux-x86-64.so.2; do
    grep "^$o " "$TMP/i.cga" | LC_ALL=C sort >"$TMP/o.cg"
    grep "^$o " "$TMP/i.tla" | LC_ALL=C sort >"$TMP/o.tl"
    miss=$(LC_ALL=C comm -23 "$TMP/o.cg" "$TMP/o.tl" | wc -l)
    if [ -s "$TMP/o.cg" ] && [ "$miss" = 0 ]; then
        ok "--dump-instr: Callgrind's $(wc -l <"$TMP/o.cg") addresses in $o are among tally's ($(wc -l <"$TMP/o.tl"))"
    else
        not_ok "--dump-instr: Callgrind's addresses in $o are among tally's ($miss missing)"
        LC_ALL=C comm -23 "$TMP/o.cg" "$TMP/o.tl" | head -n 5 | diag
    fi
done
# objdump at the file's address of take_all disassembles take_all
id=$(sed -n 's/^c\{0,1\}fn=(\([0-9]*\)) shop::take_all(.*/\1/p' "$TMP/i.tl" | head -n 1)
a=$(awk -v f="fn=($id)" '$0 == f || index($0, f " ") == 1 { getline; print $1; exit }' "$TMP/i.tl")
if [ -n "$a" ] && objdump -d -C --start-address="$a" --stop-address="$(printf '0x%x' $((a + 4)))" \
    "$TMP/shop" | grep -q "^0*${a#0x} <shop::take_all(shop::Basket&, int)>:"; then
    ok "objdump -d --start-address=$a (the file's address) starts shop::take_all"
else
    not_ok "objdump -d --start-address=$a (the file's address) starts shop::take_all"
fi
# tally's readers take the file as before
if "$TALLY" annotate "$TMP/i.tl" 2>/dev/null | grep -q "Auto-annotated source: .*shop.cc" &&
    "$TALLY" convert --to=pprof -o "$TMP/i.pb" "$TMP/i.tl" 2>/dev/null && [ -s "$TMP/i.pb" ]; then
    ok "--dump-instr file: tally annotate (annotated source) and convert --to=pprof read it"
else not_ok "--dump-instr file: tally annotate (annotated source) and convert --to=pprof read it"; fi
