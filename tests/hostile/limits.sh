#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Limits of the readers: the longest line (a documented maximum, raised with
# tally --max-line), a one-line gzip bomb, and a 100,000-deep contexts chain,
# whose reading (the walk that finds which calls are into a function already
# on the stack) must stay linear.
. "$(dirname "$0")/../lib.sh"

W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1
LIMIT_KB=1048576

# a callgrind file whose function name is 9 MiB long (the limit is 8 MiB)
awk 'BEGIN {
    print "events: Ir"; print "fl=a.c"; printf "fn=";
    s = "abcdefghijklmnopqrstuvwxyzABCDEF"; for (i = 0; i < 15; i++) s = s s; # 1 MiB
    for (i = 0; i < 9; i++) printf "%s", s; print ""; print "1 5" }' >long.out
for how in plain gzip; do
    f=long.out
    if [ $how = gzip ]; then gzip -c long.out >long.out.gz; f=long.out.gz; fi
    (ulimit -v $LIMIT_KB && "$TALLY" annotate "$f") >out.txt 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: $f:3: line longer than 8388608 bytes" err.txt; then
        ok "a 9 MiB line is refused with file:line ($how)"
    else not_ok "a 9 MiB line is refused with file:line ($how)"; diag <err.txt; fi
    "$TALLY" --max-line=16M annotate "$f" >out.txt 2>err.txt
    if [ $? = 0 ] && grep -q '^5 (100.0%)  a.c:abcdef' out.txt; then ok "--max-line=16M reads it ($how)"
    else not_ok "--max-line=16M reads it ($how)"; diag <err.txt; fi
done
for f in contexts cachegrind aprof; do
    case $f in
    contexts) { echo '# tally contexts 1'; echo 'events: Ir'; printf 'fn 1 0 0 '; } >l.$f; cmd=annotate ;;
    cachegrind) { echo 'desc: x'; echo 'cmd: x'; echo 'events: Ir'; printf 'fn='; } >l.$f; cmd=annotate ;;
    aprof) { echo 'v 3'; printf 'r '; } >l.$f; cmd=complexity ;;
    esac
    head -c 9000000 /dev/zero | tr '\0' x >>l.$f
    echo >>l.$f
    n=$(wc -l <l.$f)
    "$TALLY" $cmd l.$f >out.txt 2>err.txt
    if [ $? = 1 ] && grep -q "^tally: l.$f:$n: line longer than" err.txt; then ok "long line: $f reader"
    else not_ok "long line: $f reader"; diag <err.txt; fi
done
# a gzip bomb: one line of 100 MB in a small file, read under a memory limit
# (an aprof report's first line, then one line of 100 MB: its first bytes
# pass the format check, the line limit stops it)
{ echo 'v 3'; printf 'r '; head -c 100000000 /dev/zero | tr '\0' x; } | gzip -c >bomb.gz
(ulimit -v $LIMIT_KB && timeout 30 "$TALLY" complexity bomb.gz) >out.txt 2>err.txt
if [ $? = 1 ] && grep -q '^tally: bomb.gz:2: line longer than' err.txt; then ok "one-line gzip bomb"
else not_ok "one-line gzip bomb"; diag <err.txt; fi
for bad in 0 -5 12Q x; do
    "$TALLY" --max-line=$bad annotate long.out >/dev/null 2>err.txt
    if [ $? = 2 ] && grep -q 'max-line' err.txt; then ok "--max-line=$bad is a usage error"
    else not_ok "--max-line=$bad is a usage error"; diag <err.txt; fi
done

# a chain of 100,000 contexts, each a new function: linear reading
N=100000
awk -v n=$N 'BEGIN { print "# tally contexts 1"; print "events: Ir";
    for (i = 1; i <= n; i++) print "fn " i " 0 0 f" i;
    for (i = 1; i <= n; i++) print "x " i " " (i - 1) " " i " 1 1" }' >deep.ctx
start=$(date +%s)
timeout 60 "$TALLY" annotate deep.ctx >deep.txt 2>err.txt
rc=$?
secs=$(($(date +%s) - start))
# quadratic checking took 11 s here; linear takes a fraction of a second
if [ $rc = 0 ] && [ $secs -le 5 ] && grep -Eq '^100,?000 .*PROGRAM TOTALS' deep.txt; then
    ok "100k-deep contexts chain in ${secs}s"
else not_ok "100k-deep contexts chain (exit $rc, ${secs}s)"; diag <err.txt; fi
# the same chain with f1 again at the bottom (recursion through 100,000
# frames): read in linear time; the call into f1, already on the stack,
# brings its call but no cost (the last arc of the derived callgrind file)
{ cat deep.ctx; echo "x $((N + 1)) $N 1 1 1"; echo "totals: $((N + 1))"; } >rec.ctx
start=$(date +%s)
timeout 60 "$TALLY" convert --to=callgrind -o rec.out rec.ctx 2>err.txt
rc=$?
secs=$(($(date +%s) - start))
last=$(grep -A2 '^cfn=' rec.out 2>/dev/null | tail -n 3 | tr '\n' ' ')
if [ $rc = 0 ] && [ $secs -le 5 ] && [ "$last" = "cfn=(1) calls=1 0 0 0 " ]; then
    ok "recursion at depth 100k read in ${secs}s; its arc has no cost"
else not_ok "recursion at depth 100k (exit $rc, ${secs}s, last arc: $last)"; diag <err.txt; fi
