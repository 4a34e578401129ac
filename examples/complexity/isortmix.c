/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Calls in two clusters: insertion sort of n values, sorted already at every
 * other size (cost ~ n) and reversed at the others (cost ~ n^2). Both read
 * every element before writing it (RMS = n + 2), so at similar sizes the
 * costs of the two kinds of calls are far apart: two curves, no one class. */
#include <stdio.h>

#define MAXN 400
static int v[MAXN];

__attribute__((noinline)) void isort(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int key = a[i], j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
}

int main(void)
{
    long t = 0;
    for (int n = 10, k = 0; n <= MAXN; n += 10, k++) {
        for (int i = 0; i < n; i++)
            v[i] = k % 2 ? n - i : i;
        isort(v, n);
        t += v[n / 2];
    }
    printf("%ld\n", t);
    return 0;
}
