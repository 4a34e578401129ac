/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_util.h - the small containers every part of tally's Valgrind tool
 * uses: a bump allocator for records that are never freed, chained hash
 * tables that grow, and vectors indexed by thread id.
 *
 * Tool code: no libc, only Valgrind's pub_tool_* API. Nothing here can
 * fail short of Valgrind's own out-of-memory exit.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_UTIL_H
#define TALLY_TL_UTIL_H

#include "pub_tool_basics.h"

/* A bump allocator: chunks of `chunk` bytes (a multiple of the page size),
 * or one as large as a bigger request, mapped anew (zero pages), never
 * given back; `cc` names it when memory runs out. Set chunk and cc, leave
 * the rest zero. */
typedef struct {
    UChar *cur, *end;
    SizeT chunk;
    const HChar *cc;
} tl_arena;

/* n bytes, zeroed, 8-byte aligned. */
void *tl_arena_alloc(tl_arena *a, SizeT n);

/* A chained hash table of records whose first member is their `next`
 * pointer. nslots is a power of two; lookups walk
 * slot[hash & (nslots - 1)] themselves. */
typedef struct {
    void **slot;
    UWord nslots, nused;
    UWord per_slot; /* records per slot before the table doubles (htab_init: 2) */
} htab;

/* An empty table of n slots (a power of two). */
void htab_init(htab *h, UWord n);

/* Twice the slots; `rehash` gives each record's hash again. */
void htab_grow(htab *h, UWord (*rehash)(const void *));

/* Put `node` at the head of its chain under `hash`, doubling the table
 * first when it holds per_slot times as many records as slots (2, a short
 * chain, unless its owner sets more to spend fewer 8-byte slots). */
void htab_add(htab *h, void *node, UWord hash, UWord (*rehash)(const void *));

/* A vector of pointers indexed by thread id, grown (zero-filled, under the
 * cost centre `cc`) so that index tid exists; returns the vector, *n its
 * new length. The old vector is freed when it moves. */
void *grow_by_tid(void *v, UInt *n, UInt tid, const HChar *cc);

#endif
