# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the shell tests (sourced). Output is TAP-like:
# "ok N - name" or "not ok N - name" plus diagnostics prefixed by "# ".
# TALLY is the binary under test (set by tests/run.sh, else build/tally).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TALLY=${TALLY:-$ROOT/build/tally}
# The Valgrind the peer tests run tally's tool against: Debian's, or the
# install VALGRIND_PREFIX names, with tally's tool built against it in
# TALLY_TOOL_LIB (make check-valgrind). PEER_PATH is the PATH of their
# `env -i` runs: that Valgrind's bin first.
VG_LIBEXEC=${VALGRIND_PREFIX:+$VALGRIND_PREFIX/libexec/valgrind}
VG_LIBEXEC=${VG_LIBEXEC:-/usr/libexec/valgrind}
TOOL_LIB=${TALLY_TOOL_LIB:-$ROOT/build/valgrind/lib}
PEER_PATH=${VALGRIND_PREFIX:+$VALGRIND_PREFIX/bin:}/usr/bin:/bin
# (a plain `tally record` of a test then finds that tool too)
[ -n "${TALLY_TOOL_LIB:-}" ] && export TALLY_VALGRIND_LIB="$TALLY_TOOL_LIB"
TESTN=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { TESTN=$((TESTN + 1)); echo "ok $TESTN - $1"; }
not_ok() { TESTN=$((TESTN + 1)); echo "not ok $TESTN - $1"; }
diag() { sed 's/^/# /'; }

# check NAME COMMAND... : ok when the command succeeds
check() {
    name=$1; shift
    if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name"; diag <"$TMP/check.out"; fi
}

# same_text NAME EXPECTED ACTUAL : ok when both files are identical
same_text() {
    if diff -u "$2" "$3" >"$TMP/diff.out" 2>&1; then ok "$1"; else
        not_ok "$1"; head -n 80 "$TMP/diff.out" | diag; fi
}

# run_tally WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS...
# Runs "$TALLY ARGS" (in $RUN_DIR when set) with no standard input, keeping
# its output in $TMP/out and $TMP/err. An empty pattern means that stream
# must be empty; patterns are extended regexes. Sets $why: empty when the
# exit code and both streams are as wanted, else what differed.
run_tally() {
    want=$1 outpat=$2 errpat=$3
    shift 3
    (cd "${RUN_DIR:-.}" && "$TALLY" "$@") >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    why=""
    [ "$rc" = "$want" ] || why="exit code $rc, expected $want"
    if [ -z "$outpat" ]; then
        [ -s "$TMP/out" ] && why="$why; unexpected stdout"
    else
        grep -Eq -- "$outpat" "$TMP/out" || why="$why; stdout lacks /$outpat/"
    fi
    if [ -z "$errpat" ]; then
        [ -s "$TMP/err" ] && why="$why; unexpected stderr"
    else
        grep -Eq -- "$errpat" "$TMP/err" || why="$why; stderr lacks /$errpat/"
    fi
}

# expect_run NAME WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS...
# run_tally, then one TAP line; on failure the streams are shown.
expect_run() {
    name=$1
    shift
    run_tally "$@"
    if [ -z "$why" ]; then ok "$name"; else
        not_ok "$name"
        { echo "$why"; echo "stdout:"; head -n 20 "$TMP/out"; echo "stderr:"; head -n 20 "$TMP/err"; } | diag
    fi
}

# callgrind_ids_check FILE : prints one line per compressed function id that
# names two functions in FILE (a callgrind file), nothing when every id names
# one. A function is (object, file, name), as Callgrind and KCachegrind take
# it: fn=(N) in the context of the current ob=/fl=, cfn=(N) in that of
# cob=/cfi= (else the current object and source file). Ids start afresh
# with every part (at its `events:` line); a reference to an id defined in
# an earlier part is checked against its first use in this one. jfn=(N) is
# checked by name only (a jump target's file is not always written).
callgrind_ids_check() {
    awk -v list="${CG_LIST:-0}" '
    function nm(kind, v,   id, rest) {
        if (v ~ /^\([0-9]+\)/) {
            id = v; sub(/\).*/, "", id); id = substr(id, 2)
            rest = v; sub(/^\([0-9]+\) ?/, "", rest)
            if (rest != "") {
                if ((kind SUBSEP id) in def && def[kind, id] != rest)
                    printf "line %d: %s id (%s) defined twice: \"%s\" and \"%s\"\n", NR, kind, id, def[kind, id], rest
                def[kind, id] = rest
                return rest
            }
            return ((kind SUBSEP id) in def) ? def[kind, id] : "(" id ")"
        }
        return v
    }
    function fnid(v,   id) {
        if (v !~ /^\([0-9]+\)/) return ""
        id = v; sub(/\).*/, "", id); return substr(id, 2)
    }
    function use(id, name, ctx, what) {
        if (id == "") return
        if (id in fctx) {
            if (fctx[id] != ctx)
                printf "line %d: fn id (%s) \"%s\" names two functions: %s and %s (%s)\n", NR, id, name, fctx[id], ctx, what
        } else fctx[id] = ctx
    }
    /^events:/ { delete def; delete fctx; ob = fl = src = ""; cob = cfi = ""; hcob = hcfi = 0; next }
    /^ob=/ { ob = nm("ob", substr($0, 4)); next }
    /^fl=/ { fl = src = nm("fl", substr($0, 4)); next }
    /^f[ie]=/ { src = nm("fl", substr($0, 4)); next }
    /^cob=/ { cob = nm("ob", substr($0, 5)); hcob = 1; next }
    /^cfi=/ || /^cfl=/ { cfi = nm("fl", substr($0, 5)); hcfi = 1; next }
    /^jfi=/ { nm("fl", substr($0, 5)); next }
    /^fn=/ {
        v = substr($0, 4); n = nm("fn", v); src = fl
        use(fnid(v), n, ob " | " fl " | " n, "fn=")
        if (list) funcs[ob " | " fl " | " n] = 1
        next
    }
    /^cfn=/ {
        v = substr($0, 5); n = nm("fn", v)
        use(fnid(v), n, (hcob ? cob : ob) " | " (hcfi ? cfi : src) " | " n, "cfn=")
        next
    }
    /^jfn=/ { nm("fn", substr($0, 5)); next }
    /^calls=/ { hcob = hcfi = 0; next }
    END { if (list) for (f in funcs) print f }
    ' "$1"
}

# callgrind_functions FILE : the functions of FILE with cost lines or calls
# (fn= lines), one "object | file | name" a line, sorted, each once. Reads
# and writes of one profile must keep this list.
callgrind_functions() {
    CG_LIST=1 callgrind_ids_check "$1" | grep -v '^line [0-9]*: ' | LC_ALL=C sort -u
}

# callgrind_annotate_check FILE : prints what is wrong when callgrind_annotate
# reads FILE (a callgrind file): any warning or error, or a PROGRAM TOTALS
# event that differs from the sum of the function rows (all rows:
# --threshold=100). Prints nothing when all is well. Two differences are
# not tally's and are let through:
#  - a file whose creator: is not tally (a conversion of Callgrind's file)
#    whose summary: line differs from its totals: line, with rows that sum
#    to totals: (Callgrind's --cache-sim files count 2 Ir in summary: that
#    no cost line has; tally keeps both lines as they were);
#  - with CGA_CALLS0_OK=1 (the file comes from a contexts file, whose
#    contexts entered by a jump are arcs of 0 calls): the cost of a
#    `calls=0` arc, which callgrind_annotate 3.19 adds to the caller's self
#    cost (docs/internals/callgrind.md);
#  - the cache-use events of --cacheuse=yes (AcCost1 SpLoss1 AcCost2
#    SpLoss2), 0 in summary: as Callgrind writes them (never in its running
#    cost), whose rows must sum to totals:.
callgrind_annotate_check() {
    awk -v calls0ok="${CGA_CALLS0_OK:-0}" '
    function vec(line, a,   n, i) { n = split(line, a, " "); return n }
    /^events:/ { for (i = 2; i <= NF; i++) evn[i - 1] = $i }
    /^creator:/ { foreign = ($2 !~ /^tally/) }
    /^positions:/ { npos = NF - 1 }
    /^summary:/ { sub(/^summary: */, ""); summ = $0 }
    /^totals:/ { sub(/^totals: */, ""); tots = $0 }
    z { for (i = (npos ? npos : 1) + 1; i <= NF; i++) zs[i - (npos ? npos : 1)] += $i; z = 0; next }
    /^calls=0 / { z = 1 }
    END {
        n = vec(tots, t)
        if (foreign && summ != "" && summ != tots)
            for (i = 1; i <= n; i++) alt[i] = t[i]
        if (calls0ok)
            for (i = 1; i <= n; i++) alt[i] = t[i] + zs[i]
        for (i = 1; i <= n; i++)
            if (evn[i] ~ /^(AcCost|SpLoss)[12]$/) alt[i] = t[i] + (calls0ok ? zs[i] : 0)
        for (i = 1; i <= 64; i++) if (i in alt) printf "%d %d\n", i, alt[i]
    }' "$1" >"$TMP/cga.alt"
    if ! callgrind_annotate --threshold=100 --auto=no --inclusive=no "$1" \
            >"$TMP/cga.out" 2>"$TMP/cga.err"; then
        echo "callgrind_annotate failed:"
        head -n 5 "$TMP/cga.err"
        return
    fi
    if [ -s "$TMP/cga.err" ]; then
        echo "callgrind_annotate warned ($(wc -l <"$TMP/cga.err") lines):"
        head -n 5 "$TMP/cga.err"
    fi
    awk '
    # the numbers at the start of a row: "1,234 (5.6%)" or "." per event
    function nums(line, arr,   n, w) {
        n = 0
        while (1) {
            sub(/^ +/, "", line)
            if (line ~ /^-?[0-9,]+/) {
                w = line; sub(/[^-0-9,].*/, "", w); gsub(/,/, "", w)
                arr[++n] = w + 0
                sub(/^-?[0-9,]+/, "", line)
                sub(/^ *\([^)]*\)/, "", line)
            } else if (line ~ /^\. /) {
                arr[++n] = 0; line = substr(line, 2)
            } else break
        }
        rest = line
        return n
    }
    FILENAME ~ /cga\.alt$/ { alt[$1] = $2; next }
    / PROGRAM TOTALS( \(calculated\))?$/ { nt = nums($0, tot); next }
    /file:function$/ { rows = 1; getline; next }
    rows && /^-----/ { rows = 0; next }
    rows && NF {
        k = nums($0, r)
        if (k == 0) { printf "row without numbers: %s\n", $0; next }
        for (i = 1; i <= k; i++) sum[i] += r[i]
        nrows++
    }
    END {
        if (!nt) { print "no PROGRAM TOTALS line"; exit }
        for (i = 1; i <= nt; i++)
            if (sum[i] != tot[i] && !((i in alt) && sum[i] == alt[i]))
                printf "event %d: PROGRAM TOTALS %d, rows sum to %d (%d rows)\n", i, tot[i], sum[i], nrows
    }' "$TMP/cga.alt" "$TMP/cga.out"
}

# check_callgrind_file NAME FILE : one TAP line: FILE (written by tally) has
# no fn id naming two functions and callgrind_annotate reads it cleanly with
# PROGRAM TOTALS equal to the sum of its rows. Without callgrind_annotate
# only the ids are checked (and the line says so).
check_callgrind_file() {
    { callgrind_ids_check "$2"
      command -v callgrind_annotate >/dev/null 2>&1 && callgrind_annotate_check "$2"
    } >"$TMP/ccf.out" 2>&1
    cga=""
    command -v callgrind_annotate >/dev/null 2>&1 || cga=" (no callgrind_annotate: ids only)"
    if [ -s "$TMP/ccf.out" ]; then
        not_ok "$1: fn ids unique, callgrind_annotate clean$cga"
        head -n 20 "$TMP/ccf.out" | diag
    else
        ok "$1: fn ids unique, callgrind_annotate clean$cga"
    fi
}

# track_written : from here on, $TALLY is a wrapper that keeps a copy of
# every callgrind (or cachegrind: diff, merge) file tally writes with -o/--output FILE,
# --callgrind-out=FILE or to a standard output redirected to a file (in
# $WRITTEN, beside $TMP); check_written then checks them
# all (check_callgrind_file) in one TAP line. Files over 50 MB are left out
# (callgrind_annotate would take long).
WRITTEN=$TMP.written
track_written() {
    mkdir -p "$WRITTEN"
    trap 'rm -rf "$TMP" "$WRITTEN"' EXIT
    cat >"$WRITTEN/tally" <<WRAP
#!/bin/sh
"$TALLY" "\$@"
rc=\$?
out=""
prev=""
for a in "\$@"; do
    case \$prev in -o | --output) out=\$a ;; esac
    case \$a in --output=* | --callgrind-out=*) out=\${a#*=} ;; esac
    prev=\$a
done
if [ -z "\$out" ]; then
    # standard output redirected to a file (read back, never redirected here)
    o=\$(readlink /proc/\$\$/fd/1 2>/dev/null)
    case \$o in /*) out=\$o ;; esac
fi
if [ "\$rc" = 0 ] && [ -n "\$out" ] && [ -f "\$out" ] &&
        { [ "\$(head -c 18 "\$out")" = "# callgrind format" ] ||
          { [ "\$(head -c 16 "\$out")" != "# tally contexts" ] &&
            head -n 30 "\$out" | grep -q '^events:'; }; } &&
        [ "\$(wc -c <"\$out")" -lt 50000000 ]; then
    n=\$(ls "$WRITTEN" | wc -l)
    cp "\$out" "$WRITTEN/\$n.cg"
    # from a contexts file: arcs of 0 calls (see callgrind_annotate_check)
    kind=-
    for a in "\$@"; do
        [ -f "\$a" ] && [ "\$(head -c 16 "\$a")" = "# tally contexts" ] && kind=ctx
    done
    echo "\$n.cg \$kind tally \$*" >>"$WRITTEN/list"
fi
exit \$rc
WRAP
    chmod +x "$WRITTEN/tally"
    TALLY_REAL=$TALLY
    TALLY=$WRITTEN/tally
}

# check_written : one TAP line for the callgrind files that tally wrote
# since track_written (identical copies checked once).
check_written() {
    TALLY=${TALLY_REAL:-$TALLY}
    : >"$WRITTEN/check.bad"
    n=0
    if [ -f "$WRITTEN/list" ]; then
        while read -r f kind cmd; do
            sum=$(cksum <"$WRITTEN/$f")
            grep -qxF "$sum" "$WRITTEN/check.sums" 2>/dev/null && continue
            echo "$sum" >>"$WRITTEN/check.sums"
            { callgrind_ids_check "$WRITTEN/$f"
              if command -v callgrind_annotate >/dev/null 2>&1; then
                  ok0=0
                  [ "$kind" = ctx ] && ok0=1
                  CGA_CALLS0_OK=$ok0 callgrind_annotate_check "$WRITTEN/$f"
              fi
            } >"$WRITTEN/check.one" 2>&1
            if [ -s "$WRITTEN/check.one" ]; then
                echo "$cmd"
                head -n 8 "$WRITTEN/check.one" | sed 's/^/    /'
            fi
        done <"$WRITTEN/list" >"$WRITTEN/check.bad"
        [ -f "$WRITTEN/check.sums" ] && n=$(wc -l <"$WRITTEN/check.sums")
    fi
    cga=""
    command -v callgrind_annotate >/dev/null 2>&1 || cga=" (no callgrind_annotate: ids only)"
    if [ "$n" = 0 ]; then
        not_ok "check_written: no callgrind file written by tally was kept"
    elif [ -s "$WRITTEN/check.bad" ]; then
        not_ok "$n callgrind or cachegrind files written by tally: fn ids unique, callgrind_annotate clean$cga"
        head -n 60 "$WRITTEN/check.bad" | diag
    else
        ok "$n callgrind or cachegrind files written by tally: fn ids unique, callgrind_annotate clean$cga"
    fi
}

# peer_valgrind_lib DIR TOOL... : a VALGRIND_LIB folder DIR holding tally's
# Valgrind tool and Valgrind's own TOOLs (callgrind, cachegrind), so that
# both run in one identical environment (the client sees the same
# environment strings; start-up counts depend on them).
peer_valgrind_lib() {
    d=$1
    shift
    mkdir -p "$d"
    for f in "$TOOL_LIB"/*; do ln -s "$f" "$d/"; done
    for t in "$@"; do ln -s "$VG_LIBEXEC/$t-amd64-linux" "$d/"; done
}

# peer_build OUT SRC : SRC compiled with gcc -O1 -g into $TMP/OUT, or a
# failing TAP line with the compiler's message and the end of the test.
peer_build() {
    if ! gcc -O1 -g -o "$TMP/$1" "$2" 2>"$TMP/cc.err"; then
        not_ok "${2##*/} builds"
        diag <"$TMP/cc.err"
        exit 1
    fi
}

# peer_start [PROGRAM...]: how a test against Valgrind's tools begins.
# Without valgrind (or one of the PROGRAMs, e.g. callgrind_annotate) the
# test is skipped; without tally's Valgrind tool built it fails.
peer_start() {
    for p in valgrind "$@"; do
        if ! command -v "$p" >/dev/null 2>&1; then
            echo "# $p not installed"
            ok "skipped: no $p"
            exit 0
        fi
    done
    if [ ! -x "$TOOL_LIB/tally-amd64-linux" ]; then
        not_ok "tally's Valgrind tool is built ($TOOL_LIB/tally-amd64-linux)"
        exit 1
    fi
}

# same_gmon A B : identical, except bytes 9..20 (the header's spare bytes)
same_gmon() { cmp -s -n 8 "$1" "$2" && cmp -s -i 20 "$1" "$2"; }

# same_written G T [SKIP...]: the files GNU gprof wrote into G and tally
# gprof into T (gmon.sum by same_gmon) are the same; what differs is added
# to $why. SKIP names files left out (inputs the tools found there).
same_written() {
    g=$1 t=$2
    shift 2
    for f in "$g"/* "$t"/*; do
        [ -e "$f" ] || continue
        b=${f##*/}
        case " $* " in *" $b "*) continue ;; esac
        other=$t/$b
        [ "$f" = "$other" ] && other=$g/$b
        if [ ! -e "$other" ]; then
            why="$why; only one tool wrote $b"
        elif [ "$b" = gmon.sum ]; then
            same_gmon "$f" "$other" || why="$why; gmon.sum differs"
        else
            cmp -s "$f" "$other" || why="$why; $b differs"
        fi
    done
}

# The browser tests (tests/browser/) drive Chromium through Selenium, which
# Debian installs for its own python: BROWSER_PY runs their python files
# (a python3 earlier on PATH, such as pyenv's, lacks the module).
BROWSER_PY=/usr/bin/python3
# browser_missing: prints what a browser test lacks and fails, or succeeds
# printing nothing when chromium, /usr/bin/chromedriver and the selenium
# module of $BROWSER_PY are all there (sh scripts/install-deps.sh).
browser_missing() {
    if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
        echo "chromium"
        return 1
    fi
    if [ ! -x /usr/bin/chromedriver ]; then
        echo "/usr/bin/chromedriver (chromium-driver)"
        return 1
    fi
    if ! "$BROWSER_PY" -c 'import selenium.webdriver' >/dev/null 2>&1; then
        echo "the selenium module of $BROWSER_PY (python3-selenium)"
        return 1
    fi
    return 0
}
