/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Linear scan: scan(v, n) reads n ints once. RMS = n + 2 at resolution 4
 * (the n ints and the 8-byte return address); cost ~ n. */
#include <stdio.h>

#define MAXN 4000
static int v[MAXN];

__attribute__((noinline)) long scan(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

int main(void)
{
    long t = 0;
    for (int i = 0; i < MAXN; i++)
        v[i] = i % 7;
    for (int n = 200; n <= MAXN; n += 200)
        t += scan(v, n);
    printf("%ld\n", t);
    return 0;
}
