/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stacks.c - the stack tree: the tree itself, the choice of parts and
 * events, and the exact stacks copied from a calling-context tree; the
 * estimated ones are in stacks_estimated.c (see stacks.h and
 * docs/internals/stacks.md).
 */
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

#include "../model/cct.h"
#include "stacks_impl.h"

static const char method_exact[] = "exact: recorded calling contexts";

/* ---- the tree itself ---------------------------------------------------- */

uint32_t stacks_tree_add(struct stack_tree *t, uint32_t parent, uint32_t fn)
{
    if (t->n == t->cap) {
        size_t old = t->cap;
        t->cap = t->cap ? t->cap * 2 : 256;
        t->nodes = xrealloc(t->nodes, t->cap * sizeof(*t->nodes));
        size_t ne = t->nev ? t->nev : 1;
        t->self = xrealloc(t->self, t->cap * ne * sizeof(uint64_t));
        t->total = xrealloc(t->total, t->cap * ne * sizeof(uint64_t));
        memset(t->self + old * ne, 0, (t->cap - old) * ne * sizeof(uint64_t));
        memset(t->total + old * ne, 0, (t->cap - old) * ne * sizeof(uint64_t));
    }
    uint32_t i = (uint32_t)t->n++;
    struct stack_node *nd = &t->nodes[i];
    memset(nd, 0, sizeof(*nd));
    nd->fn = fn;
    nd->parent = parent;
    if (i) {
        struct stack_node *pa = &t->nodes[parent];
        nd->depth = pa->depth + 1;
        nd->next_sibling = pa->first_child;
        pa->first_child = i;
    }
    return i;
}

const char *stack_node_name(const struct stack_tree *t, uint32_t i)
{
    uint32_t fn = t->nodes[i].fn;
    if (fn == STACK_NO_FN) return "";
    return profile_str(t->p, profile_function_at(t->p, fn).name);
}

const char *stack_node_file(const struct stack_tree *t, uint32_t i)
{
    uint32_t fn = t->nodes[i].fn;
    if (fn == STACK_NO_FN) return "";
    const char *s = profile_str(t->p, profile_function_at(t->p, fn).file);
    return s ? s : "";
}

const char *stack_node_object(const struct stack_tree *t, uint32_t i)
{
    uint32_t fn = t->nodes[i].fn;
    if (fn == STACK_NO_FN) return "";
    const char *s = profile_str(t->p, profile_function_at(t->p, fn).obj);
    return s ? s : "";
}

uint32_t stack_find_child(const struct stack_tree *t, uint32_t i, const char *name)
{
    for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
        if (strcmp(stack_node_name(t, c), name) == 0) return c;
    return 0;
}

void stacks_release(struct stack_tree *t)
{
    free(t->nodes);
    free(t->self);
    free(t->total);
    free(t->ev_names);
    memset(t, 0, sizeof(*t));
}

size_t stacks_children(const struct stack_tree *t, uint32_t i, uint32_t **buf, size_t *cap)
{
    size_t k = 0;
    for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling) {
        *buf = xgrow(*buf, cap, k + 1, sizeof(**buf));
        (*buf)[k++] = c;
    }
    return k;
}

/* Children by name, file, object, then node order (qsort_r, ctx = tree). */
static int cmp_child(const void *a, const void *b, void *ctx)
{
    const struct stack_tree *t = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(stack_node_name(t, x), stack_node_name(t, y));
    if (!c) c = strcmp(stack_node_file(t, x), stack_node_file(t, y));
    if (!c) c = strcmp(stack_node_object(t, x), stack_node_object(t, y));
    return c ? c : (x < y ? -1 : x > y);
}

/* Relink every child list in name order. */
static void sort_children(struct stack_tree *t)
{
    uint32_t *buf = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = stacks_children(t, (uint32_t)i, &buf, &cap);
        if (k > 1) qsort_r(buf, k, sizeof(*buf), cmp_child, t);
        t->nodes[i].first_child = k ? buf[0] : 0;
        for (size_t j = 0; j < k; j++)
            t->nodes[buf[j]].next_sibling = j + 1 < k ? buf[j + 1] : 0;
    }
    free(buf);
}

/* ---- selection of parts and events --------------------------------------- */

static void sel_release(struct sel *s)
{
    for (size_t i = 0; i < s->nparts; i++)
        free(s->colmap[i]);
    free(s->colmap);
    free(s->parts);
}

static int select_parts(struct stack_tree *t, const struct profile *p,
                        const struct stack_options *opt, struct sel *s, struct tally_error *err)
{
    memset(s, 0, sizeof(*s));
    if (!p->nparts) return tally_error_set(err, p->path, 0, "the profile has no parts");
    if (!opt->nparts && opt->part >= 0 && (size_t)opt->part >= p->nparts)
        return tally_error_set(err, p->path, 0, "no part %d (the profile has %zu)", opt->part + 1,
                               p->nparts);
    for (size_t k = 0; k < opt->nparts; k++)
        if (opt->parts[k] >= p->nparts)
            return tally_error_set(err, p->path, 0, "no part %zu (the profile has %zu)",
                                   opt->parts[k] + 1, p->nparts);
    size_t first = opt->nparts ? opt->parts[0] : opt->part >= 0 ? (size_t)opt->part : 0;
    s->nparts = opt->nparts ? opt->nparts : opt->part >= 0 ? 1 : p->nparts;
    s->parts = xcalloc(s->nparts, sizeof(*s->parts));
    s->colmap = xcalloc(s->nparts, sizeof(*s->colmap));
    const struct eventset *es = &p->parts[first]->events;
    if (opt->event >= 0 && (size_t)opt->event >= es->n) {
        sel_release(s);
        return tally_error_set(err, p->path, 0, "no event number %d (the profile has %zu)",
                               opt->event + 1, es->n);
    }
    t->nev = opt->event >= 0 ? 1 : es->n;
    t->ev_names = xcalloc(t->nev ? t->nev : 1, sizeof(*t->ev_names));
    for (size_t c = 0; c < t->nev; c++)
        t->ev_names[c] = es->names[opt->event >= 0 ? (size_t)opt->event : c];
    for (size_t k = 0; k < s->nparts; k++) {
        size_t pk = opt->nparts ? opt->parts[k] : first + k;
        const struct part *pt = p->parts[pk];
        s->parts[k] = pt;
        s->colmap[k] = xcalloc(t->nev ? t->nev : 1, sizeof(size_t));
        for (size_t c = 0; c < t->nev; c++) {
            int ix = eventset_index(&pt->events, t->ev_names[c]);
            if (ix < 0 || pt->events.n != es->n) {
                sel_release(s);
                return tally_error_set(err, p->path, 0,
                                       "part %zu has other events than part %zu; choose one part",
                                       pk + 1, first + 1);
            }
            s->colmap[k][c] = (size_t)ix;
        }
    }
    return 0;
}

/* ---- exact: from the calling-context tree --------------------------------- */

static int build_exact(struct stack_tree *t, const struct stack_options *opt, struct sel *s,
                       unsigned maxdepth, size_t maxnodes, struct tally_error *err)
{
    const struct profile *p = t->p;
    const struct cct *c = p->cct;
    size_t ne = c->nevents;
    uint64_t *incl = xmalloc((c->n ? c->n : 1) * (ne ? ne : 1) * sizeof(uint64_t));
    if (cct_inclusive(c, incl, err)) {
        free(incl);
        return -1;
    }
    const size_t *map = s->colmap[0];
    double thr = opt->prune > 0 && t->nev ? opt->prune * (double)incl[map[0]] : -1.0;
    /* explicit stack of (cct node, tree node) */
    size_t cap = 0, top = 0;
    uint32_t(*stk)[2] = NULL;
    uint32_t root = stacks_tree_add(t, 0, STACK_NO_FN);
    for (size_t k = 0; k < t->nev; k++) {
        tself(t, root)[k] = cct_self(c, 0)[map[k]];
        ttotal(t, root)[k] = incl[map[k]];
    }
    stk = xgrow(stk, &cap, 1, sizeof(*stk));
    stk[top][0] = 0;
    stk[top++][1] = root;
    while (top) {
        top--;
        uint32_t ci = stk[top][0], ti = stk[top][1];
        if (t->nodes[ti].depth >= maxdepth) continue;
        for (uint32_t ch = c->nodes[ci].first_child; ch; ch = c->nodes[ch].next_sibling) {
            const uint64_t *iv = incl + (size_t)ch * ne;
            if (t->nev && (double)iv[map[0]] < thr) continue;
            if (t->n >= maxnodes) {
                t->truncated = 1;
                continue;
            }
            uint32_t ni = stacks_tree_add(t, ti, c->nodes[ch].fn);
            t->nodes[ni].calls = c->nodes[ch].calls;
            for (size_t k = 0; k < t->nev; k++) {
                tself(t, ni)[k] = cct_self(c, ch)[map[k]];
                ttotal(t, ni)[k] = iv[map[k]];
            }
            stk = xgrow(stk, &cap, top + 1, sizeof(*stk));
            stk[top][0] = ch;
            stk[top++][1] = ni;
        }
    }
    /* nodes cut by the depth limit keep their subtree in their total */
    free(stk);
    free(incl);
    return 0;
}

int stacks_build(struct stack_tree *t, const struct profile *p, const struct stack_options *opt,
                 struct tally_error *err)
{
    static const struct stack_options all = {.part = -1, .event = -1};
    if (!opt) opt = &all;
    memset(t, 0, sizeof(*t));
    t->p = p;
    if (p->signed_costs) {
        return tally_error_set(err, p->path, 0,
                               "a profile with signed costs (a diff) has no stacks; draw the two "
                               "profiles with --diff instead");
    }
    struct sel s;
    if (opt->graph) {
        memset(&s, 0, sizeof(s));
        t->nev = 1;
        t->ev_names = xcalloc(1, sizeof(*t->ev_names));
        t->ev_names[0] = opt->graph->event;
    } else if (select_parts(t, p, opt, &s, err)) {
        stacks_release(t);
        return -1;
    }
    unsigned maxdepth = opt->max_depth ? opt->max_depth : STACKS_DEFAULT_DEPTH;
    size_t maxnodes = opt->max_nodes ? opt->max_nodes : STACKS_DEFAULT_MAX_NODES;
    if (maxnodes > UINT32_MAX - 1) maxnodes = UINT32_MAX - 1;
    int exact = !opt->graph && p->cct && p->cct->nevents == p->parts[0]->events.n &&
                (opt->nparts ? opt->nparts == 1 && opt->parts[0] == 0
                             : opt->part == 0 || (opt->part < 0 && p->nparts == 1));
    int rc;
    if (exact) {
        t->kind = STACKS_EXACT;
        t->method = method_exact;
        rc = build_exact(t, opt, &s, maxdepth, maxnodes, err);
    } else {
        t->kind = STACKS_ESTIMATED;
        rc = stacks_build_estimated(t, opt, &s, maxdepth, maxnodes, err);
    }
    sel_release(&s);
    if (rc) {
        stacks_release(t);
        return -1;
    }
    sort_children(t);
    return 0;
}

int stacks_derive(struct stack_tree *t, const struct event_expr *e, const char *name,
                  struct tally_error *err)
{
    for (size_t k = 0; k < e->nterms; k++) {
        if (e->terms[k].event >= t->nev)
            return tally_error_set(err, NULL, 0, "event '%s': no such column in the stacks", name);
        if (e->terms[k].factor < 0)
            return tally_error_set(err, NULL, 0,
                                   "event '%s' has a negative factor: a flame graph or a stack "
                                   "needs costs that cannot be below 0",
                                   name);
    }
    uint64_t *self = xcalloc(t->n ? t->n : 1, sizeof(uint64_t));
    uint64_t *total = xcalloc(t->n ? t->n : 1, sizeof(uint64_t));
    for (size_t i = 0; i < t->n; i++) {
        tally_wide s, u;
        if (event_expr_eval(e, t->self + i * t->nev, 0, &s) ||
            event_expr_eval(e, t->total + i * t->nev, 0, &u) || s > (tally_wide)UINT64_MAX ||
            u > (tally_wide)UINT64_MAX) {
            free(self);
            free(total);
            return tally_error_set(err, NULL, 0, "event '%s': a stack's cost does not fit 64 bits",
                                   name);
        }
        self[i] = (uint64_t)s;
        total[i] = (uint64_t)u;
    }
    free(t->self);
    free(t->total);
    t->self = self;
    t->total = total;
    t->nev = 1;
    t->ev_names[0] = name;
    return 0;
}
