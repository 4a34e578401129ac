/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A recursive routine: rsum(a, n) = a[n-1] + rsum(a, n-1). The activation
 * on n reads a[0..n-1] (itself and through its descendants) and its return
 * address: RMS = n + 2; one top-level call on N gives the tuples 2 .. N+2.
 * Cost ~ n. */
#include <stdio.h>

#define N 300
static int v[N];

__attribute__((noinline)) long rsum(const int *a, int n)
{
    if (n == 0) return 0;
    return a[n - 1] + rsum(a, n - 1);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        v[i] = i;
    printf("%ld\n", rsum(v, N));
    return 0;
}
