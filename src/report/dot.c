/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dot.c - the call graph as Graphviz DOT text; running `dot`.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "dot.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pcre2.h>
#include "../analysis/regex.h"
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../io/bytebuf.h"
#include "../io/utf8.h"

#define DOT_TIMEOUT_MS 120000

void dot_options_init(struct dot_options *o)
{
    memset(o, 0, sizeof(*o));
    o->node_thres = 0.5;
    o->edge_thres = 0.1;
    o->max_nodes = DOT_MAX_NODES;
}

struct by_incl {
    double share;
    size_t v;
};

static int cmp_by_incl(const void *a, const void *b)
{
    const struct by_incl *x = a, *y = b;
    if (x->share != y->share) return x->share > y->share ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Keep the max_nodes unmatched nodes with the largest shares (matched
 * --root/--leaf functions are always drawn). */
static void cap_nodes(const struct callgraph *g, const struct dot_options *o, const char *matched,
                      struct dot_selection *s)
{
    size_t n = g->nnodes, k = 0;
    struct by_incl *c = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*c));
    for (size_t v = 0; v < n; v++)
        if (s->node[v] && !matched[v])
            c[k++] = (struct by_incl){callgraph_share(g, o->col, callgraph_incl(g, v)[o->col]), v};
    if (k > o->max_nodes) {
        qsort(c, k, sizeof(*c), cmp_by_incl);
        for (size_t i = o->max_nodes; i < k; i++) {
            s->node[c[i].v] = 0;
            s->nnodes--;
        }
    }
    free(c);
}

/* ---- regexes ------------------------------------------------------------ */

static pcre2_code *compile_re(const char *re, struct tally_error *err)
{
    char msg[256];
    size_t eo;
    pcre2_code *code = regex_compile(re, 0, msg, sizeof(msg), &eo);
    if (!code) tally_error_set(err, NULL, 0, "bad regex '%s': %s (at offset %zu)", re, msg, eo);
    return code;
}

int dot_check_regex(const char *re, struct tally_error *err)
{
    pcre2_code *c = compile_re(re, err);
    if (!c) return -1;
    pcre2_code_free(c);
    return 0;
}

static const char *node_name(const struct callgraph *g, size_t v)
{
    struct function f = profile_function_at(g->p, g->fn[v]);
    return profile_str(g->p, f.name);
}

/*
 * Mark in `mark` every node reachable from a node whose name matches one of
 * the regexes, following arcs forward (out) or backward (!out). Matched
 * nodes are also set in `matched`. Returns the number of matches, or -1.
 */
static long reach(const struct callgraph *g, const char *const *res, size_t nres, int out,
                  char *mark, char *matched, struct tally_error *err)
{
    size_t n = g->nnodes;
    uint32_t *stack = xmalloc((n ? n : 1) * sizeof(*stack));
    size_t sp = 0;
    long nmatch = 0;
    pcre2_match_data *md = NULL;
    for (size_t r = 0; r < nres; r++) {
        pcre2_code *code = compile_re(res[r], err);
        if (!code) {
            free(stack);
            if (md) pcre2_match_data_free(md);
            return -1;
        }
        if (!md) md = pcre2_match_data_create(1, NULL);
        long here = 0;
        for (size_t v = 0; v < n; v++) {
            const char *name = node_name(g, v);
            if (pcre2_match(code, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL) < 0) continue;
            here++;
            matched[v] = 1;
            if (!mark[v]) {
                mark[v] = 1;
                stack[sp++] = (uint32_t)v;
            }
        }
        pcre2_code_free(code);
        if (!here) {
            free(stack);
            pcre2_match_data_free(md);
            return tally_error_set(err, g->p->path, 0, "no function matches --%s=%s",
                                   out ? "root" : "leaf", res[r]);
        }
        nmatch += here;
    }
    if (md) pcre2_match_data_free(md);
    const size_t *start = out ? g->out_start : g->in_start;
    const uint32_t *arcs = out ? g->out_arcs : g->in_arcs;
    while (sp) {
        uint32_t v = stack[--sp];
        for (size_t k = start[v]; k < start[v + 1]; k++) {
            uint32_t a = arcs[k];
            uint32_t w = out ? g->to[a] : g->from[a];
            if (!mark[w]) {
                mark[w] = 1;
                stack[sp++] = w;
            }
        }
    }
    free(stack);
    return nmatch;
}

int dot_select(const struct callgraph *g, const struct dot_options *o, struct dot_selection *s,
               struct tally_error *err)
{
    size_t n = g->nnodes, col = o->col;
    memset(s, 0, sizeof(*s));
    s->node = xcalloc(n ? n : 1, 1);
    s->arc = xcalloc(g->narcs ? g->narcs : 1, 1);
    char *in_scope = xmalloc(n ? n : 1);
    char *matched = xcalloc(n ? n : 1, 1);
    memset(in_scope, 1, n ? n : 1);
    int rc = 0;
    if (o->nroots) {
        char *m = xcalloc(n ? n : 1, 1);
        if (reach(g, o->roots, o->nroots, 1, m, matched, err) < 0) rc = -1;
        for (size_t v = 0; v < n; v++)
            in_scope[v] &= m[v];
        free(m);
    }
    if (o->nleaves && !rc) {
        char *m = xcalloc(n ? n : 1, 1);
        if (reach(g, o->leaves, o->nleaves, 0, m, matched, err) < 0) rc = -1;
        for (size_t v = 0; v < n; v++)
            in_scope[v] &= m[v];
        free(m);
    }
    if (!rc) {
        for (size_t v = 0; v < n; v++) {
            if (!in_scope[v]) continue;
            double share = callgraph_share(g, col, callgraph_incl(g, v)[col]);
            if (share >= o->node_thres || matched[v]) {
                s->node[v] = 1;
                s->nnodes++;
            }
        }
        s->over_thres = s->nnodes;
        if (o->max_nodes) cap_nodes(g, o, matched, s);
        for (size_t a = 0; a < g->narcs; a++) {
            if (!s->node[g->from[a]] || !s->node[g->to[a]]) continue;
            if (!callgraph_arc_recursive(g, a) &&
                callgraph_share(g, col, g->cost[a * g->ncols + col]) < o->edge_thres)
                continue;
            s->arc[a] = 1;
            s->narcs++;
        }
    }
    free(in_scope);
    free(matched);
    if (rc) dot_selection_release(s);
    return rc;
}

void dot_selection_release(struct dot_selection *s)
{
    free(s->node);
    free(s->arc);
    memset(s, 0, sizeof(*s));
}

/* ---- text ---------------------------------------------------------------- */

/*
 * Append s escaped for the inside of a DOT double-quoted string: quotes
 * and backslashes get a backslash (so no escString sequence like \N or \l
 * can appear), control bytes and invalid UTF-8 become '?'.
 */
/* s escaped for a DOT string; with `lines`, a newline becomes DOT's line
   break (\n) instead of '?' as the other control bytes */
static void sb_esc_lines(struct bytebuf *b, const char *s, int lines)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            bytebuf_add(b, e, 2);
            p++;
        } else if (*p == '\n' && lines) {
            bytebuf_add(b, "\\n", 2);
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            bytebuf_add(b, "?", 1);
            p++;
        } else {
            size_t n = utf8_len(p);
            if (!n) {
                bytebuf_add(b, "?", 1);
                p++;
            } else {
                bytebuf_add(b, (const char *)p, n);
                p += n;
            }
        }
    }
}

static void sb_esc(struct bytebuf *b, const char *s)
{
    sb_esc_lines(b, s, 0);
}

void dot_quote_lines(FILE *out, const char *s)
{
    struct bytebuf b = {0};
    bytebuf_add(&b, "\"", 1);
    sb_esc_lines(&b, s, 1);
    bytebuf_add(&b, "\"", 1);
    fputs(b.s, out);
    free(b.s);
}

void dot_quote(FILE *out, const char *s)
{
    struct bytebuf b = {0};
    bytebuf_add(&b, "\"", 1);
    sb_esc(&b, s);
    bytebuf_add(&b, "\"", 1);
    fputs(b.s, out);
    free(b.s);
}

/* Viridis at t in [0, 1] (0 = dark purple, 1 = yellow), from nine anchors. */
static void viridis(double t, unsigned rgb[3])
{
    static const unsigned char anchors[9][3] = {
        {0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b},
        {0x2c, 0x72, 0x8e}, {0x21, 0x91, 0x8c}, {0x28, 0xae, 0x80},
        {0x5e, 0xc9, 0x62}, {0xad, 0xdc, 0x30}, {0xfd, 0xe7, 0x25}};
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    double x = t * 8;
    int i = (int)x;
    if (i >= 8) i = 7;
    double f = x - i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (unsigned)lround(anchors[i][k] + (anchors[i + 1][k] - anchors[i][k]) * f);
}

/*
 * Colours for a share (percent): the ramp runs from pale (cheap) to dark
 * (costly); the square root spreads the small shares most graphs are made
 * of; `palest` (at most 1) cuts the pale end off (edges must stay visible
 * on white). The text is white on dark fills.
 */
void dot_share_colours(double share, double palest, char fill[8], const char **font, double *weight)
{
    double t = sqrt((share < 0 ? 0 : share > 100 ? 100 : share) / 100.0);
    unsigned rgb[3];
    viridis((1.0 - t) * palest, rgb);
    snprintf(fill, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    double lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    *font = lum < 128 ? "#ffffff" : "#000000";
    *weight = t;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Does another drawn node have the same function name? */
static char *duplicate_names(const struct callgraph *g, const struct dot_selection *s)
{
    size_t nn = g->p->names.n + 1;
    unsigned char *seen = xcalloc(nn, 1);
    char *dup = xcalloc(g->nnodes ? g->nnodes : 1, 1);
    for (int pass = 0; pass < 2; pass++)
        for (size_t v = 0; v < g->nnodes; v++) {
            if (!s->node[v]) continue;
            uint32_t name = profile_function_at(g->p, g->fn[v]).name;
            if (name >= nn) continue;
            if (pass == 0) {
                if (seen[name] < 2) seen[name]++;
            } else {
                dup[v] = seen[name] > 1;
            }
        }
    free(seen);
    return dup;
}

int dot_write(FILE *out, const struct callgraph *g, const struct dot_options *o,
              const struct dot_selection *s, struct tally_error *err)
{
    size_t col = o->col, nc = g->ncols;
    struct bytebuf b = {0};
    char *dup = duplicate_names(g, s);

    fputs("digraph callgraph {\n", out);
    bytebuf_add(&b, "", 0);
    if (o->title && o->title[0]) {
        sb_esc(&b, o->title);
        bytebuf_add(&b, "\\n", 2);
    }
    bytebuf_add(&b, "event ", 6);
    sb_esc(&b, o->event ? o->event : "?");
    char num[64], num2[64];
    bytebuf_printf(&b, ", total %s\\n", textfmt_commify(col < nc ? g->total[col] : 0, num));
    bytebuf_printf(&b, "%zu of %zu functions (inclusive >= %g%%", s->nnodes, g->nnodes,
                   o->node_thres);
    if (s->over_thres > s->nnodes)
        bytebuf_printf(&b, "; the %zu largest of %zu", s->nnodes, s->over_thres);
    bytebuf_printf(&b, "), %zu of %zu calls (>= %g%%)", s->narcs, g->narcs, o->edge_thres);
    for (size_t v = 0; v < g->nnodes; v++)
        if (s->node[v] && incl_estimated(&g->ir, v)) {
            bytebuf_printf(&b, "\\n~: estimated (the file's calls nest under recursion)");
            break;
        }
    fprintf(out,
            "  graph [fontname=\"Helvetica\", fontsize=12, labelloc=t, label=\"%s\", "
            "ranksep=0.25];\n",
            b.s);
    fputs("  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", fontsize=10, "
          "penwidth=0.5];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];\n",
          out);

    /* cycles first, as clusters of their drawn members */
    for (size_t c = 0; c < g->ir.ncycles; c++) {
        size_t drawn = 0;
        for (size_t k = g->ir.cycle_start[c]; k < g->ir.cycle_start[c + 1]; k++)
            drawn += s->node[g->ir.members[k]] != 0;
        if (!drawn) continue;
        /* a cycle is labelled by what it costs: its members' own cost, and
           the calls entering it when that is a share of the program (calls
           entering from inside the cycle's own activations count twice) */
        tally_wide cself = g->ir.cycle_self[c * nc + col], cin = g->ir.cycle_incl[c * nc + col];
        size_t nmem = g->ir.cycle_start[c + 1] - g->ir.cycle_start[c];
        fprintf(
            out,
            "  subgraph cluster_cycle%zu {\n    label=\"cycle %zu: %zu functions, self %s (%.2f%%)",
            c + 1, c + 1, nmem, textfmt_commify(cself, num), callgraph_share(g, col, cself));
        if (col < nc && cin >= 0 && cin <= g->total[col])
            fprintf(out, "\\ninclusive %s (%.2f%%)", textfmt_commify(cin, num2),
                    callgraph_share(g, col, cin));
        fputs("\"; style=dashed; color=\"#666666\";\n", out);
        for (size_t k = g->ir.cycle_start[c]; k < g->ir.cycle_start[c + 1]; k++)
            if (s->node[g->ir.members[k]])
                fprintf(out, "    f%" PRIu32 ";\n", g->fn[g->ir.members[k]]);
        fputs("  }\n", out);
    }

    for (size_t v = 0; v < g->nnodes; v++) {
        if (!s->node[v]) continue;
        struct function f = profile_function_at(g->p, g->fn[v]);
        tally_wide incl = callgraph_incl(g, v)[col], self = g->self[v * nc + col];
        double ishare = callgraph_share(g, col, incl), sshare = callgraph_share(g, col, self);
        char fill[8];
        const char *font;
        double w;
        dot_share_colours(ishare, 1.0, fill, &font, &w);
        b.n = 0;
        sb_esc(&b, profile_str(g->p, f.name));
        if (dup[v]) {
            bytebuf_add(&b, "\\n[", 3);
            sb_esc(&b, base_name(profile_str(g->p, f.file)));
            bytebuf_add(&b, "]", 1);
        }
        /* "~": estimated from call costs that nest under recursion */
        bytebuf_printf(&b, "\\n%s%.2f%%\\n(%.2f%%)", incl_estimated(&g->ir, v) ? "~" : "", ishare,
                       sshare);
        if (g->reccalls[v])
            bytebuf_printf(&b, "\\n%s+%s×", textfmt_commify((tally_wide)g->calls[v], num),
                           textfmt_commify((tally_wide)g->reccalls[v], num2));
        else if (g->calls[v])
            bytebuf_printf(&b, "\\n%s×", textfmt_commify((tally_wide)g->calls[v], num));
        fprintf(out,
                "  f%" PRIu32 " [id=\"f%" PRIu32 "\", label=\"%s\", fillcolor=\"%s\", "
                "fontcolor=\"%s\", ",
                g->fn[v], g->fn[v], b.s, fill, font);
        b.n = 0;
        sb_esc(&b, profile_str(g->p, f.name));
        bytebuf_add(&b, "\\nfile: ", 8);
        sb_esc(&b, profile_str(g->p, f.file));
        if (f.obj) {
            bytebuf_add(&b, "\\nobject: ", 10);
            sb_esc(&b, profile_str(g->p, f.obj));
        }
        bytebuf_printf(&b, "\\ninclusive: %s (%.2f%%)%s", textfmt_commify(incl, num), ishare,
                       incl_estimated(&g->ir, v) ? ", estimated (recursion)" : "");
        bytebuf_printf(&b, "\\nself: %s (%.2f%%)", textfmt_commify(self, num), sshare);
        bytebuf_printf(&b, "\\ncalls: %s", textfmt_commify((tally_wide)g->calls[v], num));
        if (g->reccalls[v])
            bytebuf_printf(&b, " (+%s inside the recursion)",
                           textfmt_commify((tally_wide)g->reccalls[v], num));
        if (g->ir.cycle[v]) bytebuf_printf(&b, "\\nin cycle %" PRIu32, g->ir.cycle[v]);
        fprintf(out, "tooltip=\"%s\"];\n", b.s);
    }

    for (size_t a = 0; a < g->narcs; a++) {
        if (!s->arc[a]) continue;
        int rec = callgraph_arc_recursive(g, a);
        double share = callgraph_share(g, col, g->cost[a * nc + col]);
        char colour[8];
        const char *font;
        double w;
        dot_share_colours(rec ? 0 : share, 0.8, colour, &font, &w);
        if (rec) {
            fprintf(out,
                    "  f%" PRIu32 " -> f%" PRIu32 " [label=\"%s×\", style=dashed, "
                    "color=\"#666666\", fontcolor=\"#666666\"];\n",
                    g->fn[g->from[a]], g->fn[g->to[a]],
                    textfmt_commify((tally_wide)g->count[a], num));
        } else {
            fprintf(out,
                    "  f%" PRIu32 " -> f%" PRIu32 " [label=\"%.2f%%\\n%s×\", color=\"%s\", "
                    "fontcolor=\"%s\", penwidth=%.2f];\n",
                    g->fn[g->from[a]], g->fn[g->to[a]], share,
                    textfmt_commify((tally_wide)g->count[a], num), colour, colour, 1.0 + 4.0 * w);
        }
    }
    fputs("}\n", out);
    free(b.s);
    free(dup);
    return textfmt_finish(out, "graph", err);
}

char *dot_text(const struct callgraph *g, const struct dot_options *o,
               const struct dot_selection *s, size_t *len, struct tally_error *err)
{
    char *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(&text, len);
    if (!mem) return NULL;
    int rc = dot_write(mem, g, o, s, err);
    fclose(mem);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- running dot ---------------------------------------------------------- */

int dot_find_program(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    const char *p = path;
    while (1) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int len = n ? snprintf(buf, size, "%.*s/dot", (int)n, p) : snprintf(buf, size, "./dot");
        struct stat st;
        if (len > 0 && (size_t)len < size && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
            access(buf, X_OK) == 0)
            return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int dot_run(const char *text, size_t len, const char *format, int out_fd, struct tally_error *err)
{
    return dot_run_limited(text, len, format, out_fd, DOT_TIMEOUT_MS, err);
}

int dot_run_limited(const char *text, size_t len, const char *format, int out_fd,
                    unsigned timeout_ms, struct tally_error *err)
{
    char prog[4096];
    if (!dot_find_program(prog, sizeof(prog)))
        return tally_error_set(err, NULL, 0,
                               "the 'dot' program of Graphviz is not installed (not in PATH); "
                               "install the Debian package graphviz, or write DOT text instead");
    FILE *in = tmpfile(), *errf = tmpfile();
    if (!in || !errf) {
        if (in) fclose(in);
        if (errf) fclose(errf);
        return tally_error_set(err, NULL, 0, "cannot create a temporary file: %s", strerror(errno));
    }
    if (fwrite(text, 1, len, in) != len || fflush(in) || fseek(in, 0, SEEK_SET)) {
        fclose(in);
        fclose(errf);
        return tally_error_set(err, NULL, 0, "cannot write a temporary file: %s", strerror(errno));
    }
    char targ[64];
    snprintf(targ, sizeof(targ), "-T%s", format);
    pid_t pid = fork();
    if (pid < 0) {
        fclose(in);
        fclose(errf);
        return tally_error_set(err, NULL, 0, "cannot start dot: %s", strerror(errno));
    }
    if (pid == 0) {
        if (dup2(fileno(in), 0) < 0 || dup2(out_fd, 1) < 0 || dup2(fileno(errf), 2) < 0) _exit(126);
        signal(SIGPIPE, SIG_DFL);
        char *argv[] = {prog, targ, NULL};
        execv(prog, argv);
        dprintf(2, "cannot execute %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    /* wait, but not for ever: a pathological graph must not hang tally */
    int status = -1, timed_out = 0;
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (long waited = 0;; waited += 10) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            status = -1;
            break;
        }
        if (waited >= (long)timeout_ms) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            timed_out = 1;
            break;
        }
        nanosleep(&tick, NULL);
    }
    fclose(in);
    int rc = 0;
    if (timed_out) {
        fclose(errf);
        return tally_error_set(err, NULL, 0, "%s took more than %g s and was stopped", prog,
                               timeout_ms / 1000.0);
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char line[512] = "";
        fflush(errf);
        rewind(errf);
        if (!fgets(line, sizeof(line), errf)) line[0] = 0;
        line[strcspn(line, "\r\n")] = 0;
        if (status != -1 && WIFSIGNALED(status))
            rc =
                tally_error_set(err, NULL, 0, "%s was killed by signal %d", prog, WTERMSIG(status));
        else
            rc =
                tally_error_set(err, NULL, 0, "%s -T%s failed (exit status %d)%s%s", prog, format,
                                status == -1 ? -1 : WEXITSTATUS(status), line[0] ? ": " : "", line);
    }
    fclose(errf);
    return rc;
}
