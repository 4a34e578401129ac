/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Example for `tally gprof`, two source files: the same function (scale)
 * called from two different lines, a static function with the same name
 * (step) in both files, and calls in both directions between the files. */
#include <stdio.h>
#include "cs.h"

static volatile long sink;

static long step(long v)
{
    long x = v;
    for (int i = 0; i < 50000; i++)
        x = x * 31 + i;
    return x;
}

long twice(long v)
{
    return step(v) + step(v + 1);
}

int main(void)
{
    long total = 0;
    for (long i = 0; i < 600; i++) {
        total += scale(i);
        if (i % 3 == 0) total += scale(i * 7);
        total += mix(i);
    }
    sink = total;
    printf("%ld\n", sink % 1000);
    return 0;
}
