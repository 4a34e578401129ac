/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Direct self-recursion: walk() visits a random tree (0 to 2 children a
 * node, drawn as it goes from a fixed seed) and calls fib() at some of
 * its nodes; fib() recurses twice, as Fibonacci's numbers do. Both are
 * also called from main. Prints each function's share of the work done
 * in main's loop (truth.h).
 */
#include "truth.h"

enum { F_MAIN = 1, F_WALK, F_FIB, F_VISIT_NODE, NFN };
static const char *const names[NFN] = {"work", "main", "walk", "fib", "visit_node"};

NOINLINE static void fib(unsigned n)
{
    ENTER(F_FIB);
    work(UNITS(1000, 1000));
    if (n >= 2) {
        fib(n - 1);
        fib(n - 2);
    }
    LEAVE(F_FIB);
}

/* a node's own work: no recursion here */
NOINLINE static void visit_node(void)
{
    ENTER(F_VISIT_NODE);
    work(UNITS(2000, 4000));
    LEAVE(F_VISIT_NODE);
}

NOINLINE static void walk(unsigned d)
{
    ENTER(F_WALK);
    visit_node();
    if (RND() % 8 == 0) fib(2 + RND() % 5);
    if (d) {
        /* 7/8 of a child a node on average: a tree that dies out */
        static const unsigned kids[8] = {0, 0, 1, 1, 1, 1, 1, 2};
        for (unsigned n = kids[RND() % 8]; n; n--)
            walk(d - 1);
    }
    work(UNITS(500, 1000));
    LEAVE(F_WALK);
}

int main(void)
{
    static const int refs[] = {F_MAIN};
    T.rng = 3141592653u;
    ENTER(F_MAIN);
    for (int i = 0; i < 50; i++) {
        if (RND() % 3)
            walk(20);
        else
            fib(4 + RND() % 5);
    }
    LEAVE(F_MAIN);
    return truth_report(&T, names, NFN, refs, 1);
}
