/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * matrix: naive and transposed matrix multiplication. The two loops touch
 * memory in different orders, which shows up in the cache-miss columns of
 * a profile taken with --cache-sim=yes. Also the benchmark workload.
 */
#include <stdio.h>
#include <stdlib.h>

static double *alloc_matrix(unsigned n)
{
    double *m = malloc((size_t)n * n * sizeof(double));
    for (unsigned i = 0; i < n * n; i++)
        m[i] = (double)(i % 17) * 0.5;
    return m;
}

static void multiply_naive(const double *a, const double *b, double *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            double s = 0;
            for (unsigned k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

static void transpose(const double *m, double *t, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            t[j * n + i] = m[i * n + j];
}

static void multiply_transposed(const double *a, const double *b, double *c, unsigned n)
{
    double *bt = malloc((size_t)n * n * sizeof(double));
    transpose(b, bt, n);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            double s = 0;
            for (unsigned k = 0; k < n; k++)
                s += a[i * n + k] * bt[j * n + k];
            c[i * n + j] = s;
        }
    free(bt);
}

static double checksum(const double *m, unsigned n)
{
    double s = 0;
    for (unsigned i = 0; i < n * n; i++)
        s += m[i];
    return s;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 60;
    double *a = alloc_matrix(n), *b = alloc_matrix(n), *c = alloc_matrix(n);
    multiply_naive(a, b, c, n);
    double s1 = checksum(c, n);
    multiply_transposed(a, b, c, n);
    double s2 = checksum(c, n);
    printf("%.1f %.1f\n", s1, s2);
    free(a);
    free(b);
    free(c);
    return 0;
}
