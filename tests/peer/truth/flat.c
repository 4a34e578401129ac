/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No recursion: main -> a -> b and main -> b. Every function's inclusive
 * cost is the sum of its calls' costs, so the arcs alone give it, and
 * tally must match the program's own figures even before recursion is
 * handled: the check of truth.sh's own reading of the profiles. Prints
 * each function's share of the work done in main's loop (truth.h).
 */
#include "truth.h"

enum { F_MAIN = 1, F_A, F_B, NFN };
static const char *const names[NFN] = {"work", "main", "a", "b"};

NOINLINE static void b(void)
{
    ENTER(F_B);
    work(UNITS(3000, 3000));
    LEAVE(F_B);
}

NOINLINE static void a(void)
{
    ENTER(F_A);
    work(UNITS(2000, 2000));
    b();
    if (RND() % 2) b();
    LEAVE(F_A);
}

int main(void)
{
    static const int refs[] = {F_MAIN};
    T.rng = 123456789u;
    ENTER(F_MAIN);
    for (int i = 0; i < 300; i++) {
        if (RND() % 3)
            a();
        else
            b();
        if (RND() % 4 == 0) work(UNITS(1000, 3000));
    }
    LEAVE(F_MAIN);
    return truth_report(&T, names, NFN, refs, 1);
}
