#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Command-line tests of `tally gprof`: usage, the default file names, and
# every kind of bad input (missing, truncated or corrupt gmon.out; missing,
# stripped, non-ELF or mismatching executable) must give a clear message
# "tally: FILE: ..." and exit 1 (2 for bad usage), never crash or write a
# half-finished output file. Real profiles come from examples/gprof (see
# tests/peer/gmon-profiles.sh).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/gmon-profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

if ! make_gmon_profiles >"$TMP/make.log" 2>&1; then
    not_ok "build and run examples/gprof"
    diag <"$TMP/make.log"
    exit 1
fi
ok "build and run examples/gprof"
if "$TALLY" gprof --help 2>&1 | grep -q 'is not a tally command'; then
    echo "# SKIP: this tally has no gprof command yet"
    exit 0
fi

EXE="$GEX/cycles"
GMON="$GPROF/cycles.gmon"
W="$TMP/work"
mkdir -p "$W"
RUN_DIR=$W

# ------------------------------------------------------------------ usage
expect_run "--help" 0 "gprof" "" gprof --help
expect_run "unknown option: exit 2" 2 "" "^tally: " gprof --no-such-option "$EXE" "$GMON"
# -q is gprof's own (the call graph only), not tally's --quiet
run_tally 0 "Call graph" "" gprof -b -q "$EXE" "$GMON"
if [ -z "$why" ] && ! grep -q "Flat profile" "$TMP/out"; then ok "gprof -q is gprof's: the call graph only"; else
    not_ok "gprof -q is gprof's: the call graph only"; echo "$why" | diag; fi
expect_run "gprof --quiet is tally's (and -b -p still prints)" 0 "Flat profile" "" gprof --quiet -b -p "$EXE" "$GMON"
expect_run "unknown short option: exit 2" 2 "" "^tally: " gprof -% "$EXE" "$GMON"
expect_run "-k without a slash: exit 2" 2 "" "^tally: " gprof -b -k ping "$EXE" "$GMON"
expect_run "-w not a number: exit 2" 2 "" "^tally: " gprof -b -wide "$EXE" "$GMON"
expect_run "-m not a number: exit 2" 2 "" "^tally: " gprof -b -A -m lots "$EXE" "$GMON"
expect_run "-O unknown format: exit 2" 2 "" "^tally: " gprof -b -O nosuch "$EXE" "$GMON"
expect_run "--demangle unknown style: exit 2" 2 "" "^tally: " gprof -b --demangle=nosuch "$EXE" "$GMON"
expect_run "--function-ordering with --file-ordering: exit 2" 2 "" "^tally: " \
    gprof -b --function-ordering --file-ordering "$GEX/cs.map" "$GEX/cs" "$GPROF/cs.gmon"
# no option is accepted and ignored: gprof's debugging trace and its
# external symbol table are refused by name
expect_run "-d refused: exit 2" 2 "" "^tally: gprof: -d/--debug" gprof -b -d "$EXE" "$GMON"
expect_run "-d6 refused: exit 2" 2 "" "^tally: gprof: -d/--debug" gprof -b -d6 "$EXE" "$GMON"
expect_run "--debug=2 refused: exit 2" 2 "" "^tally: gprof: -d/--debug" gprof --debug=2 "$EXE" "$GMON"
expect_run "-S refused: exit 2" 2 "" "^tally: gprof: -S/--external-symbol-table" \
    gprof -b -S syms.txt "$EXE" "$GMON"
expect_run "-V is not an option (as in gprof): exit 2" 2 "" "^tally: " gprof -V
# @FILE: options read from a file (words, quotes, backslashes)
printf '%s\n' "-b -p 'ping' \"-q\"pong" >"$W/opts"
(cd "$W" && "$TALLY" gprof @opts "$EXE" "$GMON") >"$TMP/at.out" 2>&1
(cd "$W" && "$TALLY" gprof -b -p ping -qpong "$EXE" "$GMON") >"$TMP/direct.out" 2>&1
if [ -s "$TMP/direct.out" ] && cmp -s "$TMP/at.out" "$TMP/direct.out"; then
    ok "@FILE: the options in FILE"
else
    not_ok "@FILE: the options in FILE"
    diff "$TMP/direct.out" "$TMP/at.out" | head -n 10 | diag
fi

# ---------------------------------------------------------- default names
cp "$EXE" "$W/a.out"
cp "$GMON" "$W/gmon.out"
expect_run "no file names: a.out and gmon.out" 0 "^Flat profile:" "" gprof -b
expect_run "executable only: gmon.out" 0 "^Flat profile:" "" gprof -b a.out
rm -f "$W/gmon.out"
expect_run "no gmon.out: exit 1, names it" 1 "" "^tally: .*gmon\\.out" gprof -b
rm -f "$W/a.out"
expect_run "no a.out: exit 1, names it" 1 "" "^tally: .*a\\.out" gprof -b

# ------------------------------------------------------------- bad gmon.out
expect_run "missing gmon file" 1 "" "^tally: .*nosuch\\.gmon" gprof -b "$EXE" nosuch.gmon
: >"$W/empty.gmon"
expect_run "empty gmon file" 1 "" "^tally: .*empty\\.gmon" gprof -b "$EXE" empty.gmon
head -c 10 "$GMON" >"$W/short.gmon"
expect_run "gmon file shorter than a header" 1 "" "^tally: .*short\\.gmon" gprof -b "$EXE" short.gmon
# cut inside the histogram, inside an arc record, and one byte short
size=$(wc -c <"$GMON" | tr -d ' ')
for cut in 21 40 61 100 $((size - 30)) $((size - 1)); do
    head -c "$cut" "$GMON" >"$W/cut$cut.gmon"
    expect_run "gmon file cut at byte $cut of $size" 1 "" "^tally: .*cut$cut\\.gmon" \
        gprof -b "$EXE" "cut$cut.gmon"
done
# a record tag that does not exist, right after the header
{ head -c 20 "$GMON"; printf '\011'; tail -c +22 "$GMON"; } >"$W/badtag.gmon"
expect_run "unknown record tag" 1 "" "^tally: .*badtag\\.gmon" gprof -b "$EXE" badtag.gmon
# a GNU header with an unsupported version
{ printf 'gmon\377\377\0\0'; tail -c +9 "$GMON"; } >"$W/badver.gmon"
expect_run "unsupported version" 1 "" "^tally: .*badver\\.gmon" gprof -b "$EXE" badver.gmon
expect_run "a directory as gmon file" 1 "" "^tally: " gprof -b "$EXE" "$W"
# every cut of the file: exit 0 or 1, never a crash or a hang
bad=""
cut=0
while [ "$cut" -lt "$size" ]; do
    head -c "$cut" "$GMON" >"$W/c.gmon"
    timeout 10 "$TALLY" gprof -b "$EXE" "$W/c.gmon" >/dev/null 2>&1
    rc=$?
    [ "$rc" -le 1 ] || bad="$bad $cut:$rc"
    cut=$((cut + 37))
done
if [ -z "$bad" ]; then ok "every 37th cut of gmon.out: exit 0 or 1"; else
    not_ok "every 37th cut of gmon.out: exit 0 or 1"
    echo "cut:exit code$bad" | diag
fi

# --------------------------------------------------------- bad executable
expect_run "missing executable" 1 "" "^tally: .*nosuch-exe" gprof -b "$W/nosuch-exe" "$GMON"
cp "$EXE" "$W/stripped"
strip "$W/stripped"
expect_run "stripped executable" 1 "" "^tally: .*stripped" gprof -b stripped "$GMON"
echo "not an ELF file" >"$W/text.exe"
expect_run "executable that is not ELF" 1 "" "^tally: .*text\\.exe" gprof -b text.exe "$GMON"
head -c 100 "$EXE" >"$W/cut.exe"
expect_run "truncated executable" 1 "" "^tally: .*cut\\.exe" gprof -b cut.exe "$GMON"
expect_run "the gmon file given as executable" 1 "" "^tally: " gprof -b "$GMON" "$GMON"
# the profile of the non-PIE build (addresses near 0x400000) with the PIE one
expect_run "profile of another executable" 1 "" "^tally: " gprof -b "$EXE" "$GPROF/cycles-nopie.gmon"

# ------------------------------------------------------ several profiles
expect_run "summing two runs" 0 "^Flat profile:" "" gprof -b "$EXE" "$GMON" "$GPROF/cycles.b.gmon"
# same low address, another high one: a partial overlap, which gprof refuses
expect_run "histograms that partly overlap: exit 1" 1 "" "^tally: .*selfrec\\.gmon" \
    gprof -b "$EXE" "$GMON" "$GPROF/selfrec.gmon"

# ------------------------------------------------------------------- -s
rm -f "$W/gmon.sum"
expect_run "-s writes gmon.sum" 0 "" "" gprof -s "$EXE" "$GMON" "$GPROF/cycles.b.gmon"
if [ -s "$W/gmon.sum" ]; then ok "gmon.sum exists"; else not_ok "gmon.sum exists"; fi
# the sum read back gives what the two files give (gprof's rule)
(cd "$W" && "$TALLY" gprof -b "$EXE" gmon.sum) >"$TMP/sum.out" 2>&1
(cd "$W" && "$TALLY" gprof -b "$EXE" "$GMON" "$GPROF/cycles.b.gmon") >"$TMP/two.out" 2>&1
same_text "gmon.sum read back equals its two inputs" "$TMP/two.out" "$TMP/sum.out"
cp "$W/gmon.sum" "$TMP/sum.before"
expect_run "-s with a bad input: exit 1" 1 "" "^tally: .*cut21\\.gmon" gprof -s "$EXE" "$GMON" cut21.gmon
if cmp -s "$W/gmon.sum" "$TMP/sum.before"; then ok "-s with a bad input leaves gmon.sum alone"; else
    not_ok "-s with a bad input leaves gmon.sum alone"
fi
if ls "$W" | grep -v -e '^gmon\.sum$' | grep -q 'sum'; then
    not_ok "-s leaves no temporary file"
    ls "$W" | diag
else ok "-s leaves no temporary file"; fi

# ---------------------------------------------------------- --callgrind-out
rm -f "$W/cg.out"
expect_run "--callgrind-out writes a profile" 0 "^Flat profile:" "" gprof -b --callgrind-out=cg.out "$EXE" "$GMON"
expect_run "tally annotate reads it" 0 "burn" "" annotate cg.out
if command -v callgrind_annotate >/dev/null; then
    if (cd "$W" && callgrind_annotate cg.out) >"$TMP/ca.out" 2>&1 && grep -q burn "$TMP/ca.out"; then
        ok "callgrind_annotate reads it"
    else
        not_ok "callgrind_annotate reads it"
        head -n 20 "$TMP/ca.out" | diag
    fi
fi
expect_run "--callgrind-out to a missing folder: exit 1" 1 "" "^tally: .*no/such/dir" \
    gprof -b --callgrind-out=no/such/dir/cg.out "$EXE" "$GMON"
check_written
