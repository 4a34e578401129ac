#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of `tally record`'s call graph against Callgrind 3.19.
#
# Each program runs under Callgrind (--separate-recs=1) and under tally
# record in one environment: `env -i` with the same PATH, one VALGRIND_LIB
# holding both tools, the same directory and arguments. For every file
# tally writes, tests/tools/cgcheck.py checks the call graph's invariants
# (and tests/lib.sh's check_callgrind_file: unique fn ids, callgrind_annotate
# reads it cleanly):
# every function with a cost has a caller apart from the roots (the
# loader's entry, `<signal N>`, a thread's clone), no function outside a
# cycle has an inclusive cost below one of its arcs out, and the roots add
# up to the total. Then, against Callgrind's file of the same run:
#  - never more functions without a symbol (0x...) than Callgrind;
#  - the calls between functions named by symbols equal Callgrind's, apart
#    from the differences listed (and explained in docs/tally-record.md)
#    for each program. Callgrind shows .plt.got and .plt.sec stubs as
#    functions 0x... between caller and callee; cgcheck.py --through-stubs
#    makes them transparent in its file, as they are in tally's.
# The small programs in tests/peer/callgraph/ each hold one case: a PLT
# tail call (lazy binding, -z now, IBT's .plt.sec), hello world's code
# without a symbol (.init, .fini, PLT stubs) named against Callgrind's
# (tests/tools/cgunsym.py), a stripped program, N
# threads, pthread_exit from a nested frame, an interval timer whose
# handler leaves by siglongjmp, swapcontext (to a stack below, and above
# and below a thread's), a Go program, C++ exceptions and a handler on an
# alternate stack. Real programs nobody here wrote: python3, perl,
# sqlite3, git, sort and gcc's cc1.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
    ok "skipped: no Valgrind"
    exit 0
fi
if [ ! -x "$TOOL_LIB/tally-amd64-linux" ]; then
    not_ok "tally's Valgrind tool is built"
    exit 1
fi
SRC="$ROOT/tests/peer/callgraph"
CHECK="python3 $ROOT/tests/tools/cgcheck.py"
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH PYTHONHASHSEED=0 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0"
# the loader's entry has no symbol and no caller: the root of the process
LD=$(readlink -f /lib64/ld-linux-x86-64.so.2)
LDENTRY=$(readelf -h "$LD" | awk '/Entry point/ { printf "0x%016x", strtonum($NF) }' 2>/dev/null)
[ -n "$LDENTRY" ] || LDENTRY=$(python3 -c "import sys; print('0x%016x' % int(sys.argv[1], 16))" \
    "$(readelf -h "$LD" | awk '/Entry point/ { print $NF }')")
ROOTS="--root $LDENTRY --root clone --root clone3"

build() { # NAME COMPILER FLAGS... (source NAME.c or NAME.cc)
    n=$1 cc=$2
    shift 2
    src=$SRC/$n.c
    [ -f "$src" ] || src=$SRC/$n.cc
    $cc "$@" -o "$TMP/$n" "$src" 2>"$TMP/$n.ccerr"
}

# run NAME [TALLY-OPTIONS] -- PROG ARGS: $TMP/NAME.cg (Callgrind), $TMP/NAME.tl
run() {
    n=$1
    shift
    topts=
    while [ "$1" != "--" ]; do topts="$topts $1"; shift; done
    shift
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind --separate-recs=1 \
        --callgrind-out-file="$TMP/$n.cg" "$@" >/dev/null 2>"$TMP/$n.cgerr" </dev/null)
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no $topts \
        --out-file="$TMP/$n.tl" "$@" >/dev/null 2>"$TMP/$n.tlerr" </dev/null)
}

invariants() { # NAME FILE...
    n=$1
    shift
    if $CHECK check $ROOTS "$@" >"$TMP/chk" 2>&1; then
        ok "$n: call graph invariants hold ($(head -n 1 "$TMP/chk" | cut -d' ' -f2-))"
    else
        not_ok "$n: call graph invariants hold"
        diag <"$TMP/chk"
    fi
    # and every file reads right elsewhere: one fn id per function,
    # callgrind_annotate without a warning, its totals the sum of its rows
    for f in "$@"; do check_callgrind_file "$n, ${f##*/}" "$f"; done
}

fewer_unsymbolled() { # NAME
    a=$($CHECK stat "$TMP/$1.tl" unsymbolled)
    b=$($CHECK stat "$TMP/$1.cg" unsymbolled)
    if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -le "$b" ]; then
        ok "$1: functions without a symbol: $a, Callgrind $b"
    else
        not_ok "$1: functions without a symbol: $a, Callgrind $b"
    fi
}

# same_arcs NAME [ALLOWED-REGEX]: named arcs equal Callgrind's, apart from
# lines (of either side) that match ALLOWED-REGEX
same_arcs() {
    $CHECK arcs "$TMP/$1.tl" >"$TMP/$1.tarcs"
    $CHECK arcs "$TMP/$1.cg" --through-stubs >"$TMP/$1.carcs"
    if [ -n "${2:-}" ]; then
        grep -Ev -- "$2" "$TMP/$1.tarcs" >"$TMP/a1"
        grep -Ev -- "$2" "$TMP/$1.carcs" >"$TMP/a2"
    else
        cp "$TMP/$1.tarcs" "$TMP/a1"
        cp "$TMP/$1.carcs" "$TMP/a2"
    fi
    same_text "$1: calls between named functions equal Callgrind's ($(wc -l <"$TMP/a2") arcs)" \
        "$TMP/a2" "$TMP/a1"
}

has_arc() { # NAME "CALLER -> CALLEE COUNT"
    if grep -qxF -- "$2" "$TMP/$1.tarcs"; then ok "$1: $2"; else
        not_ok "$1: $2"
        grep -F -- "${2% *}" "$TMP/$1.tarcs" | diag
    fi
}

full() { # NAME [ALLOWED-REGEX]: all three checks
    if [ ! -s "$TMP/$1.tl" ] || [ ! -s "$TMP/$1.cg" ]; then
        not_ok "$1: both tools wrote their files"
        tail -n 5 "$TMP/$1.tlerr" "$TMP/$1.cgerr" | diag
        return
    fi
    invariants "$1" "$TMP/$1.tl"
    fewer_unsymbolled "$1"
    same_arcs "$1" "${2:-}"
}

# A PLT tail call (jmp free@plt at -O2): lazy binding, -z now, and IBT
# (.plt.sec, which Valgrind does not mark as PLT).
build plttail gcc -O2 -g
run plttail -- ./plttail
full plttail
has_arc plttail "wrap -> free 100"
gcc -O2 -g -Wl,-z,now -o "$TMP/plttail_now" "$SRC/plttail.c"
run plttail_now -- ./plttail_now
full plttail_now
has_arc plttail_now "wrap -> free 100"
if gcc -O2 -g -fcf-protection=full -Wl,-z,ibtplt -o "$TMP/plttail_ibt" "$SRC/plttail.c" 2>/dev/null &&
    readelf -SW "$TMP/plttail_ibt" | grep -q '\.plt\.sec'; then
    run plttail_ibt -- ./plttail_ibt
    # through Callgrind's .plt.sec stub the first call reaches the lazy
    # binding resolver: tally has it from the caller, the stub folding
    # gives the stub's calls to its main target
    full plttail_ibt '_dl_runtime_resolve'
    has_arc plttail_ibt "wrap -> free 100"
    has_arc plttail_ibt "main -> malloc 100"
else
    ok "skipped: the linker makes no .plt.sec"
fi

# Code without a symbol in .init, .fini and the PLT sections of a PIE (and
# of Valgrind's preload library and libc): Callgrind puts it in ??? and
# names it by its run-time address, tally by its address less the load
# bias, in its object; a PLT stub is the code of the function it leads to.
# tests/tools/cgunsym.py finds the object of each of Callgrind's by the
# load biases Callgrind prints with -v -v -v and the objects' section
# headers, and checks tally's file; then the same check on tally's file
# with those functions named by their run-time address, in their object
# and in ??? (Callgrind's names), and with the stubs' code made functions
# of its own, must fail. Lazy binding, -z now, and IBT's .plt.sec with
# both.
unsym() { # NAME: built from hello.c
    n=$1
    (cd "$TMP" && $E VALGRIND_LIB="$LIB" valgrind --tool=callgrind -v -v -v --dump-instr=yes \
        --callgrind-out-file="$TMP/$n.cg" ./"$n" >/dev/null 2>"$TMP/$n.cgerr" </dev/null)
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --dump-instr=yes \
        --out-file="$TMP/$n.tl" ./"$n" >/dev/null 2>"$TMP/$n.tlerr" </dev/null)
    if [ ! -s "$TMP/$n.tl" ] || [ ! -s "$TMP/$n.cg" ]; then
        not_ok "$n: both tools wrote their files"
        tail -n 5 "$TMP/$n.tlerr" "$TMP/$n.cgerr" | diag
        return
    fi
    if $UNSYM "$TMP/$n.cgerr" "$TMP/$n.cg" "$TMP/$n.tl" >"$TMP/$n.unsym" 2>&1; then
        ok "$n: $(head -n 1 "$TMP/$n.unsym")"
    else
        not_ok "$n: $(head -n 1 "$TMP/$n.unsym")"
        tail -n +2 "$TMP/$n.unsym" | diag
    fi
    for as in absolute callgrind stubs; do
        if $UNSYM --as=$as "$TMP/$n.cgerr" "$TMP/$n.cg" "$TMP/$n.tl" >"$TMP/$n.unsym.$as" 2>&1; then
            not_ok "$n: the check fails on tally's file changed by cgunsym.py --as=$as"
        else
            ok "$n: the check fails on tally's file changed by cgunsym.py --as=$as ($(($(wc -l <"$TMP/$n.unsym.$as") - 1)) differences)"
        fi
    done
}
UNSYM="python3 $ROOT/tests/tools/cgunsym.py"
for now in "" ",-z,now"; do
    n=hello${now:+_now}
    if gcc -O1 -g -fPIE -pie -Wl,-z,relro$now -o "$TMP/$n" "$SRC/hello.c" 2>"$TMP/$n.ccerr"; then
        unsym "$n"
    else
        not_ok "hello.c builds (-Wl,-z,relro$now)"
        diag <"$TMP/$n.ccerr"
    fi
done
for now in "" ",-z,now"; do
    n=hello_ibt${now:+_now}
    if gcc -O1 -g -fPIE -pie -fcf-protection=full -Wl,-z,ibtplt$now -o "$TMP/$n" "$SRC/hello.c" 2>/dev/null &&
        readelf -SW "$TMP/$n" | grep -q '\.plt\.sec'; then
        unsym "$n"
    else
        ok "skipped: the linker makes no .plt.sec"
    fi
done

# A stripped program: its code named by the called entries only.
build stripped gcc -O1 && strip "$TMP/stripped"
run stripped -- ./stripped
full stripped
# the calls among the program's own functions (named by address) too
$CHECK arcs-in "$TMP/stripped.tl" /stripped >"$TMP/s1"
$CHECK arcs-in "$TMP/stripped.cg" /stripped >"$TMP/s2"
same_text "stripped: calls among the program's functions equal Callgrind's" "$TMP/s2" "$TMP/s1"

# Threads: N clone -> start_thread arcs; each thread's part separately too.
build threads gcc -O2 -g -pthread
run threads -- ./threads 4
# Which waits happen in pthread_join depends on scheduling, so only the
# threads' own calls are compared; the roots' sum is checked per thread.
fewer_unsymbolled threads
$CHECK arcs "$TMP/threads.tl" >"$TMP/threads.tarcs"
has_arc threads "clone -> start_thread 4"
has_arc threads "start_thread -> body 4"
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --separate-threads=yes \
    --out-file="$TMP/threads.sep" ./threads 4 >/dev/null 2>&1 </dev/null)
invariants "threads, --separate-threads=yes" "$TMP"/threads.sep-*

# pthread_exit from a nested frame
build texit gcc -O1 -g -pthread
run texit -- ./texit
fewer_unsymbolled texit
# (pthread_join waits on a futex only when the thread has not ended yet:
# those arcs depend on timing, in either tool)
same_arcs texit 'futex|_asynccancel '
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --separate-threads=yes \
    --out-file="$TMP/texit.sep" ./texit >/dev/null 2>&1 </dev/null)
invariants "texit, --separate-threads=yes" "$TMP"/texit.sep-*
a=$($CHECK stat "$TMP/texit.tl" incl:start_thread)
b=$(awk '/^start_thread -> body / { print $NF }' "$TMP/texit.tarcs")
if [ -n "$a" ] && [ "$a" -gt 0 ]; then ok "texit: start_thread's inclusive cost $a"; else not_ok "texit: start_thread has an inclusive cost"; fi

# An interval timer whose handler leaves by siglongjmp now and then: the
# counts depend on timing, so the graph is checked by its invariants and
# by construction.
build itimer gcc -O1 -g
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
    --out-file="$TMP/itimer.tl" ./itimer >/dev/null 2>&1 </dev/null)
invariants itimer "$TMP/itimer.tl"
$CHECK arcs "$TMP/itimer.tl" >"$TMP/itimer.tarcs"
main_in=$($CHECK stat "$TMP/itimer.tl" incl:main)
deep_in=$(awk '/^main -> deepf / { print $NF }' "$TMP/itimer.tarcs")
tot=$(sed -n 's/^totals: //p' "$TMP/itimer.tl" | cut -d' ' -f1)
if [ -n "$main_in" ] && [ -n "$tot" ] && [ $((main_in * 100)) -ge $((tot * 90)) ]; then
    ok "itimer: main's inclusive cost is most of the run ($main_in of $tot)"
else
    not_ok "itimer: main's inclusive cost is most of the run ($main_in of $tot)"
fi
if grep -q '^<signal 14> -> on_alarm ' "$TMP/itimer.tarcs"; then ok "itimer: <signal 14> -> on_alarm"; else
    not_ok "itimer: <signal 14> -> on_alarm"; fi

# A handler that runs a function its signal interrupted (work(1) raises,
# the handler calls work(0)): the handler's activation is an outermost one
# and its arc is charged (before, it was not: work's inclusive cost fell
# below its arc to spin, and an interval timer's handler interrupted in its
# own siglongjmp lost its cost from the roots now and then).
build sigrec gcc -O1 -g
run sigrec -- ./sigrec
invariants sigrec "$TMP/sigrec.tl"
$CHECK arcs "$TMP/sigrec.tl" >"$TMP/sigrec.tarcs"
has_arc sigrec "on_usr1 -> work 10"

# swapcontext: the coroutine is called from swapcontext at each resume.
build coro gcc -O1 -g
run coro -- ./coro
full coro
has_arc coro "swapcontext -> coroutine 5000"
has_arc coro "coroutine -> step 5000"

# Coroutines on stacks above and below a thread's (pthread_attr_setstack).
# Callgrind 3.19 reads the switch to the stack above as a return from every
# frame (the coroutine's calls hang off `clone`, its return to the thread
# calls `body`), so its arcs are compared for the coroutine below only;
# tally records the coroutine above as it and Callgrind record the one
# below.
build coroabove gcc -O1 -g -pthread
run coroabove -- ./coroabove
if [ -s "$TMP/coroabove.tl" ] && [ -s "$TMP/coroabove.cg" ]; then
    # (pthread_join waits on a futex only when the thread has not ended
    # yet: those arcs depend on timing, in either tool)
    same_arcs coroabove 'above|^clone -> (swapcontext|yield_above) |^(clone|swapcontext) -> body |^body -> start_thread |futex|_asynccancel '
    for a in "swapcontext -> coro_above 151" "swapcontext -> yield_above 149" \
        "coro_above -> work_above 300" "yield_above -> swapcontext 150" "start_thread -> body 1"; do
        has_arc coroabove "$a"
    done
    grep -E '(coro|yield|work)_below' "$TMP/coroabove.tarcs" | sed 's/_below/_above/g' >"$TMP/ca1"
    grep -E '(coro|yield|work)_above' "$TMP/coroabove.tarcs" >"$TMP/ca2"
    same_text "coroabove: the coroutine above has the arcs of the one below" "$TMP/ca1" "$TMP/ca2"
    if grep -E '^[^ ]+ -> body ' "$TMP/coroabove.tarcs" | grep -qv '^start_thread '; then
        not_ok "coroabove: body is called by start_thread only"
    else
        ok "coroabove: body is called by start_thread only"
    fi
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --separate-threads=yes \
        --out-file="$TMP/coroabove.sep" ./coroabove >/dev/null 2>&1 </dev/null)
    invariants "coroabove, --separate-threads=yes" "$TMP"/coroabove.sep-*
else
    not_ok "coroabove: both tools wrote their files"
    tail -n 5 "$TMP/coroabove.tlerr" "$TMP/coroabove.cgerr" | diag
fi

# Go: goroutine stacks lie above the main thread's under Valgrind. Callgrind
# has runtime.main without a caller; tally has it called by the switch
# (gogo) that lands in it. main.main's own calls are Callgrind's.
if command -v go >/dev/null 2>&1 &&
    (cd "$TMP" && cp "$SRC/gochan.go" . && env HOME="$TMP" GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath" \
        GO111MODULE=off go build -o gochan gochan.go) >"$TMP/go.err" 2>&1; then
    # no preemption signals (SIGURG): Callgrind 3.19 fails an assertion on
    # them now and then (threads.c:247, post_signal)
    e_saved=$E
    E="$E GODEBUG=asyncpreemptoff=1"
    run gochan -- ./gochan
    GOROOTS="--root _rt0_amd64_linux --root runtime.clone --root runtime.clone.abi0"
    check_callgrind_file gochan "$TMP/gochan.tl"
    # Every thread's part. The other threads (Ms) run on g0 stacks in Go's
    # heap: gogo jumps down to a goroutine's stack, and systemstack calls a
    # function up on g0 and comes back (a visit, tl_switch.c); before tally
    # knew visits, systemstack's inclusive cost fell below its arc there.
    (cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no --separate-threads=yes \
        --out-file="$TMP/gochan.sep" ./gochan >/dev/null 2>&1 </dev/null)
    E=$e_saved
    nsep=$(ls "$TMP"/gochan.sep-* 2>/dev/null | wc -l)
    if [ "$nsep" -ge 2 ] && $CHECK check $ROOTS $GOROOTS "$TMP"/gochan.sep-* >"$TMP/chk" 2>&1; then
        ok "gochan, --separate-threads=yes: invariants hold on each of $nsep threads"
    else
        not_ok "gochan, --separate-threads=yes: invariants hold on each of $nsep threads"
        diag <"$TMP/chk"
    fi
    $CHECK arcs "$TMP/gochan.tl" >"$TMP/gochan.tarcs"
    $CHECK arcs "$TMP/gochan.cg" --through-stubs >"$TMP/gochan.carcs"
    grep '^main\.main -> ' "$TMP/gochan.tarcs" >"$TMP/g1"
    grep '^main\.main -> ' "$TMP/gochan.carcs" >"$TMP/g2"
    # A goroutine that parks (mcall onto g0) has its frames kept aside and
    # put back when it resumes (gogo jumps back into its stack; tl_switch.c).
    # Without that its returns would call the code they land in: main.main
    # -> runtime.main, runtime.gopark -> runtime.chanrecv and the like.
    # the functions main.main calls are Callgrind's; the counts are the
    # program's: when main parks at <-done (the consumer not done yet),
    # Callgrind counts one more call of chanrecv1 (a return it takes for a
    # call), so its counts are not compared
    sed 's/ [0-9]*$//' "$TMP/g1" >"$TMP/g1n"
    sed 's/ [0-9]*$//' "$TMP/g2" >"$TMP/g2n"
    same_text "gochan: main.main calls the functions Callgrind's does ($(wc -l <"$TMP/g2n"))" "$TMP/g2n" "$TMP/g1n"
    for a in "main.main -> runtime.chanrecv1 1" "main.main -> runtime.makechan 2"; do has_arc gochan "$a"; done
    if grep -q '^main\.main -> runtime\.main ' "$TMP/g1"; then
        not_ok "gochan: no arc main.main -> runtime.main"
    else
        ok "gochan: no arc main.main -> runtime.main"
    fi
    # a return taken for a call makes two functions call each other (gopark
    # -> chanrecv beside chanrecv -> gopark); gochan and the runtime code
    # it runs have no such pair (Callgrind has several: its goroutine
    # functions are called by the code their returns land in)
    awk '{ print $1, $3 }' "$TMP/gochan.tarcs" | sort -u >"$TMP/tpairs"
    awk 'NR == FNR { c[$1 " " $2] = 1; next } ($2 " " $1) in c && $1 < $2' \
        "$TMP/tpairs" "$TMP/tpairs" >"$TMP/backwards"
    same_text "gochan: no two functions call each other (a return taken for a call)" /dev/null "$TMP/backwards"
    for a in "runtime.main -> main.main 1" "main.produce -> main.square 2000"; do has_arc gochan "$a"; done
    if grep -q ' -> runtime\.main ' "$TMP/gochan.tarcs"; then ok "gochan: runtime.main has a caller"; else
        not_ok "gochan: runtime.main has a caller"; fi
else
    ok "skipped: no Go toolchain"
fi

# C++ exceptions out of a recursion. Callgrind emulates a call at each jump
# to a landing pad's first instruction (main.cold) from the unwinder and
# counts main.cold as its own caller; tally counts main -> main.cold.
build except g++ -O2 -g
run except -- ./except
full except 'main\.cold|^main -> down'
has_arc except "main -> main.cold 50"
has_arc except "operator delete(void*) -> free 50"
has_arc except "std::runtime_error::~runtime_error() -> std::exception::~exception() 50"

# A handler on an alternate stack inside main's frame, above the
# interrupted stack pointer (Callgrind 3.19 stops on an assertion there).
build altstack gcc -O1 -g
(cd "$TMP" && $E TALLY_VALGRIND_LIB="$LIB" "$TALLY" record -q --cache-sim=no \
    --out-file="$TMP/altstack.tl" ./altstack >/dev/null 2>&1 </dev/null)
invariants altstack "$TMP/altstack.tl"
$CHECK arcs "$TMP/altstack.tl" >"$TMP/altstack.tarcs"
for a in "main -> busy 5" "busy -> counted 10" "busy -> raise 5" "<signal 10> -> on_usr1 5" \
    "on_usr1 -> counted 5"; do has_arc altstack "$a"; done

# Real programs nobody here wrote: the same invariants, and the calls
# between named functions. A few may differ: calls that reach the lazy
# binding resolver through a stub Callgrind shows as a function, which
# the stub folding cannot give to the right caller, and python3 makes a
# call or two more or less from one run to the next.
agree() { # NAME
    $CHECK arcs "$TMP/$1.tl" >"$TMP/$1.tarcs"
    $CHECK arcs "$TMP/$1.cg" --through-stubs >"$TMP/$1.carcs"
    n=$(cat "$TMP/$1.tarcs" "$TMP/$1.carcs" | awk '{ $NF = ""; print }' | sort -u | wc -l)
    same=$(comm -12 "$TMP/$1.tarcs" "$TMP/$1.carcs" | wc -l)
    if [ "$n" -gt 0 ] && [ $((same * 1000)) -ge $((n * 995)) ]; then
        ok "$1: $same of $n calls between named functions equal Callgrind's"
    else
        not_ok "$1: $same of $n calls between named functions equal Callgrind's (at least 99.5%)"
        diff "$TMP/$1.carcs" "$TMP/$1.tarcs" | head -n 20 | diag
    fi
}
real() { # NAME PROG ARGS
    n=$1
    shift
    if ! command -v "$1" >/dev/null 2>&1; then ok "skipped: no $1"; return; fi
    run "$n" -- "$@"
    if [ ! -s "$TMP/$n.tl" ] || [ ! -s "$TMP/$n.cg" ]; then
        not_ok "$n: both tools wrote their files"
        return
    fi
    invariants "$n" "$TMP/$n.tl"
    fewer_unsymbolled "$n"
    agree "$n"
}
printf 'import sys\nd = {str(i): i * i for i in range(2000)}\nprint(len(sorted(d.items(), key=lambda kv: kv[1] %% 97)))\n' >"$TMP/t.py"
real python3 python3 t.py
real perl perl -e 'my %h; $h{$_ % 97} += $_ for 1..20000; print scalar(keys %h), "\n"'
real sqlite3 sqlite3 :memory: "CREATE TABLE t(a,b); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<2000) INSERT INTO t SELECT x, x*x FROM c; SELECT count(*), sum(b) FROM t WHERE a % 3 = 1;"
real git git --version
seq 1 2000 | sed 's/$/ line/' | sort -R --random-source=/dev/zero >"$TMP/words.txt" 2>/dev/null || seq 1 2000 >"$TMP/words.txt"
real sort sort "$TMP/words.txt"
echo 'int f(int x) { return x * x + 1; } int main(void) { return f(3); }' >"$TMP/small.c"
CC1=$(gcc -print-prog-name=cc1)
real cc1 "$CC1" -quiet small.c -o small.s
