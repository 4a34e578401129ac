/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * complexity.c - per-routine points, fits, filters and ranking of an
 * input-sensitive profile. The rules are in complexity.h and
 * docs/internals/complexity.md.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "complexity.h"

#include <math.h>
#include <pcre2.h>
#include "regex.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A runaway backtracking pattern fails instead of hanging. */
#define COMPLEXITY_MATCH_LIMIT 10000000u
#define COMPLEXITY_DEPTH_LIMIT 100000u

void complexity_options_init(struct complexity_options *o)
{
    memset(o, 0, sizeof(*o));
    o->cost = COMPLEXITY_COST_CUMULATIVE;
    o->min_points = 5;
    o->min_share = 1.0;
}

/* ---- name patterns ---- */

struct pattern {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
};

static int pattern_compile(struct pattern *p, const char *expr, struct tally_error *err)
{
    char msg[256];
    size_t eo;
    memset(p, 0, sizeof(*p));
    p->code = regex_compile(expr, 0, msg, sizeof(msg), &eo);
    if (!p->code)
        return tally_error_set(err, NULL, 0, "bad pattern '%s': %s at offset %zu", expr, msg, eo);
    p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    p->mctx = pcre2_match_context_create(NULL);
    if (!p->md || !p->mctx) {
        tally_error_set(err, NULL, 0, "out of memory compiling '%s'", expr);
        return -1;
    }
    pcre2_set_match_limit(p->mctx, COMPLEXITY_MATCH_LIMIT);
    pcre2_set_depth_limit(p->mctx, COMPLEXITY_DEPTH_LIMIT);
    return 0;
}

static void pattern_free(struct pattern *p)
{
    pcre2_match_data_free(p->md);
    pcre2_match_context_free(p->mctx);
    pcre2_code_free(p->code);
}

/* 1 on a match, 0 on none, -1 with err when the match limit is hit. */
static int pattern_match(struct pattern *p, const char *s, const char *expr,
                         struct tally_error *err)
{
    int rc = pcre2_match(p->code, (PCRE2_SPTR)s, strlen(s), 0, 0, p->md, p->mctx);
    if (rc >= 0) return 1;
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    char msg[256];
    regex_message(rc, msg, sizeof(msg));
    return tally_error_set(err, NULL, 0, "pattern '%s' on '%s': %s", expr, s, msg);
}

/* Compile a list of patterns; NULL with err on failure. */
static struct pattern *patterns_compile(const char *const *exprs, size_t n, struct tally_error *err)
{
    struct pattern *ps = xcalloc(n ? n : 1, sizeof(*ps));
    for (size_t i = 0; i < n; i++) {
        if (pattern_compile(&ps[i], exprs[i], err)) {
            for (size_t j = 0; j <= i; j++)
                pattern_free(&ps[j]);
            free(ps);
            return NULL;
        }
    }
    return ps;
}

static void patterns_free(struct pattern *ps, size_t n)
{
    if (!ps) return;
    for (size_t i = 0; i < n; i++)
        pattern_free(&ps[i]);
    free(ps);
}

/* 1 when one of the patterns matches s, 0 when none does, -1 with err. */
static int patterns_any(struct pattern *ps, const char *const *exprs, size_t n, const char *s,
                        struct tally_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int m = pattern_match(&ps[i], s, exprs[i], err);
        if (m) return m;
    }
    return 0;
}

/* ---- points and fits ---- */

static int add_u64(uint64_t *acc, uint64_t v, const char *what, const char *name,
                   struct tally_error *err)
{
    if (__builtin_add_overflow(*acc, v, acc))
        return tally_error_set(err, NULL, 0, "%s of routine '%s' overflows 64 bits", what, name);
    return 0;
}

/* Fill r from routine index ri of ip. 0, or -1 with err on overflow. */
static int routine_build(struct isprof *ip, size_t ri, enum complexity_cost cost,
                         struct complexity_routine *r, struct tally_error *err)
{
    size_t nt;
    struct isprof_tuple *const *t = isprof_routine_tuples(ip, ri, &nt);
    memset(r, 0, sizeof(*r));
    r->routine = ri;
    r->name = isprof_routine_name(ip, ri);
    r->image = isprof_routine_image(ip, ri);
    r->npoints = nt;
    r->points = xcalloc(nt ? nt : 1, sizeof(*r->points));
    int real = (ip->fields & ISPROF_F_REAL) != 0;
    for (size_t i = 0; i < nt; i++) {
        struct complexity_point *p = &r->points[i];
        p->n = t[i]->input;
        p->calls = t[i]->calls;
        if (cost == COMPLEXITY_COST_SELF) {
            p->worst = (double)t[i]->self_max;
            p->best = (double)t[i]->self_min;
            p->sum = t[i]->self_sum;
        } else {
            p->worst = (double)t[i]->max;
            p->best = (double)t[i]->min;
            p->sum = t[i]->sum;
        }
        p->avg = p->calls ? (double)p->sum / (double)p->calls : 0.0;
        if (add_u64(&r->calls, p->calls, "the number of calls", r->name, err)) return -1;
        uint64_t part = cost == COMPLEXITY_COST_SELF ? t[i]->self_sum
                        : real                       ? t[i]->real_sum
                                                     : t[i]->sum;
        if (add_u64(&r->total, part, "the total cost", r->name, err)) return -1;
        if (p->n > r->max_n) r->max_n = p->n;
    }
    double *x = xmalloc((nt ? nt : 1) * sizeof(*x));
    double *y = xmalloc((nt ? nt : 1) * sizeof(*y));
    for (size_t i = 0; i < nt; i++) {
        x[i] = (double)r->points[i].n;
        y[i] = r->points[i].worst;
    }
    fit_power(x, y, nt, &r->power);
    fit_classes(x, y, nt, &r->classes);
    fitcheck_judge(x, y, nt, &r->power, &r->classes, &r->check);
    free(x);
    free(y);
    return 0;
}

/* Ranking groups: a growing class (0), class 1 (1), no clear class (2). */
static int rank_group(const struct complexity_routine *r)
{
    if (r->check.why != FITCHECK_CLASS) return 2;
    return r->check.cls == FIT_CLASS_1 ? 1 : 0;
}

static int cmp_rank(const void *pa, const void *pb)
{
    const struct complexity_routine *a = *(const struct complexity_routine *const *)pa;
    const struct complexity_routine *b = *(const struct complexity_routine *const *)pb;
    int ga = rank_group(a), gb = rank_group(b);
    if (ga != gb) return ga < gb ? -1 : 1;
    if (ga == 0) {
        if (a->check.cls != b->check.cls) return a->check.cls > b->check.cls ? -1 : 1;
        long ca = lround(a->power.c * 100), cb = lround(b->power.c * 100);
        if (ca != cb) return ca > cb ? -1 : 1;
    }
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->routine < b->routine ? -1 : a->routine > b->routine;
}

int complexity_analyse(struct isprof *ip, const struct complexity_options *o,
                       struct complexity *out, struct tally_error *err)
{
    memset(out, 0, sizeof(*out));
    out->cost = o->cost;
    out->metric = ip->cost;
    out->input = ip->input;
    out->resolution = ip->resolution;

    struct pattern *inc = patterns_compile(o->include, o->ninclude, err);
    if (!inc) return -1;
    struct pattern *exc = patterns_compile(o->exclude, o->nexclude, err);
    if (!exc) {
        patterns_free(inc, o->ninclude);
        return -1;
    }
    int rc = 0;
    out->all = xcalloc(ip->nroutines ? ip->nroutines : 1, sizeof(*out->all));
    uint64_t self_total = 0, max_total = 0;
    int self_overflow = 0;
    for (size_t ri = 0; ri < ip->nroutines && rc == 0; ri++) {
        size_t nt;
        isprof_routine_tuples(ip, ri, &nt);
        if (nt == 0) continue;
        struct complexity_routine *r = &out->all[out->nall];
        rc = routine_build(ip, ri, o->cost, r, err);
        out->nall++;
        if (rc) break;
        if (r->total > max_total) max_total = r->total;
        struct isprof_tuple *const *t = isprof_routine_tuples(ip, ri, &nt);
        for (size_t i = 0; i < nt; i++)
            if (__builtin_add_overflow(self_total, t[i]->self_sum, &self_total)) self_overflow = 1;
    }
    if (rc == 0) {
        if (ip->has_total && ip->total > 0)
            out->program_total = ip->total;
        else if ((ip->fields & ISPROF_F_SELF) && !self_overflow && self_total > 0)
            out->program_total = self_total;
        else
            out->program_total = max_total;
        for (size_t i = 0; i < out->nall; i++) {
            struct complexity_routine *r = &out->all[i];
            r->share =
                out->program_total ? 100.0 * (double)r->total / (double)out->program_total : 0.0;
        }
        out->ranked = xcalloc(out->nall ? out->nall : 1, sizeof(*out->ranked));
        for (size_t i = 0; i < out->nall && rc == 0; i++) {
            struct complexity_routine *r = &out->all[i];
            if (r->npoints < o->min_points) continue;
            if (r->share < o->min_share) {
                if (r->npoints >= o->min_points) out->nbelow_share++;
                continue;
            }
            if (o->min_r2 > 0 && !(r->power.r2 >= o->min_r2)) continue; /* NaN: not fitted */
            if (o->ninclude) {
                int m = patterns_any(inc, o->include, o->ninclude, r->name, err);
                if (m < 0) rc = -1;
                if (m <= 0) continue;
            }
            if (o->nexclude) {
                int m = patterns_any(exc, o->exclude, o->nexclude, r->name, err);
                if (m < 0) rc = -1;
                if (m != 0) continue;
            }
            out->ranked[out->nranked++] = r;
        }
    }
    if (rc == 0) {
        qsort(out->ranked, out->nranked, sizeof(*out->ranked), cmp_rank);
        if (o->top && out->nranked > o->top) out->nranked = o->top;
        for (size_t i = 0; i < out->nranked; i++)
            out->ranked[i]->rank = i + 1;
    }
    patterns_free(inc, o->ninclude);
    patterns_free(exc, o->nexclude);
    return rc;
}

void complexity_release(struct complexity *c)
{
    for (size_t i = 0; i < c->nall; i++)
        free(c->all[i].points);
    free(c->all);
    free(c->ranked);
    memset(c, 0, sizeof(*c));
}

static int cmp_select(const void *pa, const void *pb)
{
    const struct complexity_routine *a = *(const struct complexity_routine *const *)pa;
    const struct complexity_routine *b = *(const struct complexity_routine *const *)pb;
    /* ranked ones (rank >= 1) first by rank, then the rest in profile order */
    size_t ra = a->rank ? a->rank : SIZE_MAX, rb = b->rank ? b->rank : SIZE_MAX;
    if (ra != rb) return ra < rb ? -1 : 1;
    return a->routine < b->routine ? -1 : a->routine > b->routine;
}

struct complexity_routine **complexity_select(const struct complexity *c, const char *pattern,
                                              size_t *n, struct tally_error *err)
{
    *n = 0;
    struct pattern p;
    if (pattern_compile(&p, pattern, err)) {
        if (p.code) pattern_free(&p);
        *n = SIZE_MAX;
        return NULL;
    }
    struct complexity_routine **sel = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < c->nall; i++) {
        int m = pattern_match(&p, c->all[i].name, pattern, err);
        if (m < 0) {
            free(sel);
            pattern_free(&p);
            *n = SIZE_MAX;
            return NULL;
        }
        if (!m) continue;
        sel = xgrow(sel, &cap, *n + 1, sizeof(*sel));
        sel[(*n)++] = &c->all[i];
    }
    pattern_free(&p);
    if (*n) qsort(sel, *n, sizeof(*sel), cmp_select);
    return sel;
}
