/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strided reads over an array larger than L1 (every byte of a line, one
 * byte in 16, one a line, one line in four), a column-wise walk of a
 * matrix, and writes that straddle two lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BYTES (1 << 18)
#define N 256

__attribute__((noinline)) static long walk(const unsigned char *a, size_t stride)
{
    long s = 0;
    for (size_t i = 0; i < BYTES; i += stride)
        s += a[i];
    return s;
}

__attribute__((noinline)) static long columns(int (*m)[N])
{
    long s = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            s += m[i][j];
    return s;
}

/* 8-byte writes across two lines: one a page upwards (both lines new),
 * then downwards line by line (the first line new, the second the one the
 * write before brought in) */
__attribute__((noinline)) static void straddle(unsigned char *a)
{
    unsigned char *b = (unsigned char *)(((uintptr_t)a + 63) & ~(uintptr_t)63);
    for (size_t i = 60; i + 72 < BYTES; i += 4096) {
        unsigned long v = i;
        memcpy(b + i, &v, sizeof v);
    }
    for (size_t i = BYTES - 132; i > 64; i -= 64) {
        unsigned long v = i;
        memcpy(b + i, &v, sizeof v);
    }
}

/* All the work, for --toggle-collect=run */
__attribute__((noinline)) static long run(unsigned char *a, int (*m)[N])
{
    long s = 0;
    static const size_t strides[] = {1, 16, 64, 256};
    for (int k = 0; k < 4; k++)
        s += walk(a, strides[k]);
    s += columns(m);
    straddle(a);
    return s + walk(a, 4096);
}

int main(void)
{
    unsigned char *a = malloc(BYTES);
    int(*m)[N] = malloc(sizeof(int[N][N]));
    if (!a || !m) return 1;
    memset(a, 1, BYTES);
    memset(m, 2, sizeof(int[N][N]));
    long s = run(a, m);
    free(m);
    free(a);
    return (int)(s & 1);
}
