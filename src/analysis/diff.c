/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.c - NEW minus OLD, per function or per line (see diff.h).
 *
 * The result is built by adding every self-cost record of NEW and then
 * the negated records of OLD into one signed part, keyed by the renamed
 * names. Renamed names are cached per input name id, so each distinct
 * name goes through PCRE2 once.
 */
#include "diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one input contributes, with its caches. */
struct diff_side {
    const struct profile *p;
    const struct part *pt; /* NULL when the profile has no part */
    const char *label;
    int negate;        /* 1 for OLD */
    size_t *ev_map;    /* input event index -> result event index */
    uint32_t *file_id; /* input name id -> result id as a file name (UINT32_MAX: not yet) */
    uint32_t *func_id; /* input name id -> result id as a function name */
};

static void side_release(struct diff_side *s)
{
    free(s->ev_map);
    free(s->file_id);
    free(s->func_id);
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

static int check_parts(const struct profile *p, const char *label, struct tally_error *err)
{
    if (p->nparts > 1)
        return tally_error_set(err, label, 0,
                               "has %zu parts; diff needs them merged into one first", p->nparts);
    return 0;
}

/* Build ev_map of `s` against the result's events `es`. */
static int match_events(struct diff_side *s, const struct eventset *es, const char *other_label,
                        struct tally_error *err)
{
    const struct eventset *mine = &s->pt->events;
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
    char *a = eventset_join(es), *b = eventset_join(mine);
    tally_error_set(err, NULL, 0, "the events differ: '%s' in %s versus '%s' in %s", a, other_label,
                    b, s->label);
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

static int add_side(struct profile *r, struct part *rpt, struct diff_side *s,
                    const struct diff_options *opt, struct tally_error *err)
{
    if (!s->pt) return 0;
    size_t n = rpt->events.n;
    size_t nnames = s->p->names.n;
    s->file_id = xmalloc((nnames ? nnames : 1) * sizeof(uint32_t));
    s->func_id = xmalloc((nnames ? nnames : 1) * sizeof(uint32_t));
    memset(s->file_id, 0xff, nnames * sizeof(uint32_t));
    memset(s->func_id, 0xff, nnames * sizeof(uint32_t));
    uint64_t *tmp = xcalloc(n ? n : 1, sizeof(*tmp));
    int rc = 0;
    for (size_t i = 0; i < part_ncosts(s->pt) && rc == 0; i++) {
        struct cost_rec c;
        part_cost_get(s->pt, i, &c);
        struct function f = profile_function_at(s->p, c.fn);
        uint32_t file, name;
        struct position pos = {0, 0, 0, 0};
        if (map_name(r, s, f.file, s->file_id, opt->mod_filename, &file, err) ||
            map_name(r, s, f.name, s->func_id, opt->mod_funcname, &name, err)) {
            rc = -1;
            break;
        }
        pos.file = file;
        if (opt->by == DIFF_BY_LINE) {
            if (map_name(r, s, c.pos.file, s->file_id, opt->mod_filename, &pos.file, err)) {
                rc = -1;
                break;
            }
            pos.line = c.pos.line;
        }
        uint32_t fn = profile_function(r, 0, file, name);
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
                                     v, s->pt->events.names[e], profile_str(s->p, f.name));
                break;
            }
            tmp[s->ev_map[e]] = (uint64_t)x;
        }
        if (rc == 0 && part_add_cost(r, rpt, fn, &pos, tmp, n))
            rc = tally_error_set(err, s->label, 0,
                                 "the difference for function '%s' overflows 64 bits",
                                 profile_str(r, name));
    }
    free(tmp);
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
    for (size_t i = 0; i < up->desc.n; i++)
        strlist_push(&pt->desc, up->desc.items[i]);
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

struct profile *diff_profiles(const struct profile *old, const struct profile *new_,
                              const struct diff_options *opt, struct tally_error *err)
{
    static const struct diff_options defaults;
    if (!opt) opt = &defaults;
    struct diff_side so = {0}, sn = {0};
    so.p = old;
    so.label = opt->label_old ? opt->label_old : old->path ? old->path : "(old)";
    so.negate = 1;
    sn.p = new_;
    sn.label = opt->label_new ? opt->label_new : new_->path ? new_->path : "(new)";
    if (check_parts(old, so.label, err) || check_parts(new_, sn.label, err)) return NULL;
    so.pt = old->nparts ? old->parts[0] : NULL;
    sn.pt = new_->nparts ? new_->parts[0] : NULL;
    const struct part *first = so.pt ? so.pt : sn.pt;
    if (!first) {
        tally_error_set(err, NULL, 0, "neither %s nor %s holds any event", so.label, sn.label);
        return NULL;
    }

    struct profile *r = profile_new();
    r->signed_costs = 1;
    r->format = PROFILE_FORMAT_CACHEGRIND;
    struct part *rpt = profile_add_part(r);
    eventset_release(&rpt->events);
    eventset_copy(&rpt->events, &first->events);
    rpt->positions = POS_LINE;
    strlist_pushf(&rpt->desc, "Files compared:   %s; %s", so.label, sn.label);
    rpt->cmd = xasprintf("%s; %s", so.pt && so.pt->cmd ? so.pt->cmd : "",
                         sn.pt && sn.pt->cmd ? sn.pt->cmd : "");

    int rc = 0;
    if (so.pt) rc = match_events(&so, &rpt->events, sn.label, err);
    if (rc == 0 && sn.pt) rc = match_events(&sn, &rpt->events, so.label, err);
    if (rc == 0) rc = add_side(r, rpt, &sn, opt, err);
    if (rc == 0) rc = add_side(r, rpt, &so, opt, err);
    if (rc == 0) {
        size_t n = rpt->events.n;
        rpt->summary = xcalloc(n ? n : 1, sizeof(uint64_t));
        if (part_self_total(r, rpt, rpt->summary))
            rc =
                tally_error_set(err, NULL, 0, "the total difference of %s and %s overflows 64 bits",
                                so.label, sn.label);
    }
    side_release(&so);
    side_release(&sn);
    if (rc) {
        profile_free(r);
        return NULL;
    }
    struct profile *sorted = sorted_copy(r);
    sorted->parts[0]->summary = rpt->summary;
    rpt->summary = NULL;
    profile_free(r);
    return sorted;
}
