#!/bin/sh
# Stacks estimated from a callgrind file's call arcs against the exact
# stacks of the same run (tally record --contexts=yes writes both files).
# The estimate splits a function's cost among its callers by the arcs'
# measured inclusive costs (docs/internals/stacks.md); where each
# function's callers are distinct it must give the exact stacks. On real
# programs (bzip2, sqlite3, python3) the error, the sum over all stacks of
# |estimated - exact| over the total, is printed for both rules
# (bench/stackerr.c, with the limits of tally convert): it must be below
# that of the call-count rule. The arcs are those of the contexts file
# converted to a callgrind file, so that both sides name functions alike;
# the error of the tool's own callgrind file is printed too (it names code
# without symbols by block, not by function, and code inlined from another
# file as a function of that file: docs/internals/stacks.md).
. "$(dirname "$0")/../lib.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)
# the error of folded stacks (small files): sum |estimated - exact| / total
cat >"$TMP/err.awk" <<'AEOF'
function load(f, a,   line, v, n) {
    while ((getline line < f) > 0) {
        v = line; sub(/.* /, "", v); sub(/ [^ ]*$/, "", line)
        a[line] += v; n += v
    }
    return n
}
BEGIN {
    total = load(ARGV[1], ex); load(ARGV[2], es)
    for (k in ex) { d = ex[k] - es[k]; err += d < 0 ? -d : d }
    for (k in es) if (!(k in ex)) err += es[k]
    printf "%.0f %.0f %.4f\n", err, total, total ? err / total : 0
    exit
}
AEOF
ERR="awk -f $TMP/err.awk"
STACKERR=$TMP/stackerr
cc -std=c17 -D_GNU_SOURCE -O2 -I"$ROOT/src" -o "$STACKERR" "$ROOT/bench/stackerr.c" \
    "$ROOT/build/libtally.a" -ldw -lelf -liberty -lpcre2-8 -lzstd -lz -lm ||
    not_ok "build bench/stackerr.c (make first)"
export TALLY_VALGRIND_LIB="$ROOT/build/valgrind/lib"

# record DIR PROGRAM ARGS... : the contexts and callgrind files of one run in $TMP/DIR
record() {
    d=$1
    shift
    mkdir -p "$TMP/$d"
    (cd "$TMP/$d" && "$TALLY" record --contexts=yes -- "$@" >/dev/null 2>"$TMP/$d.err") &&
        [ -f "$(ls "$TMP/$d"/tally.ctx.* 2>/dev/null | head -n 1)" ]
}

# folded DIR NAME FILE METHOD : FILE's stacks as $TMP/DIR/NAME.folded; the
# method line must match METHOD
folded() {
    (cd "$TMP/$1" && "$TALLY" convert --to=folded -o "$2.folded" "$3") 2>"$TMP/$1/$2.err"
    grep -q "$4" "$TMP/$1/$2.err"
}

# the cost lines of calls= set to 0: the same arcs with counts only
zero_arcs() {
    awk 'z { print $1, 0; z = 0; next } /^calls=/ { z = 1 } { print }' "$1"
}

# --- the shape of the issue: every function's callers are distinct --------
cat >"$TMP/tree.c" <<'CEOF'
/* main -> mid -> leaf -> work, main -> work, mid -> work; the calls of
   work cost differently: its many calls from mid and main are short */
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i * 3;
}
__attribute__((noinline)) static void leaf(void) { work(20000); }
__attribute__((noinline)) static void mid(void)
{
    leaf();
    for (int i = 0; i < 100; i++)
        work(10);
}
int main(void)
{
    mid();
    for (int i = 0; i < 50; i++)
        work(40);
    printf("%lu\n", sink);
    return 0;
}
CEOF
# the program's own frames below main
own() { grep -E ';main(;(mid|leaf|work))* [0-9]+$' "$1" | sed 's/.*;main/main/' | sort; }
if cc -O1 -g -o "$TMP/tree" "$TMP/tree.c" && record treerun "$TMP/tree"; then
    ok "tally record --contexts=yes of a program main -> mid -> leaf -> work"
    ctx=$(ls "$TMP"/treerun/tally.ctx.*)
    cgo=$(ls "$TMP"/treerun/tally.out.*)
    folded treerun exact "$ctx" "stacks exact"
    if folded treerun est "$cgo" "in proportion to the inclusive costs of their calls"; then
        ok "tree: the estimate from the callgrind file says it goes by the arcs' costs"
    else not_ok "tree: method line"; diag <"$TMP/treerun/est.err"; fi
    own "$TMP/treerun/exact.folded" >"$TMP/treerun/exact.own"
    own "$TMP/treerun/est.folded" >"$TMP/treerun/est.own"
    n=$(wc -l <"$TMP/treerun/exact.own")
    if [ "$n" -ge 5 ]; then
        same_text "tree: the estimated stacks of main, mid, leaf and work are the exact ones ($n stacks)" \
            "$TMP/treerun/exact.own" "$TMP/treerun/est.own"
    else not_ok "tree: the exact stacks have main;mid;leaf;work and the others ($n)"; fi
    zero_arcs "$cgo" >"$TMP/treerun/counts.out"
    if folded treerun cnt counts.out "in proportion to call counts"; then
        own "$TMP/treerun/cnt.folded" >"$TMP/treerun/cnt.own"
        e1=$($ERR "$TMP/treerun/exact.own" "$TMP/treerun/est.own")
        e2=$($ERR "$TMP/treerun/exact.own" "$TMP/treerun/cnt.own")
        if [ "${e1%% *}" = 0 ] && [ "${e2%% *}" != 0 ]; then
            ok "tree: error 0 by the arcs' costs, by call counts ${e2##* } (arcs without costs)"
        else not_ok "tree: errors by costs $e1, by counts $e2"; fi
    else not_ok "tree: arcs without costs go by call counts"; diag <"$TMP/treerun/cnt.err"; fi
else
    not_ok "tally record --contexts=yes of main -> mid -> leaf -> work"
    head -n 5 "$TMP/treerun.err" 2>/dev/null | diag
fi

# --- real programs -------------------------------------------------------
seq 1 40000 >"$TMP/numbers.txt"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
SQL="create table t(a,b); with recursive c(x) as (select 1 union all select x+1 from c where x<3000) \
insert into t select x, x*7%1000 from c; create index i on t(b); \
select b, count(*), sum(a) from t group by b order by 2 desc limit 3;"
for prog in bzip2 sqlite3 python3; do
    case $prog in
    bzip2) set -- bzip2 -c "$TMP/numbers.txt" ;;
    sqlite3) set -- sqlite3 :memory: "$SQL" ;;
    python3) set -- "$PY" -S -c 'print(sum(i * i for i in range(1000)))' ;;
    esac
    if ! command -v "$1" >/dev/null 2>&1; then
        not_ok "$prog is installed (scripts/install-deps.sh)"
        continue
    fi
    if ! record "$prog" "$@"; then
        not_ok "tally record --contexts=yes $prog"
        head -n 5 "$TMP/$prog.err" | diag
        continue
    fi
    d=$TMP/$prog
    ctx=$(ls "$d"/tally.ctx.*)
    cgo=$(ls "$d"/tally.out.*)
    (cd "$d" && "$TALLY" convert --to=callgrind -o arcs.out "$ctx") &&
        zero_arcs "$d/arcs.out" >"$d/counts.out" &&
        "$STACKERR" "$ctx" "$d/arcs.out" "$d/counts.out" "$cgo" >"$d/err.txt" 2>&1
    rc=$?
    e1=$(sed -n 1p "$d/err.txt")
    e2=$(sed -n 2p "$d/err.txt")
    e3=$(sed -n 3p "$d/err.txt" | cut -d' ' -f3)
    r1=$(echo "$e1" | cut -d' ' -f3)
    r2=$(echo "$e2" | cut -d' ' -f3)
    if [ "$rc" = 0 ] && echo "$e1" | grep -q "inclusive costs of their calls" &&
        echo "$e2" | grep -q "in proportion to call counts" &&
        awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a < b) }'; then
        ok "$prog: error of the estimated stacks $r1 by the arcs' costs, $r2 by call counts (total $(echo "$e1" | cut -d' ' -f2) Ir; from the tool's callgrind file $e3)"
    else
        not_ok "$prog: estimated stacks by the arcs' costs nearer the exact ones than by call counts"
        diag <"$d/err.txt"
    fi
done
check_written
echo "1..$TESTN"
