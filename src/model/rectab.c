/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "rectab.h"
#include "error.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_RECS ((size_t)1 << RECTAB_BLOCK_SHIFT)

void rectab_init(struct rectab *t, size_t key_words, size_t val_words)
{
    memset(t, 0, sizeof(*t));
    t->key_words = key_words;
    t->val_words = val_words;
}

void rectab_release(struct rectab *t)
{
    for (size_t i = 0; i < t->nblocks; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->slots);
    size_t k = t->key_words, v = t->val_words;
    memset(t, 0, sizeof(*t));
    t->key_words = k;
    t->val_words = v;
}

void rectab_drop_index(struct rectab *t)
{
    free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
}

void rectab_free_below(struct rectab *t, size_t upto)
{
    free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
    for (size_t b = 0; b < t->nblocks && ((b + 1) << RECTAB_BLOCK_SHIFT) <= upto; b++) {
        free(t->blocks[b]);
        t->blocks[b] = NULL;
    }
    /* blocks freed inside the heap would stay resident: give them back now */
    xtrim();
}

void rectab_clear(struct rectab *t)
{
    size_t k = t->key_words, v = t->val_words;
    rectab_release(t);
    rectab_init(t, k, v);
}

static void resize_to(struct rectab *t, size_t nslots);

static void resize(struct rectab *t)
{
    resize_to(t, t->nslots ? t->nslots * 2 : 1024);
}

void rectab_reserve(struct rectab *t, size_t n)
{
    size_t nslots = 1024;
    while (nslots * 3 / 4 <= n && nslots < ((size_t)1 << 31))
        nslots *= 2;
    if (nslots > t->nslots) resize_to(t, nslots);
}

static void resize_to(struct rectab *t, size_t nslots)
{
    /* the new index is made from the records: the old one goes first, so that the two never
       take memory at once (the peak of a growing table would be three times its index) */
    free(t->slots);
    t->slots = NULL;
    /* a table that fills its slots soon is written now (no zero-page read fault before each
       first write); one reserved ahead of its records is left to calloc, whose untouched
       pages cost nothing */
    uint64_t *slots = t->count * 4 >= nslots ? xzalloc_written(nslots, sizeof(*slots))
                                             : xcalloc(nslots, sizeof(*slots));
    for (size_t r = 0; r < t->count; r++) {
        uint64_t h = hash_words(rectab_at(t, r), t->key_words);
        size_t i = h & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (h >> 32 << 32) | ((uint64_t)r + 1);
    }
    t->slots = slots;
    t->nslots = nslots;
}

static inline int key_equal(const uint64_t *a, const uint64_t *b, size_t n)
{
    size_t k = 0;
    while (k < n && a[k] == b[k])
        k++;
    return k == n;
}

static size_t probe(const struct rectab *t, const uint64_t *key, uint64_t h)
{
    size_t mask = t->nslots - 1, i = h & mask;
    uint64_t hi = h >> 32 << 32;
    size_t kw = t->key_words;
    for (;;) {
        uint64_t v = t->slots[i];
        if (!v) return i;
        if ((v & ~(uint64_t)UINT32_MAX) == hi) {
            /* keys are a few words: compare inline rather than call memcmp */
            if (key_equal(rectab_at(t, (uint32_t)v - 1), key, kw)) return i;
        }
        i = (i + 1) & mask;
    }
}

uint64_t *rectab_find(const struct rectab *t, const uint64_t *key)
{
    if (!t->nslots) { /* no index (rectab_drop_index()): look at every record */
        for (size_t r = 0; r < t->count; r++)
            if (key_equal(rectab_at(t, r), key, t->key_words)) return rectab_val(t, r);
        return NULL;
    }
    size_t i = probe(t, key, hash_words(key, t->key_words));
    return t->slots[i] ? rectab_val(t, (uint32_t)t->slots[i] - 1) : NULL;
}

size_t rectab_get_index(struct rectab *t, const uint64_t *key, int *created)
{
    size_t i = rectab_hint_index(t, key);
    if (i != SIZE_MAX) {
        if (created) *created = 0;
        return i;
    }
    return rectab_lookup(t, key, created);
}

/* Store record t->count (key, zero values) and count it. */
static uint64_t *new_record(struct rectab *t, const uint64_t *key)
{
    size_t r = t->count;
    size_t words = t->key_words + t->val_words;
    if ((r >> RECTAB_BLOCK_SHIFT) >= t->nblocks) {
        t->blocks = xgrow(t->blocks, &t->blocks_cap, t->nblocks + 1, sizeof(*t->blocks));
        t->blocks[t->nblocks++] = xmalloc(BLOCK_RECS * words * sizeof(uint64_t));
    }
    uint64_t *rec = rectab_at(t, r);
    memcpy(rec, key, t->key_words * sizeof(uint64_t));
    memset(rec + t->key_words, 0, t->val_words * sizeof(uint64_t));
    t->count++;
    return rec + t->key_words;
}

uint64_t *rectab_append(struct rectab *t, const uint64_t *key)
{
    if (t->count >= UINT32_MAX - 1) abort(); /* as rectab_lookup() */
    return new_record(t, key);
}

size_t rectab_lookup(struct rectab *t, const uint64_t *key, int *created)
{
    if (!t->nslots) rectab_reserve(t, t->count + 1); /* the first, or a dropped index */
    uint64_t h = hash_words(key, t->key_words);
    size_t i = probe(t, key, h);
    if (t->slots[i]) {
        if (created) *created = 0;
        t->hint = (uint32_t)t->slots[i] - 1;
        return t->hint;
    }
    if (t->count >= UINT32_MAX - 1)
        abort(); /* 4 billion distinct cost centres exceed any real profile */
    size_t r = t->count;
    new_record(t, key);
    t->slots[i] = (h >> 32 << 32) | ((uint64_t)r + 1);
    t->hint = r;
    if (created) *created = 1;
    if (t->count * 4 > t->nslots * 3) resize(t);
    return r;
}
