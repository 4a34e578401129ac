#!/bin/sh
# Run every test of tally and print one closing line "N passed, N failed".
#
# Each test program prints TAP lines ("ok ..." / "not ok ..."); cmocka
# binaries do so through CMOCKA_MESSAGE_OUTPUT=TAP. A program that exits
# non-zero without reporting a failure counts as one failure (a crash).
# Logs go to build/test-logs/; the logs of failing programs are shown.
#
#   tests/run.sh              everything
#   tests/run.sh unit|asan|scripts|asan-cli|fuzz   one group
cd "$(dirname "$0")/.." || exit 1
LOGS=build/test-logs
mkdir -p "$LOGS"
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
export TALLY="$PWD/build/tally" ASAN_TALLY="$PWD/build/asan/tally"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
pass=0 fail=0
failed_logs=""

run_one() { # name command...
    name=$1; shift
    log="$LOGS/$(echo "$name" | tr '/ ' '__').log"
    "$@" >"$log" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^not ok ' "$log")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    if [ "$p" = 0 ] && [ "$f" = 0 ]; then f=1; echo "not ok - $name ran no test" >>"$log"; fi
    pass=$((pass + p)); fail=$((fail + f))
    if [ "$f" != 0 ]; then
        failed_logs="$failed_logs $log"
        echo "FAIL $name ($p passed, $f failed)"
    else
        echo "ok   $name ($p passed)"
    fi
}

groups=${1:-"unit asan scripts asan-cli fuzz"}
for g in $groups; do
    case $g in
    unit) for t in build/tests/test_*; do [ -x "$t" ] && run_one "unit/${t##*/}" "$t"; done ;;
    asan) for t in build/asan/tests/test_*; do [ -x "$t" ] && run_one "asan/${t##*/}" "$t"; done ;;
    scripts) for t in tests/style/*.sh tests/cli/*.sh tests/hostile/*.sh tests/golden/*.sh tests/peer/*.sh tests/browser/*.sh; do
            # profiles.sh and gmon-profiles.sh are libraries the peer tests source, not tests
            case $t in */profiles.sh | */gmon-profiles.sh) continue ;; esac
            [ -f "$t" ] && run_one "${t#tests/}" sh "$t"; done ;;
    asan-cli) # the command-line tests again, against the ASan+UBSan build of tally
        for t in tests/cli/*.sh; do
            [ -f "$t" ] && run_one "asan-${t#tests/}" env TALLY="$ASAN_TALLY" sh "$t"; done ;;
    fuzz) for t in build/fuzz/fuzz_*; do
            [ -x "$t" ] && run_one "fuzz/${t##*/}" sh tests/fuzz/run-fuzzer.sh "$t" "$FUZZ_SECONDS"; done ;;
    esac
done

for l in $failed_logs; do
    echo "----- $l"
    grep -v '^ok ' "$l" | tail -n 60
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
