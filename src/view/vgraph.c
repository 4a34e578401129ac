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
#include "../model/rectab.h"

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
    for (size_t k = 0; g->colmap && k < g->nparts; k++)
        free(g->colmap[k]);
    free(g->colmap);
    free(g->parts);
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

/* The call records of each arc (found by caller and callee), every part. */
static void index_records(struct vgraph *g)
{
    size_t nf = profile_nfunctions(g->p), nk = 0;
    uint32_t *node = xmalloc((nf ? nf : 1) * sizeof(*node));
    memset(node, 0xff, (nf ? nf : 1) * sizeof(*node));
    for (size_t v = 0; v < g->nnodes; v++)
        node[g->fn[v]] = (uint32_t)v;
    for (size_t k = 0; k < g->nparts; k++)
        nk += part_ncalls(g->parts[k]);
    uint32_t *arc_of = xmalloc((nk ? nk : 1) * sizeof(*arc_of));
    g->rec_start = xcalloc(g->narcs + 2, sizeof(*g->rec_start));
    for (size_t k = 0, j = 0; k < g->nparts; k++)
        for (size_t i = 0; i < part_ncalls(g->parts[k]); i++, j++) {
            struct call_rec r;
            part_call_get(g->parts[k], i, &r);
            uint32_t u = r.caller < nf ? node[r.caller] : UINT32_MAX;
            uint32_t w = r.callee < nf ? node[r.callee] : UINT32_MAX;
            size_t a = u == UINT32_MAX || w == UINT32_MAX ? SIZE_MAX : vgraph_find_arc(g, u, w);
            arc_of[j] = a == SIZE_MAX ? UINT32_MAX : (uint32_t)a;
            if (a != SIZE_MAX) g->rec_start[a + 2]++;
        }
    for (size_t a = 2; a < g->narcs + 2; a++)
        g->rec_start[a] += g->rec_start[a - 1];
    g->rec = xmalloc((nk ? nk : 1) * sizeof(*g->rec));
    for (size_t k = 0, j = 0; k < g->nparts; k++)
        for (size_t i = 0; i < part_ncalls(g->parts[k]); i++, j++)
            if (arc_of[j] != UINT32_MAX) g->rec[g->rec_start[arc_of[j] + 1]++] = VGRAPH_REC(k, i);
    free(arc_of);
    free(node);
}

size_t vgraph_find_arc(const struct vgraph *g, uint32_t u, uint32_t w)
{
    size_t lo = g->out_start[u], hi = g->out_start[u + 1];
    while (lo < hi) { /* a node's callees are sorted by node */
        size_t mid = lo + (hi - lo) / 2;
        if (g->to[g->out_arcs[mid]] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->out_start[u + 1] && g->to[g->out_arcs[lo]] == w ? g->out_arcs[lo] : SIZE_MAX;
}

void vgraph_record_costs(const struct vgraph *g, size_t k, const uint64_t *cost, uint64_t *out)
{
    for (size_t e = 0; e < g->ncols; e++)
        out[e] = cost[g->colmap[k][e]];
}

void vgraph_arc_costs(const struct vgraph *g, size_t a, tally_wide *out)
{
    memset(out, 0, g->ncols * sizeof(*out));
    for (size_t j = g->rec_start[a]; j < g->rec_start[a + 1]; j++) {
        size_t k = VGRAPH_REC_PART(g->rec[j]);
        struct call_rec r;
        part_call_get(g->parts[k], VGRAPH_REC_INDEX(g->rec[j]), &r);
        for (size_t e = 0; r.cost && e < g->ncols; e++)
            out[e] += vgraph_val(g, r.cost[g->colmap[k][e]]);
    }
}

static int cmp_by_to(const void *a, const void *b, void *arg)
{
    const struct vgraph *g = arg;
    uint32_t x = g->to[*(const uint32_t *)a], y = g->to[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* The nodes and arcs of every part, summed as they are found: one pass
   of the graph (the columns the fgraphs of the parts were built with). */
struct pass {
    size_t ncols;            /* 1 (event 0) or 2 (event 0 and the one computed) */
    tally_wide *self, *cost; /* [nodes * ncols], [arcs * ncols] */
    size_t self_cap, cost_cap;
};

/* Add one part's fgraph into the pass: the nodes and arcs it adds (when
   `grow`, the first pass), their costs. */
static int fold_part(struct vgraph *g, struct pass *ps, const struct fgraph *fg, uint32_t *node,
                     struct rectab *arcs, int grow, size_t *cap_n, size_t *cap_a,
                     struct tally_error *err)
{
    size_t nc = ps->ncols;
    uint32_t *local = xmalloc((fg->nnodes ? fg->nnodes : 1) * sizeof(*local));
    for (size_t v = 0; v < fg->nnodes; v++) {
        uint32_t f = fg->fn[v];
        if (node[f] == UINT32_MAX) {
            if (!grow) {
                free(local);
                return tally_error_set(err, g->p->path, 0, "the graph changed between events");
            }
            g->fn = xgrow(g->fn, cap_n, g->nnodes + 1, sizeof(*g->fn));
            g->fn[g->nnodes] = f;
            node[f] = (uint32_t)g->nnodes++;
        }
        local[v] = node[f];
        if (grow && g->nnodes * nc > ps->self_cap) {
            size_t old = ps->self_cap;
            ps->self = xgrow(ps->self, &ps->self_cap, g->nnodes * nc, sizeof(*ps->self));
            memset(ps->self + old, 0, (ps->self_cap - old) * sizeof(*ps->self));
        }
        for (size_t c = 0; c < nc; c++)
            ps->self[(size_t)local[v] * nc + c] += fg->self[v * nc + c];
    }
    for (size_t a = 0; a < fg->narcs; a++) {
        uint64_t key = (uint64_t)local[fg->from[a]] << 32 | local[fg->to[a]];
        int created = 0;
        size_t i = rectab_get_index(arcs, &key, &created);
        if (created && !grow) {
            free(local);
            return tally_error_set(err, g->p->path, 0, "the graph changed between events");
        }
        if (created) {
            g->from = xgrow(g->from, cap_a, i + 1, sizeof(*g->from));
            size_t c2 = *cap_a;
            g->to = xrealloc(g->to, c2 * sizeof(*g->to));
            g->count = xrealloc(g->count, c2 * sizeof(*g->count));
            g->from[i] = local[fg->from[a]];
            g->to[i] = local[fg->to[a]];
            g->count[i] = 0;
            g->narcs = i + 1;
        }
        if (grow && __builtin_add_overflow(g->count[i], fg->count[a], &g->count[i])) {
            free(local);
            return tally_error_set(err, g->p->path, 0, "a call count is too large");
        }
        if (grow && g->narcs * nc > ps->cost_cap) {
            size_t old = ps->cost_cap;
            ps->cost = xgrow(ps->cost, &ps->cost_cap, g->narcs * nc, sizeof(*ps->cost));
            memset(ps->cost + old, 0, (ps->cost_cap - old) * sizeof(*ps->cost));
        }
        for (size_t c = 0; c < nc; c++)
            ps->cost[i * nc + c] += fg->cost[a * nc + c];
    }
    free(local);
    return 0;
}

/* The part whose marker says whether the arcs count outermost calls only:
   the sum has it when every part has it. */
static const struct part *outer_part(const struct vgraph *g)
{
    for (size_t k = 0; k < g->nparts; k++)
        if (!part_calls_outermost(g->parts[k])) return g->parts[k];
    return g->parts[0];
}

/* Nodes, arcs, cycles and calls from the first pass. */
static int take_shape(struct vgraph *g, const struct incl_result *r)
{
    size_t n = g->nnodes, nc = g->ncols ? g->ncols : 1;
    g->self = xmalloc((n ? n : 1) * nc * sizeof(*g->self));
    g->incl = xmalloc((n ? n : 1) * nc * sizeof(*g->incl));
    g->calls = xcalloc(n ? n : 1, sizeof(*g->calls));
    g->cycle = xmalloc((n ? n : 1) * sizeof(*g->cycle));
    g->est = xmalloc(n ? n : 1);
    for (size_t v = 0; v < n; v++) {
        g->cycle[v] = r->cycle[v];
        g->est[v] = (unsigned char)incl_estimated(r, v);
    }
    fgraph_adjacency(n, g->narcs, g->from, &g->out_start, &g->out_arcs);
    fgraph_adjacency(n, g->narcs, g->to, &g->in_start, &g->in_arcs);
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

/* Which event of each part is each of the first part's. */
static int map_events(struct vgraph *g, struct tally_error *err)
{
    const struct eventset *es = &g->parts[0]->events;
    g->colmap = xcalloc(g->nparts, sizeof(*g->colmap));
    for (size_t k = 0; k < g->nparts; k++) {
        const struct eventset *ek = &g->parts[k]->events;
        g->colmap[k] = xcalloc(es->n ? es->n : 1, sizeof(size_t));
        for (size_t e = 0; e < es->n; e++) {
            int ix = eventset_index(ek, es->names[e]);
            if (ix < 0 || ek->n != es->n) {
                char *a = eventset_join(es), *b = eventset_join(ek);
                tally_error_set(err, g->p->path, 0, "the parts count other events: '%s' and '%s'",
                                a, b);
                free(a);
                free(b);
                return -1;
            }
            g->colmap[k][e] = (size_t)ix;
        }
    }
    return 0;
}

int vgraph_build(struct vgraph *g, const struct profile *p, const size_t *parts, size_t nparts,
                 struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->p = p;
    g->nparts = nparts;
    g->parts = xcalloc(nparts ? nparts : 1, sizeof(*g->parts));
    for (size_t k = 0; k < nparts; k++)
        g->parts[k] = p->parts[parts[k]];
    if (!nparts) return tally_error_set(err, p->path, 0, "no part chosen");
    g->ncols = g->parts[0]->events.n;
    g->is_signed = p->signed_costs;
    if (!g->ncols) return tally_error_set(err, p->path, 0, "the profile counts no events");
    if (map_events(g, err)) return -1;
    g->total = xcalloc(g->ncols, sizeof(*g->total));
    size_t nf = profile_nfunctions(p), cap_n = 0, cap_a = 0;
    uint32_t *node = xmalloc((nf ? nf : 1) * sizeof(*node));
    memset(node, 0xff, (nf ? nf : 1) * sizeof(*node));
    struct rectab arcs;
    rectab_init(&arcs, 1, 0);
    int rc = 0;
    /* event e beside event 0, which decides which member of a cycle that
       nothing calls is at the bottom of the stack, as for every view */
    for (size_t e = 0; e < g->ncols && !rc; e++) {
        struct pass ps = {.ncols = e ? 2 : 1};
        if (e) {
            ps.self = xcalloc(g->nnodes * 2 + 1, sizeof(*ps.self));
            ps.cost = xcalloc(g->narcs * 2 + 1, sizeof(*ps.cost));
            ps.self_cap = g->nnodes * 2 + 1;
            ps.cost_cap = g->narcs * 2 + 1;
        }
        for (size_t k = 0; k < nparts && !rc; k++) {
            size_t colmap[2] = {g->colmap[k][0], g->colmap[k][e]};
            struct fgraph_options fo = {.colmap = colmap,
                                        .ncols = ps.ncols,
                                        .compact = 1,
                                        .msg_self = "a function's self cost is too large",
                                        .msg_count = "a call's cost or count is too large",
                                        .msg_cost = "a call's cost or count is too large"};
            struct fgraph fg;
            rc = fgraph_build(&fg, p, g->parts[k], &fo, err);
            if (!rc) rc = fold_part(g, &ps, &fg, node, &arcs, e == 0, &cap_n, &cap_a, err);
            fgraph_release(&fg);
        }
        if (!ps.self) ps.self = xcalloc(1, sizeof(*ps.self)); /* no node at all */
        if (!ps.cost) ps.cost = xcalloc(1, sizeof(*ps.cost));
        struct fgraph all = {.nnodes = g->nnodes,
                             .ncols = ps.ncols,
                             .fn = g->fn,
                             .self = ps.self,
                             .narcs = g->narcs,
                             .from = g->from,
                             .to = g->to,
                             .count = g->count,
                             .cost = ps.cost};
        struct incl_result r;
        memset(&r, 0, sizeof(r));
        if (!rc) rc = incl_compute_fgraph(&all, p, outer_part(g), &r, err);
        if (!rc && !e && take_shape(g, &r))
            rc = tally_error_set(err, p->path, 0, "a call count is too large");
        size_t c = e ? 1 : 0;
        for (size_t v = 0; !rc && v < g->nnodes; v++) {
            tally_wide sv = ps.self[v * ps.ncols + c], iv = r.incl[v * ps.ncols + c];
            if (to_word(g, sv, &g->self[v * g->ncols + e]) ||
                to_word(g, iv, &g->incl[v * g->ncols + e]))
                rc = tally_error_set(err, p->path, 0,
                                     "a function's cost does not fit in 64 bits: tally view "
                                     "cannot show it (tally annotate can)");
            else
                g->total[e] += sv;
        }
        if (r.incl) incl_result_release(&r);
        free(ps.self);
        free(ps.cost);
    }
    free(node);
    rectab_release(&arcs);
    if (rc) return -1;
    index_records(g);
    return 0;
}
