#!/bin/sh
# Capture what every tally command prints and writes, for byte-identity
# checks across a refactoring:
#   capture.sh INDIR OUTDIR        (TALLY: the binary, default build/tally)
# INDIR is a frozen set of inputs (tests/tools/capture-inputs.sh makes
# one). Every case leaves OUTDIR/NAME.out (stdout), NAME.err (stderr), NAME.rc (exit status)
# and the files it writes (NAME.f.*). Compare two runs with diff -r.
IN=$(cd "$1" && pwd); OUT=$2
TALLY=${TALLY:-build/tally}
TALLY=$(cd "$(dirname "$TALLY")" && pwd)/$(basename "$TALLY")
# every run writes in the same place (paths show in messages), then moves
FINAL=$OUT; OUT=${CAPTURE_WORK:-/tmp/tally-capture.work}
rm -rf "$OUT" "$FINAL"; mkdir -p "$OUT"
export TMPDIR="$OUT/.tmp"; mkdir -p "$TMPDIR"
cd "$IN" || exit 1
n=0
# run NAME ARGS...: tally ARGS with stdout/stderr/rc captured; the
# placeholder @F@ in ARGS becomes an output file OUT/NAME.f
run() {
    name=$1; shift
    of="$OUT/$name.f"
    set -- $(for a in "$@"; do printf '%s\n' "$a" | sed "s|@F@|$of|g"; done)
    "$TALLY" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" </dev/null
    echo $? >"$OUT/$name.rc"
    n=$((n + 1))
}
CG="cg.recurse.out cg.wordfreq.out cgx.matrix.out cgparts.recurse.out c1.out g1.out jumps.out pprof.out xdebug.out pprof-lines.cg cg1 rec.recurse.out rec.wordfreq.out"
CACHE="cache.wordfreq.out cache.wordfreq2.out"
CTX="rec.recurse.ctx rec.wordfreq.ctx ctx1 fz.doc.ctx fz.names.ctx fz.tree.ctx"
ALL="$CG $CACHE $CTX cg2"
GP="cycles:gmon.cycles selfrec:gmon.selfrec cs:gmon.cs shapes:gmon.shapes"
FMTS="callgrind cachegrind json folded speedscope pprof"

for f in $ALL; do
    b=$(echo "$f" | tr '/' '_')
    run "ann.$b" annotate "$f"
    run "ann-inc.$b" annotate --inclusive=yes --tree=both --auto=no "$f"
    run "ann-np.$b" annotate --show-percs=no --threshold=50 --context=2 "$f"
    for t in $FMTS; do run "conv-$t.$b" convert --to=$t -o @F@ "$f"; done
    run "conv-jsonl.$b" convert --to=json --lines -o @F@ "$f"
    run "conv-stdout.$b" convert --to=folded "$f"
    run "flame.$b" flame -o @F@ "$f"
    run "flame-ic.$b" flame --icicle --colors=cost --minwidth=1% -o @F@ "$f"
    run "graph.$b" graph --format=dot -o @F@ "$f"
    run "graph-t.$b" graph --format=dot --node-thres=5 --edge-thres=2 "$f"
    run "report.$b" report --no-callgraph -o @F@ "$f"
    run "merge.$b" merge -o @F@ "$f"
    run "merge-cg.$b" merge --format=cachegrind -o @F@ "$f"
done
run conv-ev convert --to=folded --event=Dr cgx.matrix.out
run conv-ev2 convert --to=pprof --event=D1mr -o @F@ cgx.matrix.out
run conv-badev convert --to=folded --event=Nope cgx.matrix.out
run conv-pair convert --to=folded rec.recurse.ctx rec.recurse.out
run conv-pair-ss convert --to=speedscope -o @F@ rec.wordfreq.ctx rec.wordfreq.out
run conv-pair-pp convert --to=pprof -o @F@ rec.wordfreq.ctx rec.wordfreq.out
run conv-pair-json convert --to=json -o @F@ rec.wordfreq.ctx rec.wordfreq.out
run conv-sum convert --to=json cg.recurse.out cgparts.recurse.out
run conv-sum3 convert --to=pprof -o @F@ cg.recurse.out cgparts.recurse.out
run conv-sum2 convert --to=folded cache.wordfreq.out cache.wordfreq2.out
run conv-mixed convert --to=folded cg.wordfreq.out cache.wordfreq.out
run conv-aprof convert --to=json r1.aprof
run conv-nofmt convert cg1
run conv-badfmt convert --to=xml cg1
run flame-diff flame --diff -o @F@ cache.wordfreq.out cache.wordfreq2.out
run flame-diffn flame --diff --negate -o @F@ cache.wordfreq.out cache.wordfreq2.out
run flame-pair flame -o @F@ rec.recurse.ctx rec.recurse.out
run report-pair report --no-callgraph -o @F@ rec.recurse.ctx rec.recurse.out
run report-aprof report --no-callgraph -o @F@ r1.aprof
run merge-2 merge -o @F@ cache.wordfreq.out cache.wordfreq2.out
run merge-3 merge -o @F@ cg.recurse.out cgparts.recurse.out
run merge-ctx merge --format=contexts -o @F@ rec.recurse.ctx rec.recurse.ctx
run merge-aprof merge -o @F@ r1.aprof isort.aprof
run merge-aprof1 merge -o @F@ r1.aprof
run diff-1 diff cache.wordfreq.out cache.wordfreq2.out
run diff-2 diff --by=line -o @F@ cache.wordfreq.out cache.wordfreq2.out
run diff-3 diff cg.recurse.out rec.recurse.out
run diff-4 diff --mod-funcname=s/main/MAIN/ cg.wordfreq.out cg.wordfreq.out
for a in r1.aprof isort.aprof; do
    run "cx.$a" complexity "$a"
    run "cx-j.$a" complexity --format=json "$a"
    run "cx-s.$a" complexity --cost=self --min-points=2 --top=5 "$a"
    run "cx-plot.$a" complexity --plot=@F@ "$a"
done
run cx-both complexity r1.aprof isort.aprof
for g in $GP; do
    exe=gp/${g%%:*}; gm=gp/${g#*:}; b=${g%%:*}
    run "gp.$b" gprof "$exe" "$gm"
    run "gp-b.$b" gprof -b "$exe" "$gm"
    run "gp-l.$b" gprof -b -l "$exe" "$gm"
    run "gp-T.$b" gprof -b -T -z "$exe" "$gm"
    run "gp-C.$b" gprof -C -i "$exe" "$gm"
    run "gp-A.$b" gprof -A -x "$exe" "$gm"
    run "gp-r.$b" gprof -r "$exe" "$gm"
    run "gp-w.$b" gprof -b -w 60 -q -p --no-demangle "$exe" "$gm"
    run "gp-cg.$b" gprof -b --callgrind-out=@F@ "$exe" "$gm"
    run "gp-cgl.$b" gprof -b -l --callgrind-out=@F@ "$exe" "$gm"
    run "gp-c.$b" gprof -b -c -a "$exe" "$gm"
    run "gp-k.$b" gprof -b -kmain/foo -Nmain -nmain "$exe" "$gm"
    for t in $FMTS; do run "gpconv-$t.$b" convert --to=$t -o @F@ "$exe" "$gm"; done
    run "gpflame.$b" flame -o @F@ "$exe" "$gm"
    run "gpgraph.$b" graph --format=dot "$exe" "$gm"
    run "gpreport.$b" report --no-callgraph -o @F@ "$exe" "$gm"
    run "gpmerge.$b" merge -o @F@ "$exe" "$gm"
    run "gpdiff.$b" diff "$exe" "$gm" "$exe" "$gm"
done
run gp-two gprof -b gp/selfrec gp/gmon.selfrec gp/gmon.selfrec2
run gpconv-two convert --to=json gp/selfrec gp/gmon.selfrec gp/gmon.selfrec2
run gpconv-mix convert --to=folded gp/selfrec gp/gmon.selfrec cg.recurse.out
run gp-R gprof -b -R gp/cs.map gp/cs gp/gmon.cs
run gp-wrong gprof -b gp/cycles gp/gmon.shapes
run gpconv-wrong convert --to=json gp/cycles gp/gmon.shapes
run gpconv-nogmon convert --to=json gp/cycles
run gpconv-noexe convert --to=json gp/gmon.cycles
( cd "$OUT" && mkdir -p sumdir && cd sumdir && "$TALLY" gprof -s -b "$IN/gp/selfrec" "$IN/gp/gmon.selfrec" "$IN/gp/gmon.selfrec2" >out 2>err; echo $? >rc )
rm -rf "$TMPDIR"
mkdir -p "$(dirname "$FINAL")" && mv "$OUT" "$FINAL"
echo "$n cases in $FINAL"
