#!/bin/sh
# The rules every C file of tally keeps (the valgrind/ tool has its own
# flags and layout): clang-format with the project's .clang-format, and
# no warning under -Wall -Wextra (and the build's other warnings) from
# either compiler: gcc with -O2 so that its flow-based warnings run too,
# clang with -fsyntax-only (its flow-based warnings run in the front end).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

# the tracked files; outside a git checkout, what is on disk
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files '*.c' '*.h' | grep -v '^valgrind/' >"$TMP/files"
else
    find src tests examples bench -name '*.[ch]' | sort >"$TMP/files"
fi

if ! command -v clang-format >/dev/null 2>&1; then
    not_ok "clang-format is installed (make deps installs it)"
elif xargs clang-format --dry-run --Werror <"$TMP/files" >"$TMP/fmt" 2>&1; then
    ok "every C file is clang-formatted ($(wc -l <"$TMP/files") files)"
else
    not_ok "every C file is clang-formatted (make format fixes it)"
    grep 'error:' "$TMP/fmt" | cut -d: -f1 | sort | uniq -c | diag
fi

WARN="-std=c17 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter"
# the library, the command, the unit tests and the fuzz harnesses
grep -E '^(src|tests/unit|tests/fuzz)/.*\.c$' "$TMP/files" >"$TMP/csrc"
for cc in gcc clang; do
    if ! command -v $cc >/dev/null 2>&1; then
        not_ok "$cc is installed"
        continue
    fi
    case $cc in gcc) mode="-O2 -c -o /dev/null" ;; *) mode=-fsyntax-only ;; esac
    # two at a time; a file's warnings land in its own log
    : >"$TMP/$cc.log"
    if xargs -P 2 -I{} sh -c "$cc $WARN -Werror $mode -Isrc -Itests/unit {} \
            >>'$TMP/$cc.log' 2>&1 || echo 'FAILED {}' >>'$TMP/$cc.log'" <"$TMP/csrc" &&
        ! grep -q '^FAILED' "$TMP/$cc.log"; then
        ok "$cc -Wall -Wextra -Werror: no warning in $(wc -l <"$TMP/csrc") files"
    else
        not_ok "$cc -Wall -Wextra -Werror: no warning"
        head -n 60 "$TMP/$cc.log" | diag
    fi
done
echo "1..$TESTN"
