/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.c - limits on the change between two profiles (see check.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "check.h"
#include "fgraph.h"
#include "inclusive.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include "regex.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_name_char(int c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* A regex compiled for matching function names. */
static void *compile_regex(const char *re, const char *what, struct tally_error *err)
{
    char msg[256];
    size_t eo;
    pcre2_code *code = regex_compile(re, 0, msg, sizeof(msg), &eo);
    if (!code) tally_error_set(err, NULL, 0, "%s '%s': %s at offset %zu", what, re, msg, eo);
    return code;
}

/* Does the compiled regex match anywhere in s? */
static int regex_matches(void *re, const char *s)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc >= 0;
}

int check_limit_parse(const char *text, struct check_limit *out, struct tally_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *colon = strrchr(text, ':');
    const char *ev = colon ? colon + 1 : text;
    size_t n = 0;
    while (is_name_char(ev[n]))
        n++;
    const char *op = ev + n;
    if (colon && colon == text) goto bad;
    if (n == 0 || (strncmp(op, "<=", 2) != 0 && *op != '=')) goto bad;
    out->text = xstrdup(text);
    out->event = xstrndup(ev, n);
    if (colon) {
        out->func_regex = xstrndup(text, (size_t)(colon - text));
        if (!(out->re = compile_regex(out->func_regex, "function regex", err))) goto fail;
    }
    const char *v = op[0] == '<' ? op + 2 : op + 1;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !isfinite(x) || isspace((unsigned char)*v)) goto badval;
    if (op[0] == '<') {
        if (*end || x < 0 || *v == '+') goto badval;
        out->kind = CHECK_ABSOLUTE;
    } else {
        if (strcmp(end, "%") != 0) goto badval;
        out->kind = CHECK_PERCENT;
    }
    out->value = x;
    return 0;
badval:
    tally_error_set(err, NULL, 0,
                    op[0] == '<' ? "limit '%s': '%s' is not a count (e.g. Ir<=5e9)"
                                 : "limit '%s': '%s' is not a percentage (e.g. Ir=+2%%, Ir=-5%%)",
                    text, v);
fail:
    check_limit_release(out);
    return -1;
bad:
    return tally_error_set(err, NULL, 0,
                           "limit '%s': write EVENT=[+-]N%%, EVENT<=COUNT, or REGEX:EVENT=... "
                           "(e.g. Ir=+2%%, Ir<=5e9, 'parse_.*:Ir=+5%%')",
                           text);
}

void check_limit_release(struct check_limit *l)
{
    free(l->text);
    free(l->func_regex);
    free(l->event);
    if (l->re) pcre2_code_free(l->re);
    memset(l, 0, sizeof(*l));
}

/* ---- an event name as an expression of base events ------------------ */

/* Ge and the L2 events of Valgrind before 3.6: KCachegrind's estimate names them, no tool of today
   counts them, a note about them would only be noise */
static int quiet_absent(const char *name)
{
    return !strcmp(name, "Ge") || !strcmp(name, "I2mr") || !strcmp(name, "D2mr") ||
           !strcmp(name, "D2mw");
}

/*
 * The column `name` for one side, whose event set `es` holds the user's
 * definitions: an event of the set, else a built-in (the events it names
 * that the set lacks are added to `missing`). Returns 0, or -1 with err.
 */
static int column_expr(const struct eventset *es, const char *name, const char *label,
                       struct strlist *missing, struct event_expr *out, struct tally_error *err)
{
    int own = eventset_index(es, name) >= 0;
    for (size_t i = 0; i < es->nderived && !own; i++)
        own = !strcmp(es->derived[i].name, name);
    if (!own) {
        struct strlist absent = {0};
        if (eventset_builtin_expr(es, name, out, &absent) == 0) {
            for (size_t i = 0; i < absent.n; i++) {
                size_t k = 0;
                while (k < missing->n && strcmp(missing->items[k], absent.items[i]))
                    k++;
                if (k == missing->n && !quiet_absent(absent.items[i]))
                    strlist_push(missing, absent.items[i]);
            }
            strlist_release(&absent);
            return 0;
        }
    }
    if (eventset_lookup(es, name, out) == 0) return 0;
    char *all = eventset_join_brief(es);
    tally_error_set(err, label, 0, "no event '%s' (the profile has: %s)", name, all);
    free(all);
    return -1;
}

/* ---- per-function sums ------------------------------------------------- */

struct side_func {
    const char *name, *file;
    int64_t *cost; /* [ncols] */
    int64_t *incl; /* [ncols] inclusive costs (opt->inclusive), or NULL */
};

/*
 * Each function's inclusive cost per column (the time it is on the stack,
 * analysis/inclusive.h), as int64 in incl[fn * ncols + k]; *nest counts the
 * functions whose cost is an estimate. Returns 0, or -1 with err.
 */
static int side_inclusive(const struct profile *p, const struct event_expr *cols, size_t ncols,
                          int64_t *incl, unsigned char *seen, size_t *nest, struct tally_error *err)
{
    const struct part *pt = p->parts[0];
    struct fgraph fg;
    struct fgraph_options fo = {.cols = cols,
                                .ncols = ncols,
                                .msg_self = "a function's cost does not fit",
                                .msg_count = "a call count does not fit",
                                .msg_cost = "a call's cost does not fit"};
    if (fgraph_build(&fg, p, pt, &fo, err)) return -1;
    struct incl_result r;
    int rc = incl_compute_fgraph(&fg, p, pt, &r, err), computed = !rc;
    for (size_t v = 0; v < fg.nnodes && !rc; v++) {
        uint32_t fn = fg.fn[v];
        if (incl_estimated(&r, v)) (*nest)++;
        for (size_t k = 0; k < ncols; k++) {
            tally_wide w = r.incl[v * ncols + k];
            if (w > INT64_MAX || w < INT64_MIN) {
                rc = tally_error_set(err, p->path, 0,
                                     "the inclusive cost of %s does not fit in 64 bits",
                                     profile_str(p, profile_function_at(p, fn).name));
                break;
            }
            incl[(size_t)fn * ncols + k] = (int64_t)w;
            if (w) seen[fn] = 1;
        }
    }
    if (computed) incl_result_release(&r);
    fgraph_release(&fg);
    return rc ? -1 : 0;
}

/* Is function fn's object left out (--ignore-object)? state[fn] keeps the
 * answer: 0 not looked at yet, 1 kept, 2 ignored. */
static int fn_ignored(const struct profile *p, void *ignore, unsigned char *state, uint32_t fn)
{
    if (!state[fn]) {
        struct function f = profile_function_at(p, fn);
        state[fn] = ignore && f.obj && regex_matches(ignore, profile_str(p, f.obj)) ? 2 : 1;
    }
    return state[fn] == 2;
}

static int by_name(const void *a, const void *b)
{
    const struct side_func *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/*
 * The functions of part 0 of p, one per name (sorted by name), with their
 * column sums; functions of ignored objects left out. Returns the count,
 * or -1 with err.
 */
static long side_sums(const struct profile *p, const struct event_expr *cols, size_t ncols,
                      void *ignore, int inclusive, struct side_func **out, int64_t **costs,
                      int64_t **incls, size_t *nest, struct tally_error *err)
{
    size_t nf = profile_nfunctions(p);
    const struct part *pt = p->parts[0];
    int64_t *per_fn = xcalloc(nf * ncols + 1, sizeof(int64_t));
    unsigned char *seen = xcalloc(nf + 1, 1);
    /* fn_ignored()'s answers */
    unsigned char *state = xcalloc(nf + 1, 1);
    long rc = 0;
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec c;
        part_cost_get(pt, i, &c);
        if (fn_ignored(p, ignore, state, c.fn)) continue;
        seen[c.fn] = 1;
        for (size_t k = 0; k < ncols; k++) {
            tally_wide w; /* tally check keeps 64-bit signed sums per function */
            int64_t *acc = &per_fn[c.fn * ncols + k];
            if (event_expr_eval(&cols[k], c.cost, p->signed_costs, &w) || w > INT64_MAX ||
                w < INT64_MIN || __builtin_add_overflow(*acc, (int64_t)w, acc)) {
                rc = tally_error_set(err, p->path, 0, "a cost of %s does not fit in 64 bits",
                                     profile_str(p, profile_function_at(p, c.fn).name));
                goto out;
            }
        }
    }
    int64_t *inc_fn = NULL;
    if (inclusive) {
        inc_fn = xcalloc(nf * ncols + 1, sizeof(int64_t));
        if (side_inclusive(p, cols, ncols, inc_fn, seen, nest, err)) {
            free(inc_fn);
            rc = -1;
            goto out;
        }
        for (size_t f = 0; f < nf; f++) /* functions of ignored objects stay out */
            if (seen[f] && fn_ignored(p, ignore, state, (uint32_t)f)) seen[f] = 0;
    }
    size_t n = 0;
    struct side_func *sf = xcalloc(nf + 1, sizeof(*sf));
    for (size_t f = 0; f < nf; f++) {
        if (!seen[f]) continue;
        struct function fu = profile_function_at(p, (uint32_t)f);
        sf[n].name = profile_str(p, fu.name);
        sf[n].file = fu.file ? profile_str(p, fu.file) : "";
        sf[n].cost = per_fn + f * ncols;
        sf[n].incl = inc_fn ? inc_fn + f * ncols : NULL;
        n++;
    }
    qsort(sf, n, sizeof(*sf), by_name);
    /* one entry per name */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !strcmp(sf[m - 1].name, sf[i].name)) {
            for (size_t k = 0; k < ncols; k++)
                if (__builtin_add_overflow(sf[m - 1].cost[k], sf[i].cost[k], &sf[m - 1].cost[k]) ||
                    (inc_fn && __builtin_add_overflow(sf[m - 1].incl[k], sf[i].incl[k],
                                                      &sf[m - 1].incl[k]))) {
                    rc = tally_error_set(err, p->path, 0, "the costs of %s do not fit in 64 bits",
                                         sf[i].name);
                    free(sf);
                    free(inc_fn);
                    goto out;
                }
            continue;
        }
        sf[m++] = sf[i];
    }
    *out = sf;
    *costs = per_fn;
    *incls = inc_fn;
    per_fn = NULL;
    rc = (long)m;
out:
    free(per_fn);
    free(seen);
    free(state);
    return rc;
}

double check_percent(int64_t base, int64_t new_)
{
    if (base == new_) return 0;
    if (base == 0) return new_ > 0 ? INFINITY : -INFINITY;
    return ((double)new_ - (double)base) / fabs((double)base) * 100.0;
}

/* Is the hit beyond its limit? Exact at the boundary: 1020 against 1000 is +2%. */
static int beyond(const struct check_limit *l, int64_t base, int64_t new_)
{
    if (l->kind == CHECK_ABSOLUTE) return (long double)new_ > (long double)l->value;
    if (base == 0) return new_ > 0 ? 1 : new_ < 0 ? 0 : 0 > l->value; /* +-inf%, or 0% */
    long double delta = (long double)new_ - (long double)base;
    long double b = base < 0 ? -(long double)base : (long double)base;
    return delta * 100.0L > (long double)l->value * b;
}

/* Largest change of column 0 first, then by name. */
static int by_change(const void *a, const void *b)
{
    const struct check_func *x = a, *y = b;
    long double dx = fabsl((long double)x->new_[0] - (long double)x->base[0]);
    long double dy = fabsl((long double)y->new_[0] - (long double)y->base[0]);
    if (dx != dy) return dx < dy ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void add_column(struct check_result *res, const char *name, size_t *cap)
{
    for (size_t i = 0; i < res->ncols; i++)
        if (!strcmp(res->cols[i], name)) return;
    res->cols = xgrow(res->cols, cap, res->ncols + 1, sizeof(*res->cols));
    res->cols[res->ncols++] = xstrdup(name);
}

int check_compute(const struct profile *base, const struct profile *new_,
                  const struct check_options *opt, struct check_result *res,
                  struct tally_error *err)
{
    memset(res, 0, sizeof(*res));
    const struct profile *sides[2] = {base, new_};
    const char *labels[2] = {opt->base_label ? opt->base_label : base->path,
                             opt->new_label ? opt->new_label : new_->path};
    size_t cap = 0;
    for (size_t i = 0; i < opt->nlimits; i++)
        add_column(res, opt->limits[i].event, &cap);
    for (size_t i = 0; i < opt->ncolumns; i++)
        add_column(res, opt->columns[i], &cap);
    if (!res->ncols) return tally_error_set(err, NULL, 0, "no limit and no event to show");
    size_t nc = res->ncols;
    /* each side's events with the user's definitions added (opt->events, in order) */
    struct eventset es[2];
    for (int sd = 0; sd < 2; sd++) {
        if (sides[sd]->nparts)
            eventset_copy(&es[sd], &sides[sd]->parts[0]->events);
        else
            eventset_init(&es[sd]);
    }
    res->formulas = xcalloc(nc, sizeof(char *));
    for (size_t k = 0; k < nc; k++) {
        /* user formulas shown as given, built-in ones as KCachegrind writes them */
        const char *f = NULL;
        for (size_t u = 0; u < opt->nevents && !f; u++) {
            char *nm;
            if (event_definition_name(opt->events[u], &nm)) continue;
            if (!strcmp(nm, res->cols[k])) f = strchr(opt->events[u], '=') + 1;
            free(nm);
        }
        const struct eventset *bes = &es[0];
        int own = eventset_index(bes, res->cols[k]) >= 0;
        for (size_t d = 0; d < bes->nderived && !own; d++)
            own = !strcmp(bes->derived[d].name, res->cols[k]);
        for (size_t i = 0; !f && !own; i++) {
            const char *bn, *bf = eventset_builtin_formula(i, &bn, NULL);
            if (!bf) break;
            if (!strcmp(bn, res->cols[k])) f = bf;
        }
        while (f && (*f == ' ' || *f == '\t'))
            f++;
        res->formulas[k] = xstrdup(f ? f : "");
    }

    void *ignore = NULL;
    struct event_expr *cols[2] = {xcalloc(nc, sizeof(struct event_expr)),
                                  xcalloc(nc, sizeof(struct event_expr))};
    struct side_func *sf[2] = {NULL, NULL};
    int64_t *sfcost[2] = {NULL, NULL}, *sfincl[2] = {NULL, NULL};
    long nsf[2] = {0, 0};
    struct strlist missing[2] = {{0}, {0}};
    int rc = -2; /* usage errors first: a bad regex, an unknown event */
    if (opt->ignore_object && *opt->ignore_object &&
        !(ignore = compile_regex(opt->ignore_object, "--ignore-object", err)))
        goto out;
    for (int s = 0; s < 2; s++) {
        if (!sides[s]->nparts) {
            rc = tally_error_set(err, labels[s], 0, "the profile holds no data");
            goto out;
        }
        for (size_t u = 0; u < opt->nevents; u++)
            if (eventset_add_definition(&es[s], opt->events[u], err)) {
                snprintf(err->file, sizeof err->file, "%s", labels[s]);
                goto out;
            }
        for (size_t k = 0; k < nc; k++)
            if (column_expr(&es[s], res->cols[k], labels[s], &missing[s], &cols[s][k], err))
                goto out;
    }
    rc = -1; /* from here on, what is wrong is in the input */
    for (int s = 0; s < 2; s++) {
        size_t nest = 0;
        nsf[s] = side_sums(sides[s], cols[s], nc, ignore, opt->inclusive, &sf[s], &sfcost[s],
                           &sfincl[s], &nest, err);
        if (nsf[s] < 0) goto out;
        if (nest)
            strlist_pushf(&res->notes,
                          "%s: the inclusive costs of %zu function%s in recursion cycles are "
                          "estimates (the file's calls nest under recursion)",
                          labels[s], nest, nest == 1 ? "" : "s");
    }
    for (int s = 0; s < 2; s++) {
        if (!missing[s].n) continue;
        size_t len = 1;
        for (size_t i = 0; i < missing[s].n; i++)
            len += strlen(missing[s].items[i]) + 1;
        char *names = xcalloc(len, 1);
        for (size_t i = 0; i < missing[s].n; i++) {
            if (i) strcat(names, " ");
            strcat(names, missing[s].items[i]);
        }
        strlist_pushf(&res->notes, "%s has no %s: the built-in events count %s as 0", labels[s],
                      names, missing[s].n == 1 ? "it" : "them");
        free(names);
    }

    /* join the two sorted lists */
    res->funcs = xcalloc((size_t)(nsf[0] + nsf[1]) + 1, sizeof(*res->funcs));
    res->base_total = xcalloc(nc, sizeof(int64_t));
    res->new_total = xcalloc(nc, sizeof(int64_t));
    res->inclusive = opt->inclusive;
    long i = 0, j = 0;
    while (i < nsf[0] || j < nsf[1]) {
        int c = i >= nsf[0] ? 1 : j >= nsf[1] ? -1 : strcmp(sf[0][i].name, sf[1][j].name);
        struct check_func *f = &res->funcs[res->nfuncs++];
        f->base = xcalloc(nc, sizeof(int64_t));
        f->new_ = xcalloc(nc, sizeof(int64_t));
        const struct side_func *from = c <= 0 ? &sf[0][i] : &sf[1][j];
        f->name = xstrdup(from->name);
        f->file = xstrdup(c >= 0 ? sf[1][j].file : from->file);
        const int64_t *bself = NULL, *nself = NULL;
        if (c <= 0) {
            bself = sf[0][i].cost;
            memcpy(f->base, sf[0][i].incl ? sf[0][i].incl : bself, nc * sizeof(int64_t));
            f->in_base = 1;
            i++;
        }
        if (c >= 0) {
            nself = sf[1][j].cost;
            memcpy(f->new_, sf[1][j].incl ? sf[1][j].incl : nself, nc * sizeof(int64_t));
            f->in_new = 1;
            j++;
        }
        /* the totals add up self costs */
        for (size_t k = 0; k < nc; k++)
            if ((bself &&
                 __builtin_add_overflow(res->base_total[k], bself[k], &res->base_total[k])) ||
                (nself &&
                 __builtin_add_overflow(res->new_total[k], nself[k], &res->new_total[k]))) {
                tally_error_set(err, NULL, 0, "the total of %s does not fit in 64 bits",
                                res->cols[k]);
                goto out;
            }
    }
    qsort(res->funcs, res->nfuncs, sizeof(*res->funcs), by_change);

    /* the limits */
    res->nlimits = opt->nlimits;
    res->outcomes = xcalloc(opt->nlimits + 1, sizeof(*res->outcomes));
    for (size_t l = 0; l < opt->nlimits; l++) {
        const struct check_limit *lim = &opt->limits[l];
        struct check_outcome *o = &res->outcomes[l];
        o->limit = lim;
        for (size_t k = 0; k < nc; k++)
            if (!strcmp(res->cols[k], lim->event)) o->col = k;
        if (!lim->func_regex) {
            o->checked = o->nhits = 1;
            o->hits = xcalloc(1, sizeof(*o->hits));
            o->hits[0].base = res->base_total[o->col];
            o->hits[0].new_ = res->new_total[o->col];
            o->hits[0].percent = check_percent(o->hits[0].base, o->hits[0].new_);
            o->hits[0].exceeded = o->exceeded = beyond(lim, o->hits[0].base, o->hits[0].new_);
        } else {
            size_t hcap = 0;
            for (size_t f = 0; f < res->nfuncs; f++) {
                const struct check_func *fn = &res->funcs[f];
                if (!regex_matches(lim->re, fn->name)) continue;
                o->checked++;
                if (!beyond(lim, fn->base[o->col], fn->new_[o->col])) continue;
                o->hits = xgrow(o->hits, &hcap, o->nhits + 1, sizeof(*o->hits));
                struct check_hit *h = &o->hits[o->nhits++];
                h->fn = fn;
                h->base = fn->base[o->col];
                h->new_ = fn->new_[o->col];
                h->percent = check_percent(h->base, h->new_);
                h->exceeded = o->exceeded = 1;
            }
            if (!o->checked)
                strlist_pushf(&res->notes, "limit '%s': no function matches '%s'", lim->text,
                              lim->func_regex);
        }
        if (o->exceeded) res->nexceeded++;
    }
    rc = 0;
out:
    for (int s = 0; s < 2; s++) {
        for (size_t k = 0; k < nc; k++)
            event_expr_release(&cols[s][k]);
        free(cols[s]);
        free(sf[s]);
        free(sfcost[s]);
        free(sfincl[s]);
        strlist_release(&missing[s]);
        eventset_release(&es[s]);
    }
    if (ignore) pcre2_code_free(ignore);
    if (rc) check_result_release(res);
    return rc;
}

void check_result_release(struct check_result *res)
{
    for (size_t k = 0; k < res->ncols; k++) {
        free(res->cols[k]);
        if (res->formulas) free(res->formulas[k]);
    }
    free(res->cols);
    free(res->formulas);
    free(res->base_total);
    free(res->new_total);
    for (size_t f = 0; f < res->nfuncs; f++) {
        free(res->funcs[f].name);
        free(res->funcs[f].file);
        free(res->funcs[f].base);
        free(res->funcs[f].new_);
    }
    free(res->funcs);
    for (size_t l = 0; l < res->nlimits; l++)
        free(res->outcomes[l].hits);
    free(res->outcomes);
    for (size_t i = 0; i < res->notes.n; i++)
        free(res->notes.items[i]);
    free(res->notes.items);
    memset(res, 0, sizeof(*res));
}
