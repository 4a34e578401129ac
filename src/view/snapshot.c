/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.c - the API's answers for a page without a server
 * (snapshot.h).
 */
#include "snapshot.h"

#include <inttypes.h>
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
    jsonstr_puts(fp, key, JSONSTR_SCRIPT);
}

/* An answer of the API into the "answers" object (JSON as it is) or,
 * for SVG, into `svg` (as a string). Answers that fail are left out. */
struct shot {
    struct view_session *s;
    FILE *answers, *svg;
    int na, nsvg;
};

static void take(struct shot *h, const char *path, const char *const *kv, size_t n)
{
    struct view_reply r;
    if (ask(h->s, path, kv, n, &r)) {
        free(r.body);
        return;
    }
    int is_svg = !strncmp(r.type, "image/svg", 9);
    FILE *fp = is_svg ? h->svg : h->answers;
    fputs((is_svg ? h->nsvg++ : h->na++) ? ",\n" : "\n", fp);
    put_key(fp, path, kv, n);
    fputs(": ", fp);
    if (is_svg)
        jsonstr_write(fp, r.body, r.len, JSONSTR_SCRIPT);
    else
        fwrite(r.body, 1, r.len && r.body[r.len - 1] == '\n' ? r.len - 1 : r.len, fp);
    free(r.body);
}

char *view_snapshot(struct view_session *s, const struct view_snapshot_options *o,
                    struct tally_error *err)
{
    size_t nf = o->max_functions ? o->max_functions : 2000;
    size_t nsrc = o->max_source == SIZE_MAX ? 300 : o->max_source;
    size_t ngraph = o->no_graph ? 0 : o->max_graphs == SIZE_MAX ? 50 : o->max_graphs;
    size_t ntree = o->no_flame ? 0 : o->max_trees == SIZE_MAX ? 200 : o->max_trees;
    struct view_sel *sel = view_select(s, NULL, err);
    if (!sel) return NULL;
    const struct view_order *ord = view_order_get(sel, 0, 0, 1, NULL, err);
    if (!ord) return NULL;
    size_t n = ord->n < nf ? ord->n : nf;
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
        api_row(h.answers, sel, ord->nodes[i]);
    }
    fputs("]}", h.answers);
    char evs[32], id[32];
    for (size_t e = 0; e < sel->g.ncols && !o->no_flame; e++) {
        snprintf(evs, sizeof(evs), "%zu", e);
        const char *kv[] = {"ev", evs};
        take(&h, "flame", kv, 1);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(id, sizeof(id), "%" PRIu32, sel->g.fn[ord->nodes[i]]);
        const char *one[] = {"id", id};
        take(&h, "function", one, 1);
        if (i < nsrc) take(&h, "source", one, 1);
        if (s->cfg.complexity) take(&h, "complexity", one, 1);
        if (i < ngraph) {
            const char *kv[] = {"down", "2", "ev", "0", "id", id, "up", "2"};
            take(&h, "graph", kv, 4);
        }
        if (i < ntree) {
            const char *kv[] = {"ev", "0", "id", id};
            take(&h, "flame", kv, 2);
            take(&h, "sandwich", kv, 2);
        }
    }
    /* meta, with what the snapshot holds */
    struct view_reply r;
    ask(s, "meta", NULL, 0, &r);
    size_t ml = r.len;
    while (ml && (r.body[ml - 1] == '\n' || r.body[ml - 1] == '}'))
        ml--; /* reopen the object */
    fputs(h.na++ ? ",\n" : "\n", h.answers);
    fputs("\"meta\": ", h.answers);
    fwrite(r.body, 1, ml, h.answers);
    fprintf(h.answers,
            ", \"snapshot\": {\"functions\": %zu, \"all\": %zu, \"source\": %zu, \"graphs\": %zu, "
            "\"trees\": %zu}}",
            n, sel->g.nnodes, n < nsrc ? n : nsrc, n < ngraph ? n : ngraph, n < ntree ? n : ntree);
    free(r.body);
    if (fclose(h.answers) || fclose(h.svg)) xalloc_failed(alen + slen);
    /* the whole, with every '<' of the answers written \u003c (only strings hold one) */
    char *out = NULL;
    size_t olen = 0;
    FILE *fp = open_memstream(&out, &olen);
    if (!fp) xalloc_failed(0);
    char note[256];
    snprintf(note, sizeof(note),
             "this page holds %zu of the %zu functions, with the source of %zu and the call graph "
             "of %zu; tally view shows every one",
             n, sel->g.nnodes, n < nsrc ? n : nsrc, n < ngraph ? n : ngraph);
    fputs("{\"note\": ", fp);
    jsonstr_puts(fp, note, JSONSTR_SCRIPT);
    fputs(", \"answers\": {", fp);
    for (size_t i = 0; i < alen; i++)
        if (abuf[i] == '<')
            fputs("\\u003c", fp);
        else
            fputc(abuf[i], fp);
    fputs("}, \"svg\": {", fp);
    fwrite(sbuf, 1, slen, fp);
    fputs("}}", fp);
    free(abuf);
    free(sbuf);
    if (fclose(fp)) xalloc_failed(olen);
    return out;
}
