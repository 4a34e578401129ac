#!/bin/sh
# The symbol layer (src/symbols) on real executables built here with
# gcc/g++ -g -pg: PIE, -no-pie, -O2 (inlining, .constprop clones), C++.
# Oracles: GNU gprof 2.40's own debug trace (-d128 prints the symbol table it
# builds, and with -l every get_src_info answer and the line-symbol table),
# nm (addresses of the kept symbols), addr2line (file:line of each function)
# and c++filt (demangling). Driven through build/tests/test_symbols's dump mode.
. "$(dirname "$0")/../lib.sh"

UNIT=$ROOT/build/tests/test_symbols
if [ ! -x "$UNIT" ]; then
    not_ok "symbols: $UNIT is not built (make unit)"
    exit 0
fi
for tool in gcc g++ gprof nm addr2line c++filt; do
    if ! command -v $tool >/dev/null 2>&1; then
        ok "# SKIP symbols: $tool is not installed"
        exit 0
    fi
done

cat >"$TMP/cyc.c" <<'SRC'
#include <stdio.h>
static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n * 10; i++)
        s += i % 7;
    return s;
}
int b(int n);
int a(int n)
{
    if (n <= 0)
        return work(1);
    return b(n - 1) + work(n);
}
int b(int n) { if (n <= 0) return 0; return a(n - 1) + 1; }
void leaf(void) {}
int main(void)
{
    int t = 0;
    for (int i = 0; i < 3; i++) {
        t += a(5);
        leaf();
    }
    printf("%d\n", t);
    return 0;
}
SRC
cat >"$TMP/inl.c" <<'SRC'
#include <stdio.h>
static inline __attribute__((always_inline)) int sq(int x)
{
    return x * x + 3;
}
static __attribute__((noinline)) int scale(int x, int k)
{
    if (k == 0)
        return x;
    return x * k;
}
int g(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += sq(i) + scale(i, 5);
    return s;
}
int main(int argc, char **argv)
{
    (void)argv;
    printf("%d\n", g(argc * 100));
    return 0;
}
SRC
cat >"$TMP/cpp.cc" <<'SRC'
#include <cstdio>
namespace ns {
struct K {
    int v;
    int get(int x) const { return v * x; }
};
} // namespace ns
template <typename T> T twice(T x) { return x + x; }
static int hidden(int x) { return x ^ 5; }
int main(int argc, char **)
{
    ns::K k{argc};
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += k.get(i) + twice(i) + hidden(i) + (int)twice(1.5);
    std::printf("%d\n", s);
    return 0;
}
SRC
# A function from a header is the first code of its unit, so the line
# program's first sequence never sets the file register. gprof 2.40's BFD
# takes that as file entry 0 (the unit's own file) in a DWARF 5 table and
# entry 1 (here hdr.h, as the standard says) before DWARF 5: twice() is
# reported at hdr.c:2 with -gdwarf-5 but hdr.h:2 with -gdwarf-4.
cat >"$TMP/hdr.h" <<'SRC'
static int twice(int x)
{
    return x + x;
}
SRC
cat >"$TMP/hdr.c" <<'SRC'
#include <stdio.h>
#include "hdr.h"
int main(void)
{
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += twice(i);
    printf("%d\n", s);
    return 0;
}
SRC

cd "$TMP" || exit 1
built=""
build() { # NAME COMPILER ARGS...
    name=$1; shift
    if "$@" >"$TMP/build.log" 2>&1; then built="$built $name"; else
        not_ok "build $name"; diag <"$TMP/build.log"; fi
}
build cyc gcc -g -pg -O0 -o cyc cyc.c
build cycnp gcc -g -pg -O0 -no-pie -o cycnp cyc.c
build inl gcc -g -pg -O2 -o inl inl.c
build cpp g++ -g -pg -O0 -o cpp cpp.cc
build hdr5 gcc -gdwarf-5 -pg -O0 -o hdr5 hdr.c
build hdr4 gcc -gdwarf-4 -pg -O0 -o hdr4 hdr.c

# gprof's table (its debug trace) against ours
gprof_syms() { # BIN OPTS...: the first finalised table
    bin=$1; shift
    gprof -b -p -d128 "$@" "$bin" "$TMP/none.gmon" 2>/dev/null | grep '^\[symtab_finalize\] 0x' |
        awk 'seen[$0]++ == 0'
}
for bin in $built; do
    for opt in "" -a -D; do
        gprof_syms $bin $opt >"$TMP/want" 2>/dev/null
        n=$(wc -l <"$TMP/want")
        if [ "$n" -lt 5 ]; then
            ok "# SKIP $bin $opt: this gprof prints no -d128 trace"
            continue
        fi
        "$UNIT" --dump $bin $opt >"$TMP/got" 2>&1
        same_text "$bin ${opt:-default}: $n symbols and ranges as gprof builds them" "$TMP/want" "$TMP/got"
    done
done

# gprof -l: every get_src_info answer over .text and the line-symbol table
for bin in cyc cycnp inl cpp hdr5 hdr4; do
    case " $built " in *" $bin "*) ;; *) continue ;; esac
    # (the trace is on standard output; gprof's complaint about none.gmon on
    # standard error would land inside a buffered trace line)
    gprof -b -p -l -d128 $bin "$TMP/none.gmon" >"$TMP/trace" 2>/dev/null
    "$UNIT" --walk $bin >"$TMP/got"
    n=$(wc -l <"$TMP/got")
    grep '^\[get_src_info\] 0x' "$TMP/trace" | tail -n "$n" |
        sed 's/^\[get_src_info\] \(0x[0-9a-f]*\) -> /\1 /' >"$TMP/want"
    same_text "$bin: file:line (function) of each of $n .text bytes as gprof -l sees them" \
        "$TMP/want" "$TMP/got"
    sed -n '/^\[core_create_line_syms\]/,$p' "$TMP/trace" | grep '^\[symtab_finalize\] 0x' |
        awk 'seen[$0]++ == 0' >"$TMP/want"
    "$UNIT" --lsyms $bin >"$TMP/got"
    same_text "$bin: gprof -l's line-symbol table ($(wc -l <"$TMP/want") symbols)" "$TMP/want" "$TMP/got"
done

# the file register's first value, by DWARF version (see hdr.c above)
for v in 5 4; do
    case " $built " in *" hdr$v "*) ;; *) continue ;; esac
    want=hdr.c
    [ $v = 4 ] && want=hdr.h
    "$UNIT" --walk hdr$v | grep '(twice)$' | head -n 1 >"$TMP/got"
    if grep -q "/$want:2 (twice)\$" "$TMP/got"; then ok "hdr$v: twice() is at $want:2, as gprof says"; else
        not_ok "hdr$v: twice() is at $want:2, as gprof says"; diag <"$TMP/got"; fi
done

# nm: every kept symbol is there at that address with a text or weak class
for bin in $built; do
    nm "$bin" | awk 'NF == 3 { print $3, $1, $2 }' | sort >"$TMP/nm"
    "$UNIT" --dump $bin | sed 's/^\[symtab_finalize\] 0x\([0-9a-f]*\)-0x[0-9a-f]*\t\(.*\)$/\2 \1/' |
        sort >"$TMP/ours"
    bad=$(awk 'NR == FNR { addr[$1] = $2 + 0; cls[$1] = $3; next }
        { if (!($1 in cls)) print "not in nm: " $1
          else if (cls[$1] !~ /^[TtWw]$/) print "class " cls[$1] ": " $1 }' "$TMP/nm" "$TMP/ours")
    addrs_ok=yes
    while read -r name addr; do
        grep -q "^$name 0*$addr [TtWw]\$" "$TMP/nm" || { addrs_ok=no; echo "address of $name: $addr"; }
    done <"$TMP/ours" >"$TMP/nmdiff"
    if [ -z "$bad" ] && [ $addrs_ok = yes ]; then ok "$bin: symbols agree with nm"; else
        not_ok "$bin: symbols agree with nm"; { echo "$bad"; cat "$TMP/nmdiff"; } | diag; fi
done

# addr2line: file:line of every function symbol that has one
for bin in cyc cycnp cpp; do
    case " $built " in *" $bin "*) ;; *) continue ;; esac
    "$UNIT" --files $bin | grep -v '^\[' | grep -v ' <unknown>:0$' >"$TMP/ours"
    "$UNIT" --dump $bin | sed 's/^\[symtab_finalize\] \(0x[0-9a-f]*\)-0x[0-9a-f]*\t\(.*\)$/\2 \1/' >"$TMP/addrs"
    while read -r name loc; do
        addr=$(awk -v n="$name" '$1 == n { print $2; exit }' "$TMP/addrs")
        echo "$name $(addr2line -e $bin $addr | sed 's/ (discriminator [0-9]*)//')"
    done <"$TMP/ours" >"$TMP/want"
    if [ -s "$TMP/ours" ]; then
        same_text "$bin: function file:line agree with addr2line ($(wc -l <"$TMP/ours"))" "$TMP/want" "$TMP/ours"
    else
        not_ok "$bin: no function has a file:line"
    fi
done

# c++filt: demangled names
case " $built " in *" cpp "*)
    nm cpp | awk '{ print $NF }' | grep '^_Z' | sort -u >"$TMP/mangled"
    c++filt <"$TMP/mangled" >"$TMP/want"
    # shellcheck disable=SC2046
    "$UNIT" --demangle $(cat "$TMP/mangled") >"$TMP/got"
    same_text "cpp: $(wc -l <"$TMP/mangled") names demangled as c++filt does" "$TMP/want" "$TMP/got"
    ;;
esac

# errors: stripped, not ELF, missing
if [ -n "$built" ]; then
    strip -o stripped cyc 2>/dev/null
    if "$UNIT" --dump stripped >"$TMP/out" 2>"$TMP/err"; then
        not_ok "stripped executable refused"
    elif grep -q "file \`stripped' has no symbols" "$TMP/err"; then ok "stripped executable: has no symbols"; else
        not_ok "stripped executable: message"; diag <"$TMP/err"; fi
fi
echo "not an executable" >text.txt
"$UNIT" --dump text.txt 2>"$TMP/err" >/dev/null
if [ $? -eq 1 ] && grep -q 'text.txt: not an ELF file' "$TMP/err"; then ok "non-ELF file refused"; else
    not_ok "non-ELF file refused"; diag <"$TMP/err"; fi
