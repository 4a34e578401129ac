#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch the test files of a Debian source package that a peer test runs,
# once, into build/peer-src/SUITE/, and print the folder that holds them
# (the upstream tarball's top folder, with only those files unpacked).
#
#   scripts/peer-sources.sh PACKAGE [SUITE]
#     PACKAGE  valgrind: callgrind/tests, cachegrind/tests and what they include
#                        (trixie and sid: also cg_annotate.in, cg_diff.in, cg_merge.in)
#              glibc:    gmon/ (the tst-gmon programs and the scripts that check
#                        gprof's output on them; binutils' gprof/testsuite is a
#                        copy of these, from binutils 2.45 on)
#     SUITE    bookworm (default), trixie or sid
#   scripts/peer-sources.sh [SUITE]   the same as `valgrind SUITE`
#   scripts/peer-sources.sh PACKAGE SUITE all
#              the whole tarball, unpacked into build/peer-src/SUITE/all/
#              (scripts/valgrind-build.sh builds Valgrind from it)
#
# Nothing of these packages is kept in tally's tree: the tests get it here
# at test time. apt-get does the work with a private sources list (deb-src
# only) and private lists and cache folders under build/, so it needs
# neither root nor any change to the system: `apt-get update` checks the
# suite's InRelease against the Debian archive keyring, and `apt-get source
# --download-only` checks every file it downloads against the hashes of the
# signed Sources index. The tarball is unpacked into a scratch folder first,
# then renamed, so a half-done unpack is never taken for a finished one;
# runs at the same time wait for each other (flock).
#
# Exit status: 0 with the folder on stdout; 1 with the reason on stderr when
# the source cannot be had (no apt-get, no keyring, the registry not
# reachable, a check failing); 2 for a bad argument.
# PEER_SRC_DIR overrides build/peer-src.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-bookworm} in bookworm | trixie | sid) set -- valgrind "$@" ;; esac
PKG=$1
SUITE=${2:-bookworm}
WHOLE=${3:-}
usage() { echo "usage: scripts/peer-sources.sh PACKAGE [bookworm|trixie|sid] [all] (PACKAGE: valgrind, glibc)" >&2; exit 2; }
case $SUITE in bookworm | trixie | sid) ;; *) usage ;; esac
case $WHOLE in "" | all) ;; *) usage ;; esac
# what the tests use, relative to the tarball's top folder
case $PKG in
valgrind) MEMBERS="callgrind/tests cachegrind/tests callgrind/callgrind.h include/valgrind.h
tests/true.c tests/filter_stderr_basic tests/filter_libc memcheck/tests/wrap5.c"
    # Valgrind 3.21+ (trixie, sid): the Python cg_annotate, cg_diff and cg_merge,
    # which tests/peer/cga321.sh runs as oracles (3.19 has no cg_merge.in)
    [ "$SUITE" = bookworm ] || MEMBERS="$MEMBERS cachegrind/cg_annotate.in cachegrind/cg_diff.in cachegrind/cg_merge.in" ;;
glibc) MEMBERS="gmon" ;;
*) usage ;;
esac
BASE=${PEER_SRC_DIR:-$ROOT/build/peer-src}/$SUITE
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

fail() { echo "peer-sources: $*" >&2; exit 1; }

mkdir -p "$BASE/dl-$PKG" || fail "cannot create $BASE"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$BASE/lock"
    flock 9 || fail "cannot lock $BASE/lock"
fi

# the whole tarball goes to a folder of its own
TREES=$BASE
if [ -n "$WHOLE" ]; then
    MEMBERS=""
    TREES=$BASE/all
    mkdir -p "$TREES" || fail "cannot create $TREES"
fi
# done before: the stamp names the unpacked folder and what it holds (a
# new list of members unpacks again, from the download kept)
stamp=$(printf '%s\n' "${MEMBERS:-(all)}")
if [ -f "$TREES/$PKG.tree" ] && tree=$(head -n 1 "$TREES/$PKG.tree") && [ -d "$tree" ] &&
    [ "$(tail -n +2 "$TREES/$PKG.tree")" = "$stamp" ]; then
    echo "$tree"
    exit 0
fi

# the download, once ($PKG.ok: apt-get source finished and checked it)
log=$BASE/apt-$PKG.log
if [ ! -f "$BASE/$PKG.ok" ]; then
    rm -f "$BASE/dl-$PKG"/*
    command -v apt-get >/dev/null 2>&1 || fail "apt-get is not installed: cannot fetch Debian's $PKG source package"
    [ -r "$KEYRING" ] || fail "$KEYRING is missing (package debian-archive-keyring): cannot check the source package's signatures"
    mkdir -p "$BASE/lists/partial" "$BASE/cache/archives/partial" || fail "cannot create $BASE"
    cat >"$BASE/peer.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITE
Components: main
Signed-By: $KEYRING
EOF
    # the system's apt.conf (a proxy, say) still applies; the sources, lists,
    # caches and the package status are ours
    # (an empty status file and parts folder of ours, not /dev/null: apt reads them)
    mkdir -p "$BASE/parts" && : >"$BASE/status" || fail "cannot create $BASE"
    set -- -q -o Dir::Etc::SourceList="$BASE/peer.sources" -o Dir::Etc::SourceParts="$BASE/parts" \
        -o Dir::State::Lists="$BASE/lists" -o Dir::Cache="$BASE/cache" -o Dir::State::status="$BASE/status"
    # as root, apt drops to the user _apt to download, which cannot write here
    [ "$(id -u)" = 0 ] && set -- "$@" -o APT::Sandbox::User=root

    if ! apt-get "$@" --error-on=any update >"$log" 2>&1; then
        tail -n 5 "$log" >&2
        fail "apt-get update of Debian $SUITE's deb-src index failed (log: $log)"
    fi
    if ! (cd "$BASE/dl-$PKG" && apt-get "$@" source --download-only "$PKG") >>"$log" 2>&1; then
        tail -n 5 "$log" >&2
        fail "apt-get source --download-only $PKG ($SUITE) failed (log: $log)"
    fi
    : >"$BASE/$PKG.ok"
    # the index (some 30 MB with apt's caches) is not needed any more
    rm -rf "$BASE/lists" "$BASE/cache"
fi
# the tarball (not its detached signature, .asc, which apt-get fetches too)
set --
for f in "$BASE/dl-$PKG/${PKG}"_*.orig.tar.xz "$BASE/dl-$PKG/${PKG}"_*.orig.tar.bz2 \
    "$BASE/dl-$PKG/${PKG}"_*.orig.tar.gz; do
    [ -f "$f" ] && set -- "$@" "$f"
done
[ $# = 1 ] || fail "expected one ${PKG}_*.orig.tar.* in $BASE/dl-$PKG after apt-get source"
tarball=$1
case $tarball in
*.xz) unz=-J need=xz ;;
*.bz2) unz=-j need=bzip2 ;;
*.gz) unz=-z need=gzip ;;
*) fail "$tarball: unknown compression" ;;
esac
command -v $need >/dev/null 2>&1 || fail "$need is not installed: cannot unpack $tarball"
version=${tarball##*/"${PKG}"_}
version=${version%.orig.tar.*}
top=$PKG-$version

tmp=$BASE/unpack.$$
rm -rf "$tmp"
mkdir -p "$tmp" || fail "cannot create $tmp"
list=""
for m in $MEMBERS; do list="$list $top/$m"; done
[ -n "$WHOLE" ] && list=$top
# shellcheck disable=SC2086
if ! tar -x $unz -f "$tarball" -C "$tmp" $list 2>"$tmp.err"; then
    cat "$tmp.err" >&2
    rm -rf "$tmp" "$tmp.err"
    fail "cannot unpack $list from $tarball"
fi
rm -f "$tmp.err"
rm -rf "${TREES:?}/$top"
mv "$tmp/$top" "$TREES/$top" && rmdir "$tmp" || fail "cannot move the unpacked tree to $TREES/$top"
printf '%s\n%s\n' "$TREES/$top" "$stamp" >"$TREES/$PKG.tree"
echo "$TREES/$top"
