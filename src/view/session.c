/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.c - the data `tally view` serves: the graph, the per-function
 * record indexes, the sorted tables and the stack trees (session.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "session.h"

#include <errno.h>
#include <pcre2.h>
#include "../analysis/regex.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free what a selection computed. */
static void sel_release(struct view_sel *x)
{
    if (!x->key) return;
    for (size_t e = 0; x->stacks_built && e < x->g.ncols; e++)
        if (x->stacks_built[e] == 1) stacks_release(&x->stacks[e]);
    free(x->stacks);
    free(x->stacks_built);
    for (int i = 0; i < VIEW_ORDER_CACHE; i++) {
        free(x->orders[i].key);
        free(x->orders[i].nodes);
        free(x->orders[i].match_self);
    }
    for (int i = 0; i < VIEW_BLOB_CACHE; i++) {
        free(x->blobs[i].key);
        free(x->blobs[i].body);
    }
    free(x->base_of);
    vgraph_release(&x->g);
    free(x->parts);
    free(x->key);
    memset(x, 0, sizeof(*x));
}

/* Build selection x of the parts marked in `on` (graph, node map, caches). */
static int sel_build(struct view_session *s, struct view_sel *x, const char *on, const char *key,
                     struct tally_error *err)
{
    memset(x, 0, sizeof(*x));
    x->ses = s;
    x->p = s->p;
    x->parts = xmalloc(s->nparts * sizeof(*x->parts));
    for (size_t i = 0; i < s->nparts; i++)
        if (on[i]) x->parts[x->nparts++] = i;
    x->key = xstrdup(key);
    if (vgraph_build(&x->g, s->p, x->parts, x->nparts, s->stores, s->extra, s->nextra, err)) {
        sel_release(x);
        return -1;
    }
    size_t nev = x->g.ncols, nfn = x->g.nfn;
    if (s->cfg.base) {
        x->base_of = xmalloc((x->g.nnodes ? x->g.nnodes : 1) * sizeof(*x->base_of));
        uint32_t *bnode = xmalloc((nfn ? nfn : 1) * sizeof(*bnode));
        for (size_t f = 0; f < nfn; f++)
            bnode[f] = VIEW_NO_NODE;
        for (size_t b = 0; b < s->base_g.nnodes; b++)
            bnode[s->base_map[s->base_g.fn[b]]] = (uint32_t)b;
        for (size_t v = 0; v < x->g.nnodes; v++)
            x->base_of[v] = bnode[x->g.fn[v]];
        free(bnode);
    }
    xtrim(); /* the passes of the graph's build are freed */
    x->stacks = xcalloc(nev ? nev : 1, sizeof(*x->stacks));
    x->stacks_built = xcalloc(nev ? nev : 1, 1);
    x->used = ++s->clock;
    return 0;
}

/* The parts of a list: on[i] set for each (the caller frees on), and the
   canonical key ("all", or ascending "0,2,5"). NULL with err when bad. */
static char *parts_key(const struct view_session *s, const char *parts, char **onp,
                       struct tally_error *err)
{
    size_t n = s->nparts, count = 0;
    char *on = xcalloc(n, 1);
    *onp = on;
    if (!parts || !*parts || !strcmp(parts, "all")) {
        memset(on, 1, n);
        return xstrdup("all");
    }
    for (const char *c = parts; *c; c++)
        if ((*c < '0' || *c > '9') && *c != ',') {
            tally_error_set(err, NULL, 0, "parts=%.40s: give part numbers with commas (0,2,5)",
                            parts);
            return NULL;
        }
    for (const char *c = parts; *c;) {
        if (*c == ',') {
            c++;
            continue;
        }
        char *end;
        errno = 0;
        unsigned long long i = strtoull(c, &end, 10);
        if (errno || i >= n) {
            tally_error_set(err, NULL, 0, "no part %.*s (the profile has %zu)",
                            (int)(end - c > 20 ? 20 : end - c), c, n);
            return NULL;
        }
        count += !on[i];
        on[i] = 1;
        c = end;
    }
    if (!count) {
        tally_error_set(err, NULL, 0, "no part chosen");
        return NULL;
    }
    if (count == n) return xstrdup("all");
    char *key = xmalloc(n * 21 + 1);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        if (on[i]) len += (size_t)sprintf(key + len, len ? ",%zu" : "%zu", i);
    return key;
}

struct view_sel *view_select(struct view_session *s, const char *parts, struct tally_error *err)
{
    char *on;
    if ((!parts || !*parts) && s->first_only) parts = "0";
    char *key = parts_key(s, parts, &on, err);
    struct view_sel *x = NULL;
    for (int i = 0; key && i < VIEW_SELECTIONS; i++)
        if (s->sels[i].key && !strcmp(s->sels[i].key, key)) {
            x = &s->sels[i];
            x->used = ++s->clock;
        }
    if (key && !x) {
        x = &s->sels[0];
        for (int i = 1; i < VIEW_SELECTIONS; i++)
            if (!s->sels[i].key || (x->key && s->sels[i].used < x->used)) x = &s->sels[i];
        sel_release(x);
        if (sel_build(s, x, on, key, err)) x = NULL;
    }
    free(key);
    free(on);
    return x;
}

void view_part_label(const struct view_session *s, size_t i, char *buf, size_t size)
{
    const struct part *pt = s->p->parts[i];
    size_t n = 0;
    buf[0] = 0;
    if (pt->has_thread)
        n += (size_t)snprintf(buf + n, size - n, "thread %llu", (unsigned long long)pt->thread);
    if (pt->has_part && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%spart %llu", n ? ", " : "",
                              (unsigned long long)pt->part_no);
    if (pt->has_pid && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%spid %llu", n ? ", " : "",
                              (unsigned long long)pt->pid);
    if (!n) snprintf(buf, size, "part %zu", i + 1);
}

void view_pack_part(void *ctx, struct profile *p, size_t part)
{
    struct view_packer *pk = ctx;
    if (part >= pk->n) {
        size_t old = pk->cap;
        pk->st = xgrow(pk->st, &pk->cap, part + 1, sizeof(*pk->st));
        memset(pk->st + old, 0, (pk->cap - old) * sizeof(*pk->st));
        pk->n = part + 1;
    }
    struct tally_error err;
    if (vstore_build(&pk->st[part], p, p->parts[part], &err)) {
        vstore_release(&pk->st[part]); /* the session tries again, and says why */
        return;
    }
    part_clear_records(p->parts[part]);
    xtrim();
}

void view_packer_release(struct view_packer *pk)
{
    for (size_t i = 0; pk && i < pk->n; i++)
        vstore_release(&pk->st[i]);
    if (pk) free(pk->st);
}

/* Pack the records of each part of p not packed yet (stores[0 ..
   p->nparts)) and free them. Returns 0, or -1 with err. */
static int pack_parts(struct profile *p, struct vstore *stores, struct tally_error *err)
{
    for (size_t i = 0; i < p->nparts; i++) {
        if (stores[i].fn) continue; /* packed as it was read */
        if (vstore_build(&stores[i], p, p->parts[i], err)) return -1;
        part_clear_records(p->parts[i]);
        xtrim(); /* what the records took goes back to the system now */
    }
    return 0;
}

/* The base's graph, its events and functions matched by name to the
   profile's; each function of the base that the profile lacks is made in
   the profile and becomes a node of every selection (`extra`), a row
   whose cost went. */
static int base_setup(struct view_session *s, struct tally_error *err)
{
    struct profile *b = s->cfg.base, *p = s->p;
    if (b->nparts != 1)
        return tally_error_set(err, b->path, 0, "the base must be one part (add its parts up)");
    size_t first = 0;
    if (pack_parts(b, &s->base_store, err)) return -1;
    if (vgraph_build(&s->base_g, b, &first, 1, &s->base_store, NULL, 0, err)) return -1;
    const struct eventset *pe = &p->parts[0]->events, *be = &b->parts[0]->events;
    s->base_ev = xmalloc((pe->n ? pe->n : 1) * sizeof(*s->base_ev));
    for (size_t e = 0; e < pe->n; e++) {
        s->base_ev[e] = SIZE_MAX;
        for (size_t k = 0; k < be->n; k++)
            if (!strcmp(pe->names[e], be->names[k])) s->base_ev[e] = k;
    }
    size_t nb = s->base_g.nnodes, nf = profile_nfunctions(p), nbf = profile_nfunctions(b);
    s->base_map = xmalloc((nbf ? nbf : 1) * sizeof(*s->base_map));
    memset(s->base_map, 0xff, (nbf ? nbf : 1) * sizeof(*s->base_map));
    for (size_t v = 0; v < nb; v++) {
        struct function f = profile_function_at(b, s->base_g.fn[v]);
        const char *o = profile_str(b, f.obj), *fl = profile_str(b, f.file),
                   *nm = profile_str(b, f.name);
        uint32_t id =
            profile_function(p, profile_intern(p, o, strlen(o)), profile_intern(p, fl, strlen(fl)),
                             profile_intern(p, nm, strlen(nm)));
        s->base_map[s->base_g.fn[v]] = id;
        if (id < nf) continue; /* the profile has it */
        s->extra = xrealloc(s->extra, (s->nextra + 1) * sizeof(*s->extra));
        s->extra[s->nextra++] = id;
    }
    s->base_stacks = xcalloc(s->base_g.ncols ? s->base_g.ncols : 1, sizeof(*s->base_stacks));
    s->base_stacks_built = xcalloc(s->base_g.ncols ? s->base_g.ncols : 1, 1);
    return 0;
}

tally_wide view_base_self(const struct view_session *s, uint32_t b, size_t e)
{
    size_t k = s->base_ev ? s->base_ev[e] : SIZE_MAX;
    return b == VIEW_NO_NODE || k == SIZE_MAX ? 0 : vgraph_self(&s->base_g, b, k);
}

tally_wide view_base_incl(const struct view_session *s, uint32_t b, size_t e)
{
    size_t k = s->base_ev ? s->base_ev[e] : SIZE_MAX;
    return b == VIEW_NO_NODE || k == SIZE_MAX ? 0 : vgraph_incl(&s->base_g, b, k);
}

/*
 * The stack tree of event ev (an index of g's events) of the parts of g:
 * exact from the calling-context tree when g is part 0 of a profile that
 * has one; else estimated from g itself (stack_options.graph): the self
 * costs of its nodes and the calls and costs of its arcs in that event.
 */
static int build_stacks(const struct profile *p, const struct vgraph *g, size_t first_part,
                        size_t ev, struct stack_tree *t, struct tally_error *err)
{
    struct stack_options so = {.prune = VIEW_FLAME_PRUNE};
    if (p->cct && g->nparts == 1 && first_part == 0) {
        so.parts = &first_part;
        so.nparts = 1;
        so.event = (int)ev;
        return stacks_build(t, p, &so, err);
    }
    size_t nf = profile_nfunctions(p);
    uint64_t *self = xcalloc(nf ? nf : 1, sizeof(*self));
    for (size_t v = 0; v < g->nnodes; v++)
        self[g->fn[v]] = g->self[v * g->ncols + ev];
    uint32_t *from = xmalloc((g->narcs ? g->narcs : 1) * sizeof(*from));
    uint32_t *to = xmalloc((g->narcs ? g->narcs : 1) * sizeof(*to));
    uint64_t *cost = xmalloc((g->narcs ? g->narcs : 1) * sizeof(*cost));
    for (size_t a = 0; a < g->narcs; a++) {
        from[a] = g->fn[g->from[a]];
        to[a] = g->fn[g->to[a]];
    }
    int rc = vgraph_event_arc_costs(g, ev, cost, err);
    struct stacks_graph sg = {.event = g->parts[0]->events.names[ev],
                              .self = self,
                              .narcs = g->narcs,
                              .from = from,
                              .to = to,
                              .count = g->count,
                              .cost = cost,
                              .unique = 1};
    so.graph = &sg;
    if (!rc) rc = stacks_build(t, p, &so, err);
    free(self);
    free(from);
    free(to);
    free(cost);
    xtrim(); /* what the estimate took goes back now */
    return rc;
}

const struct stack_tree *view_base_stacks(struct view_session *s, size_t ev)
{
    size_t k = s->base_ev ? s->base_ev[ev] : SIZE_MAX;
    if (k == SIZE_MAX) return NULL;
    if (!s->base_stacks_built[k]) {
        struct tally_error err;
        s->base_stacks_built[k] =
            build_stacks(s->cfg.base, &s->base_g, 0, k, &s->base_stacks[k], &err) ? -1 : 1;
    }
    return s->base_stacks_built[k] == 1 ? &s->base_stacks[k] : NULL;
}

struct view_session *view_session_new(struct profile *p, const struct view_config *cfg,
                                      struct tally_error *err)
{
    if (p->nparts == 0) {
        tally_error_set(err, p->path, 0, "the profile holds no data");
        profile_free(p);
        if (cfg->complexity) complexity_release(cfg->complexity);
        free(cfg->complexity);
        if (cfg->isprof) isprof_release(cfg->isprof);
        free(cfg->isprof);
        profile_free(cfg->base);
        return NULL;
    }
    struct view_session *s = xcalloc(1, sizeof(*s));
    s->p = p;
    s->nparts = p->nparts;
    s->cfg.title = cfg->title ? xstrdup(cfg->title) : NULL;
    s->cfg.editor = cfg->editor ? xstrdup(cfg->editor) : NULL;
    s->cfg.dot_timeout_ms = cfg->dot_timeout_ms ? cfg->dot_timeout_ms : 10000;
    strlist_append(&s->cfg.inputs, &cfg->inputs);
    strlist_append(&s->cfg.include, &cfg->include);
    s->cfg.isprof = cfg->isprof;
    s->cfg.complexity = cfg->complexity;
    s->cfg.base = cfg->base;
    strlist_append(&s->cfg.base_inputs, &cfg->base_inputs);
    s->stores = xcalloc(s->nparts, sizeof(*s->stores));
    for (size_t i = 0; cfg->packed && i < cfg->packed->n && i < s->nparts; i++) {
        s->stores[i] = cfg->packed->st[i];
        memset(&cfg->packed->st[i], 0, sizeof(cfg->packed->st[i]));
    }
    if (pack_parts(p, s->stores, err) || (s->cfg.base && base_setup(s, err))) {
        view_session_free(s);
        return NULL;
    }
    /* every part, or when they count different events (and cannot be
       added up), the first */
    struct tally_error first = {0};
    if (!view_select(s, NULL, &first)) {
        s->first_only = 1;
        if (s->nparts == 1 || !view_select(s, "0", err)) {
            if (s->nparts == 1) *err = first;
            view_session_free(s);
            return NULL;
        }
    }
    return s;
}

void view_session_free(struct view_session *s)
{
    if (!s) return;
    for (int i = 0; i < VIEW_SELECTIONS; i++)
        sel_release(&s->sels[i]);
    if (s->base_stacks)
        for (size_t e = 0; e < s->base_g.ncols; e++)
            if (s->base_stacks_built[e] == 1) stacks_release(&s->base_stacks[e]);
    free(s->base_stacks);
    free(s->base_stacks_built);
    vgraph_release(&s->base_g);
    free(s->base_ev);
    free(s->base_map);
    free(s->extra);
    for (size_t i = 0; s->stores && i < s->nparts; i++)
        vstore_release(&s->stores[i]);
    free(s->stores);
    vstore_release(&s->base_store);
    profile_free(s->cfg.base);
    strlist_release(&s->cfg.base_inputs);
    if (s->cfg.complexity) complexity_release(s->cfg.complexity);
    free(s->cfg.complexity);
    if (s->cfg.isprof) isprof_release(s->cfg.isprof);
    free(s->cfg.isprof);
    free((char *)s->cfg.title);
    free((char *)s->cfg.editor);
    strlist_release(&s->cfg.inputs);
    strlist_release(&s->cfg.include);
    profile_free(s->p);
    free(s);
}

uint32_t view_node(const struct view_sel *s, uint64_t id)
{
    return id < s->g.nfn ? s->g.node_of[id] : VIEW_NO_NODE;
}

/* ---- sorted tables -------------------------------------------------------- */

struct sort_ctx {
    const struct view_sel *s;
    size_t ev;
    int sort, desc;
};

static int cmp_wide(tally_wide a, tally_wide b)
{
    return a < b ? -1 : a > b;
}

static const char *node_str(const struct view_sel *s, uint32_t v, int what)
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
    case 6:
        r = cmp_wide(
            vgraph_incl(g, x, c->ev) -
                view_base_incl(c->s->ses, c->s->base_of ? c->s->base_of[x] : VIEW_NO_NODE, c->ev),
            vgraph_incl(g, y, c->ev) -
                view_base_incl(c->s->ses, c->s->base_of ? c->s->base_of[y] : VIEW_NO_NODE, c->ev));
        break;
    default:
        r = strcmp(node_str(c->s, x, c->sort), node_str(c->s, y, c->sort));
        break;
    }
    if (c->desc) r = -r;
    if (!r) r = strcmp(node_str(c->s, x, 3), node_str(c->s, y, 3));
    return r ? r : x < y ? -1 : x > y;
}

static int filter_rows(const struct view_sel *s, const char *q, struct view_order *o,
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
    char msg[256];
    size_t eo;
    pcre2_code *re = regex_compile(q, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, msg, sizeof(msg), &eo);
    if (!re) return tally_error_set(err, NULL, 0, "bad regex: %s (at offset %zu)", msg, eo);
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

const struct view_order *view_order_get(struct view_sel *s, size_t ev, int sort, int desc,
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
        o->used = ++s->ses->clock;
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
    o->used = ++s->ses->clock;
    return o;
}

const struct stack_tree *view_stacks(struct view_sel *s, size_t ev, struct tally_error *err)
{
    if (ev >= s->g.ncols) {
        tally_error_set(err, NULL, 0, "no such event");
        return NULL;
    }
    if (s->stacks_built[ev] == 0) {
        s->stacks_built[ev] =
            build_stacks(s->ses->p, &s->g, s->parts[0], ev, &s->stacks[ev], err) ? -1 : 1;
        if (s->stacks_built[ev] == -1) return NULL;
    }
    if (s->stacks_built[ev] == -1) {
        tally_error_set(err, NULL, 0, "the stacks of this profile cannot be built");
        return NULL;
    }
    return &s->stacks[ev];
}

const struct view_blob *view_blob_get(struct view_sel *s, const char *key)
{
    for (int i = 0; i < VIEW_BLOB_CACHE; i++)
        if (s->blobs[i].key && !strcmp(s->blobs[i].key, key)) {
            s->blobs[i].used = ++s->ses->clock;
            return &s->blobs[i];
        }
    return NULL;
}

void view_blob_put(struct view_sel *s, const char *key, const char *body, size_t len, int status)
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
    b->used = ++s->ses->clock;
}
