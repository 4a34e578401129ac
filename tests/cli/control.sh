#!/bin/sh
# tally control: a program runs under `tally record` in the background
# (it spins until a stop file appears, a minute at most); `tally control`
# lists it, prints its stacks and state, dumps labelled parts, zeroes and
# switches the instrumentation off and on; the parts it wrote carry the
# right triggers and costs (read with tally annotate). Then the same
# program under Callgrind, steered by callgrind_control, for the outputs
# that compare: the listing line, the bottom of the stack, the trigger.
# Every wait is bounded; the background processes are ended on exit.
. "$(dirname "$0")/../lib.sh"
# the ASan build of tally (tests/run.sh asan-cli) lives apart from the tool
export TALLY_VALGRIND_LIB="${TALLY_VALGRIND_LIB:-$ROOT/build/valgrind/lib}"

if ! command -v valgrind >/dev/null 2>&1 || ! command -v vgdb >/dev/null 2>&1; then
    echo "1..0 # SKIP valgrind or vgdb not installed"
    exit 0
fi

BG=""
cleanup() {
    : >"$TMP/stop"
    if [ -n "$BG" ] && kill -0 "$BG" 2>/dev/null; then
        sleep 1
        kill "$BG" 2>/dev/null
    fi
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cat >"$TMP/spin.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += i * i;
    return s;
}
__attribute__((noinline)) static void inner(void)
{
    sink += work(20000);
}
int main(int argc, char **argv)
{
    time_t end = time(NULL) + 60;
    for (long k = 0;; k++) {
        inner();
        if (k % 64 == 0 && (access(argv[1], F_OK) == 0 || time(NULL) > end)) break;
    }
    puts("done");
    return 0;
}
EOF
if ! cc -g -O1 -o "$TMP/spin" "$TMP/spin.c"; then
    echo "1..0 # SKIP no C compiler"
    exit 0
fi

PFX=$TMP/vgdb # the FIFOs of these runs only: other runs of the machine stay out
CTL="--vgdb-prefix=$PFX"

# wait_for SECONDS COMMAND...: until COMMAND succeeds (1 when it never did)
wait_for() {
    n=$(($1 * 5))
    shift
    while [ "$n" -gt 0 ]; do
        "$@" && return 0
        sleep 0.2
        n=$((n - 1))
    done
    return 1
}

# stop_bg: end the background run (stop file, then a bounded wait)
stop_bg() {
    : >"$TMP/stop"
    wait_for 30 sh -c "! kill -0 $BG 2>/dev/null"
    wait "$BG" 2>/dev/null
    BG=""
    rm -f "$TMP/stop"
}

listed() {
    "$TALLY" control "$CTL" >"$TMP/list" 2>&1 && grep -q "^PID $BG: " "$TMP/list"
}

# usage and errors that need no running process
expect_run "--help" 0 "usage: tally control" "" control --help
expect_run "--instr takes on or off" 2 "" "^tally: control: --instr takes 'on' or 'off', not 'x'" \
    control --instr=x
expect_run "unknown option" 2 "" "^tally: control: unknown option '--bogus'" control --bogus
TALLY_VGDB=/nonexistent/vgdb expect_run "vgdb missing" 1 "" "^tally: control: vgdb not found" control
expect_run "no process runs: said on stdout" 0 "^No process is running under tally" "" control "$CTL"
expect_run "no such pid" 1 "" "^tally: control: no process 999999999" control "$CTL" 999999999 -s
expect_run "a process not under tally" 1 "" "^tally: control: process $$ is not running under tally" \
    control "$CTL" "$$" -s
expect_run "no such program" 1 "" "^tally: control: no process of program 'nosuch' is running" \
    control "$CTL" nosuch -s

(cd "$TMP" && exec "$TALLY" record -q "$CTL" --combine-dumps=no --out-file="$TMP/t.out" \
    -- "$TMP/spin" "$TMP/stop" >"$TMP/rec.out" 2>"$TMP/rec.err") &
BG=$!

if wait_for 30 listed; then
    ok "listed: PID $BG: $TMP/spin $TMP/stop"
else
    not_ok "listed"
    diag <"$TMP/list"
    diag <"$TMP/rec.err"
    exit 1
fi
grep -q "^PID $BG: $TMP/spin $TMP/stop\$" "$TMP/list" && ok "the listing shows the command line" ||
    { not_ok "the listing shows the command line"; diag <"$TMP/list"; }

# listed as soon as Valgrind's gdbserver is up: wait until the program is in main
in_main() {
    "$TALLY" control "$CTL" "$BG" -b 2>/dev/null | grep -q '^ *\[ *[0-9]*\]  main (1 x)$'
}
wait_for 30 in_main || echo "# the program never reached main"
expect_run "stacks by program name (-b)" 0 "Backtrace for Thread 1" "" control "$CTL" spin -b
if grep -q '^ *\[ *[0-9]*\]  main (1 x)$' "$TMP/out" && grep -q '(below main)' "$TMP/out"; then
    ok "the stack has main, called once, above (below main)"
else
    not_ok "the stack has main, called once, above (below main)"
    diag <"$TMP/out"
fi
cp "$TMP/out" "$TMP/tally.back"

expect_run "--stat" 0 "1 thread\\(s\\) running" "" control "$CTL" "$BG" --stat
grep -q "instrumentation: on, collection: on" "$TMP/out" && ok "--stat: collecting" ||
    { not_ok "--stat: collecting"; diag <"$TMP/out"; }
expect_run "--dump=warm" 0 "^  OK\\.$" "" control "$CTL" "$BG" --dump=warm
expect_run "--zero" 0 "^  OK\\.$" "" control "$CTL" "$BG" --zero
expect_run "-i off then the state (--instr)" 0 "^  instrumentation: off$" "" \
    control "$CTL" "$BG" -i off --instr
expect_run "--stat with the instrumentation off" 0 "instrumentation: off, collection: off" "" \
    control "$CTL" "$BG" -s
expect_run "--instr=on" 0 "^  OK\\.$" "" control "$CTL" "$BG" --instr=on
expect_run "a raw monitor command" 0 "^  instrumentation: on$" "" control "$CTL" "$BG" instrumentation
expect_run "an unknown monitor command" 1 "not recognised" "is not a monitor command" \
    control "$CTL" "$BG" frobnicate
expect_run "dump with no label (-d)" 0 "^  OK\\.$" "" control "$CTL" "$BG" -d
stop_bg

# the parts: dump warm, dump, then the end of the program
check "the run ended well" grep -q '^done$' "$TMP/rec.out"
triggers=$(for f in "$TMP/t.out.1" "$TMP/t.out.2" "$TMP/t.out"; do
    sed -n 's/^desc: Trigger: //p' "$f" 2>/dev/null
done | tr '\n' '|')
[ "$triggers" = "dump warm|dump|Program termination|" ] && ok "triggers: $triggers" ||
    not_ok "triggers: '$triggers'"
# part 1: a second or more of work(): most of the Ir, millions of them
"$TALLY" annotate --auto=no "$TMP/t.out.1" >"$TMP/ann1" 2>&1
ir1=$(sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$TMP/ann1" | tr -d ,)
top1=$(grep -m1 -E '^ *[0-9,]+ \([ 0-9.]+%\) .*:' "$TMP/ann1")
if [ "${ir1:-0}" -gt 1000000 ] && echo "$top1" | grep -q ':work'; then
    ok "part 1: $ir1 Ir, work() first"
else
    not_ok "part 1: Ir and work() first"
    head -n 24 "$TMP/ann1" | diag
fi
# part 2 started at the zero; the instrumentation was off for a while: fewer Ir
"$TALLY" annotate --auto=no "$TMP/t.out.2" >"$TMP/ann2" 2>&1
ir2=$(sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$TMP/ann2" | tr -d ,)
if [ "${ir2:-0}" -gt 0 ]; then ok "part 2: $ir2 Ir"; else
    not_ok "part 2: Ir"
    head -n 20 "$TMP/ann2" | diag
fi

# Callgrind and callgrind_control on the same program
if ! command -v callgrind_control >/dev/null 2>&1; then
    echo "# callgrind_control not installed: no comparison"
else
    (cd "$TMP" && exec valgrind -q --tool=callgrind "$CTL" --callgrind-out-file="$TMP/cg.out" \
        -- "$TMP/spin" "$TMP/stop" >"$TMP/cg.rec.out" 2>"$TMP/cg.rec.err") &
    BG=$!
    if wait_for 30 sh -c "callgrind_control $CTL 2>/dev/null | grep -q '^PID $BG: '"; then
        cg_in_main() {
            callgrind_control "$CTL" -b "$BG" 2>/dev/null | grep -q '^ *\[ *[0-9]*\]  main (1 x)$'
        }
        wait_for 30 cg_in_main || echo "# the program never reached main under Callgrind"
        callgrind_control "$CTL" "$BG" 2>/dev/null | sed 's/^PID [0-9]*: //' >"$TMP/cg.list"
        echo "$TMP/spin $TMP/stop" >"$TMP/want.list"
        same_text "listing line as callgrind_control's" "$TMP/cg.list" "$TMP/want.list"
        callgrind_control "$CTL" -b "$BG" >"$TMP/cg.back" 2>/dev/null
        # from main down: the same frames (above main the moment differs)
        bottom() { sed -n 's/^ *\[ *[0-9]*\]  //p' "$1" | sed -n '/^main /,$p'; }
        bottom "$TMP/cg.back" >"$TMP/cg.bottom"
        bottom "$TMP/tally.back" >"$TMP/tl.bottom"
        same_text "the stack below main as callgrind_control -b's" "$TMP/cg.bottom" "$TMP/tl.bottom"
        callgrind_control "$CTL" --dump=warm "$BG" >/dev/null 2>&1
        stop_bg
        cg=$(sed -n 's/^desc: Trigger: //p' "$TMP/cg.out.1" 2>/dev/null)
        tl=$(sed -n 's/^desc: Trigger: //p' "$TMP/t.out.1")
        [ -n "$cg" ] && [ "$cg" = "$tl" ] && ok "trigger as Callgrind's: $cg" ||
            not_ok "trigger as Callgrind's: '$cg' and '$tl'"
    else
        not_ok "Callgrind's run listed by callgrind_control"
        diag <"$TMP/cg.rec.err"
        stop_bg
    fi
fi

echo "1..$TESTN"
