/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vgraph.c - the function graph of `tally view`, in 64-bit words, its
 * inclusive costs computed one event at a time (vgraph.h).
 */
#include "vgraph.h"

#include <stdlib.h>
#include <string.h>

#include "../analysis/fgraph.h"
#include "../analysis/inclusive.h"

void vgraph_release(struct vgraph *g)
{
    free(g->fn);
    free(g->self);
    free(g->incl);
    free(g->calls);
    free(g->cycle);
    free(g->est);
    free(g->total);
    free(g->from);
    free(g->to);
    free(g->count);
    free(g->out_start);
    free(g->in_start);
    free(g->out_arcs);
    free(g->in_arcs);
    free(g->rec_start);
    free(g->rec);
    memset(g, 0, sizeof(*g));
}

double vgraph_share(const struct vgraph *g, size_t e, tally_wide value)
{
    if (e >= g->ncols || g->total[e] == 0) return 0.0;
    return 100.0 * (double)value / (double)g->total[e];
}

/* A 128-bit sum as a cost word, or -1 when it does not fit. */
static int to_word(const struct vgraph *g, tally_wide v, uint64_t *out)
{
    if (g->is_signed ? v < INT64_MIN || v > INT64_MAX : v < 0 || v > (tally_wide)UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* start[v] .. start[v + 1]: the arcs whose `end` is v. */
static void adjacency(size_t n, size_t narcs, const uint32_t *end, size_t **startp,
                      uint32_t **listp)
{
    size_t *start = xcalloc(n + 2, sizeof(*start));
    uint32_t *list = xmalloc((narcs ? narcs : 1) * sizeof(*list));
    for (size_t a = 0; a < narcs; a++)
        start[end[a] + 2]++;
    for (size_t v = 2; v < n + 2; v++)
        start[v] += start[v - 1];
    for (size_t a = 0; a < narcs; a++)
        list[start[end[a] + 1]++] = (uint32_t)a;
    *startp = start;
    *listp = list;
}

static int cmp_by_to(const void *a, const void *b, void *arg)
{
    const struct vgraph *g = arg;
    uint32_t x = g->to[*(const uint32_t *)a], y = g->to[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* The call records of each arc (found by caller and callee). */
static void index_records(struct vgraph *g)
{
    size_t nf = profile_nfunctions(g->p), nk = part_ncalls(g->pt);
    uint32_t *node = xmalloc((nf ? nf : 1) * sizeof(*node));
    memset(node, 0xff, (nf ? nf : 1) * sizeof(*node));
    for (size_t v = 0; v < g->nnodes; v++)
        node[g->fn[v]] = (uint32_t)v;
    uint32_t *arc_of = xmalloc((nk ? nk : 1) * sizeof(*arc_of));
    g->rec_start = xcalloc(g->narcs + 2, sizeof(*g->rec_start));
    for (size_t i = 0; i < nk; i++) {
        struct call_rec r;
        part_call_get(g->pt, i, &r);
        uint32_t u = r.caller < nf ? node[r.caller] : UINT32_MAX;
        uint32_t w = r.callee < nf ? node[r.callee] : UINT32_MAX;
        arc_of[i] = UINT32_MAX;
        if (u == UINT32_MAX || w == UINT32_MAX) continue;
        size_t lo = g->out_start[u], hi = g->out_start[u + 1];
        while (lo < hi) { /* the callees are sorted by node */
            size_t mid = lo + (hi - lo) / 2;
            if (g->to[g->out_arcs[mid]] < w)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < g->out_start[u + 1] && g->to[g->out_arcs[lo]] == w) {
            arc_of[i] = g->out_arcs[lo];
            g->rec_start[arc_of[i] + 2]++;
        }
    }
    for (size_t a = 2; a < g->narcs + 2; a++)
        g->rec_start[a] += g->rec_start[a - 1];
    g->rec = xmalloc((nk ? nk : 1) * sizeof(*g->rec));
    for (size_t i = 0; i < nk; i++)
        if (arc_of[i] != UINT32_MAX) g->rec[g->rec_start[arc_of[i] + 1]++] = (uint32_t)i;
    free(arc_of);
    free(node);
}

void vgraph_arc_costs(const struct vgraph *g, size_t a, tally_wide *out)
{
    memset(out, 0, g->ncols * sizeof(*out));
    for (size_t k = g->rec_start[a]; k < g->rec_start[a + 1]; k++) {
        struct call_rec r;
        part_call_get(g->pt, g->rec[k], &r);
        for (size_t e = 0; r.cost && e < g->ncols; e++)
            out[e] += vgraph_val(g, r.cost[e]);
    }
}

/* The first pass (event 0): the nodes, arcs, cycles and calls. */
static int take_shape(struct vgraph *g, struct fgraph *fg, const struct incl_result *r)
{
    size_t n = fg->nnodes;
    g->nnodes = n;
    g->fn = fg->fn;
    fg->fn = NULL;
    g->narcs = fg->narcs;
    g->from = fg->from;
    g->to = fg->to;
    g->count = fg->count;
    fg->from = fg->to = NULL;
    fg->count = NULL;
    size_t nc = g->ncols ? g->ncols : 1;
    g->self = xmalloc((n ? n : 1) * nc * sizeof(*g->self));
    g->incl = xmalloc((n ? n : 1) * nc * sizeof(*g->incl));
    g->calls = xcalloc(n ? n : 1, sizeof(*g->calls));
    g->cycle = xmalloc((n ? n : 1) * sizeof(*g->cycle));
    g->est = xmalloc(n ? n : 1);
    for (size_t v = 0; v < n; v++) {
        g->cycle[v] = r->cycle[v];
        g->est[v] = (unsigned char)incl_estimated(r, v);
    }
    adjacency(n, g->narcs, g->from, &g->out_start, &g->out_arcs);
    adjacency(n, g->narcs, g->to, &g->in_start, &g->in_arcs);
    /* a node's callees by node, for finding the arc of a call record */
    for (size_t v = 0; v < n; v++)
        qsort_r(g->out_arcs + g->out_start[v], g->out_start[v + 1] - g->out_start[v],
                sizeof(*g->out_arcs), cmp_by_to, g);
    for (size_t a = 0; a < g->narcs; a++)
        if (!vgraph_arc_recursive(g, a) &&
            __builtin_add_overflow(g->calls[g->to[a]], g->count[a], &g->calls[g->to[a]]))
            return -1;
    return 0;
}

int vgraph_build(struct vgraph *g, const struct profile *p, const struct part *pt,
                 struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->p = p;
    g->pt = pt;
    g->ncols = pt->events.n;
    g->is_signed = p->signed_costs;
    g->total = xcalloc(g->ncols ? g->ncols : 1, sizeof(*g->total));
    /* event e beside event 0, which decides which member of a cycle that
       nothing calls is at the bottom of the stack, as for every view */
    for (size_t e = 0; e < g->ncols; e++) {
        size_t colmap[2] = {0, e};
        struct fgraph_options fo = {.colmap = colmap,
                                    .ncols = e ? 2 : 1,
                                    .compact = 1,
                                    .msg_self = "a function's self cost is too large",
                                    .msg_count = "a call's cost or count is too large",
                                    .msg_cost = "a call's cost or count is too large"};
        struct fgraph fg;
        struct incl_result r;
        memset(&r, 0, sizeof(r));
        int rc = fgraph_build(&fg, p, pt, &fo, err);
        if (!rc) rc = incl_compute_fgraph(&fg, p, pt, &r, err);
        if (!rc && e == 0 && take_shape(g, &fg, &r))
            rc = tally_error_set(err, p->path, 0, "a call count is too large");
        if (!rc && e && (fg.nnodes != g->nnodes || fg.narcs != g->narcs))
            rc = tally_error_set(err, p->path, 0, "the graph changed between events");
        size_t c = e ? 1 : 0;
        for (size_t v = 0; !rc && v < g->nnodes; v++) {
            tally_wide s = fg.self[v * fo.ncols + c], i = r.incl[v * fo.ncols + c];
            if (to_word(g, s, &g->self[v * g->ncols + e]) ||
                to_word(g, i, &g->incl[v * g->ncols + e]))
                rc = tally_error_set(err, p->path, 0,
                                     "a function's cost does not fit in 64 bits: tally view "
                                     "cannot show it (tally annotate can)");
            else
                g->total[e] += s;
        }
        fgraph_release(&fg);
        if (r.incl) incl_result_release(&r);
        if (rc) return -1;
    }
    if (!g->ncols) return tally_error_set(err, p->path, 0, "the profile counts no events");
    index_records(g);
    return 0;
}
