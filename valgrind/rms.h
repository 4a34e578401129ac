/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rms.h - input-sensitive profiling: the read memory size (RMS) and the
 * dynamic read memory size (DRMS) of every routine activation, and the
 * performance tuples they are aggregated into.
 *
 * Written once, compiled two ways (like sim_cache.h): inside the Valgrind
 * tool (valgrind/tl_input.c) and as host C for tests/unit/test_rms.c when
 * TALLY_SIM_HOST is defined. Everything is static inline over the shim of
 * sim_types.h. docs/internals/rms.md has the long version; research
 * (aprof.md §1.2-§2.2) has the definitions.
 *
 * The algorithm (timestamps and a shadow stack)
 * ---------------------------------------------
 * Each thread has a stack of activations; each activation has an id (aid)
 * that grows along the stack. A shadow table holds, per memory cell, the
 * timestamp of the thread's last access to it (RMS: the aid of the
 * activation that made it; DRMS: the global counter at that moment, which
 * is >= the aid of the activation on top then). A read of cell c by the top
 * activation is a first read when ts[c] < top.aid: the top's partial RMS
 * goes up by one and, if the previous access was made by a live ancestor
 * (or by a returned descendant of one, whose partial RMS was added to it),
 * the deepest live activation with aid <= ts[c] goes down by one, so that
 * after propagation the cell counts once for every ancestor. Partial RMS
 * values are signed; the value of a finished activation is >= 0.
 *
 * A signal handler runs above a barrier activation (rms_signal): what it
 * reads is its own input and its cost its own, never the interrupted
 * activations' (the ancestor search stops at the barrier, the return
 * propagates nothing and moves the interrupted clocks on).
 *
 * DRMS adds a global table of the last write to each cell by anyone
 * (global counter value; bit 63 set when the kernel wrote it) and counts
 * a read also when that write came after the thread's own last access to
 * the cell (input produced meanwhile by another thread or by the kernel),
 * without decrementing any ancestor: it is a new value for all of them.
 *
 * Counters are 64-bit and checked: a counter reaching 2^62 stops the run
 * with a message (rms_fatal) rather than wrapping. Sums of squares are 128
 * bits, other sums are checked (a tuple that overflowed is flagged).
 *
 * Memory: the shadow tables are sparse radix trees over the whole 64-bit
 * space (4 levels of 8192 pointers above leaves of 4096 cells of 8 bytes),
 * allocated on first touch, with a 64-entry direct-mapped cache of leaves
 * in front.
 *
 * Copyright (C) 2026 the tally authors.
 */
#ifndef TALLY_RMS_H
#define TALLY_RMS_H

#include "sim_types.h"

typedef unsigned __int128 rms_u128;

#ifndef rms_fatal
#ifdef TALLY_SIM_HOST
#define rms_fatal(msg)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "rms: %s\n", msg);                                                         \
        abort();                                                                                   \
    } while (0)
#else
#define rms_fatal(msg) VG_(tool_panic)((HChar *)(msg))
#endif
#endif

/*------------------------------------------------------------*/
/*--- Shadow memory: cell -> 64-bit value                  ---*/
/*------------------------------------------------------------*/

#define RMS_LEAF_BITS 12 /* cells per leaf: 4096 */
#define RMS_NODE_BITS 13 /* pointers per inner node: 8192 */
#define RMS_LEVELS 4     /* 12 + 4 * 13 = 64 bits of cell index */
#define RMS_TLB 64

typedef struct rms_shadow {
    void **root;
    ULong tlb_key[RMS_TLB]; /* leaf key (cell >> 12) + 1; 0 = empty */
    ULong *tlb_leaf[RMS_TLB];
    ULong bytes; /* allocated, for the statistics */
} rms_shadow;

static inline void rms_shadow_init(rms_shadow *sh)
{
    sim_memset(sh, 0, sizeof *sh);
}

static inline void *rms_zalloc(rms_shadow *sh, SizeT n)
{
    void *p = sim_malloc("rms.shadow", n);
    sim_memset(p, 0, n);
    sh->bytes += n;
    return p;
}

/* The leaf holding `cell`, made if missing (create) or NULL. */
static __attribute__((noinline, unused)) ULong *rms_shadow_leaf_slow(rms_shadow *sh, ULong key,
                                                                     Bool create)
{
    const SizeT nodesz = sizeof(void *) << RMS_NODE_BITS;
    if (!sh->root) {
        if (!create) return NULL;
        sh->root = rms_zalloc(sh, nodesz);
    }
    void **n = sh->root;
    for (Int l = RMS_LEVELS - 1; l > 0; l--) {
        UWord i = (UWord)(key >> (l * RMS_NODE_BITS)) & ((1u << RMS_NODE_BITS) - 1);
        if (!n[i]) {
            if (!create) return NULL;
            n[i] = rms_zalloc(sh, nodesz);
        }
        n = n[i];
    }
    UWord i = (UWord)key & ((1u << RMS_NODE_BITS) - 1);
    if (!n[i]) {
        if (!create) return NULL;
        n[i] = rms_zalloc(sh, sizeof(ULong) << RMS_LEAF_BITS);
    }
    ULong *leaf = n[i];
    UWord t = (UWord)key & (RMS_TLB - 1);
    sh->tlb_key[t] = key + 1;
    sh->tlb_leaf[t] = leaf;
    return leaf;
}

/* The slot of `cell` (made on first touch). */
static inline ULong *rms_shadow_slot(rms_shadow *sh, ULong cell)
{
    ULong key = cell >> RMS_LEAF_BITS;
    UWord t = (UWord)key & (RMS_TLB - 1);
    ULong *leaf = sh->tlb_key[t] == key + 1 ? sh->tlb_leaf[t] : rms_shadow_leaf_slow(sh, key, True);
    return &leaf[cell & ((1u << RMS_LEAF_BITS) - 1)];
}

/* The value of `cell`, 0 when never set (nothing is allocated). */
static inline ULong rms_shadow_get(rms_shadow *sh, ULong cell)
{
    ULong key = cell >> RMS_LEAF_BITS;
    UWord t = (UWord)key & (RMS_TLB - 1);
    ULong *leaf =
        sh->tlb_key[t] == key + 1 ? sh->tlb_leaf[t] : rms_shadow_leaf_slow(sh, key, False);
    return leaf ? leaf[cell & ((1u << RMS_LEAF_BITS) - 1)] : 0;
}

static inline void rms_shadow_free_node(void **n, Int level)
{
    if (level > 0)
        for (UWord i = 0; i < (1u << RMS_NODE_BITS); i++)
            if (n[i]) rms_shadow_free_node(n[i], level - 1);
    sim_free(n);
}

static inline void rms_shadow_release(rms_shadow *sh)
{
    if (sh->root) rms_shadow_free_node(sh->root, RMS_LEVELS);
    rms_shadow_init(sh);
}

/*------------------------------------------------------------*/
/*--- Tuples: (owner, input size) -> cost statistics       ---*/
/*------------------------------------------------------------*/

typedef struct rms_tuple {
    struct rms_tuple *next;
    UInt owner; /* routine id, or context id with a CCT */
    ULong input;
    ULong calls, min, max, sum;
    rms_u128 sqr;
    ULong real;
    ULong self_sum, self_min, self_max;
    rms_u128 self_sqr;
    ULong cumul_sys, cumul_thr, self_sys, self_thr; /* DRMS */
    Bool overflow; /* a 64-bit sum would have wrapped (it saturated) */
} rms_tuple;

typedef struct rms_tuples {
    rms_tuple **slot;
    UWord nslots, n;
} rms_tuples;

static inline UWord rms_tuple_hash(UInt owner, ULong input)
{
    return (UWord)(((ULong)owner * 0x9E3779B97F4A7C15ull) ^ (input * 0xC2B2AE3D27D4EB4Full)) >> 7;
}

static inline void rms_tuples_init(rms_tuples *ts)
{
    ts->nslots = 256;
    ts->n = 0;
    ts->slot = sim_malloc("rms.tuples", ts->nslots * sizeof *ts->slot);
    sim_memset(ts->slot, 0, ts->nslots * sizeof *ts->slot);
}

static inline void rms_tuples_release(rms_tuples *ts)
{
    if (!ts->slot) return;
    for (UWord i = 0; i < ts->nslots; i++) {
        rms_tuple *t = ts->slot[i];
        while (t) {
            rms_tuple *nx = t->next;
            sim_free(t);
            t = nx;
        }
    }
    sim_free(ts->slot);
    ts->slot = NULL;
    ts->n = ts->nslots = 0;
}

static inline rms_tuple *rms_tuples_find(const rms_tuples *ts, UInt owner, ULong input)
{
    for (rms_tuple *t = ts->slot[rms_tuple_hash(owner, input) & (ts->nslots - 1)]; t; t = t->next)
        if (t->owner == owner && t->input == input) return t;
    return NULL;
}

static inline rms_tuple *rms_tuples_get(rms_tuples *ts, UInt owner, ULong input)
{
    rms_tuple *t = rms_tuples_find(ts, owner, input);
    if (t) return t;
    if (ts->n + 1 > ts->nslots) {
        UWord n = ts->nslots * 2;
        rms_tuple **s = sim_malloc("rms.tuples", n * sizeof *s);
        sim_memset(s, 0, n * sizeof *s);
        for (UWord i = 0; i < ts->nslots; i++) {
            rms_tuple *e = ts->slot[i];
            while (e) {
                rms_tuple *nx = e->next;
                UWord k = rms_tuple_hash(e->owner, e->input) & (n - 1);
                e->next = s[k];
                s[k] = e;
                e = nx;
            }
        }
        sim_free(ts->slot);
        ts->slot = s;
        ts->nslots = n;
    }
    t = sim_malloc("rms.tuple", sizeof *t);
    sim_memset(t, 0, sizeof *t);
    t->owner = owner;
    t->input = input;
    t->min = t->self_min = ~0ull;
    UWord k = rms_tuple_hash(owner, input) & (ts->nslots - 1);
    t->next = ts->slot[k];
    ts->slot[k] = t;
    ts->n++;
    return t;
}

/* *a += b, saturating and flagging instead of wrapping. */
static inline void rms_add(ULong *a, ULong b, Bool *ovf)
{
    if (*a + b < *a) {
        *a = ~0ull;
        *ovf = True;
    } else {
        *a += b;
    }
}

static inline void rms_add128(rms_u128 *a, rms_u128 b, Bool *ovf)
{
    if (*a + b < *a) {
        *a = ~(rms_u128)0;
        *ovf = True;
    } else {
        *a += b;
    }
}

/* Add tuple `b` into `a` (same owner and input): merging threads. */
static inline void rms_tuple_merge(rms_tuple *a, const rms_tuple *b)
{
    Bool *o = &a->overflow;
    rms_add(&a->calls, b->calls, o);
    if (b->min < a->min) a->min = b->min;
    if (b->max > a->max) a->max = b->max;
    rms_add(&a->sum, b->sum, o);
    rms_add128(&a->sqr, b->sqr, o);
    rms_add(&a->real, b->real, o);
    rms_add(&a->self_sum, b->self_sum, o);
    if (b->self_min < a->self_min) a->self_min = b->self_min;
    if (b->self_max > a->self_max) a->self_max = b->self_max;
    rms_add128(&a->self_sqr, b->self_sqr, o);
    rms_add(&a->cumul_sys, b->cumul_sys, o);
    rms_add(&a->cumul_thr, b->cumul_thr, o);
    rms_add(&a->self_sys, b->self_sys, o);
    rms_add(&a->self_thr, b->self_thr, o);
    if (b->overflow) *o = True;
}

/*------------------------------------------------------------*/
/*--- Calling context tree (shared by all threads)         ---*/
/*------------------------------------------------------------*/

/* Context ids are 1..n; 0 is the root (no routine). */
typedef struct rms_cct {
    UInt *parent, *routine; /* by context id */
    UInt n, cap;
    UInt *slot; /* open addressing: context id, 0 = empty */
    UWord nslots;
} rms_cct;

static inline void rms_cct_init(rms_cct *c)
{
    sim_memset(c, 0, sizeof *c);
}

static inline UWord rms_cct_hash(UInt parent, UInt routine)
{
    return (UWord)((((ULong)parent << 32) | routine) * 0x9E3779B97F4A7C15ull >> 17);
}

/* The context of `routine` called in context `parent`. */
static inline UInt rms_cct_child(rms_cct *c, UInt parent, UInt routine)
{
    if (c->nslots) {
        for (UWord k = rms_cct_hash(parent, routine) & (c->nslots - 1);;
             k = (k + 1) & (c->nslots - 1)) {
            UInt id = c->slot[k];
            if (!id) break;
            if (c->parent[id] == parent && c->routine[id] == routine) return id;
        }
    }
    if (c->n + 1 >= c->cap) {
        UInt n = c->cap ? c->cap * 2 : 1024;
        UInt *p = sim_malloc("rms.cct", n * sizeof *p), *r = sim_malloc("rms.cct", n * sizeof *r);
        if (c->cap) {
            for (UInt i = 0; i <= c->n; i++) {
                p[i] = c->parent[i];
                r[i] = c->routine[i];
            }
            sim_free(c->parent);
            sim_free(c->routine);
        }
        c->parent = p;
        c->routine = r;
        c->cap = n;
    }
    if ((c->n + 1) * 2 > c->nslots) {
        UWord n = c->nslots ? c->nslots * 2 : 2048;
        UInt *s = sim_malloc("rms.cct", n * sizeof *s);
        sim_memset(s, 0, n * sizeof *s);
        for (UInt id = 1; id <= c->n; id++) {
            UWord k = rms_cct_hash(c->parent[id], c->routine[id]) & (n - 1);
            while (s[k])
                k = (k + 1) & (n - 1);
            s[k] = id;
        }
        if (c->slot) sim_free(c->slot);
        c->slot = s;
        c->nslots = n;
    }
    UInt id = ++c->n;
    if (id == 0) rms_fatal("too many calling contexts");
    c->parent[id] = parent;
    c->routine[id] = routine;
    UWord k = rms_cct_hash(parent, routine) & (c->nslots - 1);
    while (c->slot[k])
        k = (k + 1) & (c->nslots - 1);
    c->slot[k] = id;
    return id;
}

static inline void rms_cct_release(rms_cct *c)
{
    if (c->cap) {
        sim_free(c->parent);
        sim_free(c->routine);
    }
    if (c->slot) sim_free(c->slot);
    rms_cct_init(c);
}

/*------------------------------------------------------------*/
/*--- Activations and threads                              ---*/
/*------------------------------------------------------------*/

#define RMS_KERNEL (1ull << 63) /* in the global write table: the kernel wrote */
#define RMS_COUNTER_MAX (1ull << 62)

typedef struct rms_act {
    ULong aid;
    Long rms; /* partial (D)RMS: may be negative while the activation runs */
    ULong start;
    ULong children;             /* cumulative cost of the finished direct children */
    ULong cumul_sys, cumul_thr; /* induced reads, self and descendants */
    ULong self_sys, self_thr;   /* induced reads of the activation itself */
    UInt routine;
    UInt ctx;
    Bool barrier;     /* a signal's pseudo activation: nothing goes to the parent */
    UInt saved_floor; /* barrier: the thread's floor before it */
} rms_act;

/* What the whole run shares. */
typedef struct rms_global {
    UInt shift; /* log2 of the memory resolution */
    Bool drms;
    Bool cct;
    ULong counter;  /* DRMS: the global clock (calls, switches, syscalls) */
    rms_shadow wts; /* DRMS: last write by anyone (| RMS_KERNEL) */
    rms_cct contexts;
    ULong negative; /* finished activations with a negative RMS (a bug if > 0) */
} rms_global;

typedef struct rms_thread {
    rms_act *stack;
    UInt depth, cap;
    ULong next_aid; /* RMS: this thread's activation counter */
    rms_shadow ts;  /* RMS: aid of the last access; DRMS: global clock at it */
    UInt *pending;  /* by routine id: open activations (for real-sum) */
    UInt npending;
    rms_tuples tuples;
    UInt skip;  /* > 0: inside code whose accesses are not counted */
    UInt floor; /* index of the innermost signal barrier (0 when none) */
} rms_thread;

static inline void rms_global_init(rms_global *g, UInt resolution, Bool drms, Bool cct)
{
    sim_memset(g, 0, sizeof *g);
    UInt s = 0;
    while ((1u << s) < resolution)
        s++;
    tl_assert((1u << s) == resolution && s <= 4);
    g->shift = s;
    g->drms = drms;
    g->cct = cct;
    g->counter = 1;
    rms_shadow_init(&g->wts);
    rms_cct_init(&g->contexts);
}

static inline void rms_global_release(rms_global *g)
{
    rms_shadow_release(&g->wts);
    rms_cct_release(&g->contexts);
}

static inline void rms_thread_init(rms_thread *t)
{
    sim_memset(t, 0, sizeof *t);
    t->next_aid = 1;
    rms_shadow_init(&t->ts);
    rms_tuples_init(&t->tuples);
}

static inline void rms_thread_release(rms_thread *t)
{
    if (t->stack) sim_free(t->stack);
    if (t->pending) sim_free(t->pending);
    rms_shadow_release(&t->ts);
    rms_tuples_release(&t->tuples);
    sim_memset(t, 0, sizeof *t);
}

/* DRMS: the clock moves on (a call, a thread switch, a kernel write). */
static inline ULong rms_tick(rms_global *g)
{
    if (++g->counter >= RMS_COUNTER_MAX) rms_fatal("the DRMS clock reached 2^62");
    return g->counter;
}

/* The deepest activation below the top whose aid is <= ts (binary search:
 * aids grow along the stack). The caller knows stack[floor].aid <= ts. */
static inline rms_act *rms_owner(rms_thread *t, ULong ts)
{
    /* most often the parent (the cell was last touched by it, or by an
     * earlier child of it) */
    if (t->stack[t->depth - 2].aid <= ts) return &t->stack[t->depth - 2];
    UInt lo = 0, hi = t->depth - 1; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        UInt mid = lo + (hi - lo) / 2;
        if (t->stack[mid].aid <= ts)
            lo = mid;
        else
            hi = mid;
    }
    return &t->stack[lo];
}

/* A read of one cell by the top activation (the stack is not empty). */
static inline void rms_read_cell(rms_global *g, rms_thread *t, ULong cell)
{
    rms_act *top = &t->stack[t->depth - 1];
    ULong *p = rms_shadow_slot(&t->ts, cell);
    ULong old = *p;
    if (!g->drms) {
        if (old >= top->aid) return;
        *p = top->aid;
        top->rms++;
        if (old >= t->stack[t->floor].aid) rms_owner(t, old)->rms--;
        return;
    }
    ULong w = rms_shadow_get(&g->wts, cell);
    *p = g->counter;
    if (old < (w & ~RMS_KERNEL)) {
        /* a value written by the kernel or by another thread since this
         * thread last touched the cell: new input for every ancestor */
        top->rms++;
        if (w & RMS_KERNEL)
            top->self_sys++;
        else
            top->self_thr++;
        return;
    }
    if (old >= top->aid) return;
    top->rms++;
    if (old >= t->stack[t->floor].aid) rms_owner(t, old)->rms--;
}

/* A write of one cell by the top activation. */
static inline void rms_write_cell(rms_global *g, rms_thread *t, ULong cell)
{
    if (!g->drms) {
        ULong *p = rms_shadow_slot(&t->ts, cell);
        ULong aid = t->stack[t->depth - 1].aid;
        if (*p < aid) *p = aid;
        return;
    }
    *rms_shadow_slot(&t->ts, cell) = g->counter;
    *rms_shadow_slot(&g->wts, cell) = g->counter;
}

/* The cells of an access of `size` bytes at `a`: floor(a/k) to
 * ceil((a+size)/k)-1 (research §1.2). */
static inline void rms_read(rms_global *g, rms_thread *t, Addr a, SizeT size)
{
    if (t->depth == 0 || t->skip || size == 0) return;
    ULong c = (ULong)a >> g->shift, last = ((ULong)a + size - 1) >> g->shift;
    for (;; c++) {
        rms_read_cell(g, t, c);
        if (c == last) break;
    }
}

static inline void rms_write(rms_global *g, rms_thread *t, Addr a, SizeT size)
{
    if (t->depth == 0 || t->skip || size == 0) return;
    ULong c = (ULong)a >> g->shift, last = ((ULong)a + size - 1) >> g->shift;
    for (;; c++) {
        rms_write_cell(g, t, c);
        if (c == last) break;
    }
}

/* DRMS: the kernel wrote `size` bytes at `a` (one tick for the batch). */
static inline void rms_kernel_write(rms_global *g, Addr a, SizeT size)
{
    if (!g->drms || size == 0) return;
    ULong ts = rms_tick(g) | RMS_KERNEL;
    ULong c = (ULong)a >> g->shift, last = ((ULong)a + size - 1) >> g->shift;
    for (;; c++) {
        *rms_shadow_slot(&g->wts, c) = ts;
        if (c == last) break;
    }
}

/* A thread gets the CPU (DRMS: the clock moves, so that the next thread's
 * writes are later than everything this one did). */
static inline void rms_switch(rms_global *g)
{
    if (g->drms) rms_tick(g);
}

/* A call of routine `routine` at cost clock `now`. */
static inline void rms_call(rms_global *g, rms_thread *t, UInt routine, ULong now)
{
    if (t->depth == t->cap) {
        UInt n = t->cap ? t->cap * 2 : 64;
        if (n < t->cap) rms_fatal("activation stack too deep");
        rms_act *s = sim_malloc("rms.stack", (SizeT)n * sizeof *s);
        for (UInt i = 0; i < t->depth; i++)
            s[i] = t->stack[i];
        if (t->stack) sim_free(t->stack);
        t->stack = s;
        t->cap = n;
    }
    if (routine >= t->npending) {
        UInt n = routine + 64 + t->npending;
        UInt *p = sim_malloc("rms.pending", (SizeT)n * sizeof *p);
        sim_memset(p, 0, (SizeT)n * sizeof *p);
        for (UInt i = 0; i < t->npending; i++)
            p[i] = t->pending[i];
        if (t->pending) sim_free(t->pending);
        t->pending = p;
        t->npending = n;
    }
    rms_act *a = &t->stack[t->depth];
    sim_memset(a, 0, sizeof *a);
    if (g->drms) {
        a->aid = rms_tick(g);
    } else {
        a->aid = t->next_aid++;
        if (t->next_aid >= RMS_COUNTER_MAX) rms_fatal("the RMS activation counter reached 2^62");
    }
    a->start = now;
    a->routine = routine;
    if (g->cct) a->ctx = rms_cct_child(&g->contexts, t->depth ? a[-1].ctx : 0, routine);
    t->depth++;
    t->pending[routine]++;
}

/* A signal is delivered: its handler runs above a pseudo activation of
 * routine `routine` (e.g. "<signal N>") that gives nothing to the
 * interrupted activations when it returns. */
static inline void rms_signal(rms_global *g, rms_thread *t, UInt routine, ULong now)
{
    rms_call(g, t, routine, now);
    rms_act *a = &t->stack[t->depth - 1];
    a->barrier = True;
    a->saved_floor = t->floor;
    t->floor = t->depth - 1;
    if (g->cct) a->ctx = rms_cct_child(&g->contexts, 0, routine); /* a root */
}

/* The top activation returns at cost clock `now`: its tuple is updated
 * and its partial values go to its parent. */
static inline void rms_return(rms_global *g, rms_thread *t, ULong now)
{
    tl_assert(t->depth > 0);
    rms_act *a = &t->stack[--t->depth];
    ULong cumul = now >= a->start ? now - a->start : 0;
    ULong self = cumul >= a->children ? cumul - a->children : 0;
    ULong input = 0;
    if (a->rms >= 0)
        input = (ULong)a->rms;
    else
        g->negative++;
    rms_tuple *tp = rms_tuples_get(&t->tuples, g->cct ? a->ctx : a->routine, input);
    Bool *o = &tp->overflow;
    tp->calls++;
    if (cumul < tp->min) tp->min = cumul;
    if (cumul > tp->max) tp->max = cumul;
    rms_add(&tp->sum, cumul, o);
    rms_add128(&tp->sqr, (rms_u128)cumul * cumul, o);
    if (self < tp->self_min) tp->self_min = self;
    if (self > tp->self_max) tp->self_max = self;
    rms_add(&tp->self_sum, self, o);
    rms_add128(&tp->self_sqr, (rms_u128)self * self, o);
    a->cumul_sys += a->self_sys;
    a->cumul_thr += a->self_thr;
    rms_add(&tp->cumul_sys, a->cumul_sys, o);
    rms_add(&tp->cumul_thr, a->cumul_thr, o);
    rms_add(&tp->self_sys, a->self_sys, o);
    rms_add(&tp->self_thr, a->self_thr, o);
    if (--t->pending[a->routine] == 0) rms_add(&tp->real, cumul, o);
    if (a->barrier) {
        t->floor = a->saved_floor;
        /* the interrupted activations neither read nor ran what the
         * handler did: their clocks skip it */
        for (UInt d = 0; d < t->depth; d++)
            t->stack[d].start += cumul;
        return;
    }
    if (t->depth > 0) {
        rms_act *p = a - 1;
        p->rms += a->rms;
        p->children += cumul;
        p->cumul_sys += a->cumul_sys;
        p->cumul_thr += a->cumul_thr;
    }
}

/*------------------------------------------------------------*/
/*--- The tool's interface (valgrind/tl_input.c)           ---*/
/*------------------------------------------------------------*/

#if defined(TALLY_SIM_TOOL) && defined(__PUB_TOOL_TOOLIFACE_H)
extern Bool rms_on; /* --input-sensitive=yes */
Bool rms_process_option(const HChar *arg);
void rms_print_usage(void);
void rms_pre_clo_init(void);
/* After the options; True: turn the cache simulation off (input-sensitive
 * mode without an explicit --cache-sim). */
Bool rms_post_clo_init(Bool calls);
/* IR: at the start of a block (after the preamble), and before each
 * statement of the input block (memory accesses get their helper call). */
void rms_ir_block(IRSB *sb);
void rms_ir_stmt(IRSB *sb, IRTypeEnv *tyenv, IRStmt *s);
/* The call tracker pushed or popped a frame of thread tid; the keys are
 * the interned function and object names; instr is the thread's running
 * instruction count. */
void rms_on_call(UInt tid, const void *fnkey, const void *objkey, const HChar *name,
                 const HChar *obj, Bool resolver, ULong instr);
void rms_on_return(UInt tid, Bool resolver, ULong instr);
void rms_on_switch(UInt tid);
/* A signal is delivered to tid (its handler runs next), and that
 * delivery's mark is gone (the handler returned or was left by longjmp). */
void rms_on_signal(UInt tid, Int sig, ULong instr);
void rms_on_signal_end(UInt tid, ULong instr);
/* At exit, after every open call was closed: write the report(s). */
void rms_fini(void);
/* Before the program runs: the report file can be created (else exit). */
void rms_out_check(void);
#endif

#endif /* TALLY_RMS_H */
