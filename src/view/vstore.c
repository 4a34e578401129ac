/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vstore.c - a part's records packed by function (vstore.h).
 */
#include "vstore.h"

#include <stdlib.h>
#include <string.h>

static size_t len_of(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static unsigned char *put(unsigned char *q, uint64_t v)
{
    while (v >= 0x80) {
        *q++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *q++ = (unsigned char)v;
    return q;
}

static const unsigned char *get(const unsigned char *q, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        unsigned char b = *q++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    *v = x;
    return q;
}

/* A cost word as stored: as it is, or zigzag-coded (small negative values
   stay short). */
static uint64_t code(const struct vstore *st, uint64_t w)
{
    return st->zigzag ? (w << 1) ^ (uint64_t)((int64_t)w >> 63) : w;
}

static uint64_t decode(const struct vstore *st, uint64_t c)
{
    return st->zigzag ? (c >> 1) ^ (uint64_t) - (int64_t)(c & 1) : c;
}

static size_t costs_len(const struct vstore *st, const uint64_t *c)
{
    size_t n = 0;
    for (size_t e = 0; e < st->ncols; e++)
        n += len_of(code(st, c[e]));
    return n;
}

static unsigned char *put_costs(const struct vstore *st, unsigned char *q, const uint64_t *c)
{
    for (size_t e = 0; e < st->ncols; e++)
        q = put(q, code(st, c[e]));
    return q;
}

static const unsigned char *get_costs(const struct vstore *st, const unsigned char *q, uint64_t *c)
{
    for (size_t e = 0; e < st->ncols; e++) {
        uint64_t v;
        q = get(q, &v);
        c[e] = decode(st, v);
    }
    return q;
}

void vstore_release(struct vstore *st)
{
    free(st->fn);
    free(st->cost_at);
    free(st->call_at);
    free(st->cost);
    free(st->call);
    free(st->total);
    memset(st, 0, sizeof(*st));
}

int vstore_build(struct vstore *st, const struct profile *p, const struct part *pt,
                 struct tally_error *err)
{
    memset(st, 0, sizeof(*st));
    st->ncols = pt->events.n;
    st->zigzag = p->signed_costs;
    st->total = xcalloc(st->ncols ? st->ncols : 1, sizeof(*st->total));
    size_t nf = profile_nfunctions(p), nc = part_ncosts(pt), nk = part_ncalls(pt);
    /* the bytes of each function's entries, then where they go */
    size_t *clen = xcalloc(nf + 1, sizeof(*clen)), *klen = xcalloc(nf + 1, sizeof(*klen));
    for (size_t i = 0; i < nc; i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        clen[r.fn] += len_of(r.pos.file) + len_of(r.pos.line) + costs_len(st, r.cost);
        if (cost_add(st->total, r.cost, st->ncols, p->signed_costs)) {
            free(clen);
            free(klen);
            return tally_error_set(err, p->path, 0, "a total cost is too large");
        }
    }
    for (size_t i = 0; i < nk; i++) {
        struct call_rec r;
        part_call_get(pt, i, &r);
        if (!r.cost) {
            free(clen);
            free(klen);
            return tally_error_set(err, p->path, 0, "the part keeps call counts only");
        }
        st->ncalls++;
        klen[r.caller] += len_of(r.site.file) + len_of(r.site.line) + len_of(r.callee) +
                          len_of(*r.count) + costs_len(st, r.cost);
    }
    for (size_t f = 0; f < nf; f++)
        st->nfn += clen[f] || klen[f];
    st->fn = xmalloc((st->nfn ? st->nfn : 1) * sizeof(*st->fn));
    st->cost_at = xmalloc((st->nfn + 1) * sizeof(*st->cost_at));
    st->call_at = xmalloc((st->nfn + 1) * sizeof(*st->call_at));
    size_t k = 0, csum = 0, ksum = 0;
    for (size_t f = 0; f < nf; f++) {
        if (!clen[f] && !klen[f]) continue;
        st->fn[k] = (uint32_t)f;
        st->cost_at[k] = csum;
        st->call_at[k] = ksum;
        csum += clen[f];
        ksum += klen[f];
        clen[f] = st->cost_at[k]; /* from here on: where the next entry goes */
        klen[f] = st->call_at[k];
        k++;
    }
    st->cost_at[k] = csum;
    st->call_at[k] = ksum;
    st->cost = xmalloc(csum ? csum : 1);
    st->call = xmalloc(ksum ? ksum : 1);
    for (size_t i = 0; i < nc; i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        unsigned char *q = st->cost + clen[r.fn];
        q = put(q, r.pos.file);
        q = put(q, r.pos.line);
        q = put_costs(st, q, r.cost);
        clen[r.fn] = (size_t)(q - st->cost);
    }
    for (size_t i = 0; i < nk; i++) {
        struct call_rec r;
        part_call_get(pt, i, &r);
        unsigned char *q = st->call + klen[r.caller];
        q = put(q, r.site.file);
        q = put(q, r.site.line);
        q = put(q, r.callee);
        q = put(q, *r.count);
        q = put_costs(st, q, r.cost);
        klen[r.caller] = (size_t)(q - st->call);
    }
    free(clen);
    free(klen);
    return 0;
}

size_t vstore_find(const struct vstore *st, uint32_t fn)
{
    size_t lo = 0, hi = st->nfn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->fn[mid] < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nfn && st->fn[lo] == fn ? lo : SIZE_MAX;
}

const unsigned char *vstore_next_cost(const struct vstore *st, const unsigned char *q,
                                      struct vstore_entry *e)
{
    uint64_t v;
    q = get(q, &v);
    e->file = (uint32_t)v;
    q = get(q, &e->line);
    e->callee = 0;
    e->count = 0;
    return get_costs(st, q, e->cost);
}

const unsigned char *vstore_next_call(const struct vstore *st, const unsigned char *q,
                                      struct vstore_entry *e)
{
    uint64_t v;
    q = get(q, &v);
    e->file = (uint32_t)v;
    q = get(q, &e->line);
    q = get(q, &v);
    e->callee = (uint32_t)v;
    q = get(q, &e->count);
    return get_costs(st, q, e->cost);
}
