#!/bin/sh
# tally record: usage errors (exit 2), problems found before Valgrind starts
# (exit 1, "tally: record: ..." naming the cause and the fix), options
# refused by the tool, and one small successful run writing its file where
# --out-file says (%p expanded).
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
expect() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    expect_run "$name" "$want" "$outpat" "$errpat" record "$@"
}

expect "--help" 0 "usage: tally record" "" --help
expect "no program" 2 "" "^tally: record: no program to run" --cache-sim=no
expect "only --" 2 "" "^tally: record: no program to run" --
expect "option without =" 2 "" "'--cache-sim': options take their value after '='" --cache-sim no /bin/true
expect "--tool= refused" 2 "" "'--tool=memcheck': the tool is always tally's" --tool=memcheck /bin/true
expect "missing program in PATH" 1 "" "^tally: record: no-such-program-xyz: command not found in PATH" \
    no-such-program-xyz
expect "missing program by path" 1 "" "^tally: record: ./nothing-here: no such executable file" \
    ./nothing-here
expect "a directory as the program" 1 "" "^tally: record: /tmp: is a directory, not a program to run" \
    -- /tmp
# the tool's options are checked before Valgrind starts (usage errors: exit 2)
expect "yes|no option with another value" 2 "" "'--cache-sim=maybe': --cache-sim takes yes or no" \
    --cache-sim=maybe /bin/true
expect "cache option not three numbers" 2 "" "'--I1=32k,8': --I1 takes SIZE,ASSOC,LINE" --I1=32k,8 /bin/true
expect "--memory-resolution not a power of two to 16" 2 "" "takes 1, 2, 4, 8 or 16" \
    --memory-resolution=3 /bin/true
expect "--cost neither bb nor instr" 2 "" "--cost takes bb or instr" --cost=cycles /bin/true
expect "--context-depth not a number" 2 "" "--context-depth takes a whole number" --context-depth=-1 /bin/true
expect "misspelt tool option: did you mean" 2 "" \
    "unknown option '--cachesim=no'; did you mean '--cache-sim'\\?" --cachesim=no /bin/true
# and so are Valgrind's core options (by name: their values are Valgrind's to check)
expect "misspelt core option: did you mean" 2 "" \
    "^tally: record: unknown option '--trace-chlidren=yes'; did you mean '--trace-children'\\? See 'tally record --help'" \
    --trace-chlidren=yes -- /bin/true
expect "unknown core option" 2 "" \
    "^tally: record: unknown option '--bogus-core=1' \\(neither tally's nor one of Valgrind's core options\\); see 'tally record --help'" \
    --bogus-core=1 -- /bin/true
expect "unknown short option" 2 "" "^tally: record: unknown option '-x'" -x /bin/true
expect "core option without =" 2 "" "'--trace-children': options take their value after '='" \
    --trace-children /bin/true

# No tool in the lib dir.
mkdir -p "$TMP/emptylib"
TALLY_VALGRIND_LIB=$TMP/emptylib
export TALLY_VALGRIND_LIB
expect "no tool in the lib dir" 1 "" "tally's Valgrind tool is missing: .*/emptylib/tally-amd64-linux \\(TALLY_VALGRIND_LIB is set" \
    /bin/true
unset TALLY_VALGRIND_LIB
# A copy of the binary with no tool beside it names both places looked at.
mkdir -p "$TMP/copy/bin"
cp "$TALLY" "$TMP/copy/bin/tally"
run_tally_copy() { (cd "$TMP" && "$TMP/copy/bin/tally" record /bin/true) >"$TMP/out" 2>"$TMP/err"; }
if run_tally_copy; then not_ok "copied binary without its tool fails"; else
    if grep -q "looked for $TMP/copy/bin/valgrind/lib/tally-amd64-linux (build tree) and $TMP/copy/lib/tally/tally-amd64-linux (installed)" "$TMP/err"; then
        ok "copied binary without its tool names every place looked at"
    else
        not_ok "copied binary without its tool names every place looked at"; diag <"$TMP/err"
    fi
fi

# A lib dir with a tool but another Valgrind version, and a missing Valgrind.
mkdir -p "$TMP/lib"
printf '#!/bin/sh\nexit 0\n' >"$TMP/lib/tally-amd64-linux"
chmod +x "$TMP/lib/tally-amd64-linux"
echo "valgrind-3.19.0" >"$TMP/lib/tally-valgrind-version"
printf '#!/bin/sh\necho valgrind-3.99.0\n' >"$TMP/fakevg"
chmod +x "$TMP/fakevg"
TALLY_VALGRIND_LIB=$TMP/lib
export TALLY_VALGRIND_LIB
TALLY_VALGRIND=$TMP/fakevg
export TALLY_VALGRIND
expect "other Valgrind version" 1 "" \
    "built for valgrind-3.19.0 but '.*fakevg --version' says valgrind-3.99.0; rebuild tally" /bin/true
TALLY_VALGRIND=$TMP/no-valgrind-here
expect "Valgrind missing" 1 "" "Valgrind is not installed \\('.*no-valgrind-here' not found\\); install valgrind-3.19.0" \
    /bin/true
rm "$TMP/lib/tally-valgrind-version"
TALLY_VALGRIND=$TMP/fakevg
expect "no version file" 1 "" "tally-valgrind-version is missing or empty; rebuild with 'make'" /bin/true
# Every core option of the installed Valgrind (its --help-debug, but for --tool, the help
# options and the malloc-replacing tools' options that the core refuses for tally's tool,
# checked with the real tool below) reaches Valgrind unchanged: a fake Valgrind prints them.
echo "valgrind-3.19.0" >"$TMP/lib/tally-valgrind-version"
printf '#!/bin/sh\nif [ "$1" = --version ]; then echo valgrind-3.19.0; exit 0; fi\necho "args: $*"\n' \
    >"$TMP/argsvg"
chmod +x "$TMP/argsvg"
TALLY_VALGRIND=$TMP/argsvg
if command -v valgrind >/dev/null 2>&1; then
    valgrind --tool=none --help-debug 2>&1 |
        awk '/options for Nulgrind/ { skip = 1 } /^  [a-zA-Z].*options/ && !/Nulgrind/ { skip = 0 } !skip' |
        grep -oE '^ +(-[a-zA-Z]|--[a-zA-Z0-9-]+)( --[a-zA-Z0-9-]+)?' | tr ' ' '\n' | grep . | sort -u |
        grep -vxE -- '--tool|-h|--help|--help-debug|--help-dyn-options|--version|--alignment|--trace-malloc|--xtree-.*' \
        >"$TMP/core-options"
    n=0 bad=""
    while read -r o; do
        case $o in -?|--quiet|--verbose) arg=$o ;; *) arg="$o=1" ;; esac
        (cd "$TMP" && "$TALLY" record "$arg" /bin/true) >"$TMP/out" 2>"$TMP/err" </dev/null
        if [ $? = 0 ] && grep -q -- " $arg " "$TMP/out"; then n=$((n + 1)); else bad="$bad $arg"; fi
    done <"$TMP/core-options"
    if [ -z "$bad" ] && [ "$n" -gt 90 ]; then ok "all $n core options of valgrind --help-debug pass"
    else not_ok "core options of valgrind --help-debug pass ($n did; not:$bad)"; fi
else
    not_ok "valgrind is installed"
fi
unset TALLY_VALGRIND TALLY_VALGRIND_LIB

# The real tool (when built and Valgrind is there).
if command -v valgrind >/dev/null 2>&1 && [ -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ]; then
    # $TALLY may be another build (ASan) without a lib dir beside it.
    TALLY_VALGRIND_LIB=$ROOT/build/valgrind/lib
    export TALLY_VALGRIND_LIB
    expect "tool option with a bad value" 1 "" "Bad option: --I1=1000,2,64" --I1=1000,2,64 /bin/true
    # an option neither the tool's nor the core's is tally's usage error, before Valgrind starts
    expect "unknown option" 2 "" \
        "^tally: record: unknown option '--no-such-option=1' \\(neither tally's nor one of Valgrind's core options\\)" \
        --no-such-option=1 /bin/true
    # the core options that the core itself refuses for this tool (those of tools that
    # replace malloc, except --redzone-size) are refused by tally too: Valgrind says so
    for o in --alignment=16 --trace-malloc=no --xtree-memory=none --xtree-memory-file=x \
        --xtree-compress-strings=yes; do
        if VALGRIND_LIB=$TALLY_VALGRIND_LIB valgrind --tool=tally "$o" /bin/true 2>&1 |
            grep -q "Unknown option: $o"; then
            ok "Valgrind refuses $o for tally's tool"
        else not_ok "Valgrind refuses $o for tally's tool"; fi
        expect "$o is refused before Valgrind starts" 2 "" "^tally: record: unknown option '$o'" \
            "$o" /bin/true
    done
    expect "a real run with -v and --trace-children=yes" 0 "^hi$" "Valgrind options:" \
        --out-file=/dev/null -v --trace-children=yes -- /bin/echo hi
    expect "--contexts=yes needs the call graph" 1 "" "Bad option: --contexts=yes" \
        --contexts=yes --calls=no /bin/true
    expect "--toggle-collect needs the call graph" 1 "" "Bad option: --toggle-collect" \
        --toggle-collect=main --calls=no /bin/true
    # --cacheuse=yes: a run with its events; no write-back or prefetch with it
    # (the host's caches may be warned about on stderr)
    (cd "$TMP" && "$TALLY" record -q --cacheuse=yes --out-file=cu.out /bin/true) >"$TMP/out" 2>&1
    if grep -qx 'events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw AcCost1 SpLoss1 AcCost2 SpLoss2' \
        "$TMP/cu.out" && grep -qx 'positions: instr line' "$TMP/cu.out"; then
        ok "--cacheuse=yes: Callgrind's events and instruction positions"
    else
        not_ok "--cacheuse=yes: Callgrind's events and instruction positions"
        grep '^events:\|^positions:' "$TMP/cu.out" | diag
    fi
    expect "--cacheuse=yes with --simulate-wb=yes" 1 "" "Bad option: --simulate-wb=yes" \
        --cacheuse=yes --simulate-wb=yes /bin/true
    expect "--cacheuse=maybe" 2 "" "'--cacheuse=maybe': --cacheuse takes yes or no" \
        --cacheuse=maybe /bin/true
    # an empty name is refused before Valgrind starts (the program would have
    # run for nothing, or with --toggle-collect= collected nothing): usage, exit 2
    for o in --toggle-collect --out-file --cachegrind-out-file --contexts-out-file --aprof-out-file; do
        expect "$o= (empty) refused" 2 "" "^tally: record: '$o=': $o takes a non-empty value" \
            --input-sensitive=yes "$o=" /bin/echo ran
    done
    CTXNAME=abc
    export CTXNAME
    expect "--contexts=yes run" 0 "^hi$" "I   refs:" --cache-sim=no --contexts=yes --out-file=/dev/null \
        --contexts-out-file=ctx.%q{CTXNAME} -- /bin/echo hi
    expect "a run" 0 "^hello$" "I   refs:" --cache-sim=no --out-file=out.%p.x -- /bin/echo hello
    n=$(ls "$TMP"/out.*.x 2>/dev/null | wc -l)
    f=$(ls "$TMP"/out.*.x 2>/dev/null | head -n 1)
    if [ "$n" = 1 ] && grep -q '^events: Ir Dr Dw$' "$f" && grep -q '^cmd: /bin/echo hello$' "$f"; then
        ok "--out-file=out.%p.x written, with events and cmd"
    else
        not_ok "--out-file=out.%p.x written, with events and cmd"
    fi
    # -q: no summary (cache auto-configuration warnings may remain, as in Cachegrind)
    run_tally 3 "" "" record -q --cache-sim=no --out-file=/dev/null sh -c "exit 3"
    if [ "$rc" = 3 ] && ! grep -q "refs:" "$TMP/err"; then ok "exit status of the program; -q: no summary"; else
        not_ok "exit status of the program; -q: no summary"; diag <"$TMP/err"; fi
    if head -n 1 "$TMP/ctx.abc" 2>/dev/null | grep -qx '# tally contexts 1' &&
        grep -q '^cmd: /bin/echo hi$' "$TMP/ctx.abc"; then
        ok "--contexts-out-file=ctx.%q{CTXNAME} written as ctx.abc"
    else
        not_ok "--contexts-out-file=ctx.%q{CTXNAME} written as ctx.abc"
        ls "$TMP" | diag
    fi
    # what was written is said at exit; a program that execs another without
    # --trace-children=yes gets the hint that nothing is written
    run_tally 0 "" "" record --out-file=said.out -- /bin/true
    if grep -q "tally: wrote .*said.out ([0-9]* functions)" "$TMP/err" && [ -s "$TMP/said.out" ]; then
        ok "at exit: tally: wrote said.out (N functions)"
    else
        not_ok "at exit: tally: wrote said.out (N functions)"; diag <"$TMP/err"
    fi
    # a FIFO as the profile: written through, never replaced; opened once,
    # at the end (an open and close at start-up would end its reader early)
    if command -v mkfifo >/dev/null 2>&1 && mkfifo "$TMP/prof.fifo"; then
        cat "$TMP/prof.fifo" >"$TMP/fifo.got" &
        reader=$!
        (sleep 30; kill $reader; timeout 5 cat "$TMP/prof.fifo") >/dev/null 2>&1 &
        run_tally 0 "" "" record -q --out-file=prof.fifo -- /bin/true
        wait $reader
        if [ -p "$TMP/prof.fifo" ] && grep -q '^events: ' "$TMP/fifo.got"; then
            ok "--out-file=FIFO: the profile goes through it and the FIFO stays"
        else
            not_ok "--out-file=FIFO: the profile goes through it and the FIFO stays"
            diag <"$TMP/err"
        fi
    fi
    run_tally 0 "" "" record -q --out-file=quiet.out -- /bin/true
    if ! grep -q "wrote" "$TMP/err" && [ -s "$TMP/quiet.out" ]; then
        ok "-q: the file is written and nothing said"
    else
        not_ok "-q: the file is written and nothing said"; diag <"$TMP/err"
    fi
    printf '#!/bin/sh\nexec /bin/true\n' >"$TMP/wrapper.sh"
    chmod +x "$TMP/wrapper.sh"
    run_tally 0 "" "" record --out-file=wrapped.out -- ./wrapper.sh
    if grep -q "without --trace-children=yes" "$TMP/err" && [ ! -f "$TMP/wrapped.out" ]; then
        ok "a wrapper that execs: no profile, and the hint to use --trace-children=yes"
    else
        not_ok "a wrapper that execs: no profile, and the hint"; diag <"$TMP/err"
    fi
    run_tally 0 "" "" record --trace-children=yes --out-file=traced.%p -- ./wrapper.sh
    if ! grep -q "without --trace-children=yes" "$TMP/err" && ls "$TMP"/traced.* >/dev/null 2>&1; then
        ok "--trace-children=yes: the program it runs is recorded, no hint"
    else
        not_ok "--trace-children=yes: the program it runs is recorded, no hint"; diag <"$TMP/err"
    fi
    unset TALLY_VALGRIND_LIB
else
    ok "skipped: no Valgrind or no tool"
fi
