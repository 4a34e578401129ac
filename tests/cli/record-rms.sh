#!/bin/sh
# tally record --input-sensitive=yes: the RMS and DRMS of chosen activations
# of examples/complexity, checked exactly against values derived by hand
# from the definition (research aprof.md §1.2: the number of distinct
# memory cells that the activation, or a routine it calls, first accessed
# by reading; cells of 4 bytes unless said otherwise). The programs are
# built with gcc -O1 -fno-inline: the routines keep their arguments and
# locals in registers, so the only stack cells they read first are the 8
# bytes of their return address (2 cells), which the caller's `call` wrote.
# Pushes of saved registers are writes, their pops read what was written.
# The report is parsed with awk; `tally complexity` then checks the fitted
# growth classes.
. "$(dirname "$0")/../lib.sh"

if ! command -v valgrind >/dev/null 2>&1 || [ ! -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] ||
    ! command -v gcc >/dev/null 2>&1; then
    ok "skipped: no Valgrind, gcc or tool"
    exit 0
fi
# $TALLY may be another build (ASan) without a lib dir beside it.
TALLY_VALGRIND_LIB=$ROOT/build/valgrind/lib
export TALLY_VALGRIND_LIB
CX=$ROOT/examples/complexity
if ! make -s -C "$CX" CC=gcc >"$TMP/make.out" 2>&1; then
    not_ok "examples/complexity builds"
    diag <"$TMP/make.out"
    exit 0
fi

# rec NAME ARGS... : record $CX/NAME into $TMP/NAME.aprof (extra tool
# options before the program come from $OPTS)
rec() {
    n=$1
    shift
    # shellcheck disable=SC2086 # OPTS is a list of options
    (cd "$TMP" && "$TALLY" record -q --input-sensitive=yes $OPTS --aprof-out-file="$TMP/$n.aprof" \
        --out-file="$TMP/$n.callgrind" -- "$CX/$n" "$@") >"$TMP/$n.stdout" 2>"$TMP/$n.stderr"
    rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$TMP/$n.aprof" ]; then
        not_ok "record $n $OPTS (exit $rc)"
        diag <"$TMP/$n.stderr"
        return 1
    fi
    return 0
}

# tuples FILE ROUTINE : one line per tuple of ROUTINE: "input calls max
# cumsys cumthr selfsys selfthr" (the last four only in DRMS reports)
tuples() {
    awk -v f="\"$2\"" '
        $1 == "r" { cur = ($2 == f) ? $NF : "" }
        $1 == "p" && cur != "" && $2 == cur {
            line = $3 " " $8 " " $5
            if (NF >= 19) line = line " " $16 " " $17 " " $18 " " $19
            print line
        }' "$1" | sort -n
}

# expect_tuples NAME FILE ROUTINE EXPECTED-FILE : the "input calls" pairs
expect_tuples() {
    tuples "$2" "$3" | awk '{ print $1, $2 }' >"$TMP/got"
    same_text "$1" "$4" "$TMP/got"
}

# --------------------------------------------------------------- RMS
# scan(v, n): the loop reads v[0..n-1], n aligned ints = n cells; plus the
# return address: RMS = n + 2, once for each n = 200, 400, ..., 4000.
OPTS=""
if rec scan; then
    seq 200 200 4000 | awk '{ print $1 + 2, 1 }' >"$TMP/want"
    expect_tuples "scan: RMS = n + 2" "$TMP/scan.aprof" scan "$TMP/want"
    # each 200 more elements are 200 more runs of the one-block loop body
    if tuples "$TMP/scan.aprof" scan | awk 'NR > 1 && $3 - prev != 200 { bad = 1 } { prev = $3 }
        END { exit bad }'; then
        ok "scan: 200 more elements cost 200 more basic blocks"
    else
        not_ok "scan: 200 more elements cost 200 more basic blocks"
    fi
fi

# The same run at other resolutions: v is 32-byte aligned (a static array
# of 16000 bytes) and the return address is 8-byte aligned, so with cells of
# k bytes RMS = 4n/k + 8/k for k <= 8 and 4n/16 + 1 for k = 16.
for k in 1 8 16; do
    OPTS="--memory-resolution=$k"
    if rec scan; then
        seq 200 200 4000 | awk -v k="$k" '{ print 4 * $1 / k + (k < 8 ? 8 / k : 1), 1 }' >"$TMP/want"
        expect_tuples "scan: RMS at --memory-resolution=$k" "$TMP/scan.aprof" scan "$TMP/want"
    fi
done

# --cost=instr: the loop body is 5 instructions (movslq, add, add, cmp, jne)
OPTS="--cost=instr"
if rec scan; then
    if tuples "$TMP/scan.aprof" scan | awk 'NR > 1 && $3 - prev != 1000 { bad = 1 } { prev = $3 }
        END { exit bad || NR != 20 }'; then
        ok "scan --cost=instr: 200 elements = 1000 instructions"
    else
        not_ok "scan --cost=instr: 200 elements = 1000 instructions"
    fi
    if grep -q '^m vex-instr$' "$TMP/scan.aprof" && grep -q '^c tally cost instr$' "$TMP/scan.aprof"; then
        ok "--cost=instr: m vex-instr"
    else
        not_ok "--cost=instr: m vex-instr"
    fi
fi
OPTS=""

# isort(a, n) on a reversed array: key = a[i] is read before a[i] is
# written (i >= 1), a[0] is read by the first comparison; the shifts write
# cells already read. RMS = n + 2 for n = 30, 60, ..., 600.
if rec isort; then
    seq 30 30 600 | awk '{ print $1 + 2, 1 }' >"$TMP/want"
    expect_tuples "isort: RMS = n + 2" "$TMP/isort.aprof" isort "$TMP/want"
fi

# msort(a, tmp, n): every activation reads its n elements (the leaves copy
# a[0] to tmp[0]) before writing them back; tmp is always written first
# (the earlier calls that touched it have returned). RMS = n + 2 for every
# activation, so the leaves (n = 1) give RMS 3 with one call per element of
# all the top-level sorts: 256 (1 + 2 + ... + 16) = 34816 calls. The
# top-level calls give RMS 258, 514, ..., 4098.
if rec msort; then
    tuples "$TMP/msort.aprof" msort >"$TMP/ms"
    awk '$1 == 3 { print $2 }' "$TMP/ms" >"$TMP/got"
    echo 34816 >"$TMP/want"
    same_text "msort: leaves have RMS 3, 34816 calls" "$TMP/want" "$TMP/got"
    seq 256 256 4096 | awk '{ print $1 + 2 }' >"$TMP/want"
    awk '{ print $1 }' "$TMP/ms" | grep -Fx -f "$TMP/want" >"$TMP/got"
    same_text "msort: the top-level sorts have RMS n + 2" "$TMP/want" "$TMP/got"
    # an activation on n elements splits into n/2 and n - n/2: the calls on
    # RMS 4 (n = 2) are the number of 2-element sublists of all the sorts
    awk 'function cnt(n) { if (n < 2) return 0; return (n == 2) + cnt(int(n / 2)) + cnt(n - int(n / 2)) }
        BEGIN { s = 0; for (n = 256; n <= 4096; n += 256) s += cnt(n); print s }' >"$TMP/want"
    awk '$1 == 4 { print $2 }' "$TMP/ms" >"$TMP/got"
    same_text "msort: RMS 4 once per 2-element sublist" "$TMP/want" "$TMP/got"
fi

# mul(a, b, c, n): reads all of a and b (2 n^2 cells), only writes c.
# RMS = 2 n^2 + 2 for n = 4, 8, ..., 48.
if rec matmul; then
    seq 4 4 48 | awk '{ print 2 * $1 * $1 + 2, 1 }' >"$TMP/want"
    expect_tuples "mul: RMS = 2 n^2 + 2" "$TMP/matmul.aprof" mul "$TMP/want"
fi

# rsum(a, n) recursive: the activation on n reads a[n-1] and, through its
# descendants, a[0..n-2], and its return address; the descendants' return
# addresses are written by their callers. One call on 300 gives the tuples
# 2 .. 302, one call each (the i-th activation: 300 - i + 3).
if rec rsum; then
    seq 2 302 | awk '{ print $1, 1 }' >"$TMP/want"
    expect_tuples "rsum: RMS = n + 2 at every depth" "$TMP/rsum.aprof" rsum "$TMP/want"
    OPTS="--collect-cct=yes"
    if rec rsum; then
        # contexts: main > rsum > rsum > ... (301 of them), one q tuple each,
        # RMS 302 at the top down to 2 at the bottom
        awk '$1 == "r" && $2 == "\"rsum\"" { id = $NF }
            $1 == "x" { r[$3] = $2; par[$3] = $4 }
            $1 == "q" { q[$2] = $3; nq[$2]++ }
            $1 == "p" { p++ }
            END {
                for (c in r) if (r[c] == id) {
                    n++; d = 0
                    for (x = c; x != -1 && r[x] == id; x = par[x]) d++
                    if (nq[c] != 1 || q[c] != 303 - d) bad++
                }
                print n, bad + 0, p + 0
            }' "$TMP/rsum.aprof" >"$TMP/got"
        echo "301 0 0" >"$TMP/want"
        same_text "rsum --collect-cct=yes: 301 nested contexts, RMS 302 - depth + 1, no p lines" \
            "$TMP/want" "$TMP/got"
    fi
    OPTS=""
fi

# find(a, n, key) with an absent key probes distinct elements until lo > hi;
# RMS = probes + 2. The probes are counted by running the same search in awk.
if rec bsearch; then
    awk 'BEGIN {
        for (n = 16; n <= 65536; n *= 2)
            for (k = 0; k < 8; k++) {
                key = 2 * int(n / 8) * k + 1; lo = 0; hi = n - 1; p = 0
                while (lo <= hi) {
                    mid = lo + int((hi - lo) / 2); p++
                    if (2 * mid < key) lo = mid + 1; else hi = mid - 1
                }
                c[p + 2]++
            }
        for (r in c) print r, c[r]
    }' | sort -n >"$TMP/want"
    expect_tuples "find: RMS = probes + 2" "$TMP/bsearch.aprof" find "$TMP/want"
fi

# jump: f(n) -> g -> h, and h longjmps back into f. The jump closes h and g
# (each has 10 tuples of one call, and longjmp's activation 10 calls);
# g reads nothing itself and its return address is never read, so
# RMS(g) = RMS(h) for every n; h reads data[0..n-1], so from one n to the
# next (n += 10) its RMS grows by exactly 10 (after the first call, whose
# RMS also has the library's first-time reads).
if rec jump; then
    tuples "$TMP/jump.aprof" h | awk '{ print $1, $2 }' >"$TMP/h"
    tuples "$TMP/jump.aprof" g | awk '{ print $1, $2 }' >"$TMP/got"
    same_text "jump: RMS(g) = RMS(h), one call per n" "$TMP/h" "$TMP/got"
    awk 'NR > 2 && $1 - prev != 10 { bad = 1 } { prev = $1 } END { print NR, bad + 0 }' "$TMP/h" >"$TMP/got"
    echo "10 0" >"$TMP/want"
    same_text "jump: RMS(h) grows by 10 per 10 elements" "$TMP/want" "$TMP/got"
    tuples "$TMP/jump.aprof" longjmp | awk '{ s += $2 } END { print s }' >"$TMP/got"
    echo 10 >"$TMP/want"
    same_text "jump: the 10 longjmp activations are closed" "$TMP/want" "$TMP/got"
fi

# A stripped program: the routines have no symbols and are reported by
# address (r "0x..."), not dropped; scan's tuples are intact.
if command -v strip >/dev/null 2>&1 && cp "$CX/scan" "$TMP/scan-stripped" && strip -s "$TMP/scan-stripped"; then
    if (cd "$TMP" && "$TALLY" record -q --input-sensitive=yes --aprof-out-file="$TMP/st.aprof" \
        --out-file="$TMP/st.callgrind" -- "$TMP/scan-stripped") >/dev/null 2>&1; then
        seq 200 200 4000 | awk '{ print $1 + 2, 1 }' >"$TMP/want"
        awk '$1 == "r" { cur = $NF; name = $2 }
            $1 == "p" && $2 == cur && name ~ /^"0x/ { print name, $3, $8 }' "$TMP/st.aprof" |
            awk 'NR == FNR { w[$1 " " $2] = 1; n++; next }
                 ($2 " " $3) in w { c[$1]++ } END { for (r in c) if (c[r] == n) print "found" }' \
                "$TMP/want" - >"$TMP/got"
        echo found >"$TMP/want2"
        same_text "stripped scan: reported by address with RMS n + 2" "$TMP/want2" "$TMP/got"
    else
        not_ok "record of a stripped program"
    fi
fi

# Signals (examples/signals.c, T1's: 3 deliveries of SIGUSR1 whose handler
# returns, 2 of SIGUSR2 whose handler siglongjmps out): the handlers run
# under `<signal 10>` and `<signal 12>` activations, closed at sigreturn or by
# the jump; on_usr1 3 calls, on_usr2 2, and no activation ends negative.
if make -s -C "$ROOT/examples" signals >/dev/null 2>&1 && [ -x "$ROOT/examples/signals" ]; then
    if (cd "$TMP" && "$TALLY" record -q --input-sensitive=yes --aprof-out-file="$TMP/sig.aprof" \
        --out-file="$TMP/sig.callgrind" -- "$ROOT/examples/signals") >/dev/null 2>&1; then
        for r in "<signal 10>" "<signal 12>" on_usr1 on_usr2; do
            awk -v f="\"$r\"" 'index($0, "r " f " ") == 1 { cur = $NF; next } $1 == "r" { cur = "" }
                $1 == "p" && $2 == cur { s += $8 } END { print s + 0 }' "$TMP/sig.aprof"
        done >"$TMP/got"
        grep -c '^c tally warning' "$TMP/sig.aprof" >>"$TMP/got"
        printf '3\n2\n3\n2\n0\n' >"$TMP/want"
        same_text "signals: handlers under <signal N>, 3 and 2 activations, none negative" "$TMP/want" "$TMP/got"
    else
        not_ok "record examples/signals"
    fi
fi

# A report named after a FIFO (or /dev/null) is written into it, not renamed
# over it: the rename of a temporary file once put a plain file in place of
# /dev/null for every later program on the machine. A FIFO of the test's own
# shows the same thing without risk.
if command -v mkfifo >/dev/null 2>&1 && mkfifo "$TMP/rep.fifo"; then
    cat "$TMP/rep.fifo" >"$TMP/fifo.got" &
    reader=$!
    # the reader ends with the report; should the run hang or never write, the
    # reader is stopped, and a writer waiting for one is given one
    (sleep 30; kill $reader; timeout 5 cat "$TMP/rep.fifo") >/dev/null 2>&1 &
    (cd "$TMP" && "$TALLY" record -q --input-sensitive=yes --aprof-out-file="$TMP/rep.fifo" \
        --out-file="$TMP/fifo.callgrind" -- /bin/true) >/dev/null 2>&1
    wait $reader
    if [ -p "$TMP/rep.fifo" ] && grep -q '^c report generated by tally$' "$TMP/fifo.got"; then
        ok "--aprof-out-file=FIFO: the report goes through it and the FIFO stays"
    else
        not_ok "--aprof-out-file=FIFO: the report goes through it and the FIFO stays"
        ls -l "$TMP/rep.fifo" | diag
    fi
fi

# --------------------------------------------------------------- DRMS
# readfile: load(fd, m) = m times read(fd, buf, 256) then consume(buf, 256).
# consume reads the 64 cells of buf and its return address: RMS = DRMS = 66,
# 1 + 2 + ... + 16 = 136 calls. RMS(load) is the same for m = 2..16 (the
# buffer is the same memory; the first call, m = 1, also first-reads some
# library state); DRMS(load) grows by exactly 64 per read: each read()
# makes the 64 cells new (syscall-induced), so DRMS(load, m) = RMS + 64 (m-1)
# for m >= 2, and the syscall-induced reads of load are 64 m.
awk 'BEGIN { for (i = 0; i < 4096; i++) printf "%c", 65 + i % 26 }' >"$TMP/data"
if rec readfile "$TMP/data"; then
    tuples "$TMP/readfile.aprof" consume >"$TMP/got"
    echo "66 136 66" >"$TMP/want"
    same_text "readfile: RMS(consume) = 66, 136 calls" "$TMP/want" "$TMP/got"
    tuples "$TMP/readfile.aprof" load >"$TMP/rms"
    awk '$2 == 15 { print $1 }' "$TMP/rms" >"$TMP/rms15"
    if [ "$(wc -l <"$TMP/rms")" = 2 ] && [ -s "$TMP/rms15" ]; then
        ok "readfile: RMS(load) is one value for m = 2..16"
    else
        not_ok "readfile: RMS(load) is one value for m = 2..16"
        diag <"$TMP/rms"
    fi
    cp "$TMP/readfile.aprof" "$TMP/readfile.rms.aprof"
    OPTS="--drms=yes"
    if rec readfile "$TMP/data"; then
        base=$(cat "$TMP/rms15")
        tuples "$TMP/readfile.aprof" load | awk '{ print $1, $2, $4 }' | sed 1d >"$TMP/got"
        seq 2 16 | awk -v b="$base" '{ print b + 64 * ($1 - 1), 1, 64 * $1 }' >"$TMP/want"
        same_text "readfile --drms=yes: DRMS(load) = RMS + 64 (m-1), 64 m syscall-induced" \
            "$TMP/want" "$TMP/got"
        tuples "$TMP/readfile.aprof" consume >"$TMP/got"
        echo "66 136 66 8704 0 8704 0" >"$TMP/want"
        same_text "readfile --drms=yes: consume's 64 cells are syscall-induced each time" \
            "$TMP/want" "$TMP/got"
        if grep -q '^v 6$' "$TMP/readfile.aprof" && grep -q '^i drms$' "$TMP/readfile.aprof" &&
            grep -q '^t 4$' "$TMP/readfile.aprof"; then
            ok "--drms=yes: v 6, i drms, t 4"
        else
            not_ok "--drms=yes: v 6, i drms, t 4"
        fi
    fi
    OPTS=""
fi

# prodcons: take() reads the 64 shared ints + return address: RMS 66 in both
# modes, 12 calls; under DRMS each take reads 64 values the producer wrote
# since the last one: 12 x 64 = 768 thread-induced reads, none from the
# kernel. consumer() (12 takes) has RMS counting the 64 cells once; its DRMS
# counts them every round: at least 11 x 64 more than its RMS.
if rec prodcons; then
    tuples "$TMP/prodcons.aprof" take >"$TMP/got"
    echo "66 12 65" >"$TMP/want"
    same_text "prodcons: RMS(take) = 66" "$TMP/want" "$TMP/got"
    crms=$(tuples "$TMP/prodcons.aprof" consumer | awk '{ print $1 }')
    OPTS="--drms=yes"
    if rec prodcons; then
        tuples "$TMP/prodcons.aprof" take | awk '{ print $1, $2, $4, $5, $6, $7 }' >"$TMP/got"
        echo "66 12 0 768 0 768" >"$TMP/want"
        same_text "prodcons --drms=yes: take's reads are thread-induced" "$TMP/want" "$TMP/got"
        tuples "$TMP/prodcons.aprof" consumer | awk -v r="$crms" '{ print ($1 - r >= 704 && $5 >= 768) }' >"$TMP/got"
        echo 1 >"$TMP/want"
        same_text "prodcons --drms=yes: DRMS(consumer) >= RMS + 11 x 64" "$TMP/want" "$TMP/got"
    fi
    OPTS="--drms=yes --separate-threads=yes"
    if rec prodcons; then
        # one report per thread: the consumer is the main thread (1), the
        # producer thread 2; fill() only writes: RMS 2 (its return address)
        f1=$TMP/prodcons.aprof-1 f2=$TMP/prodcons.aprof-2
        { tuples "$f1" take | awk '{ print $1, $2 }'; tuples "$f2" fill | awk '{ print $1, $2 }'
            tuples "$f1" fill | wc -l; grep -c '^c tally thread 2$' "$f2"; } >"$TMP/got"
        printf '66 12\n2 12\n0\n1\n' >"$TMP/want"
        same_text "--separate-threads=yes: take in thread 1, fill in thread 2" "$TMP/want" "$TMP/got"
    fi
    OPTS=""
fi

# --------------------------------------------------------------- reading
# The library reads every report the tool wrote, and tally complexity
# finds the growth (in terms of RMS: insertion sort n^2, scan n, matrix
# multiplication RMS^1.5, binary search linear in its probes).
fit() { # REPORT ROUTINE -> "exponent class"
    "$TALLY" complexity --include="^$2\$" "$1" 2>"$TMP/fit.err" |
        awk -v r="$2" '$NF == r && $1 ~ /^[0-9]+$/ { print $2, $4 }'
}
checkfit() { # NAME REPORT ROUTINE EXPONENT CLASS
    got=$(fit "$2" "$3")
    # shellcheck disable=SC2086 # two words, split on purpose
    set -- "$1" "$2" "$3" "$4" "$5" $got
    if [ $# -ge 7 ] && awk -v e="$6" -v w="$4" 'BEGIN { d = e - w; exit !(d < 0.1 && d > -0.1) }' &&
        { [ "$5" = "-" ] || [ "$7" = "$5" ]; }; then
        ok "$1"
    else
        not_ok "$1"
        echo "got: '$6 $7'" | diag
        diag <"$TMP/fit.err"
    fi
}
if [ -x "$TALLY" ] && "$TALLY" complexity --help >/dev/null 2>&1; then
    for p in scan isort msort matmul rsum bsearch; do rec $p >/dev/null; done
    checkfit "complexity: isort is n^2" "$TMP/isort.aprof" isort 2 "n^2"
    checkfit "complexity: scan is n" "$TMP/scan.aprof" scan 1 "n"
    checkfit "complexity: rsum is n" "$TMP/rsum.aprof" rsum 1 "n"
    checkfit "complexity: msort grows as n log n (exponent about 1.1)" "$TMP/msort.aprof" msort 1.1 -
    checkfit "complexity: mul grows as RMS^1.5" "$TMP/matmul.aprof" mul 1.5 -
    checkfit "complexity: find is linear in its RMS" "$TMP/bsearch.aprof" find 1 -
fi

# --------------------------------------------------------------- errors
# shellcheck disable=SC2034 # read by run_tally in lib.sh
RUN_DIR=$TMP
# refused by tally before Valgrind starts: usage, exit 2
expect_run "--memory-resolution=3 refused" 2 "" "--memory-resolution takes 1, 2, 4, 8 or 16" \
    record -q --input-sensitive=yes --memory-resolution=3 /bin/true
expect_run "--cost=time refused" 2 "" "--cost takes bb or instr" record -q --input-sensitive=yes --cost=time /bin/true
expect_run "--drms=yes needs --input-sensitive=yes" 1 "" "needs --input-sensitive=yes" \
    record -q --drms=yes /bin/true
expect_run "--input-sensitive needs --calls" 1 "" "needs --calls=yes" \
    record -q --input-sensitive=yes --calls=no /bin/true
