/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mutual recursion a -> b -> c -> a with random branches, entered from
 * main (a) and from side (b or c); leaf1 and leaf2 are called from the
 * cycle and from main. Prints each function's share of the work done in
 * main's loop (truth.h).
 */
#include "truth.h"

enum { F_MAIN = 1, F_A, F_B, F_C, F_SIDE, F_LEAF1, F_LEAF2, NFN };
static const char *const names[NFN] = {"work", "main", "a", "b", "c", "side", "leaf1", "leaf2"};

NOINLINE static void a(unsigned d);

NOINLINE static void leaf1(void)
{
    ENTER(F_LEAF1);
    work(UNITS(4000, 4000));
    LEAVE(F_LEAF1);
}

NOINLINE static void leaf2(void)
{
    ENTER(F_LEAF2);
    work(UNITS(4000, 4000));
    if (RND() % 2) leaf1();
    LEAVE(F_LEAF2);
}

NOINLINE static void c(unsigned d)
{
    ENTER(F_C);
    work(UNITS(4000, 8000));
    if (d && RND() % 8) a(d - 1);
    if (RND() % 3 == 0) leaf2();
    LEAVE(F_C);
}

NOINLINE static void b(unsigned d)
{
    ENTER(F_B);
    if (RND() % 4 == 0) leaf2();
    work(UNITS(4000, 4000));
    if (d && RND() % 4) c(d - 1);
    if (d && RND() % 4 == 0) c(d - 1);
    LEAVE(F_B);
}

NOINLINE static void a(unsigned d)
{
    ENTER(F_A);
    work(UNITS(4000, 8000));
    if (d && RND() % 8) b(d - 1);
    if (RND() % 2) leaf1();
    LEAVE(F_A);
}

/* the cycle's second entry */
NOINLINE static void side(unsigned d)
{
    ENTER(F_SIDE);
    work(UNITS(4000, 4000));
    if (RND() % 2)
        b(d);
    else
        c(d);
    LEAVE(F_SIDE);
}

int main(void)
{
    static const int refs[] = {F_MAIN};
    T.rng = 2463534242u;
    ENTER(F_MAIN);
    for (int i = 0; i < 120; i++) {
        switch (RND() % 4) {
        case 0:
        case 1:
            a(24);
            break;
        case 2:
            side(24);
            break;
        default:
            leaf2();
        }
    }
    LEAVE(F_MAIN);
    return truth_report(&T, names, NFN, refs, 1);
}
