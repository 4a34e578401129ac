#!/bin/sh
# Install the Debian 12 packages tally needs, skipping those already present.
# Runs apt-get update at most once; apt's own output goes to a log that is
# shown only when apt fails.
#
#   scripts/install-deps.sh [build|demo|all]
#     build  to build tally and `make install` (the man pages need lowdown)
#     demo   build, plus what `make demo` runs (Valgrind, Graphviz, gzip)
#     all    demo, plus what the tests and the benchmark use (default)
set -e
BUILD="gcc make pkg-config valgrind python3 zlib1g-dev libzstd-dev libpcre2-dev libelf-dev libdw-dev \
libiberty-dev libmicrohttpd-dev libcapstone-dev lowdown"
DEMO="$BUILD graphviz gzip"
ALL="$DEMO g++ clang clang-format libclang-rt-14-dev perl binutils libcmocka-dev zstd time bzip2 \
chromium protobuf-compiler golang-go sqlite3 jq man-db php-cli php-xdebug \
pyprof2calltree chromium-driver python3-selenium apache2-utils"
case ${1:-all} in
build) PKGS=$BUILD ;;
demo) PKGS=$DEMO ;;
all) PKGS=$ALL ;;
*) echo "usage: scripts/install-deps.sh [build|demo|all]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "tally: installing missing Debian packages:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "tally: need root (or sudo) to install:$missing" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/tally-apt.XXXXXX")
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "tally: apt-get failed to install:$missing" >&2
    exit 1
fi
