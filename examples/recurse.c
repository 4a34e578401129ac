/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recurse: direct recursion (fib), mutual recursion (is_even/is_odd) and
 * a plain call chain, to exercise inclusive costs under recursion.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long leaf(unsigned long x)
{
    return x * 2654435761u % 1000003u;
}

static unsigned long fib(unsigned n)
{
    if (n < 2) return leaf(n);
    return fib(n - 1) + fib(n - 2);
}

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
    if (n == 0) return 1;
    return is_odd(n - 1);
}

static int is_odd(unsigned n)
{
    if (n == 0) return 0;
    return is_even(n - 1);
}

static unsigned long chain(unsigned n)
{
    unsigned long s = 0;
    for (unsigned i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 18;
    unsigned long f = fib(n);
    int e = 0;
    for (unsigned i = 0; i < 200; i++)
        e += is_even(i);
    printf("fib=%lu even=%d chain=%lu\n", f, e, chain(5000));
    return 0;
}
