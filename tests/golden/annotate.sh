#!/bin/sh
# Golden tests of the tally annotate text layout. Inputs and expected
# outputs are in tests/golden/annotate/: hand-written profiles (g1.out is
# callgrind, c1.out is cachegrind with negative counts, as a diff gives)
# and their sources. Each expected file was produced by callgrind_annotate
# or cg_annotate 3.19 on the same input and options, and kept as is except
# where a difference is deliberate (noted in CASES and in
# docs/tally-annotate.md). The a1 cases are --asm, which the Valgrind tools
# do not have: a1.out's object is not on disk, so the layout of its
# sections by address is pinned here (tests/cli/asm.sh checks the
# disassembly against objdump); their expected files are tally's, read
# line by line against a1.out.
#
# The c1-321-* cases (--layout=3.21) were printed
# by cg_annotate 3.27.1 (python3, from Debian sid's valgrind source) with
# the same arguments less --layout=3.21, its Invocation: line naming
# tally's command instead; tests/peer/cga321.sh runs that oracle itself.
#
# Sources get an old mtime and profiles a newer one, so that the
# "more recent than input file" warning appears only where a case asks
# for it (NEWER=1 touches the sources after the profile).
. "$(dirname "$0")/../lib.sh"
DATA="$ROOT/tests/golden/annotate"

# NAME|NEWER|ARGS   (expected output: $DATA/NAME.expected)
CASES='g1-default|0|g1.out
g1-tree|0|--tree=both --context=2 g1.out
g1-nopercs|0|--show-percs=no --threshold=100 --show=Dr,Ir g1.out
g1-inclusive|0|--inclusive=yes --tree=caller g1.out
g1-include|0|-I=inc g1.out c1.c
g1-newer|1|--context=1 g1.out
g1-auto-off|0|--auto=no --threshold=50 g1.out g1.c
c1-default|0|c1.out
c1-nopercs|0|--show-percs=no --context=1 c1.out
c1-sort|0|--sort=Dr:50,Ir c1.out
c1-newer|1|--auto=yes c1.out
a1-asm|0|--asm --auto=no --show-percs=no --threshold=100 a1.out
a1-asm-main|0|--asm=^main$ a1.out
c1-321-default|0|--layout=3.21 c1.out
c1-321-newer|1|--layout=3.21 --context=1 c1.out
c1-321-options|0|--layout=3.21 --threshold=0 --no-show-percs --show=Dr,Ir --sort=Dr --context 0 c1.out
c1-321-diff|0|--layout=3.21 --diff --mod-funcname=s/loop/main/ c1.out c1.out
c1-321-merge|1|--layout=3.21 --auto=no c1.out c1.out'

run_case() { # DIR NEWER ARGS...
    dir=$1; newer=$2; shift 2
    touch -d '2020-01-01 00:00:00' "$dir"/*.c "$dir"/inc/lib/*.c
    touch -d '2021-01-01 00:00:00' "$dir"/*.out
    [ "$newer" = 1 ] && touch -d '2022-01-01 00:00:00' "$dir"/*.c
    (cd "$dir" && "$@")
}

echo "$CASES" | while IFS='|' read -r name newer args; do
    rm -rf "$TMP/w" && cp -r "$DATA" "$TMP/w"
    # shellcheck disable=SC2086
    run_case "$TMP/w" "$newer" "$TALLY" annotate $args >"$TMP/$name.out" 2>"$TMP/$name.err"
    same_text "annotate $name ($args)" "$DATA/$name.expected" "$TMP/$name.out"
done
