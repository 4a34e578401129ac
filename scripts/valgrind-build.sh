#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build a Valgrind release from Debian's copy of its source, for
# `make check-valgrind` (docs/tally-record.md, "Other Valgrind versions").
#
#   scripts/valgrind-build.sh SUITE [PREFIX]
#     SUITE   bookworm (3.19.0), trixie (3.24.0) or sid (the newest Debian
#             has, 3.27.1 when this was written)
#     PREFIX  where it is installed (default build/vg/VERSION)
#
# The upstream tarball comes from scripts/peer-sources.sh (apt-get source,
# checked against Debian's signed index); Debian's own patches are not
# applied: this is the release as its authors tagged it. It is configured
# for amd64 Linux, built with make -j$(nproc) and installed into PREFIX,
# once: a finished install (PREFIX/.tally-built) is kept. Prints PREFIX.
# Building takes a while (some 10 minutes on 2 cores).
#
# Exit status: 0 with PREFIX on stdout; 1 with the reason on stderr.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:-}
case $SUITE in bookworm | trixie | sid) ;; *) echo "usage: scripts/valgrind-build.sh bookworm|trixie|sid [PREFIX]" >&2; exit 1 ;; esac
fail() { echo "valgrind-build: $*" >&2; exit 1; }

src=$(sh "$ROOT/scripts/peer-sources.sh" valgrind "$SUITE" all) || fail "no source for $SUITE"
version=${src##*/valgrind-}
PREFIX=${2:-$ROOT/build/vg/$version}
case $PREFIX in /*) ;; *) PREFIX=$PWD/$PREFIX ;; esac
if [ -f "$PREFIX/.tally-built" ] && [ -x "$PREFIX/bin/valgrind" ]; then
    echo "$PREFIX"
    exit 0
fi
for t in make gcc; do command -v $t >/dev/null 2>&1 || fail "$t is not installed"; done
work=$ROOT/build/vg/src-$version
log=$ROOT/build/vg/build-$version.log
rm -rf "$work"
mkdir -p "$ROOT/build/vg" && cp -a "$src" "$work" || fail "cannot copy $src to $work"
echo "valgrind-build: building Valgrind $version into $PREFIX (log: $log)" >&2
jobs=$(nproc 2>/dev/null || echo 2)
if ! (cd "$work" && ./configure --prefix="$PREFIX" --enable-only64bit && make -j"$jobs" && make install) \
    >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    fail "the build of Valgrind $version failed (log: $log)"
fi
: >"$PREFIX/.tally-built"
rm -rf "$work"
echo "$PREFIX"
