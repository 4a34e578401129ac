/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Three threads, one after another (each is joined before the next starts,
 * so the run does not depend on scheduling): each reads a shared table
 * with its own stride (lines the main thread or an earlier thread brought
 * in, which it uses and evicts) and writes an area of its own; the main
 * thread reads the table again at the end. */
#include <pthread.h>
#include <stdlib.h>

#define TABLE (1 << 15)
#define OWN (1 << 16)

static int table[TABLE];

static long use_table(int step)
{
    long s = 0;
    for (int i = 0; i < TABLE; i += step)
        s += table[i];
    return s;
}

static void *worker(void *arg)
{
    long k = (long)arg;
    char *own = malloc(OWN);
    if (!own) return NULL;
    for (int i = 0; i < OWN; i += 8)
        own[i] = (char)(i + k);
    long s = use_table(4 << k);
    free(own);
    return (void *)s;
}

int main(void)
{
    for (int i = 0; i < TABLE; i++)
        table[i] = i;
    long s = 0;
    for (long k = 0; k < 3; k++) {
        pthread_t t;
        void *r;
        if (pthread_create(&t, NULL, worker, (void *)k) || pthread_join(t, &r)) return 1;
        s += (long)r;
    }
    return (int)((s + use_table(16)) & 1);
}
