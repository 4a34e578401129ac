/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interp: the calls of an interpreter, eval -> callobj -> vector -> eval
 * (mutual recursion), eval -> eval (direct recursion) and eval -> number,
 * with work in every function. The program counts, for each of its
 * functions, the work done while that function is on the stack, counted
 * once however deeply it recurses: a depth counter per function, and the
 * work of each outermost activation added up. It prints these counts
 * with the function's calls ("NAME UNITS CALLS"; main's units are all the
 * work): as shares of main's, they are what the exact stacks of `tally
 * record --contexts=yes` must give for the same functions
 * (tests/cli/contexts.sh).
 *
 * Usage: interp [ROUNDS]   (default 60)
 */
#include <stdio.h>
#include <stdlib.h>

enum { F_MAIN, F_EVAL, F_CALLOBJ, F_VECTOR, F_NUMBER, F_WORK, NF };
static const char *const names[NF] = {"main", "eval", "callobj", "vector", "number", "work"};

static unsigned long long done;                    /* units of work so far */
static unsigned depth[NF];                         /* activations on the stack */
static unsigned long long start[NF], on_stack[NF]; /* per function */
static unsigned long long calls[NF];
static volatile unsigned long sink;
static unsigned rng = 12345;

/* macros, not functions: the examples are built with -fno-inline */
#define ENTER(f)                                                                                   \
    do {                                                                                           \
        calls[f]++;                                                                                \
        if (depth[f]++ == 0) start[f] = done;                                                      \
    } while (0)
#define LEAVE(f)                                                                                   \
    do {                                                                                           \
        if (--depth[f] == 0) on_stack[f] += done - start[f];                                       \
    } while (0)
#define RND() (rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5, rng)

/* n units of work: one loop iteration each */
__attribute__((noinline)) static void work(unsigned n)
{
    ENTER(F_WORK);
    for (unsigned i = 0; i < n; i++)
        sink = sink * 31 + i;
    done += n;
    LEAVE(F_WORK);
}

__attribute__((noinline)) static unsigned long number(void)
{
    ENTER(F_NUMBER);
    work(2700);
    LEAVE(F_NUMBER);
    return sink & 7;
}

static unsigned long eval(unsigned d);

__attribute__((noinline)) static unsigned long vector(unsigned d)
{
    ENTER(F_VECTOR);
    work(1200);
    unsigned long s = 0;
    unsigned n = 1 + RND() % 3;
    for (unsigned i = 0; i < n; i++)
        s += eval(d + 1);
    work(900);
    LEAVE(F_VECTOR);
    return s;
}

__attribute__((noinline)) static unsigned long callobj(unsigned d)
{
    ENTER(F_CALLOBJ);
    work(1500);
    unsigned long s = vector(d);
    work(600);
    LEAVE(F_CALLOBJ);
    return s + 1;
}

__attribute__((noinline)) static unsigned long eval(unsigned d)
{
    ENTER(F_EVAL);
    work(900);
    unsigned long s;
    unsigned r = RND() % 8;
    if (d >= 9 || r < 3)
        s = number();
    else if (r == 3)
        s = eval(d + 1) + 1; /* a quoted expression: eval calls itself */
    else
        s = callobj(d);
    work(300);
    LEAVE(F_EVAL);
    return s;
}

int main(int argc, char **argv)
{
    ENTER(F_MAIN);
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 60;
    unsigned long s = 0;
    for (unsigned i = 0; i < rounds; i++) {
        work(60000);
        s += eval(0);
    }
    LEAVE(F_MAIN);
    printf("result %lu\n", s);
    for (int f = 0; f < NF; f++)
        printf("%s %llu %llu\n", names[f], on_stack[f], calls[f]);
    return 0;
}
