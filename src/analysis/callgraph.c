/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callgraph.c - a function-level call graph with inclusive costs.
 */
#include "callgraph.h"
#include "fgraph.h"

#include <stdlib.h>
#include <string.h>

static int add_cols(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

int callgraph_build(struct callgraph *g, const struct profile *p, size_t part,
                    const struct event_expr *cols, size_t ncols, struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->p = p;
    g->ncols = ncols;
    if (part >= p->nparts) return tally_error_set(err, p->path, 0, "profile has no data");
    const struct part *pt = p->parts[part];
    /* nodes and self costs, arcs summed per (caller, callee) */
    struct fgraph fg;
    struct fgraph_options fo = {.cols = cols,
                                .ncols = ncols,
                                .compact = 1,
                                .msg_self = "a function's self cost is too large",
                                .msg_count = "a call's cost or count is too large",
                                .msg_cost = "a call's cost or count is too large"};
    int rc = fgraph_build(&fg, p, pt, &fo, err);
    g->nnodes = fg.nnodes;
    g->fn = fg.fn;
    g->self = fg.self;
    g->narcs = fg.narcs;
    g->from = fg.from;
    g->to = fg.to;
    g->count = fg.count;
    g->cost = fg.cost;
    size_t n = g->nnodes, nc = ncols ? ncols : 1;
    g->calls = xcalloc(n ? n : 1, sizeof(*g->calls));
    g->reccalls = xcalloc(n ? n : 1, sizeof(*g->reccalls));
    g->total = xcalloc(nc, sizeof(tally_wide));
    fgraph_adjacency(n, g->narcs, g->from, &g->out_start, &g->out_arcs);
    fgraph_adjacency(n, g->narcs, g->to, &g->in_start, &g->in_arcs);
    if (rc) return -1;

    for (size_t v = 0; v < n; v++)
        if (add_cols(g->total, g->self + v * nc, ncols))
            return tally_error_set(err, p->path, 0, "the total cost is too large");
    int irc = incl_compute_fgraph(&fg, p, pt, &g->ir, err);
    if (irc) return -1;
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
