/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof_extra.c - annotated source (-A) and the function and file
 * orderings (--function-ordering, --file-ordering) of `tally gprof`.
 */
#include "gprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"
#include "srcfile.h"

/* ---- annotated source -------------------------------------------------- */

/* What one source line carries: the symbol starting there, or a merged
 * copy when several symbols start on the same line. */
struct anno_line {
    struct gprof_sym *sym; /* NULL: no information */
    uint64_t ncalls;       /* summed over the symbols of the line */
    unsigned line;
    bool is_func;
    uint64_t addr;
    const uint64_t *bb_addr, *bb_calls;
    unsigned nbb;
};

struct anno_file {
    const char *name;
    unsigned num_lines;
    uint64_t ncalls;
    struct anno_line *lines; /* [num_lines] */
};

struct anno_state {
    unsigned long last_count;
    long last_print;
    long executable, executed;
};

/* Fill `buf` (width + 1 bytes) with the 16-character prefix of a line. */
static void annotate_line(struct anno_state *st, const struct gprof_anno_opts *o,
                          const struct anno_file *f, unsigned line_num, char *buf, unsigned width)
{
    const struct anno_line *b = NULL;
    if (line_num <= f->num_lines && f->lines[line_num - 1].sym) b = &f->lines[line_num - 1];
    if (!b) {
        memset(buf, ' ', width);
        buf[width] = '\0';
        return;
    }
    char tmp[10 * 30 + 16];
    char *p = tmp;
    *p = '\0';
    unsigned long ncalls = 0;
    bool ncalls_set = false;
    ++st->executable;
    if (b->is_func) {
        p += sprintf(p, "%lu", (unsigned long)b->ncalls);
        st->last_count = (unsigned long)b->ncalls;
        st->last_print = (long)st->last_count;
        ncalls = (unsigned long)b->ncalls;
        ncalls_set = true;
    } else if (o->all_lines && b->nbb && b->bb_addr[0] && b->bb_addr[0] > b->addr) {
        p += sprintf(p, "%lu", st->last_count);
        st->last_print = (long)st->last_count;
        ncalls = st->last_count;
        ncalls_set = true;
    }
    for (unsigned i = 0; i < b->nbb && b->bb_addr[i]; i++) {
        st->last_count = (unsigned long)b->bb_calls[i];
        if (ncalls_set)
            ncalls += st->last_count;
        else
            ncalls = st->last_count;
        ncalls_set = true;
        if (o->all_lines && (long)st->last_count == st->last_print) continue;
        if (p > tmp) *p++ = ',';
        p += sprintf(p, "%lu", st->last_count);
        st->last_print = (long)st->last_count;
    }
    if (o->all_lines && p == tmp) {
        p += sprintf(p, "%lu", st->last_count);
        ncalls = st->last_count;
        ncalls_set = true;
    }
    if (!ncalls_set) {
        memset(buf, ' ', width);
        buf[width] = '\0';
        return;
    }
    ++st->executed;
    if (ncalls < o->min_count) {
        strcpy(tmp, "#####");
        p = tmp + 5;
    }
    strcpy(p, " -> ");
    p += 4;
    size_t len = (size_t)(p - tmp);
    if (len >= width) {
        memcpy(buf, tmp, width);
        buf[width] = '\0';
    } else {
        memset(buf, ' ', width - len);
        memcpy(buf + width - len, tmp, len + 1);
    }
}

static int cmp_ncalls(const void *a, const void *b)
{
    const struct anno_line *l = a, *r = b;
    if (!l->sym) return r->sym ? 1 : 0;
    if (!r->sym) return -1;
    if (l->ncalls < r->ncalls) return 1;
    if (l->ncalls > r->ncalls) return -1;
    return 0;
}

static bool anno_selected(const struct gprof_report *r, const struct gprof_sym *s)
{
    return symspec_selected(r->specs, SYMSPEC_INCL_ANNO, s->addr);
}

int gprof_print_annotated(struct gprof_report *r, struct gprof *g, const struct gprof_anno_opts *o,
                          struct tally_error *err)
{
    /* Files in reverse order of first appearance (gprof prepends). */
    struct anno_file *files = NULL;
    size_t nfiles = 0, cap = 0;
    for (size_t i = 0; i < g->nsyms; i++) {
        struct gprof_sym *s = &g->syms[i];
        if (!s->file) continue;
        size_t k;
        for (k = 0; k < nfiles; k++)
            if (files[k].name == s->file) break;
        if (k == nfiles) {
            files = xgrow(files, &cap, nfiles + 1, sizeof(*files));
            memset(&files[nfiles], 0, sizeof(*files));
            files[nfiles++].name = s->file;
        }
        if (s->line > files[k].num_lines && anno_selected(r, s)) files[k].num_lines = s->line;
    }
    for (size_t k = 0; k < nfiles; k++)
        if (files[k].num_lines)
            files[k].lines = xcalloc(files[k].num_lines, sizeof(struct anno_line));
    for (size_t i = 0; i < g->nsyms; i++) {
        struct gprof_sym *s = &g->syms[i];
        if (!s->file || s->line == 0) continue;
        size_t k;
        for (k = 0; k < nfiles; k++)
            if (files[k].name == s->file) break;
        struct anno_file *f = &files[k];
        if (!f->num_lines || !anno_selected(r, s) || s->line > f->num_lines) continue;
        f->ncalls += s->ncalls;
        struct anno_line *l = &f->lines[s->line - 1];
        if (!l->sym) {
            l->sym = s;
            l->ncalls = s->ncalls;
            l->line = s->line;
            l->is_func = s->is_func;
            l->addr = s->addr;
            l->bb_addr = s->bb_addr;
            l->bb_calls = s->bb_calls;
            l->nbb = s->nbb;
        } else if (!l->addr) {
            l->ncalls += s->ncalls;
        } else {
            l->addr = 0;
            l->ncalls += s->ncalls;
        }
    }

    int rc = 0;
    bool first_file = true;
    struct anno_state st = {0, -1, 0, 0};
    for (size_t kk = nfiles; kk-- > 0;) {
        struct anno_file *f = &files[kk];
        if (!f->num_lines || (r->ignore_zeros && f->ncalls == 0)) continue;
        struct srcfile_found found;
        srcfile_find(f->name, o->dirs, SRCFILE_GPROF, srcfile_opens, NULL, &found);
        FILE *in = found.path ? fopen(found.path, "rb") : NULL;
        free(found.path);
        if (!in) {
            fflush(r->out);
            fprintf(stderr, "tally: could not locate `%s'\n", f->name);
            continue;
        }
        FILE *out = r->out;
        char *outname = NULL;
        if (o->separate_files) {
            const char *b = strrchr(f->name, '/');
            b = b ? b + 1 : f->name;
            outname = xasprintf("%s-ann", b);
            out = fopen(outname, "w");
            if (!out) {
                rc = tally_error_set(err, outname, 0, "cannot write: %s", strerror(errno));
                free(outname);
                fclose(in);
                break;
            }
        } else {
            if (first_file)
                first_file = false;
            else
                fputc('\n', out);
            if (r->first_output)
                r->first_output = false;
            else
                fputs("\f\n", out);
            fprintf(out, "*** File %s:\n", f->name);
        }
        st.executable = st.executed = 0;
        char ann[17];
        unsigned line_num = 1;
        bool new_line = true;
        char buf[8192];
        size_t nread;
        while ((nread = fread(buf, 1, sizeof(buf), in)) > 0) {
            for (size_t i = 0; i < nread; i++) {
                if (new_line) {
                    annotate_line(&st, o, f, line_num, ann, 16);
                    fputs(ann, out);
                    ++line_num;
                }
                new_line = buf[i] == '\n';
                fputc(buf[i], out);
            }
        }
        fclose(in);
        if (o->top_lines > 0) {
            fprintf(out, "\n\nTop %d Lines:\n\n     Line      Count\n\n", o->top_lines);
            /* gprof sorts the line array itself: a stable sort of copies */
            struct anno_line **v = xmalloc(f->num_lines * sizeof(*v));
            for (unsigned i = 0; i < f->num_lines; i++)
                v[i] = &f->lines[i];
            gprof_msort((void **)v, f->num_lines, cmp_ncalls);
            unsigned n = (unsigned)o->top_lines;
            if (n > f->num_lines) n = f->num_lines;
            for (unsigned i = 0; i < n; i++) {
                if (!v[i]->sym || v[i]->ncalls == 0) break;
                fprintf(out, "%9d %10lu\n", (int)v[i]->line, (unsigned long)v[i]->ncalls);
            }
            free(v);
        }
        fputs("\nExecution Summary:\n\n", out);
        fprintf(out, "%9ld   Executable lines in this file\n", st.executable);
        fprintf(out, "%9ld   Lines executed\n", st.executed);
        fprintf(out, "%9.2f   Percent of the file executed\n",
                st.executable ? 100.0 * (double)st.executed / (double)st.executable : 100.0);
        fprintf(out, "\n%9lu   Total number of line executions\n", (unsigned long)f->ncalls);
        fprintf(out, "%9.2f   Average executions per line\n",
                st.executable ? (double)f->ncalls / (double)st.executable : 0.0);
        if (out != r->out) {
            if (fclose(out) != 0)
                rc = tally_error_set(err, outname, 0, "cannot write: %s", strerror(errno));
            free(outname);
            if (rc) break;
        }
    }
    for (size_t k = 0; k < nfiles; k++)
        free(files[k].lines);
    free(files);
    return rc;
}

/* ---- --function-ordering ----------------------------------------------- */

static int cmp_arc_count(const void *a, const void *b)
{
    const struct gprof_arc *l = a, *r = b;
    if (l->count > r->count) return -1;
    if (l->count < r->count) return 1;
    return 0;
}

static int cmp_nuses(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    if (l->nuses > r->nuses) return -1;
    if (l->nuses < r->nuses) return 1;
    return 0;
}

/* Both ends of the placement chain through s, and how far each is. */
struct chain_ends {
    struct gprof_sym *first, *last;
    int nprev, nnext;
};

static struct chain_ends chain_ends_of(struct gprof_sym *s)
{
    struct chain_ends e = {s, s, 0, 0};
    while (e.last->ord_next) {
        e.last = e.last->ord_next;
        e.nnext++;
    }
    while (e.first->ord_prev) {
        e.first = e.first->ord_prev;
        e.nprev++;
    }
    return e;
}

/* Chain the functions of the arcs (most called first) so that callers sit
 * next to callees, then print the chains. `all`: use every arc, and print
 * the parents of arcs that could not be chained. Arcs left over go to
 * `unplaced`. */
static void order_by_arcs(FILE *o, struct gprof_arc **arcs, size_t n, bool all,
                          struct gprof_arc **unplaced, size_t *nunplaced)
{
    unsigned long long total = 0, sum = 0;
    if (!all)
        for (size_t i = 0; i < n; i++)
            total += arcs[i]->count;
    for (size_t i = 0; i < n; i++) {
        struct gprof_arc *a = arcs[i];
        sum += a->count;
        if (a->ordered) continue;
        struct gprof_sym *child = a->child, *parent = a->parent;
        if ((!all && (double)sum / (double)total > 0.99) || child->has_been_placed ||
            parent->has_been_placed) {
            unplaced[(*nunplaced)++] = a;
            continue;
        }
        if (parent->ord_next && parent->ord_prev && child->ord_next && child->ord_prev) {
            unplaced[(*nunplaced)++] = a;
            continue;
        }
        if (!parent->ord_next && !parent->ord_prev) {
            struct chain_ends e = chain_ends_of(child);
            child = e.nnext < e.nprev ? e.last : e.first;
        } else if (!child->ord_next && !child->ord_prev) {
            struct chain_ends e = chain_ends_of(parent);
            parent = e.nprev < e.nnext ? e.first : e.last;
        } else {
            unplaced[(*nunplaced)++] = a;
            continue;
        }
        struct gprof_sym *s1 = parent, *s2 = child;
        if (s1->ord_next)
            while (s1->ord_next)
                s1 = s1->ord_next;
        else
            while (s1->ord_prev)
                s1 = s1->ord_prev;
        if (s2->ord_next)
            while (s2->ord_next)
                s2 = s2->ord_next;
        else
            while (s2->ord_prev)
                s2 = s2->ord_prev;
        if (s1 == child && s2 == parent) {
            unplaced[(*nunplaced)++] = a;
            continue;
        }
        if (parent->ord_next) {
            if (!child->ord_next) {
                parent->ord_prev = child;
                child->ord_next = parent;
                a->ordered = 1;
            }
        } else if (parent->ord_prev) {
            if (!child->ord_prev) {
                parent->ord_next = child;
                child->ord_prev = parent;
                a->ordered = 1;
            }
        } else {
            if (child->ord_prev) {
                parent->ord_prev = child;
                child->ord_next = parent;
            } else {
                parent->ord_next = child;
                child->ord_prev = parent;
            }
            a->ordered = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (arcs[i]->parent->has_been_placed || arcs[i]->child->has_been_placed) continue;
        struct gprof_sym *s = arcs[i]->parent;
        if (!s->ord_next && !s->ord_prev) continue;
        while (s->ord_prev)
            s = s->ord_prev;
        for (; s; s = s->ord_next) {
            s->has_been_placed = true;
            fprintf(o, "%s\n", s->name);
        }
    }
    if (all)
        for (size_t i = 0; i < n; i++) {
            if (arcs[i]->ordered) continue;
            struct gprof_sym *s = arcs[i]->parent;
            if (s->has_been_placed) continue;
            s->has_been_placed = true;
            fprintf(o, "%s\n", s->name);
        }
}

void gprof_print_function_ordering(struct gprof_report *r, struct gprof *g)
{
    FILE *o = r->out;
    size_t n = g->nsyms, na = g->narcs;
    struct gprof_sym **unused = xmalloc((n + 1) * sizeof(*unused));
    struct gprof_sym **used = xmalloc((n + 1) * sizeof(*used));
    struct gprof_sym **scratch = xmalloc((n + 1) * sizeof(*scratch));
    struct gprof_arc **high = xmalloc((na + 1) * sizeof(*high));
    struct gprof_arc **sarcs = xmalloc((2 * na + 1) * sizeof(*sarcs));
    struct gprof_arc **unplaced = xmalloc((2 * na + 1) * sizeof(*unplaced));
    size_t nused = 0, nunused = 0, nhigh = 0, nsarcs = 0, nunplaced = 0, scratch_index = 0;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *s = &g->syms[i];
        if (s->ncalls == 0) {
            unused[nunused++] = s;
            s->has_been_placed = true;
        } else {
            used[nused++] = s;
            s->has_been_placed = false;
            s->ord_next = s->ord_prev = NULL;
            s->nuses = 0;
        }
    }
    struct gprof_arc **arcs = g->arcs;
    gprof_msort((void **)arcs, na, cmp_arc_count);
    unsigned long long total = 0, sum = 0;
    for (size_t i = 0; i < na; i++) {
        total += arcs[i]->count;
        arcs[i]->ordered = 0;
    }
    for (size_t i = 0; i < na; i++) {
        sum += arcs[i]->count;
        if ((double)sum / (double)total > 0.90) break;
        arcs[i]->child->nuses++;
    }
    memcpy(scratch, used, nused * sizeof(*scratch));
    gprof_msort((void **)scratch, nused, cmp_nuses);
    for (size_t i = 0; i < nused / 80; i++) {
        struct gprof_sym *s = scratch[i];
        if (s->nuses == 5) break;
        for (struct gprof_arc *a = s->children; a; a = a->next_child) {
            if (a->parent != a->child) sarcs[nsarcs++] = a;
            a->ordered = 1;
        }
        for (struct gprof_arc *a = s->parents; a; a = a->next_parent) {
            if (a->parent != a->child) sarcs[nsarcs++] = a;
            a->ordered = 1;
        }
        scratch_index = i;
        s->has_been_placed = true;
    }
    for (size_t i = 0; i < nsarcs; i++) {
        struct gprof_arc *a = sarcs[i];
        if (a->child->has_been_placed && a->parent->has_been_placed) {
            high[nhigh++] = a;
            a->child->has_been_placed = false;
            a->parent->has_been_placed = false;
        }
    }
    for (size_t i = 0; i < scratch_index; i++)
        if (scratch[i]->has_been_placed) fprintf(o, "%s\n", scratch[i]->name);
    gprof_msort((void **)high, nhigh, cmp_arc_count);
    order_by_arcs(o, high, nhigh, true, unplaced, &nunplaced);
    order_by_arcs(o, arcs, na, false, unplaced, &nunplaced);
    nsarcs = 0;
    order_by_arcs(o, unplaced, nunplaced, true, sarcs, &nsarcs);
    for (size_t i = 0; i < nused; i++)
        if (!used[i]->has_been_placed) fprintf(o, "%s\n", used[i]->name);
    for (size_t i = 0; i < nunused; i++)
        fprintf(o, "%s\n", unused[i]->name);
    free(unused);
    free(used);
    free(scratch);
    free(high);
    free(sarcs);
    free(unplaced);
}

/* ---- --file-ordering --------------------------------------------------- */

void gprof_print_file_ordering(struct gprof_report *r, struct gprof *g,
                               const char *const *map_files, size_t nmap)
{
    FILE *o = r->out;
    size_t na = g->narcs;
    struct gprof_arc **sarcs = xmalloc((na + 1) * sizeof(*sarcs));
    size_t nsarcs = 0;
    for (size_t i = 0; i < g->nsyms; i++) {
        g->syms[i].has_been_placed = false;
        g->syms[i].ord_next = g->syms[i].ord_prev = NULL;
    }
    for (size_t i = 0; i < na; i++) {
        g->arcs[i]->ordered = 0;
        if (!g->arcs[i]->parent->mapped || !g->arcs[i]->child->mapped) g->arcs[i]->ordered = 1;
    }
    order_by_arcs(o, g->arcs, na, false, sarcs, &nsarcs);
    for (size_t i = 0; i < g->nsyms; i++)
        if (g->syms[i].mapped && !g->syms[i].has_been_placed) fprintf(o, "%s\n", g->syms[i].name);
    const char *last = NULL;
    for (size_t i = 0; i < nmap; i++) {
        if (last && !strcmp(last, map_files[i])) continue;
        size_t k;
        for (k = 0; k < g->nsyms; k++)
            if (g->syms[k].mapped && !strcmp(g->syms[k].name, map_files[i])) break;
        if (k == g->nsyms) fprintf(o, "%s\n", map_files[i]);
        last = map_files[i];
    }
    free(sarcs);
}
