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
    free(g->stores);
    free(g->node_of);
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

/* Where the arc from u to w is among u's callees (out_arcs), or SIZE_MAX. */
static size_t out_pos(const struct vgraph *g, uint32_t u, uint32_t w)
{
    size_t lo = g->out_start[u], hi = g->out_start[u + 1];
    while (lo < hi) { /* a node's callees are sorted by node */
        size_t mid = lo + (hi - lo) / 2;
        if (g->to[g->out_arcs[mid]] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->out_start[u + 1] && g->to[g->out_arcs[lo]] == w ? lo : SIZE_MAX;
}

size_t vgraph_find_arc(const struct vgraph *g, uint32_t u, uint32_t w)
{
    size_t k = out_pos(g, u, w);
    return k == SIZE_MAX ? SIZE_MAX : g->out_arcs[k];
}

/*
 * The costs of the calls of node u, every part's: per callee into out in
 * out_arcs order, or with `only` (a function) that callee's alone into
 * out[0 .. ncols). Adds to out.
 */
static void sum_calls(const struct vgraph *g, uint32_t u, uint32_t only, tally_wide *out)
{
    size_t first = g->out_start[u];
    for (size_t k = 0; k < g->nparts; k++) {
        const struct vstore *st = g->stores[k];
        size_t i = vstore_find(st, g->fn[u]);
        if (i == SIZE_MAX) continue;
        uint64_t *c = xmalloc((st->ncols ? st->ncols : 1) * sizeof(*c));
        struct vstore_entry e = {.cost = c};
        const unsigned char *q = st->call + st->call_at[i], *end = st->call + st->call_at[i + 1];
        while (q < end) {
            q = vstore_next_call(st, q, &e);
            tally_wide *to = out;
            if (only != UINT32_MAX) {
                if (e.callee != only) continue;
            } else {
                uint32_t w = e.callee < g->nfn ? g->node_of[e.callee] : UINT32_MAX;
                size_t pos = w == UINT32_MAX ? SIZE_MAX : out_pos(g, u, w);
                if (pos == SIZE_MAX) continue;
                to = out + (pos - first) * g->ncols;
            }
            for (size_t x = 0; x < g->ncols; x++)
                to[x] += vgraph_val(g, c[g->colmap[k][x]]);
        }
        free(c);
    }
}

void vgraph_out_costs(const struct vgraph *g, uint32_t u, tally_wide *out)
{
    memset(out, 0, (g->out_start[u + 1] - g->out_start[u]) * g->ncols * sizeof(*out));
    sum_calls(g, u, UINT32_MAX, out);
}

void vgraph_arc_costs(const struct vgraph *g, size_t a, tally_wide *out)
{
    memset(out, 0, g->ncols * sizeof(*out));
    sum_calls(g, g->from[a], g->fn[g->to[a]], out);
}

int vgraph_event_arc_costs(const struct vgraph *g, size_t e, uint64_t *out, struct tally_error *err)
{
    size_t nf = g->nfn;
    const uint32_t *node = g->node_of;
    memset(out, 0, g->narcs * sizeof(*out));
    int rc = 0;
    for (size_t k = 0; k < g->nparts && !rc; k++) {
        const struct vstore *st = g->stores[k];
        size_t col = g->colmap[k][e];
        uint64_t *c = xmalloc((st->ncols ? st->ncols : 1) * sizeof(*c));
        struct vstore_entry x = {.cost = c};
        for (size_t i = 0; i < st->nfn && !rc; i++) {
            uint32_t u = node[st->fn[i]];
            const unsigned char *q = st->call + st->call_at[i],
                                *end = st->call + st->call_at[i + 1];
            while (q < end && u != UINT32_MAX) {
                q = vstore_next_call(st, q, &x);
                uint32_t w = x.callee < nf ? node[x.callee] : UINT32_MAX;
                size_t a = w == UINT32_MAX ? SIZE_MAX : vgraph_find_arc(g, u, w);
                if (a == SIZE_MAX) continue;
                if (__builtin_add_overflow(out[a], c[col], &out[a])) {
                    rc = tally_error_set(err, g->p->path, 0, "the cost of a call is too large");
                    break;
                }
            }
        }
        free(c);
    }
    return rc;
}

static int cmp_by_to(const void *a, const void *b, void *arg)
{
    const struct vgraph *g = arg;
    uint32_t x = g->to[*(const uint32_t *)a], y = g->to[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* The nodes and arcs of every part, summed as they are found: one pass
   of the graph (the one event it computes). */
struct pass {
    size_t ncols;            /* 1: the event computed */
    tally_wide *self, *cost; /* [nodes * ncols], [arcs * ncols] */
    size_t self_cap, cost_cap;
    size_t gself_cap; /* the first pass: g->self, every event, grows with the nodes */
};

/* Node of function f, made in the first pass. */
static uint32_t node_for(struct vgraph *g, struct pass *ps, uint32_t *node, uint32_t f, int grow,
                         size_t *cap_n)
{
    if (node[f] != UINT32_MAX || !grow) return node[f];
    g->fn = xgrow(g->fn, cap_n, g->nnodes + 1, sizeof(*g->fn));
    g->fn[g->nnodes] = f;
    node[f] = (uint32_t)g->nnodes++;
    if (g->nnodes * ps->ncols > ps->self_cap) {
        size_t old = ps->self_cap;
        ps->self = xgrow(ps->self, &ps->self_cap, g->nnodes * ps->ncols, sizeof(*ps->self));
        memset(ps->self + old, 0, (ps->self_cap - old) * sizeof(*ps->self));
    }
    if (g->nnodes * g->ncols > ps->gself_cap) {
        size_t old = ps->gself_cap;
        g->self = xgrow(g->self, &ps->gself_cap, g->nnodes * g->ncols, sizeof(*g->self));
        memset(g->self + old, 0, (ps->gself_cap - old) * sizeof(*g->self));
    }
    return node[f];
}

/* Add the k-th part's store into the pass: the nodes and arcs it adds
   (when `grow`, the first pass), the costs of columns cols[0 .. ncols). */
static int fold_part(struct vgraph *g, struct pass *ps, size_t k, const size_t *cols,
                     uint32_t *node, struct rectab *arcs, int grow, size_t *cap_n, size_t *cap_a,
                     struct tally_error *err)
{
    const struct vstore *st = g->stores[k];
    size_t nc = ps->ncols;
    uint64_t *c = xmalloc((st->ncols ? st->ncols : 1) * sizeof(*c));
    struct vstore_entry e = {.cost = c};
    int rc = 0;
    for (size_t i = 0; i < st->nfn && !rc; i++) {
        uint32_t u = node_for(g, ps, node, st->fn[i], grow, cap_n);
        if (u == UINT32_MAX) {
            rc = tally_error_set(err, g->p->path, 0, "the graph changed between events");
            break;
        }
        /* self costs: every event at once in the first pass (g->self, checked
           64-bit sums); the other passes take theirs from there */
        const unsigned char *q = st->cost + st->cost_at[i], *end = st->cost + st->cost_at[i + 1];
        while (grow && q < end && !rc) {
            q = vstore_next_cost(st, q, &e);
            uint64_t *to = g->self + (size_t)u * g->ncols;
            for (size_t x = 0; x < g->ncols && !rc; x++) {
                uint64_t v = c[g->colmap[k][x]];
                int over = g->is_signed ? __builtin_add_overflow((int64_t)to[x], (int64_t)v,
                                                                 (int64_t *)&to[x])
                                        : __builtin_add_overflow(to[x], v, &to[x]);
                if (over)
                    rc =
                        tally_error_set(err, g->p->path, 0,
                                        "a function's cost does not fit in 64 bits: tally view and "
                                        "tally report cannot show it (tally annotate can)");
            }
        }
        q = st->call + st->call_at[i];
        end = st->call + st->call_at[i + 1];
        while (q < end && !rc) {
            q = vstore_next_call(st, q, &e);
            uint32_t w = node_for(g, ps, node, e.callee, grow, cap_n);
            uint64_t key = (uint64_t)u << 32 | (w == UINT32_MAX ? 0 : w);
            int created = 0;
            /* the first pass finds the arcs, the others look them up in the
               callees of u, sorted by node (take_shape) */
            size_t a = w == UINT32_MAX ? SIZE_MAX
                       : grow          ? rectab_get_index(arcs, &key, &created)
                                       : vgraph_find_arc(g, u, w);
            if (a == SIZE_MAX) {
                rc = tally_error_set(err, g->p->path, 0, "the graph changed between events");
                break;
            }
            if (created) {
                g->from = xgrow(g->from, cap_a, a + 1, sizeof(*g->from));
                g->to = xrealloc(g->to, *cap_a * sizeof(*g->to));
                g->count = xrealloc(g->count, *cap_a * sizeof(*g->count));
                g->from[a] = u;
                g->to[a] = w;
                g->count[a] = 0;
                g->narcs = a + 1;
                if (g->narcs * nc > ps->cost_cap) {
                    size_t old = ps->cost_cap;
                    ps->cost = xgrow(ps->cost, &ps->cost_cap, g->narcs * nc, sizeof(*ps->cost));
                    memset(ps->cost + old, 0, (ps->cost_cap - old) * sizeof(*ps->cost));
                }
            }
            if (grow && __builtin_add_overflow(g->count[a], e.count, &g->count[a]))
                rc = tally_error_set(err, g->p->path, 0, "a call count is too large");
            for (size_t x = 0; x < nc; x++)
                ps->cost[a * nc + x] += vgraph_val(g, c[cols[x]]);
        }
    }
    free(c);
    return rc;
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
                 const struct vstore *stores, const uint32_t *extra, size_t nextra,
                 struct tally_error *err)
{
    memset(g, 0, sizeof(*g));
    g->p = p;
    g->nparts = nparts;
    g->parts = xcalloc(nparts ? nparts : 1, sizeof(*g->parts));
    g->stores = xcalloc(nparts ? nparts : 1, sizeof(*g->stores));
    for (size_t k = 0; k < nparts; k++) {
        g->parts[k] = p->parts[parts[k]];
        g->stores[k] = &stores[parts[k]];
    }
    if (!nparts) return tally_error_set(err, p->path, 0, "no part chosen");
    g->ncols = g->parts[0]->events.n;
    g->is_signed = p->signed_costs;
    if (!g->ncols) return tally_error_set(err, p->path, 0, "the profile counts no events");
    if (map_events(g, err)) return -1;
    g->total = xcalloc(g->ncols, sizeof(*g->total));
    size_t nf = profile_nfunctions(p), cap_n = 0, cap_a = 0;
    uint32_t *node = g->node_of = xmalloc((nf ? nf : 1) * sizeof(*node));
    memset(node, 0xff, (nf ? nf : 1) * sizeof(*node));
    g->nfn = nf;
    struct rectab arcs;
    rectab_init(&arcs, 1, 0);
    /* room for every function and for an arc per call entry from the
       start: arrays that grow by doubling would hold up to twice that while
       they are copied (the first pass gives back what it did not use) */
    size_t ncalls = 0;
    for (size_t k = 0; k < nparts; k++)
        ncalls += g->stores[k]->ncalls;
    rectab_reserve(&arcs, ncalls);
    cap_n = nf ? nf : 1;
    cap_a = ncalls ? ncalls : 1;
    g->fn = xmalloc(cap_n * sizeof(*g->fn));
    g->from = xmalloc(cap_a * sizeof(*g->from));
    g->to = xmalloc(cap_a * sizeof(*g->to));
    g->count = xmalloc(cap_a * sizeof(*g->count));
    unsigned char *levels = NULL;
    int rc = 0;
    /* one event at a time; the first decides which member of a cycle that
       nothing calls is at the bottom of the stack (as for every view), and
       the others keep its choice (incl_graph.bottom) */
    uint32_t *bottom = NULL;
    for (size_t e = 0; e < g->ncols && !rc; e++) {
        struct pass ps = {.ncols = 1};
        if (!e) {
            ps.self_cap = cap_n;
            ps.cost_cap = cap_a;
            ps.gself_cap = cap_n * g->ncols;
            ps.self = xcalloc(ps.self_cap, sizeof(*ps.self));
            ps.cost = xcalloc(ps.cost_cap, sizeof(*ps.cost));
            g->self = xcalloc(ps.gself_cap, sizeof(*g->self));
        } else {
            ps.self_cap = g->nnodes + 1;
            ps.cost_cap = g->narcs + 1;
            ps.self = xcalloc(ps.self_cap, sizeof(*ps.self));
            ps.cost = xcalloc(ps.cost_cap, sizeof(*ps.cost));
        }
        for (size_t k = 0; k < nparts && !rc; k++) {
            size_t cols[1] = {g->colmap[k][e]};
            rc = fold_part(g, &ps, k, cols, node, &arcs, e == 0, &cap_n, &cap_a, err);
        }
        /* the functions only a base has: rows of no cost */
        for (size_t x = 0; x < nextra && !e; x++)
            if (extra[x] < nf) node_for(g, &ps, node, extra[x], 1, &cap_n);
        if (!ps.self) ps.self = xcalloc(1, sizeof(*ps.self)); /* no node at all */
        for (size_t v = 0; !rc && v < g->nnodes; v++)
            ps.self[v] = vgraph_self(g, v, e);
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
        if (!rc && !e) levels = incl_fgraph_levels(&all, p, outer_part(g)); /* names: once */
        if (!rc) rc = incl_compute_fgraph_with(&all, outer_part(g), levels, bottom, &r, err);
        if (!rc && !e) { /* the first event's choices, kept */
            bottom = r.bottom;
            r.bottom = NULL;
        }
        if (!rc && !e && take_shape(g, &r))
            rc = tally_error_set(err, p->path, 0, "a call count is too large");
        if (!e) {
            rectab_release(&arcs); /* the arcs are found by their ends from now on */
            /* the arrays grew by doubling: give back what they will not use */
            g->fn = xrealloc(g->fn, (g->nnodes ? g->nnodes : 1) * sizeof(*g->fn));
            g->from = xrealloc(g->from, (g->narcs ? g->narcs : 1) * sizeof(*g->from));
            g->to = xrealloc(g->to, (g->narcs ? g->narcs : 1) * sizeof(*g->to));
            g->count = xrealloc(g->count, (g->narcs ? g->narcs : 1) * sizeof(*g->count));
            g->self = xrealloc(g->self, (g->nnodes ? g->nnodes : 1) * g->ncols * sizeof(*g->self));
        }
        for (size_t v = 0; !rc && v < g->nnodes; v++) {
            if (to_word(g, r.incl[v], &g->incl[v * g->ncols + e]))
                rc = tally_error_set(err, p->path, 0,
                                     "a function's cost does not fit in 64 bits: tally view and "
                                     "tally report cannot show it (tally annotate can)");
            else
                g->total[e] += vgraph_self(g, v, e);
        }
        if (r.incl) incl_result_release(&r);
        free(ps.self);
        free(ps.cost);
        xtrim(); /* each pass's arrays go back before the next pass takes its own */
    }
    free(levels);
    free(bottom);
    return rc ? -1 : 0;
}
