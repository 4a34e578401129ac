/* Streaming reads up and down (the prefetcher's runs) and stores that
 * dirty whole arrays (write-back evictions), plus a scattered
 * read-modify-write. */
#include <stdlib.h>

#define N (1 << 18)

static long sum_up(const int *a)
{
    long s = 0;
    for (int i = 0; i < N; i++)
        s += a[i];
    return s;
}

static long sum_down(const int *a)
{
    long s = 0;
    for (int i = N - 1; i >= 0; i--)
        s += a[i];
    return s;
}

static void fill(int *a, int v)
{
    for (int i = 0; i < N; i++)
        a[i] = v + i;
}

static void scatter(int *a)
{
    for (unsigned i = 0; i < N; i += 61)
        a[(i * 7919u) & (N - 1)] += (int)i;
}

int main(void)
{
    int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b) return 1;
    fill(a, 1);
    fill(b, 2);
    long s = sum_up(a) + sum_down(b);
    scatter(a);
    scatter(b);
    s += sum_up(b) + sum_down(a);
    free(a);
    free(b);
    return (int)(s & 1);
}
