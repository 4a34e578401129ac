/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacks_estimated.c - the stack tree estimated from call arcs, when the
 * profile has no calling contexts: each function's cost split among its
 * callers, recursion folded into spanning trees of its cycles, counts
 * made whole with apportion() (see stacks.h and docs/internals/stacks.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "fgraph.h"
#include "stacks_impl.h"

static const char method_estimated[] =
    "estimated from call arcs: a function's cost is split among its callers in proportion to "
    "the inclusive costs of their calls (measured per arc); recursion folded";
static const char method_counts[] =
    "estimated from call arcs: a function's cost is split among its callers in proportion to "
    "call counts (gprof's assumption: the arcs have no costs); recursion folded";
static const char method_flat[] = "no call arcs in the profile: one level of functions";

/* ---- estimated: from call arcs -------------------------------------------- */

struct arc {
    uint32_t to;
    uint64_t count;
    double *cost; /* [nev] inclusive cost of the calls (by_cost) */
};

/* A spanning tree of one recursion cycle, from one entry member. */
struct span {
    uint32_t n;
    uint32_t *member;      /* [n] preorder; member[0] = the entry */
    uint32_t *first_child; /* [n] position + 1, 0 = none */
    uint32_t *next_sib;    /* [n] position + 1, 0 = none */
    uint64_t *in_count;    /* [n] calls on the arc from the tree parent */
    double *incl;          /* [n * nev] estimated inclusive of the subtree */
};

struct est {
    struct stack_tree *t;
    size_t nf, nev;
    int by_cost;      /* the arcs carry inclusive costs: split by them, else by counts */
    double *self;     /* [nf * nev] */
    uint32_t *off;    /* [nf + 1] out arcs in arcs[off[f] .. off[f+1]) */
    struct arc *arcs; /* no self arcs */
    uint32_t *comp;   /* [nf] component of each function */
    uint32_t ncomp;
    uint32_t *csize;    /* [ncomp] */
    uint32_t *cnum;     /* [ncomp] cycle number (1..) or 0 */
    double *cin;        /* [ncomp] weight of the calls entering from outside (counts) */
    int *cin_by_arcs;   /* [ncomp] entering calls have no counts: weigh each arc 1 */
    double *cincl;      /* [ncomp * nev] inclusive cost of the component */
    double *cinc;       /* [ncomp * nev] by_cost: inclusive cost of the calls entering it */
    double *cden;       /* [ncomp * nev] what an entering arc's weight is divided by */
    int32_t *span_of;   /* [nf] span index for entry f, or -1 */
    struct span *spans; /* made on demand */
    size_t nspans, spans_cap;
};

static double arc_weight(const struct est *e, const struct arc *a)
{
    return e->cin_by_arcs[e->comp[a->to]] ? 1.0 : (double)a->count;
}

/*
 * The share of the callee component's cost (event k) that one arc into it
 * carries: by_cost, the arc's inclusive cost over the component's (or over
 * the costs of all entering calls when those are more); else the arc's
 * calls over all calls entering the component.
 */
static double arc_frac(const struct est *e, const struct arc *a, size_t k)
{
    uint32_t tc = e->comp[a->to];
    double d = e->cden[(size_t)tc * e->nev + k];
    if (!(d > 0)) return 0.0;
    return (e->by_cost ? a->cost[k] : arc_weight(e, a)) / d;
}

/* The share of component c's cost (event k) that runs at the top (no recorded caller). */
static double top_frac(const struct est *e, uint32_t c, size_t k)
{
    if (!e->by_cost) return e->cin[c] > 0 ? 0.0 : 1.0;
    double d = e->cden[(size_t)c * e->nev + k], in = e->cinc[(size_t)c * e->nev + k];
    /* sums of whole counts: a remainder below a billionth is rounding */
    return d > 0 && in < d && d - in > d * 1e-9 ? (d - in) / d : 0.0;
}

/* What an arc adds to its caller's inclusive cost (event k). */
static double arc_incl(const struct est *e, const struct arc *a, size_t k)
{
    size_t i = (size_t)e->comp[a->to] * e->nev + k;
    if (!e->by_cost) return arc_frac(e, a, k) * e->cincl[i];
    /* the measured cost, scaled down where the entering calls cost more
       than the component (exactly 1 otherwise, so sums stay whole) */
    return e->cden[i] > 0 ? a->cost[k] * (e->cincl[i] / e->cden[i]) : 0.0;
}

/* The components of the call graph (fgraph_scc): callees first. */
static void find_components(struct est *e, uint32_t **order_out)
{
    size_t nf = e->nf;
    size_t *start = xmalloc((nf + 1) * sizeof(*start));
    for (size_t f = 0; f <= nf; f++)
        start[f] = e->off[f];
    size_t na = e->off[nf];
    uint32_t *adj = xmalloc((na ? na : 1) * sizeof(*adj));
    for (size_t i = 0; i < na; i++)
        adj[i] = e->arcs[i].to;
    uint32_t *order = xmalloc((nf ? nf : 1) * sizeof(uint32_t));
    e->ncomp = (uint32_t)fgraph_scc(nf, start, adj, e->comp, order);
    free(start);
    free(adj);
    *order_out = order;
}

/* A max-heap of arcs inside a cycle, by weight (the arc's cost of the first event). */
struct span_cand {
    double w;
    uint32_t pos; /* the caller's position in the span */
    uint32_t arc;
};

static void cand_push(struct span_cand **h, size_t *n, size_t *cap, struct span_cand x)
{
    *h = xgrow(*h, cap, *n + 1, sizeof(**h));
    size_t i = (*n)++;
    while (i && (*h)[(i - 1) / 2].w < x.w) {
        (*h)[i] = (*h)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*h)[i] = x;
}

static struct span_cand cand_pop(struct span_cand *h, size_t *n)
{
    struct span_cand top = h[0], x = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        double wm = x.w;
        if (l < *n && h[l].w > wm) m = l, wm = h[l].w;
        if (r < *n && h[r].w > wm) m = r;
        if (m == i) break;
        h[i] = h[m];
        i = m;
    }
    if (*n) h[i] = x;
    return top;
}

static int32_t get_span(struct est *e, uint32_t entry)
{
    if (e->span_of[entry] >= 0) return e->span_of[entry];
    uint32_t c = e->comp[entry], cn = e->csize[c];
    struct span sp;
    sp.n = 0;
    sp.member = xmalloc(cn * sizeof(uint32_t));
    sp.first_child = xcalloc(cn, sizeof(uint32_t));
    sp.next_sib = xcalloc(cn, sizeof(uint32_t));
    sp.in_count = xcalloc(cn, sizeof(uint64_t));
    sp.incl = xcalloc((size_t)cn * (e->nev ? e->nev : 1), sizeof(double));
    uint32_t *parent = xmalloc(cn * sizeof(uint32_t));
    uint32_t *stk = xmalloc(cn * sizeof(uint32_t)), *edg = xmalloc(cn * sizeof(uint32_t));
    /* depth-first from the entry over arcs inside the cycle; members are
     * found in a small open-addressing table keyed by function */
    size_t tabn = 1;
    while (tabn < (size_t)cn * 2)
        tabn <<= 1;
    uint32_t *tabk = xmalloc(tabn * sizeof(uint32_t)), *tabv = xmalloc(tabn * sizeof(uint32_t));
    for (size_t i = 0; i < tabn; i++)
        tabk[i] = UINT32_MAX;
#define SPAN_SLOT(f) (((f)*2654435761u) & (tabn - 1))
    size_t top = 0;
    sp.member[0] = entry;
    parent[0] = UINT32_MAX;
    sp.n = 1;
    {
        size_t h = SPAN_SLOT(entry);
        tabk[h] = entry;
        tabv[h] = 0;
    }
    stk[top] = 0;
    edg[top++] = e->off[entry];
    if (e->by_cost && e->nev) {
        /*
         * By costs: each member hangs under the member that calls it with
         * the most cost (the heaviest arcs first, as Prim's algorithm does),
         * so the spanning tree follows the calls that carry the cost.
         */
        struct span_cand *h = NULL;
        size_t hn = 0, hcap = 0;
        top = 0;
        for (uint32_t ai = e->off[entry]; ai < e->off[entry + 1]; ai++)
            if (e->comp[e->arcs[ai].to] == c)
                cand_push(&h, &hn, &hcap, (struct span_cand){e->arcs[ai].cost[0], 0, ai});
        while (hn) {
            struct span_cand x = cand_pop(h, &hn);
            const struct arc *a = &e->arcs[x.arc];
            size_t hs = SPAN_SLOT(a->to);
            while (tabk[hs] != UINT32_MAX && tabk[hs] != a->to)
                hs = (hs + 1) & (tabn - 1);
            if (tabk[hs] == a->to) continue;
            uint32_t np = sp.n++;
            tabk[hs] = a->to;
            tabv[hs] = np;
            sp.member[np] = a->to;
            parent[np] = x.pos;
            sp.in_count[np] = a->count;
            sp.next_sib[np] = sp.first_child[x.pos];
            sp.first_child[x.pos] = np + 1;
            for (uint32_t ai = e->off[a->to]; ai < e->off[a->to + 1]; ai++)
                if (e->comp[e->arcs[ai].to] == c)
                    cand_push(&h, &hn, &hcap, (struct span_cand){e->arcs[ai].cost[0], np, ai});
        }
        free(h);
    }
    while (top) {
        uint32_t pos = stk[top - 1], f = sp.member[pos];
        if (edg[top - 1] >= e->off[f + 1]) {
            top--;
            continue;
        }
        const struct arc *a = &e->arcs[edg[top - 1]++];
        if (e->comp[a->to] != c) continue;
        size_t h = SPAN_SLOT(a->to);
        while (tabk[h] != UINT32_MAX && tabk[h] != a->to)
            h = (h + 1) & (tabn - 1);
        if (tabk[h] == a->to) continue;
        uint32_t np = sp.n++;
        tabk[h] = a->to;
        tabv[h] = np;
        sp.member[np] = a->to;
        parent[np] = pos;
        sp.in_count[np] = a->count;
        sp.next_sib[np] = sp.first_child[pos];
        sp.first_child[pos] = np + 1;
        stk[top] = np;
        edg[top++] = e->off[a->to];
    }
#undef SPAN_SLOT
    /* inclusive estimates, children before parents (every member comes
       after its tree parent) */
    size_t ne = e->nev;
    for (uint32_t pos = sp.n; pos-- > 0;) {
        uint32_t f = sp.member[pos];
        double *inc = sp.incl + (size_t)pos * ne;
        for (size_t k = 0; k < ne; k++)
            inc[k] += e->self[(size_t)f * ne + k];
        for (uint32_t ai = e->off[f]; ai < e->off[f + 1]; ai++) {
            const struct arc *a = &e->arcs[ai];
            uint32_t tc = e->comp[a->to];
            if (tc == c) continue;
            for (size_t k = 0; k < ne; k++)
                inc[k] += arc_incl(e, a, k);
        }
        if (pos) {
            double *pinc = sp.incl + (size_t)parent[pos] * ne;
            for (size_t k = 0; k < ne; k++)
                pinc[k] += inc[k];
        }
    }
    free(parent);
    free(stk);
    free(edg);
    free(tabk);
    free(tabv);
    e->spans = xgrow(e->spans, &e->spans_cap, e->nspans + 1, sizeof(*e->spans));
    e->spans[e->nspans] = sp;
    e->span_of[entry] = (int32_t)e->nspans;
    return (int32_t)e->nspans++;
}

static uint64_t to_u64(double v)
{
    if (!(v > 0)) return 0;
    if (v >= 18446744073709551615.0) return UINT64_MAX;
    return (uint64_t)llround(v);
}

static int apportion_tree(struct stack_tree *t, size_t ne)
{
    size_t cap = 0;
    uint64_t *w = NULL;
    struct apportion_scratch scratch = {0};
    uint32_t *kids = NULL;
    size_t kcap = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        size_t nk = stacks_children(t, i, &kids, &kcap);
        w = xgrow(w, &cap, nk + 2, sizeof(*w));
        for (size_t k = 0; k < ne; k++) {
            uint64_t *tt = ttotal(t, i);
            /* the self cost keeps its rounded estimate (exact for a function
               reached by one path only) as far as the total allows; the
               rest of the total goes to the children and the pruned part */
            uint64_t self = i == 0 ? 0 : tself(t, i)[k]; /* the root has none */
            if (self > tt[k]) self = tt[k];
            unsigned __int128 below = self;
            w[0] = 0;
            for (size_t j = 0; j < nk; j++) {
                w[j + 1] = ttotal(t, kids[j])[k];
                below += w[j + 1];
            }
            /* the rounded total beyond self + children is the pruned part */
            w[nk + 1] = below < tt[k] ? (uint64_t)(tt[k] - below) : 0;
            /* nothing to go by (all weights 0): all of it to self */
            apportion(tt[k] - self, w, 1, nk + 2, w, APPORTION_ZERO_FIRST, &scratch);
            tself(t, i)[k] = self + w[0];
            for (size_t j = 0; j < nk; j++)
                ttotal(t, kids[j])[k] = w[j + 1];
        }
    }
    free(w);
    apportion_scratch_release(&scratch);
    free(kids);
    return 0;
}

/* Node `node`'s share of its function's cost, per event: share[0..ne). */
static void note_share(double **nsh, size_t *cap, uint32_t node, const double *share, size_t ne)
{
    size_t ne1 = ne ? ne : 1;
    *nsh = xgrow(*nsh, cap, ((size_t)node + 1) * ne1, sizeof(double));
    for (size_t k = 0; k < ne1; k++)
        (*nsh)[(size_t)node * ne1 + k] = ne ? share[k] : 0.0;
}

/*
 * When nothing was pruned or cut: each function's self cost is split
 * among its nodes in proportion to their shares, by largest remainder, so
 * the nodes of a function add up to its self cost exactly; each total is
 * then its self cost plus its children's totals (children come after their
 * parents in the node array). Returns 1, or 0 (nothing changed) when the
 * root would not come to the grand total (a function with cost and no
 * node), for apportion_tree() to do instead.
 */
static int exact_selves(struct stack_tree *t, size_t ne, const uint64_t *selfu, size_t nf,
                        const double *nsh, const uint64_t *grand)
{
    size_t n = t->n;
    uint32_t *first = xcalloc(nf + 2, sizeof(uint32_t)); /* nodes grouped by function */
    uint32_t *byfn = xmalloc((n ? n : 1) * sizeof(uint32_t));
    for (uint32_t i = 1; i < n; i++)
        first[t->nodes[i].fn + 1]++;
    for (size_t f = 0; f < nf; f++)
        first[f + 1] += first[f];
    {
        uint32_t *fill = xmalloc((nf + 1) * sizeof(uint32_t));
        memcpy(fill, first, (nf + 1) * sizeof(uint32_t));
        for (uint32_t i = 1; i < n; i++)
            byfn[fill[t->nodes[i].fn]++] = i;
        free(fill);
    }
    uint64_t *self = xcalloc((n ? n : 1) * (ne ? ne : 1), sizeof(uint64_t));
    uint64_t *total = xcalloc((n ? n : 1) * (ne ? ne : 1), sizeof(uint64_t));
    size_t cap = 0;
    uint64_t *w = NULL;
    struct apportion_scratch scratch = {0};
    int ok = 1;
    for (size_t f = 0; f < nf && ok; f++) {
        uint32_t a = first[f], m = first[f + 1] - a;
        if (!m) {
            for (size_t k = 0; k < ne; k++)
                if (selfu[f * ne + k]) ok = 0; /* cost without a node */
            continue;
        }
        w = xgrow(w, &cap, m, sizeof(*w));
        for (size_t k = 0; k < ne; k++) {
            for (uint32_t j = 0; j < m; j++) {
                double x = nsh[(size_t)byfn[a + j] * ne + k] * 4294967296.0; /* 2^32 steps */
                w[j] = x >= 1.8e19 ? UINT64_MAX : (uint64_t)(x + 0.5);
            }
            apportion(selfu[f * ne + k], w, 1, m, w, APPORTION_ZERO_FIRST, &scratch);
            for (uint32_t j = 0; j < m; j++)
                self[(size_t)byfn[a + j] * ne + k] = w[j];
        }
    }
    memcpy(total, self, n * ne * sizeof(uint64_t));
    for (uint32_t i = (uint32_t)n; ok && i-- > 1;)
        for (size_t k = 0; k < ne; k++)
            total[(size_t)t->nodes[i].parent * ne + k] += total[(size_t)i * ne + k];
    for (size_t k = 0; ok && k < ne; k++)
        if (n && total[k] != grand[k]) ok = 0;
    if (ok) {
        memcpy(t->self, self, n * ne * sizeof(uint64_t));
        memcpy(t->total, total, n * ne * sizeof(uint64_t));
    }
    free(first);
    free(byfn);
    free(self);
    free(total);
    free(w);
    apportion_scratch_release(&scratch);
    return ok;
}

struct work {
    uint32_t node; /* its shares per event: nsh[node * ne ..] */
    uint32_t fn;
    int32_t span; /* -1 = not in a cycle */
    uint32_t pos; /* position in the span */
};

int stacks_build_estimated(struct stack_tree *t, const struct stack_options *opt, struct sel *s,
                           unsigned maxdepth, size_t maxnodes, struct tally_error *err)
{
    t->method = method_estimated;
    const struct profile *p = t->p;
    struct est e;
    memset(&e, 0, sizeof(e));
    e.t = t;
    e.nf = profile_nfunctions(p);
    e.nev = t->nev;
    size_t nf = e.nf, ne = e.nev, ne1 = ne ? ne : 1;
    int rc = -1;
    double *nsh = NULL; /* each node's share of its function's cost, per event */
    size_t nshcap = 0;
    uint64_t *selfu = xcalloc((nf ? nf : 1) * ne1, sizeof(uint64_t));
    uint64_t *grand = xcalloc(ne1, sizeof(uint64_t));
    double *acost = NULL; /* [arcs * ne] inclusive costs of the calls, summed over parts */
    size_t acap = 0;
    struct rectab arcs;
    rectab_init(&arcs, 1, 1);
    /*
     * One function graph per part (fgraph.h; compact, so that a part
     * costs its records, not the whole profile's functions), folded here:
     * self costs in 64 bits (a sum past 2^64 - 1 is an error, as is the
     * grand total), call counts likewise, the inclusive costs of the calls
     * as doubles. The arcs keep the order their first call comes in over
     * all parts.
     */
    static const char msg_self[] = "cost overflow while summing self costs";
    const struct stacks_graph *gg = opt->graph;
    for (size_t f = 0; gg && f < nf; f++)
        if (add_checked(&selfu[f], gg->self[f]) || add_checked(&grand[0], gg->self[f])) {
            tally_error_set(err, p->path, 0, "%s", msg_self);
            goto out;
        }
    for (size_t a = 0; gg && a < gg->narcs; a++) {
        if (gg->from[a] == gg->to[a]) continue; /* as no_self_calls */
        uint64_t key = (uint64_t)gg->from[a] << 32 | gg->to[a];
        int created = 1;
        size_t idx = arcs.count;
        if (gg->unique)
            rectab_append(&arcs, &key);
        else
            idx = rectab_get_index(&arcs, &key, &created);
        if (add_checked(rectab_val(&arcs, idx), gg->count[a])) {
            tally_error_set(err, p->path, 0, "call count overflow");
            goto out;
        }
        if (created) {
            acost = xgrow(acost, &acap, idx + 1, sizeof(double));
            acost[idx] = 0;
        }
        acost[idx] += (double)gg->cost[a];
        if (gg->cost[a]) e.by_cost = 1;
    }
    for (size_t k = 0; !gg && k < s->nparts; k++) {
        struct fgraph g;
        struct fgraph_options fo = {.ncols = ne,
                                    .colmap = s->colmap[k],
                                    .raw_costs = 1,
                                    .no_self_calls = 1,
                                    .compact = 1,
                                    .msg_self = msg_self,
                                    .msg_count = "call count overflow",
                                    .msg_cost = "call cost overflow"};
        int brc = fgraph_build(&g, p, s->parts[k], &fo, err);
        /* the part's self costs are whole even when a call count overflowed;
           a self cost past 64 bits comes first, as the costs come before the calls */
        for (size_t i = 0; i < g.nnodes * ne; i++) {
            tally_wide v = g.self[i];
            size_t at = (size_t)g.fn[i / ne] * ne + i % ne;
            if (v > (tally_wide)UINT64_MAX || add_checked(&selfu[at], (uint64_t)v) ||
                add_checked(&grand[i % ne], (uint64_t)v)) {
                brc = tally_error_set(err, p->path, 0, "%s", msg_self);
                break;
            }
        }
        for (size_t a = 0; a < g.narcs && !brc; a++) {
            uint64_t key = (uint64_t)g.fn[g.from[a]] << 32 | g.fn[g.to[a]];
            int created = 0;
            size_t idx = rectab_get_index(&arcs, &key, &created);
            if (add_checked(rectab_val(&arcs, idx), g.count[a])) {
                tally_error_set(err, p->path, 0, "call count overflow");
                brc = -1;
                break;
            }
            if (created) {
                acost = xgrow(acost, &acap, (idx + 1) * ne1, sizeof(double));
                memset(acost + idx * ne1, 0, ne1 * sizeof(double));
            }
            for (size_t c = 0; c < ne; c++) {
                tally_wide x = g.cost[a * ne1 + c];
                acost[idx * ne1 + c] += (double)x;
                if (x) e.by_cost = 1;
            }
        }
        fgraph_release(&g);
        if (brc) goto out;
    }
    if (!arcs.count)
        t->method = method_flat;
    else if (!e.by_cost)
        t->method = method_counts;
    e.self = xmalloc(nf * ne1 * sizeof(double) + 1);
    for (size_t i = 0; i < nf * ne; i++)
        e.self[i] = (double)selfu[i];
    /* out arcs, grouped by caller */
    e.off = xcalloc(nf + 2, sizeof(uint32_t));
    e.arcs = xmalloc((arcs.count ? arcs.count : 1) * sizeof(*e.arcs));
    for (size_t i = 0; i < arcs.count; i++)
        e.off[(rectab_at(&arcs, i)[0] >> 32) + 1]++;
    for (size_t f = 0; f < nf; f++)
        e.off[f + 1] += e.off[f];
    {
        uint32_t *fill = xmalloc((nf ? nf : 1) * sizeof(uint32_t));
        memcpy(fill, e.off, nf * sizeof(uint32_t));
        for (size_t i = 0; i < arcs.count; i++) {
            uint64_t key = rectab_at(&arcs, i)[0];
            uint32_t from = (uint32_t)(key >> 32);
            struct arc *a = &e.arcs[fill[from]++];
            a->to = (uint32_t)key;
            a->count = rectab_val(&arcs, i)[0];
            a->cost = acost + i * ne1;
        }
        free(fill);
    }
    e.comp = xmalloc((nf ? nf : 1) * sizeof(uint32_t));
    uint32_t *order;
    find_components(&e, &order);
    uint32_t nc = e.ncomp;
    e.csize = xcalloc(nc + 1, sizeof(uint32_t));
    e.cnum = xcalloc(nc + 1, sizeof(uint32_t));
    e.cin = xcalloc(nc + 1, sizeof(double));
    e.cin_by_arcs = xcalloc(nc + 1, sizeof(int));
    e.cincl = xcalloc((size_t)(nc + 1) * ne1, sizeof(double));
    e.cinc = xcalloc((size_t)(nc + 1) * ne1, sizeof(double));
    e.cden = xcalloc((size_t)(nc + 1) * ne1, sizeof(double));
    uint32_t *centry = xmalloc((nc + 1) * sizeof(uint32_t)); /* smallest member */
    for (uint32_t c = 0; c < nc; c++)
        centry[c] = UINT32_MAX;
    for (size_t f = 0; f < nf; f++) {
        uint32_t c = e.comp[f];
        e.csize[c]++;
        if (centry[c] == UINT32_MAX) centry[c] = (uint32_t)f;
    }
    {
        uint32_t next = 1;
        for (size_t f = 0; f < nf; f++) {
            uint32_t c = e.comp[f];
            if (e.csize[c] > 1 && centry[c] == f) e.cnum[c] = next++;
        }
    }
    double *narcs_in = xcalloc(nc + 1, sizeof(double));
    for (size_t f = 0; f < nf; f++)
        for (uint32_t ai = e.off[f]; ai < e.off[f + 1]; ai++) {
            const struct arc *a = &e.arcs[ai];
            uint32_t tc = e.comp[a->to];
            if (tc == e.comp[f]) continue;
            e.cin[tc] += (double)a->count;
            narcs_in[tc] += 1;
            for (size_t k = 0; k < ne; k++)
                e.cinc[(size_t)tc * ne + k] += a->cost[k];
        }
    for (uint32_t c = 0; c < nc; c++)
        if (e.cin[c] <= 0 && narcs_in[c] > 0) {
            e.cin_by_arcs[c] = 1;
            e.cin[c] = narcs_in[c];
        }
    free(narcs_in);
    /*
     * Component inclusive costs, callees first (Tarjan's order; a
     * component's members come together): its self costs plus, for every
     * arc leaving it, the share of the callee component's cost that the arc
     * carries. By costs, that share is the arc's measured cost (scaled down
     * only where the calls entering a component cost more than the
     * component itself: inconsistent input), so these are the measured
     * inclusive costs; by counts, they are gprof's estimates.
     */
    for (size_t i = 0; i < nf; i++) {
        uint32_t f = order[i], c = e.comp[f];
        double *inc = e.cincl + (size_t)c * ne;
        for (size_t k = 0; k < ne; k++)
            inc[k] += e.self[(size_t)f * ne + k];
        for (uint32_t ai = e.off[f]; ai < e.off[f + 1]; ai++) {
            uint32_t tc = e.comp[e.arcs[ai].to];
            if (tc == c) continue;
            for (size_t k = 0; k < ne; k++)
                inc[k] += arc_incl(&e, &e.arcs[ai], k);
        }
        if (i + 1 == nf || e.comp[order[i + 1]] != c) /* the component is complete */
            for (size_t k = 0; k < ne; k++) {
                double in = e.cinc[(size_t)c * ne + k];
                e.cden[(size_t)c * ne + k] = e.by_cost ? (in > inc[k] ? in : inc[k]) : e.cin[c];
            }
    }
    free(order);
    e.span_of = xmalloc((nf ? nf : 1) * sizeof(int32_t));
    for (size_t f = 0; f < nf; f++)
        e.span_of[f] = -1;

    uint32_t root = stacks_tree_add(t, 0, STACK_NO_FN);
    memcpy(ttotal(t, root), grand, ne * sizeof(uint64_t));
    double thr = opt->prune > 0 && ne ? opt->prune * (double)grand[0] : -1.0;
    struct work *stk = NULL;
    size_t cap = 0, top = 0;
    double *est = xmalloc(ne1 * sizeof(double));
    double *sh = xmalloc(ne1 * sizeof(double));  /* the current node's shares */
    double *csh = xmalloc(ne1 * sizeof(double)); /* a child's */
    int lossy = 0; /* some cost was left out of the nodes (pruned, depth) */
    /* top level: what of each component runs with no recorded caller (by
     * counts: the components nothing outside calls), at its first member */
    for (size_t f = 0; f < nf; f++) {
        uint32_t c = e.comp[f];
        if (centry[c] != f) continue;
        const double *inc = e.cincl + (size_t)c * ne;
        int any = 0;
        for (size_t k = 0; k < ne; k++) {
            csh[k] = top_frac(&e, c, k);
            est[k] = csh[k] * inc[k];
            any |= est[k] > 0;
        }
        if (!e.by_cost && e.cin[c] > 0) continue;
        if (!any && (e.by_cost || (thr < 0 && ne))) continue; /* never ran, or all called */
        int32_t sp = e.csize[c] > 1 ? get_span(&e, (uint32_t)f) : -1;
        if ((ne && est[0] < thr) || maxdepth < 1) {
            lossy = 1;
            continue;
        }
        if (t->n >= maxnodes) {
            t->truncated = 1;
            continue;
        }
        uint32_t ni = stacks_tree_add(t, root, (uint32_t)f);
        note_share(&nsh, &nshcap, ni, csh, ne);
        t->nodes[ni].cycle = e.cnum[c];
        for (size_t k = 0; k < ne; k++)
            ttotal(t, ni)[k] = to_u64(est[k]);
        stk = xgrow(stk, &cap, top + 1, sizeof(*stk));
        stk[top++] = (struct work){ni, (uint32_t)f, sp, 0};
    }
    while (top) {
        struct work w = stk[--top];
        memcpy(sh, nsh + (size_t)w.node * ne1, ne1 * sizeof(double));
        for (size_t k = 0; k < ne; k++)
            tself(t, w.node)[k] = to_u64(sh[k] * e.self[(size_t)w.fn * ne + k]);
        if (t->nodes[w.node].depth >= maxdepth) {
            /* what it calls stays in its total, not in a node of its own */
            if (e.off[w.fn + 1] > e.off[w.fn] || w.span >= 0) lossy = 1;
            continue;
        }
        uint32_t fc = e.comp[w.fn];
        /* children inside the cycle: the spanning tree, with the entry's shares */
        if (w.span >= 0) {
            const struct span *sp = &e.spans[w.span];
            for (uint32_t cp = sp->first_child[w.pos]; cp; cp = sp->next_sib[cp - 1]) {
                uint32_t pos = cp - 1;
                const double *inc = sp->incl + (size_t)pos * ne;
                if (ne && sh[0] * inc[0] < thr) {
                    lossy = 1;
                    continue;
                }
                if (t->n >= maxnodes) {
                    t->truncated = 1;
                    continue;
                }
                uint32_t ni = stacks_tree_add(t, w.node, sp->member[pos]);
                note_share(&nsh, &nshcap, ni, sh, ne);
                t->nodes[ni].cycle = e.cnum[fc];
                t->nodes[ni].calls = to_u64((ne ? sh[0] : 1.0) * (double)sp->in_count[pos]);
                for (size_t k = 0; k < ne; k++)
                    ttotal(t, ni)[k] = to_u64(sh[k] * inc[k]);
                stk = xgrow(stk, &cap, top + 1, sizeof(*stk));
                stk[top++] = (struct work){ni, sp->member[pos], w.span, pos};
            }
        }
        /* calls leaving the component: each arc carries its share */
        for (uint32_t ai = e.off[w.fn]; ai < e.off[w.fn + 1]; ai++) {
            const struct arc *a = &e.arcs[ai];
            uint32_t tc = e.comp[a->to];
            if (tc == fc) continue;
            const double *inc = e.cincl + (size_t)tc * ne;
            int any = 0;
            for (size_t k = 0; k < ne; k++) {
                csh[k] = sh[k] * arc_frac(&e, a, k);
                est[k] = csh[k] * inc[k];
                any |= est[k] > 0;
            }
            if (e.by_cost && !any) continue; /* carries no cost */
            if (ne && est[0] < thr) {
                lossy = 1;
                continue;
            }
            if (t->n >= maxnodes) {
                t->truncated = 1;
                continue;
            }
            int32_t sp = e.csize[tc] > 1 ? get_span(&e, a->to) : -1;
            if (sp >= 0) { /* entering a cycle: its spanning tree from this member */
                const double *si = e.spans[sp].incl;
                for (size_t k = 0; k < ne; k++)
                    est[k] = csh[k] * si[k];
            }
            uint32_t ni = stacks_tree_add(t, w.node, a->to);
            note_share(&nsh, &nshcap, ni, csh, ne);
            t->nodes[ni].cycle = e.cnum[tc];
            t->nodes[ni].calls = to_u64((ne ? sh[0] : 1.0) * (double)a->count);
            for (size_t k = 0; k < ne; k++)
                ttotal(t, ni)[k] = to_u64(est[k]);
            stk = xgrow(stk, &cap, top + 1, sizeof(*stk));
            stk[top++] = (struct work){ni, a->to, sp, 0};
        }
    }
    free(est);
    free(sh);
    free(csh);
    free(stk);
    free(centry);
    /* Make the rounded shares add up: going down from the root (whose
     * total is the exact sum of self costs), each node keeps its rounded
     * self cost (when its total allows) and the rest of its integer total is
     * apportioned to its children's totals and what was pruned below it, in
     * proportion to their rounded estimates, by largest remainder. Then
     * total = self + children + pruned exactly everywhere, the selves of all
     * nodes plus the pruned cost equal the grand total, and a function with
     * one stack keeps its exact self cost. */
    if (lossy || t->truncated || !exact_selves(t, ne, selfu, nf, nsh, grand)) {
        if (apportion_tree(t, ne)) {
            tally_error_set(err, p->path, 0, "cost overflow in the stack tree");
            goto out;
        }
    }
    rc = 0;
out:
    free(nsh);
    for (size_t i = 0; i < e.nspans; i++) {
        free(e.spans[i].member);
        free(e.spans[i].first_child);
        free(e.spans[i].next_sib);
        free(e.spans[i].in_count);
        free(e.spans[i].incl);
    }
    free(e.spans);
    free(e.span_of);
    free(e.self);
    free(e.off);
    free(e.arcs);
    free(e.comp);
    free(e.csize);
    free(e.cnum);
    free(e.cin);
    free(e.cin_by_arcs);
    free(e.cincl);
    free(e.cinc);
    free(e.cden);
    free(acost);
    rectab_release(&arcs);
    free(selfu);
    free(grand);
    return rc;
}
