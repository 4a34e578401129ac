#!/bin/bash
# Run every test of tally and print one closing line "N passed, N failed".
#
# Each test program prints TAP lines ("ok ..." / "not ok ..."); cmocka
# binaries do so through CMOCKA_MESSAGE_OUTPUT=TAP. A program that exits
# non-zero without reporting a failure counts as one failure (a crash).
# Logs go to build/test-logs/; the logs of failing programs are shown.
#
# Programs run side by side, TALLY_TEST_JOBS at a time (default: the
# number of CPUs). Every test works in its own temporary folder; the
# profiles several peer tests share (build/peer-profiles, the gmon
# profiles) are made once, before the programs start. The longest
# programs start first, so the run ends close to (total time / jobs);
# each line shows how long its program took.
#
#   tests/run.sh              everything
#   tests/run.sh unit|asan|scripts|asan-cli|fuzz   one group (or several)
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
LOGS=build/test-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
JOBS=${TALLY_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $JOBS in '' | *[!0-9]* | 0) JOBS=1 ;; esac
export TALLY="$PWD/build/tally" ASAN_TALLY="$PWD/build/asan/tally"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

names=() cmds=()
add() { # name command...
    names+=("$1")
    shift
    cmds+=("$(printf '%q ' "$@")")
}

# The programs that take longest, started first (the order matters only
# for the run's length, never for its result).
long_first="browser/view.sh peer/vgsuite.sh peer/callgraph.sh peer/record.sh asan-cli/record.sh cli/record.sh
    asan-cli/convert.sh peer/stacks.sh cli/convert.sh asan-cli/flame.sh hostile/sweep.sh
    peer/gprof.sh cli/flame.sh"

groups=${1:+"$*"}
groups=${groups:-"unit asan tsan scripts asan-cli fuzz"}
for g in $groups; do
    case $g in
    unit) for t in build/tests/test_*; do [ -x "$t" ] && add "unit/${t##*/}" "$t"; done ;;
    asan) for t in build/asan/tests/test_*; do [ -x "$t" ] && add "asan/${t##*/}" "$t"; done ;;
    tsan) for t in build/tsan/tests/test_*; do [ -x "$t" ] && add "tsan/${t##*/}" "$t"; done ;;
    scripts) for t in tests/style/*.sh tests/cli/*.sh tests/hostile/*.sh tests/golden/*.sh tests/peer/*.sh tests/browser/*.sh; do
            # profiles.sh and gmon-profiles.sh are libraries the peer tests source, not tests
            case $t in */profiles.sh | */gmon-profiles.sh) continue ;; esac
            [ -f "$t" ] && add "${t#tests/}" sh "$t"
        done ;;
    asan-cli) # the command-line tests again, against the ASan+UBSan build of tally
        for t in tests/cli/*.sh; do
            [ -f "$t" ] && add "asan-${t#tests/}" env TALLY="$ASAN_TALLY" sh "$t"
        done ;;
    fuzz) for t in build/fuzz/fuzz_*; do
            [ -x "$t" ] && add "fuzz/${t##*/}" sh tests/fuzz/run-fuzzer.sh "$t" "$FUZZ_SECONDS"
        done ;;
    *) echo "tests/run.sh: unknown group '$g' (unit, asan, tsan, scripts, asan-cli, fuzz)" >&2; exit 2 ;;
    esac
done

# The shared peer profiles, made once so that no two tests make them at
# the same time. A failure here is left for the tests to report.
if [ "$JOBS" -gt 1 ] && printf '%s\n' "${names[@]}" | grep -q '\.sh$'; then
    (
        . tests/lib.sh >/dev/null 2>&1
        # lib.sh finds the root from a test's path (tests/GROUP/x.sh), one level deeper
        # than this script: without this the profiles went to ../build, the tests then
        # made them themselves, at once, one deleting what another was reading
        ROOT=$PWD
        . tests/peer/profiles.sh && make_profiles
        . tests/peer/gmon-profiles.sh && make_gmon_profiles
    ) >"$LOGS/prepare.log" 2>&1
fi

if [ ! -c /dev/null ]; then
    echo "tests/run.sh: /dev/null is not a character device (it was replaced before the tests; as root: rm /dev/null && mknod -m 666 /dev/null c 1 3)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

order=()
for n in $long_first; do
    for i in "${!names[@]}"; do [ "${names[i]}" = "$n" ] && order+=("$i"); done
done
for i in "${!names[@]}"; do
    case " $long_first " in *[[:space:]]"${names[i]}"[[:space:]]*) ;; *) order+=("$i") ;; esac
done

logof() { echo "$LOGS/$(echo "$1" | tr '/ ' '__').log"; }

run_one() { # index: run the program, keep its verdict in LOG.rc, say how it went
    name=${names[$1]} log=$(logof "${names[$1]}")
    start=$(date +%s)
    eval "${cmds[$1]}" >"$log" 2>&1 </dev/null
    rc=$?
    secs=$(($(date +%s) - start))
    p=$(grep -c '^ok ' "$log")
    f=$(grep '^not ok ' "$log" | grep -vc ' # TODO ') # TAP: a TODO failure is known, not counted
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; echo "not ok - $name ran no test" >>"$log"; fi
    echo "$p $f" >"$log.rc"
    if [ "$f" != 0 ]; then
        echo "FAIL $name ($p passed, $f failed, ${secs}s)"
    else
        echo "ok   $name ($p passed, ${secs}s)"
    fi
}

running=0
for i in "${order[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
    run_one "$i" &
    running=$((running + 1))
done
wait

pass=0 fail=0 failed_logs=""
# Every test redirects to /dev/null; one that renamed a file over it (as
# root) would break every later program on the machine, the next CI run
# included, far from the cause: say so here, where it happened.
if [ ! -c /dev/null ]; then
    echo "FAIL /dev/null is no longer a character device after the tests: a program replaced it"
    ls -l /dev/null
    fail=1
fi
for i in "${!names[@]}"; do
    log=$(logof "${names[i]}")
    read -r p f <"$log.rc" 2>/dev/null || { p=0 f=1; } # a runner that died counts as a failure
    pass=$((pass + p)) fail=$((fail + f))
    [ "$f" != 0 ] && failed_logs="$failed_logs $log"
done

for l in $failed_logs; do
    echo "----- $l"
    grep -v '^ok ' "$l" | tail -n 60
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
