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

#include "../analysis/fgraph.h"
#include "../analysis/inclusive.h"
#include "../formats/format.h"
#include "../io/jsonstr.h"

void json_put_string(FILE *fp, const char *str)
{
    jsonstr_puts(fp, str, 0);
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

/* Function-level view of part 0: every function a node, the base events as columns. */
struct json_graph {
    struct fgraph fg;
    struct incl_result incl;
    int have_incl;
};

static void graph_release(struct json_graph *g)
{
    fgraph_release(&g->fg);
    if (g->have_incl) incl_result_release(&g->incl);
}

static int graph_build(struct json_graph *g, const struct profile *p, const struct part *pt,
                       struct tally_error *err)
{
    struct fgraph_options fo = {.msg_self = "a function's cost overflows",
                                .msg_count = "a call count overflows",
                                .msg_cost = "a call's cost overflows"};
    if (fgraph_build(&g->fg, p, pt, &fo, err)) return -1;
    int rc = incl_compute_fgraph(&g->fg, p, pt, &g->incl, err);
    if (rc) return -1;
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
    for (size_t f = 0; f < g.fg.nnodes; f++) {
        struct function fn = profile_function_at(p, (uint32_t)f);
        fputs(f ? ",\n    " : "\n    ", fp);
        fprintf(fp, "{\"id\": %zu, \"name\": ", f);
        json_put_string(fp, profile_str(p, fn.name));
        fputs(", \"object\": ", fp);
        json_put_string(fp, profile_str(p, fn.obj));
        fputs(", \"file\": ", fp);
        json_put_string(fp, profile_str(p, fn.file));
        fputs(",\n     \"self\": ", fp);
        put_ivec(fp, g.fg.self + f * ne, ne);
        fputs(", \"inclusive\": ", fp);
        put_ivec(fp, g.incl.incl + f * ne, ne);
        fprintf(fp, ", \"cycle\": %" PRIu32, g.incl.cycle[f]);
        if (incl_estimated(&g.incl, f)) fputs(", \"estimated\": true", fp);
        if (lines) {
            size_t start = li;
            while (li < nlines && lines[li].fn == f)
                li++;
            write_lines(fp, p, lines + start, li - start, ne);
        }
        putc('}', fp);
    }
    fputs(g.fg.nnodes ? "\n  ],\n  \"calls\": [" : "],\n  \"calls\": [", fp);
    for (size_t a = 0; a < g.fg.narcs; a++) {
        fputs(a ? ",\n    " : "\n    ", fp);
        fprintf(fp,
                "{\"caller\": %" PRIu32 ", \"callee\": %" PRIu32 ", \"count\": %" PRIu64
                ", \"inclusive\": ",
                g.fg.from[a], g.fg.to[a], g.fg.count[a]);
        put_ivec(fp, g.fg.cost + a * ne, ne);
        putc('}', fp);
    }
    fputs(g.fg.narcs ? "\n  ],\n  \"cycles\": [" : "],\n  \"cycles\": [", fp);
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
