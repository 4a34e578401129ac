/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_cct.h - the calling-context tree of tally's Valgrind tool
 * (`--contexts=yes`), written at exit in the format of
 * docs/internals/contexts.md.
 *
 * tl_main.c owns the call stacks; it tells this module which node each
 * thread is running in (cct_switch) and asks it for the node of a call
 * (cct_child + cct_called). A node's self cost is the part of its thread's
 * running cost vector that grew while it was current: cct_switch charges
 * `run - mark` to the node it leaves.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_TL_CCT_H
#define TALLY_TL_CCT_H

#include "pub_tool_basics.h"

/* Events per node: the tool's N_EV (tl_main.c checks they are equal). */
#define CCT_N_EV 24

typedef struct cct_node cct_node;
typedef struct cct_fn cct_fn;

/* One thread's place in the tree. */
typedef struct {
    cct_node *root; /* the thread's root (shared by all threads unless separate) */
    cct_node *cur;  /* charged with what runs now */
    ULong mark[CCT_N_EV];
} cct_thread;

/* depth: --context-depth (0 = no limit); separate: one tree per thread;
 * ev/n_ev: the events counted (indices into the cost vectors; the others
 * stay 0). */
void cct_init(UInt depth, Bool separate, const Int *ev, Int n_ev);

/* The function (obj, name): both strings must be interned by the caller
 * (equal names, equal pointers); `file` is kept from the first call. */
cct_fn *cct_fn_get(const HChar *obj, const HChar *file, const HChar *name);

/* A new thread starts at its root, counting from `run`. */
void cct_thread_init(cct_thread *ct, UInt tid, const ULong *run);

/* The node for calling (or jumping into) fn from `parent`: the child (a
 * new one even when fn is already further up the stack), or `parent`
 * itself when its function is fn (direct self-recursion) or at the depth
 * limit. */
static inline cct_node *cct_child(cct_node *parent, cct_fn *fn);

/* One more call of n, when n is fn's node (not a depth-limited parent). */
static inline void cct_called(cct_node *n, cct_fn *fn);

static inline cct_fn *cct_node_fn(const cct_node *n);

/* Charge what ran since the last switch to the current node (only when
 * `parts_collecting`; otherwise it is dropped) and make `to` current. */
static inline void cct_switch(cct_thread *ct, cct_node *to, const ULong *run, Bool collect);

/* A part was dumped (client request): remember what the parts hold. */
void cct_dumped(void);

/* A forked child starts its own output file: the parts dumped before
 * are its parent's, not its own. */
void cct_forget_dumped(void);

/* Client request "zero the counters": forget what was counted since the
 * last dump (the tree stays the sum of the parts written). */
void cct_zero(void);

/*
 * Write the tree(s) at exit. `pattern` is --contexts-out-file (expanded
 * here, so a forked child writes its own file); with separate trees one
 * file per thread, named PATTERN-TID. ev/n_ev: the events written, as
 * indices into the node cost vectors; names: all event names by index.
 */
void cct_write(const HChar *pattern, const Int *ev, Int n_ev, const HChar *const *names);

/*--- inline: what runs at every call and return ---*/

/*
 * A node: what a call or a return touches, and only that. The layout is
 * here for the inline functions below; only tl_cct.c makes nodes, and it
 * keeps the rest of a node (parent, creation order, depth, thread, what
 * was dumped) right after its costs in the same allocation. The function,
 * the last child asked for (cct_child looks there before the hash table
 * of edges), the call count, then the costs: cct_span values (3 for Ir Dr
 * Dw, not all CCT_N_EV), since with whole stacks a deep recursion through
 * several functions makes a node per frame (128 bytes in all for three
 * events, on a 64-byte line of its own; 176 with all 13).
 */
struct cct_node {
    cct_fn *fn;           /* NULL for a root */
    cct_fn *last_fn;      /* the last (this, fn) edge asked for ... */
    cct_node *last_child; /* ... and where it leads */
    ULong calls;
    ULong cost[]; /* [cct_span] self costs */
};

/* The events charged: 0 to cct_span - 1, the highest event counted and
 * those below it (set by cct_init). The running cost never grows in an
 * event that is not counted, so charging one adds 0; only counted events
 * are written. Usually the counted events are Ir Dr Dw, the first three. */
extern Int cct_span;

/* The hashed lookup (and creation) of an edge; remembers it as the
 * parent's last child. */
cct_node *cct_child_lookup(cct_node *parent, cct_fn *fn);

static inline cct_node *cct_child(cct_node *parent, cct_fn *fn)
{
    if (parent->last_fn == fn) return parent->last_child;
    return cct_child_lookup(parent, fn);
}

static inline void cct_called(cct_node *n, cct_fn *fn)
{
    if (n->fn == fn) n->calls++;
}

static inline cct_fn *cct_node_fn(const cct_node *n)
{
    return n->fn;
}

static inline void cct_add(cct_node *n, const ULong *run, ULong *mark)
{
    Int span = cct_span;
    for (Int e = 0; e < span; e++) {
        ULong r = run[e];
        n->cost[e] += r - mark[e];
        mark[e] = r;
    }
}

static inline void cct_skip(const ULong *run, ULong *mark)
{
    Int span = cct_span;
    for (Int e = 0; e < span; e++)
        mark[e] = run[e];
}

static inline void cct_switch(cct_thread *ct, cct_node *to, const ULong *run, Bool collect)
{
    if (collect)
        cct_add(ct->cur, run, ct->mark);
    else
        cct_skip(run, ct->mark);
    ct->cur = to;
}

#endif
