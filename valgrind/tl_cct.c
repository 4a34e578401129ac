/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tl_cct.c - the calling-context tree (`tally record --contexts=yes`).
 *
 * A node is one stack of functions (its chain of parents up to a root).
 * Children are found through one hash table of edges (parent, function) ->
 * node, after a look at the parent's last child (cct_child in tl_cct.h). A
 * call makes a child even when its function is already on the stack
 * (mutual recursion keeps every frame); an edge leads back to the parent
 * itself only for direct self-recursion (f calling f: one more call of
 * f's node) and at the depth limit. Nodes are never freed; they are kept in
 * creation order, which puts every parent before its children, as the file
 * format wants.
 *
 * Copyright (C) 2026 the tally authors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "tl_cct.h"
#include "tl_out.h"
#include "tl_util.h"

/* A name (object or file) with its id in the file being written. */
typedef struct cct_name {
    struct cct_name *next;
    const HChar *s;
    UInt id;
} cct_name;

struct cct_fn {
    struct cct_fn *next;
    const HChar *name;
    cct_name *obj, *file;
    UInt id;
};

typedef struct edge {
    struct edge *next;
    cct_node *parent;
    cct_fn *fn;
    cct_node *to;
} edge;

/* The part of a node that calls and returns do not touch, kept right
 * after its costs (cold(n)): what building the tree, dumps and writing
 * need. */
typedef struct {
    cct_node *parent;
    cct_node *all; /* creation order */
    ULong *dumped; /* calls and costs written in parts so far (client dumps) */
    UInt depth;    /* 0 for a root */
    UInt owner;    /* the thread of a separate tree, else 0 */
    UInt id;       /* while writing */
} cct_cold;

/* Set by cct_init: the bytes of a node's hot part (struct cct_node and its
 * cct_span costs), and of a whole node. */
static SizeT hot_size, node_size;

static inline cct_cold *cold(const cct_node *n)
{
    return (cct_cold *)((Addr)n + hot_size);
}

static UInt depth_limit;
static Bool separate;
Int cct_span;
static cct_node *shared_root;
static cct_node *first_node, *last_node;

/*--- memory: a bump arena, never freed ---*/

static tl_arena arena = {.chunk = 256 * 1024, .cc = "tl.cct"};

static void *cct_alloc(SizeT n)
{
    return tl_arena_alloc(&arena, n);
}

/*--- hash tables keyed by pointers ---*/

static UWord ptr_hash(const void *a, const void *b)
{
    UWord x = (UWord)a * 0x9E3779B97F4A7C15ull ^ (UWord)b * 0xC2B2AE3D27D4EB4Full;
    return x ^ (x >> 29);
}

static htab names, fns, edges;

static UWord name_key(const void *p)
{
    return ptr_hash(((const cct_name *)p)->s, NULL);
}

static UWord fn_key(const void *p)
{
    const cct_fn *f = p;
    return ptr_hash(f->obj->s, f->name);
}

static UWord edge_key(const void *p)
{
    const edge *e = p;
    return ptr_hash(e->parent, e->fn);
}

static cct_name *get_name(const HChar *s)
{
    UWord h = ptr_hash(s, NULL);
    for (cct_name *n = names.slot[h & (names.nslots - 1)]; n; n = n->next)
        if (n->s == s) return n;
    cct_name *n = cct_alloc(sizeof *n);
    n->s = s;
    htab_add(&names, n, h, name_key);
    return n;
}

/*--- the tree ---*/

/*
 * Nodes come from chunks of their own. When the hot part fits in a 64-byte
 * line (up to 4 events), every node starts on a line and takes a multiple
 * of 64 bytes (128 for Ir Dr Dw), so what a call touches is one line;
 * with more events, nodes are packed (176 bytes with all 13).
 */
static UChar *node_cur, *node_end;

static void node_sizes(void)
{
    hot_size = sizeof(cct_node) + (SizeT)cct_span * sizeof(ULong);
    node_size = hot_size + ((sizeof(cct_cold) + 7) & ~(SizeT)7);
    if (hot_size <= 64) node_size = (node_size + 63) & ~(SizeT)63;
}

static cct_node *node_alloc(void)
{
    if (node_size > (SizeT)(node_end - node_cur)) {
        SizeT sz = 256 * 1024;
        UChar *p = VG_(malloc)("tl.cct.nodes", sz + 64);
        node_cur = (UChar *)(((Addr)p + 63) & ~(Addr)63);
        node_end = p + sz + 64;
    }
    cct_node *n = (cct_node *)node_cur;
    node_cur += node_size;
    VG_(memset)(n, 0, node_size);
    return n;
}

static cct_node *new_node(cct_node *parent, cct_fn *fn, UInt owner)
{
    cct_node *n = node_alloc();
    cct_cold *c = cold(n);
    n->fn = fn;
    c->parent = parent;
    c->depth = parent ? cold(parent)->depth + 1 : 0;
    c->owner = owner;
    if (last_node)
        cold(last_node)->all = n;
    else
        first_node = n;
    last_node = n;
    return n;
}

void cct_init(UInt depth, Bool sep, const Int *ev, Int n_ev)
{
    cct_span = 0;
    for (Int k = 0; k < n_ev; k++)
        if (ev[k] >= 0 && ev[k] < CCT_N_EV && ev[k] + 1 > cct_span) cct_span = ev[k] + 1;
    node_sizes();
    depth_limit = depth;
    separate = sep;
    htab_init(&names, 1024);
    htab_init(&fns, 4096);
    htab_init(&edges, 16384);
    if (!separate) shared_root = new_node(NULL, NULL, 0);
}

cct_fn *cct_fn_get(const HChar *obj, const HChar *file, const HChar *name)
{
    UWord h = ptr_hash(obj, name);
    for (cct_fn *f = fns.slot[h & (fns.nslots - 1)]; f; f = f->next)
        if (f->obj->s == obj && f->name == name) return f;
    cct_fn *f = cct_alloc(sizeof *f);
    f->name = name;
    f->obj = get_name(obj);
    f->file = get_name(file);
    htab_add(&fns, f, h, fn_key);
    return f;
}

void cct_thread_init(cct_thread *ct, UInt tid, const ULong *run)
{
    ct->root = separate ? new_node(NULL, NULL, tid) : shared_root;
    ct->cur = ct->root;
    for (Int e = 0; e < CCT_N_EV; e++)
        ct->mark[e] = run[e];
}

/* The edge (parent, fn) never changes once made, so the parent keeps the
 * last one it was asked for. */
static cct_node *remember(cct_node *parent, cct_fn *fn, cct_node *to)
{
    parent->last_fn = fn;
    parent->last_child = to;
    return to;
}

cct_node *cct_child_lookup(cct_node *parent, cct_fn *fn)
{
    UWord h = ptr_hash(parent, fn);
    for (edge *e = edges.slot[h & (edges.nslots - 1)]; e; e = e->next)
        if (e->parent == parent && e->fn == fn) return remember(parent, fn, e->to);
    /* f calling f directly stays in f's node (a call of it); any other
     * call, of a function on the stack or not, is a child: the stack keeps
     * every frame */
    cct_node *to;
    if (parent->fn == fn || (depth_limit && cold(parent)->depth >= depth_limit))
        to = parent;
    else
        to = new_node(parent, fn, cold(parent)->owner);
    edge *e = cct_alloc(sizeof *e);
    e->parent = parent;
    e->fn = fn;
    e->to = to;
    htab_add(&edges, e, h, edge_key);
    return remember(parent, fn, to);
}

void cct_dumped(void)
{
    for (cct_node *n = first_node; n; n = cold(n)->all) {
        cct_cold *c = cold(n);
        if (!c->dumped) c->dumped = cct_alloc((SizeT)(cct_span + 1) * sizeof(ULong));
        c->dumped[0] = n->calls;
        VG_(memcpy)(c->dumped + 1, n->cost, (SizeT)cct_span * sizeof(ULong));
    }
}

void cct_forget_dumped(void)
{
    for (cct_node *n = first_node; n; n = cold(n)->all) {
        ULong *d = cold(n)->dumped;
        if (!d) continue;
        n->calls -= d[0];
        for (Int e = 0; e < cct_span; e++)
            n->cost[e] -= d[e + 1];
        VG_(memset)(d, 0, (SizeT)(cct_span + 1) * sizeof(ULong));
    }
}

void cct_zero(void)
{
    for (cct_node *n = first_node; n; n = cold(n)->all) {
        const ULong *d = cold(n)->dumped;
        n->calls = d ? d[0] : 0;
        if (d)
            VG_(memcpy)(n->cost, d + 1, (SizeT)cct_span * sizeof(ULong));
        else
            VG_(memset)(n->cost, 0, (SizeT)cct_span * sizeof(ULong));
    }
}

/*--- output ---*/

/* Event e of a node's costs (a node has cct_span of them). */
static ULong node_cost(const cct_node *n, Int e)
{
    return e >= 0 && e < cct_span ? n->cost[e] : 0;
}

static void write_costs(VgFile *f, const cct_node *n, const Int *ev, Int n_ev)
{
    Int last = n_ev;
    while (last > 0 && node_cost(n, ev[last - 1]) == 0)
        last--;
    for (Int k = 0; k < last; k++)
        VG_(fprintf)(f, " %llu", node_cost(n, ev[k]));
    VG_(fprintf)(f, "\n");
}

/* "ob ID PATH" / "fl ID PATH" before the first use; 0 for unknown. */
static UInt name_id(VgFile *f, const HChar *kind, cct_name *n, UInt *next)
{
    if (VG_(strcmp)(n->s, "???") == 0) return 0;
    if (!n->id) {
        n->id = ++*next;
        VG_(fprintf)(f, "%s %u %s\n", kind, n->id, n->s);
    }
    return n->id;
}

static void write_tree(const HChar *name, UInt owner, const Int *ev, Int n_ev,
                       const HChar *const *evname)
{
    VgFile *f =
        VG_(fopen)(name, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
    if (!f) {
        VG_(umsg)("error: cannot create contexts file '%s'\n", name);
        tl_out_failed();
        return;
    }
    VG_(fprintf)(f, "# tally contexts 1\ncreator: tally-record 0.1\n");
    /* control characters (a newline in an argument) as spaces: one line */
    VG_(fprintf)(f, "cmd:");
    for (Word k = -1; k < VG_(sizeXA)(VG_(args_for_client)); k++) {
        const HChar *w =
            k < 0 ? VG_(args_the_exename) : *(HChar **)VG_(indexXA)(VG_(args_for_client), k);
        VG_(fprintf)(f, " ");
        for (; *w; w++)
            VG_(fprintf)(f, "%c", (UChar)*w < 0x20 || *w == 0x7f ? ' ' : *w);
    }
    VG_(fprintf)(f, "\npid: %d\n", VG_(getpid)());
    if (separate) VG_(fprintf)(f, "thread: %u\n", owner);
    VG_(fprintf)(f, "events:");
    for (Int k = 0; k < n_ev; k++)
        VG_(fprintf)(f, " %s", evname[ev[k]]);
    VG_(fprintf)(f, "\ndepth: %u\n", depth_limit);

    for (UWord k = 0; k < names.nslots; k++)
        for (cct_name *n = names.slot[k]; n; n = n->next)
            n->id = 0;
    for (UWord k = 0; k < fns.nslots; k++)
        for (cct_fn *fn = fns.slot[k]; fn; fn = fn->next)
            fn->id = 0;
    UInt next_ob = 0, next_fl = 0, next_fn = 0, next_x = 0;
    ULong tot[CCT_N_EV];
    VG_(memset)(tot, 0, sizeof tot);
    for (cct_node *n = first_node; n; n = cold(n)->all) {
        cct_cold *c = cold(n);
        c->id = 0;
        if (!n->fn || c->owner != owner) continue;
        cct_fn *fn = n->fn;
        if (!fn->id) {
            UInt ob = name_id(f, "ob", fn->obj, &next_ob);
            UInt fl = name_id(f, "fl", fn->file, &next_fl);
            fn->id = ++next_fn;
            VG_(fprintf)(f, "fn %u %u %u %s\n", fn->id, ob, fl, fn->name);
        }
        c->id = ++next_x;
        VG_(fprintf)(f, "x %u %u %u %llu", c->id, cold(c->parent)->id, fn->id, n->calls);
        write_costs(f, n, ev, n_ev);
        for (Int e = 0; e < cct_span; e++)
            tot[e] += n->cost[e];
    }
    VG_(fprintf)(f, "totals:");
    for (Int k = 0; k < n_ev; k++)
        VG_(fprintf)(f, " %llu", tot[ev[k]]);
    VG_(fprintf)(f, "\n");
    VG_(fclose)(f);
    if (VG_(clo_verbosity) > 0) VG_(umsg)("tally: wrote %s (calling contexts)\n", name);
}

void cct_write(const HChar *pattern, const Int *ev, Int n_ev, const HChar *const *evname)
{
    HChar *name = VG_(expand_file_name)("--contexts-out-file", pattern);
    if (!separate) {
        write_tree(name, 0, ev, n_ev, evname);
    } else {
        /* one file per thread that has a tree, in thread order */
        UInt max = 0;
        for (cct_node *n = first_node; n; n = cold(n)->all)
            if (cold(n)->owner > max) max = cold(n)->owner;
        SizeT len = VG_(strlen)(name) + 16;
        HChar *buf = VG_(malloc)("tl.cct.name", len);
        for (UInt tid = 1; tid <= max; tid++) {
            Bool any = False;
            for (cct_node *n = first_node; n && !any; n = cold(n)->all)
                any = cold(n)->owner == tid && n->fn;
            if (!any) continue;
            VG_(sprintf)(buf, "%s-%u", name, tid);
            write_tree(buf, tid, ev, n_ev, evname);
        }
        VG_(free)(buf);
    }
    VG_(free)(name);
}
