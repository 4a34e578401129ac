/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_pictures.c - the answers that are pictures: `api/graph` (the call
 * graph around a function, laid out by `dot`), `api/flame` and
 * `api/sandwich` (stack trees as nested JSON arrays). See api.h and
 * docs/internals/view.md.
 */
#include "api_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../io/bytebuf.h"
#include "../io/jsonstr.h"
#include "../report/dot.h"

#define GRAPH_MAX_NODES 48 /* boxes in the graph around a function */
#define GRAPH_FANOUT                                                                               \
    8 /* callers (callees) followed from the selected box; half as                                 \
         many from each box of the next level, at least 2 */
#define GRAPH_MAX_LEVELS 6
#define NAME_MAX_SHOWN 48

/* ---- the call graph around a function ---------------------------------------- */

struct around {
    const struct vgraph *g;
    size_t ev;
    char *in;        /* [nnodes] drawn */
    uint32_t *nodes; /* drawn nodes in the order found */
    size_t n;
};

/* An arc and the cost of its calls in the event drawn. */
struct arc_cost {
    uint32_t arc;
    tally_wide cost;
};

static int cmp_arc_cost(const void *a, const void *b)
{
    const struct arc_cost *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->arc < y->arc ? -1 : x->arc > y->arc;
}

/* Walk `levels` levels of callers (up) or callees from v, the costliest
 * arcs first, at most GRAPH_FANOUT from each node. */
static void walk(struct around *w, uint32_t v, unsigned levels, int up)
{
    const struct vgraph *g = w->g;
    tally_wide *all = xmalloc(g->ncols * sizeof(*all));
    uint32_t *front = xmalloc(GRAPH_MAX_NODES * sizeof(*front)),
             *next = xmalloc(GRAPH_MAX_NODES * sizeof(*next));
    size_t nf = 1, nn;
    front[0] = v;
    struct arc_cost *arcs = NULL;
    size_t cap = 0;
    for (unsigned l = 0; l < levels && nf; l++, nf = nn) {
        nn = 0;
        for (size_t i = 0; i < nf; i++) {
            uint32_t u = front[i];
            const size_t *start = up ? g->in_start : g->out_start;
            const uint32_t *list = up ? g->in_arcs : g->out_arcs;
            size_t k = start[u + 1] - start[u];
            arcs = xgrow(arcs, &cap, k + 1, sizeof(*arcs));
            for (size_t j = 0; j < k; j++) {
                vgraph_arc_costs(g, list[start[u] + j], all);
                arcs[j] = (struct arc_cost){list[start[u] + j], all[w->ev]};
            }
            qsort(arcs, k, sizeof(*arcs), cmp_arc_cost);
            size_t taken = 0, fanout = GRAPH_FANOUT >> l < 2 ? 2 : GRAPH_FANOUT >> l;
            for (size_t j = 0; j < k && taken < fanout && w->n < GRAPH_MAX_NODES; j++) {
                uint32_t x = up ? g->from[arcs[j].arc] : g->to[arcs[j].arc];
                if (w->in[x]) continue;
                w->in[x] = 1;
                w->nodes[w->n++] = x;
                next[nn++] = x;
                taken++;
            }
        }
        uint32_t *t = front;
        front = next;
        next = t;
    }
    free(arcs);
    free(all);
    free(front);
    free(next);
}

/* The name folded for a box: template arguments and parameter lists
 * become "<…>" and "(…)", and the rest is cut at NAME_MAX_SHOWN bytes. */
static void short_name(struct bytebuf *b, const char *name)
{
    int depth = 0;
    size_t start = b->n;
    for (const char *c = name; *c; c++) {
        if (*c == '<' || *c == '(') {
            if (depth++ == 0) bytebuf_add(b, *c == '<' ? "<\xe2\x80\xa6" : "(\xe2\x80\xa6", 4);
        } else if ((*c == '>' || *c == ')') && depth > 0) {
            if (--depth == 0) bytebuf_addc(b, *c);
        } else if (depth == 0) {
            bytebuf_addc(b, *c);
        }
    }
    if (b->n - start > NAME_MAX_SHOWN) {
        size_t cut = start + NAME_MAX_SHOWN;
        while (cut > start && ((unsigned char)b->s[cut] & 0xc0) == 0x80)
            cut--; /* not inside a UTF-8 sequence */
        b->n = cut;
        bytebuf_add(b, "\xe2\x80\xa6", 3);
    }
}

static void put_share(struct bytebuf *b, double share)
{
    bytebuf_printf(b, share >= 10 ? "%.1f%%" : share >= 0.1 ? "%.2f%%" : "%.3f%%", share);
}

static char *graph_dot(const struct view_session *s, const struct around *w, uint32_t v,
                       size_t *len)
{
    const struct vgraph *g = &s->g;
    size_t ev = w->ev;
    tally_wide *all = xmalloc(g->ncols * sizeof(*all));
    char *text = NULL;
    FILE *fp = open_memstream(&text, len);
    if (!fp) xalloc_failed(0);
    fputs("digraph around {\n  graph [fontname=\"Helvetica\", fontsize=10, nodesep=0.25, "
          "ranksep=0.35];\n  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", "
          "fontsize=10, margin=\"0.08,0.04\"];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
          fp);
    struct bytebuf b = {0};
    for (size_t i = 0; i < w->n; i++) {
        uint32_t x = w->nodes[i];
        struct function f = profile_function_at(s->p, g->fn[x]);
        const char *name = profile_str(s->p, f.name);
        double incl = vgraph_share(g, ev, vgraph_incl(g, x, ev));
        double self = vgraph_share(g, ev, vgraph_self(g, x, ev));
        b.n = 0;
        short_name(&b, name);
        bytebuf_add(&b, "\n", 1);
        if (g->est[x]) bytebuf_add(&b, "~", 1);
        put_share(&b, incl);
        bytebuf_add(&b, " (", 2);
        put_share(&b, self);
        bytebuf_printf(&b, ")\n%" PRIu64 "\xc3\x97", g->calls[x]);
        char fill[8];
        const char *font;
        double weight;
        dot_share_colours(incl, 1.0, fill, &font, &weight);
        fprintf(fp, "  n%" PRIu32 " [id=\"f%" PRIu32 "\"%s, label=", x, g->fn[x],
                x == v ? ", class=\"sel\"" : "");
        dot_quote(fp, b.s ? b.s : "");
        fputs(", tooltip=", fp);
        dot_quote(fp, name);
        fprintf(fp, ", fillcolor=\"%s\", fontcolor=\"%s\"%s];\n", fill, font,
                x == v ? ", penwidth=3, color=\"#d62728\"" : "");
    }
    /* the drawn members of each cycle framed together */
    for (size_t i = 0; i < w->n; i++) {
        uint32_t c = g->cycle[w->nodes[i]];
        int first = 1;
        for (size_t j = 0; j < i && c; j++)
            if (g->cycle[w->nodes[j]] == c) first = 0;
        if (!c || !first) continue;
        fprintf(fp,
                "  subgraph cluster_cycle%" PRIu32 " {\n    label=\"cycle %" PRIu32
                "\"; style=dashed; color=\"#777777\"; fontsize=9;\n",
                c, c);
        for (size_t j = i; j < w->n; j++)
            if (g->cycle[w->nodes[j]] == c) fprintf(fp, "    n%" PRIu32 ";\n", w->nodes[j]);
        fputs("  }\n", fp);
    }
    for (size_t i = 0; i < w->n; i++) {
        uint32_t x = w->nodes[i];
        for (size_t k = g->out_start[x]; k < g->out_start[x + 1]; k++) {
            uint32_t a = g->out_arcs[k], y = g->to[a];
            if (!w->in[y]) continue;
            int rec = vgraph_arc_recursive(g, a);
            b.n = 0;
            if (!rec) {
                vgraph_arc_costs(g, a, all);
                put_share(&b, vgraph_share(g, ev, all[ev]));
                bytebuf_add(&b, "\n", 1);
            }
            bytebuf_printf(&b, "%" PRIu64 "\xc3\x97", g->count[a]);
            fprintf(fp, "  n%" PRIu32 " -> n%" PRIu32 " [label=", x, y);
            dot_quote(fp, b.s);
            fprintf(fp, "%s];\n", rec ? ", style=dashed" : "");
        }
    }
    fputs("}\n", fp);
    free(b.s);
    free(all);
    if (fclose(fp)) xalloc_failed(*len);
    return text;
}

/* Lay the DOT text out as SVG into r. */
static void run_dot(const struct view_session *s, const char *text, size_t len,
                    struct view_reply *r)
{
    int fd = memfd_create("tally-view-graph", MFD_CLOEXEC);
    if (fd < 0) {
        api_error(r, 500, "cannot make a memory file: %s", strerror(errno));
        return;
    }
    struct tally_error err = {0};
    if (dot_run_limited(text, len, "svg", fd, s->cfg.dot_timeout_ms, &err)) {
        close(fd);
        api_error(r, 503, "%s", err.msg);
        return;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    char *svg = size > 0 ? xmalloc((size_t)size + 1) : NULL;
    if (!svg || pread(fd, svg, (size_t)size, 0) != size) {
        free(svg);
        close(fd);
        api_error(r, 500, "dot wrote no picture");
        return;
    }
    close(fd);
    svg[size] = 0;
    /* the <svg> element alone: the page puts it inside its own document */
    char *start = strstr(svg, "<svg");
    size_t skip = start ? (size_t)(start - svg) : 0;
    memmove(svg, svg + skip, (size_t)size - skip + 1);
    r->status = 200;
    r->type = "image/svg+xml";
    r->body = svg;
    r->len = (size_t)size - skip;
}

void api_graph(struct view_session *s, const struct view_args *a, struct view_reply *r)
{
    uint32_t v = api_node_arg(s, a, r);
    size_t ev;
    uint64_t up, down;
    if (v == VIEW_NO_NODE || api_event_arg(s, a, &ev, r) ||
        api_num(a, "up", 2, GRAPH_MAX_LEVELS, &up, r) ||
        api_num(a, "down", 2, GRAPH_MAX_LEVELS, &down, r))
        return;
    char key[128];
    snprintf(key, sizeof(key), "graph/%" PRIu32 "/%zu/%" PRIu64 "/%" PRIu64, v, ev, up, down);
    const struct view_blob *kept = view_blob_get(s, key);
    if (!kept) {
        struct around w = {&s->g, ev, xcalloc(s->g.nnodes, 1),
                           xmalloc(GRAPH_MAX_NODES * sizeof(uint32_t)), 0};
        w.in[v] = 1;
        w.nodes[w.n++] = v;
        walk(&w, v, (unsigned)up, 1);
        walk(&w, v, (unsigned)down, 0);
        size_t len;
        char *text = graph_dot(s, &w, v, &len);
        free(w.in);
        free(w.nodes);
        run_dot(s, text, len, r);
        free(text);
        if (r->status == 200) view_blob_put(s, key, r->body, r->len, r->status);
        return;
    }
    r->status = kept->status;
    r->type = "image/svg+xml";
    r->body = xmalloc(kept->len + 1);
    memcpy(r->body, kept->body, kept->len + 1);
    r->len = kept->len;
}

/* ---- stack trees ----------------------------------------------------------------- */

/* A merged tree: the sum of several subtrees of the stack tree. */
struct mtree {
    size_t n, cap;
    struct mnode {
        uint32_t fn;
        uint32_t first_child, next_sibling;
        uint64_t total, self;
    } * v;
};

static uint32_t mt_add(struct mtree *m, uint32_t parent, uint32_t fn)
{
    if (parent != UINT32_MAX)
        for (uint32_t c = m->v[parent].first_child; c; c = m->v[c].next_sibling)
            if (m->v[c].fn == fn) return c;
    m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
    uint32_t i = (uint32_t)m->n++;
    m->v[i] = (struct mnode){fn, 0, 0, 0, 0};
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
            uint32_t dc = mt_add(m, p.d, t->nodes[c].fn);
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

/* Below fn: its outermost frames merged (callees), or above it: the
 * stacks that lead to them, inverted (callers). */
static void mt_around(struct mtree *m, const struct stack_tree *t, uint32_t fn, int callers)
{
    uint32_t root = mt_add(m, UINT32_MAX, fn);
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
            d = mt_add(m, d, t->nodes[a].fn);
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

static void put_tree(FILE *fp, const struct mtree *m, struct names_map *nm)
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

static void put_names(FILE *fp, const struct view_session *s, const struct names_map *nm)
{
    fputs("\"names\": [", fp);
    for (size_t i = 0; i < nm->n; i++) {
        if (i) fputc(',', fp);
        jsonstr_puts(fp, profile_str(s->p, profile_function_at(s->p, nm->ids[i]).name), 0);
    }
    fputs("], \"ids\": [", fp);
    for (size_t i = 0; i < nm->n; i++)
        fprintf(fp, i ? ",%" PRIu32 : "%" PRIu32, nm->ids[i]);
    fputs("]", fp);
}

/* The stack tree of the event, or an answer saying why not. */
static const struct stack_tree *tree_arg(struct view_session *s, const struct view_args *a,
                                         size_t *ev, struct view_reply *r)
{
    if (api_event_arg(s, a, ev, r)) return NULL;
    struct tally_error err = {0};
    const struct stack_tree *t = view_stacks(s, *ev, &err);
    if (!t) api_error(r, 422, "no flame graph: %s", err.msg);
    return t;
}

static void answer_trees(struct view_session *s, const struct view_args *a, struct view_reply *r,
                         int sandwich)
{
    size_t ev;
    uint32_t v = VIEW_NO_NODE;
    if ((sandwich || view_arg(a, "id")) && (v = api_node_arg(s, a, r)) == VIEW_NO_NODE) return;
    const struct stack_tree *t = tree_arg(s, a, &ev, r);
    if (!t) return;
    struct names_map nm = {xcalloc(s->nfn ? s->nfn : 1, sizeof(int32_t)), NULL, 0, 0};
    struct mtree m[2] = {{0}, {0}};
    int ntrees = 1;
    if (v == VIEW_NO_NODE) {
        mt_from_stacks(&m[0], t);
    } else {
        mt_around(&m[0], t, s->g.fn[v], 0);
        if (sandwich) {
            mt_around(&m[1], t, s->g.fn[v], 1);
            ntrees = 2;
        }
    }
    struct api_out o;
    api_open(&o);
    fprintf(o.fp, "{\"kind\": \"%s\", \"total\": %" PRIu64 ", ",
            t->kind == STACKS_EXACT ? "exact" : "estimated", stack_total(t, 0)[0]);
    /* the trees first, so that the names they use are known */
    char *trees = NULL;
    size_t tlen = 0;
    FILE *tf = open_memstream(&trees, &tlen);
    if (!tf) xalloc_failed(0);
    for (int i = 0; i < ntrees; i++) {
        fputs(!sandwich ? "\"tree\": " : i ? ", \"callers\": " : "\"callees\": ", tf);
        put_tree(tf, &m[i], &nm);
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

void api_flame(struct view_session *s, const struct view_args *a, struct view_reply *r)
{
    answer_trees(s, a, r, 0);
}

void api_sandwich(struct view_session *s, const struct view_args *a, struct view_reply *r)
{
    answer_trees(s, a, r, 1);
}
