/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_util.c - bump allocator, growing chained hash tables and per-thread
 * vectors of tally's Valgrind tool (see tl_util.h).
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "tl_compat.h"
#include "tl_util.h"

void *tl_arena_alloc(tl_arena *a, SizeT n)
{
    n = (n + 7) & ~(SizeT)7;
    if (n > (SizeT)(a->end - a->cur)) {
        /* fresh anonymous pages: zero already, no memset per record */
        SizeT sz = n > a->chunk ? (n + 4095) & ~(SizeT)4095 : a->chunk;
        a->cur = tl_fresh_pages(sz, a->cc);
        a->end = a->cur + sz;
    }
    void *p = a->cur;
    a->cur += n;
    return p;
}

void htab_init(htab *h, UWord n)
{
    h->nslots = n;
    h->nused = 0;
    h->per_slot = 2;
    h->slot = VG_(calloc)("tl.htab", n, sizeof(void *));
}

/* All the chained records start with their `next` pointer. */
typedef struct hnode {
    struct hnode *next;
} hnode;

void htab_grow(htab *h, UWord (*rehash)(const void *))
{
    UWord n = h->nslots * 2;
    void **s = VG_(calloc)("tl.htab", n, sizeof(void *));
    for (UWord i = 0; i < h->nslots; i++) {
        hnode *e = h->slot[i];
        while (e) {
            hnode *nx = e->next;
            UWord k = rehash(e) & (n - 1);
            e->next = s[k];
            s[k] = e;
            e = nx;
        }
    }
    VG_(free)(h->slot);
    h->slot = s;
    h->nslots = n;
}

void htab_add(htab *h, void *node, UWord hash, UWord (*rehash)(const void *))
{
    if (++h->nused > h->per_slot * h->nslots) htab_grow(h, rehash);
    UWord k = hash & (h->nslots - 1);
    ((hnode *)node)->next = h->slot[k];
    h->slot[k] = node;
}

void *grow_by_tid(void *v, UInt *n, UInt tid, const HChar *cc)
{
    if (tid < *n) return v;
    UInt m = tid + 8;
    void **w = VG_(calloc)(cc, m, sizeof(void *));
    for (UInt k = 0; k < *n; k++)
        w[k] = ((void **)v)[k];
    if (v) VG_(free)(v);
    *n = m;
    return w;
}
