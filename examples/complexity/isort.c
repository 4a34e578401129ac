/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Insertion sort of a reversed array: isort(a, n) reads every element
 * before writing it. RMS = n + 2; cost ~ n^2 (worst case). */
#include <stdio.h>

#define MAXN 600
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
    for (int n = 30; n <= MAXN; n += 30) {
        for (int i = 0; i < n; i++)
            v[i] = n - i;
        isort(v, n);
        t += v[n / 2];
    }
    printf("%ld\n", t);
    return 0;
}
