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

int incl_compute(const struct incl_graph *g, struct incl_result *r, struct tally_error *err)
{
    size_t n = g->nnodes, nc = g->ncols, na = g->narcs;
    memset(r, 0, sizeof(*r));
    r->nnodes = n;
    r->ncols = nc;
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
    r->outer_in = xcalloc(n ? n : 1, 1);
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
            /* a cycle nothing outside calls costs its members' self costs
             * and the calls leaving it */
            rc |= add_vec(r->cycle_self + cy * nc, self, nc);
            if (!cyc_entered[cy]) {
                rc |= add_vec(r->cycle_incl + cy * nc, self, nc);
                rc |= add_vec(r->cycle_incl + cy * nc, out + v * nc, nc);
                r->cycle_ndef[cy] = max32(r->cycle_ndef[cy], max32(sd, out_ndef[v]));
            }
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
    for (size_t v = 0; v < n; v++)
        r->outer_in[v] = g->outermost || (g->outer_in && g->outer_in[v]);
    /* A cycle nothing outside calls starts at the bottom of a stack: the
     * member there is on the stack whenever the cycle is, and the calls
     * into it hold only its later activations. It is the member whose own
     * cost (self and calls out of the cycle) most exceeds the calls into
     * it, by the first event (with outermost calls: its calls in are 0). */
    uint32_t *bottom = NULL;
    if (g->bottom) { /* chosen before, on the graph of the first event */
        bottom = xmalloc((ncyc ? ncyc : 1) * sizeof(*bottom));
        memcpy(bottom, g->bottom, ncyc * sizeof(*bottom));
    }
    for (size_t v = 0; v < n && !rc && !g->bottom; v++) {
        if (!r->cycle[v] || cyc_entered[r->cycle[v] - 1]) continue;
        size_t cy = r->cycle[v] - 1;
        if (!bottom) {
            bottom = xmalloc((ncyc ? ncyc : 1) * sizeof(*bottom));
            for (size_t c = 0; c < ncyc; c++)
                bottom[c] = UINT32_MAX;
        }
        tally_wide surplus = nc ? g->self[v * nc] + out[v * nc] - r->incl[v * nc] : 0;
        if (bottom[cy] == UINT32_MAX) {
            bottom[cy] = (uint32_t)v;
        } else {
            size_t b = bottom[cy];
            tally_wide best = nc ? g->self[b * nc] + out[b * nc] - r->incl[b * nc] : 0;
            if (surplus > best) bottom[cy] = (uint32_t)v;
        }
    }
    /* A member is on the stack at most while its cycle is, and at most for
     * the calls into it, whichever is less (calls inside a recursion can
     * nest, so their sum can exceed it). When the arcs count only the
     * outermost call of each activation, the calls into it are exactly its
     * time on the stack. */
    for (size_t v = 0; v < n && !rc; v++) {
        if (!r->cycle[v]) continue;
        size_t cy = r->cycle[v] - 1;
        tally_wide *dst = r->incl + v * nc;
        const tally_wide *cap = r->cycle_incl + cy * nc;
        for (size_t i = 0; i < nc; i++) {
            tally_wide hi = dst[i] < cap[i] ? dst[i] : cap[i];
            tally_wide own = g->self[v * nc + i] + out[v * nc + i];
            if (bottom && bottom[cy] == v) {
                dst[i] = cap[i];
            } else {
                /* nested calls can only count it too often: no less than
                 * what is sure, its calls from outside the cycle and its
                 * own cost with its calls out of the cycle (these never
                 * nest) */
                tally_wide lo = in[v * nc + i] > own ? in[v * nc + i] : own;
                dst[i] = lo > hi ? (lo < cap[i] ? lo : cap[i]) : hi;
            }
        }
        if (r->ndef[v] < r->cycle_ndef[cy]) r->ndef[v] = r->cycle_ndef[cy];
    }
    r->bottom = xmalloc((ncyc ? ncyc : 1) * sizeof(*r->bottom));
    for (size_t cy = 0; cy < ncyc; cy++)
        r->bottom[cy] = bottom ? bottom[cy] : UINT32_MAX;
    free(bottom);
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
    free(r->bottom);
    free(r->outer_in);
    free(r->cycle_start);
    free(r->members);
    memset(r, 0, sizeof(*r));
}

struct level {
    const char *base;
    size_t len;
    unsigned long level;
    size_t node;
};

static void split_level(const char *name, struct level *l)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    l->base = name;
    l->len = n;
    l->level = 1;
    /* NAME'k: k >= 2, no leading zero, a name before it */
    if (k < n && k >= 2 && name[k - 1] == '\'' && name[k] != '0' && n - k < 10) {
        unsigned long v = strtoul(name + k, NULL, 10);
        if (v >= 2) {
            l->len = k - 1;
            l->level = v;
        }
    }
}

static int cmp_level(const void *a, const void *b)
{
    const struct level *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->base, y->base, m);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->level < y->level ? -1 : x->level > y->level;
}

unsigned char *incl_level_flags(const char *const *names, size_t n)
{
    unsigned char *flag = xcalloc(n ? n : 1, 1);
    struct level *v = xmalloc((n ? n : 1) * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        split_level(names[i] ? names[i] : "", &v[i]);
        v[i].node = i;
    }
    qsort(v, n, sizeof(*v), cmp_level);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].len == v[i].len && memcmp(v[j].base, v[i].base, v[i].len) == 0)
            j++;
        unsigned long top = v[j - 1].level;
        for (size_t k = i; k < j; k++)
            flag[v[k].node] = v[k].level < top;
        i = j;
    }
    free(v);
    return flag;
}

unsigned char *incl_fgraph_levels(const struct fgraph *fg, const struct profile *p,
                                  const struct part *pt)
{
    if (part_calls_outermost(pt)) return NULL;
    size_t n = fg->nnodes;
    const char **nm = xmalloc((n ? n : 1) * sizeof(*nm));
    for (size_t v = 0; v < n; v++)
        nm[v] = profile_str(p, profile_function_at(p, fg->fn[v]).name);
    unsigned char *levels = incl_level_flags(nm, n);
    free(nm);
    return levels;
}

int incl_compute_fgraph_with(const struct fgraph *fg, const struct part *pt,
                             const unsigned char *levels, const uint32_t *bottom,
                             struct incl_result *r, struct tally_error *err)
{
    struct incl_graph ig = {.nnodes = fg->nnodes,
                            .ncols = fg->ncols,
                            .self = fg->self,
                            .narcs = fg->narcs,
                            .from = fg->from,
                            .to = fg->to,
                            .cost = fg->cost,
                            .outermost = part_calls_outermost(pt),
                            .outer_in = levels,
                            .bottom = bottom};
    return incl_compute(&ig, r, err);
}

int incl_compute_fgraph(const struct fgraph *fg, const struct profile *p, const struct part *pt,
                        struct incl_result *r, struct tally_error *err)
{
    unsigned char *levels = incl_fgraph_levels(fg, p, pt);
    int rc = incl_compute_fgraph_with(fg, pt, levels, NULL, r, err);
    free(levels);
    return rc;
}
