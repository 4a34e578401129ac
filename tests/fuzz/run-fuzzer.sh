#!/bin/sh
# Run one libFuzzer binary for SECONDS on a copy of its seed corpus
# (tests/fuzz/corpus/NAME plus tests/data), printing a TAP line.
bin=$1 secs=${2:-10}
name=${bin##*/}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tally-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
[ -d "$root/tests/fuzz/corpus/$name" ] && cp "$root/tests/fuzz/corpus/$name"/* "$work/corpus/" 2>/dev/null
if "$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1; then
    echo "ok 1 - $name ran $secs s without a crash"
    grep -E '^(#[0-9]+ +DONE|Done)' "$work/log" | tail -n 1 | sed 's/^/# /'
else
    echo "not ok 1 - $name found a problem"
    tail -n 40 "$work/log" | sed 's/^/# /'
    for a in "$work"/crash-* "$work"/timeout-* "$work"/leak-* "$work"/oom-*; do
        [ -f "$a" ] && { mkdir -p "$root/build/fuzz-artifacts"; cp "$a" "$root/build/fuzz-artifacts/"; echo "# saved build/fuzz-artifacts/${a##*/}"; }
    done
    exit 1
fi
