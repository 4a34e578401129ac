#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tally report in a real browser: Debian's headless Chromium opens the
# page from the disk, driven through Selenium (Debian's python3-selenium
# and chromium-driver; tests/browser/browser.py), so the python runs with
# Debian's /usr/bin/python3 (a python3 first on PATH may lack selenium);
# clicks a function, checks its callers, walks to a caller, searches,
# sorts, clicks the call graph, takes a screenshot and fails on any
# console error. Expected values are worked out by hand from the small
# profile below. A real profile (examples/) and, when bench/cache holds
# it, the 200 MB benchmark profile must load and work; their load times
# are printed as notes (over 2 s, loudly), never judged here.
# Without chromium, chromedriver or selenium the test says SKIP loudly
# (sh scripts/install-deps.sh).
. "$(dirname "$0")/../lib.sh"

if ! missing=$(browser_missing); then
    echo "# SKIP SKIP SKIP: $missing is not installed; the browser test of tally report did not run" >&2
    ok "tally report in Chromium # SKIP $missing not installed"
    exit 0
fi
SHOTS=$ROOT/build/test-logs
mkdir -p "$SHOTS"

# the source file, found through the absolute path in the profile
cat >"$TMP/src.c" <<'EOF'
int helper(int x)
{
    return x * 2;
}

int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += helper(i);
    return s;
}

int main(void)
{
    return work(4) + helper(1);
}
EOF
# Ir: main 10, work 20 + 30, helper 36, two uncalled functions 1 each = 98
# Dr: main 1, work 2 + 3, helper 3 = 9
cat >"$TMP/small.out" <<EOF
# callgrind format
version: 1
cmd: ./small 4
events: Ir Dr
fl=$TMP/src.c
fn=main
15 10 1
cfn=work
calls=1 6
16 80 8
cfn=helper
calls=1 1
16 6 0
fn=work
8 20 2
9 30 3
cfn=helper
calls=4 1
10 30 3
fn=helper
3 36 3
fn=evil</script><b>x</b>
1 1 0
fn=q"uote's & <amp>
1 1 0
EOF
expect_run "report of the small profile" 0 "" "" report -o "$TMP/small" "$TMP/small.out"
$BROWSER_PY "$ROOT/tests/browser/report_test.py" small "$TMP/small/index.html" "$SHOTS/report-small.png" ||
    not_ok "the browser checks of the small page"

# an aprof report: the complexity section only
if [ -f "$ROOT/tests/golden/complexity/r1.aprof" ]; then
    expect_run "report of an aprof report" 0 "" "" report -o "$TMP/ap" "$ROOT/tests/golden/complexity/r1.aprof"
    $BROWSER_PY "$ROOT/tests/browser/report_test.py" aprof "$TMP/ap/index.html" "$SHOTS/report-aprof.png" ||
        not_ok "the browser checks of the aprof page"
fi

# a real profile of examples/wordfreq (tests/peer/profiles.sh builds it)
REAL=""
for f in "$ROOT/build/peer-profiles/cgx.wordfreq.out" "$ROOT/build/peer-profiles/cg.wordfreq.out"; do
    [ -f "$f" ] && { REAL=$f; break; }
done
if [ -n "$REAL" ]; then
    expect_run "report of a real profile" 0 "" "" report -o "$TMP/real" -I "$ROOT/examples" "$REAL"
    $BROWSER_PY "$ROOT/tests/browser/report_test.py" load "$TMP/real/index.html" "$SHOTS/report-real.png" 2 ||
        not_ok "the browser checks of the real page"
else
    ok "report of a real profile # SKIP no build/peer-profiles (make check builds them)"
fi

# the worst case of the reduction: 5000 functions in one big random
# recursion, 13 events, 15000 arcs: 2000 functions shipped, flame graph capped
python3 - "$TMP/syn.out" <<'EOF'
import random, sys
random.seed(7)
ev = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim".split()
out = ["# callgrind format", "cmd: ./synthetic", "events: " + " ".join(ev), "fl=s.c"]
for i in range(5000):
    out += ["fn=f%d" % i, "%d %s" % (i + 1, " ".join(str(random.randint(1, 1000)) for _ in ev))]
    for k in range(3):
        out += ["cfn=f%d" % random.randint(0, 4999), "calls=%d 1" % random.randint(1, 50),
                "%d %s" % (i + 1, " ".join(str(random.randint(1, 99999)) for _ in ev))]
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
expect_run "report of 5000 functions, 13 events" 0 "" "" report -o "$TMP/syn" "$TMP/syn.out"
echo "# page of the synthetic profile: $(wc -c <"$TMP/syn/index.html") bytes"
$BROWSER_PY "$ROOT/tests/browser/report_test.py" load "$TMP/syn/index.html" "$SHOTS/report-syn.png" 2 ||
    not_ok "the browser checks of the synthetic page"

# the 200 MB benchmark profile, when bench/make-profile.sh has cached it
BIG=$ROOT/bench/cache/callgrind.200MB.out
if [ -f "$BIG" ]; then
    t0=$(date +%s.%N)
    expect_run "report of the 200 MB profile" 0 "" "" report -o "$TMP/big" "$BIG"
    t1=$(date +%s.%N)
    echo "# tally report on the 200 MB profile: $(echo "$t1 - $t0" | bc 2>/dev/null || echo "?") s, page $(wc -c <"$TMP/big/index.html") bytes"
    $BROWSER_PY "$ROOT/tests/browser/report_test.py" load "$TMP/big/index.html" "$SHOTS/report-big.png" 2 ||
        not_ok "the browser checks of the 200 MB page"
else
    ok "report of the 200 MB profile # SKIP not in bench/cache (sh bench/make-profile.sh callgrind 200)"
fi
