#!/bin/sh
# The layout rules of docs/internals/architecture.md, checked on the tree:
#
#  1. includes run down the layers only: a file of src/LAYER/ includes
#     headers of its own folder or of the layers LAYER may use (the table
#     below); never one above it or beside it. valgrind/ is its own program
#     and includes nothing of src/.
#  2. every folder of src/ is a layer of that table (a new folder is added
#     to the table and to the page, or it is not checked);
#  3. no C file of src/ or valgrind/ passes 1,500 lines;
#  4. threads are started in one place, src/io/worker.c: no other file of
#     src/ calls pthread_create() (readers and views describe their work
#     and io/worker runs it).
#
# Before the real tree, the checker runs on a scratch tree with one planted
# violation of each kind and must report exactly those: a checker that
# cannot fail is no test.
. "$(dirname "$0")/../lib.sh"

MAX_LINES=1500

# LAYER: the layers its files may include (besides their own folder).
# cli -> report/export -> analysis -> formats/symbols -> io -> model
LAYERS='model:
io:model
formats:io model
symbols:io model
analysis:formats symbols io model
export:analysis formats symbols io model
report:analysis formats symbols io model
view:report export analysis symbols io model
cli:view report export analysis formats symbols io model'
# LAYER:HEADER pairs refused although the layer is below: formats/format.h
# is the entry to the readers and writers of profile files, and analyses
# and reports work on the model in memory, never through a file.
REFUSED='analysis:formats/format.h
report:formats/format.h
view:formats/format.h'

# include_violations DIR: one line per #include "..." of DIR/src/*/* that
# breaks rule 1 or 2 and of DIR/valgrind/* that reaches into src/:
#   FILE:LINE: LAYER/ includes OTHER/HEADER (LAYER/ may include: ...)
include_violations() {
    (
        cd "$1" || exit 1
        {
            find src -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null
            find valgrind -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null
        } | LC_ALL=C sort | while read -r f; do
            awk -v file="$f" -v layers="$LAYERS" -v refused="$REFUSED" '
            BEGIN {
                n = split(layers, rows, "\n")
                for (i = 1; i <= n; i++) {
                    name = rows[i]; sub(/:.*/, "", name)
                    deps = rows[i]; sub(/^[^:]*:/, "", deps)
                    known[name] = 1; allowed[name] = deps
                    m = split(deps, d, " ")
                    for (j = 1; j <= m; j++) ok[name, d[j]] = 1
                }
                n = split(refused, rows, "\n")
                for (i = 1; i <= n; i++) {
                    name = rows[i]; sub(/:.*/, "", name)
                    h = rows[i]; sub(/^[^:]*:/, "", h)
                    no[name, h] = 1
                }
                nparts = split(file, fp, "/")
                top = fp[1]
                layer = (top == "src" && nparts >= 3) ? fp[2] : ""
                dir = file; sub(/\/[^\/]*$/, "", dir)
                if (top == "src" && nparts < 3)
                    printf "%s: a file directly in src/ belongs to no layer\n", file
                else if (top == "src" && !(layer in known))
                    printf "%s: src/%s/ is not a layer (add it to tests/style/layers.sh and docs/internals/architecture.md)\n", file, layer
            }
            /^[ \t]*#[ \t]*include[ \t]*"/ {
                inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                # the path from the top of the tree, ".." resolved
                k = split(dir "/" inc, parts, "/"); depth = 0
                for (i = 1; i <= k; i++) {
                    if (parts[i] == "" || parts[i] == ".") continue
                    if (parts[i] == "..") { if (depth > 0) depth--; else { depth = -1; break } }
                    else stack[++depth] = parts[i]
                }
                if (depth < 2 || stack[1] != "src") next
                if (top == "valgrind") {
                    printf "%s:%d: valgrind/ includes %s (the tool shares no code with the library)\n", file, FNR, inc
                    next
                }
                if (layer == "" || !(layer in known)) next
                target = depth >= 3 ? stack[2] : ""
                if (target == layer) next
                h = ""
                for (i = 2; i <= depth; i++) h = h (i > 2 ? "/" : "") stack[i]
                if ((layer, h) in no)
                    printf "%s:%d: %s/ includes %s (an analysis or a report works on the model, it reads and writes no profile file)\n", file, FNR, layer, h
                else if (target == "" || !((layer, target) in ok))
                    printf "%s:%d: %s/ includes %s (%s/ may include: %s)\n", file, FNR, layer, h, layer, allowed[layer] == "" ? "nothing outside it" : allowed[layer]
            }' "$f" || echo "$f: the include checker failed on this file"
        done
    )
}

# long_files DIR: FILE: N lines, for each C file of DIR/src and
# DIR/valgrind longer than MAX_LINES
long_files() {
    (
        cd "$1" || exit 1
        find src valgrind -type f -name '*.c' 2>/dev/null | LC_ALL=C sort | while read -r f; do
            n=$(wc -l <"$f")
            [ "$n" -gt "$MAX_LINES" ] && echo "$f: $n lines (at most $MAX_LINES)"
        done
    )
}

# thread_starts DIR: FILE:LINE: ..., for each pthread_create() or
# thrd_create() call in DIR/src outside src/io/worker.c
thread_starts() {
    (
        cd "$1" || exit 1
        grep -rnE '(pthread_create|thrd_create)[[:space:]]*\(' src 2>/dev/null |
            grep -v '^src/io/worker\.c:' | LC_ALL=C sort |
            sed 's|^\([^:]*:[0-9]*\):.*|\1: starts a thread (threads start in src/io/worker.c only)|'
    )
}

# ---- the checker on a tree with known faults
S="$TMP/scratch"
mkdir -p "$S/src/model" "$S/src/io" "$S/src/formats" "$S/src/symbols" "$S/src/analysis" \
    "$S/src/report" "$S/src/export" "$S/src/cli" "$S/src/gadgets" "$S/valgrind"
printf '#include "strtab.h"\n#include <stdio.h>\n' >"$S/src/model/a.c"
printf '#include "../io/input.h"\n' >"$S/src/model/up.c"            # model -> io: up
printf '#include "../model/a.h"\n#include "../symbols/x.h"\n' >"$S/src/formats/f.h" # beside
printf '#include "../formats/format.h"\n#include "../symbols/lines.h"\n#include "../formats/gmon.h"\n#include "../export/e.h"\n' >"$S/src/analysis/g.c"
printf '#include "../analysis/x.h"\n# include "../report/r.h"\n' >"$S/src/export/e.c" # report: beside
printf '#include "./../../src/cli/cli.h"\n' >"$S/src/report/r.c"    # cli: up, spelt oddly
printf '#include "../export/e.h"\n#include "../model/a.h"\n' >"$S/src/cli/c.c" # fine
printf '#include "../model/a.h"\n' >"$S/src/gadgets/w.c"            # not a layer
printf '#include "../src/model/a.h"\n#include "tl_x.h"\n' >"$S/valgrind/tl_a.c"
: >"$S/src/stray.c"
awk 'BEGIN { for (i = 0; i < 1501; i++) print "x;" }' >"$S/src/cli/long.c"
awk 'BEGIN { for (i = 0; i < 1500; i++) print "x;" }' >"$S/src/cli/limit.c"
printf 'int s(void)\n{\n    return pthread_create (&t, 0, f, 0);\n}\n' >"$S/src/formats/t.c"
printf 'int w(void)\n{\n    return pthread_create(&t, 0, f, 0);\n}\n' >"$S/src/io/worker.c" # fine
include_violations "$S" >"$TMP/planted.got"
long_files "$S" >>"$TMP/planted.got"
thread_starts "$S" >>"$TMP/planted.got"
cat >"$TMP/planted.want" <<'WANT'
src/analysis/g.c:1: analysis/ includes formats/format.h (an analysis or a report works on the model, it reads and writes no profile file)
src/analysis/g.c:4: analysis/ includes export/e.h (analysis/ may include: formats symbols io model)
src/export/e.c:2: export/ includes report/r.h (export/ may include: analysis formats symbols io model)
src/formats/f.h:2: formats/ includes symbols/x.h (formats/ may include: io model)
src/gadgets/w.c: src/gadgets/ is not a layer (add it to tests/style/layers.sh and docs/internals/architecture.md)
src/model/up.c:1: model/ includes io/input.h (model/ may include: nothing outside it)
src/report/r.c:1: report/ includes cli/cli.h (report/ may include: analysis formats symbols io model)
src/stray.c: a file directly in src/ belongs to no layer
valgrind/tl_a.c:1: valgrind/ includes ../src/model/a.h (the tool shares no code with the library)
src/cli/long.c: 1501 lines (at most 1500)
src/formats/t.c:3: starts a thread (threads start in src/io/worker.c only)
WANT
same_text "the checker reports each planted fault, and nothing else" "$TMP/planted.want" "$TMP/planted.got"

# ---- the tree
include_violations "$ROOT" >"$TMP/inc"
if [ -s "$TMP/inc" ]; then
    not_ok "includes run down the layers ($(wc -l <"$TMP/inc") violations)"
    diag <"$TMP/inc"
else
    ok "includes run down the layers (cli -> report/export -> analysis -> formats/symbols -> io -> model)"
fi
long_files "$ROOT" >"$TMP/long"
if [ -s "$TMP/long" ]; then
    not_ok "no C file of src/ or valgrind/ passes $MAX_LINES lines"
    diag <"$TMP/long"
else
    ok "no C file of src/ or valgrind/ passes $MAX_LINES lines"
fi
thread_starts "$ROOT" >"$TMP/threads"
if [ -s "$TMP/threads" ]; then
    not_ok "threads start in src/io/worker.c only"
    diag <"$TMP/threads"
else
    ok "threads start in src/io/worker.c only"
fi
echo "1..$TESTN"
