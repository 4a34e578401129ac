/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Example for `tally gprof`: self-recursion (fact, fib) and a static
 * helper called from both.  Built at -O0 and at -O2 (where GCC may split
 * or clone functions, which gprof's symbol rules must cope with). */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long spin(unsigned long n)
{
    unsigned long x = n;
    for (unsigned long i = 0; i < 3000; i++)
        x = (x << 5) ^ (x >> 3) ^ i;
    return x;
}

unsigned long fact(unsigned n)
{
    if (n <= 1) return 1 + spin(n);
    return n * fact(n - 1);
}

unsigned long fib(unsigned n)
{
    if (n < 2) return spin(n) & 1;
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 24;
    for (unsigned i = 0; i < 200; i++)
        sink += fact(i % 20);
    sink += fib(n);
    printf("%lu\n", sink % 1000);
    return 0;
}
