#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How near tally's inclusive costs of Callgrind's files come to the truth,
# on real programs: each program is recorded once by `tally record` (whose
# calls count each recursion once, so its inclusive costs are the time on
# the stack: the truth) and once by Callgrind (whose calls nest under
# recursion, so tally estimates the members of cycles), in one environment
# (`env -i`, one VALGRIND_LIB folder holding both tools).
#
#   sh bench/inclusive.sh        (run by bench/run.sh unless BENCH_INCL=no)
#   CG_OPTS=--separate-recs=1 sh bench/inclusive.sh   (Callgrind's options)
#   KEEP=1 sh bench/inclusive.sh                       (keep the files)
#
# Printed per program, on Ir, over the named functions whose truth is at
# least 0.5% of the total: how many, how many of them are estimates in
# Callgrind's file, the largest and the mean |estimate - truth| in points
# of the total (estimates only), and the same for callgrind_annotate
# --inclusive=yes (the sum of the calls into a function). Functions are
# matched by name and object; code without a symbol is left out (the two
# tools name it differently). Exit status: 0 when every command ran.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-incl-bench.XXXXXX") || exit 1
[ -n "$KEEP" ] || trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH_NAME=bench/inclusive
. "$ROOT/bench/lib.sh"
[ -x "$TALLY" ] || die "$TALLY is missing; run 'make'"
LIB=$TMP/vglib
mkdir -p "$LIB"
for f in "$ROOT"/build/valgrind/lib/*; do ln -s "$f" "$LIB/"; done
ln -s /usr/libexec/valgrind/callgrind-amd64-linux "$LIB/"
E="env -i PATH=/usr/bin:/bin PYTHONHASHSEED=0"

PY=/usr/bin/python3
CC1=$(gcc -print-prog-name=cc1 2>/dev/null)
SQL="create table t(a,b); with recursive c(x) as (select 1 union all select x+1 from c where x<5000) \
insert into t select x, x*7%1000 from c; create index i on t(b); \
select b, count(*), sum(a) from t group by b order by 2 desc limit 3;"
JS='import json
d = [{"a": i, "b": [i, str(i), {"c": i * 2}]} for i in range(3000)]
for _ in range(3): json.loads(json.dumps(d))'

echo "Inclusive costs of Callgrind's files against the time on the stack (tally record), on Ir"
printf '  %-8s %9s %9s %12s %12s %14s\n' program functions estimated "worst (pts)" "mean (pts)" \
    "c_a worst (pts)"
failed=0
for prog in python3 sqlite3 cc1 bzip2; do
    case $prog in
    python3) set -- "$PY" -c "$JS" ;;
    sqlite3) set -- /usr/bin/sqlite3 :memory: "$SQL" ;;
    cc1) gcc -E -o "$TMP/wf.i" "$ROOT/examples/wordfreq.c"
        set -- "$CC1" -fpreprocessed -quiet -O2 "$TMP/wf.i" -o "$TMP/wf.s" ;;
    bzip2) seq 1 100000 >"$TMP/numbers.txt"; set -- /bin/bzip2 -c "$TMP/numbers.txt" ;;
    esac
    d=$TMP/$prog
    mkdir -p "$d"
    if ! [ -x "$1" ] ||
        ! (cd "$d" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --out-file=tl.out \
            -- "$@" >/dev/null 2>"$d/rec.err") ||
        ! (cd "$d" && $E VALGRIND_LIB="$LIB" valgrind -q --tool=callgrind $CG_OPTS \
            --callgrind-out-file=cg.out "$@" >/dev/null 2>>"$d/rec.err") ||
        ! "$TALLY" convert --to=json -o "$d/tl.json" "$d/tl.out" ||
        ! "$TALLY" convert --to=json -o "$d/cg.json" "$d/cg.out" ||
        ! callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$d/cg.out" \
            >"$d/ca.txt" 2>/dev/null; then
        printf '  %-8s %9s\n' "$prog" FAILED
        failed=$((failed + 1))
        continue
    fi
    python3 - "$d/tl.json" "$d/cg.json" "$d/ca.txt" "$prog" <<'EOF'
import json, re, sys
def load(path):
    doc = json.load(open(path))
    total = doc["totals"][0] or 1
    out = {}
    for f in doc["functions"]:
        if f["name"].startswith("0x"):
            continue
        k = (f["name"], f["object"].rsplit("/", 1)[-1])
        v = 100.0 * f["inclusive"][0] / total
        if k in out:  # several files of one name: keep the largest
            v = max(v, out[k][0])
        out[k] = (v, f.get("estimated", False))
    return out, total
truth, ttotal = load(sys.argv[1])
est, _ = load(sys.argv[2])
# callgrind_annotate's rows: "N (P%) ...  file:function [object]"
ca = {}
for line in open(sys.argv[3]):
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+[^:]*:(.*?)(?: \[(.*)\])?$", line)
    if m:
        k = (m.group(2), (m.group(3) or "").rsplit("/", 1)[-1])
        ca[k] = max(ca.get(k, 0), int(m.group(1).replace(",", "")))
catotal = None
for line in open(sys.argv[3]):
    m = re.match(r"\s*([\d,]+) \(100.0%\).*PROGRAM TOTALS", line)
    if m:
        catotal = int(m.group(1).replace(",", ""))
n = ne = 0
worst = mean = caworst = 0.0
for k, (t, _) in truth.items():
    if t < 0.5 or k not in est:
        continue
    n += 1
    e, isest = est[k]
    if isest:
        ne += 1
        err = abs(e - t)
        worst = max(worst, err)
        mean += err
        if k in ca and catotal:
            caworst = max(caworst, abs(100.0 * ca[k] / catotal - t))
print("  %-8s %9d %9d %12.2f %12.2f %14.2f" % (sys.argv[4], n, ne, worst, mean / ne if ne else 0,
                                               caworst))
EOF
done
[ "$failed" = 0 ]
