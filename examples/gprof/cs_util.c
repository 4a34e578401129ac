/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Second source file of the cs example (see cs_main.c). */
#include "cs.h"

static long step(long v)
{
    long x = v;
    for (int i = 0; i < 37500; i++)
        x = (x ^ i) * 17;
    return x;
}

long scale(long v)
{
    return step(v) / 3;
}

long mix(long v)
{
    return twice(v) + scale(v + 2);
}
