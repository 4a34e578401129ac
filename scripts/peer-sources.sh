#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch the parts of Debian's `valgrind` source package that the peer tests
# run (Valgrind's own callgrind/tests and cachegrind/tests), once, into
# build/peer-src/SUITE/, and print the folder that holds them.
#
#   scripts/peer-sources.sh [SUITE]     SUITE: bookworm (default, 3.19), trixie (3.24)
#
# Nothing of Valgrind's is kept in tally's tree: the tests get it here at
# test time. apt-get does the work with a private sources list (deb-src
# only) and private lists and cache folders under build/, so it needs
# neither root nor any change to the system: `apt-get update` checks the
# suite's InRelease against the Debian archive keyring, and `apt-get source
# --download-only` checks every file it downloads against the hashes of the
# signed Sources index. From the upstream tarball only what the tests use is
# unpacked (into a scratch folder first, then renamed, so a half-done unpack
# is never taken for a finished one).
#
# Exit status: 0 with the folder on stdout; 1 with the reason on stderr when
# the source cannot be had (no apt-get, no keyring, the registry not
# reachable, a check failing); 2 for a bad argument.
# PEER_SRC_DIR overrides build/peer-src.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:-bookworm}
case $SUITE in
bookworm | trixie) ;;
*) echo "usage: scripts/peer-sources.sh [bookworm|trixie]" >&2; exit 2 ;;
esac
BASE=${PEER_SRC_DIR:-$ROOT/build/peer-src}/$SUITE
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# what the tests use, relative to the tarball's top folder
MEMBERS="callgrind/tests cachegrind/tests callgrind/callgrind.h include/valgrind.h
tests/true.c tests/filter_stderr_basic tests/filter_libc memcheck/tests/wrap5.c"

fail() { echo "peer-sources: $*" >&2; exit 1; }

# done before: the stamp names the unpacked folder and what it holds
stamp=$(printf '%s\n' "$MEMBERS")
if [ -f "$BASE/tree" ] && tree=$(head -n 1 "$BASE/tree") && [ -d "$tree" ] &&
    [ "$(tail -n +2 "$BASE/tree")" = "$stamp" ]; then
    echo "$tree"
    exit 0
fi

command -v bzip2 >/dev/null 2>&1 || fail "bzip2 is not installed: cannot unpack valgrind's .orig.tar.bz2"
mkdir -p "$BASE/dl" || fail "cannot create $BASE"

# the download, once (dl.ok: apt-get source finished and checked it)
log=$BASE/apt.log
if [ ! -f "$BASE/dl.ok" ]; then
    rm -f "$BASE"/dl/*
    command -v apt-get >/dev/null 2>&1 || fail "apt-get is not installed: cannot fetch Debian's valgrind source package"
    [ -r "$KEYRING" ] || fail "$KEYRING is missing (package debian-archive-keyring): cannot check the source package's signatures"
    mkdir -p "$BASE/lists/partial" "$BASE/cache/archives/partial" "$BASE/dl" || fail "cannot create $BASE"
    cat >"$BASE/peer.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITE
Components: main
Signed-By: $KEYRING
EOF
    # the system's apt.conf (a proxy, say) still applies; the sources, lists,
    # caches and the package status are ours
    set -- -q -o Dir::Etc::SourceList="$BASE/peer.sources" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$BASE/lists" -o Dir::Cache="$BASE/cache" -o Dir::State::status=/dev/null
    # as root, apt drops to the user _apt to download, which cannot write here
    [ "$(id -u)" = 0 ] && set -- "$@" -o APT::Sandbox::User=root

    if ! apt-get "$@" --error-on=any update >"$log" 2>&1; then
        tail -n 5 "$log" >&2
        fail "apt-get update of Debian $SUITE's deb-src index failed (log: $log)"
    fi
    if ! (cd "$BASE/dl" && apt-get "$@" source --download-only valgrind) >>"$log" 2>&1; then
        tail -n 5 "$log" >&2
        fail "apt-get source --download-only valgrind ($SUITE) failed (log: $log)"
    fi
    : >"$BASE/dl.ok"
    # the index (some 30 MB with apt's caches) is not needed any more
    rm -rf "$BASE/lists" "$BASE/cache"
fi
set -- "$BASE"/dl/valgrind_*.orig.tar.bz2
[ -f "$1" ] && [ $# = 1 ] || fail "expected one valgrind_*.orig.tar.bz2 in $BASE/dl after apt-get source"
tarball=$1
version=${tarball##*/valgrind_}
version=${version%.orig.tar.bz2}
top=valgrind-$version

tmp=$BASE/unpack.$$
rm -rf "$tmp"
mkdir -p "$tmp" || fail "cannot create $tmp"
list=""
for m in $MEMBERS; do list="$list $top/$m"; done
# shellcheck disable=SC2086
if ! tar -xjf "$tarball" -C "$tmp" $list 2>"$tmp.err"; then
    cat "$tmp.err" >&2
    rm -rf "$tmp" "$tmp.err"
    fail "cannot unpack $list from $tarball"
fi
rm -f "$tmp.err"
rm -rf "${BASE:?}/$top"
mv "$tmp/$top" "$BASE/$top" && rmdir "$tmp" || fail "cannot move the unpacked tree to $BASE/$top"
printf '%s\n%s\n' "$BASE/$top" "$stamp" >"$BASE/tree"
echo "$BASE/$top"
