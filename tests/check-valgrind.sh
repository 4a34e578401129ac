#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-valgrind VALGRIND_PREFIX=DIR: tally's Valgrind tool built
# against the Valgrind installed in DIR (scripts/valgrind-build.sh SUITE
# makes one from Debian's copy of a release), then the record peer suites
# run with that Valgrind: the events against its Cachegrind, the call graph
# against its Callgrind, the programs that know their own answer, the
# options and client requests. Prints each suite's verdict and ends with
# "N passed, N failed"; the logs go to build/vgtool/VERSION/logs/.
#
#   sh tests/check-valgrind.sh DIR [SUITE...]   (SUITE: tests/peer/NAME.sh; default: all of them below)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
P=${1:-}
[ -n "$P" ] && shift
case $P in /*) ;; "") ;; *) P=$PWD/$P ;; esac
# its pkg-config file: DIR/lib/pkgconfig, or Debian's multiarch place (/usr)
PC=""
for d in "$P/lib/pkgconfig" "$P"/lib/*/pkgconfig; do
    [ -f "$d/valgrind.pc" ] && { PC=$d; break; }
done
if [ -z "$P" ] || [ ! -x "$P/bin/valgrind" ] || [ -z "$PC" ]; then
    echo "check-valgrind: VALGRIND_PREFIX must name an installed Valgrind (DIR/bin/valgrind and" >&2
    echo "DIR/lib/pkgconfig/valgrind.pc); scripts/valgrind-build.sh trixie|sid builds one," >&2
    echo "/usr is Debian's" >&2
    exit 2
fi
version=$(PKG_CONFIG_LIBDIR=$PC pkg-config --modversion valgrind)
B=$ROOT/build/vgtool/$version
LOGS=$B/logs
mkdir -p "$LOGS"
echo "== tally's tool against Valgrind $version ($P)"
# the tool, with the compiler's warnings kept: it must build with none
if ! PKG_CONFIG_LIBDIR=$PC make -s -C valgrind B="$B" VGLIBEXEC="$P/libexec/valgrind" \
    >"$LOGS/build.log" 2>&1; then
    cat "$LOGS/build.log"
    echo "0 passed, 1 failed"
    exit 1
fi
warnings=$(grep -c 'warning:' "$LOGS/build.log")
pass=0 fail=0
if [ "$warnings" = 0 ]; then
    echo "ok   the tool builds without a warning"
    pass=1
else
    echo "FAIL the tool builds with $warnings warnings:"
    grep 'warning:' "$LOGS/build.log" | head -n 20
    fail=1
fi
[ $# = 0 ] && set -- record callgraph events cacheuse cacheopts branchsim runcost options fnpat truth
export VALGRIND_PREFIX=$P TALLY_TOOL_LIB=$B/valgrind/lib PATH=$P/bin:$PATH
for t in "$@"; do
    log=$LOGS/$t.log
    start=$(date +%s)
    sh "tests/peer/$t.sh" >"$log" 2>&1 </dev/null
    rc=$?
    p=$(grep -c '^ok ' "$log")
    f=$(grep '^not ok ' "$log" | grep -vc ' # TODO ')
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
    [ "$p" = 0 ] && [ "$f" = 0 ] && f=1
    pass=$((pass + p)) fail=$((fail + f))
    if [ "$f" = 0 ]; then
        echo "ok   peer/$t ($p passed, $(($(date +%s) - start))s)"
    else
        echo "FAIL peer/$t ($p passed, $f failed, $(($(date +%s) - start))s; $log)"
        grep '^not ok ' "$log" | head -n 10 | sed 's/^/     /'
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
