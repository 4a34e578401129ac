#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally annotate --asm: the machine code of functions with their costs,
# against oracles (tests/cli/asm/oracle.py reads them all):
#  - a C program (loops, branches, a jump table, recursion) and a C++ one
#    (virtual calls, templates, std::sort and std::vector inlined), each
#    profiled by Callgrind 3.19 and by tally record with --dump-instr=yes
#    --collect-jumps=yes in one environment (env -i, one VALGRIND_LIB):
#    every instruction listed has objdump -d's address and mnemonic, and a
#    function's listing holds every instruction objdump shows in its
#    symbol; the costs per instruction and the jumps are the profile
#    file's own lines; they add up to the function's self cost, which is
#    tally's and callgrind_annotate's function table; tally record's jumps
#    are taken as often as Callgrind's, and its conditional jumps run as
#    often as their instruction; the hottest instructions are marked;
#  - a stripped program (functions named by address, no symbol sizes);
#  - a program rebuilt after the run, another program put in its place
#    with an older time, a missing program: a message, and the costs by
#    address (the file's); tally record's size and time of each object,
#    which tell a program touched back to an older time;
#  - errors: a profile without instruction addresses, a bad regex, a bad
#    syntax; a regex that matches nothing; AT&T syntax.
. "$(dirname "$0")/../lib.sh"
peer_start objdump nm g++ python3 callgrind_annotate
ORACLE="python3 $ROOT/tests/cli/asm/oracle.py"
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=/usr/bin:/bin"
cp "$ROOT/tests/cli/asm/loops.c" "$ROOT/tests/cli/asm/shapes.cc" "$TMP/"
if ! (cd "$TMP" && gcc -O1 -freorder-blocks-and-partition -g -o loops loops.c && g++ -O1 -g -o shapes shapes.cc) 2>"$TMP/cc.err"; then
    not_ok "the test programs build"
    diag <"$TMP/cc.err"
    exit 1
fi
X="--dump-instr=yes --collect-jumps=yes"
cg() { # PROG OUT [ARGS]
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind $X --callgrind-out-file="$2" \
        "./$1" >/dev/null 2>"$2.err" </dev/null)
}
tl() { # PROG OUT
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record $X --out-file="$2" \
        "./$1" >/dev/null 2>"$2.err" </dev/null)
}
asm() { # PROFILE OUT [OPTIONS]: annotate --asm of every function
    p=$1 o=$2
    shift 2
    (cd "$TMP" && "$TALLY" annotate --asm=. --auto=no --threshold=100 --show-percs=no "$@" "$p" \
        >"$o" 2>"$o.err")
}
# same NAME A B: the files are equal and not empty
same() {
    if [ ! -s "$2" ]; then
        not_ok "$1"
        echo "nothing to compare in ${2##*/}" | diag
    else
        same_text "$1" "$2" "$3"
    fi
}
# nothing NAME FILE: FILE's only line is "checked N ..." with N > 0
checked() {
    if [ "$(grep -vc '^checked ' "$2")" = 0 ] && grep -Eq '^checked [1-9]' "$2"; then
        ok "$1 ($(sed -n 's/^checked //p' "$2" | head -n 1))"
    else
        not_ok "$1"
        head -n 30 "$2" | diag
    fi
}

for prog in loops shapes; do
    obj=$TMP/$prog
    objdump -C -d -M intel --no-show-raw-insn "$obj" >"$TMP/$prog.od"
    $ORACLE objdump "$TMP/$prog.od" >"$TMP/$prog.insn"
    nm -S -C --defined-only "$obj" >"$TMP/$prog.nm"
    cg $prog "$TMP/$prog.cg"
    tl $prog "$TMP/$prog.tl"
    for k in cg tl; do
        f=$TMP/$prog.$k
        what="$prog, $([ $k = cg ] && echo Callgrind || echo 'tally record')"
        if ! [ -s "$f" ] || ! asm "$f" "$f.asm"; then
            not_ok "$what: annotate --asm runs"
            cat "$f.err" "$f.asm.err" 2>&1 | head -n 20 | diag
            continue
        fi
        $ORACLE tally "$f.asm" "$obj" >"$f.t"
        $ORACLE callgrind "$f" "$obj" >"$f.c"
        $ORACLE insns "$f.t" "$TMP/$prog.insn" "$TMP/$prog.nm" >"$f.cmp"
        checked "$what: every instruction is objdump's, every function whole" "$f.cmp"
        grep -Pv '\t(insn|sum)\t' "$f.t" >"$f.tc"
        same "$what: the cost of every instruction and every jump is the file's" "$f.c" "$f.tc"
        # the instructions add up to the self cost, which is the function table's
        awk -F'\t' '$2 == "sum" || $2 == "self" {v[$1, $2] = $3; f[$1] = 1}
            END {for (n in f) if (v[n, "sum"] != v[n, "self"]) print n ": " v[n, "sum"] " != " v[n, "self"];
                 print "checked " length(f) " functions"}' "$f.t" >"$f.sum"
        checked "$what: each function's instructions add up to its self cost" "$f.sum"
        (cd "$TMP" && "$TALLY" annotate --auto=no --threshold=100 --show-percs=no "$f") >"$f.ann"
        $ORACLE table "$f.ann" "$obj" "$TMP/$prog.nm" | sed 's/\trow\t/\tself\t/' >"$f.rows"
        # the functions the table can tell apart: named by a symbol, in no other object
        awk -F'\t' 'NR == FNR {want[$1] = 1; next} $2 == "self" && ($1 in want)' "$f.rows" "$f.t" >"$f.self"
        n=$(wc -l <"$f.self")
        same "$what: the self costs of $n functions are tally annotate's function table's" \
            "$f.rows" "$f.self"
        if [ $k = cg ]; then
            (cd "$TMP" && callgrind_annotate --auto=no --threshold=100 --show-percs=no "$f") >"$f.cga"
            $ORACLE table "$f.cga" "$obj" "$TMP/$prog.nm" | sed 's/\trow\t/\tself\t/' >"$f.cgrows"
            same "$what: the self costs are callgrind_annotate's" "$f.cgrows" "$f.self"
        else
            $ORACLE jcndexe "$f.t" >"$f.exe"
            checked "$what: a conditional jump runs as often as its instruction" "$f.exe"
        fi
        # the hottest: the costliest instructions, up to half the cost or 10 of them
        awk -F'\t' '/^-- Machine code: /{fn = $0} / [*] [0-9a-f]+:/{hot[fn]++}
            END {for (f in hot) if (hot[f] > 10) print f ": " hot[f] " marked"; print "checked " length(hot)}' \
            "$f.asm" >"$f.hot"
        awk '/^-- Machine code: /{fn = $0; min = -1}
            / [*] [0-9a-f]+:/{gsub(",", "", $1); if (min < 0 || $1 + 0 < min) min = $1 + 0}
            /  [0-9a-f]+:/ && !/ [*] [0-9a-f]+:/{gsub(",", "", $1); if ($1 != "." && min >= 0 && $1 + 0 > min) print fn ": " $1 " not marked, " min " marked"}' \
            "$f.asm" >>"$f.hot"
        checked "$what: the marked instructions are the costliest, at most 10" "$f.hot"
    done
    $ORACLE jumpsum "$TMP/$prog.cg.c" "$TMP/$prog.nm" >"$TMP/$prog.jcg"
    $ORACLE jumpsum "$TMP/$prog.tl.t" "$TMP/$prog.nm" >"$TMP/$prog.jtl"
    same "$prog: tally record's jumps, shown by annotate --asm, are taken as often as Callgrind's" \
        "$TMP/$prog.jcg" "$TMP/$prog.jtl"
done
# the programs' own code was shown, with source lines, calls and both kinds of jumps
if grep -q '^-- Machine code: .*classify.* \[' "$TMP/loops.cg.asm" &&
    grep -Eq '^ +\. +-- (.*/)?loops.c:[0-9]+: switch' "$TMP/loops.cg.asm" &&
    grep -Eq '=> .*fib.* \(1x\)' "$TMP/loops.cg.asm" &&
    grep -Eq -- '-> 0x[0-9a-f]+  taken [0-9,]+ of [0-9,]+' "$TMP/loops.cg.asm" &&
    grep -Eq -- '-> 0x[0-9a-f]+  jumped [0-9,]+x' "$TMP/loops.cg.asm" &&
    grep -q '^-- Machine code: .*geo::Rect::area() const \[' "$TMP/shapes.tl.asm"; then
    ok "the listings have source lines, calls, jumps and C++ functions"
else
    not_ok "the listings have source lines, calls, jumps and C++ functions"
    head -n 40 "$TMP/loops.cg.asm" | diag
fi

# a function whose code is in two symbols: Callgrind charges main's loop after the jump back
# from main.cold to main.cold (the frame's function), so its listing is main.cold, then <main>
if awk '/^-- Machine code: .*:main.cold \[/ {on = 1; next} /^-- Machine code: / {on = 0}
        on && /^ +\. +-- <main>$/ {found = 1} END {exit !found}' "$TMP/loops.cg.asm"; then
    ok "a function in two ranges of code: the second one named (-- <main>)"
else
    not_ok "a function in two ranges of code: the second one named (-- <main>)"
    grep -A12 '^-- Machine code: .*:main.cold' "$TMP/loops.cg.asm" | diag
fi

# --- a stripped program --------------------------------------------------------
strip -o "$TMP/stripped" "$TMP/loops"
objdump -d -M intel --no-show-raw-insn "$TMP/stripped" >"$TMP/stripped.od"
$ORACLE objdump "$TMP/stripped.od" >"$TMP/stripped.insn"
: >"$TMP/empty.nm"
for k in cg tl; do
    f=$TMP/stripped.$k
    $k stripped "$f"
    asm "$f" "$f.asm"
    $ORACLE tally "$f.asm" "$TMP/stripped" >"$f.t"
    $ORACLE callgrind "$f" "$TMP/stripped" >"$f.c"
    $ORACLE insns "$f.t" "$TMP/stripped.insn" "$TMP/empty.nm" >"$f.cmp"
    checked "stripped, $k: every instruction is objdump's" "$f.cmp"
    grep -Pv '\t(insn|sum)\t' "$f.t" >"$f.tc"
    same "stripped, $k: the cost of every instruction and every jump is the file's" "$f.c" "$f.tc"
done
if grep -A1 '^-- Machine code: .* \[.*/stripped\]' "$TMP/stripped.cg.asm" "$TMP/stripped.tl.asm" |
    grep -q 'costs by address'; then
    not_ok "stripped: every function of the program is disassembled"
    grep -A1 '^-- Machine code: .* \[.*/stripped\]' "$TMP/stripped.tl.asm" | diag
else
    ok "stripped: every function of the program is disassembled"
fi
if grep -q 'run-time addresses less 0x108000' "$TMP/stripped.tl.asm"; then
    ok "stripped, tally record: .init's run-time addresses less the PIE's load bias"
else
    not_ok "stripped, tally record: .init's run-time addresses less the PIE's load bias"
    grep -A1 '^-- Machine code: ???:0x0000000000001000' "$TMP/stripped.tl.asm" | diag
fi

# --- the program changed, replaced or missing ------------------------------------
mkdir "$TMP/re"
cp "$TMP/loops" "$TMP/re/loops"
cg re/loops "$TMP/re.cg"
$ORACLE callgrind "$TMP/re.cg" "$TMP/re/loops" | grep -P '\t(cost|self)\t' >"$TMP/re.c"
byaddr() { # NAME PATTERN: main's costs by address, the file's, and the message
    $ORACLE tally "$TMP/re.asm" "$TMP/re/loops" | grep -P '^main\t(cost|self)\t' >"$TMP/re.t"
    grep -P '^main\t' "$TMP/re.c" >"$TMP/re.cm"
    if grep -A1 '^-- Machine code: .*:main \[' "$TMP/re.asm" | grep -Eq -- "$2" &&
        ! grep -Eq '  (mov|call|ret)' "$TMP/re.asm" && [ -s "$TMP/re.cm" ] &&
        cmp -s "$TMP/re.t" "$TMP/re.cm"; then
        ok "$1"
    else
        not_ok "$1"
        { grep -A3 '^-- Machine code: .*:main \[' "$TMP/re.asm"; diff "$TMP/re.cm" "$TMP/re.t"; } | head -n 20 | diag
    fi
}
sleep 1
(cd "$TMP" && sed 's/x \* 3/x * 5/' loops.c >changed.c && gcc -O1 -g -o re/loops changed.c)
(cd "$TMP" && "$TALLY" annotate '--asm=^main$' --auto=no --show-percs=no re.cg >re.asm 2>re.err)
byaddr "rebuilt after the run: said so, and the costs by address" \
    "re/loops is newer than the profile 're.cg': it changed since the run: costs by address"
cp "$TMP/shapes" "$TMP/re/loops"
touch -d '2001-01-01' "$TMP/re/loops"
(cd "$TMP" && "$TALLY" annotate '--asm=^main$' --auto=no --show-percs=no re.cg >re.asm 2>re.err)
byaddr "another program in its place, older: its code does not match, costs by address" \
    "(is not in the code of the object|is inside an instruction|no instruction decodes).*: costs by address"
rm "$TMP/re/loops"
(cd "$TMP" && "$TALLY" annotate '--asm=^main$' --auto=no --show-percs=no re.cg >re.asm 2>re.err)
byaddr "missing program: said so, and the costs by address" \
    "object .*re/loops cannot be read: No such file or directory: costs by address"

# tally record writes each object's size and time (desc: Option: object SIZE SEC.NSEC PATH): a
# program touched back to an older time is "changed", which the time of the profile cannot tell
mkdir "$TMP/re2"
cp "$TMP/loops" "$TMP/re2/loops"
tl re2/loops "$TMP/re2.tl"
want="desc: Option: object $(stat -c '%s %.9Y' "$TMP/re2/loops") $TMP/re2/loops"
if grep -qxF "$want" "$TMP/re2.tl"; then
    ok "tally record gives the program's size and time as stat does"
else
    not_ok "tally record gives the program's size and time as stat does"
    { echo "want: $want"; grep '^desc: Option: object' "$TMP/re2.tl"; } | diag
fi
(cd "$TMP" && "$TALLY" annotate '--asm=^main$' --auto=no re2.tl >re2.asm 2>&1)
touch -d '2001-01-01' "$TMP/re2/loops"
(cd "$TMP" && "$TALLY" annotate '--asm=^main$' --auto=no re2.tl >re2b.asm 2>&1)
if grep -q '^-- [0-9]* instructions' "$TMP/re2.asm" &&
    grep -Eq "^-- .*re2/loops changed since the run \([0-9]+ bytes, modified .* then; [0-9]+ bytes, modified 2001-01-01 00:00:00.000000000 UTC now\): costs by address" "$TMP/re2b.asm"; then
    ok "tally record's profile: the same program is disassembled, one touched is changed"
else
    not_ok "tally record's profile: the same program is disassembled, one touched is changed"
    grep -h -A1 '^-- Machine code: .*:main \[' "$TMP/re2.asm" "$TMP/re2b.asm" | diag
fi

# --- errors and options ------------------------------------------------------------
(cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --callgrind-out-file=noinstr.cg \
    ./loops >/dev/null 2>&1 </dev/null)
RUN_DIR=$TMP
expect_run "a profile without instruction addresses: how to get them" 1 "" \
    "^tally: noinstr.cg: no instruction addresses in the profile.*--dump-instr=yes" \
    annotate --asm noinstr.cg
expect_run "a bad regex: a usage error with PCRE2's reason" 2 "" \
    "^tally: annotate: --asm regex '\(': missing closing parenthesis at offset 1" \
    annotate '--asm=(' loops.cg
expect_run "a bad --asm-syntax" 2 "" "--asm-syntax takes intel or att, not 'arm'" \
    annotate --asm --asm-syntax=arm loops.cg
expect_run "a regex that matches no function says so" 0 \
    "^-- Machine code: no function with a cost matches 'no_such_fn'" "" \
    annotate --asm=no_such_fn --auto=no loops.cg
expect_run "--asm-syntax=att: AT&T operands" 0 "^ +[0-9,]+ .* [0-9a-f]+:  movl +\\\$0x[0-9a-f]+, %e" "" \
    annotate --asm=main --asm-syntax=att --auto=no loops.cg
expect_run "--asm without a regex: the functions listed, main among them" 0 \
    "^-- Machine code: .*loops.c:main \[.*/loops\]" "" annotate --asm --auto=no loops.cg
echo "1..$TESTN"
