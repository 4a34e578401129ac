#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make interop: files that tally writes, opened in the programs people read
# them with, for a person to look at (not part of make check):
#   - KCachegrind (Debian package kcachegrind) under Xvfb: a screenshot of
#     each file just after it loaded;
#   - callgrind_annotate: its output, and whether it warned;
#   - speedscope 1.25 (npm package speedscope, installed with npm into
#     build/interop-tools when missing) in headless Chromium, driven through
#     Selenium (Debian's python3-selenium and chromium-driver): tally's
#     speedscope conversion of Callgrind's file beside speedscope's own
#     import of that file (scripts/interop_speedscope.py).
# Files: Callgrind's own profile of examples/recurse, and what tally's
# convert --to=callgrind, merge, diff and gprof --callgrind-out write from
# it or from examples/gprof, and tally record's own profile of recurse. KCachegrind, Xvfb and xauth are installed
# with apt-get when missing (needs root). Output: build/interop/ (*.png,
# *.annotate.txt, and the files themselves); the last lines list them.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
TALLY=${TALLY:-$ROOT/build/tally}
OUT=$ROOT/build/interop
WAIT=${INTEROP_WAIT:-8}
[ -x "$TALLY" ] || { echo "interop: $TALLY is missing; run 'make'" >&2; exit 1; }
if ! command -v kcachegrind >/dev/null 2>&1 || ! command -v xvfb-run >/dev/null 2>&1 ||
    ! command -v xauth >/dev/null 2>&1; then
    echo "interop: installing kcachegrind, xvfb and xauth (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        kcachegrind xvfb xauth >/dev/null || { echo "interop: apt-get failed" >&2; exit 1; }
fi
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 1

# the files
valgrind -q --tool=callgrind --callgrind-out-file=callgrind.out "$ROOT/examples/recurse" >/dev/null 2>&1 ||
    { echo "interop: valgrind failed (make examples?)" >&2; exit 1; }
"$TALLY" convert --to=callgrind -o convert.out callgrind.out
"$TALLY" merge -o merge.out callgrind.out callgrind.out
valgrind -q --tool=callgrind --callgrind-out-file=callgrind2.out "$ROOT/examples/wordfreq" 300 >/dev/null 2>&1
"$TALLY" diff -o diff.out callgrind.out callgrind2.out
files="callgrind.out convert.out merge.out diff.out"
# tally record's own file of the same program (its calls count each
# recursion once: KCachegrind's inclusive costs are then time on the stack)
"$TALLY" record -q --out-file=record.out -- "$ROOT/examples/recurse" >/dev/null 2>&1 &&
    files="$files record.out"
if [ -x "$ROOT/examples/gprof/cycles" ]; then
    (cd "$ROOT/examples/gprof" && ./cycles >/dev/null 2>&1) &&
        "$TALLY" gprof -b --callgrind-out="$OUT/gprof.out" "$ROOT/examples/gprof/cycles" \
            "$ROOT/examples/gprof/gmon.out" >/dev/null 2>&1 && files="$files gprof.out"
fi

# a difference: its summary: line, and what KCachegrind will show as the
# total (the sum of the positive counts: docs/tally-diff.md)
awk '/^summary:/ { s = $2 } /^[0-9]/ && NF > 1 && $2 > 0 { p += $2 }
    END { printf "diff.out: summary: %d, KCachegrind total (positive counts): %d\n", s, p }' diff.out

# callgrind_annotate
for f in $files; do
    callgrind_annotate --threshold=100 --inclusive=yes "$f" >"$f.annotate.txt" 2>"$f.annotate.err"
    echo "callgrind_annotate $f: $(wc -l <"$f.annotate.err") warning lines"
done

# KCachegrind under Xvfb (and a D-Bus session: it quits without one), its
# own settings (no tip of the day); inside the session a shell starts it,
# waits, copies the screen (Xvfb keeps it as an XWD file in -fbdir) and
# ends it by its pid. The screen then becomes a PNG.
export XDG_CONFIG_HOME="$OUT/config"
mkdir -p "$XDG_CONFIG_HOME"
printf '[TipOfDay]\nRunOnStart=false\n' >"$XDG_CONFIG_HOME/kcachegrindrc"
for f in $files; do
    mkdir -p "fb.$f"
    dbus-run-session -- xvfb-run -a -s "-screen 0 1400x900x24 -fbdir $OUT/fb.$f" sh -c '
        kcachegrind -qwindowgeometry 1400x900+0+0 "$1" &
        k=$!
        sleep "$2"
        cp "$3/Xvfb_screen0" "$3/screen.xwd"
        kill "$k"
        wait "$k"' sh "$OUT/$f" "$WAIT" "$OUT/fb.$f" >"$f.kcachegrind.log" 2>&1
    if [ -f "fb.$f/screen.xwd" ] && python3 "$ROOT/scripts/xwd2png.py" "fb.$f/screen.xwd" "$f.png"; then
        echo "kcachegrind $f: $OUT/$f.png"
    else
        echo "kcachegrind $f: no screenshot (see $OUT/$f.kcachegrind.log)"
    fi
    rm -rf "fb.$f"
done

# KCachegrind's Machine Code view of tally record --dump-instr=yes: the
# window is driven with xdotool (installed when missing): the flat
# profile's search box takes "fib", the first row is selected and the
# Machine Code tab opened; KCachegrind runs objdump on the object with the
# file's addresses, so the disassembly appears only when they are right.
command -v xdotool >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends xdotool >/dev/null 2>&1
if command -v xdotool >/dev/null 2>&1 &&
    "$TALLY" record -q --dump-instr=yes --out-file=instr.out -- "$ROOT/examples/recurse" >/dev/null 2>&1; then
    mkdir -p fb.instr
    dbus-run-session -- xvfb-run -a -s "-screen 0 1400x900x24 -fbdir $OUT/fb.instr" sh -c '
        kcachegrind -qwindowgeometry 1400x900+0+0 "$1" &
        k=$!
        sleep "$2"
        xdotool mousemove 130 88 click 1; sleep 0.5; xdotool type fib; sleep 1.5
        xdotool mousemove 150 136 click 1; sleep 1.5
        xdotool mousemove 815 856 click 1; sleep 4
        cp "$3/Xvfb_screen0" "$3/screen.xwd"
        kill "$k"
        wait "$k"' sh "$OUT/instr.out" "$WAIT" "$OUT/fb.instr" >instr.kcachegrind.log 2>&1
    if [ -f fb.instr/screen.xwd ] && python3 "$ROOT/scripts/xwd2png.py" fb.instr/screen.xwd instr.machine-code.png; then
        echo "kcachegrind instr.out (Machine Code of fib): $OUT/instr.machine-code.png"
    else
        echo "kcachegrind instr.out: no screenshot (see $OUT/instr.kcachegrind.log)"
    fi
    rm -rf fb.instr
else
    echo "kcachegrind Machine Code: not run (needs xdotool)"
fi

# speedscope in headless Chromium
SS=$ROOT/build/interop-tools/node_modules/speedscope/dist/release
if [ ! -f "$SS/index.html" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$ROOT/build/interop-tools"
    (cd "$ROOT/build/interop-tools" && npm install --no-audit --no-fund speedscope@1.25.0 >/dev/null 2>&1)
fi
if [ -f "$SS/index.html" ] && command -v chromium >/dev/null 2>&1 && [ -x /usr/bin/chromedriver ] &&
    /usr/bin/python3 -c 'import selenium.webdriver' >/dev/null 2>&1; then
    "$TALLY" convert --to=speedscope -o tally.speedscope.json callgrind.out 2>/dev/null
    /usr/bin/python3 "$ROOT/scripts/interop_speedscope.py" "$SS" "$OUT" tally.speedscope.json callgrind.out
else
    echo "speedscope: not run (needs npm's speedscope 1.25.0, chromium, chromium-driver and python3-selenium)"
fi
