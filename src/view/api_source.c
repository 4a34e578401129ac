/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api_source.c - `api/source`: the source of one function with the cost of
 * each line, self and inclusive (the calls made on a line count for it),
 * and the calls listed under their line (api.h, docs/internals/view.md).
 */
#include "api_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../io/jsonstr.h"
#include "../report/srcfile.h"

#define SOURCE_SPAN 600 /* a span of lines up to this is sent whole */
#define SOURCE_AROUND 3 /* else lines of context around each costly line */
#define SOURCE_MAX_BYTES (64u << 20)

/* One entry of the function (vstore.h), placed at (file, line). */
struct ent {
    uint32_t file;
    uint64_t line;
    uint32_t callee;      /* graph node, or VIEW_NO_NODE for a cost entry */
    uint64_t count;       /* calls */
    const uint64_t *cost; /* ncols words, in the selection's event order */
    size_t seq;           /* the order it was read in */
};

struct src_ctx {
    struct view_sel *s;
    uint32_t v;
    uint32_t own_file;
};

static int cmp_ent(const void *a, const void *b, void *arg)
{
    const struct ent *x = a, *y = b;
    const struct src_ctx *c = arg;
    int xo = x->file != c->own_file, yo = y->file != c->own_file;
    if (xo != yo) return xo - yo;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->callee != y->callee) return x->callee < y->callee ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An entry's cost words as numbers. */
static void wide_of(const struct view_sel *s, const uint64_t *w, tally_wide *out)
{
    for (size_t e = 0; e < s->g.ncols; e++)
        out[e] = vgraph_val(&s->g, w[e]);
}

/* The sums of one line: self, inclusive, and its calls (merged per callee). */
struct line_sum {
    uint64_t line;
    tally_wide *self, *incl; /* [ncols] */
    int has_self;            /* a cost entry is on the line (else only calls) */
    size_t first, end;       /* its entries */
};

static void put_line(FILE *fp, struct view_sel *s, const struct ent *e, const struct line_sum *ls,
                     const struct srcfile_text *txt, uint64_t n)
{
    size_t nc = s->g.ncols;
    fprintf(fp, "{\"n\": %" PRIu64 ", \"text\": ", n);
    if (txt && n >= 1 && n <= txt->nlines) {
        size_t b = txt->line_off[n - 1], end = txt->line_off[n];
        while (end > b && (txt->text[end - 1] == '\n' || txt->text[end - 1] == '\r'))
            end--;
        jsonstr_write(fp, txt->text + b, end - b, 0);
    } else {
        fputs("null", fp);
    }
    fputs(", \"self\": ", fp);
    if (ls && ls->has_self)
        api_costs(fp, ls->self, nc);
    else
        fputs("null", fp);
    fputs(", \"incl\": ", fp);
    if (ls)
        api_costs(fp, ls->incl, nc);
    else
        fputs("null", fp);
    fputs(", \"calls\": [", fp);
    int first = 1;
    tally_wide *c = xcalloc(nc ? nc : 1, sizeof(*c)), *one = xcalloc(nc ? nc : 1, sizeof(*one));
    for (size_t i = ls ? ls->first : 0; ls && i < ls->end;) {
        if (e[i].callee == VIEW_NO_NODE) {
            i++;
            continue;
        }
        uint32_t w = e[i].callee;
        uint64_t count = 0;
        memset(c, 0, nc * sizeof(*c));
        for (; i < ls->end && e[i].callee == w; i++) {
            count += e[i].count;
            wide_of(s, e[i].cost, one);
            for (size_t k = 0; k < nc; k++)
                c[k] += one[k];
        }
        fputs(first ? "{" : ", {", fp);
        first = 0;
        api_names(fp, s, w);
        fprintf(fp, ", \"calls\": %" PRIu64 ", \"incl\": ", count);
        api_costs(fp, c, nc);
        fputc('}', fp);
    }
    free(c);
    free(one);
    fputs("]}", fp);
}

/* Sum the entries e[b..end) (one file) per line into ls; returns how many lines. */
static size_t sum_lines(struct view_sel *s, const struct ent *e, size_t b, size_t end,
                        struct line_sum *ls, tally_wide *pool)
{
    size_t nc = s->g.ncols, n = 0;
    tally_wide *one = xcalloc(nc ? nc : 1, sizeof(*one));
    for (size_t i = b; i < end;) {
        struct line_sum *l = &ls[n];
        l->line = e[i].line;
        l->self = pool + 2 * n * nc;
        l->incl = l->self + nc;
        l->has_self = 0;
        l->first = i;
        for (; i < end && e[i].line == l->line; i++) {
            wide_of(s, e[i].cost, one);
            tally_wide *into = e[i].callee == VIEW_NO_NODE ? l->self : l->incl;
            for (size_t k = 0; k < nc; k++)
                into[k] += one[k];
            if (e[i].callee == VIEW_NO_NODE) l->has_self = 1;
        }
        for (size_t k = 0; k < nc; k++)
            l->incl[k] += l->self[k];
        l->end = i;
        n++;
    }
    free(one);
    return n;
}

static void put_file(FILE *fp, struct view_sel *s, const struct ent *e, size_t b, size_t end)
{
    size_t nc = s->g.ncols;
    const char *name = profile_str(s->p, e[b].file);
    struct line_sum *ls = xcalloc(end - b, sizeof(*ls));
    tally_wide *pool = xcalloc(2 * (end - b) * (nc ? nc : 1), sizeof(*pool));
    size_t nl = sum_lines(s, e, b, end, ls, pool);
    struct srcfile_found found = {0};
    struct srcfile_text txt;
    int have = 0;
    const char *why = NULL;
    if (!*name || !strcmp(name, "???")) {
        why = "the profile names no source file";
    } else if (!srcfile_find(name, &s->ses->cfg.include, SRCFILE_BASE, srcfile_opens, NULL,
                             &found)) {
        why = "the file was not found (give its directory with -I)";
    } else if (srcfile_text_read(&txt, found.path, SOURCE_MAX_BYTES)) {
        why = "the file cannot be read";
    } else {
        have = 1;
    }
    fputs("{\"file\": ", fp);
    jsonstr_puts(fp, name, 0);
    fputs(", \"path\": ", fp);
    if (found.path)
        jsonstr_puts(fp, found.path, 0);
    else
        fputs("null", fp);
    fputs(", \"why\": ", fp);
    if (why)
        jsonstr_puts(fp, why, 0);
    else
        fputs("null", fp);
    /* the first line with a cost (line 0 = unknown sorts first) */
    uint64_t lo = ls[0].line, hi = ls[nl - 1].line;
    uint64_t first = lo ? lo : nl > 1 ? ls[1].line : 0;
    fprintf(fp, ", \"first\": %" PRIu64 ", \"lines\": [", first);
    int put = 0;
    size_t k = 0;
    if (lo == 0) { /* costs without a line */
        put_line(fp, s, e, &ls[0], NULL, 0);
        put = 1;
        k = 1;
    }
    if (have && k < nl) {
        uint64_t from = ls[k].line, to = hi;
        int whole = to - from <= SOURCE_SPAN;
        from = from > 5 ? from - 5 : 1;
        to = to + 5 < txt.nlines ? to + 5 : txt.nlines;
        if (to < hi) to = hi;
        for (uint64_t n = from; n <= to; n++) {
            while (k < nl && ls[k].line < n)
                k++;
            int costly = k < nl && ls[k].line == n;
            if (!whole && !costly) {
                /* only near a costly line */
                uint64_t prev = k > 0 ? ls[k - 1].line : 0, next = k < nl ? ls[k].line : UINT64_MAX;
                if (!((prev && n - prev <= SOURCE_AROUND) || next - n <= SOURCE_AROUND)) continue;
            }
            fputs(put ? ",\n" : "\n", fp);
            put = 1;
            put_line(fp, s, e, costly ? &ls[k] : NULL, &txt, n);
        }
    } else {
        for (; k < nl; k++) {
            fputs(put ? ",\n" : "\n", fp);
            put = 1;
            put_line(fp, s, e, &ls[k], NULL, ls[k].line);
        }
    }
    fputs("]}", fp);
    if (have) srcfile_text_release(&txt);
    free(found.path);
    free(pool);
    free(ls);
}

/* The entries of node v in every part of the selection, their costs in
   the selection's event order in *pool (the caller frees both). */
static struct ent *gather(const struct view_sel *s, uint32_t v, size_t *n, uint64_t **pool)
{
    const struct vgraph *g = &s->g;
    size_t nc = g->ncols, m = 0, cap = 0, pcap = 0, used = 0;
    struct ent *e = NULL;
    uint64_t *p = NULL;
    for (size_t k = 0; k < g->nparts; k++) {
        const struct vstore *st = g->stores[k];
        size_t i = vstore_find(st, g->fn[v]);
        if (i == SIZE_MAX) continue;
        uint64_t *c = xmalloc((st->ncols ? st->ncols : 1) * sizeof(*c));
        struct vstore_entry x = {.cost = c};
        for (int calls = 0; calls < 2; calls++) {
            const unsigned char *q = calls ? st->call + st->call_at[i] : st->cost + st->cost_at[i];
            const unsigned char *end =
                calls ? st->call + st->call_at[i + 1] : st->cost + st->cost_at[i + 1];
            while (q < end) {
                q = calls ? vstore_next_call(st, q, &x) : vstore_next_cost(st, q, &x);
                uint32_t w = calls ? view_node(s, x.callee) : VIEW_NO_NODE;
                if (calls && w == VIEW_NO_NODE) continue;
                e = xgrow(e, &cap, m + 1, sizeof(*e));
                p = xgrow(p, &pcap, used + nc, sizeof(*p));
                for (size_t y = 0; y < nc; y++)
                    p[used + y] = c[g->colmap[k][y]];
                /* the costs are an offset into the pool until it stops growing */
                e[m] =
                    (struct ent){x.file, x.line, w, x.count, (const uint64_t *)(uintptr_t)used, m};
                used += nc;
                m++;
            }
        }
        free(c);
    }
    for (size_t i = 0; i < m; i++)
        e[i].cost = p + (uintptr_t)e[i].cost;
    *n = m;
    *pool = p;
    return e;
}

void api_source(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    uint32_t v = api_node_arg(s, a, r);
    if (v == VIEW_NO_NODE) return;
    size_t m;
    uint64_t *pool;
    struct ent *e = gather(s, v, &m, &pool);
    struct src_ctx c = {s, v, profile_function_at(s->p, s->g.fn[v]).file};
    if (m) qsort_r(e, m, sizeof(*e), cmp_ent, &c); /* e is NULL when the function has no record */
    struct api_out o;
    api_open(&o);
    fputs("{\"files\": [", o.fp);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && e[j].file == e[i].file)
            j++;
        if (i) fputs(",\n", o.fp);
        put_file(o.fp, s, e, i, j);
        i = j;
    }
    fputs("]}\n", o.fp);
    api_close(&o, r, 200);
    free(e);
    free(pool);
}
