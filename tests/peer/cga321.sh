#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: `tally annotate --layout=3.21` against cg_annotate 3.27.1, the
# newest (Debian sid's Valgrind), byte for byte.
#
# Nothing of Valgrind's is in tally's tree: scripts/peer-sources.sh gets
# Debian sid's valgrind source package (checked by apt against the
# archive's signatures) and unpacks cachegrind/tests with the Python
# cg_annotate, cg_diff and cg_merge (their @VERSION@ filled in here). When
# the archive cannot be reached the test says so and skips.
#
#  1. Valgrind's own tests (cachegrind/tests/ann*.vgtest): each `post:`
#     command runs as the vgtest gives it (prereq's `touch` first), once as
#     it is (its output must be NAME.post.exp: the oracle reproduces its own
#     expectations here), once with `python3 ../cg_annotate` replaced by
#     tally (cg_diff and cg_merge stay the oracle's where a vgtest uses
#     them). tally's output must be NAME.post.exp but for the invocation
#     on the `Invocation:` line, which names tally's command line.
#  2. Differential: cg_annotate 3.27.1 and tally on tally's golden
#     cachegrind file, on real profiles of examples/ made by Valgrind's
#     Cachegrind (tests/peer/profiles.sh), on a profile of differences
#     written by `tally diff`, with options of every kind, several files
#     merged and --diff: same stdout (but the invocation), same exit status.
#     Then generated files: tests/tools/profgen.py --oracle (CGA321_SEEDS,
#     20) and tests/tools/cga321gen.py (CGA321_GEN, 50).
#  3. Bad input: both refuse a callgrind file, profiles with other events
#     and a `summary:` line that is not the sum of the costs (tally with its
#     own message, exit 1).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"

if ! SRC=$(sh "$ROOT/scripts/peer-sources.sh" valgrind sid 2>"$TMP/src.err"); then
    echo "# cannot get Debian sid's valgrind source package:"
    diag <"$TMP/src.err"
    echo "ok 1 - cg_annotate 3.21+ tests: Debian sid's valgrind source cannot be had here # SKIP"
    exit 0
fi
if ! command -v python3 >/dev/null; then
    echo "ok 1 - cg_annotate 3.21+ tests: python3 is not installed # SKIP"
    exit 0
fi
VER=${SRC##*/valgrind-}
W=$TMP/vg
mkdir -p "$W/cachegrind" || exit 1
# -p: the files keep the tarball's times (the warnings about sources newer
# than a profile depend on them)
cp -Rp "$SRC/cachegrind/tests" "$W/cachegrind/" || exit 1
for s in cg_annotate cg_diff cg_merge; do
    sed "s/@VERSION@/$VER/" "$SRC/cachegrind/$s.in" >"$W/cachegrind/$s" || exit 1
done
T=$W/cachegrind/tests
ok "Valgrind $VER's cachegrind tests and scripts, from Debian sid ($SRC)"

vgkey() { sed -n "s/^$2: *//p" "$1" | tail -n 1; }

# fix_inv FILE OLD NEW: the Invocation: line's OLD prefix (a plain string)
# becomes NEW
fix_inv() {
    awk -v old="Invocation:       $2" -v new="Invocation:       $3" '
        index($0, old) == 1 && !done { $0 = new substr($0, length(old) + 1); done = 1 }
        { print }' "$1"
}

# 1. the vgtests
n=0
for vt in "$T"/ann*.vgtest; do
    name=$(basename "$vt" .vgtest)
    post=$(vgkey "$vt" post)
    prereq=$(vgkey "$vt" prereq | sed 's|\.\./\.\./tests/python_test\.sh|true|')
    if [ -z "$post" ]; then
        not_ok "$name: a post: line"
        continue
    fi
    n=$((n + 1))
    (cd "$T" && sh -c "$prereq") >/dev/null 2>&1
    (cd "$T" && sh -c "$post") >"$TMP/$name.orig" 2>"$TMP/$name.orig.err"
    if cmp -s "$T/$name.post.exp" "$TMP/$name.orig" && [ ! -s "$TMP/$name.orig.err" ]; then
        ok "$name: cg_annotate $VER prints $name.post.exp"
    else
        not_ok "$name: cg_annotate $VER prints $name.post.exp"
        { diff "$T/$name.post.exp" "$TMP/$name.orig" | head -n 20; cat "$TMP/$name.orig.err"; } | diag
    fi
    tpost=$(printf '%s\n' "$post" | sed "s|python3 \.\./cg_annotate|'$TALLY' annotate --layout=3.21|")
    (cd "$T" && sh -c "$prereq") >/dev/null 2>&1
    (cd "$T" && sh -c "$tpost") >"$TMP/$name.tally" 2>"$TMP/$name.tally.err"
    rc=$?
    fix_inv "$T/$name.post.exp" "../cg_annotate " "tally annotate --layout=3.21 " >"$TMP/$name.want"
    if [ $rc = 0 ] && [ ! -s "$TMP/$name.tally.err" ] && cmp -s "$TMP/$name.want" "$TMP/$name.tally"; then
        ok "$name: tally annotate --layout=3.21 prints $name.post.exp"
    else
        not_ok "$name: tally annotate --layout=3.21 prints $name.post.exp (exit $rc)"
        { diff "$TMP/$name.want" "$TMP/$name.tally" | head -n 40; head -n 5 "$TMP/$name.tally.err"; } | diag
    fi
done
# the suite of 3.27.1 has 9 of them
if [ $n -ge 9 ]; then ok "$n vgtests of cg_annotate run"; else not_ok "$n vgtests of cg_annotate run (9 expected)"; fi

# 2. differential: compare NAME DIR ARGS... (run in DIR)
CGA="python3 $W/cachegrind/cg_annotate"
compare() {
    name=$1 dir=$2
    shift 2
    (cd "$dir" && $CGA "$@") >"$TMP/o.out" 2>"$TMP/o.err"
    orc=$?
    (cd "$dir" && "$TALLY" annotate --layout=3.21 "$@") >"$TMP/t.out" 2>"$TMP/t.err"
    trc=$?
    fix_inv "$TMP/o.out" "$W/cachegrind/cg_annotate " "tally annotate --layout=3.21 " >"$TMP/o.fixed"
    if [ $orc != 0 ]; then
        not_ok "$name: cg_annotate $VER runs (exit $orc)"
        head -n 5 "$TMP/o.err" | diag
    elif [ $trc = 0 ] && [ ! -s "$TMP/t.err" ] && [ -s "$TMP/t.out" ] && cmp -s "$TMP/o.fixed" "$TMP/t.out"; then
        ok "$name: same as cg_annotate $VER ($(wc -l <"$TMP/t.out") lines)"
    else
        not_ok "$name: same as cg_annotate $VER (tally exit $trc)"
        { diff "$TMP/o.fixed" "$TMP/t.out" | head -n 40; head -n 5 "$TMP/t.err"; } | diag
    fi
}

G=$ROOT/tests/golden/annotate
compare "golden c1.out (negative counts, ???)" "$G" c1.out
compare "golden c1.out --threshold=0 --context=0" "$G" --threshold=0 --context=0 c1.out
compare "golden c1.out --show=Dr --sort=Dr,Ir --no-show-percs" "$G" --show=Dr --sort=Dr,Ir --no-show-percs c1.out
compare "golden c1.out merged with itself" "$G" c1.out c1.out
compare "golden c1.out --diff with itself" "$G" --diff c1.out c1.out

if make_profiles; then
    E=$ROOT/examples
    P=$ROOT/build/peer-profiles
    compare "cache.wordfreq.out" "$E" "$P/cache.wordfreq.out"
    compare "cache.matrix.out (branch events)" "$E" "$P/cache.matrix.out"
    compare "cache.recurse.out --threshold=0" "$E" --threshold=0 "$P/cache.recurse.out"
    compare "cache.wordfreq.out --threshold=2.5 --context 3 --show-percs=no" "$E" \
        --threshold=2.5 --context 3 --show-percs=no "$P/cache.wordfreq.out"
    compare "cache.matrix.out --sort=D1mr,Ir --show=Ir,D1mr,Bcm --auto=no" "$E" \
        --sort=D1mr,Ir --show=Ir,D1mr,Bcm --auto=no "$P/cache.matrix.out"
    compare "cache.wordfreq.out --threshold=1e-05 --no-annotate" "$E" \
        --threshold=1e-05 --no-annotate "$P/cache.wordfreq.out"
    compare "cache.wordfreq.out and cache.wordfreq2.out merged" "$E" \
        "$P/cache.wordfreq.out" "$P/cache.wordfreq2.out"
    compare "cache.wordfreq.out --diff cache.wordfreq2.out" "$E" \
        --diff "$P/cache.wordfreq.out" "$P/cache.wordfreq2.out"
    compare "--diff with --mod-funcname and --mod-filename" "$E" --diff \
        '--mod-funcname=s/([a-z]+)_[a-z]+/\1/g' '--mod-filename=s/^\/.*\//lib\//' \
        "$P/cache.wordfreq2.out" "$P/cache.wordfreq.out"
    compare "--mod-filename renaming the program's source (read under its recorded name)" "$E" '--mod-filename=s/word/WORD/i' \
        "$P/cache.wordfreq.out"
    if "$TALLY" diff "$P/cache.wordfreq.out" "$P/cache.wordfreq2.out" -o "$TMP/d.out" 2>"$TMP/d.err"; then
        compare "a profile of differences by tally diff" "$E" "$TMP/d.out"
    else
        not_ok "tally diff of cache.wordfreq.out and cache.wordfreq2.out"
        diag <"$TMP/d.err"
    fi
else
    not_ok "make_profiles (real cachegrind profiles of examples/)"
fi

# 2b. generated cachegrind files (tests/tools/profgen.py --oracle: fl=/fn= in
# any order, a function coming back, functions of no count, ties, short
# lines, counts near 2^63), with options chosen from the seed. cg_annotate
# 3.21+ reads no `.` count: those become 0 for both.
GENS=${CGA321_SEEDS:-20}
bad=0
s=1
while [ $s -le "$GENS" ]; do
    d=$TMP/gen$s
    mkdir -p "$d"
    if ! python3 "$ROOT/tests/tools/profgen.py" cachegrind $s "$d" --oracle >/dev/null 2>"$TMP/gen.err"; then
        not_ok "profgen.py cachegrind $s"
        diag <"$TMP/gen.err"
        bad=$((bad + 1))
        s=$((s + 1))
        continue
    fi
    sed -i -E '/^[0-9]/{s/(^| )\.( |$)/\10\2/g;s/(^| )\.( |$)/\10\2/g}' "$d/prof.cg"
    # options from the seed: the events in another order, a threshold, a context
    set -- $(sed -n 's/^events: *//p' "$d/prof.cg")
    nev=$#
    first=$1
    last=$(eval echo "\${$nev}")
    case $((s % 5)) in
    0) set -- --threshold=0 ;;
    1) set -- "--show=$last,$first" "--sort=$last" --context=1 ;;
    2) set -- --threshold=2 --no-show-percs --context 0 ;;
    3) set -- "--sort=$last,$first" --threshold=0.5 --auto=no ;;
    4) set -- --context=3 '--mod-funcname=s/[aeiou]//g' '--mod-filename=s/\.[ch]$/.x/' ;;
    esac
    (cd "$d" && $CGA "$@" prof.cg) >"$d/o.out" 2>"$d/o.err"
    orc=$?
    (cd "$d" && "$TALLY" annotate --layout=3.21 "$@" prof.cg) >"$d/t.out" 2>"$d/t.err"
    trc=$?
    fix_inv "$d/o.out" "$W/cachegrind/cg_annotate " "tally annotate --layout=3.21 " >"$d/o.fixed"
    if [ $orc != 0 ] || [ $trc != 0 ] || [ -s "$d/t.err" ] || ! cmp -s "$d/o.fixed" "$d/t.out"; then
        not_ok "generated cachegrind file, seed $s ($*): same as cg_annotate $VER (exit $orc and $trc)"
        { diff "$d/o.fixed" "$d/t.out" | head -n 30; head -n 5 "$d/o.err" "$d/t.err"; } | diag
        bad=$((bad + 1))
    fi
    s=$((s + 1))
done
[ $bad = 0 ] && ok "$GENS generated cachegrind files (profgen.py --oracle), options from the seed: same as cg_annotate $VER"

# 2c. small files of tests/tools/cga321gen.py: the shapes this layout
# treats apart (bare fl=, line 0, lines past the end, renamed files with the
# same bytes or not, missing files, ???, several profiles, --diff, sources
# with \r\n, \r or no last line end, sources newer than the profiles),
# options from the seed
GENS=${CGA321_GEN:-50}
bad=0
s=1
while [ $s -le "$GENS" ]; do
    d=$TMP/small$s
    if ! args=$(python3 "$ROOT/tests/tools/cga321gen.py" $s "$d" 2>"$TMP/gen.err"); then
        not_ok "cga321gen.py $s"
        diag <"$TMP/gen.err"
        bad=$((bad + 1))
        s=$((s + 1))
        continue
    fi
    # shellcheck disable=SC2086
    (cd "$d" && $CGA $args) >"$d/o.out" 2>"$d/o.err"
    orc=$?
    # shellcheck disable=SC2086
    (cd "$d" && "$TALLY" annotate --layout=3.21 $args) >"$d/t.out" 2>"$d/t.err"
    trc=$?
    fix_inv "$d/o.out" "$W/cachegrind/cg_annotate " "tally annotate --layout=3.21 " >"$d/o.fixed"
    if [ $orc != 0 ] || [ $trc != 0 ] || [ -s "$d/t.err" ] || ! cmp -s "$d/o.fixed" "$d/t.out"; then
        not_ok "cga321gen.py seed $s ($args): same as cg_annotate $VER (exit $orc and $trc)"
        { diff "$d/o.fixed" "$d/t.out" | head -n 30; head -n 5 "$d/o.err" "$d/t.err"; } | diag
        bad=$((bad + 1))
    fi
    s=$((s + 1))
done
[ $bad = 0 ] && ok "$GENS files of cga321gen.py, options from the seed: same as cg_annotate $VER"

# 3. bad input: both refuse
refuse() { # NAME DIR PATTERN ARGS...
    name=$1 dir=$2 pat=$3
    shift 3
    (cd "$dir" && $CGA "$@") >"$TMP/o.out" 2>"$TMP/o.err"
    orc=$?
    (cd "$dir" && "$TALLY" annotate --layout=3.21 "$@") >"$TMP/t.out" 2>"$TMP/t.err"
    trc=$?
    if [ $orc != 0 ] && [ $trc = 1 ] && grep -Eq -- "$pat" "$TMP/t.err"; then
        ok "$name: refused by both (exit $orc and $trc)"
    else
        not_ok "$name: refused by both (exit $orc and $trc)"
        { cat "$TMP/o.err"; cat "$TMP/t.err"; } | head -n 10 | diag
    fi
}
printf 'cmd: x\nevents: A B\nfl=a.c\nfn=f\n1 5 6\nsummary: 5 7\n' >"$TMP/badsum.cg"
printf 'cmd: x\nevents: B A\nfl=a.c\nfn=f\n1 5 6\nsummary: 5 6\n' >"$TMP/other.cg"
printf 'cmd: x\nevents: A B\nfl=a.c\nfn=f\n1 5 6\nsummary: 5 6\n' >"$TMP/ok.cg"
refuse "summary: not the sum of the costs" "$TMP" "badsum.cg:6: 'summary:' line" badsum.cg
refuse "profiles with other events" "$TMP" "other.cg: its events are not those of ok.cg" ok.cg other.cg
if [ -f "${P:-/nonexistent}/cg.wordfreq.out" ]; then
    refuse "a callgrind file" "$TMP" "not a cachegrind profile" "$P/cg.wordfreq.out"
fi
