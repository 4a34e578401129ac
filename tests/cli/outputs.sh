#!/bin/sh
# Output names: graph -o NAME.svg|.png|.pdf runs dot -T that format, any
# other name gets DOT text; flame refuses a raster name; report -o NAME.html
# writes that one self-contained file instead of a directory.
. "$(dirname "$0")/../lib.sh"

RUN_DIR=$TMP
printf 'events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=3 5\n2 90\nfn=work\n5 90\n' >"$TMP/a.out"

if command -v dot >/dev/null 2>&1; then
    for f in svg png pdf; do
        expect_run "graph -o x.$f" 0 "" "" graph -o "x.$f" a.out
    done
    check "x.svg is SVG" grep -q '<svg' "$TMP/x.svg"
    check "x.png is a PNG (signature)" sh -c "head -c 8 '$TMP/x.png' | od -An -c | grep -q 'P   N   G'"
    check "x.pdf is a PDF" sh -c "head -c 5 '$TMP/x.pdf' | grep -q '%PDF-'"
    check "upper-case extension: X.PNG is a PNG" sh -c "cd '$TMP' && '$TALLY' graph -o X.PNG a.out &&
        head -c 8 X.PNG | od -An -c | grep -q 'P   N   G'"
    expect_run "--format=png beats the name" 0 "" "" graph --format=png -o fmt.dot a.out
    check "fmt.dot holds a PNG" sh -c "head -c 8 '$TMP/fmt.dot' | od -An -c | grep -q 'P   N   G'"
else
    ok "graph -o x.png # SKIP dot is not installed"
fi
for f in dot gv txt; do
    expect_run "graph -o x.$f is DOT text" 0 "" "" graph -o "x.$f" a.out
    check "x.$f starts with digraph" grep -q '^digraph callgraph {' "$TMP/x.$f"
done
expect_run "graph --format=jpeg is refused" 2 "" "unknown format 'jpeg' \\(use dot, svg, png or pdf\\)" \
    graph --format=jpeg a.out

expect_run "flame -o fl.png is refused" 2 "" \
    "^tally: flame: 'fl.png': tally flame writes SVG only .* name the output fl.svg" flame -o fl.png a.out
check "nothing written for the refused name" test ! -e "$TMP/fl.png"
[ -e "$TMP/y.pdf" ] && rm -f "$TMP/y.pdf"
expect_run "flame -o y.pdf is refused" 2 "" "writes SVG only" flame -o y.pdf a.out
check "no y.pdf" test ! -e "$TMP/y.pdf"

expect_run "report -o page.html" 0 "" "" report --no-callgraph -o page.html a.out
check "page.html is one file" test -f "$TMP/page.html"
check "page.html is the page" grep -q '<html' "$TMP/page.html"
check "no directory page.html/" test ! -d "$TMP/page.html"
expect_run "report -o DIR still makes DIR/index.html" 0 "" "" report --no-callgraph -o rep a.out
check "rep/index.html" test -f "$TMP/rep/index.html"
expect_run "report -o x.html is refused for an aprof report alone" 1 "" "aprof report alone" \
    report -o ap.html "$ROOT/tests/golden/complexity/r1.aprof"
check "... and nothing is written" test ! -e "$TMP/ap.html"
