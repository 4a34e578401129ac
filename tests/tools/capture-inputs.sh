#!/bin/sh
# Make a frozen set of inputs for capture.sh: real profiles of the example
# programs (valgrind callgrind/cachegrind, tally record, gmon.out of -pg
# programs) plus the repository's own test data. Run once; capture.sh
# only reads them, so two captures see the same bytes. Needs build/tally
# (with its Valgrind tool), valgrind and gcc/g++.
#   tests/tools/capture-inputs.sh ROOT INDIR
set -e
ROOT=$(cd "$1" && pwd); IN=$2
mkdir -p "$IN"; IN=$(cd "$IN" && pwd)
T="$ROOT/build/tally"
make -s -C "$ROOT/examples" >/dev/null
make -s -C "$ROOT/examples/gprof" OUT="$IN/gp" >/dev/null
cd "$ROOT/examples"
q="valgrind -q"
X="--dump-instr=yes --collect-jumps=yes --cache-sim=yes --branch-sim=yes"
$q --tool=callgrind --callgrind-out-file="$IN/cg.recurse.out" ./recurse >/dev/null
$q --tool=callgrind --callgrind-out-file="$IN/cg.wordfreq.out" ./wordfreq 3000 >/dev/null
$q --tool=callgrind $X --callgrind-out-file="$IN/cgx.matrix.out" ./matrix 20 >/dev/null
$q --tool=callgrind --dump-every-bb=20000 --combine-dumps=yes --callgrind-out-file="$IN/cgparts.recurse.out" ./recurse >/dev/null
$q --tool=cachegrind --cachegrind-out-file="$IN/cache.wordfreq.out" ./wordfreq 3000 >/dev/null
$q --tool=cachegrind --cachegrind-out-file="$IN/cache.wordfreq2.out" ./wordfreq 5000 >/dev/null
"$T" record --contexts=yes --out-file="$IN/rec.recurse.out" --contexts-out-file="$IN/rec.recurse.ctx" ./recurse >/dev/null 2>&1 || true
"$T" record --contexts=yes --out-file="$IN/rec.wordfreq.out" --contexts-out-file="$IN/rec.wordfreq.ctx" ./wordfreq 2000 >/dev/null 2>&1 || true
cd "$ROOT/examples/gprof"
for p in cycles selfrec cs shapes; do
    ( cd "$IN/gp" && "./$p" >/dev/null 2>&1; mv gmon.out "gmon.$p" ) || true
done
( cd "$IN/gp" && ./selfrec >/dev/null 2>&1; mv gmon.out gmon.selfrec2 ) || true
cp "$ROOT"/tests/data/callgrind/*.out "$ROOT"/tests/golden/annotate/*.out "$IN/"
cp "$ROOT/tests/golden/complexity/r1.aprof" "$IN/"
cp "$ROOT"/tests/fuzz/corpus/fuzz_convert/* "$IN/"
for f in "$ROOT"/tests/fuzz/corpus/fuzz_contexts/*.ctx; do cp "$f" "$IN/fz.${f##*/}"; done
make -s -C "$ROOT/examples/complexity" >/dev/null
cd "$ROOT/examples/complexity"
"$T" record --input-sensitive=yes --out-file="$IN/isort.cg" --aprof-out-file="$IN/isort.aprof" \
    ./isort >/dev/null 2>&1
rm -f "$IN/isort.cg"
echo "inputs in $IN"
