#!/bin/sh
# The tally command itself: --help, --version, no arguments, unknown
# commands. Exit codes: 0 success, 2 bad usage.
. "$(dirname "$0")/../lib.sh"

# expect_run NAME WANT_RC STDOUT_PATTERN STDERR_PATTERN ARGS...
# An empty pattern means "that stream must be empty".
expect_run() {
    name=$1 want=$2 outpat=$3 errpat=$4
    shift 4
    "$TALLY" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
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
    if [ -z "$why" ]; then ok "$name"; else
        not_ok "$name"
        { echo "$why"; echo "stdout:"; head -n 20 "$TMP/out"; echo "stderr:"; head -n 20 "$TMP/err"; } | diag
    fi
}

expect_run "--help prints usage on stdout" 0 '^usage: tally ' '' --help
expect_run "-h is --help" 0 '^usage: tally ' '' -h
expect_run "help is --help" 0 '^usage: tally ' '' help
for c in annotate merge diff; do
    expect_run "--help lists $c" 0 "^  $c " '' --help
done
expect_run "--version" 0 '^tally [0-9]+\.[0-9]+\.[0-9]+$' '' --version
expect_run "version" 0 '^tally [0-9]+\.[0-9]+\.[0-9]+$' '' version
expect_run "no arguments: usage on stderr, exit 2" 2 '' '^usage: tally '
expect_run "unknown command: exit 2" 2 '' "^tally: 'frobnicate' is not a tally command" frobnicate
expect_run "unknown option: exit 2" 2 '' "^tally: '--bogus' is not a tally command" --bogus

# --version prints exactly one line
"$TALLY" --version >"$TMP/v" 2>&1
if [ "$(wc -l <"$TMP/v")" -eq 1 ]; then ok "--version is one line"; else
    not_ok "--version is one line"; diag <"$TMP/v"; fi

# every command answers --help with exit 0 and says what it is
for c in annotate merge diff; do
    expect_run "tally $c --help" 0 "$c" '' "$c" --help
    expect_run "tally help $c" 0 "$c" '' help "$c"
done
