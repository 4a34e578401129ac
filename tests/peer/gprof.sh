#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Differential test of `tally gprof` against GNU gprof 2.40 (/usr/bin/gprof)
# on real gmon.out files of the programs in examples/gprof/ (built with
# -pg -g, run once; see tests/peer/gmon-profiles.sh).
#
# Each line of the matrix below is one TAP test: both tools run on the SAME
# executable and profile files, each in its own empty folder, and
#   - standard output must be byte for byte the same (mode "b": the options
#     include -b), and so must the exit status; standard error must be empty
#     for both or non-empty for both (the wording differs: "tally:");
#   - files the run writes (gmon.sum of -s, FILE-ann of -y) must be the same;
#     gmon.sum is compared except the 12 spare bytes of its header;
#   - mode "t" (no -b): tally's output must hold every line of `gprof -b`'s
#     (the tables) in the same order, but none of gprof's explanatory texts
#     (tally writes its own).
#
# Matrix lines: MODE | PROGRAM | OPTIONS | PROFILES | ENVIRONMENT
#   PROFILES: names in build/gprof-profiles (default PROGRAM.gmon); "-" runs
#   with no file names, after copying the program to a.out and its profile
#   to gmon.out in the run folder. In OPTIONS and ENVIRONMENT, @src is
#   examples/gprof and @ex the folder of the built examples (cs.map).
#   A line starting with "#" is skipped.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

if ! command -v gprof >/dev/null; then
    echo "1..0 # SKIP gprof is not installed"
    exit 0
fi
if ! make_gmon_profiles >"$TMP/make.log" 2>&1; then
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
    exit 1
fi
ok "build and run examples/gprof"
if "$TALLY" gprof --help 2>&1 | grep -q 'is not a tally command'; then
    echo "# SKIP the comparisons: this tally has no gprof command yet"
    exit 0
fi

SRC="$ROOT/examples/gprof"

# subst TEXT: replace @src and @ex
subst() { printf '%s' "$1" | sed -e "s|@src|$SRC|g" -e "s|@ex|$GEX|g"; }

# run_in DIR TOOL... : run a tool with the current case's options in DIR
# (created empty), stdout to DIR.out, stderr to DIR.err, exit code to DIR.rc
run_in() {
    dir=$1
    shift
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$files" = "-" ]; then
        cp "$GEX/$prog" "$dir/a.out"
        cp "$GPROF/$prog.gmon" "$dir/gmon.out"
        set -- "$@" $opts
    else
        set -- "$@" $opts "$GEX/$prog"
        for f in $files; do set -- "$@" "$GPROF/$f"; done
    fi
    # shellcheck disable=SC2086 # env is a list of NAME=VALUE words
    (cd "$dir" && env $envs "$@") >"$dir.out" 2>"$dir.err" </dev/null
    echo $? >"$dir.rc"
}


# gprof's own explanatory texts; tally must not print them
BLURB_LINES="the percentage of the total running time of the
This table describes the call tree of the program, and was sorted by
Each entry in this table consists of several lines.  The line with the"

# in_order EXPECTED ACTUAL : every line of EXPECTED is in ACTUAL, in order
in_order() {
    awk 'BEGIN { n = 0; k = 0 }
         NR == FNR { want[n] = $0; n++; next }
         k < n && $0 == want[k] { k++ }
         END { if (k < n) { print "missing from here on: " want[k]; exit 1 } }' "$1" "$2"
}

compare() {
    why=""
    if [ "$mode" = b ]; then run_in "$TMP/g" gprof; else run_in "$TMP/g" gprof -b; fi
    run_in "$TMP/t" "$TALLY" gprof
    grc=$(cat "$TMP/g.rc") trc=$(cat "$TMP/t.rc")
    [ "$grc" = "$trc" ] || why="exit code $trc, gprof's $grc"
    if [ -s "$TMP/g.err" ] && [ ! -s "$TMP/t.err" ]; then why="$why; no error message"; fi
    if [ ! -s "$TMP/g.err" ] && [ -s "$TMP/t.err" ]; then why="$why; unexpected standard error"; fi
    if [ "$mode" = b ]; then
        cmp -s "$TMP/g.out" "$TMP/t.out" || why="$why; output differs"
    else
        grep -v '^			Call graph$' "$TMP/g.out" >"$TMP/g.tables"
        in_order "$TMP/g.tables" "$TMP/t.out" >"$TMP/order.out" 2>&1 ||
            why="$why; tables differ: $(cat "$TMP/order.out")"
        printf '%s\n' "$BLURB_LINES" >"$TMP/blurbs"
        grep -qFf "$TMP/blurbs" "$TMP/t.out" && why="$why; prints gprof's explanations"
        [ "$(wc -l <"$TMP/t.out")" -gt "$(wc -l <"$TMP/g.tables")" ] || why="$why; no explanations"
    fi
    same_written "$TMP/g" "$TMP/t" a.out gmon.out
    why=${why#; }
}

n_equal=0
while IFS='|' read -r mode prog opts files envs; do
    mode=$(echo $mode) prog=$(echo $prog) files=$(echo $files)
    case $mode in "" | "#"*) continue ;; esac
    opts=$(subst "$opts") envs=$(subst "$envs")
    [ -n "$files" ] || files="$prog.gmon"
    name="$mode $prog $(echo $opts) [$files]${envs:+ with $(echo $envs)}"
    compare
    if [ -z "$why" ]; then
        ok "$name"
        n_equal=$((n_equal + 1))
    else
        not_ok "$name"
        {
            echo "$why"
            if [ "$mode" = b ]; then diff "$TMP/g.out" "$TMP/t.out" | head -n 30; fi
            echo "gprof stderr:"
            head -n 5 "$TMP/g.err"
            echo "tally stderr:"
            head -n 5 "$TMP/t.err"
        } | diag
    fi
done <<'EOF'
b | cycles       | -b
b | cycles       | -b -p
b | cycles       | -b -q
b | cycles       | -b -P
b | cycles       | -b -Q
b | cycles       | -b -z
b | cycles       | -b -c
b | cycles       | -b -a
b | cycles       | -b -T
b | cycles       | -b -w60
b | cycles       | -b -B
b | cycles       | -b -B -p
b | cs           | -b -r
b | cs           | -b -R @ex/cs.map
b | cycles       | -b -i
b | cycles       | -b -l
b | cycles       | -b -l -z
b | cycles       | -b -C
b | cycles       | -b -C -z
b | cycles       | -b -A
b | cycles       | -b -A -x
b | cycles       | -b -A -m 1000
b | cycles       | -b -k ping/pong
b | cycles       | -b -k cycles.c:main/red
b | cycles       | -b -n ping
b | cycles       | -b -N burn
b | cycles       | -b -e burn
b | cycles       | -b -E burn
b | cycles       | -b -f ping
b | cycles       | -b -F red
b | cycles       | -b -pburn
b | cycles       | -b -p:leaf
b | cycles       | -b -pcycles.c
b | cycles       | -b -pcycles.c:burn
b | cycles       | -b -Pleaf
b | cycles       | -b -Pcycles.c:70
b | cycles       | -b -qping
b | cycles       | -b -Qburn
b | cycles       | -b -qred/green
b | cycles       | -b -Qping/pong
b | cycles       | -b -Cburn
b | cycles       | -b -Zburn
b | cycles       | -b -Ared
b | cycles       | -b -Jburn -A
b | cycles       | -b --function-ordering
b | cycles       | -b --no-demangle
b | cycles       | -b          | cycles.gmon cycles.b.gmon
b | cycles       | -b -l       | cycles.gmon cycles.b.gmon
b | cycles       | -b -s       | cycles.gmon cycles.b.gmon
b | cycles       | -b          | -
b | cycles       | -b -i       | cycles.gmon cycles.b.gmon
b | cycles       | -b          | cycles.bsd
b | cycles       | -b          | cycles.44bsd
b | cycles       | -b -i       | cycles.bsd
b | cycles       | -b -i       | cycles.44bsd
b | cycles       | -b -O bsd   | cycles.44bsd
b | cycles       | -b -O 4.4bsd | cycles.44bsd
b | cycles       | -b -O magic
b | cycles       | -b -O auto  | cycles.bsd
b | cycles       | -b -O magic | cycles.bsd
b | cycles       | -b          | cycles.bsd cycles.44bsd
b | cycles       | -b          | cycles.gmon cycles.bsd
b | cycles       | -b -s       | cycles.44bsd
b | cycles       | -b          | cycles.gmon selfrec.gmon
b | cycles       | -b -l -p
b | cycles       | -b -l -q
b | cycles       | -b -l -C
b | cycles       | -b -l -L
b | cycles       | -b -D
b | cycles       | -b --inline-file-names
b | cycles       | -b -l --inline-file-names
b | cycles       | -b -A -t 3
b | cycles-nopie | -b
b | cycles-nopie | -b -l
b | cycles-nopie | -b -c
b | cycles-nopie | -b -C
b | cycles-moved | -b -A -I@src
b | cycles-moved | -b -A -y -I@src
b | cycles-moved | -b -A        | | GPROF_PATH=@src
b | cycles-moved | -b -A
b | selfrec      | -b
b | selfrec      | -b -l
b | selfrec      | -b -z
b | selfrec      | -b -a
b | selfrec      | -b -C
b | selfrec      | -b -A
b | selfrec      | -b -T
b | selfrec      | -b -pfib -qfact
b | selfrec      | -b          | selfrec.gmon selfrec.b.gmon
b | selfrec      | -b -s       | selfrec.gmon selfrec.b.gmon
b | selfrec-O2   | -b
b | selfrec-O2   | -b -l
b | selfrec-O2   | -b -c
b | selfrec-O2   | -b -z
b | cs           | -b
b | cs           | -b -l
b | cs           | -b -l -C
b | cs           | -b -A
b | cs           | -b -A -L
b | cs           | -b -L
b | cs           | -b -a
b | cs           | -b -z
b | cs           | -b -T
b | cs           | -b -y -A
b | cs           | -b -pcs_util.c
b | cs           | -b -qcs_util.c:step
b | cs           | -b -Pcs_main.c:step
b | cs           | -b -k cs_main.c:main/scale
b | cs           | -b -Ccs_main.c
b | cs           | -b -Zscale
b | cs           | -b -Jcs_util.c -A
b | cs           | -b -l -pcs_main.c:28
b | cs           | -b --file-ordering @ex/cs.map
b | cs           | -b -a --file-ordering @ex/cs.map
b | cs           | -b --function-ordering
b | cs           | -b -f cs_util.c
b | cs           | -b -e cs_main.c:step
b | cs           | -b -E :scale
b | cs           | -b -F cs_util.c:mix
b | cs           | -b -n cs_util.c
b | cs           | -b -N cs_main.c:twice
b | cs           | -b -qcs_main.c:22
b | cs           | -b -pcs_util.c:14
b | cs           | -b -k mix/cs_util.c:step
b | cs           | -b -l -qcs_util.c
b | cs           | -b -T -l
b | cs           | -b -l -A
b | cs           | -b -C -l -z
b | many         | -b
b | many         | -b -l
b | many         | -b -z
b | many         | -b -a
b | many         | -b -T
b | many         | -b -c
b | many         | -b --function-ordering
b | shapes       | -b
b | shapes       | -b --demangle
b | shapes       | -b --demangle=gnu-v3
b | shapes       | -b --no-demangle
b | shapes       | -b -T
# operator new(unsigned long, void*) comes from <new>, line-table file entry
# 1, in a sequence that never sets the file: gprof's BFD takes entry 0 for
# that in DWARF 5 (shapes.cc:175) but entry 1 before DWARF 5 (new:175)
b | shapes       | -b -l
b | shapes       | -b -C
b | shapes-dw4   | -b -l
b | shapes-dw4   | -b -C
b | shapes-dw4   | -b
b | shapes       | -b -p_ZN3geo4growEd
t | cycles       |
t | cycles       | -p
t | cycles       | -q
t | cycles       | -T
t | selfrec      |
t | cs           | -l
t | shapes       |
EOF
echo "# $n_equal cases equal to gprof"

# ---------------------------------------------------------------------------
# --callgrind-out: the callgrind file, read by callgrind_annotate, must hold
# gprof's numbers: the total time, each function's callers with their call
# counts, and the time that main's calls bring (self + children in gprof's
# call graph).
if ! command -v callgrind_annotate >/dev/null; then
    echo "# callgrind_annotate is missing: --callgrind-out not checked"
    exit 0
fi
# gprof_parents GRAPH FUNC : "caller count" for each parent line of FUNC's entry
gprof_parents() {
    awk -v f="$2" '
        /^-----/ { n = 0; next }
        /^\[[0-9]+\]/ { if ($0 ~ (" " f " \\[")) { for (i = 0; i < n; i++) print p[i]; exit } next }
        { split($3 ~ /\// ? $3 : $1, c, "/"); if ($4 != "" && $3 ~ /\//) p[n++] = $4 " " c[1] }
    ' "$1" | sort
}
# gprof_children GRAPH FUNC : "callee count seconds" for each child line of
# FUNC's entry (seconds = self + children, as gprof prints them)
gprof_children() {
    awk -v f="$2" '
        /^-----/ { on = 0; next }
        /^\[[0-9]+\]/ { on = ($0 ~ (" " f " \\[")); next }
        on && $3 ~ /\// { split($3, c, "/"); printf "%s %s %.2f\n", $4, c[1], $1 + $2 }
    ' "$1" | sort
}
# cg_children CA_OUTPUT FUNC : the same from callgrind_annotate --tree=calling
cg_children() {
    awk -v f="$2" '
        /^$/ { on = 0; next }
        / \*  / { on = ($0 ~ (":" f " \\[")); next }
        on && / > / { name = $0; sub(/.* > +/, "", name); sub(/ \([0-9]+x\).*/, "", name); sub(/.*:/, "", name)
                cnt = $0; sub(/.*\(/, "", cnt); sub(/x\).*/, "", cnt)
                t = $1; gsub(",", "", t); printf "%s %s %.2f\n", name, cnt, t / 1e6 }
    ' "$1" | sort
}
# cg_parents CA_OUTPUT FUNC : the same from callgrind_annotate --tree=caller
cg_parents() {
    awk -v f="$2" '
        /^$/ { n = 0; next }
        / < / { name = $0; sub(/.* < /, "", name); sub(/ \([0-9]+x\).*/, "", name); sub(/.*:/, "", name)
                cnt = $0; sub(/.*\(/, "", cnt); sub(/x\).*/, "", cnt); p[n++] = name " " cnt; next }
        / \*  / { if ($0 ~ (":" f " \\[")) { for (i = 0; i < n; i++) print p[i]; exit } }
    ' "$1" | sort
}
for prog in cycles cs; do
    rm -rf "$TMP/cg"
    mkdir -p "$TMP/cg"
    (cd "$TMP/cg" && "$TALLY" gprof -b --callgrind-out=cg.out "$GEX/$prog" "$GPROF/$prog.gmon") \
        >"$TMP/cg.report" 2>"$TMP/cg.err"
    if [ ! -s "$TMP/cg/cg.out" ]; then
        not_ok "$prog --callgrind-out writes a file"
        diag <"$TMP/cg.err"
        continue
    fi
    ok "$prog --callgrind-out writes a file"
    gprof -b "$GEX/$prog" "$GPROF/$prog.gmon" >"$TMP/cg.gprof"
    same_text "$prog --callgrind-out: the report is gprof's" "$TMP/cg.gprof" "$TMP/cg.report"
    (cd "$TMP/cg" && callgrind_annotate --tree=caller --inclusive=yes cg.out) >"$TMP/ca.out" 2>&1
    total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.2f", $1 / 1e6 }' "$TMP/ca.out")
    want=$(awk '/Call graph/ { exit } /^ *[0-9.]+ +[0-9.]+ +[0-9.]+ / { t = $2 } END { print t }' "$TMP/cg.gprof")
    if [ -n "$total" ] && [ "$total" = "$want" ]; then ok "$prog --callgrind-out: total time $want s"; else
        not_ok "$prog --callgrind-out: total time $want s"
        echo "callgrind_annotate total: $total s" | diag
    fi
    case $prog in cycles) funcs="burn" ;; cs) funcs="scale mix twice" ;; esac
    for f in $funcs; do
        gprof_parents "$TMP/cg.gprof" "$f" >"$TMP/pg"
        cg_parents "$TMP/ca.out" "$f" >"$TMP/pc"
        if [ -s "$TMP/pg" ]; then
            same_text "$prog --callgrind-out: callers of $f and their counts" "$TMP/pg" "$TMP/pc"
        else
            not_ok "$prog --callgrind-out: gprof lists callers of $f"
        fi
    done
    gprof_children "$TMP/cg.gprof" main >"$TMP/pg"
    (cd "$TMP/cg" && callgrind_annotate --tree=calling --inclusive=yes cg.out) >"$TMP/ca2.out" 2>&1
    cg_children "$TMP/ca2.out" main >"$TMP/pc"
    same_text "$prog --callgrind-out: calls of main, counts and inclusive time" "$TMP/pg" "$TMP/pc"
done
check_written
