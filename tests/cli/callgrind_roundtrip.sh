#!/bin/sh
# The callgrind reader and writer on real Callgrind files (tests/peer/profiles.sh):
# read -> write -> read keeps every cost, call and jump; gzip and zstd copies
# read the same; callgrind_annotate 3.19 shows the same function rows for
# tally's rewritten file as for the original.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/peer/profiles.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)

UNIT=$ROOT/build/tests/test_callgrind
if ! make_profiles; then
    not_ok "make the real profiles with valgrind"
    exit 1
fi
ok "make the real profiles with valgrind"
files=""
for f in cg.recurse cg.wordfreq cgx.wordfreq cgx.recurse cgx.matrix cgparts.recurse; do
    cp "$PROF/$f.out" "$TMP/$f.out"
    gzip -c "$TMP/$f.out" >"$TMP/$f.out.gz"
    zstd -q -c "$TMP/$f.out" >"$TMP/$f.out.zst"
    files="$files${files:+:}$TMP/$f.out"
done
mkdir -p "$TMP/out"
if [ -x "$UNIT" ]; then
    if TALLY_CG_FILES=$files TALLY_CG_OUTDIR=$TMP/out CMOCKA_MESSAGE_OUTPUT=TAP \
        "$UNIT" >"$TMP/unit.log" 2>&1; then
        ok "round trip and compressed copies of $(echo "$files" | tr ':' '\n' | wc -l) real files"
    else
        not_ok "round trip and compressed copies of the real files"
        grep -v '^ok' "$TMP/unit.log" | diag
    fi
else
    not_ok "round trip: $UNIT is not built (make unit)"
fi

# callgrind_annotate's function table (rows only, sorted: ties may be ordered differently)
rows() {
    callgrind_annotate --threshold=100 "$1" 2>&1 |
        sed -n '/file:function/,$p' | grep -E '^ *[0-9,]+ ' | sort
}
if command -v callgrind_annotate >/dev/null 2>&1; then
    for f in cg.recurse cg.wordfreq cgx.wordfreq cgparts.recurse; do
        if [ ! -s "$TMP/out/$f.out" ]; then not_ok "callgrind_annotate on rewritten $f"; continue; fi
        rows "$TMP/$f.out" >"$TMP/a.rows"
        rows "$TMP/out/$f.out" >"$TMP/b.rows"
        if [ -s "$TMP/a.rows" ]; then
            same_text "callgrind_annotate rows of rewritten $f" "$TMP/a.rows" "$TMP/b.rows"
        else
            not_ok "callgrind_annotate gave no rows for $f"
        fi
    done
fi

# Compressed fn ids: Callgrind gives one id to each (object, file, function);
# so must every file tally writes from Callgrind's files. The library's
# rewrites above (one part each; cgparts has Callgrind's several parts,
# which callgrind_annotate does not read) and the command line's convert and
# merge: ids unique, the same functions as Callgrind's file, and
# callgrind_annotate reads them cleanly.
for f in cg.recurse cg.wordfreq cgx.wordfreq cgx.recurse cgx.matrix; do
    check_callgrind_file "library rewrite of $f" "$TMP/out/$f.out"
done
for f in cg.recurse cgx.wordfreq cgx.matrix cgparts.recurse; do
    callgrind_functions "$TMP/$f.out" >"$TMP/$f.fns"
    # a function of one name in several objects or files: what the ids must keep apart
    dup=$(sed 's/.* | //' "$TMP/$f.fns" | sort | uniq -d | wc -l)
    (cd "$TMP" && "$TALLY" convert --to=callgrind -o "$f.conv" "$f.out") &&
        (cd "$TMP" && "$TALLY" merge -o "$f.merged" "$f.out" "$f.out") &&
        (cd "$TMP" && "$TALLY" convert --to=callgrind -o "$f.conv2" "$f.conv")
    for v in conv merged conv2; do
        callgrind_functions "$TMP/$f.$v" >"$TMP/$f.$v.fns"
        callgrind_ids_check "$TMP/$f.$v" >"$TMP/$f.$v.ids"
        if same=$(cmp -s "$TMP/$f.fns" "$TMP/$f.$v.fns" && echo y) && [ "$same" = y ] &&
            [ ! -s "$TMP/$f.$v.ids" ]; then
            ok "$f: $v keeps $(wc -l <"$TMP/$f.fns") functions ($dup names in several objects or files), one fn id each"
        else
            not_ok "$f: $v keeps the functions, one fn id each"
            { head -n 5 "$TMP/$f.$v.ids"; diff "$TMP/$f.fns" "$TMP/$f.$v.fns" | head -n 10; } | diag
        fi
    done
    same_text "$f: converting tally's conversion changes nothing" "$TMP/$f.conv" "$TMP/$f.conv2"
done
check_written
