/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * api.c - the API of `tally view`: routing, arguments, and the answers
 * that are tables (meta, functions, function). The others are in
 * api_source.c, api_graph.c, api_trees.c and api_complexity.c. See api.h.
 */
#include "api.h"
#include "api_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/jsonstr.h"
#include "../report/srcfile.h"

/* ---- arguments ------------------------------------------------------------- */

const char *view_arg(const struct view_args *a, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->key[i], key)) v = a->val[i];
    return v;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t view_unescape(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        int h = *p == '%' ? hexval((unsigned char)p[1]) : -1;
        int l = h < 0 ? -1 : hexval((unsigned char)p[2]);
        if (l >= 0 && (h || l)) {
            *o++ = (char)(h * 16 + l);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return (size_t)(o - s);
}

/* A query string's '+' is a blank; then the %HH escapes. */
static void query_decode(char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '+') *p = ' ';
    view_unescape(s);
}

int view_args_parse(char *buf, struct view_args *a)
{
    a->n = 0;
    for (char *p = buf; p && *p;) {
        char *amp = strchr(p, '&');
        if (amp) *amp = 0;
        if (*p) {
            if (a->n == VIEW_MAX_ARGS) return -1;
            char *eq = strchr(p, '=');
            if (eq) *eq = 0;
            query_decode(p);
            if (eq) query_decode(eq + 1);
            a->key[a->n] = p;
            a->val[a->n++] = eq ? eq + 1 : "";
        }
        p = amp ? amp + 1 : NULL;
    }
    return 0;
}

/* An unsigned number argument in [0, max]; absent gives dflt. Returns 0, or
 * -1 with a 400 answer. */
int api_num(const struct view_args *a, const char *key, uint64_t dflt, uint64_t max, uint64_t *out,
            struct view_reply *r)
{
    const char *v = view_arg(a, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || v[0] == '+' || x > max) {
        api_error(r, 400, "bad value of %s: '%.40s' (a number from 0 to %" PRIu64 ")", key, v, max);
        return -1;
    }
    *out = x;
    return 0;
}

/* ---- replies --------------------------------------------------------------- */

void api_error(struct view_reply *r, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    struct api_out o;
    api_open(&o);
    fputs("{\"error\": ", o.fp);
    jsonstr_puts(o.fp, msg, 0);
    fputs("}\n", o.fp);
    api_close(&o, r, status);
}

void api_open(struct api_out *o)
{
    o->buf = NULL;
    o->len = 0;
    o->fp = open_memstream(&o->buf, &o->len);
    if (!o->fp) xalloc_failed(0);
}

void api_close(struct api_out *o, struct view_reply *r, int status)
{
    if (fclose(o->fp)) xalloc_failed(o->len);
    r->status = status;
    r->type = "application/json; charset=utf-8";
    r->body = o->buf;
    r->len = o->len;
}

/* A cost: a JSON number, or a string of digits past 2^53 (a double would
   round it). */
void api_cost(FILE *fp, tally_wide v)
{
    const tally_wide lim = (tally_wide)1 << 53;
    if (v <= lim && v >= -lim) {
        fprintf(fp, "%lld", (long long)v);
    } else {
        char buf[TALLY_WIDE_DIGITS];
        fprintf(fp, "\"%s\"", tally_wide_str(v, buf));
    }
}

void api_costs(FILE *fp, const tally_wide *v, size_t n)
{
    fputc('[', fp);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', fp);
        api_cost(fp, v[i]);
    }
    fputc(']', fp);
}

/* A vector of the graph's cost words (g.ncols of them). */
void api_words(FILE *fp, const struct view_sel *s, const uint64_t *w)
{
    fputc('[', fp);
    for (size_t i = 0; i < s->g.ncols; i++) {
        if (i) fputc(',', fp);
        api_cost(fp, vgraph_val(&s->g, w[i]));
    }
    fputc(']', fp);
}

/* "name", "file", "obj" of node v */
void api_names(FILE *fp, const struct view_sel *s, uint32_t v)
{
    struct function f = profile_function_at(s->p, s->g.fn[v]);
    fprintf(fp, "\"id\": %" PRIu32 ", \"name\": ", s->g.fn[v]);
    jsonstr_puts(fp, profile_str(s->p, f.name), 0);
    fputs(", \"file\": ", fp);
    jsonstr_puts(fp, profile_str(s->p, f.file), 0);
    fputs(", \"obj\": ", fp);
    jsonstr_puts(fp, profile_str(s->p, f.obj), 0);
}

/* The node named by the `id` argument, or VIEW_NO_NODE with a 400/404 answer. */
uint32_t api_node_arg(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    uint64_t id;
    if (!view_arg(a, "id")) {
        api_error(r, 400, "which function? (id=N)");
        return VIEW_NO_NODE;
    }
    if (api_num(a, "id", 0, UINT32_MAX, &id, r)) return VIEW_NO_NODE;
    uint32_t v = view_node(s, id);
    if (v == VIEW_NO_NODE) api_error(r, 404, "no function %" PRIu64 " with a cost", id);
    return v;
}

/* The `ev` argument: an index of the events. */
int api_event_arg(const struct view_sel *s, const struct view_args *a, size_t *ev,
                  struct view_reply *r)
{
    uint64_t e;
    size_t n = s->g.ncols;
    if (api_num(a, "ev", 0, n ? n - 1 : 0, &e, r)) return -1;
    *ev = (size_t)e;
    return 0;
}

/* ---- meta ----------------------------------------------------------------- */

static void answer_meta(struct view_sel *s, struct view_reply *r)
{
    struct api_out o;
    api_open(&o);
    FILE *fp = o.fp;
    const struct part *pt = s->g.parts[0];
    const char *cmd = pt->cmd ? pt->cmd : "";
    fputs("{\"title\": ", fp);
    if (s->ses->cfg.title) {
        jsonstr_puts(fp, s->ses->cfg.title, 0);
    } else {
        char *t = xmalloc(strlen(cmd) + 16);
        sprintf(t, "tally view: %s", cmd);
        jsonstr_puts(fp, t, 0);
        free(t);
    }
    fputs(", \"cmd\": ", fp);
    jsonstr_puts(fp, cmd, 0);
    fputs(", \"creator\": ", fp);
    jsonstr_puts(fp, s->p->creator ? s->p->creator : "", 0);
    fputs(", \"inputs\": [", fp);
    for (size_t i = 0; i < s->ses->cfg.inputs.n; i++) {
        if (i) fputs(", ", fp);
        jsonstr_puts(fp, s->ses->cfg.inputs.items[i], 0);
    }
    fputs("], \"events\": [", fp);
    for (size_t e = 0; e < pt->events.n; e++) {
        fputs(e ? ", {\"name\": " : "{\"name\": ", fp);
        jsonstr_puts(fp, pt->events.names[e], 0);
        fputs(", \"long\": ", fp);
        jsonstr_puts(fp, pt->events.long_names[e] ? pt->events.long_names[e] : "", 0);
        fputc('}', fp);
    }
    fputs("], \"totals\": ", fp);
    api_costs(fp, s->g.total, s->g.ncols);
    fputs(", \"parts\": [", fp);
    const struct view_session *ses = s->ses;
    for (size_t i = 0; i < ses->nparts; i++) {
        const struct part *q = ses->p->parts[i];
        char label[128];
        view_part_label(ses, i, label, sizeof(label));
        fprintf(fp, "%s{\"index\": %zu, \"label\": ", i ? ", " : "", i);
        jsonstr_puts(fp, label, 0);
        fputs(", \"events\": [", fp);
        for (size_t e = 0; e < q->events.n; e++) {
            if (e) fputs(", ", fp);
            jsonstr_puts(fp, q->events.names[e], 0);
        }
        const uint64_t *t = ses->stores[i].total;
        fputs("], \"totals\": [", fp);
        for (size_t e = 0; e < q->events.n; e++) {
            if (e) fputc(',', fp);
            api_cost(fp, ses->p->signed_costs ? (tally_wide)(int64_t)t[e] : (tally_wide)t[e]);
        }
        fputc(']', fp);
        fputc('}', fp);
    }
    fprintf(fp, "], \"selected\": ");
    jsonstr_puts(fp, s->key, 0);
    fprintf(fp, ", \"nfunctions\": %zu, \"stacks\": \"%s\"", s->g.nnodes,
            s->p->cct     ? "exact"
            : s->g.nnodes ? "estimated"
                          : "none");
    fprintf(fp, ", \"complexity\": %s, \"base\": ", s->ses->cfg.complexity ? "true" : "false");
    if (s->base_of) {
        const struct view_session *bs = s->ses;
        fputs("{\"inputs\": [", fp);
        for (size_t i = 0; i < bs->cfg.base_inputs.n; i++) {
            if (i) fputs(", ", fp);
            jsonstr_puts(fp, bs->cfg.base_inputs.items[i], 0);
        }
        fputs("], \"totals\": [", fp);
        for (size_t e = 0; e < s->g.ncols; e++) {
            if (e) fputc(',', fp);
            if (bs->base_ev[e] == SIZE_MAX)
                fputs("null", fp);
            else
                api_cost(fp, bs->base_g.total[bs->base_ev[e]]);
        }
        fputs("]}", fp);
    } else {
        fputs("null", fp);
    }
    fputs(", \"editor\": ", fp);
    if (s->ses->cfg.editor)
        jsonstr_puts(fp, s->ses->cfg.editor, 0);
    else
        fputs("null", fp);
    fputs("}\n", fp);
    api_close(&o, r, 200);
}

/* ---- the function table ------------------------------------------------------ */

static const char *const sort_names[] = {"incl", "self", "calls", "name", "obj", "file", "change"};
#define NSORTS (sizeof(sort_names) / sizeof(sort_names[0]))

/* A base value per event (null where the base lacks the event). */
static void base_values(FILE *fp, const struct view_sel *s, uint32_t b, int incl)
{
    const struct view_session *ses = s->ses;
    fputc('[', fp);
    for (size_t e = 0; e < s->g.ncols; e++) {
        if (e) fputc(',', fp);
        if (ses->base_ev[e] == SIZE_MAX)
            fputs("null", fp);
        else
            api_cost(fp, incl ? view_base_incl(ses, b, e) : view_base_self(ses, b, e));
    }
    fputc(']', fp);
}

/* The fields of node v's table row (without the braces). */
static void row_fields(FILE *fp, const struct view_sel *s, uint32_t v)
{
    const struct vgraph *g = &s->g;
    api_names(fp, s, v);
    fputs(", \"self\": ", fp);
    api_words(fp, s, g->self + (size_t)v * g->ncols);
    fputs(", \"incl\": ", fp);
    api_words(fp, s, g->incl + (size_t)v * g->ncols);
    fprintf(fp, ", \"calls\": %" PRIu64 ", \"cycle\": %" PRIu32 ", \"est\": %s", g->calls[v],
            g->cycle[v], g->est[v] ? "true" : "false");
    if (s->base_of) {
        uint32_t b = s->base_of[v];
        fputs(", \"base_self\": ", fp);
        base_values(fp, s, b, 0);
        fputs(", \"base_incl\": ", fp);
        base_values(fp, s, b, 1);
        fprintf(fp, ", \"base_calls\": %" PRIu64, b == VIEW_NO_NODE ? 0 : s->ses->base_g.calls[b]);
    }
}

void api_row(FILE *fp, const struct view_sel *s, uint32_t v)
{
    fputc('{', fp);
    row_fields(fp, s, v);
    fputc('}', fp);
}

static void answer_functions(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    size_t ev;
    uint64_t off, lim;
    if (api_event_arg(s, a, &ev, r) || api_num(a, "offset", 0, UINT32_MAX, &off, r) ||
        api_num(a, "limit", 200, 5000, &lim, r))
        return;
    int sort = 0;
    const char *sv = view_arg(a, "sort");
    if (sv) {
        for (sort = 0; sort < (int)NSORTS && strcmp(sv, sort_names[sort]); sort++)
            ;
        if (sort == (int)NSORTS || (sort == 6 && !s->base_of)) {
            api_error(r, 400, "bad sort '%.40s' (incl, self, calls, name, obj, file%s)", sv,
                      s->base_of ? " or change" : "; change with --base");
            return;
        }
    }
    const char *dir = view_arg(a, "dir");
    if (dir && strcmp(dir, "asc") && strcmp(dir, "desc")) {
        api_error(r, 400, "bad dir '%.40s' (asc or desc)", dir);
        return;
    }
    int desc = dir ? !strcmp(dir, "desc") : sort < 3 || sort == 6;
    struct tally_error err = {0};
    const struct view_order *ord = view_order_get(s, ev, sort, desc, view_arg(a, "q"), &err);
    if (!ord) {
        api_error(r, 400, "%s", err.msg);
        return;
    }
    struct api_out o;
    api_open(&o);
    fprintf(o.fp,
            "{\"total\": %zu, \"all\": %zu, \"offset\": %" PRIu64 ", \"match_self\": ", ord->n,
            s->g.nnodes, off);
    api_costs(o.fp, ord->match_self, s->g.ncols);
    fputs(", \"rows\": [", o.fp);
    for (uint64_t i = off; i < ord->n && i < off + lim; i++) {
        if (i > off) fputs(",\n", o.fp);
        api_row(o.fp, s, ord->nodes[i]);
    }
    fputs("]}\n", o.fp);
    api_close(&o, r, 200);
}

/* ---- one function ------------------------------------------------------------ */

static void arc_list(FILE *fp, const struct view_sel *s, const size_t *start, const uint32_t *arcs,
                     uint32_t v, int callers)
{
    const struct vgraph *g = &s->g;
    size_t n = start[v + 1] - start[v];
    tally_wide *c = xmalloc((callers ? 1 : n ? n : 1) * g->ncols * sizeof(*c));
    if (!callers) vgraph_out_costs(g, v, c); /* the callees' costs in one pass */
    for (size_t i = start[v]; i < start[v + 1]; i++) {
        uint32_t a = arcs[i], w = callers ? g->from[a] : g->to[a];
        const tally_wide *cost = callers ? c : c + (i - start[v]) * g->ncols;
        fputs(i > start[v] ? ",\n  {" : "\n  {", fp);
        api_names(fp, s, w);
        fprintf(fp, ", \"calls\": %" PRIu64 ", \"incl\": ", g->count[a]);
        if (callers) vgraph_arc_costs(g, a, c);
        api_costs(fp, cost, g->ncols);
        if (s->base_of) {
            /* the same calls in the base */
            const struct view_session *ses = s->ses;
            uint32_t bu = s->base_of[g->from[a]], bw = s->base_of[g->to[a]];
            size_t ba = bu == VIEW_NO_NODE || bw == VIEW_NO_NODE
                            ? SIZE_MAX
                            : vgraph_find_arc(&ses->base_g, bu, bw);
            tally_wide *bc = xcalloc(ses->base_g.ncols ? ses->base_g.ncols : 1, sizeof(*bc));
            if (ba != SIZE_MAX) vgraph_arc_costs(&ses->base_g, ba, bc);
            fprintf(fp, ", \"base_calls\": %" PRIu64 ", \"base_incl\": [",
                    ba == SIZE_MAX ? 0 : ses->base_g.count[ba]);
            for (size_t e = 0; e < g->ncols; e++) {
                if (e) fputc(',', fp);
                if (ses->base_ev[e] == SIZE_MAX)
                    fputs("null", fp);
                else
                    api_cost(fp, bc[ses->base_ev[e]]);
            }
            fputc(']', fp);
            free(bc);
        }
        fputc('}', fp);
    }
    free(c);
}

static void answer_function(struct view_sel *s, const struct view_args *a, struct view_reply *r)
{
    uint32_t v = api_node_arg(s, a, r);
    if (v == VIEW_NO_NODE) return;
    struct api_out o;
    api_open(&o);
    fputc('{', o.fp);
    row_fields(o.fp, s, v);
    fputs(", \"callers\": [", o.fp);
    arc_list(o.fp, s, s->g.in_start, s->g.in_arcs, v, 1);
    fputs("], \"callees\": [", o.fp);
    arc_list(o.fp, s, s->g.out_start, s->g.out_arcs, v, 0);
    fputs("]}\n", o.fp);
    api_close(&o, r, 200);
}

/* ---- routing ------------------------------------------------------------------ */

void view_answer(struct view_session *ses, const char *path, const struct view_args *a,
                 struct view_reply *r)
{
    memset(r, 0, sizeof(*r));
    struct tally_error err = {0};
    struct view_sel *s = view_select(ses, view_arg(a, "parts"), &err);
    if (!s) {
        api_error(r, 400, "%s", err.msg);
        return;
    }
    static const struct {
        const char *path;
        void (*fn)(struct view_sel *, const struct view_args *, struct view_reply *);
    } routes[] = {
        {"/api/functions", answer_functions},
        {"/api/function", answer_function},
        {"/api/source", api_source},
        {"/api/graph", api_graph},
        {"/api/flame", api_flame},
        {"/api/sandwich", api_sandwich},
        {"/api/complexity", api_complexity},
    };
    if (!strcmp(path, "/api/meta")) {
        answer_meta(s, r);
        return;
    }
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
        if (!strcmp(path, routes[i].path)) {
            routes[i].fn(s, a, r);
            return;
        }
    api_error(r, 404, "no such question: %.80s", path);
}
