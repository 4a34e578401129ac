#!/bin/sh
# Peer test of `tally record` against Cachegrind 3.19 run with
# --vex-guest-chase=no (the setting under which Cachegrind counts only
# instructions that ran; tally always counts that way).
#
# Each program runs twice in the same environment: `env -i` with the same
# PATH and the same VALGRIND_LIB (a private lib dir made here holding both
# tally's tool and Cachegrind's, so the client sees identical environment
# strings), the same working directory and the same arguments. Compared:
#  - every event of every (file, function) in the cachegrind-format files
#    (tally's --cachegrind-out-file against Cachegrind's file), and the
#    summary line;
#  - the end-of-run text on stderr, from "I   refs:" on;
#  - tally's callgrind-format file: its per-function sums equal those of its
#    cachegrind-format file, and callgrind_annotate and tally annotate
#    read it with the same total.
# Modes: --cache-sim=no (Ir; Dr/Dw are checked in the next mode, where
# Cachegrind counts them), and explicit --I1/--D1/--LL with --branch-sim=yes.
. "$(dirname "$0")/../lib.sh"

peer_start
make -s -C "$ROOT/examples" >/dev/null || { not_ok "examples build"; exit 1; }

LIB=$TMP/lib
peer_valgrind_lib "$LIB" cachegrind
E="env -i PATH=$PEER_PATH"

# An awk function for the programs below: nm(v) resolves a compressed name
# ("(id) name" defines it, "(id)" refers to it).
NM_AWK='function nm(v,   id, r) {
    if (v !~ /^\(/) return v
    id = substr(v, 1, index(v, ")")); r = substr(v, index(v, ")") + 2)
    if (r != "") n[id] = r
    return n[id]
}'

# Sums per (file, function) and event: "file:fn EVENT value" for values != 0,
# plus "TOTAL EVENT value" from the summary line.
cg_sums() {
    awk '/^events:/ { n = NF - 1; for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
        /^fl=/ { fl = substr($0, 4); next }
        /^fn=/ { fn = substr($0, 4); next }
        /^summary:/ { for (i = 2; i <= NF; i++) print "TOTAL", ev[i - 1], $i; next }
        /^[0-9]/ { for (i = 2; i <= NF; i++) s[fl ":" fn " " ev[i - 1]] += $i }
        END { for (k in s) if (s[k]) print k, s[k] }' "$1" | LC_ALL=C sort
}

# The same from a callgrind-format file of tally's (fl= fn= with name
# compression, positions "line" or "instr line", trailing zeros left out;
# the inclusive cost line after each calls= is not self cost). Code without
# a symbol is "0x<address>" there and "???" in the cachegrind format.
cl_sums() {
    awk '/^positions:/ { np = NF - 1; next }
        /^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
        /^fl=/ { v = substr($0, 4); fl = base = names("fl", v); next }
        /^f[ie]=/ { v = substr($0, 4); fl = names("fl", v); next }
        /^fn=/ { v = substr($0, 4); fn = names("fn", v); fl = base; if (fn ~ /^0x[0-9a-f]+$/) fn = "???"; next }
        /^cfi=/ { names("fl", substr($0, 5)); next }
        /^cfn=/ { names("fn", substr($0, 5)); next }
        /^calls=/ { skip = 1; next }
        skip { skip = 0; next }
        /^summary:/ { for (i = 2; i <= NF; i++) print "TOTAL", ev[i - 1], $i; next }
        /^(0x|[0-9+*-])/ { for (i = np + 1; i <= NF; i++) s[fl ":" fn " " ev[i - np]] += $i }
        END { for (k in s) if (s[k]) print k, s[k] }
        function names(kind, v,   id, rest) {
            if (v !~ /^\(/) return v
            id = substr(v, 1, index(v, ")"))
            rest = substr(v, index(v, ")") + 2)
            if (rest != "") tab[kind id] = rest
            return tab[kind id]
        }' "$1" | LC_ALL=C sort
}

# The sums per (file, function) as sums per file: the callgrind format
# names code without a symbol after the function it runs for (a PLT stub
# after its target, code reached by jumps after the function whose frame it
# runs in), the cachegrind format names it ???.
per_file() {
    awk '$1 == "TOTAL" { print; next }
        { f = substr($0, 1, index($0, ":") - 1); s[f " " $(NF - 1)] += $NF }
        END { for (k in s) if (s[k]) print k, s[k] }' | LC_ALL=C sort
}

# --separate-threads=yes writes one file per thread, NAME-01, NAME-02, ...
# (as Callgrind names them), each with its own header and totals. as_parts
# NAME puts them into NAME as parts 1, 2, ... in thread order (headers but
# the first dropped), for the checks that compare the threads side by side.
as_parts() {
    for f in "$1"-[0-9][0-9]; do [ -f "$f" ] && cat "$f"; done |
        awk '/^# callgrind format/ { nf++ }
            nf > 1 && /^(# callgrind format|version:|creator:|pid:|cmd:)/ { next }
            /^part:/ { print "part: " ++n; next } { print }' >"$1"
}

# Keep the lines of $2 whose event (2nd field) occurs in $1's events.
only_events_of() {
    evs=$(sed -n 's/^events: *//p' "$1")
    awk -v evs="$evs" 'BEGIN { n = split(evs, a, " "); for (i = 1; i <= n; i++) keep[a[i]] = 1 }
        keep[$(NF - 1)]' "$2"
}

# compare NAME DIR MODE-OPTIONS PROG ARGS...
compare() {
    name=$1 dir=$2 opts=$3
    shift 3
    rm -f "$TMP"/cg.out "$TMP"/t.cg "$TMP"/t.cl
    (cd "$dir" && $E VALGRIND_LIB="$LIB" valgrind --tool=cachegrind --vex-guest-chase=no $opts \
        --cachegrind-out-file="$TMP/cg.out" "$@" >/dev/null 2>"$TMP/cg.err" </dev/null)
    (cd "$dir" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record $opts --out-file="$TMP/t.cl" \
        --cachegrind-out-file="$TMP/t.cg" "$@" >/dev/null 2>"$TMP/t.err" </dev/null)
    if [ ! -s "$TMP/cg.out" ] || [ ! -s "$TMP/t.cg" ] || [ ! -s "$TMP/t.cl" ]; then
        not_ok "$name: both tools wrote their files"
        { cat "$TMP/cg.err"; cat "$TMP/t.err"; } | tail -n 20 | diag
        return
    fi
    cg_sums "$TMP/cg.out" >"$TMP/cg.sums"
    cg_sums "$TMP/t.cg" >"$TMP/t.all"
    only_events_of "$TMP/cg.out" "$TMP/t.all" >"$TMP/t.sums"
    n=$(grep -vc '^TOTAL' "$TMP/cg.sums")
    same_text "$name: per-function events and totals equal Cachegrind's ($n values)" \
        "$TMP/cg.sums" "$TMP/t.sums"
    # ("I   refs:" until Valgrind 3.20, "I refs:" from 3.21)
    sed -n '/I  *refs:/,$s/^==[0-9]*== //p' "$TMP/cg.err" >"$TMP/cg.sum"
    sed -n '/I  *refs:/,$s/^==[0-9]*== //p' "$TMP/t.err" >"$TMP/t.sum"
    if [ -s "$TMP/cg.sum" ]; then
        same_text "$name: end-of-run summary equals Cachegrind's" "$TMP/cg.sum" "$TMP/t.sum"
    else
        not_ok "$name: Cachegrind printed a summary"
    fi
    cl_sums "$TMP/t.cl" | per_file >"$TMP/t.clsums"
    per_file <"$TMP/t.all" >"$TMP/t.allu"
    same_text "$name: callgrind-format file has the same costs" "$TMP/t.allu" "$TMP/t.clsums"
    tot=$(sed -n 's/^summary: //p' "$TMP/t.cl" | awk '{ print $1 }')
    commas=$(echo "$tot" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta')
    if callgrind_annotate "$TMP/t.cl" 2>&1 | grep -q "^$commas .*PROGRAM TOTALS"; then
        ok "$name: callgrind_annotate reads the callgrind file (total Ir $commas)"
    else
        not_ok "$name: callgrind_annotate reads the callgrind file (total Ir $commas)"
        callgrind_annotate "$TMP/t.cl" 2>&1 | head -n 20 | diag
    fi
    if cg_annotate "$TMP/t.cg" 2>&1 | grep -q "^$commas .*PROGRAM TOTALS"; then
        ok "$name: cg_annotate reads the cachegrind file"
    else
        not_ok "$name: cg_annotate reads the cachegrind file"
        cg_annotate "$TMP/t.cg" 2>&1 | head -n 20 | diag
    fi
    if "$TALLY" annotate --auto=no "$TMP/t.cl" 2>&1 | grep -q "^$commas .*PROGRAM TOTALS"; then
        ok "$name: tally annotate reads the callgrind file"
    else
        not_ok "$name: tally annotate reads the callgrind file"
        "$TALLY" annotate --auto=no "$TMP/t.cl" 2>&1 | head -n 20 | diag
    fi
}

# --cache-sim=yes given: Cachegrind 3.21 and later simulate no cache by
# default, even with --I1/--D1/--LL (tally turns the simulation on for them,
# as Cachegrind 3.19 and 3.20 did)
CACHES="--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64"
EX=$ROOT/examples
printf 'the quick brown fox jumps over the lazy dog %s\n' $(seq 1 400) >"$TMP/input.txt"

compare "recurse, --cache-sim=no" "$EX" "--cache-sim=no" ./recurse
compare "recurse, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./recurse
compare "wordfreq 3000, --cache-sim=no" "$EX" "--cache-sim=no" ./wordfreq 3000
compare "wordfreq 3000, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./wordfreq 3000
compare "matrix 30, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./matrix 30
compare "matrix 30, other caches" "$EX" "--cache-sim=yes --I1=16384,4,32 --D1=8192,2,64 --LL=131072,8,128" ./matrix 30
compare "signals, --cache-sim=no" "$EX" "--cache-sim=no" ./signals
compare "signals, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./signals
for p in gzip bzip2 xz; do
    if command -v $p >/dev/null 2>&1; then
        compare "$p -c, --cache-sim=no" "$TMP" "--cache-sim=no" $p -c input.txt
        compare "$p -c, caches + branches" "$TMP" "$CACHES --branch-sim=yes" $p -c input.txt
        # tiny direct-mapped caches, I1 lines shorter than LL lines: most
        # fetches miss, and the fetches tally leaves out as sure hits (the
        # rest of the line of the previous instruction) must still agree
        compare "$p -c, tiny direct-mapped caches" "$TMP" \
            "--cache-sim=yes --I1=1024,1,32 --D1=1024,1,32 --LL=16384,1,64" $p -c input.txt
    else
        ok "skipped: $p not installed"
    fi
done
# sqlite3 and jq with small inputs (scripts/install-deps.sh installs them)
SQL="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<400) SELECT count(*), sum(x*x), group_concat(x % 7, '') FROM c WHERE x % 3 = 1;"
JQ='[.[] | select(.a % 3 == 0) | {k: .b, s: (.c | add)}] | sort_by(.s) | map(.k) | join(",") | length'
{
    printf '['
    for i in $(seq 1 300); do printf '{"a":%d,"b":"w%d","c":[%d,%d]},' $i $i $((i * 3)) $((i % 7)); done
    printf '{"a":0,"b":"end","c":[]}]\n'
} >"$TMP/input.json"
if command -v sqlite3 >/dev/null 2>&1; then
    compare "sqlite3 :memory:, --cache-sim=no" "$TMP" "--cache-sim=no" sqlite3 :memory: "$SQL"
    compare "sqlite3 :memory:, caches + branches" "$TMP" "$CACHES --branch-sim=yes" sqlite3 :memory: "$SQL"
else
    ok "skipped: sqlite3 not installed"
fi
if command -v jq >/dev/null 2>&1; then
    compare "jq, --cache-sim=no" "$TMP" "--cache-sim=no" jq "$JQ" input.json
    compare "jq, caches + branches" "$TMP" "$CACHES --branch-sim=yes" jq "$JQ" input.json
else
    ok "skipped: jq not installed"
fi

# --dump-instr=yes: the same per-function costs as per line.
(cd "$EX" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --dump-instr=yes $CACHES \
    --out-file="$TMP/i.cl" --cachegrind-out-file="$TMP/i.cg" ./recurse >/dev/null 2>&1)
cl_sums "$TMP/i.cl" | per_file >"$TMP/i.clsums"
cg_sums "$TMP/i.cg" | per_file >"$TMP/i.cgsums"
same_text "--dump-instr=yes: per-instruction file sums to the per-line costs" "$TMP/i.cgsums" "$TMP/i.clsums"
if grep -q '^positions: instr line' "$TMP/i.cl"; then ok "--dump-instr=yes: positions: instr line"; else
    not_ok "--dump-instr=yes: positions: instr line"; fi

# --- The call graph (--calls=yes, the default) ---------------------------
# A program whose calls are known by construction: direct and mutual
# recursion, a call through a function pointer, longjmp out of a recursion
# (main's next call must be main's again), a second thread.
cat >"$TMP/calls.c" <<'EOF'
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#define NI __attribute__((noinline, noclone))
static volatile int sink;
static jmp_buf jb;
NI static int leaf(int x) { sink += x; return x + 1; }
NI static int rec(int n) { return n <= 0 ? leaf(n) : rec(n - 1) + 1; }
NI static int ping(int n);
NI static int pong(int n) { sink++; return n <= 0 ? 0 : ping(n - 1) + 1; }
NI static int ping(int n) { sink++; return n <= 0 ? 0 : pong(n - 1) + 1; }
NI static int viaptr(int (*f)(int), int x) { return f(x) + 1; }
NI static void thrower(int n) { if (n == 0) longjmp(jb, 1); thrower(n - 1); sink++; }
NI static void after_jump(void) { sink++; }
NI static void *worker(void *arg) { for (int i = 0; i < 3; i++) leaf(i); return arg; }
int main(int argc, char **argv)
{
    rec(10);
    ping(9);
    for (int i = 0; i < 7; i++) viaptr(leaf, i);
    for (int k = 0; k < 3; k++) {
        if (!setjmp(jb)) thrower(4);
        after_jump();
    }
    if (argc > 1) return 0; /* no thread: a deterministic cost */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return argv[0][0] == 0;
}
EOF
# caller -> callee count, summed over call sites, from a callgrind file
# (FILE [PART]: only that part's)
arcs_of() {
    awk -v P="${2:-}" "$NM_AWK"'
        /^part:/ { part = $2 }
        /^fn=/ { fn = nm(substr($0, 4)) }
        /^cfn=/ { cfn = nm(substr($0, 5)) }
        /^calls=/ { split(substr($0, 7), a, " "); if (P == "" || part == P) c[fn " -> " cfn] += a[1] }
        END { for (k in c) print k, c[k] }' "$1" | LC_ALL=C sort
}
# Inclusive Ir of FUNCTION: the Ir of the calls into it (first cost after
# each calls= line whose cfn= is FUNCTION; positions: line)
incl_ir() {
    awk -v f="$2" "$NM_AWK"'
        /^cfn=/ { cfn = nm(substr($0, 5)); next }
        /^fn=/ { nm(substr($0, 4)); next }
        /^calls=/ { want = (cfn == f); next }
        want { s += $2; want = 0 }
        END { print s + 0 }' "$1"
}
# within_permille NAME A B : |A - B| <= B / 1000
within_permille() {
    if [ -n "$2" ] && [ -n "$3" ] && [ $(( ($2 - $3) * ($2 - $3) * 1000000 )) -le $(( $3 * $3 )) ]; then
        ok "$1 ($2 vs Callgrind's $3)"
    else
        not_ok "$1 ($2 vs Callgrind's $3)"
    fi
}
if ${CC:-gcc} -O1 -g -o "$TMP/calls" "$TMP/calls.c" -lpthread 2>"$TMP/cc.err"; then
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/calls.cl" ./calls >/dev/null 2>&1)
    arcs_of "$TMP/calls.cl" |
        grep -E '^(main|rec|ping|pong|viaptr|thrower|worker|start_thread) -> (leaf|rec|ping|pong|viaptr|thrower|after_jump|worker) ' >"$TMP/arcs"
    cat >"$TMP/arcs.exp" <<'EOF'
main -> after_jump 3
main -> ping 1
main -> rec 1
main -> thrower 3
main -> viaptr 7
ping -> pong 5
pong -> ping 4
rec -> leaf 1
rec -> rec 10
start_thread -> worker 1
thrower -> thrower 12
viaptr -> leaf 7
worker -> leaf 3
EOF
    same_text "calls: counts as constructed (recursion, mutual recursion, pointer, longjmp, thread)" \
        "$TMP/arcs.exp" "$TMP/arcs"
    # without the thread: how long main waits in pthread_join depends on the schedule
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/calls.cl" ./calls 1 >/dev/null 2>&1)
    (cd "$TMP" && valgrind -q --tool=callgrind --callgrind-out-file="$TMP/calls.cg" ./calls 1 >/dev/null 2>&1)
    within_permille "calls: inclusive Ir of main within 0.1% of Callgrind's" \
        "$(incl_ir "$TMP/calls.cl" main)" "$(incl_ir "$TMP/calls.cg" main)"
else
    not_ok "calls: test program builds"
    diag <"$TMP/cc.err"
fi
(cd "$EX" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/rec.cl" ./recurse >/dev/null 2>&1)
(cd "$EX" && valgrind -q --tool=callgrind --callgrind-out-file="$TMP/rec.cg" ./recurse >/dev/null 2>&1)
within_permille "recurse: inclusive Ir of main within 0.1% of Callgrind's" \
    "$(incl_ir "$TMP/rec.cl" main)" "$(incl_ir "$TMP/rec.cg" main)"
arcs_of "$TMP/rec.cl" | grep -E '^(main|fib|chain) -> (fib|leaf|chain) ' >"$TMP/rarcs"
# examples/recurse.c: fib(18) makes 2 fib(19) - 1 = 8361 fib calls (1 from
# main) and fib(19) = 4181 leaf calls; chain(5000) calls leaf 5000 times.
printf '%s\n' "chain -> leaf 5000" "fib -> fib 8360" "fib -> leaf 4181" "main -> chain 1" "main -> fib 1" >"$TMP/rarcs.exp"
same_text "recurse: fib and chain call counts" "$TMP/rarcs.exp" "$TMP/rarcs"
(cd "$EX" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/wf.cl" ./wordfreq 3000 >/dev/null 2>&1)
(cd "$EX" && valgrind -q --tool=callgrind --callgrind-out-file="$TMP/wf.cg" ./wordfreq 3000 >/dev/null 2>&1)
within_permille "wordfreq: inclusive Ir of main within 0.1% of Callgrind's" \
    "$(incl_ir "$TMP/wf.cl" main)" "$(incl_ir "$TMP/wf.cg" main)"
# wordfreq has no multi-function recursion (qsort's msort_with_tmp only calls
# itself), so no cycle may appear; code without a symbol is named by its
# address and object, never one shared "???" node that links unrelated code.
"$TALLY" annotate --auto=no --inclusive=yes "$TMP/wf.cl" >"$TMP/wf.ann" 2>&1
if grep -q '<cycle' "$TMP/wf.ann" || ! grep -q 'wordfreq.c:main' "$TMP/wf.ann"; then
    not_ok "wordfreq: no <cycle> in tally annotate --inclusive=yes"
    grep '<cycle' "$TMP/wf.ann" | head -n 5 | diag
else
    ok "wordfreq: no <cycle> in tally annotate --inclusive=yes"
fi
if grep -qE '^c?fn=(\([0-9]+\) )?\?\?\?$' "$TMP/wf.cl"; then
    not_ok "wordfreq: no function named ??? in the callgrind-format file"
elif ! grep -qE '^c?fn=(\([0-9]+\) )?0x[0-9a-f]{16}$' "$TMP/wf.cl" || ! grep -q '^ob=' "$TMP/wf.cl"; then
    not_ok "wordfreq: unnamed code is named 0x<16 hex digits>, with ob= lines"
else
    ok "wordfreq: no function named ??? in the callgrind-format file; ob= and 0x names"
fi

# C++ exceptions: the unwinding closes the thrower frames, so the handler's
# call is main's again.
if command -v ${CXX:-g++} >/dev/null 2>&1; then
    cat >"$TMP/ex.cc" <<'EOF'
#include <stdexcept>
__attribute__((noinline)) int thrower(int n)
{
    if (n == 0) throw std::runtime_error("x");
    return thrower(n - 1) + 1;
}
__attribute__((noinline)) int after(int x) { return x + 1; }
int main()
{
    int s = 0;
    for (int i = 0; i < 5; i++) {
        try {
            s += thrower(3);
        } catch (const std::exception &) {
            s += after(i);
        }
    }
    return s == 0;
}
EOF
    if ${CXX:-g++} -O1 -g -o "$TMP/ex" "$TMP/ex.cc" 2>"$TMP/cc.err"; then
        (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/ex.cl" ./ex >/dev/null 2>&1)
        arcs_of "$TMP/ex.cl" | grep -E '^(main|thrower\(int\)) -> (after|thrower)' >"$TMP/exarcs"
        printf '%s\n' "main -> after(int) 5" "main -> thrower(int) 5" "thrower(int) -> thrower(int) 15" >"$TMP/exarcs.exp"
        same_text "C++ exceptions: call counts as constructed" "$TMP/exarcs.exp" "$TMP/exarcs"
    else
        not_ok "C++ exceptions: test program builds"
        diag <"$TMP/cc.err"
    fi
else
    ok "skipped: no C++ compiler"
fi

# Signal handlers (examples/signals.c): each handler is called by a
# `<signal N>` root, not by the function it interrupted; after it returns
# (or siglongjmps out) the interrupted stack goes on.
self_out() { # FILE FUNCTION: "SELF OUT" Ir (self, and inclusive of its calls)
    awk -v F="$2" "$NM_AWK"'
        /^fn=/ { fn = nm(substr($0, 4)); next }
        /^cfn=/ { nm(substr($0, 5)); next }
        /^(c?fl|c?fi|fe|c?ob)=/ { next }
        /^calls=/ { getline; if (fn == F) out += $2; next }
        /^[0-9+*-]/ { if (fn == F) self += $2 }
        END { print self + 0, out + 0 }' "$1"
}
arc_cost() { # FILE CALLER CALLEE: the inclusive cost of the calls, each event
    awk -v A="$2" -v B="$3" "$NM_AWK"'
        /^events:/ { ne = NF - 1 }
        /^fn=/ { fn = nm(substr($0, 4)) }
        /^cfn=/ { cfn = nm(substr($0, 5)) }
        /^calls=/ { getline; if (fn == A && cfn == B) for (k = 2; k <= NF; k++) s[k] += $k }
        END { for (k = 2; k <= ne + 1; k++) printf "%s%d", (k > 2 ? " " : ""), s[k]; print "" }' "$1"
}
arc_ir() { # FILE CALLER CALLEE: inclusive Ir of the calls
    arc_cost "$@" | awk '{ print $1 }'
}
(cd "$EX" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/sig.cl" ./signals >/dev/null 2>&1)
(cd "$EX" && valgrind -q --tool=callgrind --callgrind-out-file="$TMP/sig.cg" ./signals >/dev/null 2>&1)
arcs_of "$TMP/sig.cl" |
    grep -E '^(main|interrupted|deep|on_usr1|on_usr2|<signal [0-9]+>) -> (interrupted|busy|deep|after_jump|counted|on_usr1|on_usr2) ' >"$TMP/sarcs"
printf '%s\n' "<signal 10> -> on_usr1 3" "<signal 12> -> on_usr2 2" "deep -> deep 6" \
    "interrupted -> busy 6" "main -> after_jump 2" "main -> busy 1" "main -> deep 2" \
    "main -> interrupted 3" "on_usr1 -> counted 12" "on_usr2 -> counted 2" >"$TMP/sarcs.exp"
same_text "signals: calls as constructed (handlers under <signal N>, stacks intact after return and siglongjmp)" \
    "$TMP/sarcs.exp" "$TMP/sarcs"
set -- $(self_out "$TMP/sig.cl" interrupted)
inc=$(arc_ir "$TMP/sig.cl" main interrupted)
if [ "$1" -gt 0 ] && [ "$inc" = $(($1 + $2)) ]; then
    ok "signals: inclusive Ir of interrupted = its self + its calls ($inc = $1 + $2): no handler cost in it"
else
    not_ok "signals: inclusive Ir of interrupted = its self + its calls ($inc vs $1 + $2)"
fi
within_permille "signals: inclusive Ir of main within 0.1% of Callgrind's" \
    "$(incl_ir "$TMP/sig.cl" main)" "$(incl_ir "$TMP/sig.cg" main)"
within_permille "signals: inclusive Ir of interrupted within 0.1% of Callgrind's" \
    "$(arc_ir "$TMP/sig.cl" main interrupted)" "$(arc_ir "$TMP/sig.cg" main interrupted)"
h1=$(arc_ir "$TMP/sig.cl" "<signal 10>" on_usr1)
set -- $(self_out "$TMP/sig.cl" on_usr1)
if [ "$1" -gt 0 ] && [ "$h1" = $(($1 + $2)) ]; then
    ok "signals: the handler's cost is under <signal 10> ($h1 = self $1 + calls $2)"
else
    not_ok "signals: the handler's cost is under <signal 10> ($h1 vs self $1 + calls $2)"
fi
t1=$("$TALLY" annotate --inclusive=yes "$TMP/sig.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
t2=$(callgrind_annotate --inclusive=yes "$TMP/sig.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
tot=$(awk '/^totals:/ { print $2 }' "$TMP/sig.cl")
if [ -n "$tot" ] && [ "$t1" = "$tot" ] && [ "$t2" = "$tot" ]; then
    ok "signals: tally annotate and callgrind_annotate read it ($tot)"
else
    not_ok "signals: tally annotate and callgrind_annotate read it ($t1, $t2, want $tot)"
fi

# Client requests (valgrind/tally.h): stop/start, dump a part, zero.
cat >"$TMP/cr.c" <<'EOF'
#include <tally.h>
static volatile int sink;
__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void other(int n) { for (int i = 0; i < n; i++) sink -= i; }
int main(void)
{
    TALLY_STOP_COLLECTION;
    other(1000);
    TALLY_START_COLLECTION;
    work(100);
    TALLY_DUMP_PART;
    other(7);
    TALLY_ZERO_COUNTERS;
    work(20);
    return 0;
}
EOF
if ${CC:-cc} -O1 -g -I"$ROOT/build/valgrind/include" -o "$TMP/cr" "$TMP/cr.c" 2>"$TMP/cc.err"; then
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/cr.cl" \
        --cachegrind-out-file="$TMP/cr.cg" ./cr >/dev/null 2>&1)
    parts=$(grep -c '^part: ' "$TMP/cr.cl")
    p1=$(awk '/^part: 2/{exit} {print}' "$TMP/cr.cl")
    if [ "$parts" = 2 ] && printf '%s\n' "$p1" | grep -q 'fn=.* work$' &&
        ! grep -q 'fn=.* other$' "$TMP/cr.cl"; then
        ok "client requests: two parts, work counted, other (stopped, zeroed) not"
    else
        not_ok "client requests: two parts, work counted, other (stopped, zeroed) not"
    fi
    sum=$(awk '/^totals:/ { s += $2 } END { print s }' "$TMP/cr.cl")
    shown=$("$TALLY" annotate "$TMP/cr.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    if [ -n "$sum" ] && [ "$sum" = "$shown" ] && callgrind_annotate "$TMP/cr.cl" >/dev/null 2>&1; then
        ok "client requests: tally annotate sums the parts' totals ($sum); callgrind_annotate reads the file"
    else
        not_ok "client requests: tally annotate sums the parts' totals ($sum vs $shown); callgrind_annotate reads the file"
    fi
    # the cachegrind file has no parts: it holds the whole run, the sum of
    # the parts' totals in every event (Ir Dr Dw here, in both files)
    want=$(awk '/^events:/ { ev = $0 } /^totals:/ { for (i = 2; i <= NF; i++) s[i] += $i; n = NF }
        END { printf "%s |", ev; for (i = 2; i <= n; i++) printf " %s", s[i]; print "" }' "$TMP/cr.cl")
    got=$(awk '/^events:/ { ev = $0 } /^summary:/ { printf "%s |", ev; for (i = 2; i <= NF; i++) printf " %s", $i; print "" }' "$TMP/cr.cg")
    if [ -n "$got" ] && [ "$got" = "$want" ] && cg_annotate "$TMP/cr.cg" >/dev/null 2>&1; then
        ok "client requests: --cachegrind-out-file holds both parts ($got)"
    else
        not_ok "client requests: --cachegrind-out-file holds both parts ($got, want $want)"
    fi
else
    not_ok "client requests: test program builds"
    diag <"$TMP/cc.err"
fi

# FILE FUNCTION [PART]: the sum of each event over FUNCTION's own cost lines
# (positions are lines: --dump-instr=no)
self_of() {
    awk -v F="$2" -v P="${3:-}" "$NM_AWK"'
        /^events:/ { ne = NF - 1 }
        /^part:/ { part = $2 }
        /^c?fn=/ { v = nm(substr($0, index($0, "=") + 1)) }
        /^fn=/ { on = (v == F) && (P == "" || part == P) }
        /^calls=/ { skip = 1; next }
        /^[0-9+*-]/ { if (on && !skip) for (k = 2; k <= NF; k++) s[k] += $k
            skip = 0 }
        END { for (k = 2; k <= ne + 1; k++) printf "%s%d", (k > 2 ? " " : ""), s[k]; print "" }' "$1"
}

# --toggle-collect=work: only work's cost, with its calls.
cat >"$TMP/tg.c" <<'EOF'
static volatile int sink;
char big[1 << 20];        /* work reads lines 4 KiB apart: D1 and LL misses */
__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink += big[(i * 4096 + n) & ((1 << 20) - 1)] + i; }
__attribute__((noinline)) void other(int n) { for (int i = 0; i < n; i++) sink -= i; }
int main(void) { other(50); work(10); other(5); work(10); work(10); return 0; }
EOF
if ${CC:-cc} -O1 -g -o "$TMP/tg" "$TMP/tg.c" 2>"$TMP/cc.err"; then
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/tg.cl" ./tg >/dev/null 2>&1)
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --toggle-collect=work --out-file="$TMP/tg2.cl" ./tg >/dev/null 2>&1)
    # work's self Ir in the full run (work calls nothing)
    full=$(self_of "$TMP/tg.cl" work | awk '{ print $1 }')
    tot=$(awk '/^totals:/ { print $2 }' "$TMP/tg2.cl")
    if [ "$full" -gt 0 ] && [ "$full" = "$tot" ] && ! grep -q 'fn=.* other$' "$TMP/tg2.cl" &&
        arcs_of "$TMP/tg2.cl" | grep -qx 'main -> work 3'; then
        ok "--toggle-collect=work: total Ir $tot = work's Ir in a full run, main -> work 3, no other"
    else
        not_ok "--toggle-collect=work: total Ir $tot = work's Ir in a full run ($full), main -> work 3, no other"
        arcs_of "$TMP/tg2.cl" | diag
    fi
    t1=$("$TALLY" annotate --inclusive=yes "$TMP/tg2.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    t2=$(callgrind_annotate "$TMP/tg2.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    if [ "$t1" = "$tot" ] && [ "$t2" = "$tot" ]; then
        ok "--toggle-collect: tally annotate and callgrind_annotate read it ($t1, $t2)"
    else
        not_ok "--toggle-collect: tally annotate and callgrind_annotate read it ($t1, $t2, want $tot)"
    fi
    # With the simulators on: they run while collection is off too, so the
    # toggled run counts, in every event, exactly work's self cost in a
    # full run, and main's calls to work carry all of it as inclusive cost.
    opts="$CACHES --branch-sim=yes"
    (cd "$TMP" && "$TALLY" record -q $opts --out-file="$TMP/tg3.cl" ./tg >/dev/null 2>&1)
    (cd "$TMP" && "$TALLY" record -q $opts --toggle-collect=work --out-file="$TMP/tg4.cl" ./tg >/dev/null 2>&1)
    fullv=$(self_of "$TMP/tg3.cl" work)
    totv=$(awk '/^totals:/ { $1 = ""; print substr($0, 2) }' "$TMP/tg4.cl")
    inclv=$(arc_cost "$TMP/tg4.cl" main work)
    if [ -n "$fullv" ] && [ "$fullv" = "$totv" ] && [ "$inclv" = "$totv" ]; then
        ok "--toggle-collect=work with caches and branches: every event's total = work's self cost in a full run = main -> work inclusive ($totv)"
    else
        not_ok "--toggle-collect=work with caches and branches: totals $totv, work in a full run $fullv, main -> work inclusive $inclv"
    fi
else
    not_ok "toggle-collect: test program builds"
    diag <"$TMP/cc.err"
fi

# --separate-threads=yes: one part per thread, each with its own calls.
cat >"$TMP/th.c" <<'EOF'
#include <pthread.h>
static volatile int sink;
__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void other(int n) { for (int i = 0; i < n; i++) sink -= i; }
static void *body(void *p) { (void)p; work(10); work(10); other(5); return 0; }
int main(void) { pthread_t t; work(10); pthread_create(&t, 0, body, 0); pthread_join(t, 0); return 0; }
EOF
if ${CC:-cc} -O1 -g -pthread -o "$TMP/th" "$TMP/th.c" 2>"$TMP/cc.err"; then
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --separate-threads=yes --out-file="$TMP/th.cl" ./th >/dev/null 2>&1)
    each_ok=1
    for f in "$TMP"/th.cl-01 "$TMP"/th.cl-02; do
        [ -n "$(callgrind_annotate_check "$f")" ] && each_ok=
        [ -f "$f" ] || each_ok=
    done
    as_parts "$TMP/th.cl"
    for part in 1 2; do arcs_of "$TMP/th.cl" $part | sed "s/^/thread $part: /"; done |
        grep -E ' -> (work|other|body) ' | LC_ALL=C sort >"$TMP/tharcs"
    printf '%s\n' "thread 1: main -> work 1" "thread 2: body -> other 1" "thread 2: body -> work 2" \
        "thread 2: start_thread -> body 1" >"$TMP/tharcs.exp"
    same_text "--separate-threads=yes: calls per thread as constructed" "$TMP/tharcs.exp" "$TMP/tharcs"
    heads=$(grep -E '^(part|thread):' "$TMP/th.cl" | tr '\n' ' ')
    sum=$(awk '/^totals:/ { s += $2 } END { print s }' "$TMP/th.cl")
    shown=$("$TALLY" annotate "$TMP/th.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    set_sum=$("$TALLY" annotate "$TMP"/th.cl-0[12] 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    if [ "$heads" = "part: 1 thread: 1 part: 2 thread: 2 " ] && [ "$sum" = "$shown" ] &&
        [ "$set_sum" = "$sum" ] && [ -n "$each_ok" ]; then
        ok "--separate-threads=yes: th.cl-01 and -02 for threads 1, 2; tally annotate sums the set ($sum); callgrind_annotate reads each without a warning"
    else
        not_ok "--separate-threads=yes: th.cl-01 and -02 for threads 1, 2 ($heads); tally annotate sums the set ($set_sum, parts $sum vs $shown); callgrind_annotate reads each (${each_ok:-no})"
    fi
    # and with --toggle-collect=work: each part holds its thread's calls
    # of work, in every event
    opts="$CACHES --branch-sim=yes --separate-threads=yes"
    (cd "$TMP" && "$TALLY" record -q $opts --out-file="$TMP/th3.cl" ./th >/dev/null 2>&1)
    (cd "$TMP" && "$TALLY" record -q $opts --toggle-collect=work --out-file="$TMP/th4.cl" ./th >/dev/null 2>&1)
    as_parts "$TMP/th3.cl"
    as_parts "$TMP/th4.cl"
    bad=
    for part in 1 2; do
        want=$(self_of "$TMP/th3.cl" work $part)
        got=$(awk -v P=$part '/^part:/ { p = $2 } /^totals:/ && p == P { $1 = ""; print substr($0, 2) }' "$TMP/th4.cl")
        [ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad part $part: $got, want $want;"
    done
    if [ -z "$bad" ]; then
        ok "--separate-threads=yes --toggle-collect=work: each part's totals = its thread's work in a full run"
    else
        not_ok "--separate-threads=yes --toggle-collect=work:$bad"
    fi
else
    not_ok "separate threads: test program builds"
    diag <"$TMP/cc.err"
fi

# --separate-threads=yes with constant switching: two threads take turns N
# times (a condition variable), each calling work(10) once a turn. Each
# part has N calls of work and the same self cost of work (Ir, Dr, Dw: one
# call costs the same in either thread), and the two parts add up to the
# cachegrind file of the same run. A switch moves only what was counted
# since the last one (docs/internals/tool.md), so this also checks that
# nothing stays behind or goes to the other thread.
cat >"$TMP/pp.c" <<'EOF'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int turn;
static volatile int sink;
__attribute__((noinline)) void work(int k) { for (int i = 0; i < k; i++) sink += i; }
static void *side(void *p)
{
    int me = (int)(long)p;
    for (int i = 0; i < 2000; i++) {
        pthread_mutex_lock(&m);
        while (turn != me) pthread_cond_wait(&c, &m);
        work(10);
        turn = !me;
        pthread_cond_broadcast(&c);
        pthread_mutex_unlock(&m);
    }
    return 0;
}
int main(void)
{
    pthread_t t;
    pthread_create(&t, 0, side, (void *)1L);
    side((void *)0L);
    pthread_join(t, 0);
    return 0;
}
EOF
if ${CC:-cc} -O1 -g -pthread -o "$TMP/pp" "$TMP/pp.c" 2>"$TMP/cc.err"; then
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --separate-threads=yes --collect-jumps=yes \
        --out-file="$TMP/pp.cl" --cachegrind-out-file="$TMP/pp.cg" ./pp >/dev/null 2>&1)
    as_parts "$TMP/pp.cl"
    w1=$(self_of "$TMP/pp.cl" work 1)
    w2=$(self_of "$TMP/pp.cl" work 2)
    wsum=$(echo "$w1 $w2" | awk '{ n = NF / 2; for (k = 1; k <= n; k++) printf "%s%d", (k > 1 ? " " : ""), $k + $(k + n); print "" }')
    wcg=$(awk '/^fn=/ { on = ($0 == "fn=work") } on && /^[0-9]/ { for (k = 2; k <= NF; k++) s[k] += $k; w = NF }
        END { for (k = 2; k <= w; k++) printf "%s%d", (k > 2 ? " " : ""), s[k]; print "" }' "$TMP/pp.cg")
    # work's cost does not depend on the interleaving: a run without
    # --separate-threads has the same in all
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --out-file="$TMP/pp1.cl" ./pp >/dev/null 2>&1)
    wone=$(self_of "$TMP/pp1.cl" work)
    calls=$(for part in 1 2; do arcs_of "$TMP/pp.cl" $part | awk '$3 == "work" { s += $NF } END { print s + 0 }'; done)
    calls=$(echo $calls)
    if [ "$calls" = "2000 2000" ] && [ -n "$w1" ] && [ "$w1" = "$w2" ] && [ "$wsum" = "$wcg" ] &&
        [ "$wsum" = "$wone" ]; then
        ok "--separate-threads=yes, threads taking turns 2000 times: work called 2000 times in each part, same cost ($w1), parts add up to the cachegrind file and to a run without threads separated"
    else
        not_ok "--separate-threads=yes, threads taking turns: calls per part $calls (want 2000 2000), work $w1 and $w2, sum $wsum, cachegrind file $wcg, not separated $wone"
    fi
else
    not_ok "turn-taking threads: test program builds"
    diag <"$TMP/cc.err"
fi

# --collect-jumps=yes: jump=/jcnd= records equal Callgrind's (--separate-recs=1,
# so that recursion is not split into fib'2) for the functions of a program
# built for it and of examples/recurse.
# Records of the same kind between the same two lines are summed (as
# callgrind_annotate and KCachegrind show them): Callgrind keeps one record
# per basic block that holds the jump, tally one per instruction.
jumps_of() { # FILE FUNCTION|'*' [PART]: "kind counts target<-source", line positions resolved
    awk -v F="$2" -v P="${3:-}" 'function pos(t) {
            if (t == "*") return last
            if (t ~ /^\+/) return last + substr(t, 2)
            if (t ~ /^-/) return last - substr(t, 2)
            return t + 0
        }
        '"$NM_AWK"'
        /^part:/ { part = $2 }
        /^fn=/ { on = (nm(substr($0, 4)) == F || F == "*"); next }
        /^(cfn|jfn)=/ { nm(substr($0, 5)); next }
        /^(jump|jcnd)=/ { split($0, a, "[= ]"); k = a[1]; c = a[2]; t = pos($2)
            getline; last = pos($1)
            if (on && (P == "" || part == P)) {
                key = k " " t "<-" last; nc = split(c, tc, "/")
                taken[key] += tc[1]; if (nc > 1) exe[key] += tc[2]
            }
            next }
        /^calls=/ { getline; last = pos($1); next }
        /^[0-9+*-]/ { last = pos($1) }
        END { for (key in taken) { split(key, w, " ")
                print w[1], (w[1] == "jcnd" ? taken[key] "/" exe[key] : taken[key]), w[2] } }' "$1" | LC_ALL=C sort
}
cat >"$TMP/jm.c" <<'EOF'
static volatile int sink;
__attribute__((noinline)) int f(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        if (i % 3 == 0)
            s += i;
        else
            sink++;
    }
    return s;
}
int main(void) { return f(100) == 0; }
EOF
if ${CC:-cc} -O0 -g -o "$TMP/jm" "$TMP/jm.c" 2>"$TMP/cc.err"; then
    for prog in "$TMP/jm" "$ROOT/examples/recurse"; do
        name=$(basename "$prog")
        (cd "$TMP" && "$TALLY" record -q --cache-sim=no --collect-jumps=yes --out-file="$TMP/$name.jt" "$prog" >/dev/null 2>&1)
        (cd "$TMP" && valgrind -q --tool=callgrind --collect-jumps=yes --separate-recs=1 \
            --callgrind-out-file="$TMP/$name.jc" "$prog" >/dev/null 2>&1)
        [ "$name" = jm ] && fns="f main" || fns="leaf fib is_odd is_even chain main"
        bad=
        nj=0
        for fn in $fns; do
            jumps_of "$TMP/$name.jt" "$fn" >"$TMP/j.t"
            jumps_of "$TMP/$name.jc" "$fn" >"$TMP/j.c"
            cmp -s "$TMP/j.t" "$TMP/j.c" || bad="$bad $fn"
            nj=$((nj + $(wc -l <"$TMP/j.t")))
        done
        if [ -z "$bad" ] && [ "$nj" -gt 3 ]; then
            ok "--collect-jumps=yes: $name: jump=/jcnd= records equal Callgrind's ($nj records)"
        else
            not_ok "--collect-jumps=yes: $name: jump=/jcnd= records equal Callgrind's (differ:$bad; $nj records)"
        fi
    done
    # The whole of recurse (libc and the loader too), run in the same
    # environment: Callgrind keeps a record per basic block and writes only
    # those whose jump was taken, so the executions of a conditional jump in
    # a block where it was never taken are lost (sbrk's `je` ran twice, taken
    # once: Callgrind says 1/1). Every Callgrind record (all functions, by
    # line pair, line 0 left out) has tally's taken count and no more
    # executions than tally's.
    ln -sf "$VG_LIBEXEC/callgrind-amd64-linux" "$LIB/"
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --collect-jumps=yes \
        --out-file="$TMP/ej.t" "$ROOT/examples/recurse" >/dev/null 2>&1)
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind -q --tool=callgrind --collect-jumps=yes --separate-recs=1 \
        --callgrind-out-file="$TMP/ej.c" "$ROOT/examples/recurse" >/dev/null 2>&1)
    jumps_of "$TMP/ej.t" '*' | grep -v ' 0<-\|<-0$' >"$TMP/ej.t.all"
    jumps_of "$TMP/ej.c" '*' | grep -v ' 0<-\|<-0$' >"$TMP/ej.c.all"
    res=$(awk 'FNR == NR { split($2, c, "/"); tk[$1 " " $3] = c[1]; ex[$1 " " $3] = c[2]; next }
        { n++; split($2, c, "/"); k = $1 " " $3
          if (!(k in tk) || tk[k] != c[1] || ($1 == "jcnd" && ex[k] < c[2])) { bad++; if (bad < 4) badk = badk " [" $0 " vs " tk[k] "/" ex[k] "]" }
          else if ($1 != "jcnd" || ex[k] == c[2]) same++ }
        END { print n + 0, same + 0, bad + 0, badk }' "$TMP/ej.t.all" "$TMP/ej.c.all")
    set -- $res
    if [ "$1" -gt 100 ] && [ "$3" = 0 ]; then
        ok "--collect-jumps=yes: all of recurse: each of Callgrind's $1 records has tally's taken count and at most its executions ($2 equal)"
    else
        not_ok "--collect-jumps=yes: all of recurse against Callgrind: $res"
    fi
    if "$TALLY" annotate "$TMP/recurse.jt" >/dev/null 2>&1 && callgrind_annotate "$TMP/recurse.jt" >/dev/null 2>&1; then
        ok "--collect-jumps=yes: tally annotate and callgrind_annotate read the file"
    else
        not_ok "--collect-jumps=yes: tally annotate and callgrind_annotate read the file"
    fi
    # per thread: each part holds its thread's jumps, as Callgrind's
    # --separate-threads=yes files (NAME-01, NAME-02) do
    if [ -x "$TMP/th" ]; then
        (cd "$TMP" && "$TALLY" record -q --cache-sim=no --separate-threads=yes --collect-jumps=yes \
            --out-file="$TMP/thj.cl" ./th >/dev/null 2>&1)
        as_parts "$TMP/thj.cl"
        (cd "$TMP" && valgrind -q --tool=callgrind --separate-threads=yes --collect-jumps=yes \
            --separate-recs=1 --callgrind-out-file="$TMP/thj.cg" ./th >/dev/null 2>&1)
        bad=
        nj=0
        for part in 1 2; do
            for fn in main body work other; do
                jumps_of "$TMP/thj.cl" "$fn" "$part" >"$TMP/j.t"
                jumps_of "$TMP/thj.cg-0$part" "$fn" >"$TMP/j.c"
                cmp -s "$TMP/j.t" "$TMP/j.c" || bad="$bad $fn@$part"
                nj=$((nj + $(wc -l <"$TMP/j.t")))
            done
        done
        # work runs once in thread 1 and twice in thread 2: its loop's
        # executed count in part 2 is twice that of part 1
        w1=$(jumps_of "$TMP/thj.cl" work 1 | awk '$1 == "jcnd" { split($2, a, "/"); s += a[2] } END { print s + 0 }')
        w2=$(jumps_of "$TMP/thj.cl" work 2 | awk '$1 == "jcnd" { split($2, a, "/"); s += a[2] } END { print s + 0 }')
        if [ -z "$bad" ] && [ "$w1" -gt 0 ] && [ "$w2" = $((2 * w1)) ]; then
            ok "--collect-jumps=yes --separate-threads=yes: each part's jumps equal Callgrind's thread file ($nj records; work: $w1, $w2)"
        else
            not_ok "--collect-jumps=yes --separate-threads=yes: each part's jumps equal Callgrind's thread file (differ:$bad; work: $w1, $w2)"
        fi
    fi
else
    not_ok "jumps: test program builds"
    diag <"$TMP/cc.err"
fi

# --- Calling contexts (--contexts=yes, docs/internals/contexts.md) --------
# Per function and event, the sum of the self costs of its contexts must be
# the function's self cost in the callgrind file written by the same run,
# and the contexts' totals the file's totals.
ctx_fn_sums() { # per function name and event, from a contexts file
    awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
        /^fn / { v = $0; for (i = 1; i <= 4; i++) sub(/^[^ ]* /, "", v); fnn[$2] = v; next }
        /^x / { for (i = 6; i <= NF; i++) s[fnn[$4] " " ev[i - 5]] += $i; next }
        /^totals:/ { for (i = 2; i <= NF; i++) print "TOTAL", ev[i - 1], $i }
        END { for (k in s) if (s[k]) print k, s[k] }' "$1" | LC_ALL=C sort
}
cl_fn_sums() { # the same from a callgrind file (one part)
    awk "$NM_AWK"'
        /^positions:/ { np = NF - 1; next }
        /^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
        /^fn=/ { fn = nm(substr($0, 4)); next }
        /^cfn=/ { nm(substr($0, 5)); next }
        /^calls=/ { getline; next }
        /^totals:/ { for (i = 2; i <= NF; i++) print "TOTAL", ev[i - 1], $i; next }
        /^(0x|[0-9+*-])/ { for (i = np + 1; i <= NF; i++) s[fn " " ev[i - np]] += $i }
        END { for (k in s) if (s[k]) print k, s[k] }' "$1" | LC_ALL=C sort
}
ctx_paths() { # "STACK CALLS" per node, functions joined by ";"
    awk '/^fn / { v = $0; for (i = 1; i <= 4; i++) sub(/^[^ ]* /, "", v); fnn[$2] = v; next }
        /^x / { p[$2] = ($3 == 0 ? "" : p[$3] ";") fnn[$4]; print p[$2] " " $5 }' "$1"
}
ctx_run() { # NAME DIR OPTIONS PROG ARGS: callgrind file $TMP/c.cl, contexts $TMP/c.ctx
    cname=$1 cdir=$2 copts=$3
    shift 3
    rm -f "$TMP/c.cl" "$TMP/c.ctx"
    (cd "$cdir" && "$TALLY" record -q $copts --contexts=yes --out-file="$TMP/c.cl" \
        --contexts-out-file="$TMP/c.ctx" "$@" >/dev/null 2>"$TMP/c.err" </dev/null)
    if [ ! -s "$TMP/c.ctx" ] || ! head -n 1 "$TMP/c.ctx" | grep -qx '# tally contexts 1'; then
        not_ok "contexts: $cname: the contexts file is written"
        tail -n 5 "$TMP/c.err" | diag
        return 1
    fi
    ctx_fn_sums "$TMP/c.ctx" >"$TMP/c.xs"
    cl_fn_sums "$TMP/c.cl" >"$TMP/c.cs"
    n=$(grep -vc '^TOTAL' "$TMP/c.cs")
    same_text "contexts: $cname: per-function self costs and totals equal the callgrind file's ($n values)" \
        "$TMP/c.cs" "$TMP/c.xs"
    sum=$(awk '/^x / { s += $6 } END { print s + 0 }' "$TMP/c.ctx")
    tot=$(awk '/^totals:/ { print $2 }' "$TMP/c.ctx")
    # by function id (object and name: two "(below main)" are two functions):
    # a context of the same function as its parent is direct self-recursion,
    # which tally folds into the parent
    self=$(awk '/^x / { f[$2] = $4; if ($3 != 0 && f[$3] == $4) print "node " $2 }' \
        "$TMP/c.ctx" | head -n 1)
    if [ "$sum" = "$tot" ] && [ -z "$self" ]; then
        ok "contexts: $cname: nodes sum to totals: ($tot); no context under one of its own function"
    else
        not_ok "contexts: $cname: nodes sum to totals: ($sum vs $tot); no context under one of its own function ($self)"
    fi
}
if ctx_run "recurse" "$EX" "--cache-sim=no" ./recurse; then
    # examples/recurse.c by construction: fib(18) 8361 activations (1 from
    # main, 8360 from fib itself: direct self-recursion is one context),
    # leaf 4181 under fib and 5000 under chain; is_even(i) for i < 200 is
    # called 200 times from main, and is_even and is_odd call each other
    # with whole stacks: the context at depth d below main (is_even for odd
    # d, is_odd for even d) is entered once for each i >= d - 1, 201 - d
    # times, down to d = 200.
    ctx_paths "$TMP/c.ctx" | sed -n 's/^.*;main;/main;/p' |
        grep -E '^main;(fib|chain|is_even)(;(leaf|is_odd|is_even))* ' |
        awk '{ n = split($1, f, ";"); print n - 1, $0 }' | LC_ALL=C sort -n >"$TMP/c.paths"
    { printf '%s\n' "1 main;chain 1" "1 main;fib 8361" "2 main;chain;leaf 5000" "2 main;fib;leaf 4181"
      awk 'BEGIN { p = "main"; for (d = 1; d <= 200; d++) { p = p ";" (d % 2 ? "is_even" : "is_odd")
          print d, p, 201 - d } }'; } | LC_ALL=C sort -n >"$TMP/c.paths.exp"
    same_text "contexts: recurse: calls of the stacks under main as constructed (is_even/is_odd whole, 200 deep; fib one context)" \
        "$TMP/c.paths.exp" "$TMP/c.paths"
    m1=$("$TALLY" annotate --inclusive=yes --auto=no "$TMP/c.ctx" 2>/dev/null | grep 'recurse.c:main ' | awk '{ print $1 }')
    m2=$("$TALLY" annotate --inclusive=yes --auto=no "$TMP/c.cl" 2>/dev/null | grep 'recurse.c:main ' | awk '{ print $1 }')
    t1=$("$TALLY" annotate --auto=no "$TMP/c.ctx" 2>/dev/null | awk '/PROGRAM TOTALS/ { print $1 }')
    t2=$("$TALLY" annotate --auto=no "$TMP/c.cl" 2>/dev/null | awk '/PROGRAM TOTALS/ { print $1 }')
    if [ -n "$m1" ] && [ "$m1" = "$m2" ] && [ -n "$t1" ] && [ "$t1" = "$t2" ]; then
        ok "contexts: tally annotate reads the file: total $t1 and main's inclusive $m1 as from the callgrind file"
    else
        not_ok "contexts: tally annotate reads the file: total $t1 vs $t2, main's inclusive $m1 vs $m2"
    fi
fi
ctx_run "wordfreq, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./wordfreq 3000
if ctx_run "signals" "$EX" "--cache-sim=no" ./signals; then
    ctx_paths "$TMP/c.ctx" | sed 's/^.*;main;/main;/' |
        grep -E '^(main;(interrupted|deep)|<signal)' | grep -E '(interrupted|busy|deep|on_usr[12]|counted|>) ' |
        LC_ALL=C sort >"$TMP/c.paths"
    printf '%s\n' "<signal 10> 3" "<signal 10>;on_usr1 3" "<signal 10>;on_usr1;counted 12" "<signal 12> 2" \
        "<signal 12>;on_usr2 2" "<signal 12>;on_usr2;counted 2" "main;deep 8" "main;interrupted 3" \
        "main;interrupted;busy 6" >"$TMP/c.paths.exp"
    same_text "contexts: signals: handlers under <signal N>, interrupted stacks go on" \
        "$TMP/c.paths.exp" "$TMP/c.paths"
fi
# --context-depth=3: no stack deeper than 3, nothing lost.
(cd "$EX" && "$TALLY" record -q --cache-sim=no --contexts=yes --context-depth=3 --out-file="$TMP/d.cl" \
    --contexts-out-file="$TMP/d.ctx" ./recurse >/dev/null 2>&1)
maxd=$(ctx_paths "$TMP/d.ctx" | awk '{ n = split($1, f, ";"); if (n > m) m = n } END { print m + 0 }')
dt=$(awk '/^totals:/ { print $2 }' "$TMP/d.ctx")
ct=$(awk '/^totals:/ { print $2 }' "$TMP/d.cl")
if [ "$maxd" = 3 ] && grep -qx 'depth: 3' "$TMP/d.ctx" && [ -n "$dt" ] && [ "$dt" = "$ct" ]; then
    ok "contexts: --context-depth=3: deepest stack 3, totals $dt as the callgrind file's"
else
    not_ok "contexts: --context-depth=3: deepest stack $maxd, totals $dt vs $ct"
fi
# --separate-threads=yes: one file per thread (NAME-TID) with its part's totals;
# %p in the name is the pid.
if [ -x "$TMP/th" ]; then
    rm -f "$TMP"/tctx.*
    (cd "$TMP" && "$TALLY" record -q --cache-sim=no --separate-threads=yes --contexts=yes \
        --out-file="$TMP/tc.cl" --contexts-out-file="$TMP/tctx.%p" ./th >/dev/null 2>&1)
    as_parts "$TMP/tc.cl"
    pid=$(sed -n 's/^pid: //p' "$TMP/tc.cl")
    p1=$(awk '/^totals:/ { n++; if (n == 1) print $2 }' "$TMP/tc.cl")
    p2=$(awk '/^totals:/ { n++; if (n == 2) print $2 }' "$TMP/tc.cl")
    x1=$(awk '/^totals:/ { print $2 }' "$TMP/tctx.$pid-1" 2>/dev/null)
    x2=$(awk '/^totals:/ { print $2 }' "$TMP/tctx.$pid-2" 2>/dev/null)
    w2=$(ctx_paths "$TMP/tctx.$pid-2" 2>/dev/null | grep -E ';body;work 2$' | wc -l)
    if [ -n "$x1" ] && [ "$x1" = "$p1" ] && [ "$x2" = "$p2" ] && grep -qx 'thread: 2' "$TMP/tctx.$pid-2" &&
        [ "$w2" = 1 ]; then
        ok "contexts: --separate-threads=yes: tctx.PID-1 and -2 with their parts' totals ($x1, $x2), body;work 2 in thread 2"
    else
        not_ok "contexts: --separate-threads=yes: tctx.PID-1 and -2 with their parts' totals ($x1 vs $p1, $x2 vs $p2; body;work: $w2)"
        ls "$TMP" | diag
    fi
fi
# Client requests and fork: the tree at exit is the sum of the parts of the
# process's own callgrind file (a dump keeps what it wrote; a zero forgets
# only what was not dumped; a forked child's file and tree start after the
# parent's last dump).
cat >"$TMP/crf.c" <<'EOF'
#include <sys/wait.h>
#include <tally.h>
#include <unistd.h>
static volatile int sink;
__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void other(int n) { for (int i = 0; i < n; i++) sink -= i; }
int main(void)
{
    TALLY_STOP_COLLECTION;
    other(1000);
    TALLY_START_COLLECTION;
    work(100);
    TALLY_DUMP_PART;
    other(7);
    TALLY_ZERO_COUNTERS;
    work(20);
    pid_t p = fork();
    if (p == 0) {
        work(5);
        _exit(0);
    }
    waitpid(p, 0, 0);
    return 0;
}
EOF
if ${CC:-cc} -O1 -g -I"$ROOT/build/valgrind/include" -o "$TMP/crf" "$TMP/crf.c" 2>"$TMP/cc.err"; then
    mkdir -p "$TMP/crf.d"
    (cd "$TMP/crf.d" && "$TALLY" record -q --cache-sim=no --contexts=yes --out-file=cl.%p \
        --contexts-out-file=ctx.%p ../crf >/dev/null 2>&1)
    good=0
    for f in "$TMP"/crf.d/ctx.*; do
        pid=${f##*.}
        ctx_fn_sums "$f" | grep -v '^TOTAL' >"$TMP/crf.x"
        cl_fn_sums "$TMP/crf.d/cl.$pid" | grep -v '^TOTAL' >"$TMP/crf.c1"
        xt=$(awk '/^totals:/ { print $2 }' "$f")
        ct=$(awk '/^totals:/ { s += $2 } END { print s + 0 }' "$TMP/crf.d/cl.$pid")
        if cmp -s "$TMP/crf.x" "$TMP/crf.c1" && [ "$xt" = "$ct" ]; then good=$((good + 1)); else
            echo "pid $pid: totals $xt vs $ct" | diag; diff "$TMP/crf.c1" "$TMP/crf.x" | head -n 5 | diag; fi
    done
    nparts=$(cat "$TMP"/crf.d/cl.* | grep -c '^part:')
    if [ "$good" = 2 ] && [ "$nparts" = 3 ]; then
        ok "contexts: dump, zero and fork: each process's tree equals its own file's parts (2 files, 3 parts)"
    else
        not_ok "contexts: dump, zero and fork: each process's tree equals its own file's parts ($good of 2 files, $nparts parts)"
    fi
else
    not_ok "contexts: client request program builds"
    diag <"$TMP/cc.err"
fi
