#!/bin/sh
# What every command shares on the command line: "did you mean" for
# misspelt commands and options, usage errors exit 2, `tally help CMD`,
# --version and -q/--quiet everywhere, the newest profile of the current
# directory read when no file is given, annotate --show=BAD naming the events.
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
CMDS="annotate merge diff gprof record control convert graph report flame complexity check"

# A small callgrind profile with two events.
cat >"$TMP/a.out" <<'EOF'
events: Ir Dr
fl=a.c
fn=main
1 10 2
cfn=work
calls=3 5
2 90 9
fn=work
5 90 9
EOF

# --- did you mean -----------------------------------------------------------
expect_run "misspelt command: did you mean" 2 "" \
    "^tally: 'annotat' is not a tally command; did you mean 'annotate'\\? See 'tally --help'" annotat
expect_run "swapped letters in a command" 2 "" "did you mean 'flame'" falme
expect_run "far from every command: no guess" 2 "" "^tally: 'xyzzy' is not a tally command; see 'tally --help'$" xyzzy
expect_run "annotate --inclusve: did you mean --inclusive" 2 "" \
    "^tally: annotate: unknown option '--inclusve'; did you mean '--inclusive'\\?" annotate --inclusve a.out
expect_run "graph --titel=x: did you mean --title" 2 "" "unknown option '--titel=x'; did you mean '--title'\\?" \
    graph --titel=x a.out
expect_run "report --max-function: did you mean" 2 "" "did you mean '--max-functions'\\?" \
    report -o r --max-function=3 a.out
expect_run "unknown option far from any: no guess" 2 "" "unknown option '--zzzzzzzz'; see 'tally flame --help'" \
    flame --zzzzzzzz a.out
expect_run "record --cachesim: did you mean" 2 "" "did you mean '--cache-sim'\\?" record --cachesim=no /bin/true

# --- exit 2 for an unknown option of every command --------------------------
bad=""
for c in $CMDS; do
    (cd "$TMP" && "$TALLY" $c --no-such-thing-at-all a.out) >/dev/null 2>"$TMP/err" </dev/null
    rc=$?
    # record passes unknown options to Valgrind (its own and the core's): skip it here
    [ "$c" = record ] && continue
    [ "$rc" = 2 ] || bad="$bad $c:$rc"
done
if [ -z "$bad" ]; then ok "an unknown option exits 2 for every command"; else
    not_ok "an unknown option exits 2 for every command"; echo "$bad" | diag; fi

# --- help and version ---------------------------------------------------------
for c in $CMDS; do
    "$TALLY" help $c >"$TMP/h1" 2>&1
    r1=$?
    "$TALLY" $c --help >"$TMP/h2" 2>&1
    if [ $r1 = 0 ] && cmp -s "$TMP/h1" "$TMP/h2" && grep -q "usage: tally $c" "$TMP/h1"; then :; else
        bad="$bad help-$c"; fi
    v=$("$TALLY" $c --version 2>&1)
    [ "$v" = "$("$TALLY" --version)" ] || bad="$bad version-$c:$v"
done
if [ -z "$bad" ]; then ok "'tally help CMD' is 'tally CMD --help' and --version works for every command"; else
    not_ok "help CMD and CMD --version"; echo "$bad" | diag; fi
expect_run "tally help of an unknown command exits 2" 2 "" "'nope' is not a tally command" help nope
expect_run "tally help with a typo suggests" 2 "" "did you mean 'report'" help reprot
expect_run "--version after a file still prints the version" 0 "^tally [0-9]" "" annotate a.out --version
expect_run "--version after -- is a file (a source file here)" 1 "" "^tally: --version: source file not found" \
    annotate a.out -- --version

# --- annotate --show=BAD lists the events -------------------------------------
expect_run "annotate --show=BAD names the profile's events" 2 "" \
    "--show event 'BAD' did not appear in input \\(the profile has: Ir Dr\\)" annotate --show=BAD a.out

# --- -q / --quiet -------------------------------------------------------------
expect_run "convert prints its stacks note" 0 "" "^tally: convert: stacks " convert --to=folded -o f1 a.out
expect_run "convert -q prints nothing" 0 "" "" convert -q --to=folded -o f2 a.out
expect_run "convert --quiet prints nothing" 0 "" "" convert --to=folded --quiet -o f3 a.out
check "-q changes only the notes, not the output" cmp "$TMP/f1" "$TMP/f2"

# --- no file given: the newest profile here -----------------------------------
mkdir -p "$TMP/empty" "$TMP/newest"
RUN_DIR=$TMP/empty
expect_run "annotate with no file and no profile here" 2 "" \
    "annotate: no profile given, and no tally.out.\\*, callgrind.out.\\* or cachegrind.out.\\* file" annotate
RUN_DIR=$TMP/newest
# three candidates with distinct times, the newest not the last by name; a
# directory and a file of another name that are newer must be passed over
sed 's/^5 90 9$/5 1 1/' "$TMP/a.out" >"$TMP/newest/callgrind.out.100"
cp "$TMP/a.out" "$TMP/newest/tally.out.7"
sed 's/^5 90 9$/5 2 2/' "$TMP/a.out" >"$TMP/newest/cachegrind.out.5"
touch -d '2020-01-01 00:00:01' "$TMP/newest/callgrind.out.100"
touch -d '2020-01-01 00:00:03' "$TMP/newest/tally.out.7"
touch -d '2020-01-01 00:00:02' "$TMP/newest/cachegrind.out.5"
mkdir "$TMP/newest/tally.out.dir"
cp "$TMP/a.out" "$TMP/newest/other.out"
expect_run "annotate with no file reads the newest profile and says so" 0 "Profile data file 'tally.out.7'" \
    "^tally: annotate: no profile given; reading tally.out.7, the newest profile here" annotate --auto=no
expect_run "the newest profile's costs are shown (self: 10 + 90)" 0 "^100 .*PROGRAM TOTALS" "" annotate -q --auto=no
expect_run "-q drops the note" 0 "Profile data file 'tally.out.7'" "" annotate -q --auto=no
expect_run "flame with no file reads the newest profile" 0 "" "flame: no profile given; reading tally.out.7" \
    flame -o f.svg
check "flame wrote its picture" grep -q "<svg" "$TMP/newest/f.svg"
expect_run "report with no file reads the newest profile" 0 "" "report: no profile given; reading tally.out.7" \
    report -o rep
check "report wrote its page" test -s "$TMP/newest/rep/index.html"
