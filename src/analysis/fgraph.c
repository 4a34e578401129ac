/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fgraph.c - the function graph of a part and its strongly connected components (fgraph.h). */
#include "fgraph.h"

#include <stdlib.h>
#include <string.h>

#include "../model/rectab.h"

void fgraph_release(struct fgraph *g)
{
    free(g->fn);
    free(g->self);
    free(g->from);
    free(g->to);
    free(g->count);
    free(g->cost);
    memset(g, 0, sizeof(*g));
}

/* The columns of one cost vector: evaluated, or the base events (read as
 * signed in a signed profile). */
static int columns(const struct fgraph_options *o, size_t ncols, const uint64_t *cost,
                   int is_signed, tally_wide *out)
{
    for (size_t c = 0; c < ncols; c++) {
        if (o->cols) {
            if (event_expr_eval(&o->cols[c], cost, is_signed, &out[c])) return -1;
        } else {
            uint64_t v = cost[o->colmap ? o->colmap[c] : c];
            out[c] = is_signed && !o->raw_costs ? (tally_wide)(int64_t)v : (tally_wide)v;
        }
    }
    return 0;
}

static int add_cols(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

/* Node of function fn, made on first sight (compact graphs). */
static uint32_t node_of(struct fgraph *g, uint32_t *map, uint32_t fn, size_t *cap)
{
    if (!map) return fn;
    if (map[fn] != UINT32_MAX) return map[fn];
    if (g->nnodes == *cap) {
        size_t old = *cap;
        *cap = *cap ? *cap * 2 : 64;
        g->fn = xrealloc(g->fn, *cap * sizeof(*g->fn));
        size_t nc = g->ncols ? g->ncols : 1;
        g->self = xrealloc(g->self, *cap * nc * sizeof(tally_wide));
        memset(g->self + old * nc, 0, (*cap - old) * nc * sizeof(tally_wide));
    }
    g->fn[g->nnodes] = fn;
    map[fn] = (uint32_t)g->nnodes;
    return (uint32_t)g->nnodes++;
}

int fgraph_build(struct fgraph *g, const struct profile *p, const struct part *pt,
                 const struct fgraph_options *o, struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    size_t nf = profile_nfunctions(p);
    size_t nc = o->cols || o->colmap ? o->ncols : pt->events.n;
    size_t nc1 = nc ? nc : 1;
    g->ncols = nc;
    uint32_t *map = NULL;
    size_t cap = 0;
    if (o->compact) {
        map = xmalloc((nf ? nf : 1) * sizeof(*map));
        memset(map, 0xff, (nf ? nf : 1) * sizeof(*map));
    } else {
        g->nnodes = cap = nf;
        g->fn = xmalloc((nf ? nf : 1) * sizeof(*g->fn));
        for (size_t f = 0; f < nf; f++)
            g->fn[f] = (uint32_t)f;
        g->self = xcalloc((nf ? nf : 1) * nc1, sizeof(tally_wide));
    }
    tally_wide *vec = xcalloc(nc1, sizeof(tally_wide));
    int sg = p->signed_costs, rc = 0;
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        uint32_t v = node_of(g, map, cr.fn, &cap);
        if (columns(o, nc, cr.cost, sg, vec) || add_cols(g->self + (size_t)v * nc, vec, nc))
            rc = tally_error_set(err, p->path, 0, "%s", o->msg_self);
    }
    struct rectab arcs;
    rectab_init(&arcs, 1, 1); /* (from << 32 | to) -> arc index + 1 */
    size_t acap = 0;
    for (size_t i = 0; i < part_ncalls(pt) && !rc; i++) {
        struct call_rec cr;
        part_call_get(pt, i, &cr);
        if (o->no_self_calls && cr.caller == cr.callee) continue;
        uint32_t f = node_of(g, map, cr.caller, &cap);
        uint32_t t = node_of(g, map, cr.callee, &cap);
        uint64_t key = (uint64_t)f << 32 | t;
        int created;
        uint64_t *slot = rectab_get(&arcs, &key, &created);
        if (created) {
            if (g->narcs == acap) {
                acap = acap ? acap * 2 : 64;
                g->from = xrealloc(g->from, acap * sizeof(*g->from));
                g->to = xrealloc(g->to, acap * sizeof(*g->to));
                g->count = xrealloc(g->count, acap * sizeof(*g->count));
                g->cost = xrealloc(g->cost, acap * nc1 * sizeof(tally_wide));
            }
            g->from[g->narcs] = f;
            g->to[g->narcs] = t;
            g->count[g->narcs] = 0;
            memset(g->cost + g->narcs * nc1, 0, nc1 * sizeof(tally_wide));
            *slot = ++g->narcs;
        }
        size_t a = *slot - 1;
        if (__builtin_add_overflow(g->count[a], *cr.count, &g->count[a]))
            rc = tally_error_set(err, p->path, 0, "%s", o->msg_count);
        else if (cr.cost && /* NULL: the part keeps call counts only */
                 (columns(o, nc, cr.cost, sg, vec) || add_cols(g->cost + a * nc1, vec, nc)))
            rc = tally_error_set(err, p->path, 0, "%s", o->msg_cost);
    }
    rectab_release(&arcs);
    free(map);
    free(vec);
    /* every array exists, even empty */
    if (!g->fn) g->fn = xmalloc(sizeof(*g->fn));
    if (!g->self) g->self = xcalloc(nc1, sizeof(tally_wide));
    if (!g->from) {
        g->from = xmalloc(sizeof(*g->from));
        g->to = xmalloc(sizeof(*g->to));
        g->count = xmalloc(sizeof(*g->count));
        g->cost = xmalloc(nc1 * sizeof(tally_wide));
    }
    return rc ? -1 : 0;
}

size_t fgraph_scc(size_t n, const size_t *start, const uint32_t *adj, uint32_t *comp,
                  uint32_t *order)
{
    const uint32_t UNSEEN = UINT32_MAX;
    uint32_t *index = xmalloc((n ? n : 1) * sizeof(*index));
    uint32_t *low = xmalloc((n ? n : 1) * sizeof(*low));
    uint32_t *stack = xmalloc((n ? n : 1) * sizeof(*stack)); /* Tarjan's node stack */
    char *onstack = xcalloc(n ? n : 1, 1);
    uint32_t *cs_node = xmalloc((n ? n : 1) * sizeof(*cs_node)); /* the walk */
    size_t *cs_edge = xmalloc((n ? n : 1) * sizeof(*cs_edge));
    size_t sp = 0, next = 0, ncomp = 0, norder = 0;
    for (size_t v = 0; v < n; v++)
        index[v] = UNSEEN;
    for (size_t root = 0; root < n; root++) {
        if (index[root] != UNSEEN) continue;
        size_t depth = 0;
        cs_node[depth] = (uint32_t)root;
        cs_edge[depth] = start[root];
        index[root] = low[root] = (uint32_t)next++;
        stack[sp++] = (uint32_t)root;
        onstack[root] = 1;
        depth = 1;
        while (depth) {
            uint32_t v = cs_node[depth - 1];
            if (cs_edge[depth - 1] < start[v + 1]) {
                uint32_t w = adj[cs_edge[depth - 1]++];
                if (index[w] == UNSEEN) {
                    index[w] = low[w] = (uint32_t)next++;
                    stack[sp++] = w;
                    onstack[w] = 1;
                    cs_node[depth] = w;
                    cs_edge[depth] = start[w];
                    depth++;
                } else if (onstack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            /* v is finished */
            if (low[v] == index[v]) {
                uint32_t w;
                do {
                    w = stack[--sp];
                    onstack[w] = 0;
                    comp[w] = (uint32_t)ncomp;
                    if (order) order[norder++] = w;
                } while (w != v);
                ncomp++;
            }
            depth--;
            if (depth) {
                uint32_t u = cs_node[depth - 1];
                if (low[v] < low[u]) low[u] = low[v];
            }
        }
    }
    free(index);
    free(low);
    free(stack);
    free(onstack);
    free(cs_node);
    free(cs_edge);
    return ncomp;
}

void fgraph_adjacency(size_t n, size_t na, const uint32_t *end, size_t **startp, uint32_t **arcsp)
{
    size_t *start = xcalloc(n + 1, sizeof(*start));
    uint32_t *arcs = xmalloc((na ? na : 1) * sizeof(*arcs));
    for (size_t a = 0; a < na; a++)
        start[end[a] + 1]++;
    for (size_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    size_t *fill = xmalloc((n + 1) * sizeof(*fill));
    memcpy(fill, start, (n + 1) * sizeof(*fill));
    for (size_t a = 0; a < na; a++)
        arcs[fill[end[a]]++] = (uint32_t)a;
    free(fill);
    *startp = start;
    *arcsp = arcs;
}
