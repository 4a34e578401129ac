/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Naive n x n matrix multiplication: mul(a, b, c, n) reads a and b (2 n^2
 * ints) and writes c. RMS = 2 n^2 + 2; cost ~ n^3 = RMS^1.5. */
#include <stdio.h>

#define MAXN 48
static int A[MAXN * MAXN], B[MAXN * MAXN], C[MAXN * MAXN];

__attribute__((noinline)) void mul(const int *a, const int *b, int *c, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

int main(void)
{
    long t = 0;
    for (int i = 0; i < MAXN * MAXN; i++) {
        A[i] = i % 5;
        B[i] = i % 3;
    }
    for (int n = 4; n <= MAXN; n += 4) {
        mul(A, B, C, n);
        t += C[n];
    }
    printf("%ld\n", t);
    return 0;
}
