#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The pictures of tally complexity in a real browser: routines with long C++
# names (templates nested three deep, a name of 300 characters without a
# place to break it, a name beyond ASCII) and routines with and without a
# class (tests/golden/complexity/unclear.aprof), on linear and logarithmic
# axes. tests/browser/plots_test.py measures the text as Chromium lays it
# out: titles must never be cut (every text within the picture, the header
# above the plot), and each title line carries the whole name as a tooltip.
# Screenshots go to build/test-logs/complexity-*.png. Chromium is driven
# through Selenium (tests/browser/browser.py), by Debian's /usr/bin/python3.
# Without chromium, chromedriver or selenium the test says SKIP loudly
# (sh scripts/install-deps.sh).
. "$(dirname "$0")/../lib.sh"

if ! missing=$(browser_missing); then
    echo "# SKIP SKIP SKIP: $missing is not installed; the browser test of the plots did not run" >&2
    ok "complexity plots in Chromium # SKIP $missing not installed"
    exit 0
fi
SHOTS=$ROOT/build/test-logs
mkdir -p "$SHOTS"

# names that do not fit on a line: a tree of strings (collapsed to <...>), a name with no
# place to break it, wide letters and a name beyond ASCII; each grows as 5n + 30
python3 - "$TMP/long.aprof" "$TMP/names.json" <<'PY'
import json, sys
s = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
names = [
    "std::_Rb_tree<%s, std::pair<%s const, std::vector<std::map<int, %s>, std::allocator<"
    "std::map<int, %s> > > >, std::less<%s> >::_M_get_insert_unique_pos(%s const&)" % ((s,) * 6),
    "x" * 120 + "_W" * 60 + "m" * 60,
    "WWWWMMMM::" * 12 + "operator()(int)",
    "na\u00efve::\u00fcber<\u4e2d\u6587, \u0394\u03b5\u03bb\u03c4\u03b1>::f(int)" * 4,
]
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("v 4\nk 100000\n")
    for i, name in enumerate(names):
        f.write('r "%s" "/x" %d\n' % (name, i))
        for n in (10, 20, 40, 80, 160, 320):
            c = 5 * n + 30
            f.write("p %d %d %d %d %d 0 1 %d %d %d %d 0\n" % (i, n, c, c, c, c, c, c, c))
json.dump(names, open(sys.argv[2], "w"))
PY
expect_run "plots of long names" 0 "Rank" "" complexity --min-share=0 --plot="$TMP/long" "$TMP/long.aprof"
$BROWSER_PY "$ROOT/tests/browser/plots_test.py" "$TMP/long" "$SHOTS" "$TMP/names.json" ||
    not_ok "the browser checks of the plots of long names"
expect_run "plots of long names, log axes" 0 "Rank" "" \
    complexity --min-share=0 --log --plot="$TMP/longlog" "$TMP/long.aprof"
$BROWSER_PY "$ROOT/tests/browser/plots_test.py" "$TMP/longlog" "$TMP" "$TMP/names.json" ||
    not_ok "the browser checks of the plots of long names, log axes"

U=$ROOT/tests/golden/complexity/unclear.aprof
run_tally 0 "" "" complexity --format=json --min-share=0 --min-points=1 "$U"
python3 -c 'import json, sys; json.dump([r["name"] for r in json.load(open(sys.argv[1]))["ranking"]], open(sys.argv[2], "w"))' \
    "$TMP/out" "$TMP/unames.json"
expect_run "plots of unclear.aprof" 0 "Rank" "" \
    complexity --min-share=0 --min-points=1 --plot="$TMP/unclear" "$U"
$BROWSER_PY "$ROOT/tests/browser/plots_test.py" "$TMP/unclear" "$SHOTS" "$TMP/unames.json" ||
    not_ok "the browser checks of the plots of unclear.aprof"
echo "1..$TESTN"
