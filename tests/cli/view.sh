#!/bin/sh
# tally view without a browser: the server's answers against the JSON
# export of the same input (tests/tools/viewcheck.py api), its defences
# (viewcheck.py hostile: token, Host header, methods, bodies, paths,
# oversized, malformed and random requests), 100 clients at once (ab, when
# apache2-utils is installed), where it listens, how it stops, and the
# usage and input errors. Run on the ASan build too (tests/run.sh asan-cli).
# tests/browser/view.sh drives the page in Chromium.
. "$(dirname "$0")/../lib.sh"

EX=$ROOT/examples/recurse
if [ ! -x "$EX" ]; then
    echo "# examples/recurse is not built (make examples)" | diag
    not_ok "examples/recurse is built"
    echo "1..$TESTN"
    exit 0
fi

# a real profile of a program with recursion, read as the server reads it
# (recorded by the build's tally: the ASan build has no Valgrind tool)
env -i PATH="$PATH" "$ROOT/build/tally" record --out-file="$TMP/rec.out" -- "$EX" 16 >"$TMP/rec.log" 2>&1 ||
    { not_ok "tally record of examples/recurse"; diag <"$TMP/rec.log"; }
run_tally 0 "" "" convert --to=json --lines -o "$TMP/rec.json" "$TMP/rec.out"
[ -z "$why" ] && ok "the JSON export of the profile" || { not_ok "the JSON export: $why"; diag <"$TMP/err"; }

. "$ROOT/tests/viewlib.sh"

start_view "$TMP/v.log" "$TMP/rec.out"
if [ -z "$URL" ]; then
    not_ok "tally view prints its URL"
    diag <"$TMP/v.log"
else
    ok "tally view prints its URL"
    case $URL in
    http://127.0.0.1:[0-9]*/\?t=[0-9a-f][0-9a-f][0-9a-f][0-9a-f]*) ok "the URL: 127.0.0.1, a port, a token" ;;
    *) not_ok "the URL: $URL" ;;
    esac
    port=${URL#http://127.0.0.1:}
    port=${port%%/*}
    # it listens on the loopback address only
    if command -v ss >/dev/null 2>&1; then
        ss -ltnH "sport = :$port" >"$TMP/ss.out" 2>&1
        if grep -q "127.0.0.1:$port" "$TMP/ss.out" && ! grep -q "0.0.0.0:$port\|\*:$port" "$TMP/ss.out"; then
            ok "listens on 127.0.0.1 only"
        else
            not_ok "listens on 127.0.0.1 only"
            diag <"$TMP/ss.out"
        fi
    fi
    checks "api" python3 "$ROOT/tests/tools/viewcheck.py" api "$URL" "$TMP/rec.json" fib
    checks "hostile" python3 "$ROOT/tests/tools/viewcheck.py" hostile "$URL"
    if command -v ab >/dev/null 2>&1; then
        tok=${URL##*t=}
        ab -q -n 2000 -c 100 "http://127.0.0.1:$port/api/functions?t=$tok&limit=50&sort=self" \
            >"$TMP/ab.out" 2>&1
        if grep -q '^Complete requests: *2000' "$TMP/ab.out" && grep -q '^Failed requests: *0' "$TMP/ab.out" &&
            ! grep -q '^Non-2xx' "$TMP/ab.out"; then
            ok "2000 requests, 100 at a time: every one answered"
        else
            not_ok "2000 requests, 100 at a time"
            diag <"$TMP/ab.out"
        fi
    else
        echo "# SKIP: ab (apache2-utils) is not installed" | diag
    fi
    stop_view "view of examples/recurse"
fi

# two inputs are two parts: each alone, and their sum (the default)
env -i PATH="$PATH" "$ROOT/build/tally" record --out-file="$TMP/rec12.out" -- "$EX" 12 >"$TMP/rec.log" 2>&1 ||
    { not_ok "tally record of examples/recurse 12"; diag <"$TMP/rec.log"; }
"$TALLY" convert --to=json -o "$TMP/rec12.json" "$TMP/rec12.out" &&
    "$TALLY" convert --to=json -o "$TMP/sum.json" "$TMP/rec.out" "$TMP/rec12.out" ||
    not_ok "the JSON exports of the parts"
start_view "$TMP/v.log" "$TMP/rec.out" "$TMP/rec12.out"
if [ -n "$URL" ]; then
    checks "parts" python3 "$ROOT/tests/tools/viewcheck.py" parts "$URL" "$TMP/rec.json" \
        "$TMP/rec12.json" "$TMP/sum.json"
    stop_view "view of two inputs"
else
    not_ok "tally view of two inputs"
    diag <"$TMP/v.log"
fi

# one file of two parts, read on two threads (a small split threshold) with
# each part packed as it is read: the same parts
cat "$TMP/rec.out" "$TMP/rec12.out" >"$TMP/both.out"
TALLY_READ_SPLIT=1 start_view "$TMP/v.log" "$TMP/both.out"
if [ -n "$URL" ]; then
    checks "parts of one file" python3 "$ROOT/tests/tools/viewcheck.py" parts "$URL" "$TMP/rec.json" \
        "$TMP/rec12.json" "$TMP/sum.json"
    stop_view "view of one file of two parts"
else
    not_ok "tally view of one file of two parts"
    diag <"$TMP/v.log"
fi

# a threaded program recorded with --separate-threads=yes: one part per
# thread, labelled with its thread, each as its own file, summed by default
if gcc -O1 -g -pthread -o "$TMP/threads" "$ROOT/tests/peer/cacheuse/threads.c" 2>"$TMP/cc.err"; then
    env -i PATH="$PATH" "$ROOT/build/tally" record --separate-threads=yes --out-file="$TMP/th.out" \
        -- "$TMP/threads" >"$TMP/rec.log" 2>&1 || { not_ok "tally record of threads"; diag <"$TMP/rec.log"; }
    set -- "$TMP"/th.out-*
    jsons=""
    for f in "$@"; do
        "$TALLY" convert --to=json -o "$f.json" "$f" || not_ok "the JSON export of $f"
        jsons="$jsons $f.json"
    done
    "$TALLY" convert --to=json -o "$TMP/th.sum.json" "$@" || not_ok "the JSON export of the threads' sum"
    start_view "$TMP/v.log" "$@"
    if [ -n "$URL" ] && [ $# -ge 2 ]; then
        # shellcheck disable=SC2086
        checks "threads" python3 "$ROOT/tests/tools/viewcheck.py" threads "$URL" $jsons \
            "$TMP/th.sum.json" "$@"
        stop_view "view of a thread set"
    else
        not_ok "tally view of a thread set ($# files)"
        diag <"$TMP/v.log"
    fi
else
    not_ok "threads.c builds"
    diag <"$TMP/cc.err"
fi

# a program built with -pg and its gmon.out: gprof's analysis, as tally
# convert reads it (one part: the checks of the parts with the one JSON)
if (cd "$TMP" && gcc -O1 -pg -o pgprog "$ROOT/examples/recurse.c" 2>"$TMP/cc.err" && ./pgprog 22 >/dev/null) &&
        [ -s "$TMP/gmon.out" ]; then
    "$TALLY" convert --to=json -o "$TMP/gmon.json" "$TMP/pgprog" "$TMP/gmon.out" ||
        not_ok "the JSON export of the gmon profile"
    start_view "$TMP/v.log" "$TMP/pgprog" "$TMP/gmon.out"
    if [ -n "$URL" ]; then
        checks "gmon" python3 "$ROOT/tests/tools/viewcheck.py" parts "$URL" "$TMP/gmon.json" "$TMP/gmon.json"
        stop_view "view of a gmon profile"
    else
        not_ok "tally view of a program and its gmon.out"
        diag <"$TMP/v.log"
    fi
else
    not_ok "a -pg program runs and writes gmon.out"
    diag <"$TMP/cc.err"
fi

# --base: the change from another run (chain renamed in the base: a function only it has)
sed 's/^fn=\(([0-9]*)\) chain$/fn=\1 chain_old/; s/^cfn=\(([0-9]*)\) chain$/cfn=\1 chain_old/' \
    "$TMP/rec12.out" >"$TMP/base.out"
grep -q chain_old "$TMP/base.out" || not_ok "the base has chain_old"
"$TALLY" convert --to=json -o "$TMP/base.json" "$TMP/base.out" || not_ok "the JSON export of the base"
start_view "$TMP/v.log" --base="$TMP/base.out" "$TMP/rec.out"
if [ -n "$URL" ]; then
    checks "compare" python3 "$ROOT/tests/tools/viewcheck.py" compare "$URL" "$TMP/rec.json" "$TMP/base.json"
    stop_view "view with a base"
else
    not_ok "tally view --base"
    diag <"$TMP/v.log"
fi
run_tally 1 "" "nothing.out" view --no-browser --base="$TMP/nothing.out" "$TMP/rec.out"
[ -z "$why" ] && ok "a missing base: refused, named" || not_ok "a missing base: $why"

# a profile and the aprof report of its run: the complexity of a function
IS=$ROOT/examples/complexity/isort
env -i PATH="$PATH" "$ROOT/build/tally" record --input-sensitive=yes --aprof-out-file="$TMP/is.aprof" \
    --out-file="$TMP/is.out" -- "$IS" >"$TMP/rec.log" 2>&1 || { not_ok "tally record of isort"; diag <"$TMP/rec.log"; }
"$TALLY" complexity --format=json --min-share=0 --min-points=1 -o "$TMP/is.json" "$TMP/is.aprof" ||
    not_ok "tally complexity of isort's report"
start_view "$TMP/v.log" "$TMP/is.out" "$TMP/is.aprof"
if [ -n "$URL" ]; then
    checks "complexity" python3 "$ROOT/tests/tools/viewcheck.py" complexity "$URL" "$TMP/is.json" isort
    stop_view "view with an aprof report"
else
    not_ok "tally view of a profile and its aprof report"
    diag <"$TMP/v.log"
fi
run_tally 1 "" "aprof report alone" view --no-browser "$TMP/is.aprof"
[ -z "$why" ] && ok "an aprof report alone: refused" || not_ok "an aprof report alone: $why"

# a profile of differences (signed costs): the tables, and no flame graph
# (a stack tree of signed costs means nothing) but a 422 that says so
"$TALLY" diff "$TMP/rec.out" "$TMP/rec12.out" >"$TMP/d.out" 2>"$TMP/d.err" || not_ok "tally diff"
start_view "$TMP/v.log" "$TMP/d.out"
if [ -n "$URL" ]; then
    tok=${URL##*t=}
    b=${URL%%/\?t=*}
    python3 - "$b" "$tok" >"$TMP/d.check" 2>&1 <<'PY'
import json, sys, urllib.request, urllib.error
base, tok = sys.argv[1], sys.argv[2]
def get(q):
    try:
        with urllib.request.urlopen("%s/api/%s&t=%s" % (base, q, tok)) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
st, rows = get("functions?limit=5000&sort=self")
neg = [r for r in rows["rows"] if str(r["self"][0]).startswith("-")]
print("rows", st, len(rows["rows"]), "negative", len(neg))
st, fl = get("flame?ev=0")
print("flame", st, fl.get("error", ""))
PY
    if grep -q "^rows 200 [1-9][0-9]* negative [1-9]" "$TMP/d.check" && grep -q "^flame 422 .*signed" "$TMP/d.check"; then
        ok "a profile of differences: rows with negative costs; the flame graph refused with why"
    else
        not_ok "a profile of differences"
        diag <"$TMP/d.check"
    fi
    stop_view "view of a profile of differences"
else
    not_ok "tally view of a profile of differences"
    diag <"$TMP/v.log"
fi

# --address: another numeric address is honoured, a name is refused
start_view "$TMP/v6.log" --address=::1 "$TMP/rec.out"
case $URL in
"http://[::1]:"*) ok "--address=::1 listens there"; stop_view "--address=::1" ;;
*)
    if grep -q "cannot listen" "$TMP/v6.log"; then
        ok "--address=::1 # SKIP no IPv6 loopback here"
    else
        not_ok "--address=::1: $URL"
        diag <"$TMP/v6.log"
    fi
    kill "$VPID" 2>/dev/null
    ;;
esac

# usage and input errors
run_tally 2 "" "no input files" view --no-browser
[ -z "$why" ] && ok "no input: usage error" || not_ok "no input: $why"
run_tally 2 "" "port" view --no-browser --port=70000 "$TMP/rec.out"
[ -z "$why" ] && ok "--port=70000: usage error" || not_ok "--port=70000: $why"
run_tally 2 "" "unknown option" view --no-browser --bogus "$TMP/rec.out"
[ -z "$why" ] && ok "an unknown option: usage error" || not_ok "an unknown option: $why"
run_tally 2 "" "writes no file" view --no-browser -o "$TMP/x" "$TMP/rec.out"
[ -z "$why" ] && ok "-o: usage error" || not_ok "-o: $why"
run_tally 2 "" "editor" view --no-browser --editor=vim "$TMP/rec.out"
[ -z "$why" ] && ok "--editor without {path}: usage error" || not_ok "--editor: $why"
run_tally 1 "" "not a numeric" view --no-browser --address=localhost "$TMP/rec.out"
[ -z "$why" ] && ok "--address=localhost: refused" || not_ok "--address=localhost: $why"
printf 'events: Ir\nfn=a\n1 x\n' >"$TMP/bad.out"
run_tally 1 "" "bad.out:3" view --no-browser "$TMP/bad.out"
[ -z "$why" ] && ok "a damaged profile: FILE:LINE and status 1" || not_ok "a damaged profile: $why"
run_tally 0 "usage: tally view" "" view --help
[ -z "$why" ] && ok "--help" || not_ok "--help: $why"
# a port already taken
start_view "$TMP/v.log" "$TMP/rec.out"
port=${URL#http://127.0.0.1:}
port=${port%%/*}
run_tally 1 "" "cannot listen on 127.0.0.1 port $port" view --no-browser --port="$port" "$TMP/rec.out"
[ -z "$why" ] && ok "a port in use: refused" || not_ok "a port in use: $why"
stop_view "second view"
echo "1..$TESTN"
