/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.c - NEW minus OLD, per function or per line (see diff.h).
 *
 * The result is built by adding the negated self-cost records of OLD and
 * then those of NEW into one signed part, keyed by the renamed names, and
 * copied in sorted order at the end. Renamed names are cached per input
 * name id (and functions per input function), so each distinct name goes
 * through PCRE2 once.
 */
#include "diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one input contributes, with its caches (valid during diff_add). */
struct diff_side {
    const struct profile *p;
    const struct part *pt;
    const char *label;
    int negate;        /* 1 for OLD */
    size_t *ev_map;    /* input event index -> result event index */
    uint32_t *file_id; /* input name id -> result id as a file name (UINT32_MAX: not yet) */
    uint32_t *func_id; /* input name id -> result id as a function name */
    uint32_t *fn_id;   /* input function -> result function */
};

struct diff {
    struct diff_options opt;
    struct profile *r; /* the result so far, unsorted */
    struct part *rpt;
    int have_events;
    char *events_label; /* input that gave the events */
    int added[2];       /* DIFF_OLD, DIFF_NEW */
    char *label[2], *cmd[2];
};

static void side_release(struct diff_side *s)
{
    free(s->ev_map);
    free(s->file_id);
    free(s->func_id);
    free(s->fn_id);
}

/* Result id of input name `id`, renamed by `rn` when given. */
static int map_name(struct profile *r, struct diff_side *s, uint32_t id, uint32_t *cache,
                    const struct rename *rn, uint32_t *out, struct tally_error *err)
{
    if (cache[id] != UINT32_MAX) {
        *out = cache[id];
        return 0;
    }
    const char *name = profile_str(s->p, id);
    if (!rn) {
        cache[id] = profile_intern(r, name, strtab_len(&s->p->names, id));
    } else {
        char *renamed = rename_apply(rn, name, err);
        if (!renamed) {
            if (err) snprintf(err->file, sizeof(err->file), "%s", s->label);
            return -1;
        }
        cache[id] = profile_intern(r, renamed, strlen(renamed));
        free(renamed);
    }
    *out = cache[id];
    return 0;
}

/* Build ev_map of `s` against the result's events. */
static int match_events(struct diff *d, struct diff_side *s, struct tally_error *err)
{
    const struct eventset *es = &d->rpt->events, *mine = &s->pt->events;
    size_t n = es->n;
    s->ev_map = xcalloc(n ? n : 1, sizeof(*s->ev_map));
    char *used = xcalloc(n ? n : 1, 1);
    int ok = mine->n == n;
    for (size_t i = 0; ok && i < n; i++) {
        int j = eventset_index(es, mine->names[i]);
        if (j < 0 || used[j])
            ok = 0;
        else {
            used[j] = 1;
            s->ev_map[i] = (size_t)j;
        }
    }
    free(used);
    if (ok) return 0;
    char *a = eventset_join_brief(es), *b = eventset_join_brief(mine);
    tally_error_set(err, s->label, 0, "the events differ: '%s' in %s versus '%s' in %s",
                    s->negate ? b : a, s->negate ? s->label : d->events_label, s->negate ? a : b,
                    s->negate ? d->events_label : s->label);
    free(a);
    free(b);
    return -1;
}

/* Convert input value v to a signed term of the difference in *out. */
static int signed_term(const struct diff_side *s, uint64_t v, int64_t *out)
{
    int64_t x;
    if (s->p->signed_costs)
        x = (int64_t)v;
    else if (v > (uint64_t)INT64_MAX)
        return -1;
    else
        x = (int64_t)v;
    if (s->negate) {
        if (x == INT64_MIN) return -1;
        x = -x;
    }
    *out = x;
    return 0;
}

/* Result function of input function `fn` (renamed, cached). */
static int map_fn(struct diff *d, struct diff_side *s, uint32_t fn, uint32_t *out,
                  struct tally_error *err)
{
    if (s->fn_id[fn] != UINT32_MAX) {
        *out = s->fn_id[fn];
        return 0;
    }
    struct function f = profile_function_at(s->p, fn);
    uint32_t file, name;
    if (map_name(d->r, s, f.file, s->file_id, d->opt.mod_filename, &file, err) ||
        map_name(d->r, s, f.name, s->func_id, d->opt.mod_funcname, &name, err))
        return -1;
    *out = s->fn_id[fn] = profile_function(d->r, 0, file, name);
    return 0;
}

static int add_costs(struct diff *d, struct diff_side *s, struct tally_error *err)
{
    struct part *rpt = d->rpt;
    size_t n = rpt->events.n;
    size_t nnames = s->p->names.n, nfns = profile_nfunctions(s->p);
    s->file_id = xmalloc((nnames ? nnames : 1) * sizeof(uint32_t));
    s->func_id = xmalloc((nnames ? nnames : 1) * sizeof(uint32_t));
    s->fn_id = xmalloc((nfns ? nfns : 1) * sizeof(uint32_t));
    memset(s->file_id, 0xff, nnames * sizeof(uint32_t));
    memset(s->func_id, 0xff, nnames * sizeof(uint32_t));
    memset(s->fn_id, 0xff, nfns * sizeof(uint32_t));
    uint64_t *tmp = xcalloc(n ? n : 1, sizeof(*tmp));
    int rc = 0;
    for (size_t i = 0; i < part_ncosts(s->pt) && rc == 0; i++) {
        struct cost_rec c;
        part_cost_get(s->pt, i, &c);
        uint32_t fn;
        if (map_fn(d, s, c.fn, &fn, err)) {
            rc = -1;
            break;
        }
        struct function f = profile_function_at(d->r, fn);
        struct position pos = {f.file, 0, 0, 0};
        if (d->opt.by == DIFF_BY_LINE) {
            if (map_name(d->r, s, c.pos.file, s->file_id, d->opt.mod_filename, &pos.file, err)) {
                rc = -1;
                break;
            }
            pos.line = c.pos.line;
        }
        for (size_t e = 0; e < n; e++) {
            int64_t x;
            if (signed_term(s, c.cost[e], &x)) {
                char v[32];
                if (s->p->signed_costs)
                    snprintf(v, sizeof(v), "%" PRId64, (int64_t)c.cost[e]);
                else
                    snprintf(v, sizeof(v), "%" PRIu64, c.cost[e]);
                rc = tally_error_set(err, s->label, 0,
                                     "cost %s of event %s in function '%s' does not fit a "
                                     "signed 64-bit difference",
                                     v, s->pt->events.names[e],
                                     profile_str(s->p, profile_function_at(s->p, c.fn).name));
                break;
            }
            tmp[s->ev_map[e]] = (uint64_t)x;
        }
        if (rc == 0 && part_add_cost(d->r, rpt, fn, &pos, tmp, n))
            rc = tally_error_set(err, s->label, 0,
                                 "the difference for function '%s' overflows 64 bits",
                                 profile_str(d->r, f.name));
    }
    free(tmp);
    return rc;
}

struct diff *diff_new(const struct diff_options *opt)
{
    struct diff *d = xcalloc(1, sizeof(*d));
    if (opt) d->opt = *opt;
    d->opt.label_old = d->opt.label_new = NULL; /* copied below, not borrowed */
    if (opt && opt->label_old) d->label[DIFF_OLD] = xstrdup(opt->label_old);
    if (opt && opt->label_new) d->label[DIFF_NEW] = xstrdup(opt->label_new);
    d->r = profile_new();
    d->r->signed_costs = 1;
    d->r->format = PROFILE_FORMAT_CACHEGRIND;
    d->rpt = profile_add_part(d->r);
    d->rpt->positions = POS_LINE;
    d->rpt->counts_complete = 1; /* every count is written, as cg_diff writes them */
    return d;
}

int diff_add(struct diff *d, const struct profile *p, enum diff_which which,
             struct tally_error *err)
{
    if (which != DIFF_OLD && which != DIFF_NEW)
        return tally_error_set(err, NULL, 0, "diff_add: bad side %d", (int)which);
    if (d->added[which])
        return tally_error_set(err, NULL, 0, "diff_add: the %s profile was already added",
                               which == DIFF_OLD ? "old" : "new");
    if (!d->label[which])
        d->label[which] = xstrdup(p->path ? p->path : which == DIFF_OLD ? "(old)" : "(new)");
    struct diff_side s = {0};
    s.p = p;
    s.label = d->label[which];
    s.negate = which == DIFF_OLD;
    if (p->nparts > 1)
        return tally_error_set(err, s.label, 0,
                               "has %zu parts; diff needs them merged into one first", p->nparts);
    d->added[which] = 1;
    s.pt = p->nparts ? p->parts[0] : NULL;
    if (!s.pt) return 0;
    if (s.pt->cmd) d->cmd[which] = xstrdup(s.pt->cmd);
    if (!d->have_events) {
        eventset_release(&d->rpt->events);
        eventset_copy(&d->rpt->events, &s.pt->events);
        d->events_label = xstrdup(s.label);
        d->have_events = 1;
    }
    int rc = match_events(d, &s, err);
    if (rc == 0) rc = add_costs(d, &s, err);
    side_release(&s);
    return rc;
}

/* Sort key of one record of the unsorted result. */
struct diff_item {
    const char *file, *name, *src; /* function's file and name, source file */
    uint64_t line;
    size_t rec;
};

static int item_cmp(const void *a, const void *b)
{
    const struct diff_item *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (!c) c = strcmp(x->name, y->name);
    if (!c) c = strcmp(x->src, y->src);
    if (!c) c = (x->line > y->line) - (x->line < y->line);
    return c;
}

/*
 * A copy of `u` (one signed part) whose functions and records come in
 * name order, so that output does not depend on input order.
 */
static struct profile *sorted_copy(const struct profile *u)
{
    const struct part *up = u->parts[0];
    size_t nrec = part_ncosts(up), n = up->events.n;
    struct diff_item *items = xmalloc((nrec ? nrec : 1) * sizeof(*items));
    for (size_t i = 0; i < nrec; i++) {
        struct cost_rec c;
        part_cost_get(up, i, &c);
        struct function f = profile_function_at(u, c.fn);
        items[i].file = profile_str(u, f.file);
        items[i].name = profile_str(u, f.name);
        items[i].src = profile_str(u, c.pos.file);
        items[i].line = c.pos.line;
        items[i].rec = i;
    }
    qsort(items, nrec, sizeof(*items), item_cmp);

    struct profile *r = profile_new();
    r->signed_costs = 1;
    r->format = u->format;
    struct part *pt = profile_add_part(r);
    eventset_release(&pt->events);
    eventset_copy(&pt->events, &up->events);
    pt->positions = up->positions;
    pt->cmd = up->cmd ? xstrdup(up->cmd) : NULL;
    strlist_append(&pt->desc, &up->desc);
    for (size_t i = 0; i < nrec; i++) {
        struct cost_rec c;
        part_cost_get(up, items[i].rec, &c);
        uint32_t file = profile_intern(r, items[i].file, strlen(items[i].file));
        uint32_t fn =
            profile_function(r, 0, file, profile_intern(r, items[i].name, strlen(items[i].name)));
        struct position pos = {profile_intern(r, items[i].src, strlen(items[i].src)), items[i].line,
                               0, 0};
        /* every key is new, so this is a copy and cannot overflow */
        part_add_cost(r, pt, fn, &pos, c.cost, n);
    }
    free(items);
    return r;
}

struct profile *diff_finish(struct diff *d, struct tally_error *err)
{
    const char *lo = d->label[DIFF_OLD] ? d->label[DIFF_OLD] : "(old)";
    const char *ln = d->label[DIFF_NEW] ? d->label[DIFF_NEW] : "(new)";
    if (!d->have_events) {
        tally_error_set(err, NULL, 0, "neither %s nor %s holds any event", lo, ln);
        return NULL;
    }
    struct part *rpt = d->rpt;
    size_t n = rpt->events.n;
    uint64_t *summary = xcalloc(n ? n : 1, sizeof(uint64_t));
    if (part_self_total(d->r, rpt, summary)) {
        /* name the event, and the file whose costs are the larger: the one to blame */
        size_t e = 0;
        __int128 t = 0;
        for (; e < n; e++) {
            t = 0;
            for (size_t i = 0; i < rpt->costs.count; i++)
                t += (int64_t)rectab_val(&rpt->costs, i)[e];
            if (t > INT64_MAX || t < INT64_MIN) break;
        }
        free(summary);
        tally_error_set(err, t > 0 ? ln : lo, 0,
                        "its costs of event %s exceed those of %s by more than a diff can hold "
                        "(differences are signed 64-bit counts, at most 2^63-1)",
                        e < n ? rpt->events.names[e] : "?", t > 0 ? lo : ln);
        return NULL;
    }
    free(rpt->cmd);
    rpt->cmd = xasprintf("%s; %s", d->cmd[DIFF_OLD] ? d->cmd[DIFF_OLD] : "",
                         d->cmd[DIFF_NEW] ? d->cmd[DIFF_NEW] : "");
    strlist_release(&rpt->desc);
    strlist_pushf(&rpt->desc, "Files compared:   %s; %s", lo, ln);
    struct profile *sorted = sorted_copy(d->r);
    sorted->parts[0]->summary = summary;
    return sorted;
}

void diff_free(struct diff *d)
{
    if (!d) return;
    profile_free(d->r);
    free(d->events_label);
    for (int i = 0; i < 2; i++) {
        free(d->label[i]);
        free(d->cmd[i]);
    }
    free(d);
}

struct profile *diff_profiles(const struct profile *old, const struct profile *new_,
                              const struct diff_options *opt, struct tally_error *err)
{
    struct diff *d = diff_new(opt);
    struct profile *r = NULL;
    if (diff_add(d, old, DIFF_OLD, err) == 0 && diff_add(d, new_, DIFF_NEW, err) == 0)
        r = diff_finish(d, err);
    diff_free(d);
    return r;
}
