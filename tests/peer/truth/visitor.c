/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recursion through function pointers: visit() calls one of the handlers
 * of a table, and the handlers call visit() for the children of their
 * node; on_wrap calls a handler of the table itself, without visit.
 * The nodes are drawn as they are visited, from a fixed seed. Prints
 * each function's share of the work done in main's loop (truth.h).
 */
#include "truth.h"

enum { F_MAIN = 1, F_VISIT, F_ON_LEAF, F_ON_LIST, F_ON_PAIR, F_ON_WRAP, NFN };
static const char *const names[NFN] = {"work",    "main",    "visit",  "on_leaf",
                                       "on_list", "on_pair", "on_wrap"};

typedef void handler(unsigned d);
static handler on_leaf, on_list, on_pair, on_wrap;
static handler *const table[] = {on_leaf, on_list, on_pair, on_wrap};

NOINLINE static void visit(unsigned d)
{
    ENTER(F_VISIT);
    work(UNITS(1000, 1000));
    table[d ? RND() % 4 : 0](d);
    LEAVE(F_VISIT);
}

NOINLINE static void on_leaf(unsigned d)
{
    (void)d;
    ENTER(F_ON_LEAF);
    work(UNITS(3000, 4000));
    LEAVE(F_ON_LEAF);
}

NOINLINE static void on_list(unsigned d)
{
    ENTER(F_ON_LIST);
    work(UNITS(2000, 2000));
    for (unsigned n = RND() % 3; n; n--)
        visit(d - 1);
    LEAVE(F_ON_LIST);
}

NOINLINE static void on_pair(unsigned d)
{
    ENTER(F_ON_PAIR);
    visit(d - 1);
    work(UNITS(2000, 2000));
    if (RND() % 2) visit(d - 1);
    LEAVE(F_ON_PAIR);
}

/* a wrapper node: its child's handler is called straight from the table */
NOINLINE static void on_wrap(unsigned d)
{
    ENTER(F_ON_WRAP);
    work(UNITS(1000, 3000));
    table[d > 1 ? RND() % 4 : 0](d - 1);
    LEAVE(F_ON_WRAP);
}

int main(void)
{
    static const int refs[] = {F_MAIN};
    T.rng = 521288629u;
    ENTER(F_MAIN);
    for (int i = 0; i < 60; i++) {
        if (RND() % 4)
            visit(14);
        else
            on_pair(14);
    }
    LEAVE(F_MAIN);
    return truth_report(&T, names, NFN, refs, 1);
}
