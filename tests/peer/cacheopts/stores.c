/* Stores over more than the LL holds (the test gives a small LL), so that
 * dirty lines leave it; atomics (lock-prefixed read-modify-writes). */
#include <stdlib.h>

#define N (1 << 16)

static long counter;

static void store_rows(char *p, int stride)
{
    for (int i = 0; i < N * 8; i += stride)
        p[i] = (char)i;
}

static long read_rows(const char *p, int stride)
{
    long s = 0;
    for (int i = 0; i < N * 8; i += stride)
        s += p[i];
    return s;
}

static void atomics(long n)
{
    for (long i = 0; i < n; i++)
        __atomic_fetch_add(&counter, i, __ATOMIC_SEQ_CST);
}

int main(void)
{
    char *p = malloc(N * 8);
    if (!p) return 1;
    for (int r = 0; r < 3; r++) {
        store_rows(p, 64 + 16 * r);
        atomics(1000);
    }
    long s = read_rows(p, 32) + counter;
    free(p);
    return (int)(s & 1);
}
