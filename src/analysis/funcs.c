/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "funcs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void map_reserve(uint32_t **map, size_t *n, uint32_t id)
{
    if (id < *n) return;
    size_t old = *n, cap = old ? old : 16;
    while (cap <= id)
        cap *= 2;
    *map = xrealloc(*map, cap * sizeof(**map));
    for (size_t i = old; i < cap; i++)
        (*map)[i] = UINT32_MAX;
    *n = cap;
}

/* The id of a name: the profile's when it has the name, else the table's own. */
static uint32_t name_id(struct func_table *ft, const char *s, size_t len)
{
    uint32_t id = strtab_find(&ft->p->names, s, len);
    if (id != UINT32_MAX) return id;
    return (uint32_t)ft->pnames + strtab_intern(&ft->names, s, len);
}

uint32_t func_find_name(const struct func_table *ft, const char *s, size_t len)
{
    uint32_t id = strtab_find(&ft->p->names, s, len);
    if (id != UINT32_MAX) return id;
    id = strtab_find(&ft->names, s, len);
    return id == UINT32_MAX ? id : (uint32_t)ft->pnames + id;
}

/* Apply a rename to name id `id`; returns the new id (or id on failure). */
static uint32_t renamed(struct func_table *ft, const struct rename *rn, uint32_t id)
{
    struct tally_error e;
    char *s = rename_apply(rn, func_str(ft, id), &e);
    if (!s) {
        if (!ft->rename_failed) snprintf(ft->err_msg, sizeof(ft->err_msg), "%s", e.msg);
        ft->rename_failed = 1;
        return id;
    }
    uint32_t r = name_id(ft, s, strlen(s));
    free(s);
    return r;
}

uint32_t func_canon_name(struct func_table *ft, uint32_t name)
{
    if (!ft->mod_fn) return name;
    map_reserve(&ft->fnmap, &ft->nfnmap, name);
    if (ft->fnmap[name] == UINT32_MAX) ft->fnmap[name] = renamed(ft, ft->mod_fn, name);
    return ft->fnmap[name];
}

static void canon_reserve(struct func_table *ft, uint32_t id)
{
    if (id < ft->ncanon) return;
    size_t n = ft->ncanon, cap = n ? n : 16;
    while (cap <= id)
        cap *= 2;
    ft->canon = xrealloc(ft->canon, cap * sizeof(*ft->canon));
    for (size_t i = n; i < cap; i++)
        ft->canon[i] = UINT32_MAX;
    ft->ncanon = cap;
}

uint32_t func_canon_file(struct func_table *ft, uint32_t file)
{
    canon_reserve(ft, file);
    if (ft->canon[file] != UINT32_MAX) return ft->canon[file];
    uint32_t id = file;
    const char *strip = ft->strip;
    if (strip && *strip) {
        const char *s = func_str(ft, file);
        size_t n = strlen(strip);
        if (strncmp(s, strip, n) == 0) id = name_id(ft, s + n, strlen(s + n));
    }
    if (ft->mod_file) id = renamed(ft, ft->mod_file, id);
    canon_reserve(ft, id);
    if (id != file) ft->canon[id] = id; /* a final name maps to itself */
    ft->canon[file] = id;
    return id;
}

static int add_wide(tally_wide *dst, const tally_wide *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(dst[i], src[i], &dst[i])) return -1;
    return 0;
}

uint32_t func_record_ndef(const struct func_table *ft, const uint64_t *cost, int all_defined)
{
    if (all_defined) return (uint32_t)ft->nbase;
    if (ft->ndef_mask) {
        uint32_t m = 0;
        for (size_t i = 0; i < ft->nbase; i++)
            m |= (uint32_t)(cost[i] != 0) << i;
        return m;
    }
    size_t k = ft->nbase;
    while (k > 0 && cost[k - 1] == 0)
        k--;
    return (uint32_t)k;
}

static int eval_cols(const struct func_options *opt, const uint64_t *cost, int is_signed,
                     tally_wide *out)
{
    for (size_t c = 0; c < opt->ncols; c++) {
        const struct event_expr *e = &opt->cols[c];
        /* a column that is one base event (nearly all) without the call */
        if (e->nterms == 1 && e->terms[0].factor == 1) {
            uint64_t v = cost[e->terms[0].event];
            out[c] = is_signed ? (tally_wide)(int64_t)v : (tally_wide)v;
        } else if (event_expr_eval(e, cost, is_signed, &out[c])) {
            return -1;
        }
    }
    return 0;
}

/* The columns of a call record's costs (zero, ndef 0, for a call_counts_only part). */
static int call_cols(const struct func_table *ft, const struct func_options *opt,
                     const struct call_rec *cl, int is_signed, tally_wide *out, uint32_t *nd)
{
    if (!cl->cost) {
        memset(out, 0, opt->ncols * sizeof(*out));
        *nd = 0;
        return 0;
    }
    *nd = func_record_ndef(ft, cl->cost, opt->all_defined);
    return eval_cols(opt, cl->cost, is_signed, out);
}

/* A table reservation: n records, but at most 2^18 (4 MiB of slots). */
static size_t reserve_cap(size_t n)
{
    return n < ((size_t)1 << 18) ? n : (size_t)1 << 18;
}

static void max_into(const struct func_table *ft, uint64_t *slot, uint32_t ndef)
{
    *slot = func_ndef_join(ft, (uint32_t)*slot, ndef);
}

/* A row's flags (FUNC_ROW_*) in its first value word, above its ndef. */
#define ROW_FLAG(f) ((uint64_t)(f) << 32)

static void row_ndef_max(const struct func_table *ft, uint64_t *v, uint32_t ndef)
{
    v[0] = (v[0] >> 32 << 32) | func_ndef_join(ft, (uint32_t)v[0], ndef);
}

/* Can the rows share the profile's cost records (func_options.share_costs)? */
static int can_share(const struct func_options *opt, size_t nbase)
{
    if (!opt->share_costs || opt->ncols != nbase) return 0;
    for (size_t c = 0; c < opt->ncols; c++) {
        const struct event_expr *e = &opt->cols[c];
        if (e->nterms != 1 || e->terms[0].factor != 1 || e->terms[0].event != c) return 0;
    }
    return 1;
}

/*
 * Add cost record values rec to the shared row whose values are v: the
 * first record is pointed at, a second one makes the row a vector of its
 * own in ft->sums (tmp: ncols of scratch). Returns 0 or -1 on overflow.
 */
static int add_shared(struct func_table *ft, uint64_t *v, const uint64_t *rec, tally_wide *tmp)
{
    size_t nc = ft->ncols;
    if (!v[2]) {
        v[2] = (uint64_t)(uintptr_t)rec; /* 8-byte aligned: bit 0 clear */
        return 0;
    }
    if (!(v[2] & 1)) {
        ft->sums = xgrow(ft->sums, &ft->sums_cap, (ft->nsums + 1) * nc, sizeof(*ft->sums));
        tally_wide *s = ft->sums + ft->nsums * nc;
        const uint64_t *first = (const uint64_t *)(uintptr_t)v[2];
        for (size_t c = 0; c < nc; c++)
            s[c] = func_record_col(ft, first, c);
        v[2] = (uint64_t)ft->nsums++ << 1 | 1;
    }
    for (size_t c = 0; c < nc; c++)
        tmp[c] = func_record_col(ft, rec, c);
    return add_wide(ft->sums + (v[2] >> 1) * nc, tmp, nc);
}

/*
 * A row may hold functions of several objects (code without symbols is
 * named by its offset in its object; every library has an `_init`). When
 * the reader recorded where functions were named (profile.h), the row
 * shows the object of the function named last, as callgrind_annotate
 * does; otherwise it keeps the object of the last record added above.
 */
static void label_shared_rows(struct func_table *ft, const struct profile *p, const uint32_t *fnrow)
{
    size_t nfn = profile_nfunctions(p);
    uint64_t *last = NULL;
    for (size_t f = 0; f < nfn; f++) {
        uint64_t m = profile_function_mention(p, (uint32_t)f);
        if (!m) continue;
        struct function fn = profile_function_at(p, (uint32_t)f);
        size_t r = fnrow[f];
        if (r == UINT32_MAX) {
            /* a function whose own row was not looked up: it may have none */
            uint64_t key =
                (uint64_t)func_canon_file(ft, fn.file) << 32 | func_canon_name(ft, fn.name);
            if (!rectab_find(&ft->rows, &key)) continue;
            r = rectab_get_index(&ft->rows, &key, NULL);
        }
        if (!last) last = xcalloc(ft->rows.count, sizeof(*last));
        if (m < last[r]) continue;
        last[r] = m;
        rectab_val(&ft->rows, r)[1] = (uint64_t)fn.obj + 1;
    }
    free(last);
}

/*
 * The row of function f's own file and name, looked up once: calls name
 * the same functions again and again (fnrow[f], UINT32_MAX until then).
 */
static size_t own_row(struct func_table *ft, uint32_t *fnrow, uint32_t f, const struct function *fn)
{
    if (fnrow[f] != UINT32_MAX) return fnrow[f];
    uint64_t key = (uint64_t)func_canon_file(ft, fn->file) << 32 | func_canon_name(ft, fn->name);
    size_t i = rectab_get_index(&ft->rows, &key, NULL);
    fnrow[f] = (uint32_t)i;
    return i;
}

/*
 * The row of function f's costs (or call site) in canonical file `file`:
 * its own row when that is its own file (*own set), else looked up.
 */
static size_t row_in(struct func_table *ft, uint32_t *fnrow, uint32_t f, const struct function *fn,
                     uint32_t file, int *own)
{
    *own = file == func_canon_file(ft, fn->file);
    if (*own) return own_row(ft, fnrow, f, fn);
    uint64_t key = (uint64_t)file << 32 | func_canon_name(ft, fn->name);
    return rectab_get_index(&ft->rows, &key, NULL);
}

int func_table_build(struct func_table *ft, const struct profile *p, const struct func_options *opt,
                     struct tally_error *err)
{
    memset(ft, 0, sizeof(*ft));
    ft->p = p;
    ft->pnames = p->names.n;
    strtab_init(&ft->names);
    ft->ncols = opt->ncols;
    ft->strip = opt->strip;
    ft->mod_file = opt->mod_file;
    ft->mod_fn = opt->mod_fn;
    size_t nc = opt->ncols;
    ft->is_signed = p->signed_costs;
    ft->shared = p->nparts > 0 && can_share(opt, p->parts[0]->events.n);
    if (ft->shared) ft->zero = xcalloc(nc ? nc : 1, sizeof(*ft->zero));
    /* a tally_wide is two words, 16-byte aligned: records of an even number of words */
    rectab_init(&ft->rows, 1, ft->shared ? 3 : 3 + 2 * nc);
    rectab_init(&ft->arcs, 1, 2 + 2 * nc);
    rectab_init(&ft->lines, 2, 1 + 2 * nc);
    rectab_init(&ft->line_calls, 3, 2 + 2 * nc);
    ft->col_min_event = xmalloc((nc ? nc : 1) * sizeof(uint32_t));
    for (size_t c = 0; c < nc; c++) {
        uint32_t m = UINT32_MAX;
        for (size_t t = 0; t < opt->cols[c].nterms; t++)
            if (opt->cols[c].terms[t].event < m) m = (uint32_t)opt->cols[c].terms[t].event;
        ft->col_min_event[c] = m;
    }
    if (p->nparts > 0 && opt->ndef_mask && p->parts[0]->events.n <= 32) {
        ft->ndef_mask = 1;
        ft->col_mask = xcalloc(nc ? nc : 1, sizeof(uint32_t));
        for (size_t c = 0; c < nc; c++)
            for (size_t t = 0; t < opt->cols[c].nterms; t++)
                ft->col_mask[c] |= (uint32_t)1 << opt->cols[c].terms[t].event;
    }
    if (p->nparts == 0) return 0;
    const struct part *pt = p->parts[0];
    ft->nbase = pt->events.n;
    int is_signed = p->signed_costs;
    size_t nfn = profile_nfunctions(p);
    char *seen = xcalloc(nfn ? nfn : 1, 1);
    uint32_t *fnrow = xmalloc((nfn ? nfn : 1) * sizeof(*fnrow));
    memset(fnrow, 0xff, (nfn ? nfn : 1) * sizeof(*fnrow)); /* UINT32_MAX: not looked up yet */
    tally_wide *tmp = xmalloc((nc ? nc : 1) * sizeof(tally_wide));
    /*
     * Size the tables up front from the record counts (about a row per
     * function, at most an arc and a call line per call record and a line
     * per cost record) so that they rarely rehash while filling; capped,
     * as cost records of many instructions share a line.
     */
    rectab_reserve(&ft->rows, reserve_cap(nfn));
    if (!opt->no_arcs) rectab_reserve(&ft->arcs, reserve_cap(part_ncalls(pt)));
    int rc = 0;
    const char *what = "cost";
    const int no_arcs = opt->no_arcs;
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        struct function fn = profile_function_at(p, cr.fn);
        seen[cr.fn] = 1;
        uint32_t file = func_canon_file(ft, cr.pos.file);
        uint32_t nd = func_record_ndef(ft, cr.cost, opt->all_defined);
        if (!ft->shared && eval_cols(opt, cr.cost, is_signed, tmp)) {
            rc = -1;
            break;
        }
        int own;
        size_t ri = row_in(ft, fnrow, cr.fn, &fn, file, &own);
        uint64_t *v = rectab_val(&ft->rows, ri);
        row_ndef_max(ft, v, nd);
        if (own) v[1] = (uint64_t)fn.obj + 1;
        v[0] |= ROW_FLAG(FUNC_ROW_LISTED);
        rc =
            ft->shared ? add_shared(ft, v, cr.cost, tmp) : add_wide((tally_wide *)(v + 3), tmp, nc);
    }
    for (size_t i = 0; i < part_ncalls(pt) && !rc; i++) {
        struct call_rec cl;
        part_call_get(pt, i, &cl);
        what = "call";
        struct function caller = profile_function_at(p, cl.caller);
        struct function callee = profile_function_at(p, cl.callee);
        seen[cl.caller] = 1;
        seen[cl.callee] = 1;
        uint32_t sfile = func_canon_file(ft, cl.site.file);
        int own;
        size_t cr_i = row_in(ft, fnrow, cl.caller, &caller, sfile, &own);
        uint64_t *cv = rectab_val(&ft->rows, cr_i);
        cv[0] |= ROW_FLAG(FUNC_ROW_LISTED);
        if (own) cv[1] = (uint64_t)caller.obj + 1;
        size_t ce_i = own_row(ft, fnrow, cl.callee, &callee);
        rectab_val(&ft->rows, ce_i)[0] |= ROW_FLAG(FUNC_ROW_CALLEE);
        if (no_arcs) continue;
        uint32_t nd;
        if (call_cols(ft, opt, &cl, is_signed, tmp, &nd)) {
            rc = -1;
            break;
        }
        uint64_t ak = (uint64_t)cr_i << 32 | ce_i;
        uint64_t *av = rectab_get(&ft->arcs, &ak, NULL);
        if (__builtin_add_overflow(av[0], *cl.count, &av[0])) rc = -1;
        max_into(ft, &av[1], nd);
        if (!rc) rc = add_wide((tally_wide *)(av + 2), tmp, nc);
    }
    /*
     * Functions with neither costs nor calls still get their (empty) row,
     * and so does a function named by an `fn=` line whose records are all
     * in other files (inlined code after `fi=`): callgrind_annotate makes
     * the row FILE:FUNCTION at every `fn=` line. Its object is then the
     * one label_shared_rows() gives.
     */
    for (size_t f = 0; f < nfn && !rc; f++) {
        int named = profile_function_mention(p, (uint32_t)f) != 0;
        if (seen[f] && !named) continue;
        struct function fn = profile_function_at(p, (uint32_t)f);
        uint64_t *v = rectab_val(&ft->rows, own_row(ft, fnrow, (uint32_t)f, &fn));
        if (!seen[f]) v[1] = (uint64_t)fn.obj + 1;
        v[0] |= ROW_FLAG(FUNC_ROW_LISTED);
    }
    if (!rc) label_shared_rows(ft, p, fnrow);
    if (!rc && opt->want_lines && func_table_lines(ft, opt, NULL, 0, err)) {
        free(seen);
        free(fnrow);
        free(tmp);
        func_table_release(ft);
        return -1;
    }
    free(seen);
    free(fnrow);
    free(tmp);
    /* rows are read by number from here on; func_table_lines() builds the index again */
    rectab_drop_index(&ft->rows);
    if (!rc && ft->rename_failed) {
        tally_error_set(err, NULL, 0, "%s", ft->err_msg);
        func_table_release(ft);
        return -1;
    }
    if (rc) {
        func_table_release(ft);
        return tally_error_set(err, p->path, 0,
                               "%s sum too large (a cost past 2^127-1 or a call count past 2^64-1)",
                               what);
    }
    return 0;
}

int func_table_lines(struct func_table *ft, const struct func_options *opt,
                     const unsigned char *files, size_t nfiles, struct tally_error *err)
{
    const struct profile *p = ft->p;
    if (p->nparts == 0) return 0;
    const struct part *pt = p->parts[0];
    size_t nc = opt->ncols;
    int is_signed = p->signed_costs, rc = 0;
    tally_wide *tmp = xmalloc((nc ? nc : 1) * sizeof(tally_wide));
    const char *what = "cost";
#define WANTED(f) (!files || ((f) < nfiles && files[f]))
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        uint32_t file = func_canon_file(ft, cr.pos.file);
        if (!WANTED(file)) continue;
        uint32_t nd = func_record_ndef(ft, cr.cost, opt->all_defined);
        if (eval_cols(opt, cr.cost, is_signed, tmp)) {
            rc = -1;
            break;
        }
        uint64_t lk[2] = {file, cr.pos.line};
        uint64_t *lv = rectab_get(&ft->lines, lk, NULL);
        max_into(ft, &lv[0], nd);
        rc = add_wide((tally_wide *)(lv + 1), tmp, nc);
    }
    /* arcs that func_table_build() left out (no_arcs) are made now: the
       calls under annotated lines are ordered by their whole arc's cost */
    const int arcs_too = opt->no_arcs;
    for (size_t i = 0; i < part_ncalls(pt) && !rc; i++) {
        struct call_rec cl;
        part_call_get(pt, i, &cl);
        what = "call";
        uint32_t sfile = func_canon_file(ft, cl.site.file);
        if (!WANTED(sfile) && !arcs_too) continue;
        struct function caller = profile_function_at(p, cl.caller);
        struct function callee = profile_function_at(p, cl.callee);
        uint64_t ck = (uint64_t)sfile << 32 | func_canon_name(ft, caller.name);
        uint64_t ek =
            (uint64_t)func_canon_file(ft, callee.file) << 32 | func_canon_name(ft, callee.name);
        /* the rows exist: func_table_build() made them from the same records */
        uint64_t ak = (uint64_t)rectab_get_index(&ft->rows, &ck, NULL) << 32 |
                      rectab_get_index(&ft->rows, &ek, NULL);
        uint32_t nd;
        if (call_cols(ft, opt, &cl, is_signed, tmp, &nd)) {
            rc = -1;
            break;
        }
        if (arcs_too) {
            uint64_t *av = rectab_get(&ft->arcs, &ak, NULL);
            if (__builtin_add_overflow(av[0], *cl.count, &av[0])) rc = -1;
            max_into(ft, &av[1], nd);
            if (!rc) rc = add_wide((tally_wide *)(av + 2), tmp, nc);
            if (rc || !WANTED(sfile)) continue;
        }
        uint64_t lk[3] = {sfile, cl.site.line, ak};
        uint64_t *lv = rectab_get(&ft->line_calls, lk, NULL);
        if (__builtin_add_overflow(lv[0], *cl.count, &lv[0])) rc = -1;
        max_into(ft, &lv[1], nd);
        if (!rc) rc = add_wide((tally_wide *)(lv + 2), tmp, nc);
    }
#undef WANTED
    free(tmp);
    if (rc)
        return tally_error_set(err, p->path, 0,
                               "%s sum too large (a cost past 2^127-1 or a call count past 2^64-1)",
                               what);
    return 0;
}

void func_table_release(struct func_table *ft)
{
    rectab_release(&ft->rows);
    rectab_release(&ft->arcs);
    rectab_release(&ft->lines);
    rectab_release(&ft->line_calls);
    free(ft->col_min_event);
    free(ft->col_mask);
    free(ft->canon);
    free(ft->fnmap);
    free(ft->sums);
    free(ft->zero);
    strtab_release(&ft->names);
    memset(ft, 0, sizeof(*ft));
}

char *func_row_display(const struct func_table *ft, size_t r)
{
    /* once per row: joined by hand, as formatting every row cost more than the sort */
    uint32_t f = func_row_file(ft, r), n = func_row_name(ft, r);
    size_t fl = func_strlen(ft, f), nl = func_strlen(ft, n);
    char *s = xmalloc(fl + nl + 2);
    memcpy(s, func_str(ft, f), fl);
    s[fl] = ':';
    memcpy(s + fl + 1, func_str(ft, n), nl + 1);
    return s;
}
