/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "inclusive.h"
#include "fgraph.h"

#include <stdlib.h>
#include <string.h>

static int add_vec(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

static uint32_t max32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/*
 * For arcs that add up every call (Callgrind's): how many times, on
 * average, the entries of each cycle are on the stack while the cycle is.
 * An entry is a member called from outside; the calls into it from
 * outside never nest and the calls from inside come on top, so per event
 * the depth is (all calls into the entries) / (their calls from outside),
 * at least 1. A cycle nothing outside calls gets 1.
 */
static long double *cycle_depths(const struct incl_graph *g, const struct incl_result *r,
                                 const tally_wide *in, const tally_wide *member_in,
                                 const tally_wide *cyc_in)
{
    size_t n = g->nnodes, nc = g->ncols, ncyc = r->ncycles;
    long double *all = xcalloc(ncyc * nc > 0 ? ncyc * nc : 1, sizeof(*all));
    for (size_t v = 0; v < n; v++) {
        if (!r->cycle[v]) continue;
        size_t cy = r->cycle[v] - 1;
        for (size_t i = 0; i < nc; i++)
            if (in[v * nc + i] > 0) all[cy * nc + i] += (long double)member_in[v * nc + i];
    }
    for (size_t k = 0; k < ncyc * nc; k++) {
        long double outside = (long double)cyc_in[k];
        all[k] = outside > 0 && all[k] > outside ? all[k] / outside : 1.0L;
    }
    return all;
}

int incl_compute(const struct incl_graph *g, struct incl_result *r, struct tally_error *err)
{
    size_t n = g->nnodes, nc = g->ncols, na = g->narcs;
    memset(r, 0, sizeof(*r));
    r->nnodes = n;
    r->ncols = nc;
    r->outermost = g->outermost;
    r->cycle = xcalloc(n ? n : 1, sizeof(*r->cycle));
    r->incl = xcalloc(n * nc > 0 ? n * nc : 1, sizeof(*r->incl));
    r->ndef = xcalloc(n ? n : 1, sizeof(*r->ndef));

    /* adjacency (callees of each node) */
    size_t *start = xcalloc(n + 1, sizeof(*start));
    for (size_t a = 0; a < na; a++)
        start[g->from[a] + 1]++;
    for (size_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    uint32_t *adj = xmalloc((na ? na : 1) * sizeof(*adj));
    size_t *fill = xmalloc((n + 1) * sizeof(*fill));
    memcpy(fill, start, (n + 1) * sizeof(*fill));
    for (size_t a = 0; a < na; a++)
        adj[fill[g->from[a]]++] = g->to[a];
    free(fill);

    uint32_t *comp = xmalloc((n ? n : 1) * sizeof(*comp));
    size_t ncomp = fgraph_scc(n, start, adj, comp, NULL);
    free(adj);
    free(start);

    /* component sizes; components of two or more nodes are cycles */
    uint32_t *size = xcalloc(ncomp ? ncomp : 1, sizeof(*size));
    for (size_t v = 0; v < n; v++)
        size[comp[v]]++;
    uint32_t *cycno = xcalloc(ncomp ? ncomp : 1, sizeof(*cycno)); /* comp -> cycle number */
    size_t ncyc = 0;
    for (size_t v = 0; v < n; v++) /* numbered by smallest member */
        if (size[comp[v]] > 1 && cycno[comp[v]] == 0) cycno[comp[v]] = (uint32_t)++ncyc;
    r->ncycles = ncyc;
    r->cycle_incl = xcalloc(ncyc * nc > 0 ? ncyc * nc : 1, sizeof(tally_wide));
    r->cycle_self = xcalloc(ncyc * nc > 0 ? ncyc * nc : 1, sizeof(tally_wide));
    r->cycle_ndef = xcalloc(ncyc ? ncyc : 1, sizeof(uint32_t));
    r->cycle_root = xcalloc(ncyc ? ncyc : 1, 1);
    r->cycle_start = xcalloc(ncyc + 1, sizeof(size_t));
    r->members = xmalloc((n ? n : 1) * sizeof(uint32_t));
    for (size_t v = 0; v < n; v++) {
        r->cycle[v] = cycno[comp[v]];
        if (r->cycle[v]) r->cycle_start[r->cycle[v]]++;
    }
    for (size_t c = 0; c < ncyc; c++)
        r->cycle_start[c + 1] += r->cycle_start[c];
    {
        size_t *pos = xmalloc((ncyc + 1) * sizeof(*pos));
        memcpy(pos, r->cycle_start, (ncyc + 1) * sizeof(*pos));
        for (size_t v = 0; v < n; v++)
            if (r->cycle[v]) r->members[pos[r->cycle[v] - 1]++] = (uint32_t)v;
        free(pos);
    }

    /* incoming (not from itself / not from inside its cycle) */
    int rc = 0;
    char *called = xcalloc(n ? n : 1, 1);
    char *cyc_entered = xcalloc(ncyc ? ncyc : 1, 1);
    tally_wide *in = xcalloc(n * nc > 0 ? n * nc : 1, sizeof(tally_wide));
    uint32_t *in_ndef = xcalloc(n ? n : 1, sizeof(uint32_t));
    tally_wide *out = xcalloc(n * nc > 0 ? n * nc : 1, sizeof(tally_wide)); /* leaving calls */
    uint32_t *out_ndef = xcalloc(n ? n : 1, sizeof(uint32_t));
    tally_wide *cyc_in = xcalloc(ncyc * nc > 0 ? ncyc * nc : 1, sizeof(tally_wide));
    /* a cycle member's calls from inside its cycle as well (member_in) */
    tally_wide *member_in = xcalloc(n * nc > 0 ? n * nc : 1, sizeof(tally_wide));
    for (size_t a = 0; a < na && !rc; a++) {
        uint32_t f = g->from[a], t = g->to[a];
        uint32_t d = g->arc_ndef ? g->arc_ndef[a] : (uint32_t)nc;
        const tally_wide *c = g->cost + a * nc;
        if (f == t) continue;
        if (r->cycle[t]) rc |= add_vec(member_in + (size_t)t * nc, c, nc);
        int inside = r->cycle[f] && r->cycle[f] == r->cycle[t];
        if (inside) {
            in_ndef[t] = max32(in_ndef[t], d);
            continue;
        }
        called[t] = 1;
        rc |= add_vec(in + (size_t)t * nc, c, nc);
        in_ndef[t] = max32(in_ndef[t], d);
        rc |= add_vec(out + (size_t)f * nc, c, nc);
        out_ndef[f] = max32(out_ndef[f], d);
        if (r->cycle[t]) {
            size_t cy = r->cycle[t] - 1;
            cyc_entered[cy] = 1;
            rc |= add_vec(cyc_in + cy * nc, c, nc);
            r->cycle_ndef[cy] = max32(r->cycle_ndef[cy], d);
        }
    }
    for (size_t v = 0; v < n && !rc; v++) {
        tally_wide *dst = r->incl + v * nc;
        const tally_wide *self = g->self + v * nc;
        uint32_t sd = g->self_ndef ? g->self_ndef[v] : (uint32_t)nc;
        if (r->cycle[v]) {
            size_t cy = r->cycle[v] - 1;
            /* the cycle's own cost first, from its members' self costs and
             * the calls leaving it when nothing outside calls it */
            tally_wide *own = xmalloc(nc * sizeof(tally_wide));
            memcpy(own, self, nc * sizeof(tally_wide));
            rc |= add_vec(own, out + v * nc, nc);
            rc |= add_vec(r->cycle_self + cy * nc, self, nc);
            if (!cyc_entered[cy]) {
                rc |= add_vec(r->cycle_incl + cy * nc, own, nc);
                r->cycle_ndef[cy] = max32(r->cycle_ndef[cy], max32(sd, out_ndef[v]));
            }
            free(own);
            memcpy(dst, member_in + v * nc, nc * sizeof(tally_wide));
            r->ndef[v] = max32(in_ndef[v], sd);
        } else if (called[v]) {
            memcpy(dst, in + v * nc, nc * sizeof(tally_wide));
            r->ndef[v] = in_ndef[v];
        } else {
            memcpy(dst, self, nc * sizeof(tally_wide));
            rc |= add_vec(dst, out + v * nc, nc);
            r->ndef[v] = max32(sd, out_ndef[v]);
        }
    }
    for (size_t cy = 0; cy < ncyc && !rc; cy++)
        if (cyc_entered[cy])
            memcpy(r->cycle_incl + cy * nc, cyc_in + cy * nc, nc * sizeof(tally_wide));
    /* A member is on the stack at most while its cycle is, and at most for
     * the calls into it, whichever is less (calls inside a recursion can
     * nest, so their sum can exceed it). When the arcs count only the
     * outermost call of each activation, the calls into it are exactly its
     * time on the stack. */
    long double *depth = NULL;
    if (!g->outermost && !rc) depth = cycle_depths(g, r, in, member_in, cyc_in);
    for (size_t v = 0; v < n && !rc; v++) {
        if (!r->cycle[v]) continue;
        size_t cy = r->cycle[v] - 1;
        tally_wide *dst = r->incl + v * nc;
        const tally_wide *cap = r->cycle_incl + cy * nc;
        for (size_t i = 0; i < nc; i++) {
            tally_wide hi = dst[i] < cap[i] ? dst[i] : cap[i];
            tally_wide own = g->self[v * nc + i] + out[v * nc + i];
            if (!cyc_entered[cy] && own > dst[i]) {
                /* nothing outside calls the cycle and the calls into this
                 * member cannot hold its own cost: it is where the cycle
                 * starts, at the bottom of the stack, for all of it */
                dst[i] = cap[i];
            } else if (depth) {
                /* the calls into it divided by how deep its cycle's
                 * entries recurse on average, within what is sure: its
                 * calls from outside the cycle and its own cost with its
                 * calls out of the cycle never nest */
                tally_wide lo = in[v * nc + i] > own ? in[v * nc + i] : own;
                long double e = (long double)dst[i] / depth[cy * nc + i];
                tally_wide est = e >= (long double)hi ? hi : (tally_wide)(e + 0.5L);
                if (est < lo) est = lo;
                dst[i] = est < hi ? est : hi;
            } else {
                dst[i] = hi;
            }
        }
        if (r->ndef[v] < r->cycle_ndef[cy]) r->ndef[v] = r->cycle_ndef[cy];
    }
    free(depth);
    for (size_t cy = 0; cy < ncyc; cy++)
        r->cycle_root[cy] = !cyc_entered[cy];
    free(called);
    free(cyc_entered);
    free(in);
    free(in_ndef);
    free(out);
    free(out_ndef);
    free(cyc_in);
    free(member_in);
    free(comp);
    free(size);
    free(cycno);
    if (rc) {
        incl_result_release(r);
        return tally_error_set(err, NULL, 0, "inclusive cost too large (overflow)");
    }
    return 0;
}

void incl_result_release(struct incl_result *r)
{
    free(r->cycle);
    free(r->incl);
    free(r->ndef);
    free(r->cycle_incl);
    free(r->cycle_self);
    free(r->cycle_ndef);
    free(r->cycle_root);
    free(r->cycle_start);
    free(r->members);
    memset(r, 0, sizeof(*r));
}
