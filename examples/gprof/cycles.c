/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Example for `tally gprof`: call cycles and enough CPU time for samples.
 *
 * ping() and pong() call each other (a two-function cycle); red() -> green()
 * -> blue() -> red() is a three-function cycle.  Both cycles call the static
 * burn(), which does the actual work, and leaf(), which does almost none.
 * never_called() is there for -z.  Run time is about half a second. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long burn(unsigned long rounds)
{
    unsigned long x = rounds;
    for (unsigned long i = 0; i < rounds; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    return x;
}

unsigned long leaf(unsigned long v)
{
    return v ^ (v >> 7);
}

unsigned long pong(int depth);

unsigned long ping(int depth)
{
    unsigned long r = burn(270000);
    if (depth > 0) r += pong(depth - 1);
    return leaf(r);
}

unsigned long pong(int depth)
{
    unsigned long r = burn(90000);
    if (depth > 0) r += ping(depth - 1);
    return r;
}

unsigned long green(int depth);
unsigned long blue(int depth);

unsigned long red(int depth)
{
    unsigned long r = burn(150000);
    return depth > 0 ? r + green(depth - 1) : leaf(r);
}

unsigned long green(int depth)
{
    unsigned long r = burn(60000);
    return depth > 0 ? r + blue(depth - 1) : r;
}

unsigned long blue(int depth)
{
    unsigned long r = burn(210000);
    return depth > 0 ? r + red(depth - 1) : r;
}

int never_called(int x)
{
    return x * 3;
}

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 300;
    for (int i = 0; i < loops; i++) {
        sink += ping(i % 11);
        sink += red(i % 13);
    }
    if (argc > 2) sink += (unsigned long)never_called(loops);
    printf("%lu\n", sink % 1000);
    return 0;
}
