/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "strtab.h"
#include "error.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (64 * 1024)

void strtab_init(struct strtab *t)
{
    memset(t, 0, sizeof(*t));
    t->nslots = 1024;
    t->slots = xzalloc_written(t->nslots, sizeof(*t->slots));
    strtab_intern(t, "", 0);
}

void strtab_release(struct strtab *t)
{
    for (size_t i = 0; i < t->nblocks; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->block_first);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

/* A copy of s[0..len) and a NUL in the arena, for the string of this id. */
static char *arena_copy(struct strtab *t, uint32_t id, const char *s, size_t len)
{
    if (t->arena_size - t->arena_used < len + 1) {
        size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;
        t->arena = xmalloc(size);
        t->arena_size = size;
        t->arena_used = 0;
        size_t cap = t->blocks_cap;
        t->blocks = xgrow(t->blocks, &cap, t->nblocks + 1, sizeof(*t->blocks));
        t->block_first = xrealloc(t->block_first, cap * sizeof(*t->block_first));
        t->blocks_cap = cap;
        t->block_first[t->nblocks] = id;
        t->blocks[t->nblocks++] = t->arena;
    }
    char *d = t->arena + t->arena_used;
    memcpy(d, s, len);
    d[len] = '\0';
    t->arena_used += len + 1;
    return d;
}

static void rehash(struct strtab *t)
{
    size_t nslots = t->nslots * 2;
    uint32_t *slots = xzalloc_written(nslots, sizeof(*slots));
    for (size_t id = 0; id < t->n; id++) {
        size_t i = hash_bytes(t->strs[id], t->lens[id]) & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

static size_t lookup(const struct strtab *t, const char *s, size_t len, uint64_t h)
{
    size_t i = h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[i];
        if (!v) return i;
        if (t->lens[v - 1] == len && memcmp(t->strs[v - 1], s, len) == 0) return i;
        i = (i + 1) & (t->nslots - 1);
    }
}

uint32_t strtab_find(const struct strtab *t, const char *s, size_t len)
{
    size_t i = lookup(t, s, len, hash_bytes(s, len));
    return t->slots[i] ? t->slots[i] - 1 : UINT32_MAX;
}

uint32_t strtab_intern(struct strtab *t, const char *s, size_t len)
{
    uint64_t h = hash_bytes(s, len);
    size_t i = lookup(t, s, len, h);
    if (t->slots[i]) return t->slots[i] - 1;
    if (len > UINT32_MAX || t->n >= UINT32_MAX - 1)
        abort(); /* more than 4 billion names: not a real profile */
    size_t cap = t->cap;
    t->strs = xgrow(t->strs, &cap, t->n + 1, sizeof(*t->strs));
    t->lens = xrealloc(t->lens, cap * sizeof(*t->lens));
    t->cap = cap;
    uint32_t id = (uint32_t)t->n++;
    t->strs[id] = arena_copy(t, id, s, len);
    t->lens[id] = (uint32_t)len;
    t->slots[i] = id + 1;
    if (t->n * 2 > t->nslots) rehash(t);
    return id;
}

void strtab_free_below(struct strtab *t, size_t upto)
{
    free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
    int all = upto >= t->n, freed = 0;
    /* block b holds ids below upto only if the next block starts at or below it */
    while (t->nfreed < t->nblocks &&
           (all || (t->nfreed + 1 < t->nblocks && t->block_first[t->nfreed + 1] <= upto))) {
        free(t->blocks[t->nfreed]);
        t->blocks[t->nfreed++] = NULL;
        freed = 1;
    }
    if (all) {
        free(t->strs);
        free(t->lens);
        t->strs = NULL;
        t->lens = NULL;
        t->cap = 0;
        t->arena = NULL;
        t->arena_used = t->arena_size = 0;
        freed = 1;
    }
    if (freed) xtrim();
}
