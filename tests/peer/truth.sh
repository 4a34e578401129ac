#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Inclusive costs against programs that know their own: a function's
# inclusive cost is the cost spent while it is on the stack, counted once
# however deeply it recurses (pprof's "cum").
#
# The programs of tests/peer/truth/ count, for each of their functions,
# the work done while it is on the stack (truth.h) and print each one's
# share of the total: "total R..." names the functions whose work makes
# the total (main, whose loop does all the work; in threads.c the two
# threads' functions, whose work is all the threads' work), then one
# "NAME PERCENT" line a function. For each program:
#  - the program prints the same figures natively, under tally record
#    (with and without --contexts=yes) and under Callgrind: it is
#    deterministic, and its figures do not depend on the tool;
#  - tally record's file read by tally annotate --inclusive=yes: 100 x
#    incl(f) / incl(R...) must be within $TOL points of the program's
#    figure for every function (the figures are shares of work units,
#    tally's of instructions: they differ by the few instructions of
#    bookkeeping around each call of work(), under 0.1 point);
#  - the contexts file of tally record --contexts=yes: the folded stacks
#    (tally convert --to=folded), each function's cost being the sum of
#    the lines whose stack holds it (once a line however often it is in
#    it): time on the stack by definition, within $TOL points too. This
#    needs stacks that never drop a frame: the contexts of today fold
#    recursion, an activation of a function already on the stack going to
#    that function's earlier node, so the frames between the two lose its
#    cost (docs/internals/contexts.md), and mutual recursion fails here;
#  - Callgrind's file (--separate-recs=1, so that a function keeps one
#    name at every depth of a recursion) read by tally annotate
#    --inclusive=yes: no inclusive cost above the program's total. Its
#    arcs nest under recursion, so a function's time on the stack can
#    only be estimated from them: the estimate's error against the
#    program's figures is printed ("# estimate error"), not checked.
# flat.c has no recursion, so tally's figures must match whatever the
# state of its recursion handling: with the check that the comparison
# fails when a figure is 1 point off, it keeps a broken reading of the
# profiles from passing. The programs' own figures are checked too, where
# recursion is mutual (cycle, interp, visitor): tally record
# --toggle-collect=F counts only while F is on the stack, so its total is
# F's time on the stack, measured by the tool. All runs share one
# environment, as in the other peer tests: `env -i` with one PATH and one
# VALGRIND_LIB holding both tools.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
    ok "truth programs # SKIP valgrind is not installed"
    echo "1..$TESTN"
    exit 0
fi
if [ ! -x "$TOOL_LIB/tally-amd64-linux" ]; then
    not_ok "tally's Valgrind tool is built (build/valgrind/lib/tally-amd64-linux)"
    echo "1..$TESTN"
    exit 1
fi
SRC=$ROOT/tests/peer/truth
TOL=0.5
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH"

# incl_rows NAME FILE: "NAME COST" for the rows of tally annotate
# --inclusive=yes (shown as --show=Ir --show-percs=no) whose source file
# is tests/peer/truth/NAME.c or truth.h (a path that ends in truth/NAME.c:
# annotate shows paths below the current directory relative to it), the
# name without its " <cycle N>" mark; a name met twice is printed as
# "TWICE NAME" (a function split over two rows could not be compared).
incl_rows() {
    awk -v prog="truth/$1.c" '
    function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
    function ours(file) {
        return file == prog || ends(file, "/" prog) || file == "truth/truth.h" ||
            ends(file, "/truth/truth.h")
    }
    /^ *[0-9][0-9,]*  / {
        v = $1; gsub(/,/, "", v)
        r = $0; sub(/^ *[0-9,]+  /, "", r)
        file = r; sub(/:.*/, "", file)
        if (!ours(file)) next
        sub(/^[^:]*:/, "", r); sub(/ \[.*$/, "", r); sub(/ <cycle [0-9]+>( \(estimated\))?$/, "", r)
        if (r in seen) print "TWICE", r
        seen[r] = 1
        print r, v
    }' "$2"
}

# rows_over_total FILE: the rows of an annotate output (as above) whose
# cost is above the PROGRAM TOTALS line, and the number of rows
rows_over_total() {
    awk '
    / PROGRAM TOTALS$/ { t = $1; gsub(/,/, "", t); t += 0; next }
    /^ *[0-9][0-9,]*  / {
        v = $1; gsub(/,/, "", v); n++
        if (t && v + 0 > t) { sub(/^ */, ""); print "above the total " t ": " $0 }
    }
    END { print n + 0, "rows" }' "$1"
}

# stack_sums FOLDED: "NAME COST" for every function of the folded stacks:
# the sum of the lines whose stack holds it, each line counted once
stack_sums() {
    awk '{
        v = $NF; s = $0; sub(/ [^ ]*$/, "", s)
        n = split(s, f, ";")
        split("", once)
        for (i = 1; i <= n; i++) if (!(f[i] in once)) { once[f[i]] = 1; sum[f[i]] += v }
    } END { for (k in sum) print k, sum[k] }' "$1"
}

# compare LABEL TRUTH COSTS [OTHER]: the program's figures (TRUTH)
# against 100 x cost / the sum of the costs of the total's functions
# (COSTS: "NAME COST" lines) for every function of TRUTH. Prints the
# table "function, truth, LABEL (the figures from COSTS), difference",
# with a mark where the difference is over $TOL points (with OTHER, a
# second "NAME COST" file, its figures as a column "tally" before LABEL's)
# and its largest difference last; exits 0 when every function is found
# and within $TOL points.
compare() {
    label=$1
    shift
    awk -v tol="$TOL" -v label="$label" -v other="${3:-}" '
    FILENAME == ARGV[1] && $1 == "total" { for (i = 2; i <= NF; i++) ref[$i] = 1; next }
    FILENAME == ARGV[1] { order[++n] = $1; truth[$1] = $2; next }
    FILENAME == ARGV[2] && $1 == "TWICE" { twice[$2] = 1; next }
    FILENAME == ARGV[2] { c[$1] = $2; next }
    $1 != "TWICE" { o[$1] = $2 }
    END {
        for (r in ref) { tc += c[r]; to += o[r] }
        if (!n) { print "the program printed no figures"; exit 1 }
        if (tc == 0) { print "no cost found for the total (" length(ref) " functions)"; exit 1 }
        printf "%-12s %9s", "function", "truth"
        if (other != "") printf " %9s", "tally"
        printf " %9s %9s\n", label, "diff"
        bad = 0; worst = 0
        for (i = 1; i <= n; i++) {
            f = order[i]
            printf "%-12s %9.4f", f, truth[f]
            if (other != "") {
                if (f in o && to) printf " %9.4f", 100 * o[f] / to
                else printf " %9s", "-"
            }
            if (!(f in c) || (f in twice)) {
                printf " %9s %9s  <- %s\n", "-", "-", (f in twice) ? "two rows" : "not found"
                bad = 1
                continue
            }
            m = 100 * c[f] / tc
            d = m - truth[f]
            a = d < 0 ? -d : d
            if (a > worst) worst = a
            printf " %9.4f %+9.4f%s\n", m, d, (a > tol ? "  <- over " tol : "")
            if (a > tol) bad = 1
        }
        printf "largest difference %.4f points\n", worst
        exit bad
    }' "$1" "$2" ${3:+"$3"}
}

# annotate_incl PROFILE OUT: tally annotate --inclusive=yes of every function
annotate_incl() {
    "$TALLY" annotate --inclusive=yes --threshold=100 --auto=no --show=Ir --show-percs=no "$1" \
        >"$2" 2>"$2.err"
}

# check_program NAME: every check of tests/peer/truth/NAME.c
check_program() {
    n=$1
    d=$TMP/$n
    mkdir -p "$d"
    if ! gcc -std=c17 -O1 -g -Wall -Wextra -pthread -o "$d/$n" "$SRC/$n.c" 2>"$d/cc.err" ||
        [ -s "$d/cc.err" ]; then
        not_ok "$n: gcc -O1 -g builds $n.c without a warning"
        diag <"$d/cc.err"
        return
    fi
    # the program's figures, natively and under each tool
    (cd "$d" && $E "./$n" >native.txt 2>&1 </dev/null)
    (cd "$d" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --out-file="$d/rec.out" \
        -- "./$n" >rec.txt 2>rec.err </dev/null)
    (cd "$d" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --contexts=yes \
        --out-file="$d/ctx.out" --contexts-out-file="$d/ctx.ctx" -- "./$n" \
        >ctx.txt 2>ctx.err </dev/null)
    (cd "$d" && $E VALGRIND_LIB="$LIB" valgrind -q --tool=callgrind --separate-recs=1 \
        --callgrind-out-file="$d/cg.out" "./$n" >cg.txt 2>cg.err </dev/null)
    same=yes
    for r in rec ctx cg; do cmp -s "$d/native.txt" "$d/$r.txt" || same=no; done
    if [ "$same" = yes ] && head -n 1 "$d/native.txt" | grep -q '^total ' &&
        [ "$(wc -l <"$d/native.txt")" -ge 3 ] && [ -s "$d/rec.out" ] && [ -s "$d/ctx.ctx" ] &&
        [ -s "$d/cg.out" ]; then
        ok "$n: the same figures natively, under tally record (--contexts=no and yes) and Callgrind ($(($(wc -l <"$d/native.txt") - 1)) functions)"
    else
        not_ok "$n: the same figures natively, under tally record (--contexts=no and yes) and Callgrind"
        for r in native rec ctx cg; do
            echo "$r:"
            head -n 12 "$d/$r.txt"
            [ -f "$d/$r.err" ] && head -n 5 "$d/$r.err"
        done | diag
        return
    fi

    # tally record's file, tally annotate --inclusive=yes
    if annotate_incl "$d/rec.out" "$d/rec.ann"; then
        incl_rows "$n" "$d/rec.ann" >"$d/rec.costs"
        if compare tally "$d/native.txt" "$d/rec.costs" >"$d/rec.cmp"; then
            ok "$n: tally annotate --inclusive=yes within $TOL points of the program's figures ($(tail -n 1 "$d/rec.cmp"))"
        else
            not_ok "$n: tally annotate --inclusive=yes within $TOL points of the program's figures"
            diag <"$d/rec.cmp"
        fi
    else
        not_ok "$n: tally annotate --inclusive=yes reads tally record's file"
        head -n 5 "$d/rec.ann.err" | diag
    fi

    # the contexts: time on the stack from the folded stacks
    if "$TALLY" convert --to=folded -o "$d/ctx.folded" "$d/ctx.ctx" 2>"$d/folded.err" &&
        [ -s "$d/ctx.folded" ]; then
        stack_sums "$d/ctx.folded" >"$d/ctx.costs"
        if compare stacks "$d/native.txt" "$d/ctx.costs" >"$d/ctx.cmp"; then
            ok "$n: --contexts=yes: time on the stack from the folded stacks within $TOL points ($(tail -n 1 "$d/ctx.cmp"))"
        else
            not_ok "$n: --contexts=yes: time on the stack from the folded stacks within $TOL points"
            diag <"$d/ctx.cmp"
        fi
    else
        not_ok "$n: tally convert --to=folded reads the contexts file"
        head -n 5 "$d/folded.err" | diag
    fi

    # Callgrind's file: an estimate, checked against the total only
    if annotate_incl "$d/cg.out" "$d/cg.ann"; then
        rows_over_total "$d/cg.ann" >"$d/cg.over"
        if [ "$(wc -l <"$d/cg.over")" = 1 ] && ! grep -q '^0 rows' "$d/cg.over"; then
            ok "$n: Callgrind's file: no inclusive cost above the total ($(cat "$d/cg.over"))"
        else
            not_ok "$n: Callgrind's file: no inclusive cost above the total"
            head -n 20 "$d/cg.over" | diag
        fi
        incl_rows "$n" "$d/cg.ann" >"$d/cg.costs"
        echo "estimate error of $n: Callgrind's file (tally annotate --inclusive=yes) against the program; tally: tally record's file" |
            diag
        compare callgrind "$d/native.txt" "$d/cg.costs" "$d/rec.costs" | sed 's/^/estimate error /' | diag
    else
        not_ok "$n: tally annotate --inclusive=yes reads Callgrind's file"
        head -n 5 "$d/cg.ann.err" | diag
    fi
}

# check_toggle NAME: the figures of tests/peer/truth/NAME.c against the
# totals of tally record --toggle-collect=F, which counts only while F is
# on the stack (outermost call to its return, recursion included): time
# on the stack measured by the tool, independently of the program's own
# bookkeeping and of any reading of arcs or stacks. Not for threads.c:
# the tool's toggle is one state for the whole process (valgrind/tl_main.c:
# toggle_depth), so it counts the other threads' work too.
check_toggle() {
    n=$1
    d=$TMP/$n
    [ -s "$d/native.txt" ] || return
    : >"$d/toggle.costs"
    for f in $(awk 'NR == 1 { for (i = 2; i <= NF; i++) print $i; next } { print $1 }' \
        "$d/native.txt" | sort -u); do
        (cd "$d" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --toggle-collect="$f" \
            --out-file="$d/toggle.$f" -- "./$n" >/dev/null 2>&1 </dev/null)
        echo "$f $(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$d/toggle.$f" 2>/dev/null)" >>"$d/toggle.costs"
    done
    if compare toggle "$d/native.txt" "$d/toggle.costs" >"$d/toggle.cmp"; then
        ok "$n: the program's figures are time on the stack, as tally record --toggle-collect=F counts it ($(tail -n 1 "$d/toggle.cmp"))"
    else
        not_ok "$n: the program's figures are time on the stack, as tally record --toggle-collect=F counts it"
        diag <"$d/toggle.cmp"
    fi
}

# no recursion: tally's figures must already match
check_program flat
# the comparison itself: a figure 1 point off, or a function missing, fails
if [ -s "$TMP/flat/rec.costs" ]; then
    awk '$1 == "a" { $2 += 1 } { print }' "$TMP/flat/native.txt" >"$TMP/flat/off.txt"
    grep -v '^b ' "$TMP/flat/rec.costs" >"$TMP/flat/less.costs"
    if ! compare tally "$TMP/flat/off.txt" "$TMP/flat/rec.costs" >/dev/null &&
        ! compare tally "$TMP/flat/native.txt" "$TMP/flat/less.costs" >/dev/null &&
        compare tally "$TMP/flat/native.txt" "$TMP/flat/rec.costs" >/dev/null; then
        ok "flat: the comparison fails on a figure 1 point off and on a function not found"
    else
        not_ok "flat: the comparison fails on a figure 1 point off and on a function not found"
    fi
else
    not_ok "flat: the comparison fails on a figure 1 point off and on a function not found (no figures from tally annotate)"
fi
for p in cycle interp visitor selfrec threads; do
    check_program "$p"
done
# the programs' own bookkeeping, measured another way where recursion is mutual
for p in cycle interp visitor; do
    check_toggle "$p"
done
echo "1..$TESTN"
