#!/bin/sh
# make install: stage into a temporary DESTDIR, move the tree elsewhere, then
# record and annotate a program with the installed binary alone (no build
# tree, no TALLY_VALGRIND_LIB); the man pages render without warnings; the
# bash completion completes commands, options and events; make uninstall
# removes every file it installed.
. "$(dirname "$0")/../lib.sh"

if [ "$TALLY" != "$ROOT/build/tally" ]; then
    ok "# SKIP install test runs for build/tally only"
    exit 0
fi
unset TALLY_VALGRIND_LIB TALLY_VALGRIND
STAGE=$TMP/stage
PREFIX=/opt/tally-test
if make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX="$PREFIX" >"$TMP/make.out" 2>&1; then
    ok "make install DESTDIR=... PREFIX=$PREFIX"
else
    not_ok "make install DESTDIR=... PREFIX=$PREFIX"; tail -n 30 "$TMP/make.out" | diag
    exit 0
fi

# Every installed file is a real file (the tool dir holds no links).
links=$(find "$STAGE" -type l)
if [ -z "$links" ]; then ok "no symbolic links installed"; else
    not_ok "no symbolic links installed"; echo "$links" | diag; fi
missing=""
for f in bin/tally lib/tally/tally-amd64-linux lib/tally/vgpreload_core-amd64-linux.so \
    lib/tally/default.supp lib/tally/tally-valgrind-version include/tally.h \
    share/man/man1/tally.1 share/bash-completion/completions/tally share/doc/tally/tally.md; do
    [ -f "$STAGE$PREFIX/$f" ] || missing="$missing $f"
done
for d in "$ROOT"/docs/tally*.md; do
    n=$(basename "$d" .md)
    [ -f "$STAGE$PREFIX/share/man/man1/$n.1" ] || missing="$missing $n.1"
done
if [ -z "$missing" ]; then ok "the installed tree has the binary, tool, header, man pages, completion, docs"; else
    not_ok "installed files"; echo "missing:$missing" | diag; fi

# Move the staged tree: the binary finds its tool relative to itself.
mv "$STAGE$PREFIX" "$TMP/moved"
T=$TMP/moved/bin/tally
mkdir -p "$TMP/run"
cat >"$TMP/run/prog.c" <<'EOF'
static int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i % 7; return s; }
int main(void) { return work(100000) == 42; }
EOF
cc -O0 -g -o "$TMP/run/prog" "$TMP/run/prog.c"
if command -v valgrind >/dev/null 2>&1; then
    (cd "$TMP/run" && env PATH=/usr/bin:/bin "$T" record -q --cache-sim=no --out-file=prof.out ./prog) \
        >"$TMP/rec.out" 2>&1
    if [ -s "$TMP/run/prof.out" ]; then ok "installed and moved tally records a program"; else
        not_ok "installed and moved tally records a program"; diag <"$TMP/rec.out"; fi
    (cd "$TMP/run" && "$T" annotate --threshold=100 prof.out) >"$TMP/ann.out" 2>&1
    # work() runs its loop 100000 times: it must be listed with at least that many Ir.
    w=$(awk '/ work / || /:work$/ || / prog\.c:work/ {gsub(",", "", $1); print $1; exit}' "$TMP/ann.out")
    if [ -n "$w" ] && [ "$w" -ge 100000 ]; then ok "installed tally annotates the profile (work: $w Ir)"; else
        not_ok "installed tally annotates the profile"; head -n 40 "$TMP/ann.out" | diag; fi
else
    ok "# SKIP valgrind is not installed"
fi

# The man pages render without a warning.
bad=""
for m in "$TMP"/moved/share/man/man1/*.1; do
    w=$(MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
    [ -n "$w" ] && bad="$bad $(basename "$m"): $w"
    MANWIDTH=80 man -l "$m" 2>/dev/null | grep -q '^NAME' || bad="$bad $(basename "$m"): no NAME"
done
if [ -z "$bad" ]; then ok "man -l renders every page without warnings"; else
    not_ok "man -l renders every page without warnings"; echo "$bad" | diag; fi
if MANWIDTH=80 man -l "$TMP/moved/share/man/man1/tally-annotate.1" 2>/dev/null | grep -q -- '--inclusive=yes'; then
    ok "tally-annotate(1) lists the options of docs/tally-annotate.md"
else
    not_ok "tally-annotate(1) lists the options of docs/tally-annotate.md"
fi

# bash completion: commands, options, event names from the profile.
if command -v bash >/dev/null 2>&1; then
    cat >"$TMP/comp.sh" <<EOF
. "$TMP/moved/share/bash-completion/completions/tally"
t() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); _tally; echo "\${COMPREPLY[*]}"; }
cd "$TMP/run"
t "$T" ann
t "$T" annotate --inclus
t "$T" annotate prof.out --show=I
t "$T" help fla
EOF
    bash "$TMP/comp.sh" >"$TMP/comp.out" 2>&1
    printf 'annotate\n--inclusive=\n--show=Ir\nflame\n' >"$TMP/comp.want"
    same_text "bash completion of commands, options and events" "$TMP/comp.want" "$TMP/comp.out"
fi

# make uninstall removes every file (the tree is moved back first).
mkdir -p "$STAGE/opt"
mv "$TMP/moved" "$STAGE$PREFIX"
make -s -C "$ROOT" uninstall DESTDIR="$STAGE" PREFIX="$PREFIX" >"$TMP/make.out" 2>&1
left=$(find "$STAGE" -type f)
if [ -z "$left" ]; then ok "make uninstall removes every installed file"; else
    not_ok "make uninstall removes every installed file"; echo "$left" | diag; fi
