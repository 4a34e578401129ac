/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recursion of an interpreter: eval -> callobj -> vector -> eval.
 * eval evaluates a random expression: a literal (prim), a variable
 * (lookup) or a call (callobj); callobj looks the function up,
 * evaluates its head with eval now and then, its arguments with vector
 * (one eval each) and applies a primitive. The expressions are drawn as
 * they are evaluated, from a fixed seed. main calls eval, and now and
 * then callobj: the cycle is entered at two functions. Prints each function's share of
 * the work done in main's loop (truth.h).
 */
#include "truth.h"

enum { F_MAIN = 1, F_EVAL, F_CALLOBJ, F_VECTOR, F_PRIM, F_LOOKUP, NFN };
static const char *const names[NFN] = {"work",   "main", "eval",  "callobj",
                                       "vector", "prim", "lookup"};

NOINLINE static void eval(unsigned d);

NOINLINE static void prim(void)
{
    ENTER(F_PRIM);
    work(UNITS(3000, 3000));
    LEAVE(F_PRIM);
}

NOINLINE static void lookup(void)
{
    ENTER(F_LOOKUP);
    work(UNITS(2000, 4000));
    LEAVE(F_LOOKUP);
}

/* evaluates n arguments */
NOINLINE static void vector(unsigned d, unsigned n)
{
    ENTER(F_VECTOR);
    work(UNITS(2000, 2000));
    for (unsigned i = 0; i < n; i++)
        eval(d);
    LEAVE(F_VECTOR);
}

NOINLINE static void callobj(unsigned d)
{
    ENTER(F_CALLOBJ);
    work(UNITS(3000, 3000));
    if (RND() % 4 == 0)
        eval(d); /* a computed head: ((f x) y) */
    else
        lookup();
    if (RND() % 8) vector(d, 1 + RND() % 3);
    prim();
    LEAVE(F_CALLOBJ);
}

NOINLINE static void eval(unsigned d)
{
    ENTER(F_EVAL);
    work(UNITS(1000, 2000));
    unsigned r = RND() % 8;
    if (d == 0 || r < 3)
        prim();
    else if (r < 5)
        lookup();
    else
        callobj(d - 1);
    LEAVE(F_EVAL);
}

int main(void)
{
    static const int refs[] = {F_MAIN};
    T.rng = 88675123u;
    ENTER(F_MAIN);
    for (int i = 0; i < 60; i++) {
        if (RND() % 4)
            eval(12);
        else
            callobj(12);
    }
    LEAVE(F_MAIN);
    return truth_report(&T, names, NFN, refs, 1);
}
