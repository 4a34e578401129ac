#!/bin/sh
# Sets of per-thread files (Callgrind's --separate-threads=yes, tally
# record's): FILE-01, FILE-02, ... are complete profiles, one per thread,
# and FILE is left empty. tally's commands take the set as they take several
# files: naming the empty FILE (as KCachegrind opens it), the members, or a
# shell glob FILE* (the empty FILE then goes) gives the same sum. Hand-made
# sets with costs worked out by hand, and one written by Callgrind.
. "$(dirname "$0")/../lib.sh"
track_written # every callgrind file written is checked at the end (tests/lib.sh)
cd "$TMP" || exit 1

: >cg.out.77
cat >cg.out.77-01 <<'CEOF'
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 77
cmd: ./t
part: 1
thread: 1
positions: line
events: Ir
fl=(1) t.c
fn=(1) main
3 10
cfn=(2) spin
calls=1 5
4 25
fn=(2)
5 25
totals: 35
CEOF
sed -e 's/^thread: 1/thread: 2/' -e 's/^fn=(1) main/fn=(1) worker/' -e 's/^3 10/3 2/' \
    -e 's/^totals: 35/totals: 27/' cg.out.77-01 >cg.out.77-02
# thread 1: main 10 + spin 25; thread 2: worker 2 + spin 25: 62 in all, spin 50

total() { grep '^totals:' "$1" | awk '{ s += $2 } END { print s }'; }
for form in "cg.out.77" "cg.out.77-01 cg.out.77-02" "cg.out.77 cg.out.77-01 cg.out.77-02"; do
    # shellcheck disable=SC2086
    if "$TALLY" merge -o merged.out $form 2>err && [ ! -s err ] && [ "$(total merged.out)" = 62 ]; then
        ok "merge $form: the set, totals 62"
    else not_ok "merge $form: totals $(total merged.out 2>/dev/null), expected 62"; diag <err; fi
done
"$TALLY" annotate cg.out.77 >ann.txt 2>err
if grep -q "^62 (100.0%)  PROGRAM TOTALS" ann.txt && grep -q "^50 .*t.c:spin" ann.txt &&
    grep -q "cg.out.77-01', 'cg.out.77-02'" ann.txt && [ ! -s err ]; then
    ok "annotate of the empty FILE reads its threads: 62 in all, spin 50"
else not_ok "annotate cg.out.77"; { cat err; head -n 30 ann.txt; } | diag; fi
"$TALLY" convert --to=folded -o set.folded cg.out.77 2>/dev/null
if [ "$(awk '{ s += $NF } END { print s }' set.folded)" = 62 ] &&
    grep -q '^main;spin 25$' set.folded && grep -q '^worker;spin 25$' set.folded; then
    ok "convert --to=folded of the set: each thread's stacks, 62 in all"
else not_ok "convert --to=folded of the set"; diag <set.folded; fi
: >lonely.out
expect_run "an empty file without a set is still an error" 1 "" "lonely.out: empty file" \
    annotate "$TMP/lonely.out"

# Callgrind's own set: a program with two threads besides main
cat >thr.c <<'CEOF'
#include <pthread.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(int n) { for (int i = 0; i < n; i++) sink += i; }
static void *run(void *arg) { spin(*(int *)arg); return NULL; }
int main(void)
{
    pthread_t t[2];
    int n[2] = {10000, 30000};
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, run, &n[i]);
    spin(5000);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("%lu\n", sink);
    return 0;
}
CEOF
if ! command -v valgrind >/dev/null 2>&1; then
    not_ok "valgrind is installed (scripts/install-deps.sh)"
elif cc -O1 -g -pthread -o thr thr.c &&
    valgrind -q --tool=callgrind --separate-threads=yes --callgrind-out-file=cgt.out ./thr >/dev/null 2>&1 &&
    [ -s cgt.out-01 ] && [ -s cgt.out-02 ]; then
    n=$(ls cgt.out-* | wc -l)
    want=$(cat cgt.out-* | total /dev/stdin)
    "$TALLY" merge -o cgt.merged cgt.out-* 2>err
    got=$(total cgt.merged)
    if [ "$got" = "$want" ] && [ ! -s err ]; then
        ok "Callgrind's set of $n thread files: merge adds their totals ($want Ir)"
    else not_ok "Callgrind's set: merged totals $got, the files' $want"; diag <err; fi
    "$TALLY" annotate cgt.out-* >cgt.ann 2>err
    pt=$(sed -n 's/^ *\([0-9,]*\) (100.0%)  PROGRAM TOTALS$/\1/p' cgt.ann | tr -d ,)
    if [ "$pt" = "$want" ] && [ ! -s err ]; then
        ok "annotate of Callgrind's set: PROGRAM TOTALS $pt, the sum of the threads, no warning"
    else not_ok "annotate of Callgrind's set"; diag <err; fi
else
    not_ok "valgrind --tool=callgrind --separate-threads=yes writes cgt.out-01, -02"
fi
check_written
echo "1..$TESTN"
