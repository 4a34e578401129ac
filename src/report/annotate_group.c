/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_group.c - `tally annotate --group=object|file|class`: the table
 * of groups (analysis/groups.h) in the place of the function table, each
 * row the group's self costs, then its inclusive costs, then its name.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/groups.h"
#include "annotate_rep.h"
#include "textfmt.h"

struct gsort {
    const struct group_table *g;
    const tally_wide *key; /* self or incl */
    const size_t *cols;    /* sort columns */
    size_t ncols;
};

/* Biggest first by each sort column, then by name. */
static int cmp_groups(const void *a, const void *b, void *ctx)
{
    const struct gsort *s = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b, nc = s->g->ncols;
    for (size_t k = 0; k < s->ncols; k++) {
        tally_wide vx = s->key[x * nc + s->cols[k]], vy = s->key[y * nc + s->cols[k]];
        if (vx != vy) return vx > vy ? -1 : 1;
    }
    return strcmp(s->g->names[x], s->g->names[y]);
}

static void widths(const struct annrep *r, const struct group_table *g, const tally_wide *v,
                   const size_t *rows, size_t n, const char *suffix, size_t *w)
{
    for (size_t c = 0; c < r->ncols; c++)
        w[c] = strlen(r->colnames[c]) + strlen(suffix);
    for (size_t k = 0; k < n; k++)
        for (size_t c = 0; c < r->ncols; c++) {
            size_t x = textfmt_count_width(v[rows[k] * g->ncols + c], r->o->show_percs);
            if (x > w[c]) w[c] = x;
        }
}

static void cells(const struct annrep *r, const tally_wide *v, const size_t *w)
{
    char buf[TEXTFMT_CELL_MAX + 256];
    for (size_t i = 0; i < r->nshow; i++) {
        size_t c = r->show[i];
        size_t width = w[c] < 200 ? w[c] : 200;
        size_t len = textfmt_cell(buf, sizeof buf, v[c], 1, r->summary[c], r->o->show_percs, width);
        fwrite(buf, 1, len, r->out);
    }
}

static void heads(const struct annrep *r, const size_t *w, const char *suffix)
{
    for (size_t i = 0; i < r->nshow; i++) {
        size_t c = r->show[i];
        size_t n = strlen(r->colnames[c]) + strlen(suffix);
        fprintf(r->out, "%s%s", r->colnames[c], suffix);
        textfmt_repeat(r->out, ' ', w[c] > n ? w[c] - n : 0);
        putc(' ', r->out);
    }
}

int annrep_groups(struct annrep *r, struct tally_error *err)
{
    const struct annotate_options *o = r->o;
    struct group_table g;
    if (group_table_build(&g, r->p, r->pt, o->group_kind, r->cols, r->ncols, err)) return -1;
    /* the groups with a cost, sorted */
    size_t *rows = xcalloc(g.ngroups ? g.ngroups : 1, sizeof(size_t)), n = 0;
    for (size_t k = 0; k < g.ngroups; k++) {
        int any = 0;
        for (size_t c = 0; c < g.ncols && !any; c++)
            any = g.self[k * g.ncols + c] != 0 || g.incl[k * g.ncols + c] != 0;
        if (any) rows[n++] = k;
    }
    struct gsort s = {&g, o->inclusive ? g.incl : g.self, r->sort, r->nsort};
    qsort_r(rows, n, sizeof(size_t), cmp_groups, &s);
    size_t nc = r->ncols ? r->ncols : 1;
    size_t *ws = xmalloc(nc * sizeof(size_t)), *wi = xmalloc(nc * sizeof(size_t));
    widths(r, &g, g.self, rows, n, "", ws);
    widths(r, &g, g.incl, rows, n, " incl", wi);
    FILE *out = r->out;
    fprintf(out,
            RULE "-- Functions grouped by %s: the self cost of the group, then its inclusive\n"
                 "-- cost (while any of its functions is on the stack, counted once)\n" RULE,
            group_kind_name(o->group_kind));
    heads(r, ws, "");
    heads(r, wi, " incl");
    fprintf(out, " %s\n" RULE, group_kind_name(o->group_kind));
    int cycles = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = rows[k];
        cells(r, g.self + i * g.ncols, ws);
        cells(r, g.incl + i * g.ncols, wi);
        fprintf(out, " %s", g.names[i]);
        if (g.cycle[i]) {
            fprintf(out, " <cycle %u>", g.cycle[i]);
            cycles = 1;
        } else if (g.estimated[i]) {
            fputs(" (estimate)", out);
            cycles = 1;
        }
        putc('\n', out);
    }
    if (g.exact)
        fputs("\nInclusive costs from the recorded stacks: exact.\n", out);
    else if (cycles)
        fputs("\n<cycle N>: groups that call each other round; their inclusive costs are "
              "estimates,\nas is one marked (estimate).\n",
              out);
    putc('\n', out);
    free(ws);
    free(wi);
    free(rows);
    group_table_release(&g);
    return 0;
}
