#!/bin/sh
# Install the Debian 12 packages tally needs to build, test and demo,
# skipping those already present. Runs apt-get update at most once.
set -e
PKGS="gcc g++ make pkg-config clang clang-format libclang-rt-14-dev valgrind perl python3 binutils \
zlib1g-dev libzstd-dev libpcre2-dev libcmocka-dev libelf-dev libdw-dev libiberty-dev gzip zstd time bzip2 graphviz chromium protobuf-compiler golang-go sqlite3 jq"
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
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
