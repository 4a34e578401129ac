/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bookkeeping of the truth programs (tests/peer/truth.sh): programs
 * that know the inclusive cost of each of their functions, defined as the
 * work done while the function is on the stack, counted once however
 * deeply it recurses.
 *
 * All work is done by work(n), a leaf that loops n times and adds n to
 * the thread's work counter T.w. An iteration is 32 instructions, 29 of
 * them nops: Valgrind's time goes by blocks run more than by
 * instructions, and the few instructions of bookkeeping around each call
 * weigh less against long iterations (a program's figures and a
 * profile's instruction counts agree to within 0.1 point). Every function
 * of a program has an index and a depth counter: ENTER(f) on entry
 * remembers T.w when the depth goes from 0 to 1, LEAVE(f) before
 * returning adds what was done since when it comes back to 0. work() is
 * function 0 and counts itself too.
 *
 * ENTER, LEAVE and RND are macros so that their code is the calling
 * function's own, on its own lines: an inline function of this header
 * would be code of this file inside the caller, which a profile shows as
 * a second row (file:function) of the same function.
 *
 * At the end truth_report() writes "total R..." (the functions whose work
 * adds up to 100%: main, whose loop does all the work, or the threads'
 * functions) and one line "NAME PERCENT" for each function: 100 times
 * its work over the total, four decimals. It formats by hand and writes
 * once, so that the report adds little to main's cost.
 *
 * Everything is thread-local: a thread counts its own work; a threaded
 * program copies each thread's counters out (truth_add) and reports
 * their sum.
 */
#ifndef TRUTH_H
#define TRUTH_H

#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define TRUTH_MAX 16

struct truth {
    unsigned long long w;                /* work units done by the thread */
    unsigned depth[TRUTH_MAX];           /* frames of each function on the stack */
    unsigned long long start[TRUTH_MAX]; /* w when the outermost frame began */
    unsigned long long total[TRUTH_MAX]; /* work done while on the stack */
    unsigned rng;                        /* xorshift32 state, never 0 */
};

static _Thread_local struct truth T;

#define ENTER(f)                                                                                   \
    do {                                                                                           \
        if (T.depth[f]++ == 0) T.start[f] = T.w;                                                   \
    } while (0)
#define LEAVE(f)                                                                                   \
    do {                                                                                           \
        if (--T.depth[f] == 0) T.total[f] += T.w - T.start[f];                                     \
    } while (0)
/* the next pseudo-random number of the thread (xorshift32) */
#define RND() (T.rng ^= T.rng << 13, T.rng ^= T.rng >> 17, T.rng ^= T.rng << 5)
/* a number of work units in [lo, lo + span) */
#define UNITS(lo, span) ((lo) + RND() % (span))

enum { F_WORK = 0 };

NOINLINE static void work(unsigned n)
{
    ENTER(F_WORK);
    for (unsigned i = 0; i < n; i++)
        __asm__ volatile(".rept 29\n\tnop\n\t.endr");
    T.w += n;
    LEAVE(F_WORK);
}

/* dst += src, for the counters of a finished thread (not inlined: its
   lines would make a second row of the caller) */
__attribute__((noinline, unused)) static void truth_add(struct truth *dst, const struct truth *src)
{
    dst->w += src->w;
    for (int f = 0; f < TRUTH_MAX; f++)
        dst->total[f] += src->total[f];
}

static char *put_str(char *p, const char *s)
{
    while (*s)
        *p++ = *s++;
    return p;
}

static char *put_num(char *p, unsigned long long v, int min_digits)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n < min_digits);
    while (n)
        *p++ = d[--n];
    return p;
}

/* Writes the report of t: the functions refs[0..nrefs) make the total;
   names[f] is the name of function f (names[0] = "work"). Returns 0, or
   1 when the total is 0 or the write fails. */
NOINLINE static int truth_report(const struct truth *t, const char *const names[], int n,
                                 const int refs[], int nrefs)
{
    static char buf[64 * TRUTH_MAX];
    unsigned long long total = 0;
    char *p = put_str(buf, "total");
    for (int i = 0; i < nrefs; i++) {
        total += t->total[refs[i]];
        p = put_str(put_str(p, " "), names[refs[i]]);
    }
    p = put_str(p, "\n");
    if (total == 0) return 1;
    for (int f = 0; f < n && f < TRUTH_MAX; f++) {
        /* 100 * total[f] / total, rounded to 4 decimals */
        unsigned long long v = (t->total[f] * 1000000ULL + total / 2) / total;
        p = put_str(put_str(p, names[f]), " ");
        p = put_num(put_str(put_num(p, v / 10000, 1), "."), v % 10000, 4);
        p = put_str(p, "\n");
    }
    return write(1, buf, (size_t)(p - buf)) == p - buf ? 0 : 1;
}

#endif
