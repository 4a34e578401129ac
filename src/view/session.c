/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c - the data `tally view` serves: the graph, the per-function
 * record indexes, the sorted tables and the stack trees (session.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "session.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strlist_copy(struct strlist *dst, const struct strlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        strlist_push(dst, src->items[i]);
}

struct view_session *view_session_new(struct profile *p, const struct view_config *cfg,
                                      struct tally_error *err)
{
    if (p->nparts != 1) {
        tally_error_set(err, p->path, 0, "the profile must hold one part (add the parts up)");
        profile_free(p);
        return NULL;
    }
    struct view_session *s = xcalloc(1, sizeof(*s));
    s->p = p;
    s->pt = p->parts[0];
    s->cfg.title = cfg->title ? xstrdup(cfg->title) : NULL;
    s->cfg.editor = cfg->editor ? xstrdup(cfg->editor) : NULL;
    s->cfg.dot_timeout_ms = cfg->dot_timeout_ms ? cfg->dot_timeout_ms : 10000;
    strlist_copy(&s->cfg.inputs, &cfg->inputs);
    strlist_copy(&s->cfg.include, &cfg->include);
    size_t nev = s->pt->events.n;
    if (vgraph_build(&s->g, p, s->pt, err)) {
        view_session_free(s);
        return NULL;
    }
    s->nfn = profile_nfunctions(p);
    s->node_of = xmalloc((s->nfn ? s->nfn : 1) * sizeof(*s->node_of));
    for (size_t f = 0; f < s->nfn; f++)
        s->node_of[f] = VIEW_NO_NODE;
    for (size_t v = 0; v < s->g.nnodes; v++)
        s->node_of[s->g.fn[v]] = (uint32_t)v;
    s->stacks = xcalloc(nev ? nev : 1, sizeof(*s->stacks));
    s->stacks_built = xcalloc(nev ? nev : 1, 1);
    return s;
}

void view_session_free(struct view_session *s)
{
    if (!s) return;
    for (size_t e = 0; s->stacks_built && e < s->pt->events.n; e++)
        if (s->stacks_built[e] == 1) stacks_release(&s->stacks[e]);
    free(s->stacks);
    free(s->stacks_built);
    for (int i = 0; i < VIEW_ORDER_CACHE; i++) {
        free(s->orders[i].key);
        free(s->orders[i].nodes);
        free(s->orders[i].match_self);
    }
    for (int i = 0; i < VIEW_BLOB_CACHE; i++) {
        free(s->blobs[i].key);
        free(s->blobs[i].body);
    }
    free(s->cost_start);
    free(s->call_start);
    free(s->cost_idx);
    free(s->call_idx);
    free(s->node_of);
    vgraph_release(&s->g);
    free((char *)s->cfg.title);
    free((char *)s->cfg.editor);
    strlist_release(&s->cfg.inputs);
    strlist_release(&s->cfg.include);
    profile_free(s->p);
    free(s);
}

uint32_t view_node(const struct view_session *s, uint64_t id)
{
    return id < s->nfn ? s->node_of[id] : VIEW_NO_NODE;
}

/* Counting sort of n records by the node of their function. */
static void index_by_node(const struct view_session *s, size_t n, const uint32_t *fn,
                          size_t **startp, uint32_t **idxp)
{
    size_t nn = s->g.nnodes;
    size_t *start = xcalloc(nn + 2, sizeof(*start));
    uint32_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
    for (size_t i = 0; i < n; i++) {
        uint32_t v = fn[i] < s->nfn ? s->node_of[fn[i]] : VIEW_NO_NODE;
        if (v != VIEW_NO_NODE) start[v + 2]++;
    }
    for (size_t v = 2; v < nn + 2; v++)
        start[v] += start[v - 1];
    for (size_t i = 0; i < n; i++) {
        uint32_t v = fn[i] < s->nfn ? s->node_of[fn[i]] : VIEW_NO_NODE;
        if (v != VIEW_NO_NODE) idx[start[v + 1]++] = (uint32_t)i;
    }
    *startp = start;
    *idxp = idx;
}

void view_index_records(struct view_session *s)
{
    if (s->cost_start) return;
    size_t nc = part_ncosts(s->pt), nk = part_ncalls(s->pt);
    uint32_t *fn = xmalloc((nc > nk ? nc : nk ? nk : 1) * sizeof(*fn));
    for (size_t i = 0; i < nc; i++) {
        struct cost_rec r;
        part_cost_get(s->pt, i, &r);
        fn[i] = r.fn;
    }
    index_by_node(s, nc, fn, &s->cost_start, &s->cost_idx);
    for (size_t i = 0; i < nk; i++) {
        struct call_rec r;
        part_call_get(s->pt, i, &r);
        fn[i] = r.caller;
    }
    index_by_node(s, nk, fn, &s->call_start, &s->call_idx);
    free(fn);
}

/* ---- sorted tables -------------------------------------------------------- */

struct sort_ctx {
    const struct view_session *s;
    size_t ev;
    int sort, desc;
};

static int cmp_wide(tally_wide a, tally_wide b)
{
    return a < b ? -1 : a > b;
}

static const char *node_str(const struct view_session *s, uint32_t v, int what)
{
    struct function f = profile_function_at(s->p, s->g.fn[v]);
    return profile_str(s->p, what == 4 ? f.obj : what == 5 ? f.file : f.name);
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
    const struct sort_ctx *c = arg;
    const struct vgraph *g = &c->s->g;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int r = 0;
    switch (c->sort) {
    case 0:
        r = cmp_wide(vgraph_incl(g, x, c->ev), vgraph_incl(g, y, c->ev));
        break;
    case 1:
        r = cmp_wide(vgraph_self(g, x, c->ev), vgraph_self(g, y, c->ev));
        break;
    case 2:
        r = g->calls[x] < g->calls[y] ? -1 : g->calls[x] > g->calls[y];
        break;
    default:
        r = strcmp(node_str(c->s, x, c->sort), node_str(c->s, y, c->sort));
        break;
    }
    if (c->desc) r = -r;
    if (!r) r = strcmp(node_str(c->s, x, 3), node_str(c->s, y, 3));
    return r ? r : x < y ? -1 : x > y;
}

static int filter_rows(const struct view_session *s, const char *q, struct view_order *o,
                       struct tally_error *err)
{
    size_t n = s->g.nnodes;
    o->nodes = xmalloc((n ? n : 1) * sizeof(*o->nodes));
    o->n = 0;
    if (!q || !*q) {
        for (size_t v = 0; v < n; v++)
            o->nodes[o->n++] = (uint32_t)v;
        return 0;
    }
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)q, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
    if (!re) {
        char msg[256];
        if (pcre2_get_error_message(ec, (PCRE2_UCHAR *)msg, sizeof(msg)) < 0)
            snprintf(msg, sizeof(msg), "PCRE2 error %d", ec);
        return tally_error_set(err, NULL, 0, "bad regex: %s (at offset %zu)", msg, (size_t)eo);
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    /* a hostile pattern must not hold the server: bound the work per name */
    pcre2_set_match_limit(mc, 100000);
    pcre2_set_depth_limit(mc, 1000);
    for (size_t v = 0; v < n; v++) {
        const char *name = node_str(s, (uint32_t)v, 3);
        if (pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, md, mc) >= 0)
            o->nodes[o->n++] = (uint32_t)v;
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return 0;
}

const struct view_order *view_order_get(struct view_session *s, size_t ev, int sort, int desc,
                                        const char *q, struct tally_error *err)
{
    size_t klen = strlen(q ? q : "") + 64;
    char *key = xmalloc(klen);
    snprintf(key, klen, "%zu/%d/%d/%s", ev, sort, desc, q ? q : "");
    struct view_order *o = NULL;
    for (int i = 0; i < VIEW_ORDER_CACHE; i++)
        if (s->orders[i].key && !strcmp(s->orders[i].key, key)) o = &s->orders[i];
    if (o) {
        free(key);
        o->used = ++s->clock;
        return o;
    }
    struct view_order fresh = {.key = key};
    if (filter_rows(s, q, &fresh, err)) {
        free(key);
        free(fresh.nodes);
        return NULL;
    }
    struct sort_ctx c = {s, ev, sort, desc};
    qsort_r(fresh.nodes, fresh.n, sizeof(*fresh.nodes), cmp_rows, &c);
    size_t nc = s->g.ncols;
    fresh.match_self = xcalloc(nc ? nc : 1, sizeof(tally_wide));
    for (size_t i = 0; i < fresh.n; i++)
        for (size_t e = 0; e < nc; e++)
            fresh.match_self[e] += vgraph_self(&s->g, fresh.nodes[i], e);
    /* replace the table used longest ago */
    o = &s->orders[0];
    for (int i = 1; i < VIEW_ORDER_CACHE; i++)
        if (s->orders[i].used < o->used) o = &s->orders[i];
    free(o->key);
    free(o->nodes);
    free(o->match_self);
    *o = fresh;
    o->used = ++s->clock;
    return o;
}

const struct stack_tree *view_stacks(struct view_session *s, size_t ev, struct tally_error *err)
{
    if (ev >= s->pt->events.n) {
        tally_error_set(err, NULL, 0, "no such event");
        return NULL;
    }
    if (s->stacks_built[ev] == 0) {
        struct stack_options so = {.part = 0, .event = (int)ev, .prune = VIEW_FLAME_PRUNE};
        s->stacks_built[ev] = stacks_build(&s->stacks[ev], s->p, &so, err) ? -1 : 1;
        if (s->stacks_built[ev] == -1) return NULL;
    }
    if (s->stacks_built[ev] == -1) {
        tally_error_set(err, NULL, 0, "the stacks of this profile cannot be built");
        return NULL;
    }
    return &s->stacks[ev];
}

const struct view_blob *view_blob_get(struct view_session *s, const char *key)
{
    for (int i = 0; i < VIEW_BLOB_CACHE; i++)
        if (s->blobs[i].key && !strcmp(s->blobs[i].key, key)) {
            s->blobs[i].used = ++s->clock;
            return &s->blobs[i];
        }
    return NULL;
}

void view_blob_put(struct view_session *s, const char *key, const char *body, size_t len,
                   int status)
{
    struct view_blob *b = &s->blobs[0];
    for (int i = 1; i < VIEW_BLOB_CACHE; i++)
        if (s->blobs[i].used < b->used) b = &s->blobs[i];
    free(b->key);
    free(b->body);
    b->key = xstrdup(key);
    b->body = xmalloc(len + 1);
    memcpy(b->body, body, len);
    b->body[len] = 0;
    b->len = len;
    b->status = status;
    b->used = ++s->clock;
}
