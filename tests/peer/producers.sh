#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: tally annotate against callgrind_annotate 3.19 on files that
# other producers write, parsed as tests/peer/annotate.sh parses them:
#  - tests/data/producers/*.cg, *.out: real files kept as they were written
#    (xdebug 2, iai-callgrind; sources in its README.md);
#  - Xdebug 3 (Debian's php-xdebug): tests/data/producers/xdebug3/*.php run
#    with its profiler;
#  - `go tool pprof -callgrind` (Debian's golang-go): CPU and heap profiles
#    of tests/data/producers/pprof/main.go;
#  - pyprof2calltree (Debian's pyprof2calltree, the old format: no format
#    line, cfl=): cProfile's profile of tests/data/producers/python/work.py;
#  - tests/data/producers/old-format/: files of ours written from the old
#    format description (no real producer of it is packaged).
# The producers run here, at test time; one that is not installed is
# skipped (scripts/install-deps.sh installs them).
#
# For each file: the totals, warnings, every row, the entries of
# --tree=both and its call edges, and --inclusive=yes. Both tools run in a
# folder that is not a prefix of the profiled files (see "in place" below).
#
# Deliberate differences, handled here and listed in docs/tally-annotate.md:
#  - CRLF files (xdebug 2 on Windows): callgrind_annotate keeps the '\r' in
#    names; tally reads CRLF as LF. The oracle reads an LF copy.
#  - several parts (xdebug 2 appends runs after "==== NEW PROFILING FILE"):
#    callgrind_annotate's total is the last summary: line; tally's is the
#    sum of the parts, checked against the sum of the summary: lines.
#  - --inclusive=yes: rows of recursive functions differ on purpose; they
#    must not pass the total (tests/peer/annotate_incl.pl).
#  - --tree=caller/both: a callee that no fn= line names (xdebug 2 writes
#    cfn=php::define without cfl=, so the callee is in the caller's file)
#    has an entry, of no self cost, under which its callers are listed;
#    callgrind_annotate has no entry for it and shows those calls only
#    under the callers.
#  - `calls=0` lines (pprof -callgrind writes no call counts): callgrind_
#    annotate adds their inclusive cost to the caller's self cost (rows and
#    total inflated); tally keeps them as calls. The oracle reads a copy
#    with calls=1, and the call counts are not compared (tally's are 0).
#  - relative subpositions in hex (`+0x20`, which the format allows):
#    callgrind_annotate drops the line as malformed. The oracle reads a copy
#    with the number in decimal.
#  - in place (the current folder a prefix of the files, as when a PHP
#    script is profiled where it lies): callgrind_annotate strips the folder
#    from fl= names but not from cfl= names, so a called function gets a
#    second row under its long name; tally strips both.
. "$(dirname "$0")/../lib.sh"

if ! command -v callgrind_annotate >/dev/null; then
    echo "ok 1 - # SKIP callgrind_annotate not installed"
    exit 0
fi
DATA="$ROOT/tests/data/producers"
ELSEWHERE=$TMP/elsewhere # the folder both tools run in
mkdir -p "$ELSEWHERE"
rows() { perl "$ROOT/tests/peer/annotate_rows.pl" "$1" "$TMP"; }
oracle() { (cd "$ELSEWHERE" && callgrind_annotate "$@" 2>/dev/null); }
tally_in() { (cd "$ELSEWHERE" && "$TALLY" annotate "$@"); }
# the numbers of a PROGRAM TOTALS line, without commas and percentages
totals_of() {
    awk '/PROGRAM TOTALS/ { gsub(/\([^)]*\)/, ""); gsub(",", ""); sub(/ *PROGRAM TOTALS.*/, "");
                            $1 = $1; print; exit }' "$1"
}

# check_file NAME SRC [SED] : the checks of one file. SED (a sed script)
# makes the copy the oracle reads (see the deliberate differences above);
# when it turns calls=0 into calls=1, call counts are left out of the edges
# and tally's must all be 0.
check_file() {
    name=$1 src=$2 fix=${3:-}
    in="$TMP/oracle.in"
    # the oracle reads neither gzip nor CRLF as tally does
    case $src in *.gz) gzip -dc "$src" ;; *) cat "$src" ;; esac | tr -d '\r' |
        sed -e "${fix:-b}" >"$in"
    calls0=0
    case $fix in *calls=0*) calls0=1 ;; esac

    # totals: the oracle's, or with several parts the sum of their summary: lines
    nparts=$(grep -c '^events:' "$in")
    tally_in --auto=no "$src" >"$TMP/t.txt" 2>"$TMP/t.err"
    got=$(totals_of "$TMP/t.txt")
    if [ "$nparts" -gt 1 ]; then
        want=$(awk '/^summary:/ { for (i = 2; i <= NF; i++) s[i] += $i; n = NF }
                    END { for (i = 2; i <= n; i++) printf "%s%s", s[i], i < n ? " " : "\n" }' "$in")
    else
        oracle --auto=no "$in" >"$TMP/o.txt"
        want=$(totals_of "$TMP/o.txt")
    fi
    if [ -n "$want" ] && [ "$want" = "$got" ]; then ok "$name: total $got"; else
        not_ok "$name: total $got, want $want"; diag <"$TMP/t.err"; fi
    if [ ! -s "$TMP/t.err" ]; then ok "$name: read without a warning"; else
        not_ok "$name: warnings"; diag <"$TMP/t.err"; fi

    # every row, in order
    oracle --threshold=100 --auto=no "$in" | rows rows >"$TMP/o.rows"
    tally_in --threshold=100 --auto=no "$src" 2>/dev/null | rows rows >"$TMP/t.rows"
    if [ -s "$TMP/o.rows" ]; then same_text "$name: every row" "$TMP/o.rows" "$TMP/t.rows"; else
        not_ok "$name: no rows parsed"; fi

    # --tree=both: the oracle's entries, and callees it leaves out with no self cost
    oracle --tree=both --threshold=100 --auto=no "$in" >"$TMP/o.tree"
    tally_in --tree=both --threshold=100 --auto=no "$src" 2>/dev/null >"$TMP/t.tree"
    rows entries <"$TMP/o.tree" | sort >"$TMP/o.ent"
    rows entries <"$TMP/t.tree" | sort >"$TMP/t.ent"
    rows tree <"$TMP/o.tree" | grep '^>' >"$TMP/o.edges"
    rows tree <"$TMP/t.tree" >"$TMP/t.all"
    grep '^>' "$TMP/t.all" >"$TMP/t.edges"
    awk -F'\t' '{ split($1, a, " -> "); print a[2] }' "$TMP/o.edges" | sort -u >"$TMP/callees"
    extra=$(comm -13 "$TMP/o.ent" "$TMP/t.ent" |
        awk -F'\t' 'NR == FNR { callee[$1] = 1; next }
                    { c = $2; gsub(/[. ]/, "", c); if (c != "" || !($1 in callee)) print "not a bare callee: " $0; n++ }
                    END { print n + 0 }' "$TMP/callees" -)
    missing=$(comm -23 "$TMP/o.ent" "$TMP/t.ent")
    if [ -z "$missing" ] && [ "$(echo "$extra" | wc -l)" = 1 ]; then
        ok "$name: --tree=both entries (the oracle's, and $extra callees with no fn=)"
    else
        not_ok "$name: --tree=both entries"
        { echo "$missing" | sed 's/^/missing: /'; echo "$extra"; } | diag
    fi
    if [ "$calls0" = 1 ]; then
        # the counts: tally's are 0 (calls=0), the oracle's those of the copy
        bad=$(awk -F'\t' '$2 != 0' "$TMP/t.edges")
        [ -z "$bad" ] || { not_ok "$name: tally's call counts are 0"; echo "$bad" | diag; }
        [ -n "$bad" ] || ok "$name: tally's call counts are 0 (calls=0)"
        for f in o t; do cut -f1,3 "$TMP/$f.edges" >"$TMP/$f.e"; done
        same_text "$name: --tree=both callee edges (costs)" "$TMP/o.e" "$TMP/t.e"
    else
        same_text "$name: --tree=both callee edges" "$TMP/o.edges" "$TMP/t.edges"
    fi
    sed 's/^>/</' "$TMP/t.edges" >"$TMP/t.edges2"
    grep '^<' "$TMP/t.all" >"$TMP/t.in"
    same_text "$name: --tree=both caller lines match callee lines" "$TMP/t.edges2" "$TMP/t.in"

    # --inclusive=yes: equal outside recursion, never above the total inside it
    oracle --inclusive=yes --threshold=100 --auto=no "$in" | rows rows >"$TMP/o.rows"
    tally_in --inclusive=yes --threshold=100 --auto=no "$src" 2>/dev/null | rows rows >"$TMP/t.rows"
    awk -F'\t' '{split($1, a, " -> "); sub(/^> /, "", a[1]); print a[1] "\t" a[2]}' "$TMP/o.edges" >"$TMP/graph"
    if perl "$ROOT/tests/peer/annotate_incl.pl" "$TMP/graph" "$TMP/o.rows" "$TMP/t.rows" "${want%% *}" \
        >"$TMP/incl.log" 2>&1; then
        ok "$name: --inclusive=yes ($(tail -n 1 "$TMP/incl.log" | sed 's/^# //'))"
    else
        not_ok "$name: --inclusive=yes"
        head -n 20 "$TMP/incl.log" | diag
    fi
}

# ---------------------------------------------------------------------------
# Committed files of other producers, and our files in the old format.
for src in "$DATA"/*.cg "$DATA"/*.cg.gz "$DATA"/*.out "$DATA"/*.out.gz "$DATA"/old-format/*.out; do
    [ -f "$src" ] || continue
    fix=""
    case $src in */calltree-instr.out) fix='s/^+0x20 /+32 /' ;; esac
    check_file "$(basename "$src" .gz)" "$src" "$fix"
done
# the oracle's premise: it drops a line with a relative hex subposition
if callgrind_annotate --auto=no "$DATA/old-format/calltree-instr.out" 2>&1 >/dev/null |
    grep -q 'malformed'; then
    ok "calltree-instr.out: callgrind_annotate drops the line of '+0x20' (why its copy has '+32')"
else
    not_ok "calltree-instr.out: callgrind_annotate drops the line of '+0x20' (why its copy has '+32')"
fi

# ---------------------------------------------------------------------------
# Xdebug 3: PHP scripts profiled with xdebug.mode=profile.
xdebug_profile() { # SCRIPT OUTNAME : profile SCRIPT (in its own folder) into $TMP/xd/OUTNAME
    (cd "$(dirname "$1")" && php -n -d zend_extension=xdebug -d xdebug.mode=profile \
        -d xdebug.start_with_request=yes -d xdebug.use_compression=0 \
        -d xdebug.output_dir="$TMP/xd" -d xdebug.profiler_output_name="$2" "$(basename "$1")")
}
if ! command -v php >/dev/null || ! php -n -d zend_extension=xdebug -r 'exit(extension_loaded("xdebug") ? 0 : 1);' 2>/dev/null; then
    ok "# SKIP Xdebug 3: php or its xdebug extension is not installed"
else
    mkdir -p "$TMP/xd"
    cp -R "$DATA/xdebug3" "$TMP/php"
    for s in recursion many includes memory; do
        if ! xdebug_profile "$TMP/php/$s.php" "$s.cg" >"$TMP/php/$s.stdout" 2>"$TMP/php.err" ||
            [ ! -s "$TMP/xd/$s.cg" ]; then
            not_ok "Xdebug 3 profiles $s.php"
            diag <"$TMP/php.err"
            continue
        fi
        check_file "xdebug3 $s.php ($(sed -n 's/^creator: //p' "$TMP/xd/$s.cg"))" "$TMP/xd/$s.cg"
    done

    # memory.php: release() gives back what fill() took. Xdebug 3.2 writes a
    # negative memory delta as 0; Xdebug 3.0 and 3.1 wrote it as it was. The
    # file as they would have written it: release()'s delta (the script
    # prints it) on its own cost line and on the line of its call.
    delta=$(sed -n 's/^release: //p' "$TMP/php/memory.stdout")
    awk -v d="$delta" '
        { line = $0 }
        /^c?fn=\([0-9]+\) release$/ { id = $1; sub(/^c?fn=/, "", id); sub(/ .*/, "", id) }
        id != "" && ($0 == "fn=" id || $0 == "fn=" id " release") { self = 1 }
        id != "" && ($0 == "cfn=" id || $0 == "cfn=" id " release") { call = 1 }
        /^[0-9]/ && self { $3 = d; line = $0; self = 0 }
        /^[0-9]/ && call && seen_calls { $3 = d; line = $0; call = 0 }
        { seen_calls = /^calls=/; print line }' "$TMP/xd/memory.cg" >"$TMP/xd/memory-signed.cg"
    # two lines changed, each from a memory of 0
    n=$(diff "$TMP/xd/memory.cg" "$TMP/xd/memory-signed.cg" | grep -c -- "^> .* $delta\$")
    z=$(diff "$TMP/xd/memory.cg" "$TMP/xd/memory-signed.cg" | grep -c '^< [0-9]* [0-9]* 0$')
    case $delta in -*) [ "$z" = 2 ] || n=0 ;; *) n=0 ;; esac
    if [ "$n" = 2 ]; then
        ok "xdebug3 memory.php: release() frees $delta bytes, which Xdebug 3.2 writes as 0"
        check_file "xdebug3 memory.php, negative delta as Xdebug 3.1 wrote it" "$TMP/xd/memory-signed.cg"
    else
        not_ok "xdebug3 memory.php: release()'s negative delta ($delta) put in its 2 lines ($n)"
    fi

    # in place: run in the scripts' folder, tally's rows are those of the
    # oracle elsewhere (names relative to the folder); the oracle's are not
    prefix="$TMP/php/"
    callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$TMP/xd/includes.cg" 2>/dev/null |
        perl "$ROOT/tests/peer/annotate_rows.pl" rows "$TMP/php" | sed "s|^$prefix||" >"$TMP/o.rows"
    (cd "$TMP/php" && callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$TMP/xd/includes.cg" 2>/dev/null) |
        perl "$ROOT/tests/peer/annotate_rows.pl" rows /nowhere >"$TMP/o.here"
    (cd "$TMP/php" && "$TALLY" annotate --inclusive=yes --threshold=100 --auto=no "$TMP/xd/includes.cg" 2>/dev/null) |
        perl "$ROOT/tests/peer/annotate_rows.pl" rows /nowhere >"$TMP/t.here"
    long=$(grep -c "^$prefix" "$TMP/o.here")
    if [ "$long" -gt 0 ] && ! grep -q "^$prefix" "$TMP/t.here" &&
        [ "$(sort "$TMP/t.here")" = "$(sort "$TMP/o.rows")" ]; then
        ok "xdebug3 includes.php in place: the folder stripped from every name ($long long rows in the oracle's)"
    else
        not_ok "xdebug3 includes.php in place: the folder stripped from every name"
        diff "$TMP/o.rows" "$TMP/t.here" | head -n 20 | diag
    fi
fi

# ---------------------------------------------------------------------------
# go tool pprof -callgrind: CPU and heap profiles of a small Go program.
if ! command -v go >/dev/null; then
    ok "# SKIP pprof -callgrind: go is not installed"
else
    export GOCACHE="$TMP/go-cache" GOPATH="$TMP/go-path" GO111MODULE=off GOPROXY=off GOFLAGS= \
        PPROF_TMPDIR="$TMP/pprof"
    mkdir -p "$TMP/go"
    if ! (cd "$TMP/go" && go build -o prog "$DATA/pprof/main.go" && ./prog cpu.prof heap.prof) \
        >"$TMP/go.log" 2>&1 ||
        ! (cd "$TMP/go" && go tool pprof -symbolize=none -callgrind -output=cpu.cg prog cpu.prof &&
            go tool pprof -symbolize=none -callgrind -sample_index=alloc_space -output=heap.cg prog heap.prof &&
            go tool pprof -symbolize=none -top -nodecount=1000 -unit=ms prog cpu.prof >cpu.top) \
            >>"$TMP/go.log" 2>&1; then
        not_ok "build, run and convert tests/data/producers/pprof/main.go"
        diag <"$TMP/go.log"
    else
        for p in cpu heap; do
            check_file "pprof -callgrind $p" "$TMP/go/$p.cg" 's/^calls=0 /calls=1 /'
        done
        # the oracle's premise: on the file as it is, calls=0 costs go into the callers
        o=$(oracle --auto=no "$TMP/go/cpu.cg" | totals_of /dev/stdin)
        t=$(tally_in --auto=no "$TMP/go/cpu.cg" | totals_of /dev/stdin)
        if [ "$o" -gt "$t" ]; then
            ok "pprof -callgrind cpu: callgrind_annotate's total of the file as it is, $o, counts calls=0 costs again (tally: $t)"
        else
            not_ok "pprof -callgrind cpu: callgrind_annotate's total $o, tally's $t"
        fi
        # pprof itself: its total, flat (self) and cum (inclusive) times per function
        awk '/^ *[0-9.]+ms / || /^ *0 / { f = $1; c = $4; sub(/ms$/, "", f); sub(/ms$/, "", c);
                                          name = $6; for (i = 7; i <= NF; i++) if ($i != "(inline)") name = name " " $i
                                          print name "\t" f "\t" c }' "$TMP/go/cpu.top" | sort >"$TMP/pprof.fc"
        total=$(sed -n 's/.*Total samples = \([0-9.]*\)ms.*/\1/p' "$TMP/go/cpu.top")
        tally_in --threshold=100 --auto=no "$TMP/go/cpu.cg" | rows rows |
            awk -F'\t' '{ n = $1; sub(/.*:/, "", n); v = $2 == "." ? 0 : $2; s[n] += v } END { for (n in s) print n "\t" s[n] }' |
            sort >"$TMP/t.flat"
        tally_in --inclusive=yes --threshold=100 --auto=no "$TMP/go/cpu.cg" | rows rows |
            awk -F'\t' '{ n = $1; sub(/.*:/, "", n); print n "\t" ($2 == "." ? 0 : $2) }' | sort >"$TMP/t.cum"
        cut -f1,2 "$TMP/pprof.fc" | awk -F'\t' '$2 != 0' >"$TMP/p.flat"
        awk -F'\t' '$2 != 0' "$TMP/t.flat" >"$TMP/t.flat2"
        tot=$(tally_in --auto=no "$TMP/go/cpu.cg" | totals_of /dev/stdin)
        if [ -n "$total" ] && [ "$tot" = "$total" ]; then ok "pprof -callgrind cpu: total $tot ms, pprof's"; else
            not_ok "pprof -callgrind cpu: total $tot ms, pprof's $total"; fi
        same_text "pprof -callgrind cpu: self time per function, pprof's flat" "$TMP/p.flat" "$TMP/t.flat2"
        # cum: every function pprof lists, outside recursion (fib calls itself)
        cut -f1,3 "$TMP/pprof.fc" | grep -v '^main\.fib	' >"$TMP/p.cum"
        join -t "$(printf '\t')" "$TMP/p.cum" "$TMP/t.cum" >"$TMP/both.cum"
        bad=$(awk -F'\t' '$2 != $3' "$TMP/both.cum")
        n=$(wc -l <"$TMP/both.cum")
        if [ -z "$bad" ] && [ "$n" = "$(wc -l <"$TMP/p.cum")" ] && [ "$n" -gt 2 ]; then
            ok "pprof -callgrind cpu: inclusive time of $n functions, pprof's cum"
        else
            not_ok "pprof -callgrind cpu: inclusive time, pprof's cum"
            { echo "$bad"; cat "$TMP/p.cum"; } | diag
        fi
    fi
fi

# ---------------------------------------------------------------------------
# pyprof2calltree: Python's cProfile, converted to the old (calltree) format.
if ! command -v pyprof2calltree >/dev/null || ! command -v python3 >/dev/null; then
    ok "# SKIP pyprof2calltree: not installed"
else
    mkdir -p "$TMP/py"
    cp "$DATA/python/work.py" "$TMP/py/"
    if (cd "$TMP/py" && python3 -m cProfile -o work.prof work.py &&
        pyprof2calltree -i work.prof -o work.cg) >"$TMP/py.log" 2>&1; then
        check_file "pyprof2calltree work.py" "$TMP/py/work.cg"
    else
        not_ok "profile tests/data/producers/python/work.py with cProfile and pyprof2calltree"
        diag <"$TMP/py.log"
    fi
fi
