#!/bin/sh
# Peer test of tally record's --collect-bus (event Ge) and
# --collect-systime (sysCount sysTime [sysCpuTime]) against Callgrind 3.19
# on tests/peer/events/ev.c (100 locked adds, 30 compare-and-swaps, 30
# exchanges, 7 getppid and 2 sleeps of 20 ms): both tools run in one environment (`env -i`, one
# VALGRIND_LIB holding both). Compared: the events: line (with the cache
# and branch events before Ge; tally's Dr Dw left out where Callgrind,
# without the cache simulation, has none) and the self cost of the event in every
# function that has some, libc's and the loader's included (times only
# for plausibility: they are not deterministic).
. "$(dirname "$0")/../lib.sh"

peer_start
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH VALGRIND_LIB=$LIB"
peer_build ev "$ROOT/tests/peer/events/ev.c"

# self EVENT FILE: "FUNCTION COST" for each function with a non-zero self
# cost of EVENT (the line after calls= is inclusive cost), sorted
self() {
    awk -v want="$1" -v np=1 'function nm(v,   id, r) {
            if (v !~ /^\(/) return v
            id = substr(v, 1, index(v, ")")); r = substr(v, index(v, ")") + 2)
            if (r != "") n[id] = r
            return n[id]
        }
        /^positions:/ { np = NF - 1; next }
        /^events:/ { col = 0; for (i = 2; i <= NF; i++) if ($i == want) col = i + np - 1; next }
        /^fn=/ { fn = nm(substr($0, 4)); next }
        /^cfn=/ { nm(substr($0, 5)); next }
        /^calls=/ { skip = 1; next }
        /^[0-9+*-]/ {
            if (skip) { skip = 0; next }
            if (col && $col != "") s[fn] += $col
        }
        END { for (f in s) if (s[f]) print f, s[f] }' "$2" | sort
}

# run NAME OPTIONS...: both tools on ev with OPTIONS
run() {
    name=$1
    shift
    rm -f "$TMP/cl.out" "$TMP/tl.out"
    (cd "$TMP" && $E valgrind --tool=callgrind --callgrind-out-file="$TMP/cl.out" "$@" \
        ./ev >/dev/null 2>"$TMP/cl.err")
    (cd "$TMP" && $E valgrind --tool=tally --vex-guest-chase=no --out-file="$TMP/tl.out" "$@" \
        ./ev >/dev/null 2>"$TMP/tl.err")
    if [ ! -s "$TMP/cl.out" ] || [ ! -s "$TMP/tl.out" ]; then
        not_ok "$name: both tools wrote their files"
        diag <"$TMP/tl.err"
        return 1
    fi
    grep '^events:' "$TMP/cl.out" | sed 's/ *$//' >"$TMP/cl.ev"
    # tally writes Dr Dw also without the cache simulation, Callgrind not
    grep '^events:' "$TMP/tl.out" | head -n 1 >"$TMP/tl.ev"
    grep -q '^events: Ir Dr Dw' "$TMP/cl.ev" || sed -i 's/^events: Ir Dr Dw/events: Ir/' "$TMP/tl.ev"
    same_text "$name: events: $(cut -c9- "$TMP/tl.ev")" "$TMP/cl.ev" "$TMP/tl.ev"
}

# --collect-bus
for opts in "--collect-bus=yes" "--collect-bus=yes --cache-sim=yes --branch-sim=yes" \
    "--collect-bus=yes --simulate-wb=yes --dump-instr=yes"; do
    run "$opts" $opts || continue
    self Ge "$TMP/cl.out" >"$TMP/cl.ge"
    self Ge "$TMP/tl.out" >"$TMP/tl.ge"
    same_text "$opts: Ge per function ($(tr '\n' ' ' <"$TMP/tl.ge"))" "$TMP/cl.ge" "$TMP/tl.ge"
    if grep -q '^atomics 100$' "$TMP/tl.ge" && grep -q '^swaps 60$' "$TMP/tl.ge"; then
        ok "$opts: atomics 100 and swaps 60 bus events"
    else
        not_ok "$opts: atomics 100 and swaps 60 bus events"
    fi
done
# tally annotate reads and shows the event
"$ROOT/build/tally" annotate "$TMP/tl.out" >"$TMP/ann" 2>&1
check "tally annotate shows Ge" grep -q 'Ge' "$TMP/ann"
# --collect-bus=no writes no Ge
run "--collect-bus=no" --collect-bus=no

# --collect-systime: the counts per function exactly; the times only for
# plausibility (sleeps makes 2 calls of clock_nanosleep of 20 ms each)
for v in yes msec usec nsec; do
    run "--collect-systime=$v" --collect-systime=$v || continue
    # Callgrind counts the exit_group of _Exit in its summary: but leaves
    # it out of _Exit's costs (its totals: line has one call less); tally
    # writes it there
    self sysCount "$TMP/cl.out" >"$TMP/cl.sc0"
    { grep -v '^_Exit ' "$TMP/cl.sc0"; echo "_Exit 1"; } | sort >"$TMP/cl.sc"
    self sysCount "$TMP/tl.out" >"$TMP/tl.sc"
    same_text "--collect-systime=$v: sysCount per function ($(wc -l <"$TMP/tl.sc") functions, $(awk '{ s += $2 } END { print s }' "$TMP/tl.sc") calls)" "$TMP/cl.sc" "$TMP/tl.sc"
    cls=$(awk '/^summary:/ { print $3 }' "$TMP/cl.out")
    tlt=$(awk '/^totals:/ { print $5 }' "$TMP/tl.out")
    check "--collect-systime=$v: tally's sysCount total $tlt is Callgrind's summary: $cls" \
        test "$tlt" = "$cls"
    case $v in yes | msec) unit=1 ;; usec) unit=1000 ;; nsec) unit=1000000 ;; esac
    self sysTime "$TMP/tl.out" | grep '^clock_nanosleep' >"$TMP/tl.st"
    if awk -v u=$unit '{ t = $2 } END { exit !(NR == 1 && t >= 40 * u && t < 2000 * u) }' "$TMP/tl.st"; then
        ok "--collect-systime=$v: clock_nanosleep's sysTime is 40 ms or more ($(cat "$TMP/tl.st"))"
    else
        not_ok "--collect-systime=$v: clock_nanosleep's sysTime is 40 ms or more"
        diag <"$TMP/tl.st"
    fi
    if [ $v = nsec ]; then
        # CPU time: no more than the wall time of all calls, and the sleeps
        # take almost none
        self sysTime "$TMP/tl.out" | awk '{ s += $2 } END { print s }' >"$TMP/tl.wall"
        self sysCpuTime "$TMP/tl.out" | awk '{ s += $2 } END { print s }' >"$TMP/tl.cpu"
        nap=$(self sysCpuTime "$TMP/tl.out" | awk '/^clock_nanosleep/ { print $2 }')
        if [ "$(cat "$TMP/tl.cpu")" -le "$(cat "$TMP/tl.wall")" ] && [ "${nap:-0}" -lt 20000000 ]; then
            ok "--collect-systime=nsec: sysCpuTime $(cat "$TMP/tl.cpu") <= sysTime $(cat "$TMP/tl.wall"), sleeps ${nap:-0}"
        else
            not_ok "--collect-systime=nsec: sysCpuTime <= sysTime, sleeps' CPU time small"
            echo "cpu $(cat "$TMP/tl.cpu") wall $(cat "$TMP/tl.wall") sleeps $nap" | diag
        fi
    fi
done
"$ROOT/build/tally" annotate "$TMP/tl.out" >"$TMP/ann" 2>&1
check "tally annotate shows sysCount sysTime sysCpuTime" grep -q 'sysCount.*sysTime.*sysCpuTime' "$TMP/ann"
# with the caches, branches and bus the events stay in Callgrind's order:
run "--collect-systime=yes --collect-bus=yes --cache-sim=yes --branch-sim=yes" \
    --collect-systime=yes --collect-bus=yes --cache-sim=yes --branch-sim=yes
