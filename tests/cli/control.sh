#!/bin/sh
# tally control: first the report of -s, -e and -b from a fixed `status
# internal` answer (a stand-in for vgdb), printed by tally control and by
# callgrind_control alike. Then a program runs under `tally record` in the
# background (it spins until a stop file appears, a minute at most);
# `tally control` lists it, prints its stacks, state and event counts,
# dumps labelled parts, zeroes and switches the instrumentation off and
# on; the parts it wrote carry the right triggers and costs (read with
# tally annotate). A second run counts its blocks (--dump-every-bb) and
# ends in a signal handler. Then the same program under Callgrind, steered
# by callgrind_control, for the outputs that compare: the listing line,
# the layout of -s, -b and -e, the basic blocks, the trigger. Every wait
# is bounded; the background processes are ended on exit.
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
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
static const char *stop;
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
static void spin(void)
{
    time_t end = time(NULL) + 60;
    for (long k = 0;; k++) {
        inner();
        if (k % 64 == 0 && (access(stop, F_OK) == 0 || time(NULL) > end)) break;
    }
}
static void handler(int sig)
{
    (void)sig;
    spin();
}
int main(int argc, char **argv)
{
    stop = argv[1];
    if (argc > 2) { /* "sig": the rest of the run in a SIGALRM handler */
        signal(SIGALRM, handler);
        alarm(1);
    }
    spin();
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
expect_run "--version: tally's" 0 "^tally $("$TALLY" --version | sed 's/^tally //')$" "" control --version
expect_run "-i=x: on or off" 2 "" "^tally: control: -i takes 'on' or 'off', not 'x'" control -i=x
expect_run "-e with an empty event name" 2 "" "^tally: control: -e: an empty event name in 'Ir,,Dr'" \
    control -e Ir,,Dr
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

# --- the report of -s, -e and -b, from a fixed `status internal` ---------------
# A stand-in for vgdb (TALLY_VGDB) lists one Callgrind process (101) and one
# tally process (102), logs each command it is sent and answers `status
# internal` with $FAKE/status: Callgrind's key: value lines, three threads
# (ids 1, 2 and 12), two events, a count line shorter than the events (as
# Callgrind writes them, trailing zeros left out). callgrind_control, run
# through a link in the same directory, takes that vgdb as its own (the vgdb
# next to it): both read the same answer, and print the same text.
FAKE=$TMP/fake
mkdir -p "$FAKE"
cat >"$FAKE/vgdb" <<'EOS'
#!/bin/sh
dir=$(dirname "$0")
cmd=""
for a in "$@"; do
    case $a in
    -l) cat "$dir/list"; exit 1 ;;
    --pid=*) pid=${a#--pid=} ;;
    --vgdb-prefix=*) ;;
    *) cmd="$cmd${cmd:+ }$a" ;;
    esac
done
echo "$pid $cmd" >>"$dir/sent"
[ "$cmd" = "status internal" ] && cat "$dir/status"
exit 0
EOS
chmod +x "$FAKE/vgdb"
cat >"$FAKE/list" <<'EOS'
use --pid=101 for /usr/bin/valgrind.bin --tool=callgrind ./prog arg
use --pid=102 for /usr/bin/valgrind.bin --tool=tally ./prog arg
EOS
cat >"$FAKE/status.full" <<'EOS'
instrumentation: on
executed-bbs: 123456789
executed-calls: 4567
distinct-bbs: 2255
distinct-calls: 341
distinct-functions: 281
distinct-contexts: 281
events: Ir Dr
part: 0
threads: 1 2 12
current-tid: 1
events-1: 1234567890 12
frames-1: 3
function-1-0: (below main)
calls-1-0: 1
events-1-0: 1234567000 10
function-1-1: main
calls-1-1: 1
events-1-1: 1234500000 9
function-1-2: inner
calls-1-2: 2873
events-1-2: 4711
function-1-3: work
events-2: 98765 4321
frames-2: 1
function-2-0: start_thread
calls-2-0: 2
events-2-0: 98000 4000
function-2-1: run
events-12: 5 0
frames-12: 1
function-12-0: clone
calls-12-0: 1
events-12-0: 3
function-12-1: start_thread
EOS
cp "$FAKE/status.full" "$FAKE/status"
# fake_tally ARGS...: tally control's output for process 102 in $TMP/fk.tl (PID line as "PID N")
fake_tally() {
    TALLY_VGDB=$FAKE/vgdb "$TALLY" control "$@" >"$TMP/fk.tl" 2>"$TMP/fk.err"
    rc=$?
    sed -i 's/^PID 102: /PID N: /' "$TMP/fk.tl"
    return $rc
}
if command -v callgrind_control >/dev/null 2>&1; then
    ln -s "$(command -v callgrind_control)" "$FAKE/callgrind_control"
    for opts in "-s" "-e" "-b" "-e -b" "-s -e -b" "-b -e Dr,Ir" "-e Dr" "-v -s" "-v -z" "-k" \
        "-d warm" "-d" "--dump=warm" "-i off" "--instr on" "-i=on" "-e Ir -s"; do
        : >"$FAKE/sent"
        # shellcheck disable=SC2086 # the options are words
        perl "$FAKE/callgrind_control" $opts 101 2>/dev/null | sed 's/^PID 101: /PID N: /' >"$TMP/fk.cg"
        # shellcheck disable=SC2086
        fake_tally $opts 102
        sed 's/^10[12] //' "$FAKE/sent" >"$TMP/fk.sent"
        if cmp -s "$TMP/fk.cg" "$TMP/fk.tl" && [ "$rc" = 0 ] &&
            [ "$(sed -n 1p "$TMP/fk.sent")" = "$(sed -n 2p "$TMP/fk.sent")" ]; then
            ok "'$opts' as callgrind_control's: output and command sent"
        else
            not_ok "'$opts' as callgrind_control's: output and command sent"
            { diff -u "$TMP/fk.cg" "$TMP/fk.tl"; echo "exit $rc; sent:"; cat "$FAKE/sent"; } | diag
        fi
    done
    echo "instrumentation: off" >"$FAKE/status"
    perl "$FAKE/callgrind_control" -s 101 2>/dev/null | sed 's/^PID 101: /PID N: /' >"$TMP/fk.cg"
    fake_tally -s -b 102
    same_text "instrumentation off: as callgrind_control's" "$TMP/fk.cg" "$TMP/fk.tl"
    cp "$FAKE/status.full" "$FAKE/status"
else
    echo "# callgrind_control not installed: no comparison of the report"
fi
# tally's own lines, written out from the answers below
grep -v '^executed-bbs:' "$FAKE/status.full" >"$FAKE/status"
fake_tally -s 102
printf '%s\n' "PID N: ./prog arg" "  Number of running threads: 3, thread IDs: 1 2 12" \
    "  Events collected: Ir Dr" "  Functions: 281 (executed 4,567, contexts 281)" \
    "  Basic blocks: 2,255 (call sites 341)" "" >"$TMP/fk.want"
same_text "no executed-bbs (tally without --dump-every-bb): no 'executed' count" \
    "$TMP/fk.want" "$TMP/fk.tl"
cp "$FAKE/status.full" "$FAKE/status"
fake_tally -e Ir,Foo -b 102
if [ "$rc" = 2 ] && [ "$(cat "$TMP/fk.tl")" = "PID N: ./prog arg" ] &&
    grep -q "^tally: control: process 102 does not count event 'Foo' (its events: Ir Dr)$" \
        "$TMP/fk.err"; then
    ok "-e with an event the process does not count: exit 2, its events named"
else
    not_ok "-e with an event the process does not count: exit 2, its events named"
    { echo "exit $rc"; cat "$TMP/fk.tl" "$TMP/fk.err"; } | diag
fi
# --calls=no: the tool gives no thread lines
sed -n '1,/^current-tid:/p' "$FAKE/status.full" >"$FAKE/status"
fake_tally -e -b 102
printf '%s\n' "PID N: ./prog arg" "  No costs or stacks of threads: the run has --calls=no." "" \
    >"$TMP/fk.want"
same_text "-e -b without thread lines (--calls=no): said" "$TMP/fk.want" "$TMP/fk.tl"
# answers that are not a status
printf 'hello\n' >"$FAKE/status"
fake_tally -s 102
[ "$rc" = 1 ] && grep -q "^tally: control: process 102: cannot read its status$" "$TMP/fk.err" &&
    ok "an answer with no instrumentation line: exit 1" ||
    { not_ok "an answer with no instrumentation line: exit 1"; diag <"$TMP/fk.err"; }
sed 's/^events-2: .*/events-2: 98765 x/' "$FAKE/status.full" >"$FAKE/status"
fake_tally -e 102
[ "$rc" = 1 ] && grep -q "cannot read its status line 'events-2: 98765 x'$" "$TMP/fk.err" &&
    ok "a count that is not a number: exit 1, the line quoted" ||
    { not_ok "a count that is not a number: exit 1, the line quoted"; diag <"$TMP/fk.err"; }
# thread 1 is 106 functions deep (f0 ... f105 running; calls-1-K is K + 1,
# events-1-K 1000 + K), thread 3 has no frame yet: every thread is listed,
# the innermost 100 frames shown, then how many more
{
    sed -n '1,/^current-tid:/p' "$FAKE/status.full" | sed 's/^threads: .*/threads: 1 3/'
    echo "events-1: 99999"
    echo "frames-1: 105"
    k=0
    while [ $k -le 104 ]; do
        printf 'function-1-%d: f%d\ncalls-1-%d: %d\nevents-1-%d: %d\n' $k $k $k $((k + 1)) $k $((1000 + k))
        k=$((k + 1))
    done
    echo "function-1-105: f105"
    echo "events-3: 7"
    echo "frames-3: 0"
} | sed 's/^events: .*/events: Ir/' >"$FAKE/status"
fake_tally -e -b 102
printf '%s\n' "PID N: ./prog arg" "" "  Totals:    Ir " "   Th 1  99,999 " "   Th 3       7 " "" \
    "  Frame:    Ir Backtrace for Thread 1" "   [ 0]  1,104 f105 (105 x)" \
    "   [ 1]  1,103 f104 (104 x)" >"$TMP/fk.want"
head -n 9 "$TMP/fk.tl" >"$TMP/fk.head"
same_text "a deep stack and a thread with no frame: the head" "$TMP/fk.want" "$TMP/fk.head"
printf '%s\n' "   [99]  1,005 f6 (6 x)" "   ...   (6 frames more)" "" "" \
    "  Frame:    Ir Backtrace for Thread 3" "" "" >"$TMP/fk.want"
tail -n 7 "$TMP/fk.tl" >"$TMP/fk.tail"
same_text "a deep stack and a thread with no frame: the tail" "$TMP/fk.want" "$TMP/fk.tail"
cp "$FAKE/status.full" "$FAKE/status"

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

# status internal, read raw: what -s must show
"$TALLY" control "$CTL" "$BG" status internal >"$TMP/si" 2>&1
si() { sed -n "s/^  $1: //p" "$TMP/si"; }
commify() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
bbs=$(si distinct-bbs)
fns=$(si distinct-functions)
expect_run "--stat: callgrind_control's threads line" 0 \
    "^  Number of running threads: 1, thread IDs: 1$" "" control "$CTL" "$BG" --stat
cp "$TMP/out" "$TMP/tally.stat"
if grep -qx "  Events collected: $(si events)" "$TMP/out" &&
    grep -qx "  Functions: $(commify "$fns") (executed [0-9,]*, contexts $(commify "$fns"))" "$TMP/out" &&
    grep -qx "  Basic blocks: $(commify "$bbs") (call sites $(commify "$(si distinct-calls)"))" "$TMP/out" &&
    [ "${bbs:-0}" -gt 100 ]; then
    ok "--stat: events, functions, $bbs basic blocks, as status internal has them"
else
    not_ok "--stat: events, functions, basic blocks, as status internal has them"
    { cat "$TMP/si"; cat "$TMP/out"; } | diag
fi
expect_run "status (tally's own): collecting, the basic blocks" 0 \
    "^  instrumentation: on, collection: on$" "" control "$CTL" "$BG" status
grep -qx "  basic blocks: $bbs" "$TMP/out" && ok "status: basic blocks: $bbs" ||
    { not_ok "status: basic blocks: $bbs"; diag <"$TMP/out"; }
expect_run "-e: Totals of thread 1, every event" 0 "^   Th 1  [0-9,]+ [0-9,]+ [0-9,]+ $" "" \
    control "$CTL" "$BG" -e
grep -Eqx "  Totals: +Ir +Dr +Dw " "$TMP/out" && ok "-e: the header names the events" ||
    { not_ok "-e: the header names the events"; diag <"$TMP/out"; }
# frames_grow FILE: in -e -b's frames (first column) the cost since a
# frame's call began never shrinks going down the stack, and thread 1's
# total is at least the outermost one's (one answer, one moment)
frames_grow() {
    awk '/^  Totals:/ { t = 1; next }
        t && $1 == "Th" && $2 == "1" { gsub(",", "", $3); tot = $3 + 0; t = 0 }
        /^   \[ *[0-9]+\]/ {
            v = $0; sub(/^   \[ *[0-9]+\]  */, "", v); split(v, a, " ")
            if (a[1] == ".") next
            gsub(",", "", a[1]); n++
            if (a[1] + 0 < prev) bad = 1
            prev = a[1] + 0
        }
        END { exit !(!bad && n >= 3 && prev > 0 && tot >= prev) }' "$1"
}
expect_run "-e Ir -b: a column of Ir and the stack" 0 "^  Frame: +Ir Backtrace for Thread 1$" "" \
    control "$CTL" "$BG" -e Ir -b
cp "$TMP/out" "$TMP/tally.eb"
if frames_grow "$TMP/out" && grep -Eq '^   \[ *[0-9]+\]  +[0-9,]+ main \(1 x\)$' "$TMP/out" &&
    grep -Eq '^   \[ *[0-9]+\]  +\. [^ ]+$' "$TMP/out"; then
    ok "-e Ir -b: each frame's cost grows down the stack, the outermost has '.'"
else
    not_ok "-e Ir -b: each frame's cost grows down the stack, the outermost has '.'"
    diag <"$TMP/out"
fi
expect_run "-e with an event not counted: exit 2" 2 "^PID $BG: " \
    "^tally: control: process $BG does not count event 'Bogus' \\(its events: Ir Dr Dw\\)$" \
    control "$CTL" "$BG" -e Ir,Bogus
expect_run "-d warm: the next argument is the label" 0 "^  OK\\.$" "" control "$CTL" "$BG" -d warm
expect_run "-v --zero: the command sent" 0 "^PID $BG: .* \\[requesting 'zero'\\]$" "" \
    control "$CTL" "$BG" -v --zero
expect_run "-i off then the state (--instr)" 0 "^  instrumentation: off$" "" \
    control "$CTL" "$BG" -i off --instr
expect_run "--stat with the instrumentation off" 0 \
    "^  No information available as instrumentation is switched off\\.$" "" control "$CTL" "$BG" -s
expect_run "status with the instrumentation off" 0 "instrumentation: off, collection: off" "" \
    control "$CTL" "$BG" status
expect_run "--instr=on" 0 "^  OK\\.$" "" control "$CTL" "$BG" --instr=on
expect_run "a raw monitor command" 0 "^  instrumentation: on$" "" control "$CTL" "$BG" instrumentation
expect_run "an unknown monitor command" 1 "not recognised" "is not a monitor command" \
    control "$CTL" "$BG" frobnicate
# the instrumentation was switched off and on: the blocks were translated again
"$TALLY" control "$CTL" "$BG" status internal >"$TMP/si" 2>&1
[ "$(si distinct-bbs)" = "$bbs" ] && ok "distinct-bbs counts a block translated again once: $bbs" ||
    { not_ok "distinct-bbs counts a block translated again once: $bbs"; diag <"$TMP/si"; }
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

# A second run: --dump-every-bb (the one option that makes tally count the
# blocks run) and, a second after the start, the rest of the loop in a
# SIGALRM handler
(cd "$TMP" && exec "$TALLY" record -q "$CTL" --dump-every-bb=1000000000000 --out-file="$TMP/s.out" \
    -- "$TMP/spin" "$TMP/stop" sig >"$TMP/srec.out" 2>"$TMP/srec.err") &
BG=$!
in_handler() {
    "$TALLY" control "$CTL" "$BG" -e Ir -b >"$TMP/sig.back" 2>/dev/null &&
        grep -q ' <signal 14>' "$TMP/sig.back"
}
if wait_for 30 in_handler; then
    # handler (1 x) above <signal 14> (no calls), the function it interrupted below
    if awk '/^   \[/ { l[++n] = $0 }
        END {
            for (i = 2; i < n; i++)
                if (l[i] ~ / <signal 14>$/)
                    exit !(l[i - 1] ~ / handler \(1 x\)$/ && l[i + 1] ~ / \([0-9]+ x\)$/)
            exit 1
        }' "$TMP/sig.back" && frames_grow "$TMP/sig.back"; then
        ok "-e Ir -b in a signal handler: handler, <signal 14>, the function interrupted"
    else
        not_ok "-e Ir -b in a signal handler: handler, <signal 14>, the function interrupted"
        diag <"$TMP/sig.back"
    fi
    # the blocks run, twice: more the second time
    runs() {
        "$TALLY" control "$CTL" "$BG" -s 2>&1 |
            sed -n 's/^  Basic blocks: [0-9,]* (executed \([0-9,]*\), call sites [0-9,]*)$/\1/p' | tr -d ,
    }
    r1=$(runs)
    sleep 0.5
    r2=$(runs)
    if [ "${r1:-0}" -gt 0 ] && [ "${r2:-0}" -gt "$r1" ]; then
        ok "--dump-every-bb: -s gives the blocks run ($r1, then $r2)"
    else
        not_ok "--dump-every-bb: -s gives the blocks run ('$r1', then '$r2')"
    fi
else
    not_ok "the second run reached its signal handler"
    { cat "$TMP/sig.back"; cat "$TMP/srec.err"; } | diag
fi
stop_bg
check "the second run ended well" grep -q '^done$' "$TMP/srec.out"

# masked FILE: a report without its numbers and the column widths they
# make, Callgrind's count of blocks run left out (tally has none)
masked() {
    sed -e 's/^PID [0-9]*: .*/PID/' -e 's/[0-9]\(,\{0,1\}[0-9]\)*/N/g' -e 's/  */ /g' \
        -e 's/^ Events collected: .*/ Events collected: E/' -e 's/ (executed N, call sites/ (call sites/' \
        "$1"
}
# below_main FILE: a report without the frames above main (their moment differs)
below_main() {
    awk '/^   \[/ { if ($0 ~ / main \(1 x\)$/) keep = 1; if (!keep) next } /Frame:/ { keep = 0 } { print }' "$1"
}

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
        below_main "$TMP/cg.back" | masked /dev/stdin >"$TMP/cg.m"
        below_main "$TMP/tally.back" | masked /dev/stdin >"$TMP/tl.m"
        same_text "-b: the layout of callgrind_control's" "$TMP/cg.m" "$TMP/tl.m"
        callgrind_control "$CTL" -s "$BG" >"$TMP/cg.stat" 2>/dev/null
        masked "$TMP/cg.stat" >"$TMP/cg.m"
        masked "$TMP/tally.stat" >"$TMP/tl.m"
        same_text "-s: the layout of callgrind_control's" "$TMP/cg.m" "$TMP/tl.m"
        # the same program's blocks: the tools' own code aside, the same ones
        cgb=$(sed -n 's/^  Basic blocks: \([0-9,]*\) .*/\1/p' "$TMP/cg.stat" | tr -d ,)
        tlb=$(sed -n 's/^  Basic blocks: \([0-9,]*\) .*/\1/p' "$TMP/tally.stat" | tr -d ,)
        d=$((${cgb:-0} - ${tlb:-0}))
        if [ "${cgb:-0}" -gt 0 ] && [ $((d < 0 ? -d : d)) -le $((cgb / 10)) ]; then
            ok "distinct basic blocks within 10% of Callgrind's: $tlb and $cgb"
        else
            not_ok "distinct basic blocks within 10% of Callgrind's: '$tlb' and '$cgb'"
        fi
        callgrind_control "$CTL" -e Ir -b "$BG" >"$TMP/cg.eb" 2>/dev/null
        below_main "$TMP/cg.eb" | masked /dev/stdin >"$TMP/cg.m"
        below_main "$TMP/tally.eb" | masked /dev/stdin >"$TMP/tl.m"
        same_text "-e Ir -b: the layout of callgrind_control's" "$TMP/cg.m" "$TMP/tl.m"
        callgrind_control "$CTL" -d warm "$BG" >/dev/null 2>&1
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
