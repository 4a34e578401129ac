/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wordfreq: count word frequencies in generated text with a hash table,
 * then sort them. A workload with hashing, string handling, allocation and
 * qsort, used by the demo and the tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char *word;
    unsigned count;
    struct entry *next;
};

#define NBUCKETS 4096
static struct entry *buckets[NBUCKETS];
static unsigned nentries;

static unsigned hash_word(const char *w)
{
    unsigned h = 2166136261u;
    while (*w)
        h = (h ^ (unsigned char)*w++) * 16777619u;
    return h;
}

static void add_word(const char *w)
{
    unsigned b = hash_word(w) % NBUCKETS;
    for (struct entry *e = buckets[b]; e; e = e->next)
        if (strcmp(e->word, w) == 0) {
            e->count++;
            return;
        }
    struct entry *e = malloc(sizeof(*e));
    e->word = strdup(w);
    e->count = 1;
    e->next = buckets[b];
    buckets[b] = e;
    nentries++;
}

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

static void make_word(char *buf, unsigned *state)
{
    static const char letters[] = "etaoinshrdlucmfw";
    unsigned len = 2 + next_random(state) % 5;
    for (unsigned i = 0; i < len; i++)
        buf[i] = letters[next_random(state) % 16];
    buf[len] = '\0';
}

static int by_count(const void *a, const void *b)
{
    const struct entry *x = *(const struct entry *const *)a;
    const struct entry *y = *(const struct entry *const *)b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
    unsigned state = 42;
    char buf[16];
    for (unsigned i = 0; i < n; i++) {
        make_word(buf, &state);
        add_word(buf);
    }
    struct entry **all = malloc(nentries * sizeof(*all));
    unsigned k = 0;
    for (unsigned b = 0; b < NBUCKETS; b++)
        for (struct entry *e = buckets[b]; e; e = e->next)
            all[k++] = e;
    qsort(all, nentries, sizeof(*all), by_count);
    for (unsigned i = 0; i < 5 && i < nentries; i++)
        printf("%-8s %u\n", all[i]->word, all[i]->count);
    printf("%u distinct words\n", nentries);
    return 0;
}
