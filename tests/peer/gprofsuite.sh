#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: the gprof tests of glibc's gmon/ folder, with tally gprof in
# place of GNU gprof. Those tests (tst-gmon.c, built four ways, and the
# scripts tst-gmon-gprof.sh and tst-gmon-static-gprof.sh, which check the
# call counts `gprof -C` reports) come from Debian 12's glibc source
# package at test time (scripts/peer-sources.sh glibc). binutils' own
# gprof/testsuite is a copy of them, first released in binutils 2.45:
# Debian 12's binutils 2.40 (and 13's 2.44) has no gprof tests.
#
# For each program, as gmon/Makefile builds it (-fno-omit-frame-pointer
# -pg, with glibc's default -g -O2; no PIE, PIE, static, static PIE):
#  - the program runs and writes its profile (GMON_OUT_PREFIX);
#  - glibc's script passes with GNU gprof (that the test is sound here),
#    and with tally gprof;
#  - tally gprof prints what GNU gprof 2.40 prints on the same executable
#    and profile, for each option set below, as tests/peer/gprof.sh
#    compares them: the same standard output byte for byte, the same exit
#    status, standard error empty for both or for neither, and the same
#    files written (gmon.sum except the 12 spare bytes of its header).
. "$(dirname "$0")/../lib.sh"

for p in gprof gcc; do
    if ! command -v $p >/dev/null; then
        echo "ok 1 - # SKIP $p is not installed"
        exit 0
    fi
done
if ! src=$(sh "$ROOT/scripts/peer-sources.sh" glibc 2>"$TMP/src.err"); then
    not_ok "glibc's gmon tests from Debian's source package (scripts/peer-sources.sh glibc)"
    diag <"$TMP/src.err"
    exit 1
fi
ok "glibc's gmon tests from Debian's source package: $src/gmon"
G=$src/gmon
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec "%s" gprof "$@"\n' "$TALLY" >"$TMP/bin/tally-gprof"
chmod +x "$TMP/bin/tally-gprof"


# compare PROG DATA OPTIONS... : sets why (empty when tally's run is gprof's)
compare() {
    prog=$1 data=$2
    shift 2
    why=""
    for t in g t; do
        rm -rf "${TMP:?}/$t"
        mkdir -p "$TMP/$t"
        tool=gprof
        [ $t = t ] && tool=$TMP/bin/tally-gprof
        (cd "$TMP/$t" && "$tool" "$@" "$prog" "$data") >"$TMP/$t.out" 2>"$TMP/$t.err" </dev/null
        echo $? >"$TMP/$t.rc"
    done
    [ "$(cat "$TMP/g.rc")" = "$(cat "$TMP/t.rc")" ] || why="exit code $(cat "$TMP/t.rc"), gprof's $(cat "$TMP/g.rc")"
    if [ -s "$TMP/g.err" ] && [ ! -s "$TMP/t.err" ]; then why="$why; no error message"; fi
    if [ ! -s "$TMP/g.err" ] && [ -s "$TMP/t.err" ]; then why="$why; unexpected standard error"; fi
    cmp -s "$TMP/g.out" "$TMP/t.out" || why="$why; output differs"
    same_written "$TMP/g" "$TMP/t"
    why=${why#; }
}

n_equal=0
while IFS='|' read -r name source flags script; do
    name=$(echo $name) source=$(echo $source) flags=$(echo $flags) script=$(echo $script)
    dir=$TMP/$name
    mkdir -p "$dir"
    # shellcheck disable=SC2086 # flags is a list of words
    if ! (cd "$dir" && gcc -g -O2 -fno-omit-frame-pointer -pg $flags -o "$name" "$G/$source" &&
        GMON_OUT_PREFIX="$dir/$name.data" "./$name") >"$TMP/build.log" 2>&1 </dev/null ||
        ! set -- "$dir/$name".data.* || [ $# != 1 ] || [ ! -s "$1" ]; then
        not_ok "$name: built with -pg $flags and run, one profile written"
        diag <"$TMP/build.log"
        continue
    fi
    data=$1
    ok "$name: built with -pg $flags and run, profile written"
    for tool in gprof "$TMP/bin/tally-gprof"; do
        (cd "$dir" && sh "$G/$script" "$tool" "./$name" "$data") >"$TMP/suite.out" 2>&1 </dev/null
        rc=$?
        label="GNU gprof"
        [ "$tool" = gprof ] || label="tally gprof"
        if [ $rc = 0 ] && [ "$(tail -n 1 "$TMP/suite.out")" = PASS ]; then
            ok "$name: glibc's $script passes with $label"
        else
            not_ok "$name: glibc's $script passes with $label"
            diag <"$TMP/suite.out"
        fi
    done
    while read -r opts; do
        # shellcheck disable=SC2086 # opts is a list of words
        compare "$dir/$name" "$data" $opts
        if [ -z "$why" ]; then
            ok "$name $opts: tally gprof prints what GNU gprof prints"
            n_equal=$((n_equal + 1))
        else
            not_ok "$name $opts: tally gprof prints what GNU gprof prints"
            { echo "$why"; diff "$TMP/g.out" "$TMP/t.out" | head -n 20; head -n 5 "$TMP/t.err"; } | diag
        fi
    done <<'EOF'
-b
-b -p
-b -q
-b -C
-b -z
-b -a
-b -c
-b -T
-b -r
-b -i
-b -l
-b -l -C
-b -l -q
-b -A
-b -A -x
-b -y -A
-b -s
EOF
done <<'EOF'
tst-gmon            | tst-gmon.c            | -no-pie            | tst-gmon-gprof.sh
tst-gmon-pie        | tst-gmon-pie.c        | -fPIE -pie         | tst-gmon-gprof.sh
tst-gmon-static     | tst-gmon-static.c     | -static            | tst-gmon-static-gprof.sh
tst-gmon-static-pie | tst-gmon-static-pie.c | -fPIE -static-pie  | tst-gmon-static-gprof.sh
EOF
echo "# $n_equal cases equal to GNU gprof"
