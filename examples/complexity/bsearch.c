/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Binary search: find(a, n, key) probes about log2(n) elements of a sorted
 * array. RMS = distinct probes + 2 (return address); cost ~ log n. */
#include <stdio.h>

#define MAXN (1 << 16)
static int v[MAXN];

__attribute__((noinline)) int find(const int *a, int n, int key)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == key) return mid;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int main(void)
{
    long t = 0;
    for (int i = 0; i < MAXN; i++)
        v[i] = 2 * i;
    /* a key that is never there (odd): the search always runs to the end */
    for (int n = 16; n <= MAXN; n *= 2)
        for (int k = 0; k < 8; k++)
            t += find(v, n, 2 * (n / 8) * k + 1);
    printf("%ld\n", t);
    return 0;
}
