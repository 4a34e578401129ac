/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.c - the "tally-profile" JSON document (schema: docs/internals/convert.md).
 *
 * Part 0 is reduced to function level: self costs summed per function,
 * call arcs summed per (caller, callee), then inclusive costs and cycles
 * computed by inclusive.h. Costs are written as JSON integers (unsigned,
 * or signed for a diff result).
 */
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inclusive.h"
#include "../io/utf8.h"
#include "format.h"

void json_put_string(FILE *fp, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    putc('"', fp);
    while (*s) {
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            putc('\\', fp);
            putc((int)c, fp);
            s++;
        } else if (c == '\n') {
            fputs("\\n", fp);
            s++;
        } else if (c == '\t') {
            fputs("\\t", fp);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(fp, "\\u%04x", c);
            s++;
        } else {
            size_t n = utf8_len(s);
            if (n == 0) {
                fputs("\\ufffd", fp);
                s++;
            } else {
                fwrite(s, 1, n, fp);
                s += n;
            }
        }
    }
    putc('"', fp);
}

/* One cost value as a JSON number. */
static void put_cost(FILE *fp, uint64_t v, int is_signed)
{
    if (is_signed)
        fprintf(fp, "%" PRId64, (int64_t)v);
    else
        fprintf(fp, "%" PRIu64, v);
}

static void put_vec(FILE *fp, const uint64_t *v, size_t n, int is_signed)
{
    putc('[', fp);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", fp);
        put_cost(fp, v ? v[i] : 0, is_signed);
    }
    putc(']', fp);
}

static void put_ivec(FILE *fp, const tally_wide *v, size_t n)
{
    char num[TALLY_WIDE_DIGITS];
    putc('[', fp);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", fp);
        fputs(tally_wide_str(v[i], num), fp);
    }
    putc(']', fp);
}

/* A line-level self cost, for sorting per function. */
struct json_line {
    uint32_t fn, file;
    const char *file_name;
    uint64_t line;
    const uint64_t *cost;
};

static int cmp_line(const void *a, const void *b)
{
    const struct json_line *x = a, *y = b;
    if (x->fn != y->fn) return x->fn < y->fn ? -1 : 1;
    int c = strcmp(x->file_name, y->file_name);
    if (c) return c < 0 ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return 0;
}

/* Function-level view of part 0. */
struct json_graph {
    size_t nfn, ne;
    tally_wide *self;   /* [nfn * ne] */
    struct rectab arcs; /* caller << 32 | callee -> count, cost[ne] */
    uint32_t *from, *to;
    tally_wide *arc_cost;
    struct incl_result incl;
    int have_incl;
};

static void graph_release(struct json_graph *g)
{
    free(g->self);
    rectab_release(&g->arcs);
    free(g->from);
    free(g->to);
    free(g->arc_cost);
    if (g->have_incl) incl_result_release(&g->incl);
}

/* Checked v += add (add read as signed or unsigned 64-bit). */
static int add_wide(tally_wide *v, uint64_t add, int is_signed)
{
    tally_wide a = is_signed ? (tally_wide)(int64_t)add : (tally_wide)add;
    return __builtin_add_overflow(*v, a, v) ? -1 : 0;
}

static int graph_build(struct json_graph *g, const struct profile *p, const struct part *pt,
                       struct tally_error *err)
{
    size_t ne = pt->events.n, nfn = profile_nfunctions(p);
    int sg = p->signed_costs;
    g->nfn = nfn;
    g->ne = ne;
    g->self = xcalloc(nfn * ne + 1, sizeof(*g->self));
    rectab_init(&g->arcs, 1, 1 + 2 * ne); /* count, then a tally_wide (two words) per event */
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        for (size_t e = 0; e < ne; e++)
            if (add_wide(&g->self[(size_t)r.fn * ne + e], r.cost[e], sg))
                return tally_error_set(err, p->path, 0, "a function's cost overflows");
    }
    for (size_t i = 0; i < part_ncalls(pt); i++) {
        struct call_rec c;
        part_call_get(pt, i, &c);
        uint64_t key = (uint64_t)c.caller << 32 | c.callee;
        uint64_t *v = rectab_get(&g->arcs, &key, NULL);
        if (__builtin_add_overflow(v[0], *c.count, &v[0]))
            return tally_error_set(err, p->path, 0, "a call count overflows");
        for (size_t e = 0; e < ne; e++)
            if (add_wide((tally_wide *)(v + 1) + e, c.cost[e], sg))
                return tally_error_set(err, p->path, 0, "a call's cost overflows");
    }
    size_t na = g->arcs.count;
    g->from = xmalloc((na + 1) * sizeof(*g->from));
    g->to = xmalloc((na + 1) * sizeof(*g->to));
    g->arc_cost = xmalloc((na * ne + 1) * sizeof(*g->arc_cost));
    for (size_t a = 0; a < na; a++) {
        uint64_t key = rectab_at(&g->arcs, a)[0];
        g->from[a] = (uint32_t)(key >> 32);
        g->to[a] = (uint32_t)key;
        memcpy(g->arc_cost + a * ne, rectab_val(&g->arcs, a) + 1, ne * sizeof(tally_wide));
    }
    struct incl_graph ig = {
        .nnodes = nfn,
        .ncols = ne,
        .self = g->self,
        .narcs = na,
        .from = g->from,
        .to = g->to,
        .cost = g->arc_cost,
    };
    if (incl_compute(&ig, &g->incl, err)) return -1;
    g->have_incl = 1;
    return 0;
}

static void write_metadata(FILE *fp, const struct profile *p, const struct part *pt,
                           const struct json_options *o)
{
    fputs("  \"metadata\": {\n    \"source\": ", fp);
    json_put_string(fp, o && o->source ? o->source : p->path);
    fputs(",\n    \"source_format\": ", fp);
    json_put_string(fp, format_name(p->format));
    if (p->creator) {
        fputs(",\n    \"creator\": ", fp);
        json_put_string(fp, p->creator);
    }
    if (pt->cmd) {
        fputs(",\n    \"cmd\": ", fp);
        json_put_string(fp, pt->cmd);
    }
    if (pt->has_pid) fprintf(fp, ",\n    \"pid\": %" PRIu64, pt->pid);
    if (pt->has_thread) fprintf(fp, ",\n    \"thread\": %" PRIu64, pt->thread);
    fputs(",\n    \"desc\": [", fp);
    for (size_t i = 0; i < pt->desc.n; i++) {
        if (i) fputs(", ", fp);
        json_put_string(fp, pt->desc.items[i]);
    }
    fprintf(fp, "],\n    \"signed_costs\": %s\n  },\n", p->signed_costs ? "true" : "false");
}

static void write_lines(FILE *fp, const struct profile *p, const struct json_line *ls, size_t n,
                        size_t ne)
{
    fputs(",\n     \"lines\": [", fp);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n       " : "\n       ", fp);
        fputs("{\"file\": ", fp);
        json_put_string(fp, profile_str(p, ls[i].file));
        fprintf(fp, ", \"line\": %" PRIu64 ", \"self\": ", ls[i].line);
        put_vec(fp, ls[i].cost, ne, p->signed_costs);
        putc('}', fp);
    }
    fputs(n ? "\n     ]" : "]", fp);
}

/* Per (function, file, line) self costs, sorted by function, file name, line. */
static struct json_line *collect_lines(const struct profile *p, const struct part *pt,
                                       struct rectab *tab, size_t *n, struct tally_error *err)
{
    size_t ne = pt->events.n;
    rectab_init(tab, 2, ne);
    for (size_t i = 0; i < part_ncosts(pt); i++) {
        struct cost_rec r;
        part_cost_get(pt, i, &r);
        uint64_t key[2] = {(uint64_t)r.fn << 32 | r.pos.file, r.pos.line};
        uint64_t *v = rectab_get(tab, key, NULL);
        if (cost_add(v, r.cost, ne, p->signed_costs)) {
            tally_error_set(err, p->path, 0, "a line's cost overflows");
            return NULL;
        }
    }
    struct json_line *ls = xmalloc((tab->count + 1) * sizeof(*ls));
    for (size_t i = 0; i < tab->count; i++) {
        const uint64_t *k = rectab_at(tab, i);
        ls[i].fn = (uint32_t)(k[0] >> 32);
        ls[i].file = (uint32_t)k[0];
        ls[i].file_name = profile_str(p, ls[i].file);
        ls[i].line = k[1];
        ls[i].cost = rectab_val(tab, i);
    }
    qsort(ls, tab->count, sizeof(*ls), cmp_line);
    *n = tab->count;
    return ls;
}

int json_write(const struct profile *p, FILE *fp, const struct json_options *o,
               struct tally_error *err)
{
    if (p->nparts == 0) return tally_error_set(err, p->path, 0, "the profile has no data");
    const struct part *pt = p->parts[0];
    size_t ne = pt->events.n;
    int sg = p->signed_costs;
    struct json_graph g;
    memset(&g, 0, sizeof(g));
    struct rectab linetab;
    memset(&linetab, 0, sizeof(linetab));
    struct json_line *lines = NULL;
    size_t nlines = 0, li = 0;
    uint64_t *total = xcalloc(ne + 1, sizeof(*total));
    int rc = -1;
    if (graph_build(&g, p, pt, err)) goto out;
    if (part_self_total(p, pt, total)) {
        tally_error_set(err, p->path, 0, "the total cost overflows");
        goto out;
    }
    if (o && o->lines && !(lines = collect_lines(p, pt, &linetab, &nlines, err))) goto out;

    fputs("{\n  \"schema\": \"tally-profile\",\n  \"version\": 1,\n", fp);
    write_metadata(fp, p, pt, o);
    fputs("  \"events\": [", fp);
    for (size_t e = 0; e < ne; e++) {
        fputs(e ? ",\n    " : "\n    ", fp);
        fputs("{\"name\": ", fp);
        json_put_string(fp, pt->events.names[e]);
        if (pt->events.long_names[e]) {
            fputs(", \"long_name\": ", fp);
            json_put_string(fp, pt->events.long_names[e]);
        }
        putc('}', fp);
    }
    fputs(ne ? "\n  ],\n  \"totals\": " : "],\n  \"totals\": ", fp);
    put_vec(fp, total, ne, sg);
    fputs(",\n  \"functions\": [", fp);
    for (size_t f = 0; f < g.nfn; f++) {
        struct function fn = profile_function_at(p, (uint32_t)f);
        fputs(f ? ",\n    " : "\n    ", fp);
        fprintf(fp, "{\"id\": %zu, \"name\": ", f);
        json_put_string(fp, profile_str(p, fn.name));
        fputs(", \"object\": ", fp);
        json_put_string(fp, profile_str(p, fn.obj));
        fputs(", \"file\": ", fp);
        json_put_string(fp, profile_str(p, fn.file));
        fputs(",\n     \"self\": ", fp);
        put_ivec(fp, g.self + f * ne, ne);
        fputs(", \"inclusive\": ", fp);
        put_ivec(fp, g.incl.incl + f * ne, ne);
        fprintf(fp, ", \"cycle\": %" PRIu32, g.incl.cycle[f]);
        if (lines) {
            size_t start = li;
            while (li < nlines && lines[li].fn == f)
                li++;
            write_lines(fp, p, lines + start, li - start, ne);
        }
        putc('}', fp);
    }
    fputs(g.nfn ? "\n  ],\n  \"calls\": [" : "],\n  \"calls\": [", fp);
    for (size_t a = 0; a < g.arcs.count; a++) {
        fputs(a ? ",\n    " : "\n    ", fp);
        fprintf(fp,
                "{\"caller\": %" PRIu32 ", \"callee\": %" PRIu32 ", \"count\": %" PRIu64
                ", \"inclusive\": ",
                g.from[a], g.to[a], rectab_val(&g.arcs, a)[0]);
        put_ivec(fp, g.arc_cost + a * ne, ne);
        putc('}', fp);
    }
    fputs(g.arcs.count ? "\n  ],\n  \"cycles\": [" : "],\n  \"cycles\": [", fp);
    for (size_t c = 0; c < g.incl.ncycles; c++) {
        fputs(c ? ",\n    " : "\n    ", fp);
        fprintf(fp, "{\"id\": %zu, \"members\": [", c + 1);
        for (size_t m = g.incl.cycle_start[c]; m < g.incl.cycle_start[c + 1]; m++)
            fprintf(fp, "%s%" PRIu32, m > g.incl.cycle_start[c] ? ", " : "", g.incl.members[m]);
        fputs("], \"self\": ", fp);
        put_ivec(fp, g.incl.cycle_self + c * ne, ne);
        fputs(", \"inclusive\": ", fp);
        put_ivec(fp, g.incl.cycle_incl + c * ne, ne);
        putc('}', fp);
    }
    fputs(g.incl.ncycles ? "\n  ]\n}\n" : "]\n}\n", fp);
    if (ferror(fp)) {
        tally_error_set(err, NULL, 0, "write error");
        goto out;
    }
    rc = 0;
out:
    free(total);
    free(lines);
    if (linetab.key_words) rectab_release(&linetab);
    graph_release(&g);
    return rc;
}
