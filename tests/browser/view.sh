#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally view in a real browser: the server (`tally view --no-browser
# --port=0`) answers the page, and Debian's headless Chromium, driven by
# Selenium (tests/browser/view_test.py), walks every view of it. Expected
# values come from `tally convert --to=json --lines` of the same profile
# (and, for the call sites of the hand-written profile, from its own
# lines): table rows and shares, callers and callees, a click in the call
# graph, the source lines' costs, back/forward, a copied address in a new
# window, no console errors. Screenshots of every view at 1400x900 and
# 1024x700 go to build/test-logs/view-*.png. The profiles: a small one
# written here (its source file beside it), the same with a second part
# (the parts selector) and against that part as a base (--base), isort
# with its aprof report (the complexity pane), a C++ program, Debian's
# sqlite3 and gcc's cc1 under Callgrind when valgrind, g++ and sqlite3 are
# installed, a threaded program under tally record, and 114,000 functions
# (virtual scrolling). The pages tally report writes of the small profile and of the
# C++ program go through the same checks from file:// (VIEW_REPORT=1), and
# must say what they left out where it is asked for (report-*.png).
# Selenium through tests/browser/browser.py, with Debian's /usr/bin/python3
# ($BROWSER_PY). Without chromium, chromedriver or python3-selenium the test
# says SKIP loudly (sh scripts/install-deps.sh).
. "$(dirname "$0")/../lib.sh"

# the generated headers are up to date (no browser needed)
if command -v clang-format >/dev/null 2>&1; then
    v=$ROOT/src/view
    if sh "$ROOT/assets/embed.sh" --stdout-view >"$TMP/assets.h" &&
            cat "$v/view_assets.h" "$v/view.js.inc" "$v/view_table.js.inc" "$v/view_panes.js.inc" \
                "$v/view_flame.js.inc" "$v/view_maps.js.inc" | cmp -s - "$TMP/assets.h"; then
        ok "src/view/view_assets.h and view*.js.inc match assets/view* (sh assets/embed.sh)"
    else not_ok "src/view/view_assets.h and view*.js.inc match assets/view* (sh assets/embed.sh)"; fi
fi

if ! missing=$(browser_missing); then
    echo "# SKIP SKIP SKIP: $missing is not installed; the browser test of tally view did not run" >&2
    ok "tally view in Chromium # SKIP $missing not installed"
    exit 0
fi
PY=$BROWSER_PY
SHOTS=$ROOT/build/test-logs
mkdir -p "$SHOTS"

# start_view NAME FILE...: tally view on FILE in the background; sets $URL
# and $VIEW_PID (empty when the server did not start: a failing line says why)
start_view() {
    name=$1
    shift
    "$TALLY" view --no-browser --port=0 "$@" >"$TMP/view-$name.out" 2>"$TMP/view-$name.err" </dev/null &
    VIEW_PID=$!
    URL=""
    i=0
    while [ $i -lt 300 ]; do
        [ -f "$TMP/view-$name.err" ] &&
            URL=$(sed -n 's/^tally: view at \(http:[^ ]*\).*/\1/p' "$TMP/view-$name.err" | head -n 1)
        [ -n "$URL" ] && break
        kill -0 "$VIEW_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    if [ -n "$URL" ]; then
        ok "tally view $name: the server prints its address ($URL)"
    else
        not_ok "tally view $name: the server prints 'tally: view at http://127.0.0.1:PORT/?t=TOKEN'"
        { echo "stderr:"; head -n 20 "$TMP/view-$name.err"; } | diag
        kill "$VIEW_PID" 2>/dev/null
        VIEW_PID=""
    fi
}
stop_view() {
    if [ -n "$VIEW_PID" ]; then
        kill "$VIEW_PID" 2>/dev/null
        wait "$VIEW_PID" 2>/dev/null
    fi
    VIEW_PID=""
}
trap 'stop_view; rm -rf "$TMP"' EXIT

# relay STATUS NAME: view_test.py's lines ("ok - x" / "not ok - x") in
# $TMP/py.out numbered as this test's, and its end when it failed silently
relay() {
    while IFS= read -r line; do
        case $line in
        "ok - "*) ok "${line#ok - }" ;;
        "not ok - "*) not_ok "${line#not ok - }" ;;
        *) echo "$line" ;;
        esac
    done <"$TMP/py.out"
    if [ "$1" != 0 ] && ! grep -q '^not ok' "$TMP/py.out"; then
        not_ok "$2: view_test.py ended with status $1"
        tail -n 30 "$TMP/py.err" | diag
    fi
}

# run_view NAME MODE PROFILE [OPTION...]: the browser checks of MODE against
# the server of PROFILE, started with the OPTIONs (its TAP lines are this test's)
run_view() {
    name=$1 mode=$2 prof=$3
    shift 3
    if ! "$TALLY" convert --to=json --lines -o "$TMP/$name.json" "$prof" 2>"$TMP/conv.err"; then
        not_ok "tally convert --to=json of the $name profile"
        diag <"$TMP/conv.err"
        return
    fi
    start_view "$name" "$@" "$prof"
    [ -n "$URL" ] || return
    "$PY" "$ROOT/tests/browser/view_test.py" "$mode" "$URL" "$TMP/$name.json" "$prof" \
        "$SHOTS/view-$name" >"$TMP/py.out" 2>"$TMP/py.err"
    relay $? "$name"
    if ! kill -0 "$VIEW_PID" 2>/dev/null; then
        not_ok "$name: the server still runs after the browser checks"
        tail -n 10 "$TMP/view-$name.err" | diag
    fi
    stop_view
}

# run_report NAME MODE PROFILE [OPTION...]: the same browser checks on the page
# tally report writes with the OPTIONs (file://, no server)
run_report() {
    name=$1 mode=$2 prof=$3
    shift 3
    if ! "$TALLY" convert --to=json --lines -o "$TMP/$name.json" "$prof" 2>"$TMP/conv.err" ||
            ! "$TALLY" report -o "$TMP/report-$name.html" "$@" "$prof" 2>"$TMP/rep.err"; then
        not_ok "tally convert --to=json and tally report of the $name profile"
        diag <"$TMP/conv.err"
        diag <"$TMP/rep.err"
        return
    fi
    VIEW_REPORT=1 "$PY" "$ROOT/tests/browser/view_test.py" "$mode" "file://$TMP/report-$name.html" \
        "$TMP/$name.json" "$prof" "$SHOTS/report-$name" >"$TMP/py.out" 2>"$TMP/py.err"
    relay $? "report of $name"
}

# the small profile: a source file found through its absolute path, two
# events, calls on known lines, recursion, names that are not markup
cat >"$TMP/src.c" <<'EOF'
int helper(int x)
{
    return x * 2;
}

int rec(int n)
{
    return n ? rec(n - 1) + helper(n) : 0;
}

int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s + rec(2);
}

int main(void)
{
    return work(4) + helper(1);
}
EOF
cat >"$TMP/small.out" <<EOF
# callgrind format
version: 1
cmd: ./small 4
events: Ir Dr
fl=$TMP/src.c
fn=main
20 10 1
21 4 0
cfn=work
calls=1 11
21 108 12
cfn=helper
calls=1 1
21 6 0
fn=work
13 20 2
14 30 3
cfn=helper
calls=4 1
15 30 3
cfn=rec
calls=1 6
16 24 3
16 4 1
fn=rec
8 12 2
cfn=rec
calls=2 6
8 16 2
cfn=helper
calls=2 1
8 12 1
fn=helper
3 48 4
fn=std::vector<int, std::allocator<int> >::push_back(int const&)
1 1 0
fn=evil</script><b>x</b>
1 1 0
EOF
run_view small small "$TMP/small.out" --editor='vscode://file/{path}:{line}'
run_report small small "$TMP/small.out" --editor='vscode://file/{path}:{line}' --max-graphs=2

# two parts in one file: the second is the small profile with main's own
# line costing more; the part selector must show each part alone (its
# expected values: the JSON of that part as a file of its own)
sed -e '/^# callgrind format/d' -e '/^version:/d' -e 's/^cmd: .*/part: 2/' \
    -e 's/^20 10 1$/20 90 9/' "$TMP/small.out" >"$TMP/part2.body"
{ sed 's/^cmd: .*/&\npart: 1/' "$TMP/small.out"; cat "$TMP/part2.body"; } >"$TMP/parts.out"
{ printf '# callgrind format\nversion: 1\ncmd: ./small 4\n'; sed '/^part:/d' "$TMP/part2.body"; } >"$TMP/part2.out"
if "$TALLY" convert --to=json --lines -o "$TMP/part2.json" "$TMP/part2.out" 2>"$TMP/conv.err"; then
    export VIEW_PART_JSON="$TMP/part2.json"
    run_view parts parts "$TMP/parts.out"
    # a comparison: the small profile against that second part as its base
    run_view base base "$TMP/small.out" --base="$TMP/part2.out"
else
    not_ok "tally convert --to=json of the second part"
    diag <"$TMP/conv.err"
fi

# a profile and the aprof report of its run (tally record --input-sensitive):
# the complexity pane against tally complexity --format=json of the report
IS=$ROOT/examples/complexity/isort
if [ -x "$IS" ] && [ -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] && command -v valgrind >/dev/null 2>&1; then
    if (cd "$TMP" && env -i PATH="$PATH" "$ROOT/build/tally" record --input-sensitive=yes \
            --aprof-out-file="$TMP/is.aprof" --out-file="$TMP/is.out" -- "$IS" >"$TMP/rec.log" 2>&1) &&
            "$TALLY" complexity --format=json --min-share=0 --min-points=1 -o "$TMP/isc.json" "$TMP/is.aprof" \
                2>"$TMP/cx.err"; then
        export VIEW_COMPLEXITY_JSON="$TMP/isc.json"
        run_view complexity complexity "$TMP/is.out" "$TMP/is.aprof"
    else
        not_ok "tally record --input-sensitive of isort, and tally complexity of its report"
        tail -n 5 "$TMP/rec.log" "$TMP/cx.err" | diag
    fi
else
    ok "the complexity pane # SKIP no examples/complexity/isort (make examples) or no Valgrind tool"
fi

# a C++ program under Callgrind: templates, argument lists, libraries
if command -v valgrind >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then
    cat >"$TMP/prog.cpp" <<'EOF'
#include <cstdio>
#include <map>
#include <string>
template <typename K, typename V> static V total(const std::map<K, V> &m)
{
    V s = 0;
    for (auto &kv : m)
        s += kv.second;
    return s;
}
static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main()
{
    std::map<std::string, long> m;
    for (int i = 0; i < 2000; i++)
        m[std::to_string(i)] = i;
    std::printf("%ld\n", total(m) + fib(18));
    return 0;
}
EOF
    if g++ -O1 -g -o "$TMP/prog" "$TMP/prog.cpp" 2>"$TMP/gxx.err" &&
            valgrind --tool=callgrind --callgrind-out-file="$TMP/cpp.out" "$TMP/prog" \
                >"$TMP/vg.out" 2>"$TMP/vg.err"; then
        run_view cpp real "$TMP/cpp.out"
        run_report cpp real "$TMP/cpp.out"
    else
        not_ok "a C++ program built and run under Callgrind"
        tail -n 5 "$TMP/gxx.err" "$TMP/vg.err" | diag
    fi
else
    ok "a C++ program under Callgrind # SKIP no valgrind or g++"
fi

# view_real NAME FN PROG ARG...: PROG (a real program nobody here wrote) run
# under Callgrind in $TMP, then the browser checks of a real program on its
# profile, FN the function they search and follow
view_real() {
    name=$1 fn=$2
    shift 2
    if (cd "$TMP" && valgrind --tool=callgrind --callgrind-out-file="$TMP/$name.out" "$@" \
            >"$TMP/vg.out" 2>"$TMP/vg.err"); then
        export VIEW_REAL_LABEL=$name VIEW_REAL_FN=$fn
        run_view "$name" real "$TMP/$name.out"
        unset VIEW_REAL_LABEL VIEW_REAL_FN
    else
        not_ok "$name under Callgrind"
        tail -n 5 "$TMP/vg.err" | diag
    fi
}

# sqlite3 (Debian's, stripped) under Callgrind
if command -v valgrind >/dev/null 2>&1 && command -v sqlite3 >/dev/null 2>&1; then
    view_real sqlite3 sqlite3_exec sqlite3 :memory: \
        'create table t(a, b); with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) insert into t select x, x * x from c; select count(*), sum(b) from t where a % 7 = 3;'
else
    ok "sqlite3 under Callgrind # SKIP no valgrind or sqlite3"
fi

# gcc's cc1 (Debian's) under Callgrind compiling a small file: a big C++
# program with thousands of functions
CC1=$(gcc -print-prog-name=cc1 2>/dev/null)
if command -v valgrind >/dev/null 2>&1 && [ -x "$CC1" ]; then
    printf 'static int sq(int x) { return x * x; }\nint f(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }\n' \
        >"$TMP/cc1in.c"
    view_real cc1 main "$CC1" -quiet -O2 cc1in.c -o cc1in.s
else
    ok "cc1 under Callgrind # SKIP no valgrind or no cc1"
fi

# a threaded program under tally record (its threads summed)
if [ -x "$ROOT/build/valgrind/lib/tally-amd64-linux" ] &&
        gcc -O1 -g -pthread -o "$TMP/threads" "$ROOT/tests/peer/cacheuse/threads.c" 2>"$TMP/cc.err"; then
    if env -i PATH="$PATH" "$ROOT/build/tally" record --out-file="$TMP/threads.out" -- "$TMP/threads" \
            >"$TMP/rec.log" 2>&1; then
        export VIEW_REAL_LABEL="threaded program"
        run_view threads real "$TMP/threads.out"
        unset VIEW_REAL_LABEL
    else
        not_ok "tally record of a threaded program"
        tail -n 5 "$TMP/rec.log" | diag
    fi
else
    ok "a threaded program # SKIP no Valgrind tool, or threads.c does not build"
fi

# 114,000 functions: a tree of calls (each function calls the next three)
"$PY" - "$TMP/many.out" 114000 <<'EOF'
import random, sys
random.seed(11)
n = int(sys.argv[2])
def name(i):
    return "ns%d::Klass<std::vector<int, std::allocator<int> > >::method%d(int, char const*)" % (i % 50, i)
own = [(random.randint(1, 5000), random.randint(0, 900)) for i in range(n)]
inc = [list(s) for s in own]
for i in range(n - 1, 0, -1):
    p = (i - 1) // 3
    inc[p][0] += inc[i][0]
    inc[p][1] += inc[i][1]
out = ["# callgrind format", "version: 1", "cmd: ./many", "events: Ir Dr", "fl=many.c"]
for i in range(n):
    out += ["fn=(%d) %s" % (i, name(i)), "%d %d %d" % (i % 1000 + 1, own[i][0], own[i][1])]
    for c in (3 * i + 1, 3 * i + 2, 3 * i + 3):
        if c < n:
            out += ["cfn=(%d) %s" % (c, name(c)), "calls=%d 1" % random.randint(1, 9),
                    "%d %d %d" % (i % 1000 + 2, inc[c][0], inc[c][1])]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
run_view many many "$TMP/many.out"
