/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_graph.c - `api/graph`: the call graph around a function, laid out by
 * `dot`; with a base, coloured by the change (api.h, docs/internals/view.md).
 */
#include "api_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
    tally_wide *all = NULL;
    size_t all_cap = 0;
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
            all = xgrow(all, &all_cap, (k + 1) * g->ncols, sizeof(*all));
            if (!up) vgraph_out_costs(g, u, all); /* every callee's in one pass */
            for (size_t j = 0; j < k; j++) {
                if (up) vgraph_arc_costs(g, list[start[u] + j], all + j * g->ncols);
                arcs[j] = (struct arc_cost){list[start[u] + j], all[j * g->ncols + w->ev]};
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
 * become "<…>" and "(…)" (not a bracket that starts the name), and the
 * rest is cut at NAME_MAX_SHOWN bytes. */
static void short_name(struct bytebuf *b, const char *name)
{
    int depth = 0;
    size_t start = b->n;
    for (const char *c = name; *c; c++) {
        /* a name that is all brackets ("(below main)", "<signal 11>") stays whole */
        if ((*c == '<' || *c == '(') && c > name) {
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
    double m = share < 0 ? -share : share;
    bytebuf_printf(b, m >= 10 ? "%.1f%%" : m >= 0.1 ? "%.2f%%" : "%.3f%%", share);
}

/* A change of d percent: white for none, to red (more) or blue (less) at
   10% of the base's total and beyond. */
static void change_colours(double d, char fill[8], const char **font)
{
    static const unsigned char more[3] = {0xd6, 0x27, 0x28}, less[3] = {0x1f, 0x77, 0xb4};
    double t = sqrt((d < 0 ? -d : d) / 10.0);
    if (t > 1) t = 1;
    const unsigned char *to = d < 0 ? less : more;
    unsigned rgb[3];
    for (int k = 0; k < 3; k++)
        rgb[k] = (unsigned)lround(255 + (to[k] - 255) * t);
    snprintf(fill, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    *font = t > 0.65 ? "#ffffff" : "#000000";
}

static char *graph_dot(const struct view_sel *s, const struct around *w, uint32_t v, size_t *len)
{
    const struct vgraph *g = &s->g;
    size_t ev = w->ev;
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
        if (s->base_of) {
            /* coloured by the change of the inclusive cost, as a share of the base's total */
            const struct view_session *ses = s->ses;
            size_t be = ses->base_ev[ev];
            tally_wide was = view_base_incl(ses, s->base_of[x], ev);
            double d =
                be == SIZE_MAX ? 0 : vgraph_share(&ses->base_g, be, vgraph_incl(g, x, ev) - was);
            bytebuf_add(&b, "\n\xce\x94 ", 4);
            if (d >= 0) bytebuf_add(&b, "+", 1);
            put_share(&b, d);
            change_colours(d, fill, &font);
        } else {
            dot_share_colours(incl, 1.0, fill, &font, &weight);
        }
        fprintf(fp, "  n%" PRIu32 " [id=\"f%" PRIu32 "\"%s, label=", x, g->fn[x],
                x == v ? ", class=\"sel\"" : "");
        dot_quote_lines(fp, b.s ? b.s : "");
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
    tally_wide *out = NULL;
    size_t out_cap = 0;
    for (size_t i = 0; i < w->n; i++) {
        uint32_t x = w->nodes[i];
        size_t first = g->out_start[x];
        out = xgrow(out, &out_cap, (g->out_start[x + 1] - first + 1) * g->ncols, sizeof(*out));
        vgraph_out_costs(g, x, out); /* the costs of x's calls, in one pass */
        for (size_t k = first; k < g->out_start[x + 1]; k++) {
            uint32_t a = g->out_arcs[k], y = g->to[a];
            if (!w->in[y]) continue;
            int rec = vgraph_arc_recursive(g, a);
            b.n = 0;
            if (!rec) {
                put_share(&b, vgraph_share(g, ev, out[(k - first) * g->ncols + ev]));
                bytebuf_add(&b, "\n", 1);
            }
            bytebuf_printf(&b, "%" PRIu64 "\xc3\x97", g->count[a]);
            fprintf(fp, "  n%" PRIu32 " -> n%" PRIu32 " [label=", x, y);
            dot_quote_lines(fp, b.s);
            fprintf(fp, "%s];\n", rec ? ", style=dashed" : "");
        }
    }
    fputs("}\n", fp);
    free(b.s);
    free(out);
    if (fclose(fp)) xalloc_failed(*len);
    return text;
}

/* Lay the DOT text out as SVG into r. */
static void run_dot(const struct view_sel *s, const char *text, size_t len, struct view_reply *r)
{
    int fd = memfd_create("tally-view-graph", MFD_CLOEXEC);
    if (fd < 0) {
        api_error(r, 500, "cannot make a memory file: %s", strerror(errno));
        return;
    }
    struct tally_error err = {0};
    if (dot_run_limited(text, len, "svg", fd, s->ses->cfg.dot_timeout_ms, &err)) {
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

void api_graph(struct view_sel *s, const struct view_args *a, struct view_reply *r)
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
