#!/bin/sh
# The tally command itself: --help, --version, no arguments, unknown
# commands. Exit codes: 0 success, 2 bad usage.
. "$(dirname "$0")/../lib.sh"


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
