#!/bin/sh
# Peer test of `tally diff` against Valgrind 3.19's cg_diff on real
# cachegrind profiles of examples/wordfreq (two input sizes), with and
# without --mod-filename/--mod-funcname. Both outputs are reduced to a
# sorted list of "file<TAB>function<TAB>counts" per (file, function) plus
# the summary, since cg_diff prints in Perl hash order.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

if ! command -v cg_diff >/dev/null 2>&1; then
    echo "# cg_diff not installed"
    ok "skipped: no cg_diff"
    exit 0
fi
if ! make_profiles; then
    not_ok "make_profiles (valgrind on examples/)"
    exit 1
fi
A=$PROF/cache.wordfreq.out
B=$PROF/cache.wordfreq2.out

# norm FILE: the per-(file, function) sums of a cachegrind-format file.
norm() {
    awk '
    /^fl=/ { fl = substr($0, 4); next }
    /^fn=/ { fn = substr($0, 4); key = fl "\t" fn
             if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
             next }
    /^events:/ { sub(/^events:[ \t]*/, ""); ne = split($0, ev, " "); next }
    /^summary:/ { sub(/^summary:[ \t]*/, ""); summ = $0; next }
    /^-?[0-9]/ { n = split($0, a, " ")
                 for (i = 2; i <= n; i++) c[key, i - 1] += a[i]
                 next }
    END {
        for (k = 1; k <= nk; k++) {
            s = ""
            for (i = 1; i <= ne; i++) s = s sprintf(" %.0f", c[keys[k], i])
            print keys[k] "\t" s
        }
        n = split(summ, a, " "); s = ""
        for (i = 1; i <= n; i++) s = s sprintf(" %.0f", a[i])
        print "~summary\t" s
    }' "$1" | LC_ALL=C sort
}

# header FILE: the desc, cmd and events values, whitespace-normalised.
header() {
    sed -n 's/^\(desc\|cmd\|events\):[ \t]*/\1 /p' "$1" | tr -s ' \t' '  ' | sed 's/ $//'
}

# peer NAME ARGS...: cg_diff ARGS and tally diff ARGS must agree.
peer() {
    name=$1; shift
    if ! (cd "$PROF" && cg_diff "$@") >"$TMP/cg.out" 2>"$TMP/cg.err"; then
        not_ok "$name: cg_diff failed"; diag <"$TMP/cg.err"; return
    fi
    if ! (cd "$PROF" && "$TALLY" diff "$@") >"$TMP/t.out" 2>"$TMP/t.err"; then
        not_ok "$name: tally diff failed"; diag <"$TMP/t.err"; return
    fi
    norm "$TMP/cg.out" >"$TMP/cg.norm"
    norm "$TMP/t.out" >"$TMP/t.norm"
    if [ "$(wc -l <"$TMP/cg.norm")" -lt 10 ]; then
        not_ok "$name: too few functions in the cg_diff output"; return
    fi
    same_text "$name: per-function counts and summary" "$TMP/cg.norm" "$TMP/t.norm"
    header "$TMP/cg.out" >"$TMP/cg.head"
    header "$TMP/t.out" >"$TMP/t.head"
    same_text "$name: desc, cmd, events" "$TMP/cg.head" "$TMP/t.head"
}

peer "A B" cache.wordfreq.out cache.wordfreq2.out
peer "B A" cache.wordfreq2.out cache.wordfreq.out
peer "A A" cache.wordfreq.out cache.wordfreq.out
peer "funcname s/main/MAIN/" --mod-funcname='s/main/MAIN/' cache.wordfreq.out cache.wordfreq2.out
peer "funcname swap groups" '--mod-funcname=s/(\w+)_(\w+)/\2_\1/g' cache.wordfreq.out \
    cache.wordfreq2.out
peer "funcname caseless" '--mod-funcname=s/WORD/x/i' cache.wordfreq.out cache.wordfreq2.out
peer "funcname \$1" '--mod-funcname=s/^_+(\w)/$1/' cache.wordfreq.out cache.wordfreq2.out
peer "filename basename" '--mod-filename=s/^.*\///' cache.wordfreq.out cache.wordfreq2.out
peer "filename global" '--mod-filename=s/[aeiou]/_/g' cache.wordfreq.out cache.wordfreq2.out
peer "both renames" '--mod-filename=s/\.[chS]$//' '--mod-funcname=s/_(\w)/-\1/gi' \
    cache.wordfreq.out cache.wordfreq2.out

# The renames must really have changed something (else the tests above prove little).
(cd "$PROF" && "$TALLY" diff '--mod-funcname=s/WORD/x/i' cache.wordfreq.out cache.wordfreq2.out) \
    >"$TMP/r.out" 2>&1
if grep -q '^fn=.*x' "$TMP/r.out" && ! grep -qi '^fn=.*word' "$TMP/r.out"; then
    ok "caseless rename applied"
else
    not_ok "caseless rename applied"; head -n 20 "$TMP/r.out" | diag
fi
(cd "$PROF" && "$TALLY" diff '--mod-filename=s/^.*\///' cache.wordfreq.out cache.wordfreq2.out) \
    >"$TMP/r.out" 2>&1
if grep -q '^fl=wordfreq.c$' "$TMP/r.out" && ! grep -q '^fl=.*/' "$TMP/r.out"; then
    ok "basename rename applied"
else
    not_ok "basename rename applied"; head -n 20 "$TMP/r.out" | diag
fi

# A file against itself: every count is zero.
"$TALLY" diff "$A" "$A" >"$TMP/self.out" 2>"$TMP/self.err"
if awk '/^-?[0-9]/ || /^summary:/ { for (i = 2; i <= NF; i++) if ($i != 0) bad = 1 }
        END { exit bad }' "$TMP/self.out" && [ "$(grep -c '^fn=' "$TMP/self.out")" -gt 10 ]; then
    ok "A A: all zero"
else
    not_ok "A A: all zero"; head -n 20 "$TMP/self.out" "$TMP/self.err" | diag
fi

# The difference read back by cg_annotate: its totals are B's minus A's.
"$TALLY" diff "$A" "$B" >"$TMP/d.out"
cg_annotate --auto=no "$TMP/d.out" >"$TMP/ann.out" 2>&1
want=$(awk '/^summary:/ { print $2 }' "$B" "$A" | awk 'NR == 1 { b = $1 } NR == 2 { print b - $1 }')
got=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$TMP/ann.out")
if [ -n "$want" ] && [ "$want" = "$got" ]; then
    ok "cg_annotate reads the difference (Ir total $got)"
else
    not_ok "cg_annotate reads the difference (want '$want', got '$got')"; head -n 30 "$TMP/ann.out" | diag
fi

# --by=line on a small fixture; the expected text is worked out by hand:
# main: line 1 12-10 2-2, line 2 0-5 0-1, line 5 1-0 1-0; f and g only in
# OLD (negated); h only in NEW. Summary: (13+4)-(15+7+3), (3+4)-(3+0+3).
cat >"$TMP/old.out" <<'EOF'
desc: I1 cache: test
cmd: ./prog 1
events: Ir Dr
fl=a.c
fn=main
1 10 2
2 5 1
fn=f
3 7 0
fl=b.c
fn=g
4 3 3
summary: 25 6
EOF
cat >"$TMP/new.out" <<'EOF'
cmd: ./prog 2
events: Dr Ir
fl=b.c
fn=h
9 4 4
fl=a.c
fn=main
5 1 1
1 2 12
summary: 7 17
EOF
cat >"$TMP/want-line.out" <<'EOF'
desc: Files compared:   old.out; new.out
cmd: ./prog 1; ./prog 2
events: Ir Dr
fl=a.c
fn=f
3 -7 0
fn=main
1 2 0
2 -5 -1
5 1 1
fl=b.c
fn=g
4 -3 -3
fn=h
9 4 4
summary: -8 1
EOF
cat >"$TMP/want-fn.out" <<'EOF'
desc: Files compared:   old.out; new.out
cmd: ./prog 1; ./prog 2
events: Ir Dr
fl=a.c
fn=f
0 -7 0
fn=main
0 -2 0
fl=b.c
fn=g
0 -3 -3
fn=h
0 4 4
summary: -8 1
EOF
(cd "$TMP" && "$TALLY" diff --by=line old.out new.out) >"$TMP/got-line.out" 2>&1
same_text "--by=line on a fixture (hand-computed)" "$TMP/want-line.out" "$TMP/got-line.out"
(cd "$TMP" && "$TALLY" diff old.out new.out) >"$TMP/got-fn.out" 2>&1
same_text "--by=function on a fixture (hand-computed)" "$TMP/want-fn.out" "$TMP/got-fn.out"
# cg_diff agrees on the per-function numbers of the fixture too
(cd "$TMP" && cg_diff old.out new.out) >"$TMP/cg-fn.out" 2>&1
norm "$TMP/cg-fn.out" >"$TMP/cg-fn.norm" 2>&1
norm "$TMP/got-fn.out" >"$TMP/got-fn.norm"
if grep -q "events don't match" "$TMP/cg-fn.out"; then
    ok "fixture: cg_diff refuses reordered events (tally matches them by name)"
else
    same_text "fixture: cg_diff agrees" "$TMP/cg-fn.norm" "$TMP/got-fn.norm"
fi

# Callgrind inputs: all parts added up, self costs only. The same run
# with several parts against one part differs by nothing but the dump
# overhead, so it must read and diff; a file against itself is all zero.
C=$PROF/cg.recurse.out
if "$TALLY" diff "$C" "$C" >"$TMP/cgself.out" 2>"$TMP/cgself.err" &&
    awk '/^-?[0-9]/ || /^summary:/ { for (i = 2; i <= NF; i++) if ($i != 0) bad = 1 }
         END { exit bad }' "$TMP/cgself.out" && grep -q '^fn=fib' "$TMP/cgself.out"; then
    ok "callgrind file against itself: all zero"
else
    not_ok "callgrind file against itself: all zero"; head -n 20 "$TMP/cgself.out" "$TMP/cgself.err" | diag
fi
# callgrind vs cachegrind of the same program: both Ir-only? No: cachegrind
# counts cache events, so the event sets differ and that is an error.
if "$TALLY" diff "$C" "$PROF/cache.recurse.out" >"$TMP/mix.out" 2>"$TMP/mix.err"; then
    not_ok "different event sets are refused"
elif grep -q "events differ" "$TMP/mix.err"; then
    ok "different event sets are refused"
else
    not_ok "different event sets are refused (message)"; diag <"$TMP/mix.err"
fi

# tally annotate reads a difference with negative counts: its PROGRAM
# TOTALS line is the one cg_annotate prints for the same file.
"$TALLY" diff "$B" "$A" >"$TMP/neg.out"
cg_annotate "$TMP/neg.out" 2>&1 | grep 'PROGRAM TOTALS' >"$TMP/neg.cg"
"$TALLY" annotate "$TMP/neg.out" 2>&1 | grep 'PROGRAM TOTALS' >"$TMP/neg.t"
if grep -q -- '^-[1-9]' "$TMP/neg.cg"; then
    same_text "tally annotate shows the negative totals as cg_annotate" "$TMP/neg.cg" "$TMP/neg.t"
else
    not_ok "cg_annotate shows negative totals"; diag <"$TMP/neg.cg"
fi

# Callgrind inputs against callgrind_annotate 3.19: its file:function table
# (all functions, self cost) is keyed by the file of each cost line, which
# is what --by=line keeps; so per (file, function) the sums of
# `tally diff --by=line R W` must equal W's table minus R's (nonzero ones).
if command -v callgrind_annotate >/dev/null 2>&1; then
    ca() {
        # (run from $PROF: callgrind_annotate shortens names under its cwd)
        (cd "$PROF" && callgrind_annotate --threshold=100 --auto=no "$1" 2>/dev/null) | awk '
        /file:function/ { on = 1; getline; next }
        on && NF { n = $1; gsub(",", "", n)
                   sub(/^ *[-0-9,]+ +\([^)]*\) +/, ""); sub(/ \[[^]]*\]$/, "")
                   s[$0] += n }
        END { for (k in s) print k "\t" s[k] }'
    }
    ca "$PROF/cg.recurse.out" >"$TMP/r.ca"
    ca "$PROF/cg.wordfreq.out" >"$TMP/w.ca"
    awk -F'\t' 'FNR == NR { d[$1] -= $2; next } { d[$1] += $2 }
        END { for (k in d) if (d[k] != 0) printf "%s\t%.0f\n", k, d[k] }' \
        "$TMP/r.ca" "$TMP/w.ca" | LC_ALL=C sort >"$TMP/ca.want"
    "$TALLY" diff --by=line "$PROF/cg.recurse.out" "$PROF/cg.wordfreq.out" | awk '
        /^fl=/ { fl = substr($0, 4); next }
        /^fn=/ { fn = substr($0, 4); next }
        /^-?[0-9]/ { s[fl ":" fn] += $2 }
        END { for (k in s) if (s[k] != 0) printf "%s\t%.0f\n", k, s[k] }' |
        LC_ALL=C sort >"$TMP/ca.got"
    if [ "$(wc -l <"$TMP/ca.want")" -gt 20 ]; then
        same_text "callgrind inputs: per (file, function) as callgrind_annotate" \
            "$TMP/ca.want" "$TMP/ca.got"
    else
        not_ok "callgrind_annotate gave too few functions"; head "$TMP/ca.want" | diag
    fi
fi
check_written
