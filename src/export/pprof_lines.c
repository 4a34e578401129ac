/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pprof_lines.c - per-line self costs and call sites for pprof's
 * line-level locations, and the largest-remainder split (see
 * pprof_lines.h).
 */
#include "pprof_lines.h"

#include <stdlib.h>
#include <string.h>

static int add_checked(uint64_t *dst, uint64_t v)
{
    if (*dst + v < *dst) return -1;
    *dst += v;
    return 0;
}

/* [nev] column of each tree event in part pt, or -1 when the part lacks it. */
static void part_columns(const struct part *pt, const char *const *ev_names, size_t nev, int *col)
{
    for (size_t c = 0; c < nev; c++)
        col[c] = eventset_index(&pt->events, ev_names[c]);
}

/* Order of the lines of a function and of the sites of an arc: by
 * function (or arc), then line, then file name. */
struct rec_order {
    const struct profile *p;
    const struct rectab *tab;
    size_t line_word; /* key word holding the line; the file id is the word before */
};

static int cmp_rec(const void *a, const void *b, void *ctx)
{
    const struct rec_order *o = ctx;
    const uint64_t *x = rectab_at(o->tab, *(const size_t *)a);
    const uint64_t *y = rectab_at(o->tab, *(const size_t *)b);
    /* self: fn << 32 | file, line; sites: caller << 32 | callee, file, line */
    int self = o->line_word == 1;
    uint64_t gx = self ? x[0] >> 32 : x[0], gy = self ? y[0] >> 32 : y[0];
    if (gx != gy) return gx < gy ? -1 : 1;
    size_t lw = o->line_word;
    if (x[lw] != y[lw]) return x[lw] < y[lw] ? -1 : 1;
    uint32_t fx = (uint32_t)x[lw - 1], fy = (uint32_t)y[lw - 1];
    if (fx == fy) return 0;
    return strcmp(profile_str(o->p, fx), profile_str(o->p, fy));
}

/* Record indices of tab in the order above (malloc'd). */
static size_t *sorted_records(const struct profile *p, const struct rectab *tab, size_t line_word)
{
    size_t n = tab->count;
    size_t *ix = xcalloc(n ? n : 1, sizeof(*ix));
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    struct rec_order o = {p, tab, line_word};
    qsort_r(ix, n, sizeof(*ix), cmp_rec, &o);
    return ix;
}

int pprof_lines_build(struct pprof_lines *pl, const struct profile *p, const char *const *ev_names,
                      size_t nev, struct tally_error *err)
{
    memset(pl, 0, sizeof(*pl));
    pl->nev = nev;
    pl->nfn = p ? profile_nfunctions(p) : 0;
    size_t vw = nev ? nev : 1;
    rectab_init(&pl->arcs, 1, 2);
    struct rectab self, sites;
    rectab_init(&self, 2, vw);      /* fn << 32 | file, line -> costs */
    rectab_init(&sites, 3, vw + 1); /* caller << 32 | callee, file, line -> count, costs */
    int *col = xcalloc(vw, sizeof(*col));
    int rc = 0;
    for (size_t k = 0; p && k < p->nparts && rc == 0; k++) {
        const struct part *pt = p->parts[k];
        part_columns(pt, ev_names, nev, col);
        for (size_t i = 0; i < part_ncosts(pt) && rc == 0; i++) {
            struct cost_rec r;
            part_cost_get(pt, i, &r);
            if (r.fn >= pl->nfn) continue;
            uint64_t key[2] = {(uint64_t)r.fn << 32 | r.pos.file, r.pos.line};
            uint64_t *v = rectab_get(&self, key, NULL);
            for (size_t c = 0; c < nev && rc == 0; c++)
                if (col[c] >= 0) rc = add_checked(&v[c], r.cost[col[c]]);
        }
        for (size_t i = 0; i < part_ncalls(pt) && rc == 0; i++) {
            struct call_rec r;
            part_call_get(pt, i, &r);
            if (r.caller >= pl->nfn || r.callee >= pl->nfn) continue;
            uint64_t key[3] = {(uint64_t)r.caller << 32 | r.callee, r.site.file, r.site.line};
            uint64_t *v = rectab_get(&sites, key, NULL);
            rc = add_checked(&v[0], *r.count);
            for (size_t c = 0; c < nev && rc == 0 && r.cost; c++)
                if (col[c] >= 0) rc = add_checked(&v[1 + c], r.cost[col[c]]);
        }
    }
    free(col);
    if (rc) {
        rectab_release(&self);
        rectab_release(&sites);
        rectab_release(&pl->arcs);
        return tally_error_set(err, p ? p->path : NULL, 0, "a per-line cost sum overflows 64 bits");
    }

    /* self lines grouped by function, each function's by line (see cmp_rec) */
    size_t nl = self.count;
    pl->line_first = xcalloc(pl->nfn + 2, sizeof(*pl->line_first));
    pl->lines = xcalloc(nl ? nl : 1, sizeof(*pl->lines));
    pl->line_cost = xcalloc((nl ? nl : 1) * vw, sizeof(uint64_t));
    for (size_t i = 0; i < nl; i++)
        pl->line_first[(rectab_at(&self, i)[0] >> 32) + 1]++;
    for (size_t f = 0; f < pl->nfn; f++)
        pl->line_first[f + 1] += pl->line_first[f];
    size_t *order = sorted_records(p, &self, 1);
    for (size_t at = 0; at < nl; at++) {
        const uint64_t *rec = rectab_at(&self, order[at]);
        pl->lines[at].file = (uint32_t)rec[0];
        pl->lines[at].line = rec[1];
        if (rec[1]) pl->has_lines = 1;
        memcpy(pl->line_cost + at * vw, rec + 2, vw * sizeof(uint64_t));
    }
    free(order);
    rectab_release(&self);

    /* call sites grouped by arc, each arc's by line */
    size_t ns = sites.count;
    order = sorted_records(p, &sites, 2);
    for (size_t at = 0; at < ns; at++) {
        uint64_t key = rectab_at(&sites, order[at])[0];
        uint64_t *v = rectab_get(&pl->arcs, &key, NULL);
        if (!v[1]) v[0] = at;
        v[1]++;
    }
    pl->sites = xcalloc(ns ? ns : 1, sizeof(*pl->sites));
    pl->site_cost = xcalloc((ns ? ns : 1) * vw, sizeof(uint64_t));
    pl->site_count = xcalloc(ns ? ns : 1, sizeof(uint64_t));
    for (size_t at = 0; at < ns; at++) {
        const uint64_t *rec = rectab_at(&sites, order[at]);
        pl->sites[at].file = (uint32_t)rec[1];
        pl->sites[at].line = rec[2];
        if (rec[2]) pl->has_lines = 1;
        pl->site_count[at] = rec[3];
        memcpy(pl->site_cost + at * vw, rec + 4, vw * sizeof(uint64_t));
    }
    free(order);
    rectab_release(&sites);
    return 0;
}

void pprof_lines_release(struct pprof_lines *pl)
{
    free(pl->line_first);
    free(pl->lines);
    free(pl->line_cost);
    rectab_release(&pl->arcs);
    free(pl->sites);
    free(pl->site_cost);
    free(pl->site_count);
    memset(pl, 0, sizeof(*pl));
}

size_t pprof_lines_of(const struct pprof_lines *pl, uint32_t fn, size_t *first)
{
    if (fn >= pl->nfn || !pl->line_first) return 0;
    *first = pl->line_first[fn];
    return pl->line_first[fn + 1] - pl->line_first[fn];
}

size_t pprof_lines_sites(const struct pprof_lines *pl, uint32_t caller, uint32_t callee,
                         size_t *first)
{
    if (caller >= pl->nfn || callee >= pl->nfn || !pl->arcs.count) return 0;
    uint64_t key = (uint64_t)caller << 32 | callee;
    const uint64_t *v = rectab_find(&pl->arcs, &key);
    if (!v) return 0;
    *first = (size_t)v[0];
    return (size_t)v[1];
}
