#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Valgrind 3.19's own regression tests of Callgrind and Cachegrind
# (callgrind/tests/*.vgtest, cachegrind/tests/*.vgtest and its subfolders),
# run under the original tool and under `tally record` with the same
# options, and their post-processing steps under callgrind_annotate,
# cg_annotate and cg_diff and under `tally annotate` / `tally diff`.
#
# Nothing of Valgrind's is in tally's tree: scripts/peer-sources.sh gets
# Debian's valgrind source package (checked by apt against the archive's
# signatures) and unpacks the tests; their programs are built here with gcc
# as Valgrind's Makefile.am builds them (the flags of
# Makefile.tool-tests.am, Valgrind's headers from the package). Both tools
# run in one environment: `env -i` with one PATH and one VALGRIND_LIB
# holding both tools (peer_valgrind_lib), in the vgtest's folder, with the
# vgtest's prog, args and vgopts.
#
# Every vgtest prints TAP lines, or one line saying why it does not apply;
# a key of a .vgtest this script does not know is a failure, never ignored.
# The checks, in that order:
#  - the original reproduces the vgtest's own expectations: its stdout and
#    its stderr through the vgtest's filters equal NAME.stdout.exp and
#    NAME.stderr.exp (and the post step's output NAME.post.exp), so the
#    rest compares against the run Valgrind's authors meant;
#  - tally's stdout and exit status equal the original's;
#  - tally's stderr through the vgtest's filter is the original's (less
#    tally's banner and "wrote FILE" lines, and Callgrind's "Events :" and
#    "Collected :": tally prints Cachegrind's summary), so the same
#    summary lines (I refs, misses, branches) and no other message;
#  - Callgrind vgtests (tally's callgrind file against Callgrind's files,
#    read by tests/tools/cgpeer.py): the events: line, the parts with their
#    thread:, part: and desc: Trigger: lines, the totals of each part, the
#    self costs of the program's functions and the calls they make;
#  - Cachegrind vgtests: tally's --cachegrind-out-file is Cachegrind's
#    file byte for byte, and the summary on stderr has the same numbers;
#  - post steps: tally's output is the original's byte for byte.
#
# Where tally differs by design, the check says so and checks what tally
# documents (docs/tally-record.md, docs/tally-annotate.md):
#  - Cachegrind runs with --vex-guest-chase=no, the counting tally always
#    does ("Numbers"); tally runs with --cache-sim=yes (Cachegrind 3.19's
#    default; tally's, as Cachegrind's since 3.21, is no) and
#    --cachegrind-out-file=cachegrind.out.%p unless the vgtest names one.
#  - tally always counts Dr and Dw: its events: line is Callgrind's with
#    Dr Dw added when Callgrind has none.
#  - a read-modify-write is a read for tally (Cachegrind's rule), a write
#    for Callgrind: read and write events are compared as sums (Dr + Dw,
#    D1mr + D1mw, DLmr + DLmw, DLdmr + DLdmw).
#  - tally's defaults --separate-recs=1 and --combine-dumps=yes: Callgrind's
#    recursion levels (NAME'2) are folded into their function, and its file
#    per dump is read as the parts of one file; a call into a function
#    already on the stack carries its count but no cost in tally's file
#    (each recursion is charged once): such arcs are compared by count,
#    the others by count and inclusive cost.
#  - tally's totals are compared with Callgrind's summary: lines (Callgrind
#    writes a totals: line that may differ from its own summary by a few
#    events no cost line has).
#  - a block that runs across a client request that dumps, zeroes or
#    switches collection is charged by Callgrind when it starts, by tally
#    as its instructions run: in programs that make such requests the
#    totals and the self costs of the functions that make them may differ
#    by up to 16 Ir per part (tests/peer/parts.sh), the rest is exact.
#  - the PLT stub of a call into another object is the callee's code for
#    tally, the caller's for Callgrind: the caller's self cost is lower in
#    tally's file by one or two instructions a call (more on a first,
#    lazily bound call), its calls into other objects compared by count.
#  - without a cache simulation Callgrind never counts the block a thread
#    ends in (it counts a block when it is left): a thread's last part may
#    have up to 8 Ir more in tally's file (tally counts as Cachegrind).
#  - in `threads` the threads race: they are paired by the rank of their
#    totals and the main thread's total (its waits) is not compared.
#  - code without a symbol is named after its object by tally, `???` by
#    Callgrind (.init, .fini, PLT stubs): only functions with a symbol are
#    compared one by one.
#  - callgrind_annotate given a cachegrind file (cachegrind/tests/cgout-test)
#    prints its own layout; tally prints cg_annotate's for every cachegrind
#    file: its output is compared with cg_annotate's with the same options,
#    and callgrind_annotate's function rows must be tally's first rows.
#  - --cacheuse: the use events are compared with Callgrind's totals:
#    (its summary: has 0 for them), a thread's last part may have up to two
#    lines' use more (tests/tools/cgpeer.py); a function's own use events
#    are Callgrind's but for the use of the lines its PLT stubs brought in
#    (the callee's in tally); programs for another architecture
#    (cachegrind/tests/x86) are not applicable.
. "$(dirname "$0")/../lib.sh"

peer_start callgrind_annotate cg_annotate cg_diff python3
if ! SRC=$(sh "$ROOT/scripts/peer-sources.sh" 2>"$TMP/src.err"); then
    not_ok "Debian's valgrind source package can be had (scripts/peer-sources.sh)"
    diag <"$TMP/src.err"
    exit 1
fi
VER=$(valgrind --version)
case $SRC in
*/"$VER") ok "the tests of $VER, from Debian's source package ($SRC)" ;;
*)
    not_ok "the source package ($SRC) is the installed Valgrind's ($VER)"
    exit 1
    ;;
esac
CGPEER="python3 $ROOT/tests/tools/cgpeer.py"
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind cachegrind
E="env -i PATH=/usr/bin:/bin"
V=$TMP/vg
cp -R "$SRC" "$V" || exit 1

# The programs of check_PROGRAMS in the Makefile.am files, with the flags
# of Makefile.tool-tests.am and no -O (Valgrind's configure.ac sets CFLAGS
# before AC_PROG_CC, which then adds no -g -O2 of its own; memcheck's
# wrap5 relies on it: with -O2 its wrapped functions are inlined).
CFLAGS="-Winline -Wall -Wshadow -Wno-long-long -g -fno-stack-protector -m64 -I$V -I$V/include"
build() { # DIR OUTPUT SOURCE [FLAGS...]
    d=$1 out=$2 src=$3
    shift 3
    # shellcheck disable=SC2086
    (cd "$V/$d" && gcc $CFLAGS -o "$out" "$src" "$@") >>"$TMP/build.log" 2>&1 ||
        echo "$d/$out" >>"$TMP/build.failed"
}
: >"$TMP/build.log"
build tests true true.c
build memcheck/tests wrap5 wrap5.c
build callgrind/tests clreq clreq.c
build callgrind/tests simwork simwork.c
build callgrind/tests threads threads.c -lpthread
build cachegrind/tests chdir chdir.c
build cachegrind/tests clreq clreq.c
build cachegrind/tests dlclose dlclose.c -ldl
build cachegrind/tests myprint.so myprint.c -shared -fPIC
if [ -s "$TMP/build.failed" ]; then
    not_ok "the test programs build ($(tr '\n' ' ' <"$TMP/build.failed"))"
    tail -n 20 "$TMP/build.log" | diag
else
    ok "the test programs build with gcc (9 programs)"
fi

# vgkey FILE KEY: the value of KEY in a .vgtest (the last one given)
vgkey() { sed -n "s/^$2: *//p" "$1" | tail -n 1; }

# newfiles DIR BEFORE DEST: moves the files of DIR that are not listed in
# BEFORE (a listing made before a run) into DEST
newfiles() {
    mkdir -p "$3"
    ls -A "$1" | while read -r f; do
        grep -qxF "$f" "$2" || mv "$1/$f" "$3/"
    done
}

# filtered FILTER FILE: FILE through the vgtest's filter (run in its folder)
filtered() { (cd "$dir" && sh "./$1" <"$2") 2>&1; }

# squeeze: runs of blank lines as one
squeeze() { awk 'NF || !blank { print } { blank = !NF }'; }

# the summary's lines with their numbers
summary() { sed -n 's/^==[0-9]*== //p' "$1" | sed -n '/^I *refs:/,$p'; }

# is_cachegrind FILE: a profile in the cachegrind format (no line of the
# callgrind format's own: positions:, version:, creator:, part:, calls=)
is_cachegrind() {
    ! head -n 1 "$1" | grep -q '^# callgrind format' &&
        ! grep -qE '^(positions:|version:|creator:|part:|calls=)' "$1"
}

# rows FILE: the function rows of an annotate report ("costs name")
rows() {
    awk '/file:function$/ { on = 1; getline; next } on && /^-----/ { exit } on && NF' "$1" |
        sed 's/  */ /g; s/^ //'
}

# run_post LABEL CMD: the vgtest's post step, by the originals and by tally
# (in the vgtest's folder; $name is the vgtest's name)
run_post() {
    label=$1 post=$2
    # the originals from PATH, tally in their place
    o=$(echo "$post" | sed -e 's#perl \.\./\.\./callgrind/callgrind_annotate#callgrind_annotate#g' \
        -e 's#perl \.\./\.\./cachegrind/cg_annotate#cg_annotate#g' \
        -e 's#perl \.\./\.\./cachegrind/cg_diff#cg_diff#g')
    case $o in *perl*)
        not_ok "$label: post step understood ($post)"
        return
        ;;
    esac
    t=$(echo "$o" | sed -e "s#callgrind_annotate#$TALLY annotate#g" -e "s#cg_annotate#$TALLY annotate#g" \
        -e "s#cg_diff#$TALLY diff#g")
    # its inputs: the arguments of the commands that are no options and
    # not made by an earlier command (> FILE)
    missing=$(echo "$o" | tr ' ' '\n' | awk '
        $0 == ">" { out = 1; next }
        $0 == "&&" || $0 == "|" || $0 == ";" { cmd = 1; next }
        out { made[$0] = 1; out = 0; next }
        cmd || NR == 1 { cmd = 0; next }
        /^-/ { next }
        { if (!($0 in made)) print }' | while read -r f; do [ -e "$dir/$f" ] || echo "$f"; done)
    if [ -n "$missing" ]; then
        ok "$label: post step not applicable: its input $(echo $missing) is not in the source package # SKIP"
        return
    fi
    (cd "$dir" && $E sh -c "$o" >"$out/post.orig" 2>&1 </dev/null)
    (cd "$dir" && $E sh -c "$t" >"$out/post.tally" 2>&1 </dev/null)
    pf=$(vgkey "$vgtest" post_filter)
    if [ -n "$pf" ]; then
        filtered "$pf" "$out/post.orig" >"$out/post.orig.f"
    else
        cp "$out/post.orig" "$out/post.orig.f"
    fi
    same_text "$label: post: the original's output is $name.post.exp" "$dir/$name.post.exp" "$out/post.orig.f"
    tool=$(echo "$o" | awk '{ print $1 }')
    input=$(echo "$o" | awk '{ print $NF }')
    if [ "$tool" = callgrind_annotate ] && is_cachegrind "$dir/$input"; then
        cga=$(echo "$o" | sed 's#^callgrind_annotate#cg_annotate#')
        (cd "$dir" && $E sh -c "$cga" >"$out/post.cg" 2>&1 </dev/null)
        same_text "$label: post: tally annotate on a cachegrind file prints cg_annotate's report byte for byte" \
            "$out/post.cg" "$out/post.tally"
        rows "$out/post.orig" >"$out/rows.orig"
        rows "$out/post.tally" | head -n "$(wc -l <"$out/rows.orig")" >"$out/rows.tally"
        if [ -s "$out/rows.orig" ]; then
            same_text "$label: post: callgrind_annotate's $(wc -l <"$out/rows.orig") function rows are tally's first rows" \
                "$out/rows.orig" "$out/rows.tally"
        else
            not_ok "$label: post: callgrind_annotate's report has function rows"
        fi
    else
        same_text "$label: post: tally's output is the original's byte for byte" "$out/post.orig" "$out/post.tally"
    fi
}

# cgcheck CHECK TITLE-PREFIX OPTIONS...: one TAP line from tests/tools/cgpeer.py
# on the two runs' callgrind files ($cl and $tl)
cgcheck() {
    c=$1 pre=$2
    shift 2
    # shellcheck disable=SC2086
    if $CGPEER "$c" "$@" $cl -- $tl >"$out/$c.cmp" 2>&1; then
        ok "$pre: $(head -n 1 "$out/$c.cmp")"
        tail -n +2 "$out/$c.cmp" | diag
    else
        not_ok "$pre: $(head -n 1 "$out/$c.cmp")"
        tail -n +2 "$out/$c.cmp" | diag
    fi
}

# compare_callgrind LABEL: tally's callgrind file(s) against Callgrind's
compare_callgrind() {
    cl=$(ls "$out"/orig/callgrind.out* 2>/dev/null)
    tl=$(ls "$out"/tally/tally.out* "$out"/tally/callgrind.out* 2>/dev/null)
    if [ -z "$cl" ] || [ -z "$tl" ]; then
        not_ok "$1: both tools wrote their callgrind files"
        { ls "$out"/orig "$out"/tally; tail -n 5 "$out/tally.stderr"; } | diag
        return
    fi
    tol=0 eb=0
    [ -n "$requests" ] && tol=16
    # without a cache simulation Callgrind counts a block's instructions
    # when the block is left: the one a thread ends in is never counted
    grep -q '^events:.* I1mr' $cl || eb=8
    cgcheck events "$1"
    cgcheck parts "$1"
    cgcheck totals "$1" --tol=$tol --exit-block=$eb $racy
    cgcheck self "$1" --obj="/$prog_base" --tol=$tol --requests="$requests" $racy
    cgcheck arcs "$1" --obj="/$prog_base" --tol=$tol
}

# run_vgtest FILE
run_vgtest() {
    vgtest=$1
    dir=${vgtest%/*}
    name=${vgtest##*/}
    name=${name%.vgtest}
    rel=${dir#"$V"/}
    tool=${rel%%/*}
    label="$tool/$name"
    out=$TMP/out/$(echo "$rel/$name" | tr '/' '.')
    mkdir -p "$out"
    bad=$(sed -n 's/^\([a-z_]*\):.*/\1/p' "$vgtest" |
        grep -vxE 'prog|args|vgopts|prereq|post|post_filter|stdout_filter|stderr_filter|cleanup|env' | sort -u)
    if [ -n "$bad" ]; then
        not_ok "$label: every key of the .vgtest is understood (not: $(echo $bad))"
        return
    fi
    case $rel in */x86 | */x86/* | */amd64 | */arm* | */ppc* | */s390x | */mips*)
        arch=${rel##*/}
        [ "$arch" != amd64 ] && {
            ok "$label: not applicable: a test for $arch; tally's tool is built for amd64 only # SKIP"
            return
        }
        ;;
    esac
    prog=$(vgkey "$vgtest" prog)
    args=$(vgkey "$vgtest" args)
    vgopts=$(vgkey "$vgtest" vgopts)
    envs=$(vgkey "$vgtest" env)
    prereq=$(vgkey "$vgtest" prereq)
    case $prog in */*) ;; *) prog=./$prog ;; esac
    prog_base=${prog##*/}
    if [ ! -x "$dir/$prog" ]; then
        not_ok "$label: its program $prog is built"
        return
    fi
    if [ -n "$prereq" ] && ! (cd "$dir" && sh -c "$prereq") >/dev/null 2>&1; then
        ok "$label: not applicable: its prereq '$prereq' fails here # SKIP"
        return
    fi
    # the client requests of callgrind.h that dump, zero or switch; the
    # threads that race (tests/tools/cgpeer.py)
    requests="" racy=""
    [ "$prog_base" = threads ] && racy=--racy-threads
    case $prog_base in
    clreq) [ "$tool" = callgrind ] && requests=main,some_callgrind_clreqs,more_callgrind_clreqs ;;
    simwork) requests=main ;;
    esac
    tallyopts=""
    chase=""
    if [ "$tool" = cachegrind ]; then
        chase=--vex-guest-chase=no
        tallyopts=--cache-sim=yes
        case " $vgopts" in *" --cachegrind-out-file="*) ;; *)
            tallyopts="$tallyopts --cachegrind-out-file=cachegrind.out.%p" ;;
        esac
    fi

    ls -A "$dir" >"$out/before"
    # shellcheck disable=SC2086
    (cd "$dir" && $E $envs VALGRIND_LIB="$LIB" valgrind --tool="$tool" $chase $vgopts "$prog" $args \
        >"$out/orig.stdout" 2>"$out/orig.stderr" </dev/null
    echo $? >"$out/orig.rc")
    newfiles "$dir" "$out/before" "$out/orig"
    # shellcheck disable=SC2086
    (cd "$dir" && $E $envs TALLY_VALGRIND_LIB="$LIB" "$TALLY" record $tallyopts $vgopts "$prog" $args \
        >"$out/tally.stdout" 2>"$out/tally.stderr" </dev/null
    echo $? >"$out/tally.rc")
    newfiles "$dir" "$out/before" "$out/tally"

    # options tally documents as missing
    if [ "$(cat "$out/tally.rc")" = 2 ] && grep -q "unknown option '--cacheuse=" "$out/tally.stderr"; then
        ok "$label: not applicable while tally has no --cacheuse (docs/tally-record.md, \"Not yet\"): $(head -c 70 "$out/tally.stderr") # SKIP"
        return
    fi

    # the original against the vgtest's expectations
    sf=$(vgkey "$vgtest" stderr_filter)
    filtered "${sf:-filter_stderr}" "$out/orig.stderr" >"$out/orig.stderr.f"
    same_text "$label: ${tool}'s stderr through ${sf:-filter_stderr} is $name.stderr.exp" \
        "$dir/$name.stderr.exp" "$out/orig.stderr.f"
    if [ -f "$dir/$name.stdout.exp" ]; then
        same_text "$label: ${tool}'s stdout is $name.stdout.exp" "$dir/$name.stdout.exp" "$out/orig.stdout"
    fi
    # tally against the original
    if cmp -s "$out/orig.stdout" "$out/tally.stdout" && cmp -s "$out/orig.rc" "$out/tally.rc"; then
        ok "$label: tally's stdout and exit status ($(cat "$out/tally.rc")) are ${tool}'s"
    else
        not_ok "$label: tally's stdout and exit status ($(cat "$out/tally.rc")) are ${tool}'s ($(cat "$out/orig.rc"))"
        { diff "$out/orig.stdout" "$out/tally.stdout" | head -n 10; tail -n 5 "$out/tally.stderr"; } | diag
        return
    fi
    # tally's stderr through the vgtest's filter, less its banner (the
    # filter takes out the original's) and its "wrote FILE" lines; the
    # original's less Callgrind's "Events :" and "Collected :" lines
    # (tally prints Cachegrind's summary); runs of blank lines as one
    sed -e '/^==[0-9]*== tally-[^,]*, tally.s profiler/,/Copyright/d' \
        -e '/^==[0-9]*== tally: wrote /d' "$out/tally.stderr" >"$out/tally.stderr.raw"
    filtered "${sf:-filter_stderr}" "$out/tally.stderr.raw" | squeeze >"$out/tally.stderr.f"
    grep -vE '^(Events|Collected) *:' "$out/orig.stderr.f" | squeeze >"$out/orig.stderr.f2"
    n=$(grep -c 'refs:\|misses:\|rate:\|Branches:\|Mispredicts:' "$out/orig.stderr.f2")
    same_text "$label: tally's stderr through the filter is ${tool}'s ($n summary lines$([ "$tool" = callgrind ] && echo ', less Events/Collected'))" \
        "$out/orig.stderr.f2" "$out/tally.stderr.f"

    if [ "$tool" = cachegrind ]; then
        summary "$out/orig.stderr" >"$out/orig.summary"
        summary "$out/tally.stderr" >"$out/tally.summary"
        same_text "$label: tally's end-of-run numbers are Cachegrind's" "$out/orig.summary" "$out/tally.summary"
        cg=$(ls "$out"/orig/cachegrind.out* 2>/dev/null)
        tg=$(ls "$out"/tally/cachegrind.out* 2>/dev/null)
        if [ -z "$cg" ] || [ -z "$tg" ] || [ "$(echo "$cg" | wc -l)" != 1 ] || [ "$(echo "$tg" | wc -l)" != 1 ]; then
            not_ok "$label: each tool wrote one cachegrind file in the test's folder ($(echo $cg) / $(echo $tg))"
        else
            same_text "$label: tally's cachegrind file is Cachegrind's byte for byte ($(wc -l <"$cg") lines)" "$cg" "$tg"
        fi
    else
        compare_callgrind "$label"
    fi

    post=$(vgkey "$vgtest" post)
    [ -n "$post" ] && run_post "$label" "$post"
}

for t in "$V"/callgrind/tests/*.vgtest "$V"/cachegrind/tests/*.vgtest "$V"/cachegrind/tests/*/*.vgtest; do
    [ -f "$t" ] && run_vgtest "$t"
done

# The comparisons can fail: each of four differences planted in a copy of
# tally's file of simwork-cache (which passed above) must make its check
# fail, naming the difference.
d=$TMP/out/callgrind.tests.simwork-cache
cl=$(ls "$d"/orig/callgrind.out* 2>/dev/null)
real=$(ls "$d"/tally/tally.out* 2>/dev/null)
if [ -z "$cl" ] || [ -z "$real" ]; then
    not_ok "planted differences: simwork-cache's files are there"
else
    plant() { # CHECK AWK-PROGRAM OPTIONS...: the check fails on the planted copy
        c=$1 prog=$2
        shift 2
        awk "$prog" "$real" >"$TMP/planted"
        tl=$TMP/planted
        # shellcheck disable=SC2086
        if cmp -s "$real" "$tl"; then
            echo "$c: nothing planted"
        elif $CGPEER "$c" "$@" $cl -- "$tl" >"$TMP/planted.out" 2>&1; then
            echo "$c: not found"
        elif ! grep -q '^  ' "$TMP/planted.out"; then
            echo "$c: failed without naming the difference"
        fi
    }
    {
        plant parts '/^desc: Trigger: Client Request$/ { $0 = $0 ": planted" } { print }'
        plant totals '/^totals:/ && !done { $2 += 40; done = 1 } { print }' --tol=16
        plant self 'f && /^[0-9+-]/ { $2 += 40; f = 0 } /^fn=.* do_add$/ { f = 1 } { print }' \
            --obj=/simwork --tol=16 --requests=main
        plant arcs 'c && /^calls=/ { sub(/^calls=[0-9]+/, "calls=7"); c = 0 } /^cfn=.* do_sum$/ { c = 1 } { print }' \
            --obj=/simwork --tol=16
    } >"$TMP/planted.bad"
    if [ -s "$TMP/planted.bad" ]; then
        not_ok "tests/tools/cgpeer.py finds planted differences (a trigger, a total, a self cost, a call count)"
        diag <"$TMP/planted.bad"
    else
        ok "tests/tools/cgpeer.py finds planted differences (a trigger, a total, a self cost, a call count)"
    fi
fi

# The same for the use charged to main in simwork3's part after its dump
# request: the block that made the request ran in that part for Callgrind,
# which counts a block's run when the next one starts, so the use of the
# lines it brought in (and that leave after the dump) is written there.
# Without it (tally before it carried the requesting block, AcCost1 211
# against 761) the self check must fail.
d=$TMP/out/callgrind.tests.simwork3
cl=$(ls "$d"/orig/callgrind.out* 2>/dev/null)
real=$(ls "$d"/tally/tally.out* 2>/dev/null)
if [ -z "$cl" ] || [ -z "$real" ]; then
    not_ok "planted differences: simwork3's files are there"
else
    # main's instructions in part 2 that ran in part 1 (Ir 0): no use
    rm -f "$TMP/planted3.bad"
    awk '/^fn=\([0-9]+\) main$/ { id = $1 } /^part: 2$/ { p = 1 } /^fn=/ { f = p && ($1 == id) }
        f && /^(0x|[+-])/ && $3 == 0 && $12 > 0 { $12 = 0; n++ } { print }
        END { if (!n) exit 1 }' "$real" >"$TMP/planted3" || echo "nothing planted" >"$TMP/planted3.bad"
    # shellcheck disable=SC2086
    if [ -s "$TMP/planted3.bad" ]; then
        not_ok "planted in simwork3: main's use in part 2 (the block of the dump request)"
        diag <"$TMP/planted3.bad"
    elif $CGPEER self --obj=/simwork --tol=16 --requests=main $cl -- "$TMP/planted3" >"$TMP/planted3.out" 2>&1; then
        not_ok "tests/tools/cgpeer.py finds main's use in simwork3's part 2 without the requesting block's"
        diag <"$TMP/planted3.out"
    else
        ok "tests/tools/cgpeer.py finds main's use in simwork3's part 2 without the requesting block's: $(grep -m 1 'main: ' "$TMP/planted3.out" | sed 's/^ *//')"
    fi
fi
