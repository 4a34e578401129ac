#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test of `--cacheuse=yes` (events AcCost1 SpLoss1 AcCost2 SpLoss2)
# against Callgrind 3.19, both tools in one environment (`env -i`, one
# VALGRIND_LIB holding both, the same explicit caches), on strided reads
# (tests/peer/cacheuse/strided.c), threads run one after another
# (threads.c), two areas 4 GiB apart (tests/peer/cacheopts/alias.c) and a
# dump request in the block that brought a line in (dumpblock.c).
#
# What must be equal:
#  - the events: and positions: lines;
#  - every instruction of the program's own functions (object, address,
#    line): all events, the reads and writes as sums (Callgrind counts a
#    read-modify-write of one address as a write, tally as the read:
#    D = Dr + Dw, D1m = D1mr + D1mw, DLm = DLmr + DLmw);
#  - summary: the four use events are 0 in both (Callgrind's running cost
#    never holds them);
#  - with --toggle-collect (only the program's work is collected) the
#    totals: line too; a whole run's totals differ by what Callgrind
#    leaves out and tally writes (the last block of each thread: the use
#    of the I1 line `_Exit`'s system call brought in) and by start-up code
#    whose line use differs from run to run of the same tool (strcspn's
#    table on the stack in ld.so), so the whole-run totals are not compared;
#  - callgrind_annotate's rows of the program's functions for Ir, the
#    instruction misses and the use events, and it reads tally's file
#    cleanly (check_callgrind_file); tally annotate reads both files
#    without a warning (the use events are 0 in summary:).
# threads.c: its main thread's calls of pthread_create and pthread_join
# touch stack lines whose use depends on how the threads meet (it differs
# between runs of Callgrind alone), so only `worker` is compared there, in
# whole runs (with --toggle-collect=worker, whether a line a worker brought
# in leaves during a later worker or between two depends on that too).
. "$(dirname "$0")/../lib.sh"

peer_start callgrind_annotate
LIB=$TMP/lib
peer_valgrind_lib "$LIB" callgrind
E="env -i PATH=$PEER_PATH VALGRIND_LIB=$LIB"
SRC=$ROOT/tests/peer
# -fno-plt: the program calls libc through its GOT, so no PLT stub runs in
# its functions (Callgrind charges a stub's costs to the call site, tally
# to the function it leads to)
build() { # name source [flags]
    if ! gcc -O1 -g -fno-plt $3 -o "$TMP/$1" "$2" 2>"$TMP/cc.err"; then
        not_ok "$1 builds"
        diag <"$TMP/cc.err"
        exit 1
    fi
}
build strided "$SRC/cacheuse/strided.c"
build threads "$SRC/cacheuse/threads.c" -pthread
build alias "$SRC/cacheopts/alias.c"
build dumpblock "$SRC/cacheuse/dumpblock.c"
build zeroblock "$SRC/cacheuse/zeroblock.c"

# instr_costs FILE OBJECT FUNCTIONS: one row per instruction (or per line,
# with positions: line) of the functions named in FUNCTIONS
# (space-separated) of object OBJECT (a path ending), "part function
# [address] line" then the costs in the order of CANON, reads and writes
# summed; name compression and relative positions are resolved.
CANON="Ir D I1mr D1m ILmr DLm AcCost1 SpLoss1 AcCost2 SpLoss2"
instr_costs() {
    awk -v obj="$2" -v fns=" $3 " -v canon="$CANON" '
    function hex(s,   v, i, c) {
        v = 0; s = tolower(substr(s, 3))
        for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
        return v
    }
    function nm(kind, v,   id, r) {
        if (v !~ /^\(/) return v
        id = kind substr(v, 1, index(v, ")")); r = substr(v, index(v, ")") + 2)
        if (r != "") n[id] = r
        return n[id]
    }
    function pos(t, prev) {
        if (t ~ /^0x/) return hex(t)
        if (t ~ /^\+/) return prev + substr(t, 2)
        if (t ~ /^-/) return prev - substr(t, 2)
        if (t == "*") return prev
        return t + 0
    }
    BEGIN { nc = split(canon, cn, " ") }
    /^positions:/ { np = NF - 1; next }
    /^events:/ { part++; ne = NF - 1; for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
    /^ob=/ { ob = nm("o", substr($0, 4)); next }
    /^cob=/ { nm("o", substr($0, 5)); next }
    /^fn=/ { fn = nm("f", substr($0, 4)); next }
    /^cfn=/ { nm("f", substr($0, 5)); next }
    /^(fl|fi|fe|cfi|cfl)=/ { nm("l", substr($0, index($0, "=") + 1)); next }
    /^calls=/ { skip = 1; next }
    /^[0-9+*-]/ {
        if (np == 2) { a = pos($1, la); l = pos($2, ll); la = a } else l = pos($1, ll)
        ll = l
        if (skip) { skip = 0; next }
        if (index(fns, " " fn " ") == 0 || substr(ob, length(ob) - length(obj) + 1) != obj) next
        key = part " " fn " " (np == 2 ? sprintf("%x ", a) : "") l
        for (i = np + 1; i <= NF; i++) {
            e = ev[i - np]
            if (e == "Dr" || e == "Dw") e = "D"
            else if (e == "D1mr" || e == "D1mw") e = "D1m"
            else if (e == "DLmr" || e == "DLmw") e = "DLm"
            c[key, e] += $i
        }
        keys[key] = 1
    }
    END {
        for (k in keys) {
            line = k; any = 0
            for (i = 1; i <= nc; i++) { line = line " " (c[k, cn[i]] + 0); any += c[k, cn[i]] != 0 }
            if (any) print line # (a call site of a toggled run has a row of zeros in tally)
        }
    }' "$1" | LC_ALL=C sort
}

# line_costs FILE WHAT: the summary: or totals: line (WHAT) of the last
# part in the order of CANON (events a file does not have are 0).
line_costs() {
    awk -v what="$2" -v canon="$CANON" '
    BEGIN { nc = split(canon, cn, " ") }
    /^events:/ { delete c; for (i = 2; i <= NF; i++) ev[i - 1] = $i; next }
    $1 == what ":" {
        delete c
        for (i = 2; i <= NF; i++) {
            e = ev[i - 1]
            if (e == "Dr" || e == "Dw") e = "D"
            else if (e == "D1mr" || e == "D1mw") e = "D1m"
            else if (e == "DLmr" || e == "DLmw") e = "DLm"
            c[e] += $i
        }
    }
    END { line = ""; for (i = 1; i <= nc; i++) line = line (i > 1 ? " " : "") (c[cn[i]] + 0); print line }' "$1"
}

# annotate_rows FILE FUNCTIONS: callgrind_annotate's self-cost rows of the
# program's functions, for the events both tools count alike, without the
# percentages (with threads, the run's totals differ from run to run).
annotate_rows() {
    callgrind_annotate --threshold=100 --auto=no --inclusive=no \
        --show=Ir,I1mr,ILmr,AcCost1,SpLoss1,AcCost2,SpLoss2 "$1" 2>/dev/null |
        awk -v fns=" $2 " 'NF > 2 && $NF ~ /^\[/ { f = $(NF - 1); sub(/.*:/, "", f)
            c = $0; sub(/[^ ]*:[^ ]* \[[^]]*\]$/, "", c)
            gsub(/\( *[0-9.]*%\)/, "", $0) # (percentages of totals that differ: threads)
            if (index(fns, " " f " ") && c ~ /[1-9]/) print }' | LC_ALL=C sort
}

A="--I1=32768,8,64 --D1=32768,8,64 --LL=262144,8,64"
# lines of 32 bytes in L1 (a use bit per byte) and 128 in LL (per 4 bytes)
B="--I1=8192,2,32 --D1=4096,1,32 --LL=131072,4,128"

# run NAME PROG FUNCTIONS OPTIONS...: both tools, then the checks above;
# with a --toggle-collect option the totals too.
run() {
    name=$1 prog=$2 fns=$3
    shift 3
    rm -f "$TMP"/cl.out* "$TMP"/tl.out*
    (cd "$TMP" && $E valgrind --tool=callgrind --callgrind-out-file="$TMP/cl.out" "$@" \
        "./$prog" >/dev/null 2>"$TMP/cl.err")
    (cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/tl.out" "$@" \
        "./$prog" >/dev/null 2>"$TMP/tl.err")
    files=$(cd "$TMP" && ls cl.out* | sed 's/^cl//')
    for f in $files; do
        [ -s "$TMP/cl$f" ] || continue # (Callgrind's empty base file of --separate-threads)
        n="$name${f#.out}"
        if [ ! -s "$TMP/tl$f" ]; then
            not_ok "$n: tally wrote tl$f"
            diag <"$TMP/tl.err"
            continue
        fi
        grep '^events:\|^positions:' "$TMP/cl$f" | sed 's/ *$//' | sort -u >"$TMP/cl.ev"
        grep '^events:\|^positions:' "$TMP/tl$f" | sort -u >"$TMP/tl.ev"
        same_text "$n: $(grep '^events:' "$TMP/tl.ev")" "$TMP/cl.ev" "$TMP/tl.ev"
        instr_costs "$TMP/cl$f" "/$prog" "$fns" >"$TMP/cl.ins"
        instr_costs "$TMP/tl$f" "/$prog" "$fns" >"$TMP/tl.ins"
        if [ ! -s "$TMP/cl.ins" ] && [ ! -s "$TMP/tl.ins" ]; then
            ok "$n: no instructions of $fns in either file"
        elif [ ! -s "$TMP/cl.ins" ]; then
            not_ok "$n: Callgrind's file has instructions of $fns"
        else
            same_text "$n: costs of the $(wc -l <"$TMP/cl.ins") rows (instructions or lines) of $fns" \
                "$TMP/cl.ins" "$TMP/tl.ins"
        fi
        line_costs "$TMP/cl$f" summary >"$TMP/cl.sum"
        line_costs "$TMP/tl$f" summary >"$TMP/tl.sum"
        if awk '{ exit !($7 == 0 && $8 == 0 && $9 == 0 && $10 == 0) }' "$TMP/tl.sum" &&
            awk '{ exit !($7 == 0 && $8 == 0 && $9 == 0 && $10 == 0) }' "$TMP/cl.sum"; then
            ok "$n: the use events are 0 in summary:"
        else
            not_ok "$n: the use events are 0 in summary:"
            paste "$TMP/cl.sum" "$TMP/tl.sum" | diag
        fi
        case " $* " in
        *" --toggle-collect="*)
            line_costs "$TMP/cl$f" totals >"$TMP/cl.tot"
            line_costs "$TMP/tl$f" totals >"$TMP/tl.tot"
            same_text "$n: totals ($CANON: $(cat "$TMP/tl.tot"))" "$TMP/cl.tot" "$TMP/tl.tot"
            same_text "$n: summary" "$TMP/cl.sum" "$TMP/tl.sum"
            ;;
        esac
        annotate_rows "$TMP/cl$f" "$fns" >"$TMP/cl.ann"
        annotate_rows "$TMP/tl$f" "$fns" >"$TMP/tl.ann"
        if [ -s "$TMP/cl.ann" ] || [ -s "$TMP/tl.ann" ]; then
            same_text "$n: callgrind_annotate's rows of $fns ($(wc -l <"$TMP/cl.ann"))" \
                "$TMP/cl.ann" "$TMP/tl.ann"
        elif [ -s "$TMP/cl.ins" ]; then
            not_ok "$n: callgrind_annotate shows $fns"
        fi
        if "$TALLY" annotate "$TMP/tl$f" >/dev/null 2>"$TMP/ta.err" &&
            "$TALLY" annotate "$TMP/cl$f" >/dev/null 2>>"$TMP/ta.err" && [ ! -s "$TMP/ta.err" ]; then
            ok "$n: tally annotate reads both files without a warning"
        else
            not_ok "$n: tally annotate reads both files without a warning"
            head -n 5 "$TMP/ta.err" | diag
        fi
        # (a toggled run's callers, and calls open at a dump, have arcs of
        # 0 calls: see lib.sh)
        calls0=0
        case " $* " in *" --toggle-collect="* | *" --dump-before="*) calls0=1 ;; esac
        CGA_CALLS0_OK=$calls0 check_callgrind_file "$n" "$TMP/tl$f"
    done
}

SF="walk columns straddle run main"
run "strided A" strided "$SF" $A --cacheuse=yes
run "strided A toggled" strided "$SF" $A --cacheuse=yes --toggle-collect=run
run "strided B toggled" strided "$SF" $B --cacheuse=yes --toggle-collect=run
# parts: lines walk brings in before the dump and columns evicts after it
# are charged to walk in the second part (walk runs again there); those of
# main's memset are never written (it does not run again)
run "strided A parts" strided "$SF" $A --cacheuse=yes --dump-before=columns --combine-dumps=no
# a later --dump-instr=no gives line positions, as in Callgrind
run "strided lines" strided "$SF" $A --cacheuse=yes --dump-instr=no --toggle-collect=run
run "threads A" threads worker $A --cacheuse=yes
# each thread's file: what the main thread evicts of the lines a worker
# brought in is the worker thread's
run "threads A separate" threads worker $A --cacheuse=yes --separate-threads=yes
if (cd "$TMP" && ./alias); then
    run "alias A toggled" alias alias_walk $A --cacheuse=yes --toggle-collect=alias_walk
else
    ok "skipped: alias cannot map its areas 4 GiB apart"
fi

# A dump request in the block that brought a line in (dumpblock.c): for
# Callgrind, which counts a block's run when the next block starts, that
# run is in the part after the dump, and the use of the block's lines is
# written there, with main (tally carries the block into that part); with
# collection off at the dump (`off`) the run is not counted and that use
# is never written. The block that runs across the request is counted
# before the dump by tally, after it by Callgrind (by design, see
# tests/peer/parts.sh), so main's use events alone are compared, per
# instruction, in each part's file.
for arg in "" off; do
    n="dumpblock${arg:+ $arg}"
    rm -f "$TMP"/cl.out* "$TMP"/tl.out*
    # shellcheck disable=SC2086
    (cd "$TMP" && $E valgrind --tool=callgrind --callgrind-out-file="$TMP/cl.out" $A --cacheuse=yes \
        --combine-dumps=no ./dumpblock $arg >/dev/null 2>"$TMP/cl.err")
    # shellcheck disable=SC2086
    (cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/tl.out" $A --cacheuse=yes \
        --combine-dumps=no ./dumpblock $arg >/dev/null 2>"$TMP/tl.err")
    for f in .out.1 .out; do
        for t in cl tl; do
            instr_costs "$TMP/$t$f" /dumpblock main |
                awk '$11 + $12 + $13 + $14 { print $3, $11, $12, $13, $14 }' >"$TMP/$t.use"
        done
        if [ ! -s "$TMP/cl.use" ] && [ "$f" = .out ]; then
            not_ok "$n: Callgrind charges use to main after the dump"
        else
            same_text "$n, part $([ "$f" = .out ] && echo 2 || echo 1): main's use events (address AcCost1 SpLoss1 AcCost2 SpLoss2: $(awk '{ a += $2; s += $3 } END { print a + 0, s + 0 }' "$TMP/cl.use") of level 1 in all)" \
                "$TMP/cl.use" "$TMP/tl.use"
        fi
    done
done

# Use held back across a zeroing (zeroblock.c): touch()'s line leaves in a
# part touch() did not run in, so that use is held back at the dump; the
# zeroing that follows spares touch()'s block (Callgrind zeroes the blocks
# that ran since the last dump), and touch()'s next run writes the use in
# the last part. touch()'s use events per instruction in each part, as
# Callgrind's; the last part must hold some.
rm -f "$TMP"/cl.out* "$TMP"/tl.out*
(cd "$TMP" && $E valgrind --tool=callgrind --callgrind-out-file="$TMP/cl.out" $A --cacheuse=yes \
    --combine-dumps=no ./zeroblock >/dev/null 2>"$TMP/cl.err")
(cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/tl.out" $A --cacheuse=yes \
    --combine-dumps=no ./zeroblock >/dev/null 2>"$TMP/tl.err")
for f in .out.1 .out.2 .out; do
    for t in cl tl; do
        instr_costs "$TMP/$t$f" /zeroblock touch |
            awk '$11 + $12 + $13 + $14 { print $3, $11, $12, $13, $14 }' >"$TMP/$t.use"
    done
    if [ ! -s "$TMP/cl.use" ] && [ "$f" = .out ]; then
        not_ok "zeroblock: Callgrind keeps touch's held use across the zeroing"
    else
        same_text "zeroblock, part $f: touch's use events (address AcCost1 SpLoss1 AcCost2 SpLoss2)" \
            "$TMP/cl.use" "$TMP/tl.use"
    fi
done

# the other files: the cachegrind format has Cachegrind's events only (its
# misses are the cache-use model's, the same as the callgrind file's), the
# context tree none of the use events (no running cost holds them)
rm -f "$TMP"/cx.*
(cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/cx.out" --cachegrind-out-file="$TMP/cx.cg" \
    --contexts=yes --contexts-out-file="$TMP/cx.ctx" $A --cacheuse=yes ./strided \
    >/dev/null 2>"$TMP/cx.err")
if [ -s "$TMP/cx.cg" ] && [ -s "$TMP/cx.ctx" ]; then
    # the callgrind file's totals in Cachegrind's order
    awk '/^events:/ { for (i = 2; i <= NF; i++) ev[$i] = i }
        /^totals:/ { split("Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw", o, " ")
            line = "summary:"; for (k = 1; k <= 9; k++) line = line " " $(ev[o[k]]); print line }' \
        "$TMP/cx.out" >"$TMP/cx.want"
    { grep '^events:' "$TMP/cx.cg"; grep '^summary:' "$TMP/cx.cg"; } >"$TMP/cx.got"
    # (Cachegrind 3.19 ends this events: line, caches without branches, with a space)
    { echo "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw "; cat "$TMP/cx.want"; } >"$TMP/cx.want2"
    same_text "--cachegrind-out-file: Cachegrind's events, the callgrind file's totals" \
        "$TMP/cx.want2" "$TMP/cx.got"
    grep '^events:' "$TMP/cx.ctx" >"$TMP/cx.ctxev"
    echo "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw" >"$TMP/cx.ctxwant"
    same_text "--contexts=yes: the context tree has no use events" "$TMP/cx.ctxwant" "$TMP/cx.ctxev"
else
    not_ok "--cacheuse=yes with --cachegrind-out-file and --contexts=yes writes the files"
    diag <"$TMP/cx.err"
fi

# where the use events go among all the others
for t in callgrind tally; do
    (cd "$TMP" && $E valgrind --tool=$t --callgrind-out-file="$TMP/all.$t" $A --cacheuse=yes \
        --branch-sim=yes --collect-bus=yes --collect-systime=nsec ./alias >/dev/null 2>&1)
    grep '^events:' "$TMP/all.$t" | sed 's/ *$//' >"$TMP/all.$t.ev"
done
same_text "with every event: $(cat "$TMP/all.tally.ev")" "$TMP/all.callgrind.ev" "$TMP/all.tally.ev"

# refused: the models Callgrind turns off with a warning, and no simulation
for bad in "--simulate-wb=yes" "--simulate-hwpref=yes" "--cache-sim=no"; do
    if (cd "$TMP" && $E valgrind --tool=tally --out-file="$TMP/bad.out" --cacheuse=yes $bad \
        ./strided >/dev/null 2>"$TMP/bad.err"); then
        not_ok "--cacheuse=yes $bad is refused"
    elif grep -q "Bad option" "$TMP/bad.err"; then
        ok "--cacheuse=yes $bad is refused: $(grep -A1 'Bad option' "$TMP/bad.err" | tail -n 1 |
            sed 's/^==[0-9]*== //')"
    else
        not_ok "--cacheuse=yes $bad is refused with a message"
        diag <"$TMP/bad.err"
    fi
done
