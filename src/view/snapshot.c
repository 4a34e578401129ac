/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.c - the API's answers for a page without a server
 * (snapshot.h).
 */
#include "snapshot.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/jsonstr.h"
#include "api.h"
#include "api_impl.h"

/* Ask the API, as the page would (arguments given in name order). */
static int ask(struct view_session *s, const char *path, const char *const *kv, size_t n,
               struct view_reply *r)
{
    struct view_args a = {0};
    for (size_t i = 0; i < n && i < VIEW_MAX_ARGS; i++) {
        a.key[a.n] = kv[2 * i];
        a.val[a.n++] = kv[2 * i + 1];
    }
    char full[64];
    snprintf(full, sizeof(full), "/api/%s", path);
    view_answer(s, full, &a, r);
    return r->status == 200 ? 0 : -1;
}

/* The key of a question: path, "?" and the arguments joined by "&". */
static void put_key(FILE *fp, const char *path, const char *const *kv, size_t n)
{
    char key[256];
    size_t k = (size_t)snprintf(key, sizeof(key), "%s", path);
    for (size_t i = 0; i < n && k < sizeof(key); i++)
        k += (size_t)snprintf(key + k, sizeof(key) - k, "%s%s=%s", i ? "&" : "?", kv[2 * i],
                              kv[2 * i + 1]);
    jsonstr_puts(fp, key, 0);
}

/* An answer of the API into the "answers" object (JSON as it is) or,
 * for SVG, into `svg` (as a string). Answers that fail are left out. */
struct shot {
    struct view_session *s;
    FILE *answers, *svg;
    int na, nsvg;
};

static int take(struct shot *h, const char *path, const char *const *kv, size_t n)
{
    struct view_reply r;
    if (ask(h->s, path, kv, n, &r)) {
        free(r.body);
        return 0;
    }
    int is_svg = !strncmp(r.type, "image/svg", 9);
    FILE *fp = is_svg ? h->svg : h->answers;
    fputs((is_svg ? h->nsvg++ : h->na++) ? ",\n" : "\n", fp);
    put_key(fp, path, kv, n);
    fputs(": ", fp);
    if (is_svg)
        jsonstr_write(fp, r.body, r.len, 0);
    else
        fwrite(r.body, 1, r.len && r.body[r.len - 1] == '\n' ? r.len - 1 : r.len, fp);
    free(r.body);
    return 1;
}

/* A node and its largest inclusive share over every event. */
struct ranked {
    double share;
    uint32_t node;
};

static int by_share(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->share != y->share) return x->share > y->share ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The nodes of the selection, the largest inclusive share first (malloc'd). */
static uint32_t *rank_nodes(const struct view_sel *sel)
{
    const struct vgraph *g = &sel->g;
    struct ranked *r = xcalloc(g->nnodes ? g->nnodes : 1, sizeof(*r));
    for (size_t v = 0; v < g->nnodes; v++) {
        double best = 0;
        for (size_t e = 0; e < g->ncols; e++) {
            double sh = fabs(vgraph_share(g, e, vgraph_incl(g, v, e)));
            if (sel->base_of && sel->base_of[v] != VIEW_NO_NODE) {
                double b = fabs(vgraph_share(g, e, view_base_incl(sel->ses, sel->base_of[v], e)));
                if (b > sh) sh = b;
            }
            if (sh > best) best = sh;
        }
        r[v] = (struct ranked){best, (uint32_t)v};
    }
    qsort(r, g->nnodes, sizeof(*r), by_share);
    uint32_t *out = (uint32_t *)r; /* packed in place: each node read before its slot is written */
    for (size_t i = 0; i < g->nnodes; i++)
        out[i] = r[i].node;
    return out;
}

char *view_snapshot(struct view_session *s, const struct view_snapshot_options *o,
                    struct tally_error *err)
{
    size_t nf = o->max_functions, nsrc = o->max_source;
    size_t ngraph = o->no_graph ? 0 : o->max_graphs, ntree = o->no_flame ? 0 : o->max_trees;
    struct view_sel *sel = view_select(s, NULL, err);
    if (!sel) return NULL;
    if (o->ev >= sel->g.ncols) {
        tally_error_set(err, NULL, 0, "the profile has no event %zu", o->ev);
        return NULL;
    }
    uint32_t *nodes = rank_nodes(sel);
    size_t n = sel->g.nnodes < nf ? sel->g.nnodes : nf;
    char *abuf = NULL, *sbuf = NULL;
    size_t alen = 0, slen = 0;
    struct shot h = {s, open_memstream(&abuf, &alen), open_memstream(&sbuf, &slen), 0, 0};
    if (!h.answers || !h.svg) xalloc_failed(0);
    /* the function table: the rows shipped, all of them */
    fputs(h.na++ ? ",\n" : "\n", h.answers);
    fprintf(h.answers, "\"functions\": {\"total\": %zu, \"all\": %zu, \"offset\": 0, \"rows\": [",
            n, sel->g.nnodes);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(",\n", h.answers);
        api_row(h.answers, sel, nodes[i]);
    }
    fputs("]}", h.answers);
    char evs[32], id[32];
    size_t got_src = 0, got_graph = 0, got_tree = 0; /* answers shipped */
    snprintf(evs, sizeof(evs), "%zu", o->ev);
    for (size_t e = 0; e < sel->g.ncols && ntree; e++) {
        char one[32];
        snprintf(one, sizeof(one), "%zu", e);
        const char *kv[] = {"ev", one};
        take(&h, "flame", kv, 1);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(id, sizeof(id), "%" PRIu32, sel->g.fn[nodes[i]]);
        const char *one[] = {"id", id};
        take(&h, "function", one, 1);
        if (i < nsrc) got_src += take(&h, "source", one, 1);
        if (s->cfg.complexity) take(&h, "complexity", one, 1);
        if (i < ngraph) {
            const char *kv[] = {"down", "2", "ev", evs, "id", id, "up", "2"};
            got_graph += take(&h, "graph", kv, 4);
        }
        if (i < ntree) {
            const char *kv[] = {"ev", evs, "id", id};
            got_tree += take(&h, "flame", kv, 2) & take(&h, "sandwich", kv, 2);
        }
    }
    free(nodes);
    /* meta, with what the snapshot holds */
    struct view_reply r;
    ask(s, "meta", NULL, 0, &r);
    size_t ml = r.len;
    while (ml && (r.body[ml - 1] == '\n' || r.body[ml - 1] == '}'))
        ml--; /* reopen the object */
    fputs(h.na++ ? ",\n" : "\n", h.answers);
    fputs("\"meta\": ", h.answers);
    fwrite(r.body, 1, ml, h.answers);
    /* the default selection: every part, or part 0 when they count different events */
    char parts[128];
    if (s->nparts <= 1)
        snprintf(parts, sizeof(parts), "the whole profile");
    else if (sel->nparts == s->nparts)
        snprintf(parts, sizeof(parts), "the sum of its %zu parts", s->nparts);
    else
        snprintf(parts, sizeof(parts), "part %zu of %zu (the parts count different events)",
                 sel->parts[0], s->nparts);
    fprintf(h.answers,
            ", \"snapshot\": {\"functions\": %zu, \"all\": %zu, \"source\": %zu, \"graphs\": %zu, "
            "\"trees\": %zu, \"ev\": %zu, \"parts\": ",
            n, sel->g.nnodes, got_src, got_graph, got_tree, o->ev);
    jsonstr_puts(h.answers, parts, 0);
    fputs("}}", h.answers);
    free(r.body);
    if (fclose(h.answers) || fclose(h.svg)) xalloc_failed(alen + slen);
    /* the whole */
    char *out = NULL;
    size_t olen = 0;
    FILE *fp = open_memstream(&out, &olen);
    if (!fp) xalloc_failed(0);
    char *note = NULL;
    size_t nlen = 0;
    FILE *np = open_memstream(&note, &nlen);
    if (!np) xalloc_failed(0);
    fprintf(np, "this page holds %zu of the %zu functions", n, sel->g.nnodes);
    fprintf(np, ", the source of %zu", got_src);
    if (!o->no_graph) fprintf(np, ", the call graph of %zu", got_graph);
    if (ntree) fprintf(np, ", the flame graph and sandwich of %zu", got_tree);
    fprintf(np, "; the pictures are of %s", s->p->parts[0]->events.names[o->ev]);
    if (o->graph_note) fprintf(np, "; %s", o->graph_note);
    if (o->flame_note) fprintf(np, "; %s", o->flame_note);
    fputs("; tally view shows everything", np);
    if (fclose(np)) xalloc_failed(nlen);
    fputs("{\"note\": ", fp);
    jsonstr_puts(fp, note, 0);
    free(note);
    fputs(", \"answers\": {", fp);
    fwrite(abuf, 1, alen, fp);
    fputs("}, \"svg\": {", fp);
    fwrite(sbuf, 1, slen, fp);
    fputs("}}", fp);
    free(abuf);
    free(sbuf);
    if (fclose(fp)) xalloc_failed(olen);
    return out;
}
