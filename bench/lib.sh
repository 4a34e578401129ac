# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the benchmark scripts of bench/ (sourced with `.`, not
# run). Set before sourcing:
#   BENCH_NAME  the prefix of messages ("bench/record")
#   TMP         a scratch directory the script removes at exit
# Defines TIME (GNU time, which reports CPU time and peak memory) and the
# failure counter `failures`, and the functions below.

TIME=/usr/bin/time
failures=0

die() {
    echo "$BENCH_NAME: $*" >&2
    exit 1
}

# verdict AWK_CONDITION : print "met" when it holds, "MISSED" otherwise
verdict() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "MISSED"; fi; }

# run_once OUT CMD... : run CMD once (stdout to OUT, stderr kept in
# $TMP/stderr) and set WALL (seconds, from the nanosecond clock), CPU (user
# + system seconds), RSS (peak resident KiB) and RC (its exit status).
run_once() {
    _out=$1
    shift
    _t0=$(date +%s%N)
    "$TIME" -f '%M %U %S' -o "$TMP/time" "$@" >"$_out" 2>"$TMP/stderr"
    RC=$?
    _t1=$(date +%s%N)
    WALL=$(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    # shellcheck disable=SC2046 # three numbers, split on purpose
    set -- $(tail -n 1 "$TMP/time")
    RSS=${1:-0} CPU=$(awk -v u="${2:-0}" -v s="${3:-0}" 'BEGIN { printf "%.2f", u + s }')
    case $RSS in '' | *[!0-9]*) RSS=0 ;; esac
}

# measure N OUT CMD... : run CMD N times; set WALL to the best wall time,
# CPU to the best CPU time and RSS to the largest peak seen. A failing run
# is reported with the start of its stderr, counted in `failures`, leaves
# WALL, CPU and RSS empty and returns 1.
measure() {
    _n=$1 _mout=$2
    shift 2
    _bw="" _bc="" _mr=0 _i=0
    while [ "$_i" -lt "$_n" ]; do
        run_once "$_mout" "$@"
        if [ "$RC" != 0 ]; then
            echo "$BENCH_NAME: '$*' failed (exit $RC):" >&2
            head -n 5 "$TMP/stderr" >&2
            failures=$((failures + 1))
            WALL="" CPU="" RSS=""
            return 1
        fi
        if [ -z "$_bw" ] || awk -v a="$WALL" -v b="$_bw" 'BEGIN { exit !(a < b) }'; then _bw=$WALL; fi
        if [ -z "$_bc" ] || awk -v a="$CPU" -v b="$_bc" 'BEGIN { exit !(a < b) }'; then _bc=$CPU; fi
        [ "$RSS" -gt "$_mr" ] && _mr=$RSS
        _i=$((_i + 1))
    done
    WALL=$_bw CPU=$_bc RSS=$_mr
    return 0
}

# text_input MB : print the path of the generated text of MB * 10^6 bytes
# that bench/record.sh and bench/rms.sh compress, making it (once, in
# bench/cache/) when it is missing. 70% of the words come from 40 common
# ones, 25% from 100, 5% are numbers; lines end after about 17 words.
# Park-Miller (x = 16807 x mod 2^31 - 1) stays below 2^53, so it is exact in
# awk's doubles and the file is the same on every machine.
text_input() {
    _in=$ROOT/bench/cache/record-input.$1MB.txt
    if [ ! -s "$_in" ]; then
        mkdir -p "$ROOT/bench/cache" || die "cannot create $ROOT/bench/cache"
        awk -v target="$(($1 * 1000000))" 'BEGIN {
            nw = split("the of and to in is that for it as with was on be by at this are from " \
                "or an which have not but had his they were their one all been has more when " \
                "there can will would its who also into other some what only time them these " \
                "two may first than then new any such like over after most about made out used " \
                "many where being well should each between through", w, " ")
            x = 12345; n = 0
            while (n < target) {
                x = (x * 16807) % 2147483647
                r = x % 1000
                if (r >= 950) {
                    s = sprintf("%d", x % 100000) (r >= 990 ? ".\n" : " ")
                } else {
                    i = 1 + int(x / 1000) % (r < 700 ? 40 : nw)
                    s = w[i] (r % 17 == 0 ? ",\n" : " ")
                }
                if (n + length(s) > target) s = substr("\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 1, target - n)
                printf "%s", s
                n += length(s)
            }
        }' >"$_in.tmp" || die "cannot write $_in.tmp"
        mv "$_in.tmp" "$_in" || die "cannot write $_in"
    fi
    echo "$_in"
}
