#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Peer test: the differential harness (tests/tools/gendiff.py) on generated
# valid profiles (tests/tools/profgen.py): tally annotate against
# callgrind_annotate and cg_annotate, tally merge against cg_merge, tally
# diff against cg_diff, and tally's own roads (split read, standard input,
# gzip, zstd, CRLF, one CPU, the lean --auto=no table, sums) against each
# other. One TAP line per check, with its counts.
#
#   GENDIFF_FILES=N    seeds to run (default 100: about 20 s); each seed
#                      makes a file (or two or three) for every check
#   GENDIFF_SECONDS=S  run for S seconds instead (make fuzz: FUZZ_SECONDS)
#   GENDIFF_SEED=S     first seed (default 1)
# A difference keeps its files in a folder named in the output.
. "$(dirname "$0")/../lib.sh"

for t in callgrind_annotate cg_annotate cg_merge cg_diff python3; do
    command -v $t >/dev/null || { echo "ok 1 - # SKIP $t not installed"; exit 0; }
done
GEN="$ROOT/tests/tools/gendiff.py"
WORK=${GENDIFF_WORK:-$TMP/gd}
if [ -n "$GENDIFF_SECONDS" ]; then how="--seconds $GENDIFF_SECONDS"; else how="--files ${GENDIFF_FILES:-100}"; fi

# shellcheck disable=SC2086
python3 "$GEN" --tally "$TALLY" $how --seed "${GENDIFF_SEED:-1}" --work "$WORK" >"$TMP/gd.out" 2>&1
rc=$?
grep -E '^[a-z-]+: [0-9]+ files, [0-9]+ differences$' "$TMP/gd.out" >"$TMP/gd.counts"
if [ ! -s "$TMP/gd.counts" ]; then
    not_ok "gendiff.py ran (exit $rc)"
    diag <"$TMP/gd.out"
else
    while read -r line; do
        case $line in
        *" 0 differences") ok "$line" ;;
        *) not_ok "$line"; grep -A16 "^${line%%:*} seed" "$TMP/gd.out" | head -n 60 | diag ;;
        esac
    done <"$TMP/gd.counts"
    [ "$rc" = 0 ] || grep -q " [1-9][0-9]* differences" "$TMP/gd.counts" || not_ok "gendiff.py exit $rc"
fi
# a folder kept for a difference outlives this test
if grep -q "^kept in" "$TMP/gd.out" && [ -z "$GENDIFF_WORK" ]; then
    mkdir -p "$ROOT/build/gendiff" && cp -r "$WORK"/fail-* "$ROOT/build/gendiff/" 2>/dev/null
    echo "# the failing cases are in build/gendiff/"
fi

# the harness sees a difference when there is one: a tally that renames a
# file in its reports, and one that prints one row fewer
printf '#!/bin/sh\n"%s" "$@" | sed "s/a\\\\.c/A.c/g"\n' "$TALLY" >"$TMP/renaming"
printf '#!/bin/sh\n"%s" "$@" | sed "/^ *[0-9,]* (.*%%)  *[a-z?].*:/{x;s/^/x/;/^x\\{3\\}$/{x;d};x}"\n' "$TALLY" >"$TMP/dropping"
chmod +x "$TMP/renaming" "$TMP/dropping"
for fake in renaming dropping; do
    python3 "$GEN" --tally "$TMP/$fake" --files 6 --seed 7 --work "$TMP/gd-$fake" \
        --checks annotate-callgrind,annotate-cachegrind >"$TMP/$fake.out" 2>&1
    if grep -Eq '^annotate-(callgrind|cachegrind): [0-9]+ files, [1-9][0-9]* differences$' "$TMP/$fake.out"; then
        ok "the harness finds the differences of a $fake tally"
    else
        not_ok "the harness finds the differences of a $fake tally"
        diag <"$TMP/$fake.out"
    fi
done
