/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgraph.c - a function-level call graph with inclusive costs.
 */
#include "callgraph.h"

#include <stdlib.h>
#include <string.h>

static uint32_t node_for(struct callgraph *g, uint32_t *node_of, uint32_t fn, size_t *cap)
{
    if (node_of[fn] != UINT32_MAX) return node_of[fn];
    if (g->nnodes == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        g->fn = xrealloc(g->fn, *cap * sizeof(*g->fn));
    }
    g->fn[g->nnodes] = fn;
    node_of[fn] = (uint32_t)g->nnodes;
    return (uint32_t)g->nnodes++;
}

static int add_cols(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

/* Evaluate every column on a cost vector. */
static int eval_cols(const struct event_expr *cols, size_t ncols, const uint64_t *cost,
                     int is_signed, tally_wide *out)
{
    for (size_t c = 0; c < ncols; c++)
        if (event_expr_eval(&cols[c], cost, is_signed, &out[c])) return -1;
    return 0;
}

static void build_adjacency(size_t n, size_t na, const uint32_t *end, size_t **startp,
                            uint32_t **arcsp)
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

int callgraph_build(struct callgraph *g, const struct profile *p, size_t part,
                    const struct event_expr *cols, size_t ncols, struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->p = p;
    g->ncols = ncols;
    if (part >= p->nparts) return tally_error_set(err, p->path, 0, "profile has no data");
    const struct part *pt = p->parts[part];
    size_t nf = profile_nfunctions(p);
    uint32_t *node_of = xmalloc((nf ? nf : 1) * sizeof(*node_of));
    memset(node_of, 0xff, (nf ? nf : 1) * sizeof(*node_of));
    size_t cap = 0, nc = ncols ? ncols : 1;
    tally_wide *vec = xcalloc(nc, sizeof(tally_wide));
    int rc = 0;

    /* nodes and self costs */
    size_t scap = 0;
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        uint32_t v = node_for(g, node_of, cr.fn, &cap);
        if (g->nnodes > scap) {
            size_t old = scap;
            scap = cap;
            g->self = xrealloc(g->self, scap * nc * sizeof(tally_wide));
            memset(g->self + old * nc, 0, (scap - old) * nc * sizeof(tally_wide));
        }
        if (eval_cols(cols, ncols, cr.cost, p->signed_costs, vec) ||
            add_cols(g->self + (size_t)v * nc, vec, ncols))
            rc = tally_error_set(err, p->path, 0, "a function's self cost is too large");
    }

    /* arcs, summed per (caller, callee) */
    struct rectab arcs;
    rectab_init(&arcs, 1, 1); /* (from << 32 | to) -> arc index + 1 */
    size_t acap = 0;
    for (size_t i = 0; i < part_ncalls(pt) && !rc; i++) {
        struct call_rec cr;
        part_call_get(pt, i, &cr);
        uint32_t f = node_for(g, node_of, cr.caller, &cap);
        uint32_t t = node_for(g, node_of, cr.callee, &cap);
        uint64_t key = (uint64_t)f << 32 | t;
        int created;
        uint64_t *slot = rectab_get(&arcs, &key, &created);
        if (created) {
            if (g->narcs == acap) {
                acap = acap ? acap * 2 : 64;
                g->from = xrealloc(g->from, acap * sizeof(*g->from));
                g->to = xrealloc(g->to, acap * sizeof(*g->to));
                g->count = xrealloc(g->count, acap * sizeof(*g->count));
                g->cost = xrealloc(g->cost, acap * nc * sizeof(tally_wide));
            }
            g->from[g->narcs] = f;
            g->to[g->narcs] = t;
            g->count[g->narcs] = 0;
            memset(g->cost + g->narcs * nc, 0, nc * sizeof(tally_wide));
            *slot = ++g->narcs;
        }
        size_t a = *slot - 1;
        if (__builtin_add_overflow(g->count[a], *cr.count, &g->count[a]) ||
            eval_cols(cols, ncols, cr.cost, p->signed_costs, vec) ||
            add_cols(g->cost + a * nc, vec, ncols))
            rc = tally_error_set(err, p->path, 0, "a call's cost or count is too large");
    }
    rectab_release(&arcs);
    free(node_of);
    free(vec);

    size_t n = g->nnodes;
    if (n > scap) { /* nodes seen only in arcs */
        g->self = xrealloc(g->self, (n ? n : 1) * nc * sizeof(tally_wide));
        memset(g->self + scap * nc, 0, (n - scap) * nc * sizeof(tally_wide));
    }
    if (!g->self) g->self = xcalloc(nc, sizeof(tally_wide));
    if (!g->from) {
        g->from = xmalloc(sizeof(*g->from));
        g->to = xmalloc(sizeof(*g->to));
        g->count = xmalloc(sizeof(*g->count));
        g->cost = xmalloc(nc * sizeof(tally_wide));
    }
    if (!g->fn) g->fn = xmalloc(sizeof(*g->fn));
    g->calls = xcalloc(n ? n : 1, sizeof(*g->calls));
    g->reccalls = xcalloc(n ? n : 1, sizeof(*g->reccalls));
    g->total = xcalloc(nc, sizeof(tally_wide));
    build_adjacency(n, g->narcs, g->from, &g->out_start, &g->out_arcs);
    build_adjacency(n, g->narcs, g->to, &g->in_start, &g->in_arcs);
    if (rc) return -1;

    for (size_t v = 0; v < n; v++)
        if (add_cols(g->total, g->self + v * nc, ncols))
            return tally_error_set(err, p->path, 0, "the total cost is too large");
    struct incl_graph ig = {n, ncols, g->self, NULL, g->narcs, g->from, g->to, g->cost, NULL};
    if (incl_compute(&ig, &g->ir, err)) return -1;
    for (size_t a = 0; a < g->narcs; a++) {
        uint64_t *dst =
            callgraph_arc_recursive(g, a) ? &g->reccalls[g->to[a]] : &g->calls[g->to[a]];
        if (__builtin_add_overflow(*dst, g->count[a], dst))
            return tally_error_set(err, p->path, 0, "a call count is too large");
    }
    return 0;
}

void callgraph_release(struct callgraph *g)
{
    free(g->fn);
    free(g->self);
    free(g->calls);
    free(g->reccalls);
    free(g->from);
    free(g->to);
    free(g->count);
    free(g->cost);
    free(g->total);
    free(g->out_start);
    free(g->in_start);
    free(g->out_arcs);
    free(g->in_arcs);
    if (g->ir.incl) incl_result_release(&g->ir);
    memset(g, 0, sizeof(*g));
}

double callgraph_share(const struct callgraph *g, size_t col, tally_wide value)
{
    if (col >= g->ncols || g->total[col] == 0) return 0.0;
    return 100.0 * (double)value / (double)g->total[col];
}
