/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Merge sort with a scratch buffer passed in: msort(a, tmp, n) reads the n
 * elements; tmp is written before it is read. RMS = n + 2 for every
 * activation (recursive ones too); cost ~ n log n. */
#include <stdio.h>

#define MAXN 4096
static int v[MAXN], scratch[MAXN];

__attribute__((noinline)) void msort(int *a, int *tmp, int n)
{
    if (n < 2) {
        if (n == 1) tmp[0] = a[0]; /* a read: the element is input */
        return;
    }
    int h = n / 2;
    msort(a, tmp, h);
    msort(a + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    for (k = 0; k < n; k++)
        a[k] = tmp[k];
}

int main(void)
{
    long t = 0;
    unsigned x = 1;
    for (int n = 256; n <= MAXN; n += 256) {
        for (int i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            v[i] = (int)(x >> 8);
        }
        msort(v, scratch, n);
        t += v[n / 2] & 1;
    }
    printf("%ld\n", t);
    return 0;
}
