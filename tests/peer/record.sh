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

if ! command -v valgrind >/dev/null 2>&1; then
    echo "# valgrind not installed"
    ok "skipped: no Valgrind"
    exit 0
fi
if [ ! -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ]; then
    not_ok "tally's Valgrind tool is built (build/valgrind/lib/tally-amd64-linux)"
    exit 1
fi
make -s -C "$ROOT/examples" >/dev/null || { not_ok "examples build"; exit 1; }

LIB=$TMP/lib
mkdir -p "$LIB"
for f in "$ROOT"/build/valgrind/lib/* /usr/libexec/valgrind/cachegrind-amd64-linux; do
    ln -s "$f" "$LIB/"
done
E="env -i PATH=/usr/bin:/bin"

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
# the inclusive cost line after each calls= is not self cost).
cl_sums() {
    awk '/^positions:/ { np = NF - 1; next }
        /^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
        /^fl=/ { v = substr($0, 4); fl = names("fl", v); next }
        /^fn=/ { v = substr($0, 4); fn = names("fn", v); next }
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
    sed -n '/I   refs:/,$s/^==[0-9]*== //p' "$TMP/cg.err" >"$TMP/cg.sum"
    sed -n '/I   refs:/,$s/^==[0-9]*== //p' "$TMP/t.err" >"$TMP/t.sum"
    if [ -s "$TMP/cg.sum" ]; then
        same_text "$name: end-of-run summary equals Cachegrind's" "$TMP/cg.sum" "$TMP/t.sum"
    else
        not_ok "$name: Cachegrind printed a summary"
    fi
    cl_sums "$TMP/t.cl" >"$TMP/t.clsums"
    same_text "$name: callgrind-format file has the same costs" "$TMP/t.all" "$TMP/t.clsums"
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

CACHES="--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64"
EX=$ROOT/examples
printf 'the quick brown fox jumps over the lazy dog %s\n' $(seq 1 400) >"$TMP/input.txt"

compare "recurse, --cache-sim=no" "$EX" "--cache-sim=no" ./recurse
compare "recurse, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./recurse
compare "wordfreq 3000, --cache-sim=no" "$EX" "--cache-sim=no" ./wordfreq 3000
compare "wordfreq 3000, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./wordfreq 3000
compare "matrix 30, caches + branches" "$EX" "$CACHES --branch-sim=yes" ./matrix 30
compare "matrix 30, other caches" "$EX" "--I1=16384,4,32 --D1=8192,2,64 --LL=131072,8,128" ./matrix 30
for p in gzip bzip2 xz; do
    if command -v $p >/dev/null 2>&1; then
        compare "$p -c, --cache-sim=no" "$TMP" "--cache-sim=no" $p -c input.txt
        compare "$p -c, caches + branches" "$TMP" "$CACHES --branch-sim=yes" $p -c input.txt
    else
        ok "skipped: $p not installed"
    fi
done

# --dump-instr=yes: the same per-function costs as per line.
(cd "$EX" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --dump-instr=yes $CACHES \
    --out-file="$TMP/i.cl" --cachegrind-out-file="$TMP/i.cg" ./recurse >/dev/null 2>&1)
cl_sums "$TMP/i.cl" >"$TMP/i.clsums"
cg_sums "$TMP/i.cg" >"$TMP/i.cgsums"
same_text "--dump-instr=yes: per-instruction file sums to the per-line costs" "$TMP/i.cgsums" "$TMP/i.clsums"
if grep -q '^positions: instr line' "$TMP/i.cl"; then ok "--dump-instr=yes: positions: instr line"; else
    not_ok "--dump-instr=yes: positions: instr line"; fi
