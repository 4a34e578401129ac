/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate.c - `tally annotate` (see annotate.h): options, columns, the
 * header and totals, the function table and the caller/callee trees. The
 * annotated source is annotate_src.c; the shared state is annotate_rep.h.
 */
#include "annotate.h"

#include <stdlib.h>
#include <string.h>

#include "annotate_rep.h"
#include "../io/bytebuf.h"
#include "../io/worker.h"
#include "textfmt.h"

void annotate_options_init(struct annotate_options *o)
{
    memset(o, 0, sizeof(*o));
    o->show_percs = 1;
    o->auto_annotate = 1;
    o->context = 8;
}

void annotate_options_release(struct annotate_options *o)
{
    strlist_release(&o->show);
    strlist_release(&o->sort);
    strlist_release(&o->sort_thresh);
    strlist_release(&o->include_dirs);
    strlist_release(&o->user_files);
    strlist_release(&o->inputs);
}

int annotate_check_events(const struct profile *p, const struct annotate_options *o,
                          struct tally_error *err)
{
    if (p->nparts == 0) return 0;
    const struct eventset *es = &p->parts[0]->events;
    const struct strlist *lists[2] = {&o->show, &o->sort};
    const char *what[2] = {"--show", "--sort"};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->n; i++) {
            struct event_expr e;
            if (eventset_lookup(es, lists[l]->items[i], &e)) {
                /* name the events there are, as a user would type them */
                char have[512] = "";
                size_t len = 0;
                for (size_t k = 0; k < es->n + es->nderived && len < sizeof have; k++) {
                    const char *nm = k < es->n ? es->names[k] : es->derived[k - es->n].name;
                    int w = snprintf(have + len, sizeof have - len, "%s%s", len ? " " : "", nm);
                    if (w > 0) len += (size_t)w;
                }
                return tally_error_set(
                    err, NULL, 0, "%s event '%s' did not appear in input (the profile has: %s)",
                    what[l], lists[l]->items[i], have);
            }
            event_expr_release(&e);
        }
    return 0;
}

/* -------------------------------------------------------------- printing */

int annrep_defined(const struct annrep *r, size_t c, uint32_t ndef)
{
    return func_col_defined(&r->ft, c, ndef);
}

void annrep_widths_init(const struct annrep *r, size_t *w)
{
    for (size_t c = 0; c < r->ncols; c++)
        w[c] = strlen(r->colnames[c]);
}

void annrep_widths_add(const struct annrep *r, size_t *w, const tally_wide *v, uint32_t ndef)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (annrep_defined(r, c, ndef)) {
            size_t x = textfmt_count_width(v[c], r->o->show_percs);
            if (x > w[c]) w[c] = x;
        }
}

/* The cells of cost vector v, written to fp, or appended to b when b is given. */
static void cells_out(const struct annrep *r, const tally_wide *v, uint32_t ndef, const size_t *w,
                      FILE *fp, struct bytebuf *b)
{
    /* the cells of a row go out in one write (a cell is at most TEXTFMT_CELL_MAX + 201 bytes) */
    char buf[4096];
    size_t len = 0;
    for (size_t i = 0; i < r->nshow; i++) {
        size_t c = r->show[i];
        int d = v && annrep_defined(r, c, ndef);
        tally_wide total = annrep_defined(r, c, r->summary_ndef) ? r->summary[c] : 0;
        size_t width = w[c] < 200 ? w[c] : 200;
        if (sizeof(buf) - len < TEXTFMT_CELL_MAX + 256) {
            if (b)
                bytebuf_add(b, buf, len);
            else
                fwrite(buf, 1, len, fp);
            len = 0;
        }
        len += textfmt_cell(buf + len, sizeof(buf) - len, d ? v[c] : 0, d, total, r->o->show_percs,
                            width);
    }
    if (b)
        bytebuf_add(b, buf, len);
    else
        fwrite(buf, 1, len, fp);
}

void annrep_print_cc(const struct annrep *r, const tally_wide *v, uint32_t ndef, const size_t *w)
{
    cells_out(r, v, ndef, w, r->out, NULL);
}

void annrep_print_events(const struct annrep *r, const size_t *w)
{
    for (size_t i = 0; i < r->nshow; i++) {
        size_t c = r->show[i];
        size_t n = strlen(r->colnames[c]);
        fputs(r->colnames[c], r->out);
        textfmt_repeat(r->out, ' ', w[c] > n ? w[c] - n : 0);
        putc(' ', r->out);
    }
}

/* Column c of an entry's costs. */
static inline tally_wide ent_val(const struct annrep *r, const struct entry *e, size_t c)
{
    return e->v ? e->v[c] : func_row_cost(&r->ft, e->idx, c);
}

/* One sort column of two rows: -1 when x goes first (the bigger; for a
 * cachegrind profile, the bigger in magnitude), 1 when y does, 0 on a tie. */
static inline int cmp_col(const struct annrep *r, tally_wide x, tally_wide y)
{
    if (r->cg) {
        tally_wide ux = x < 0 ? -x : x, uy = y < 0 ? -y : y;
        return ux == uy ? 0 : ux > uy ? -1 : 1;
    }
    return x == y ? 0 : x > y ? -1 : 1;
}

/* -1 when a sorts before b (bigger first, by the sort events in order). */
static int cmp_costs(const struct annrep *r, const tally_wide *a, uint32_t nda, const tally_wide *b,
                     uint32_t ndb)
{
    for (size_t i = 0; i < r->nsort; i++) {
        size_t c = r->sort[i];
        tally_wide x = a && annrep_defined(r, c, nda) ? a[c] : -1;
        tally_wide y = b && annrep_defined(r, c, ndb) ? b[c] : -1;
        int d = cmp_col(r, x, y);
        if (d) return d;
    }
    return 0;
}

/* cmp_costs() of two entries. */
static int cmp_entry_costs(const struct annrep *r, const struct entry *a, const struct entry *b)
{
    for (size_t i = 0; i < r->nsort; i++) {
        size_t c = r->sort[i];
        tally_wide x = annrep_defined(r, c, a->ndef) ? ent_val(r, a, c) : -1;
        tally_wide y = annrep_defined(r, c, b->ndef) ? ent_val(r, b, c) : -1;
        int d = cmp_col(r, x, y);
        if (d) return d;
    }
    return 0;
}

/* The value cmp_costs() compares first (descending), kept in each entry. */
static tally_wide sort_key(const struct annrep *r, const struct entry *e)
{
    if (!r->nsort) return 0;
    size_t c = r->sort[0];
    tally_wide x = annrep_defined(r, c, e->ndef) ? ent_val(r, e, c) : -1;
    return r->cg && x < 0 ? -x : x;
}

/* The display name of an entry in up to three pieces: "file", ":", "name". */
static void entry_name(const struct annrep *r, const struct entry *e, const char *s[3])
{
    const char *name = ent_name(r, e);
    if (name) {
        s[0] = name;
        s[1] = s[2] = "";
        return;
    }
    s[0] = func_str(&r->ft, func_row_file(&r->ft, e->idx));
    s[1] = ":";
    s[2] = func_str(&r->ft, func_row_name(&r->ft, e->idx));
}

/* strcmp() of the strings the pieces a[0..2] and b[0..2] make. */
static int cmp_pieces(const char *const a[3], const char *const b[3])
{
    size_t i = 0, j = 0;
    const char *x = a[0], *y = b[0];
    for (;;) {
        while (!*x && i < 2)
            x = a[++i];
        while (!*y && j < 2)
            y = b[++j];
        unsigned char cx = (unsigned char)*x, cy = (unsigned char)*y;
        if (cx != cy || !cx) return (cx > cy) - (cx < cy);
        x++;
        y++;
    }
}

/* Out of line: the frame it needs would slow every comparison down. */
static __attribute__((noinline)) int cmp_entry_names(const struct annrep *r, const struct entry *a,
                                                     const struct entry *b)
{
    /* rows of one file: "FILE:" is common, the names decide (strcmp is much faster than the
       piece walk over the long common prefixes of C++ names) */
    if (!ent_name(r, a) && !ent_name(r, b) &&
        func_row_file(&r->ft, a->idx) == func_row_file(&r->ft, b->idx))
        return strcmp(func_str(&r->ft, func_row_name(&r->ft, a->idx)),
                      func_str(&r->ft, func_row_name(&r->ft, b->idx)));
    const char *sa[3], *sb[3];
    entry_name(r, a, sa);
    entry_name(r, b, sb);
    return cmp_pieces(sa, sb);
}

static int cmp_entries(const void *pa, const void *pb, void *ctx)
{
    const struct annrep *r = ctx;
    const struct entry *a = pa, *b = pb;
    /* the first sort column decides most pairs, without reading the rows */
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    int c = cmp_entry_costs(r, a, b);
    if (c) return c;
    return r->row_names_joined ? cmp_entry_names(r, a, b) : strcmp(ent_name(r, a), ent_name(r, b));
}

int annrep_cmp_varcs(const void *pa, const void *pb, void *ctx)
{
    const struct annrep *r = ctx;
    const struct varc *a = pa, *b = pb;
    int c = cmp_costs(r, a->order, a->order_ndef, b->order, b->order_ndef);
    if (c) return c;
    c = strcmp(r->rowname[a->other], r->rowname[b->other]);
    if (c) return c;
    return strcmp(r->rowname[a->caller], r->rowname[b->caller]);
}

/* ------------------------------------------------------------ setup */

static int add_column(struct annrep *r, const char *name, size_t *out)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (!strcmp(r->colnames[c], name)) {
            *out = c;
            return 0;
        }
    struct event_expr e;
    if (eventset_lookup(&r->pt->events, name, &e)) return -1;
    r->cols = xrealloc(r->cols, (r->ncols + 1) * sizeof(*r->cols));
    r->colnames = xrealloc(r->colnames, (r->ncols + 1) * sizeof(*r->colnames));
    r->cols[r->ncols] = e;
    r->colnames[r->ncols] = xstrdup(name);
    *out = r->ncols++;
    return 0;
}

static int setup_columns(struct annrep *r, struct tally_error *err)
{
    const struct eventset *es = &r->pt->events;
    const struct annotate_options *o = r->o;
    r->nbase = es->n;
    for (size_t i = 0; i < es->n; i++) {
        size_t c;
        if (add_column(r, es->names[i], &c))
            return tally_error_set(err, NULL, 0, "event '%s' cannot be looked up", es->names[i]);
    }
    r->nshow = o->show.n ? o->show.n : es->n;
    r->show = xmalloc((r->nshow ? r->nshow : 1) * sizeof(size_t));
    for (size_t i = 0; i < r->nshow; i++) {
        if (!o->show.n) {
            r->show[i] = i;
        } else if (add_column(r, o->show.items[i], &r->show[i])) {
            return tally_error_set(err, NULL, 0, "--show event '%s' did not appear in input",
                                   o->show.items[i]);
        }
    }
    r->nsort = o->sort.n ? o->sort.n : es->n;
    r->sort = xmalloc((r->nsort ? r->nsort : 1) * sizeof(size_t));
    r->thr = xcalloc(r->nsort ? r->nsort : 1, sizeof(double));
    r->thr_text = xcalloc(r->nsort ? r->nsort : 1, sizeof(char *));
    for (size_t i = 0; i < r->nsort; i++) {
        if (!o->sort.n) {
            r->sort[i] = i;
        } else if (add_column(r, o->sort.items[i], &r->sort[i])) {
            return tally_error_set(err, NULL, 0, "--sort event '%s' did not appear in input",
                                   o->sort.items[i]);
        }
    }
    /* thresholds, as each original sets them up */
    for (size_t i = 0; i < r->nsort; i++) {
        const char *t;
        if (o->sort_has_thresholds) {
            t = i < o->sort_thresh.n && o->sort_thresh.items[i][0] ? o->sort_thresh.items[i] : "0";
        } else if (i == 0) {
            t = o->threshold ? o->threshold : r->cg ? "0.1" : "99";
        } else {
            t = r->cg ? "100" : "0";
        }
        r->thr_text[i] = xstrdup(t);
        r->thr[i] = strtod(t, NULL);
    }
    if (r->cg)
        r->filter_on = 1;
    else
        r->filter_on = o->sort_has_thresholds || r->nsort == 0 || r->thr[0] < 100;
    return 0;
}

static int eval_base(struct annrep *r, const uint64_t *base, tally_wide *out)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (event_expr_eval(&r->cols[c], base, r->p->signed_costs, &out[c])) return -1;
    return 0;
}

static int base_is_zero(const struct annrep *r, const uint64_t *v)
{
    for (size_t i = 0; i < r->nbase; i++)
        if (r->p->signed_costs ? (int64_t)v[i] > 0 : v[i] > 0) return 0;
    return 1;
}

static int setup_summary(struct annrep *r, struct tally_error *err)
{
    r->summary = xcalloc(r->ncols ? r->ncols : 1, sizeof(tally_wide));
    const uint64_t *base = NULL;
    if (r->pt->summary && (r->cg || !base_is_zero(r, r->pt->summary)))
        base = r->pt->summary;
    else if (!r->cg && r->pt->totals && !base_is_zero(r, r->pt->totals))
        base = r->pt->totals;
    if (base) {
        r->summary_ndef = func_ndef_all(&r->ft);
        if (eval_base(r, base, r->summary))
            return tally_error_set(err, r->p->path, 0, "summary too large");
        return 0;
    }
    /* neither: the sum of the self costs */
    r->summary_calculated = !r->cg;
    for (size_t i = 0; i < func_nrows(&r->ft); i++) {
        for (size_t c = 0; c < r->ncols; c++)
            if (__builtin_add_overflow(r->summary[c], func_row_cost(&r->ft, i, c), &r->summary[c]))
                return tally_error_set(err, r->p->path, 0, "total cost too large");
        r->summary_ndef = func_ndef_join(&r->ft, r->summary_ndef, func_row_ndef(&r->ft, i));
    }
    return 0;
}

static int setup_entries(struct annrep *r, struct tally_error *err)
{
    struct func_table *ft = &r->ft;
    size_t nrows = func_nrows(ft);
    /* the names of every row take as much memory as a tenth of the table:
       only trees and annotated source need them, for other rows than those listed */
    r->row_names_joined = !r->o->inclusive && !r->o->tree_caller && !r->o->tree_calling &&
                          !r->o->auto_annotate && !r->o->user_files.n;
    if (!r->row_names_joined) {
        r->rowname = xmalloc((nrows ? nrows : 1) * sizeof(char *));
        for (size_t i = 0; i < nrows; i++)
            r->rowname[i] = func_row_display(ft, i);
    }
    if (r->o->inclusive) {
        size_t na = ft->arcs.count, nc = r->ncols;
        uint32_t *from = xmalloc((na ? na : 1) * sizeof(uint32_t));
        uint32_t *to = xmalloc((na ? na : 1) * sizeof(uint32_t));
        uint32_t *and = xmalloc((na ? na : 1) * sizeof(uint32_t));
        tally_wide *cost = xmalloc((na * nc > 0 ? na * nc : 1) * sizeof(tally_wide));
        tally_wide *self = xmalloc((nrows * nc > 0 ? nrows * nc : 1) * sizeof(tally_wide));
        uint32_t *snd = xmalloc((nrows ? nrows : 1) * sizeof(uint32_t));
        for (size_t a = 0; a < na; a++) {
            from[a] = func_arc_caller(ft, a);
            to[a] = func_arc_callee(ft, a);
            and[a] = func_arc_ndef(ft, a);
            memcpy(cost + a * nc, func_arc_cost(ft, a), nc * sizeof(tally_wide));
        }
        for (size_t i = 0; i < nrows; i++) {
            memcpy(self + i * nc, func_row_self(ft, i), nc * sizeof(tally_wide));
            snd[i] = func_row_ndef(ft, i);
        }
        struct incl_graph g = {
            nrows, nc, self, snd, na, from, to, cost, and, part_calls_outermost(r->pt), NULL, NULL};
        unsigned char *levels = NULL;
        if (!g.outermost) /* Callgrind's NAME'2 levels (see incl_level_flags) */
            g.outer_in = levels = incl_level_flags((const char *const *)r->rowname, nrows);
        int rc = incl_compute(&g, &r->ir, err);
        free(levels);
        free(from);
        free(to);
        free(and);
        free(cost);
        free(self);
        free(snd);
        if (rc) return -1;
        r->have_ir = 1;
    }
    for (size_t i = 0; i < nrows && r->have_ir; i++) {
        if (!r->ir.cycle[i]) continue;
        char *t =
            xasprintf(incl_estimated(&r->ir, i) ? "%s <cycle %u> (estimated)" : "%s <cycle %u>",
                      r->rowname[i], r->ir.cycle[i]);
        free(r->rowname[i]);
        r->rowname[i] = t;
    }
    size_t ncyc = r->have_ir ? r->ir.ncycles : 0;
    r->cycname = xmalloc((ncyc ? ncyc : 1) * sizeof(char *));
    r->ent = xmalloc((nrows + ncyc + 1) * sizeof(*r->ent));
    for (size_t i = 0; i < nrows; i++) {
        uint64_t fl = func_row_flags(ft, i);
        /* a callee that no fn= line names (xdebug 2's `cfn=php::define` without
           cfl=) is an entry when inclusive costs or callers are shown */
        int callee = (r->o->inclusive || r->o->tree_caller) && (fl & FUNC_ROW_CALLEE);
        if (!(fl & FUNC_ROW_LISTED) && !callee) continue;
        struct entry *e = &r->ent[r->nent++];
        e->is_cycle = 0;
        e->idx = (uint32_t)i;
        if (r->have_ir) {
            e->v = r->ir.incl + i * r->ncols;
            e->ndef = r->ir.ndef[i];
        } else {
            e->v = func_row_self(ft, i);
            e->ndef = func_row_ndef(ft, i);
        }
        e->key = sort_key(r, e);
    }
    for (size_t c = 0; c < ncyc; c++) {
        struct entry *e = &r->ent[r->nent++];
        e->is_cycle = 1;
        e->idx = (uint32_t)c;
        r->cycname[c] = xasprintf("<cycle %zu>", c + 1);
        e->v = r->ir.cycle_incl + c * r->ncols;
        e->ndef = r->ir.cycle_ndef[c];
        e->key = sort_key(r, e);
    }
    return 0;
}

/* CSR lists of arc indices by callee (in) and by caller (out). */
static void setup_adjacency(struct annrep *r)
{
    size_t n = func_nrows(&r->ft), na = r->ft.arcs.count;
    r->in_start = xcalloc(n + 1, sizeof(size_t));
    r->out_start = xcalloc(n + 1, sizeof(size_t));
    r->in_arcs = xmalloc((na ? na : 1) * sizeof(size_t));
    r->out_arcs = xmalloc((na ? na : 1) * sizeof(size_t));
    for (size_t a = 0; a < na; a++) {
        r->in_start[func_arc_callee(&r->ft, a) + 1]++;
        r->out_start[func_arc_caller(&r->ft, a) + 1]++;
    }
    for (size_t i = 0; i < n; i++) {
        r->in_start[i + 1] += r->in_start[i];
        r->out_start[i + 1] += r->out_start[i];
    }
    size_t *fi = xmalloc((n + 1) * sizeof(size_t)), *fo = xmalloc((n + 1) * sizeof(size_t));
    memcpy(fi, r->in_start, (n + 1) * sizeof(size_t));
    memcpy(fo, r->out_start, (n + 1) * sizeof(size_t));
    for (size_t a = 0; a < na; a++) {
        r->in_arcs[fi[func_arc_callee(&r->ft, a)]++] = a;
        r->out_arcs[fo[func_arc_caller(&r->ft, a)]++] = a;
    }
    free(fi);
    free(fo);
}

/* --------------------------------------------------------------- header */

static void print_header(struct annrep *r)
{
    FILE *out = r->out;
    const struct annotate_options *o = r->o;
    const struct part *pt = r->pt;
    fputs(RULE, out);
    if (r->cg) {
        for (size_t i = 0; i < pt->desc.n; i++)
            fprintf(out, "%s\n", pt->desc.items[i]);
        fprintf(out, "Command:          %s\n", pt->cmd ? pt->cmd : "");
        fprintf(out, "Data file:        %s\n", o->inputs.n ? o->inputs.items[0] : "");
        for (size_t i = 1; i < o->inputs.n; i++)
            fprintf(out, "                  %s\n", o->inputs.items[i]);
    } else {
        fprintf(out, "Profile data file%s '%s'", o->inputs.n > 1 ? "s" : "",
                o->inputs.n ? o->inputs.items[0] : "");
        for (size_t i = 1; i < o->inputs.n; i++)
            fprintf(out, ", '%s'", o->inputs.items[i]);
        if (r->p->creator && r->p->creator[0]) fprintf(out, " (creator: %s)", r->p->creator);
        fputs("\n" RULE, out);
        for (size_t i = 0; i < pt->desc.n; i++)
            if (strncmp(pt->desc.items[i], "Option:", 7) != 0)
                fprintf(out, "%s\n", pt->desc.items[i]);
        fprintf(out, "Profiled target:  %s", pt->cmd && pt->cmd[0] ? pt->cmd : "(unknown)");
        if (pt->has_pid) {
            fprintf(out, " (PID %llu", (unsigned long long)pt->pid);
            if (pt->has_part) fprintf(out, ", part %llu", (unsigned long long)pt->part_no);
            if (pt->has_thread) fprintf(out, ", thread %llu", (unsigned long long)pt->thread);
            putc(')', out);
        }
        putc('\n', out);
    }
    fputs("Events recorded: ", out);
    for (size_t i = 0; i < r->nbase; i++)
        fprintf(out, " %s", r->colnames[i]);
    fputs("\nEvents shown:    ", out);
    for (size_t i = 0; i < r->nshow; i++)
        fprintf(out, " %s", r->colnames[r->show[i]]);
    fputs("\nEvent sort order:", out);
    for (size_t i = 0; i < r->nsort; i++)
        fprintf(out, " %s", r->colnames[r->sort[i]]);
    if (o->group) {
        /* every group is listed: no threshold */
        fprintf(out, "\nGrouped by:       %s", group_kind_name(o->group_kind));
    } else {
        fputs("\nThresholds:      ", out);
        for (size_t i = 0; i < r->nsort; i++)
            fprintf(out, " %s", r->thr_text[i]);
    }
    fprintf(out, "\nInclude dirs:     %s\n", o->include_dirs.n ? o->include_dirs.items[0] : "");
    for (size_t i = 1; i < o->include_dirs.n; i++)
        fprintf(out, "                  %s\n", o->include_dirs.items[i]);
    fprintf(out, "User annotated:   %s\n", o->user_files.n ? o->user_files.items[0] : "");
    for (size_t i = 1; i < o->user_files.n; i++)
        fprintf(out, "                  %s\n", o->user_files.items[i]);
    fprintf(out, "Auto-annotation:  %s\n\n", o->auto_annotate ? "on" : "off");
}

/* ------------------------------------------------------ function table */

static void print_varcs(struct annrep *r, struct varc *v, size_t n, const char *mark)
{
    qsort_r(v, n, sizeof(*v), annrep_cmp_varcs, r);
    char num[64];
    for (size_t i = 0; i < n; i++) {
        annrep_print_cc(r, v[i].cost, v[i].ndef, r->fnw);
        fprintf(r->out, "%s%s (%sx)", mark, r->rowname[v[i].other],
                textfmt_commify((tally_wide)v[i].count, num));
        uint64_t obj = func_row_obj(&r->ft, v[i].other);
        if (obj) fprintf(r->out, " [%s]", profile_str(r->p, (uint32_t)(obj - 1)));
        putc('\n', r->out);
    }
}

static void fill_varc(const struct annrep *r, struct varc *v, size_t a, uint32_t other)
{
    v->other = other;
    v->caller = func_arc_caller(&r->ft, a);
    v->count = func_arc_count(&r->ft, a);
    v->ndef = v->order_ndef = func_arc_ndef(&r->ft, a);
    v->cost = v->order = func_arc_cost(&r->ft, a);
}

/* Tree lines of a row: callers (dir 0) or callees (dir 1). */
static void print_row_tree(struct annrep *r, uint32_t row, int dir)
{
    size_t *start = dir ? r->out_start : r->in_start;
    size_t *arcs = dir ? r->out_arcs : r->in_arcs;
    size_t n = start[row + 1] - start[row];
    struct varc *v = xmalloc((n ? n : 1) * sizeof(*v));
    for (size_t k = 0; k < n; k++) {
        size_t a = arcs[start[row] + k];
        fill_varc(r, &v[k], a, dir ? func_arc_callee(&r->ft, a) : func_arc_caller(&r->ft, a));
    }
    print_varcs(r, v, n, dir ? " >   " : " < ");
    free(v);
}

/* Tree lines of a cycle: calls entering it (dir 0) or leaving it (dir 1), per row outside. */
static void print_cycle_tree(struct annrep *r, size_t cy, int dir)
{
    size_t nc = r->ncols;
    struct rectab agg;
    rectab_init(&agg, 1, 2 + 2 * nc); /* count, ndef, then a tally_wide (two words) per column */
    size_t *start = dir ? r->out_start : r->in_start;
    size_t *arcs = dir ? r->out_arcs : r->in_arcs;
    for (size_t m = r->ir.cycle_start[cy]; m < r->ir.cycle_start[cy + 1]; m++) {
        uint32_t row = r->ir.members[m];
        for (size_t k = start[row]; k < start[row + 1]; k++) {
            size_t a = arcs[k];
            uint32_t other = dir ? func_arc_callee(&r->ft, a) : func_arc_caller(&r->ft, a);
            if (r->ir.cycle[other] == cy + 1) continue;
            uint64_t key = other;
            uint64_t *val = rectab_get(&agg, &key, NULL);
            val[0] += func_arc_count(&r->ft, a);
            val[1] = func_ndef_join(&r->ft, (uint32_t)val[1], func_arc_ndef(&r->ft, a));
            const tally_wide *c = func_arc_cost(&r->ft, a);
            tally_wide *d = (tally_wide *)(val + 2);
            for (size_t i = 0; i < nc; i++)
                d[i] += c[i]; /* far below 2^127: a few 2^64-bounded sums */
        }
    }
    struct varc *v = xmalloc((agg.count ? agg.count : 1) * sizeof(*v));
    for (size_t k = 0; k < agg.count; k++) {
        uint64_t *val = rectab_val(&agg, k);
        v[k].other = v[k].caller = (uint32_t)rectab_at(&agg, k)[0];
        v[k].count = val[0];
        v[k].ndef = v[k].order_ndef = (uint32_t)val[1];
        v[k].cost = v[k].order = (const tally_wide *)(val + 2);
    }
    print_varcs(r, v, agg.count, dir ? " >   " : " < ");
    free(v);
    rectab_release(&agg);
}

/*
 * Is the threshold of sort event i met by any rows of a callgrind table?
 * A threshold of 0 or less is, by any sum of unsigned costs (not so for the
 * inclusive stop rule, which compares the total less the last row).
 */
static int threshold_always_met(const struct annrep *r, size_t i)
{
    return !r->cg && !r->o->inclusive && !r->p->signed_costs && r->thr[i] <= 0;
}

/*
 * How many entries the function table can show before its threshold stops
 * it, moved to the front of r->ent (the others in no order); all of them
 * when the first sort column alone does not tell. The table of a callgrind
 * profile stops (print_function_table()) once the rows shown sum to thr[0]
 * percent of the first sort event, when every other sort event has a
 * threshold of 0 (met by any sum of unsigned costs). The sum of the first
 * k rows is then the sum of the k largest keys, whatever the order of
 * equal keys: the keys alone tell where the table stops
 * (textfmt_keys_to_reach()), and the rows below the last key shown need
 * no sorting. The table of a large program usually stops long before its
 * last row (a few functions hold most of the cost), so most rows are never
 * sorted.
 */
static size_t shown_rows(struct annrep *r)
{
    size_t n = r->nent;
    if (r->cg || !r->filter_on || r->o->inclusive || r->p->signed_costs || !r->nsort || n < 2)
        return n;
    for (size_t i = 1; i < r->nsort; i++)
        if (!threshold_always_met(r, i)) return n;
    size_t c = r->sort[0];
    int sdef = annrep_defined(r, c, r->summary_ndef) && r->summary[c] > 0;
    tally_wide total = sdef ? r->summary[c] : 1;
    tally_wide *keys = xmalloc(n * sizeof(*keys));
    for (size_t i = 0; i < n; i++)
        keys[i] = r->ent[i].key;
    tally_wide last = 0;
    size_t k = textfmt_keys_to_reach(keys, n, total, r->thr[0], &last);
    free(keys);
    if (k == n || k == 0) return k;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r->ent[i].key >= last) {
            struct entry t = r->ent[m];
            r->ent[m++] = r->ent[i];
            r->ent[i] = t;
        }
    return m;
}

/*
 * The entries in table order, as far as the table can show them
 * (shown_rows()). Many entries (a profile of many copies of one program)
 * are sorted in two halves on two CPUs, then merged; the order is the same
 * (cmp_entries() is a total order: no two rows have one name).
 */
static void sort_entries(struct annrep *r)
{
    worker_sort(r->ent, shown_rows(r), sizeof(*r->ent), cmp_entries, r, 16384);
}

/*
 * How many entries the function table shows: where the thresholds stop it
 * (the rows shown so far reach them, or, for a cachegrind profile, a row
 * below every one). Marks the files of the rows shown (r->file_printed).
 */
static size_t table_stop(struct annrep *r)
{
    const struct annotate_options *o = r->o;
    tally_wide *curr = xcalloc(r->nsort ? r->nsort : 1, sizeof(tally_wide));
    /* a threshold always met is neither checked nor summed */
    char *met = xcalloc(r->nsort ? r->nsort : 1, 1);
    for (size_t i = 0; i < r->nsort; i++)
        met[i] = (char)threshold_always_met(r, i);
    size_t k = 0;
    for (; k < r->nent; k++) {
        const struct entry *e = &r->ent[k];
        if (r->cg) {
            int any = 0;
            for (size_t i = 0; i < r->nsort; i++) {
                size_t c = r->sort[i];
                tally_wide fv = annrep_defined(r, c, e->ndef) ? ent_val(r, e, c) : 0;
                tally_wide sv = annrep_defined(r, c, r->summary_ndef) ? r->summary[c] : 0;
                double prop = textfmt_percent(fv, sv);
                if (prop < 0) prop = -prop;
                if (prop >= r->thr[i]) any = 1;
            }
            if (!any) break;
        } else if (r->filter_on) {
            int all = 1;
            for (size_t i = 0; i < r->nsort; i++) {
                if (met[i]) continue;
                size_t c = r->sort[i];
                int sdef = annrep_defined(r, c, r->summary_ndef) && r->summary[c] > 0;
                double prop = textfmt_percent(curr[i], sdef ? r->summary[c] : 1);
                if (!(prop >= r->thr[i])) all = 0;
            }
            if (all) break;
        }
        if (!e->is_cycle) {
            uint32_t f = func_row_file(&r->ft, e->idx);
            if (!r->file_printed[f]) {
                r->file_printed[f] = 1;
                r->nfile_printed++;
            }
        }
        for (size_t i = 0; i < r->nsort; i++) {
            size_t c = r->sort[i];
            if (met[i] || !annrep_defined(r, c, e->ndef)) continue;
            if (!r->cg && o->inclusive)
                curr[i] = r->summary[c] - ent_val(r, e, c);
            else
                curr[i] += ent_val(r, e, c); /* far below 2^127 */
        }
    }
    free(curr);
    free(met);
    return k;
}

/* The table's line of entry e (its cells, " * " in a tree, its name and object), into b. */
static void row_text(const struct annrep *r, const struct entry *e, int tree, struct bytebuf *b)
{
    if (e->v) {
        cells_out(r, e->v, e->ndef, r->fnw, NULL, b);
    } else { /* a shared record's values, as columns */
        tally_wide *v = xmalloc((r->ncols ? r->ncols : 1) * sizeof(*v));
        for (size_t c = 0; c < r->ncols; c++)
            v[c] = ent_val(r, e, c);
        cells_out(r, v, e->ndef, r->fnw, NULL, b);
        free(v);
    }
    if (tree) bytebuf_add(b, " * ", 3);
    const char *nm[3];
    entry_name(r, e, nm);
    bytebuf_addc(b, ' ');
    for (int i = 0; i < 3; i++)
        bytebuf_add(b, nm[i], strlen(nm[i]));
    if (!e->is_cycle) {
        uint64_t obj = func_row_obj(&r->ft, e->idx);
        const char *os = obj ? profile_str(r->p, (uint32_t)(obj - 1)) : "";
        if (*os) {
            bytebuf_add(b, " [", 2);
            bytebuf_add(b, os, strlen(os));
            bytebuf_addc(b, ']');
        }
    }
    bytebuf_addc(b, '\n');
}

/*
 * The rows of a long table (no trees) are made on two CPUs, in blocks of
 * PRINT_BLOCK rows (worker_blocks(): this thread makes the even blocks and
 * writes every block in order, the other one makes the odd blocks). Memory
 * stays at three blocks of text.
 */
#define PRINT_BLOCK 256
#define PRINT_TWO_CPUS 4096 /* rows, at least */

struct print_rows {
    const struct annrep *r;
    size_t stop;
};

/* Block b of the rows (worker_blocks()'s make). */
static void block_text(void *ctx, size_t b, struct bytebuf *out)
{
    const struct print_rows *s = ctx;
    size_t end = (b + 1) * PRINT_BLOCK < s->stop ? (b + 1) * PRINT_BLOCK : s->stop;
    for (size_t k = b * PRINT_BLOCK; k < end; k++)
        row_text(s->r, &s->r->ent[k], 0, out);
}

/* The first `stop` rows on two CPUs; -1 (nothing written) when no thread could be made. */
static int print_rows_two_cpus(struct annrep *r, size_t stop)
{
    struct print_rows s = {r, stop};
    return worker_blocks(r->out, (stop + PRINT_BLOCK - 1) / PRINT_BLOCK, block_text, &s);
}

/*
 * annrep_widths_add() of every entry, from the largest and the smallest
 * value of each column: a count's width grows with its magnitude, for each
 * sign (the widths of many rows, computed one by one, took as long as
 * sorting them).
 */
static void entry_widths(const struct annrep *r, size_t *w)
{
    size_t nc = r->ncols;
    tally_wide *hi = xmalloc((nc ? nc : 1) * sizeof(*hi)),
               *lo = xmalloc((nc ? nc : 1) * sizeof(*lo));
    char *any = xcalloc(nc ? nc : 1, 1);
    for (size_t i = 0; i < r->nent; i++) {
        const struct entry *e = &r->ent[i];
        for (size_t c = 0; c < nc; c++) {
            if (!annrep_defined(r, c, e->ndef)) continue;
            tally_wide v = ent_val(r, e, c);
            if (!any[c]) {
                hi[c] = lo[c] = v;
                any[c] = 1;
            } else if (v > hi[c]) {
                hi[c] = v;
            } else if (v < lo[c]) {
                lo[c] = v;
            }
        }
    }
    for (size_t c = 0; c < nc; c++) {
        if (!any[c]) continue;
        size_t x = textfmt_count_width(hi[c], r->o->show_percs);
        size_t y = textfmt_count_width(lo[c], r->o->show_percs);
        if (x > w[c]) w[c] = x;
        if (y > w[c]) w[c] = y;
    }
    free(hi);
    free(lo);
    free(any);
}

void annrep_print_totals(struct annrep *r)
{
    FILE *out = r->out;
    size_t nc = r->ncols;
    size_t *sw = xmalloc((nc ? nc : 1) * sizeof(size_t));
    annrep_widths_init(r, sw);
    annrep_widths_add(r, sw, r->summary, r->summary_ndef);
    fputs(RULE, out);
    annrep_print_events(r, sw);
    fputs("\n" RULE, out);
    annrep_print_cc(r, r->summary, r->summary_ndef, sw);
    fputs(" PROGRAM TOTALS", out);
    if (r->summary_calculated) fputs(" (calculated)", out);
    fputs("\n\n", out);
    free(sw);
}

static void print_function_table(struct annrep *r)
{
    FILE *out = r->out;
    const struct annotate_options *o = r->o;
    size_t nc = r->ncols;
    r->fnw = xmalloc((nc ? nc : 1) * sizeof(size_t));
    annrep_widths_init(r, r->fnw);
    entry_widths(r, r->fnw);
    annrep_print_totals(r);
    fputs(RULE, out);
    annrep_print_events(r, r->fnw);
    fputs(" file:function\n" RULE, out);

    sort_entries(r);
    int tree = o->tree_caller || o->tree_calling;
    if (tree) setup_adjacency(r);
    size_t stop = table_stop(r);
    r->nlisted = stop;
    if (tree || stop < PRINT_TWO_CPUS || print_rows_two_cpus(r, stop)) {
        struct bytebuf line = {0};
        for (size_t k = 0; k < stop; k++) {
            struct entry *e = &r->ent[k];
            int show_tree = tree && strcmp(ent_name(r, e), "???:???") != 0;
            if (tree) putc('\n', out);
            if (show_tree && o->tree_caller) {
                if (e->is_cycle)
                    print_cycle_tree(r, e->idx, 0);
                else
                    print_row_tree(r, e->idx, 0);
            }
            line.n = 0;
            row_text(r, e, tree, &line);
            fwrite(line.s, 1, line.n, out);
            if (show_tree && o->tree_calling) {
                if (e->is_cycle)
                    print_cycle_tree(r, e->idx, 1);
                else
                    print_row_tree(r, e->idx, 1);
            }
        }
        bytebuf_release(&line);
    }
    putc('\n', out);
}

/* ------------------------------------------------------------------ main */

static void rep_release(struct annrep *r)
{
    for (size_t c = 0; c < r->ncols; c++) {
        event_expr_release(&r->cols[c]);
        free(r->colnames[c]);
    }
    free(r->cols);
    free(r->colnames);
    free(r->show);
    free(r->sort);
    free(r->thr);
    if (r->thr_text)
        for (size_t i = 0; i < r->nsort; i++)
            free(r->thr_text[i]);
    free(r->thr_text);
    for (size_t i = 0; i < r->nent; i++)
        if (r->ent[i].is_cycle) free(r->cycname[r->ent[i].idx]);
    free(r->cycname);
    free(r->ent);
    if (r->rowname)
        for (size_t i = 0; i < func_nrows(&r->ft); i++)
            free(r->rowname[i]);
    free(r->rowname);
    if (r->have_ir) incl_result_release(&r->ir);
    if (r->have_ft) func_table_release(&r->ft);
    free(r->summary);
    free(r->fnw);
    free(r->in_start);
    free(r->in_arcs);
    free(r->out_start);
    free(r->out_arcs);
    free(r->file_printed);
    free(r->lsorted);
    free(r->csorted);
    free(r->printed);
}

int annotate_report(FILE *out, const struct profile *p, const struct annotate_options *o,
                    struct tally_error *err)
{
    if (p->nparts == 0) return tally_error_set(err, p->path, 0, "profile has no data");
    struct annrep r;
    memset(&r, 0, sizeof(r));
    r.out = out;
    r.p = p;
    r.pt = p->parts[0];
    r.o = o;
    r.cg = p->format == PROFILE_FORMAT_CACHEGRIND;
    int rc = -1;
    if (setup_columns(&r, err)) goto done;
    /* per-line tables are made later, for the source files found (annrep_sources()) */
    /* a part whose every line gave every count has no undefined count (funcs.h) */
    int all_defined = r.pt->counts_complete;
    struct func_options fo = {r.ncols, r.cols, r.cg ? NULL : o->cwd, 0, all_defined, o->mod_file,
                              o->mod_fn, /* arcs only for a view that shows calls */
                              !o->inclusive && !o->tree_caller && !o->tree_calling,
                              /* rows point at their cost records unless inclusive costs are
                                 computed from them */
                              !o->inclusive,
                              /* cachegrind's `.`: each column apart (funcs.h) */
                              r.cg && !all_defined && !o->inclusive};
    if (func_table_build(&r.ft, p, &fo, err)) goto done;
    r.have_ft = 1;
    r.fo = &fo;
    if (setup_summary(&r, err) || setup_entries(&r, err)) goto done;
    r.file_printed = xcalloc(func_nnames(&r.ft) + 1, 1);
    print_header(&r);
    if (o->group) {
        annrep_print_totals(&r);
        if (annrep_groups(&r, err)) goto done;
    } else {
        print_function_table(&r);
        if (annrep_sources(&r, err)) goto done;
        if (o->asm_code && annrep_asm(&r, err)) goto done;
    }
    if (textfmt_finish(out, "report", err)) goto done;
    rc = 0;
done:
    rep_release(&r);
    return rc;
}
