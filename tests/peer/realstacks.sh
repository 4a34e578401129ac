#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Real programs nobody here wrote: Debian's python3 (a JSON round trip),
# sqlite3 (5,000 inserts and an index) and gcc's cc1 (compiling an
# example), each recorded once by `tally record --contexts=yes`. The
# inclusive costs of the callgrind file (time on the stack, from calls that
# count each recursion once) and the time on the stack from the contexts
# file's folded stacks (a line's cost counts once for every function on
# its stack) must agree within 0.2 points of the total for the 40 functions
# with the largest inclusive cost; the JSON export must print annotate's
# numbers. Functions are compared by name; code without a symbol (0x...)
# and names given to several functions (static functions of one name in
# several files, the dynamic loader's `(below main)` twins) are left out.
. "$(dirname "$0")/../lib.sh"
command -v valgrind >/dev/null 2>&1 || {
    echo "ok 1 - real programs # SKIP valgrind is not installed"
    exit 0
}
export TALLY_VALGRIND_LIB="${TALLY_VALGRIND_LIB:-$TOOL_LIB}"
E="env -i PATH=$PEER_PATH PYTHONHASHSEED=0"
SQL="create table t(a,b); with recursive c(x) as (select 1 union all select x+1 from c where x<5000) \
insert into t select x, x*7%1000 from c; create index i on t(b); \
select b, count(*), sum(a) from t group by b order by 2 desc limit 3;"
JS='import json
d = [{"a": i, "b": [i, str(i), {"c": i * 2}]} for i in range(2000)]
print(len(json.loads(json.dumps(d))))'
CC1=$(gcc -print-prog-name=cc1 2>/dev/null)
gcc -E -o "$TMP/wf.i" "$ROOT/examples/wordfreq.c" 2>/dev/null

for prog in python3 sqlite3 cc1; do
    case $prog in
    python3) set -- /usr/bin/python3 -c "$JS" ;;
    sqlite3) set -- /usr/bin/sqlite3 :memory: "$SQL" ;;
    cc1) set -- "$CC1" -fpreprocessed -quiet -O1 "$TMP/wf.i" -o "$TMP/wf.s" ;;
    esac
    if ! [ -x "$1" ]; then
        ok "$prog # SKIP $1 is not installed"
        continue
    fi
    d=$TMP/$prog
    mkdir -p "$d"
    if ! (cd "$d" && $E TALLY_VALGRIND_LIB="$TALLY_VALGRIND_LIB" "$TALLY" record -q --contexts=yes \
        --out-file=tl.out --contexts-out-file=tl.ctx -- "$@" >/dev/null 2>rec.err); then
        not_ok "$prog: tally record --contexts=yes"
        diag <"$d/rec.err"
        continue
    fi
    (cd "$d" && "$TALLY" annotate --inclusive=yes --threshold=100 --auto=no --show=Ir \
        --show-percs=no tl.out) | awk '
        /^ *[0-9][0-9,]*  / { v = $1; gsub(/,/, "", v); r = $0; sub(/^ *[0-9,]+  /, "", r)
            if (r ~ /^<cycle/) next
            if (r ~ /PROGRAM TOTALS/) { print "\tTOTAL\t" v; next }
            sub(/^[^:]*:/, "", r); sub(/ \[.*$/, "", r); sub(/ <cycle [0-9]+>( \(estimated\))?$/, "", r)
            print r "\t" v }' >"$d/annotate.txt"
    "$TALLY" convert --to=folded -o "$d/tl.folded" "$d/tl.ctx" 2>/dev/null
    "$TALLY" convert --to=json -o "$d/tl.json" "$d/tl.out" 2>/dev/null
    if python3 - "$d/annotate.txt" "$d/tl.folded" "$d/tl.json" >"$d/cmp.txt" 2>&1 <<'EOF'; then
import json, sys
from collections import Counter
ann, names = {}, Counter()
total = 0
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) == 3:
        total = int(f[2])
        continue
    names[f[0]] += 1
    ann[f[0]] = int(f[1])
on = Counter()
for line in open(sys.argv[2]):
    stack, _, v = line.rstrip("\n").rpartition(" ")
    for f in set(stack.split(";")):
        on[f] += int(v)
js = Counter()
for f in json.load(open(sys.argv[3]))["functions"]:
    js[f["name"]] = max(js[f["name"]], f["inclusive"][0])
top = [n for n in sorted(ann, key=lambda n: -ann[n])
       if names[n] == 1 and not n.startswith("0x") and not n.startswith("???")][:40]
bad = 0
worst = 0.0
for n in top:
    d = 100.0 * abs(on[n] - ann[n]) / total
    worst = max(worst, d)
    if d > 0.2:
        print("%s: annotate %d, stacks %d (%.3f points)" % (n, ann[n], on[n], d))
        bad = 1
    if js[n] != ann[n]:
        print("%s: annotate %d, json %d" % (n, ann[n], js[n]))
        bad = 1
print("%d functions, largest difference %.3f points" % (len(top), worst))
sys.exit(bad or len(top) < 40 or total == 0)
EOF
        ok "$prog: inclusive costs and the contexts' stacks agree ($(tail -n 1 "$d/cmp.txt"))"
    else
        not_ok "$prog: inclusive costs and the contexts' stacks agree within 0.2 points"
        diag <"$d/cmp.txt"
    fi
done
echo "1..$TESTN"
