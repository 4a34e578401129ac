/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.c - the self-contained HTML report: data reduction and the page.
 */
#include "html.h"
#include "../analysis/callgraph.h"
#include "html_assets.h"
#include "../io/jsonstr.h"
#include "srcfile.h"
#include "textfmt.h"
#include "xmltext.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SOURCE_MAX_BYTES ((size_t)32 << 20)

void html_options_init(struct html_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_source = SIZE_MAX;
}

void html_options_release(struct html_options *o)
{
    strlist_release(&o->include);
    strlist_release(&o->inputs);
}

/* JSON strings in the page sit inside a <script> element (jsonstr.h). */
static void json_strn(FILE *out, const char *s, size_t n)
{
    jsonstr_write(out, s, n, JSONSTR_SCRIPT);
}

static void json_str(FILE *out, const char *s)
{
    jsonstr_puts(out, s, JSONSTR_SCRIPT);
}

static void json_costs(FILE *out, const tally_wide *v, size_t n)
{
    char num[TALLY_WIDE_DIGITS];
    fputc('[', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? "," : "", tally_wide_str(v[i], num));
    fputc(']', out);
}

/* ---- the state of one report ------------------------------------------- */

struct source {
    int state; /* 0 = not tried, 1 = read, -1 = not found */
    char *path;
    struct srcfile_text t;
};

struct rep {
    const struct profile *p;
    const struct html_options *o;
    size_t ncols;
    struct event_expr *cols;
    char **colnames;
    struct callgraph g;
    int have_g;
    uint32_t *order;   /* [nship] node indices, by rank */
    uint32_t *ship_of; /* [nnodes] shipped index, or UINT32_MAX */
    size_t nship;
    struct rectab lines;  /* (ship idx << 32 | file, line) -> cost[ncols] */
    struct source *files; /* by file name id */
    size_t nfiles;
};

static void rep_release(struct rep *r)
{
    for (size_t c = 0; c < r->ncols; c++) {
        event_expr_release(&r->cols[c]);
    }
    free(r->cols);
    free(r->colnames);
    if (r->have_g) callgraph_release(&r->g);
    free(r->order);
    free(r->ship_of);
    rectab_release(&r->lines);
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].path);
        srcfile_text_release(&r->files[i].t);
    }
    free(r->files);
}

/* Every base event, then every derived event, as columns. */
static void setup_columns(struct rep *r)
{
    const struct eventset *es = &r->p->parts[0]->events;
    r->ncols = es->n + es->nderived;
    r->cols = xcalloc(r->ncols ? r->ncols : 1, sizeof(*r->cols));
    r->colnames = xcalloc(r->ncols ? r->ncols : 1, sizeof(*r->colnames));
    for (size_t i = 0; i < es->n; i++) {
        r->cols[i].nterms = 1;
        r->cols[i].terms = xmalloc(sizeof(struct event_term));
        r->cols[i].terms[0].factor = 1;
        r->cols[i].terms[0].event = i;
        r->colnames[i] = es->names[i];
    }
    for (size_t k = 0; k < es->nderived; k++) {
        struct event_expr *e = &r->cols[es->n + k];
        const struct event_expr *d = &es->derived[k].expr;
        e->nterms = d->nterms;
        e->terms = xmalloc((d->nterms ? d->nterms : 1) * sizeof(struct event_term));
        memcpy(e->terms, d->terms, d->nterms * sizeof(struct event_term));
        r->colnames[es->n + k] = es->derived[k].name;
    }
}

static int by_rank(const void *a, const void *b, void *ctx)
{
    const double *sort_key = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sort_key[x] != sort_key[y]) return sort_key[x] > sort_key[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The shipped functions: largest inclusive share over every column first. */
static void rank_functions(struct rep *r)
{
    const struct callgraph *g = &r->g;
    size_t n = g->nnodes;
    double *key = xcalloc(n ? n : 1, sizeof(double));
    uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
    for (size_t v = 0; v < n; v++) {
        idx[v] = (uint32_t)v;
        double best = 0;
        for (size_t c = 0; c < r->ncols; c++) {
            double s = callgraph_share(g, c, callgraph_incl(g, v)[c]);
            if (s < 0) s = -s; /* diff profiles: the size of the change */
            if (s > best) best = s;
        }
        key[v] = best;
    }
    qsort_r(idx, n, sizeof(uint32_t), by_rank, key);
    size_t max = r->o->max_functions ? r->o->max_functions : HTML_DEFAULT_MAX_FUNCTIONS;
    r->nship = n < max ? n : max;
    r->order = idx;
    r->ship_of = xmalloc((n ? n : 1) * sizeof(uint32_t));
    memset(r->ship_of, 0xff, (n ? n : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < r->nship; i++)
        r->ship_of[idx[i]] = (uint32_t)i;
    free(key);
}

/* ---- source ----------------------------------------------------------------- */

/* srcfile_find's test: a regular file of at most SOURCE_MAX_BYTES that
 * reads (into the srcfile_text ctx). */
static int read_source(const char *path, void *ctx)
{
    return srcfile_text_read(ctx, path, SOURCE_MAX_BYTES) == 0;
}

static struct source *source_file(struct rep *r, uint32_t file)
{
    if (file >= r->nfiles) return NULL;
    struct source *f = &r->files[file];
    if (f->state) return f->state > 0 ? f : NULL;
    f->state = -1;
    const char *name = profile_str(r->p, file);
    if (!name || !name[0] || strcmp(name, "???") == 0) return NULL;
    struct srcfile_found found;
    if (!srcfile_find(name, &r->o->include, SRCFILE_BASE, read_source, &f->t, &found)) return NULL;
    f->state = 1;
    f->path = found.path;
    return f;
}

/* Per-line costs of the functions that get their source shown. */
static int collect_lines(struct rep *r, size_t nsrc, struct tally_error *err)
{
    const struct part *pt = r->p->parts[0];
    size_t nf = profile_nfunctions(r->p), nc = r->ncols;
    uint32_t *src_of = xmalloc((nf ? nf : 1) * sizeof(uint32_t));
    memset(src_of, 0xff, (nf ? nf : 1) * sizeof(uint32_t));
    for (size_t i = 0; i < nsrc; i++)
        src_of[r->g.fn[r->order[i]]] = (uint32_t)i;
    rectab_init(&r->lines, 2, 2 * (nc ? nc : 1)); /* a tally_wide is two record words */
    tally_wide *vec = xcalloc(nc ? nc : 1, sizeof(tally_wide));
    int rc = 0;
    for (size_t i = 0; i < part_ncosts(pt) && !rc; i++) {
        struct cost_rec cr;
        part_cost_get(pt, i, &cr);
        uint32_t s = src_of[cr.fn];
        if (s == UINT32_MAX || cr.pos.line == 0) continue;
        uint64_t key[2] = {(uint64_t)s << 32 | cr.pos.file, cr.pos.line};
        tally_wide *dst = (tally_wide *)rectab_get(&r->lines, key, NULL);
        for (size_t c = 0; c < nc && !rc; c++)
            if (event_expr_eval(&r->cols[c], cr.cost, r->p->signed_costs, &vec[c]) ||
                __builtin_add_overflow(dst[c], vec[c], &dst[c]))
                rc = tally_error_set(err, r->p->path, 0, "a line's cost is too large");
    }
    free(vec);
    free(src_of);
    return rc;
}

struct lineref {
    uint32_t file;
    uint64_t line;
    size_t rec;
};

static int by_file_line(const void *a, const void *b)
{
    const struct lineref *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void write_line(FILE *out, const struct source *f, uint64_t line)
{
    const struct srcfile_text *t = &f->t;
    size_t a = t->line_off[line - 1], b = t->line_off[line];
    /* A last line without '\n' has always been shipped with the NUL that
     * ends the text ("\u0000"): kept as it is while the code moves (issue
     * 16 wants byte-identical output); a defect to fix on its own. */
    if (line == t->nlines && t->len && t->text[t->len - 1] != '\n') b++;
    size_t n = b > a ? b - a : 0;
    while (n && (t->text[a + n - 1] == '\n' || t->text[a + n - 1] == '\r'))
        n--;
    json_strn(out, t->text + a, n);
}

/* "src": {"SHIPIDX": [{"file": PATH, "lines": [[N, TEXT, COSTS|0], ...]}, ...], ...} */
static void write_sources(struct rep *r, FILE *out, size_t nsrc)
{
    size_t nrec = r->lines.count, nc = r->ncols;
    struct lineref *refs = xmalloc((nrec ? nrec : 1) * sizeof(*refs));
    /* records grouped by shipped function */
    size_t *start = xcalloc(nsrc + 1, sizeof(size_t));
    for (size_t i = 0; i < nrec; i++)
        start[(rectab_at(&r->lines, i)[0] >> 32) + 1]++;
    for (size_t s = 0; s < nsrc; s++)
        start[s + 1] += start[s];
    size_t *fill = xmalloc((nsrc + 1) * sizeof(size_t));
    memcpy(fill, start, (nsrc + 1) * sizeof(size_t));
    for (size_t i = 0; i < nrec; i++) {
        const uint64_t *k = rectab_at(&r->lines, i);
        struct lineref *lr = &refs[fill[k[0] >> 32]++];
        lr->file = (uint32_t)k[0];
        lr->line = k[1];
        lr->rec = i;
    }
    free(fill);
    fputs("\"src\":{", out);
    int first_fn = 1;
    for (size_t s = 0; s < nsrc; s++) {
        struct lineref *L = refs + start[s];
        size_t n = start[s + 1] - start[s];
        if (!n) continue;
        qsort(L, n, sizeof(*L), by_file_line);
        int first_file = 1;
        size_t budget = SOURCE_MAX_LINES;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && L[j].file == L[i].file)
                j++;
            struct source *f = source_file(r, L[i].file);
            if (!f || !budget) {
                i = j;
                continue;
            }
            if (first_file) {
                fprintf(out, "%s\"%zu\":[", first_fn ? "" : ",", s);
                first_fn = 0;
            }
            fprintf(out, "%s{\"file\":", first_file ? "" : ",");
            first_file = 0;
            json_str(out, f->path);
            fputs(",\"lines\":[", out);
            int first_line = 1;
            uint64_t shown = 0; /* last line written */
            for (size_t k = i; k < j && budget; k++) {
                uint64_t ln = L[k].line;
                uint64_t from = ln > SOURCE_CONTEXT ? ln - SOURCE_CONTEXT : 1;
                if (from <= shown) from = shown + 1;
                uint64_t next = k + 1 < j ? L[k + 1].line : 0;
                for (uint64_t x = from; x <= ln + SOURCE_CONTEXT && budget; x++) {
                    if (x > ln && next && x >= next) break; /* the next cost line takes over */
                    if (x > f->t.nlines && x != ln) break;
                    fprintf(out, "%s[%" PRIu64 ",", first_line ? "" : ",", x);
                    first_line = 0;
                    if (x <= f->t.nlines)
                        write_line(out, f, x);
                    else
                        fputs("\"\"", out);
                    if (x == ln) {
                        fputc(',', out);
                        json_costs(out, (const tally_wide *)rectab_val(&r->lines, L[k].rec), nc);
                    }
                    fputc(']', out);
                    shown = x;
                    budget--;
                }
            }
            fputs("]}", out);
            i = j;
        }
        if (!first_file) fputc(']', out);
    }
    fputc('}', out);
    free(start);
    free(refs);
}

/* ---- the data ------------------------------------------------------------------ */

static void write_data(struct rep *r, FILE *out, size_t nsrc)
{
    const struct profile *p = r->p;
    const struct part *pt = p->parts[0];
    const struct callgraph *g = &r->g;
    size_t nc = r->ncols;
    fputs("{\"cmd\":", out);
    json_str(out, pt->cmd);
    fputs(",\"creator\":", out);
    json_str(out, p->creator);
    fputs(",\"inputs\":[", out);
    for (size_t i = 0; i < r->o->inputs.n; i++) {
        if (i) fputc(',', out);
        json_str(out, r->o->inputs.items[i]);
    }
    fputs("],\"events\":[", out);
    for (size_t c = 0; c < nc; c++) {
        if (c) fputc(',', out);
        json_str(out, r->colnames[c]);
    }
    fputs("],\"long\":[", out);
    for (size_t c = 0; c < nc; c++) {
        const struct eventset *es = &pt->events;
        const char *ln = c < es->n ? es->long_names[c] : es->derived[c - es->n].long_name;
        if (c) fputc(',', out);
        json_str(out, ln ? ln : "");
    }
    fputs("],\"totals\":", out);
    json_costs(out, g->total, nc);
    fprintf(out, ",\"nfunctions\":%zu,\"narcs\":%zu,\"signed\":%d,\"funcs\":[\n", g->nnodes,
            g->narcs, p->signed_costs ? 1 : 0);
    for (size_t i = 0; i < r->nship; i++) {
        uint32_t v = r->order[i];
        struct function f = profile_function_at(p, g->fn[v]);
        size_t hidden_in = 0, hidden_out = 0;
        for (size_t k = g->in_start[v]; k < g->in_start[v + 1]; k++)
            hidden_in += r->ship_of[g->from[g->in_arcs[k]]] == UINT32_MAX;
        for (size_t k = g->out_start[v]; k < g->out_start[v + 1]; k++)
            hidden_out += r->ship_of[g->to[g->out_arcs[k]]] == UINT32_MAX;
        fprintf(out, "%s{\"id\":%" PRIu32 ",\"n\":", i ? ",\n" : "", g->fn[v]);
        json_str(out, profile_str(p, f.name));
        fputs(",\"f\":", out);
        json_str(out, profile_str(p, f.file));
        fputs(",\"o\":", out);
        json_str(out, f.obj ? profile_str(p, f.obj) : "");
        fputs(",\"s\":", out);
        json_costs(out, g->self + (size_t)v * nc, nc);
        fputs(",\"i\":", out);
        json_costs(out, callgraph_incl(g, v), nc);
        fprintf(out,
                ",\"c\":%" PRIu64 ",\"rc\":%" PRIu64 ",\"y\":%" PRIu32
                ",\"e\":%d,\"hi\":%zu,\"ho\":%zu}",
                g->calls[v], g->reccalls[v], g->ir.cycle[v], incl_estimated(&g->ir, v), hidden_in,
                hidden_out);
    }
    fputs("],\n\"arcs\":[", out);
    int first = 1;
    for (size_t a = 0; a < g->narcs; a++) {
        uint32_t f = r->ship_of[g->from[a]], t = r->ship_of[g->to[a]];
        if (f == UINT32_MAX || t == UINT32_MAX) continue;
        fprintf(out, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%d,", first ? "" : ",\n", f, t,
                g->count[a], callgraph_arc_recursive(g, a));
        first = 0;
        json_costs(out, g->cost + a * nc, nc);
        fputc(']', out);
    }
    fputs("],\n\"cycles\":[", out);
    for (size_t c = 0; c < g->ir.ncycles; c++) {
        if (c) fputc(',', out);
        json_costs(out, g->ir.cycle_incl + c * nc, nc);
    }
    fputs("],\n", out);
    write_sources(r, out, nsrc);
    fputs("}", out);
}

/* The data of a page without a profile (aprof reports only). */
static void write_empty_data(struct rep *r, FILE *out)
{
    fputs("{\"cmd\":\"\",\"creator\":\"\",\"inputs\":[", out);
    for (size_t i = 0; i < r->o->inputs.n; i++) {
        if (i) fputc(',', out);
        json_str(out, r->o->inputs.items[i]);
    }
    fputs("],\"events\":[],\"long\":[],\"totals\":[],\"nfunctions\":0,\"narcs\":0,"
          "\"signed\":0,\"funcs\":[],\"arcs\":[],\"cycles\":[],\"src\":{}}",
          out);
}

static void write_asset(FILE *out, const char *const *lines)
{
    for (; *lines; lines++)
        fputs(*lines, out);
}

int html_report_write(FILE *out, const struct profile *p, const struct html_options *o,
                      struct tally_error *err)
{
    if (p && p->nparts == 0) return tally_error_set(err, p->path, 0, "profile has no data");
    struct rep r;
    memset(&r, 0, sizeof(r));
    r.p = p;
    r.o = o;
    int rc = -1;
    size_t nsrc = 0;
    rectab_init(&r.lines, 2, 1);
    if (p) {
        setup_columns(&r);
        if (callgraph_build(&r.g, p, 0, r.cols, r.ncols, err)) goto done;
        r.have_g = 1;
        rank_functions(&r);
        nsrc = o->max_source == SIZE_MAX ? HTML_DEFAULT_MAX_SOURCE : o->max_source;
        if (nsrc > r.nship) nsrc = r.nship;
        r.nfiles = p->names.n + 1;
        r.files = xcalloc(r.nfiles, sizeof(*r.files));
        rectab_release(&r.lines);
        if (collect_lines(&r, nsrc, err)) goto done;
    }

    const char *cmd = p ? p->parts[0]->cmd : NULL;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"tally report\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>",
          out);
    if (o->title)
        xml_text(out, o->title, SIZE_MAX);
    else {
        fputs("tally report: ", out);
        xml_text(out,
                 cmd            ? cmd
                 : o->inputs.n  ? o->inputs.items[0]
                 : p && p->path ? p->path
                                : "profile",
                 SIZE_MAX);
    }
    fputs("</title>\n<style>\n", out);
    write_asset(out, html_asset_css);
    fputs("</style>\n</head>\n<body>\n", out);
    write_asset(out, html_asset_body);
    fputs("<section id=\"pictures\">\n", out);
    fputs("<details id=\"flame-section\" open><summary>Flame graph</summary>\n"
          "<div id=\"flame\" class=\"picture\">",
          out);
    if (o->flame_svg)
        fputs(o->flame_svg, out);
    else {
        fputs("<p class=\"note\">", out);
        xml_text(out, o->flame_note ? o->flame_note : "No flame graph.", SIZE_MAX);
        fputs("</p>", out);
    }
    fputs("</div></details>\n<details id=\"callgraph-section\" open><summary>Call graph"
          "</summary>\n",
          out);
    if (o->callgraph_svg)
        fputs("<div class=\"controls zoom\" id=\"graph-zoom\"><button id=\"graph-fit\" title=\"Fit "
              "the "
              "width of the page\">Fit width</button><button id=\"graph-out\" title=\"Zoom out\">"
              "\xe2\x88\x92</button><button id=\"graph-in\" title=\"Zoom in\">+</button><button "
              "id=\"graph-one\" title=\"Actual size\">1:1</button><span class=\"count\" "
              "id=\"graph-scale\"></span><span class=\"count\">drag to pan</span></div>\n",
              out);
    fputs("<div id=\"callgraph\" class=\"picture\">", out);
    if (o->callgraph_svg)
        fputs(o->callgraph_svg, out);
    else {
        fputs("<p class=\"note\">", out);
        xml_text(out, o->callgraph_note ? o->callgraph_note : "No call graph.", SIZE_MAX);
        fputs("</p>", out);
    }
    fputs("</div></details>\n", out);
    if (o->extra_html) fputs(o->extra_html, out);
    fputs("</section>\n<script type=\"application/json\" id=\"tally-data\">", out);
    if (p)
        write_data(&r, out, nsrc);
    else
        write_empty_data(&r, out);
    fputs("</script>\n<script>\n", out);
    write_asset(out, html_asset_js);
    fputs("</script>\n</body>\n</html>\n", out);
    if (textfmt_finish(out, "report", err)) goto done;
    rc = 0;
done:
    rep_release(&r);
    return rc;
}
