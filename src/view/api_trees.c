/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_trees.c - `api/flame` and `api/sandwich`: stack trees as nested JSON
 * arrays, each node with the base's cost of the same stack when there is
 * a base (api.h, docs/internals/view.md).
 */
#include "api_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../io/jsonstr.h"

/* A merged tree: the sum of several subtrees of the stack tree. */
struct mtree {
    size_t n, cap;
    struct mnode {
        uint32_t fn;
        uint32_t first_child, next_sibling;
        uint64_t total, self;
        uint64_t base; /* the base's cost of the same stack */
    } * v;
    /* the profile's function of each function of the tree read (the
       base's trees), or NULL: the same */
    const uint32_t *map;
};

static uint32_t mapped(const struct mtree *m, uint32_t fn)
{
    return m->map && fn != STACK_NO_FN ? m->map[fn] : fn;
}

static uint32_t mt_add(struct mtree *m, uint32_t parent, uint32_t fn)
{
    if (parent != UINT32_MAX)
        for (uint32_t c = m->v[parent].first_child; c; c = m->v[c].next_sibling)
            if (m->v[c].fn == fn) return c;
    m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
    uint32_t i = (uint32_t)m->n++;
    m->v[i] = (struct mnode){fn, 0, 0, 0, 0, 0};
    if (parent != UINT32_MAX) {
        m->v[i].next_sibling = m->v[parent].first_child;
        m->v[parent].first_child = i;
    }
    return i;
}

/* Add the subtree of stack node i under merged node d (d has i's function). */
static void mt_merge(struct mtree *m, uint32_t d, const struct stack_tree *t, uint32_t i)
{
    /* an explicit stack: exact trees can be deep */
    struct pair {
        uint32_t d, i;
    } *st = NULL;
    size_t n = 0, cap = 0;
    st = xgrow(st, &cap, 1, sizeof(*st));
    st[n++] = (struct pair){d, i};
    while (n) {
        struct pair p = st[--n];
        m->v[p.d].total += stack_total(t, p.i)[0];
        m->v[p.d].self += stack_self(t, p.i)[0];
        for (uint32_t c = t->nodes[p.i].first_child; c; c = t->nodes[c].next_sibling) {
            uint32_t dc = mt_add(m, p.d, mapped(m, t->nodes[c].fn));
            st = xgrow(st, &cap, n + 1, sizeof(*st));
            st[n++] = (struct pair){dc, c};
        }
    }
    free(st);
}

/* Is stack node i the outermost frame of its function on its stack? */
static int outermost(const struct stack_tree *t, uint32_t i)
{
    uint32_t fn = t->nodes[i].fn;
    for (uint32_t a = t->nodes[i].parent; a; a = t->nodes[a].parent)
        if (t->nodes[a].fn == fn) return 0;
    return 1;
}

/* The tree of the stack tree as it is (root = node 0). */
static void mt_from_stacks(struct mtree *m, const struct stack_tree *t)
{
    uint32_t root = mt_add(m, UINT32_MAX, STACK_NO_FN);
    mt_merge(m, root, t, 0);
}

/* Below fn (a function of t's profile): its outermost frames merged
 * (callees), or above it: the stacks that lead to them, inverted
 * (callers). */
static void mt_around(struct mtree *m, const struct stack_tree *t, uint32_t fn, int callers)
{
    uint32_t root = mt_add(m, UINT32_MAX, mapped(m, fn));
    for (uint32_t i = 1; i < t->n; i++) {
        if (t->nodes[i].fn != fn || !outermost(t, i)) continue;
        if (!callers) {
            mt_merge(m, root, t, i);
            continue;
        }
        uint64_t c = stack_total(t, i)[0];
        m->v[root].total += c;
        uint32_t d = root;
        for (uint32_t a = t->nodes[i].parent; a; a = t->nodes[a].parent) {
            d = mt_add(m, d, mapped(m, t->nodes[a].fn));
            m->v[d].total += c;
            if (!t->nodes[a].parent) m->v[d].self += c; /* the stack's first frame */
        }
        if (d == root) m->v[root].self += c;
    }
}

struct names_map {
    int32_t *k; /* [nfn] local index + 1, 0 = none yet */
    uint32_t *ids;
    size_t n, cap;
};

/* Each node of m gets the total of the node of b on the same path. */
static void mt_attach_base(struct mtree *m, const struct mtree *b)
{
    if (!m->n || !b->n || m->v[0].fn != b->v[0].fn) return;
    struct pair {
        uint32_t i, j;
    } *st = NULL;
    size_t n = 0, cap = 0;
    st = xgrow(st, &cap, 1, sizeof(*st));
    st[n++] = (struct pair){0, 0};
    while (n) {
        struct pair p = st[--n];
        m->v[p.i].base = b->v[p.j].total;
        for (uint32_t c = m->v[p.i].first_child; c; c = m->v[c].next_sibling)
            for (uint32_t d = b->v[p.j].first_child; d; d = b->v[d].next_sibling)
                if (b->v[d].fn == m->v[c].fn) {
                    st = xgrow(st, &cap, n + 1, sizeof(*st));
                    st[n++] = (struct pair){c, d};
                    break;
                }
    }
    free(st);
}

static int32_t local_name(struct names_map *nm, uint32_t fn)
{
    if (fn == STACK_NO_FN) return -1;
    if (!nm->k[fn]) {
        nm->ids = xgrow(nm->ids, &nm->cap, nm->n + 1, sizeof(*nm->ids));
        nm->ids[nm->n++] = fn;
        nm->k[fn] = (int32_t)nm->n;
    }
    return nm->k[fn] - 1;
}

static void put_tree(FILE *fp, const struct mtree *m, struct names_map *nm, int with_base)
{
    /* depth first with an explicit stack; a node is written when popped,
       its closing brackets when all its children are done */
    struct frame {
        uint32_t i, child;
    } *st = NULL;
    size_t n = 0, cap = 0;
    st = xgrow(st, &cap, 1, sizeof(*st));
    st[n++] = (struct frame){0, UINT32_MAX};
    while (n) {
        struct frame *f = &st[n - 1];
        const struct mnode *x = &m->v[f->i];
        if (f->child == UINT32_MAX) {
            fprintf(fp, "[%" PRId32 ",%" PRIu64 ",%" PRIu64 ",[", local_name(nm, x->fn), x->total,
                    x->self);
            f->child = x->first_child;
        } else {
            f->child = m->v[f->child].next_sibling;
            if (f->child) fputc(',', fp);
        }
        if (!f->child) {
            if (with_base)
                fprintf(fp, "],%" PRIu64 "]", x->base);
            else
                fputs("]]", fp);
            n--;
            continue;
        }
        uint32_t c = f->child;
        st = xgrow(st, &cap, n + 1, sizeof(*st));
        st[n++] = (struct frame){c, UINT32_MAX};
    }
    free(st);
}

static void put_names(FILE *fp, const struct view_sel *s, const struct names_map *nm)
{
    fputs("\"names\": [", fp);
    for (size_t i = 0; i < nm->n; i++) {
        if (i) fputc(',', fp);
        jsonstr_puts(fp, profile_str(s->p, profile_function_at(s->p, nm->ids[i]).name), 0);
    }
    fputs("], \"ids\": [", fp);
    for (size_t i = 0; i < nm->n; i++)
        fprintf(fp, i ? ",%" PRIu32 : "%" PRIu32, nm->ids[i]);
    /* the object of each name, as an index into "objects" (few: searched) */
    uint32_t *seen = NULL;
    size_t nobj = 0, cap = 0;
    fputs("], \"objs\": [", fp);
    for (size_t i = 0; i < nm->n; i++) {
        uint32_t o = profile_function_at(s->p, nm->ids[i]).obj;
        size_t k = 0;
        while (k < nobj && seen[k] != o)
            k++;
        if (k == nobj) {
            seen = xgrow(seen, &cap, nobj + 1, sizeof(*seen));
            seen[nobj++] = o;
        }
        fprintf(fp, i ? ",%zu" : "%zu", k);
    }
    fputs("], \"objects\": [", fp);
    for (size_t k = 0; k < nobj; k++) {
        if (k) fputc(',', fp);
        jsonstr_puts(fp, profile_str(s->p, seen[k]), 0);
    }
    fputs("]", fp);
    free(seen);
}

/* The stack tree of the event, or an answer saying why not. */
static const struct stack_tree *tree_arg(struct view_sel *s, const struct view_args *a, size_t *ev,
                                         struct view_reply *r)
{
    if (api_event_arg(s, a, ev, r)) return NULL;
    struct tally_error err = {0};
    const struct stack_tree *t = view_stacks(s, *ev, &err);
    if (!t) api_error(r, 422, "no flame graph: %s", err.msg);
    return t;
}

static void answer_trees(struct view_sel *s, const struct view_args *a, struct view_reply *r,
                         int sandwich)
{
    size_t ev;
    uint32_t v = VIEW_NO_NODE;
    if ((sandwich || view_arg(a, "id")) && (v = api_node_arg(s, a, r)) == VIEW_NO_NODE) return;
    const struct stack_tree *t = tree_arg(s, a, &ev, r);
    if (!t) return;
    size_t nfn = profile_nfunctions(s->p);
    struct names_map nm = {xcalloc(nfn ? nfn : 1, sizeof(int32_t)), NULL, 0, 0};
    struct mtree m[2] = {{0}, {0}};
    int ntrees = sandwich ? 2 : 1;
    if (v == VIEW_NO_NODE) {
        mt_from_stacks(&m[0], t);
    } else {
        for (int i = 0; i < ntrees; i++)
            mt_around(&m[i], t, s->g.fn[v], i);
    }
    /* the base's trees of the same questions, matched by path */
    const struct stack_tree *bt = s->base_of ? view_base_stacks(s->ses, ev) : NULL;
    uint32_t bv = v == VIEW_NO_NODE ? VIEW_NO_NODE : bt ? s->base_of[v] : VIEW_NO_NODE;
    for (int i = 0; bt && i < ntrees; i++) {
        struct mtree b = {.map = s->ses->base_map};
        if (v == VIEW_NO_NODE)
            mt_from_stacks(&b, bt);
        else if (bv != VIEW_NO_NODE)
            mt_around(&b, bt, s->ses->base_g.fn[bv], i);
        mt_attach_base(&m[i], &b);
        free(b.v);
    }
    struct api_out o;
    api_open(&o);
    fprintf(o.fp, "{\"kind\": \"%s\", \"total\": %" PRIu64 ", ",
            t->kind == STACKS_EXACT ? "exact" : "estimated", stack_total(t, 0)[0]);
    if (bt) fprintf(o.fp, "\"base_total\": %" PRIu64 ", ", stack_total(bt, 0)[0]);
    /* the trees first, so that the names they use are known */
    char *trees = NULL;
    size_t tlen = 0;
    FILE *tf = open_memstream(&trees, &tlen);
    if (!tf) xalloc_failed(0);
    for (int i = 0; i < ntrees; i++) {
        fputs(!sandwich ? "\"tree\": " : i ? ", \"callers\": " : "\"callees\": ", tf);
        put_tree(tf, &m[i], &nm, bt != NULL);
    }
    if (fclose(tf)) xalloc_failed(tlen);
    put_names(o.fp, s, &nm);
    fputs(", ", o.fp);
    fwrite(trees, 1, tlen, o.fp);
    fputs("}\n", o.fp);
    api_close(&o, r, 200);
    free(trees);
    free(m[0].v);
    free(m[1].v);
    free(nm.k);
    free(nm.ids);
}

void api_flame(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    answer_trees(s, a, r, 0);
}

void api_sandwich(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    answer_trees(s, a, r, 1);
}
