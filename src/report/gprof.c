/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.c - flat profile, call graph, index and execution counts of
 * `tally gprof`. The printf formats reproduce GNU gprof 2.40's tables
 * (research/gprof.md section 5); the explanations are tally's own.
 */
#include "gprof.h"

#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

/* ---- names ------------------------------------------------------------- */

const char *gprof_display_name(struct gprof_report *r, struct gprof_sym *s)
{
    if (!s->name) return "";
    if (r->bsd || r->demangle == DEMANGLE_NONE) return s->name;
    if (!s->demangled) s->demangled = demangle_or_copy(s->name, r->demangle, DEMANGLE_DEFAULT);
    return s->demangled;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* gprof's print_name_only: returns the number of characters printed. */
static int print_name_only(struct gprof_report *r, struct gprof_sym *s)
{
    if (!s->name) return 0;
    const char *name = gprof_display_name(r, s);
    fputs(name, r->out);
    int size = (int)strlen(name);
    if ((r->line_mode || r->inline_file_names) && s->file) {
        const char *f = r->print_path ? s->file : base_name(s->file);
        int n;
        if (r->line_mode)
            n = fprintf(r->out, " (%s:%d @ %lx)", f, (int)s->line, (unsigned long)s->addr);
        else
            n = fprintf(r->out, " (%s:%d)", f, (int)s->line);
        size += n;
    }
    return size;
}

static void print_name(struct gprof_report *r, struct gprof_sym *s)
{
    print_name_only(r, s);
    if (s->cyc_num != 0) fprintf(r->out, " <cycle %d>", s->cyc_num);
    if (s->index != 0) {
        if (s->print_flag)
            fprintf(r->out, " [%d]", s->index);
        else
            fprintf(r->out, " (%d)", s->index);
    }
}

static void section_start(struct gprof_report *r)
{
    if (r->first_output)
        r->first_output = false;
    else
        fputs("\f\n", r->out);
}

/* ---- explanations (tally's own text) ----------------------------------- */

static const char flat_notes[] =
    "\n"
    "How to read the flat profile\n"
    "\n"
    "Each row is one function; rows are sorted by the time spent in the\n"
    "function's own code (not counting the functions it calls), most first.\n"
    "\n"
    " % time      share of all sampled time that fell inside this function.\n"
    "\n"
    " cumulative  running total of the self seconds of this row and all rows\n"
    " seconds     above it.\n"
    "\n"
    " self        seconds of samples that landed in this function's code.\n"
    " seconds\n"
    "\n"
    " calls       how many times the function was entered from another\n"
    "             function (recursive calls are not counted); empty when the\n"
    "             function was not compiled with -pg, or never called.\n"
    "\n"
    " self        self seconds divided by calls, in the unit of the heading\n"
    " X/call      (s, ms, us, ns ...).\n"
    "\n"
    " total       self time plus the time handed up from the functions it\n"
    " X/call      called, divided by calls.\n"
    "\n"
    " name        the function; rows are ordered by self time, then calls,\n"
    "             then name.\n"
    "\n"
    "A sample is one clock tick that found the program counter inside the\n"
    "profiled program; time in shared libraries and the kernel is not seen.\n";

static const char graph_notes[] =
    "\n"
    "How to read the call graph\n"
    "\n"
    "The graph has one block per function, separated by dashed lines. In a\n"
    "block the line that starts with [N] is the function itself (the primary\n"
    "line); the lines above it are its callers and the lines below it are the\n"
    "functions it calls.\n"
    "\n"
    "Primary line:\n"
    "  index     the function's number, used to cross-reference blocks.\n"
    "  % time    share of the total time spent in the function and in what it\n"
    "            called.\n"
    "  self      seconds spent in the function's own code.\n"
    "  children  seconds handed up from the functions it called.\n"
    "  called    calls from other functions, then +calls from itself.\n"
    "  name      the function, with <cycle N> if it is part of a cycle.\n"
    "\n"
    "Caller lines:\n"
    "  self, children  the part of the function's own and descendants' time\n"
    "            charged to this caller, in proportion to its calls.\n"
    "  called    calls from this caller / all calls from outside (for a cycle\n"
    "            member, all calls into the cycle from outside).\n"
    "  A caller line of <spontaneous> means no caller was recorded (for\n"
    "  example main, called from the C library).\n"
    "\n"
    "Callee lines:\n"
    "  self, children  the part of the callee's time charged to this function.\n"
    "  called    calls made by this function / all calls the callee received.\n"
    "\n"
    "Functions that call each other in a loop form a cycle. Time cannot be\n"
    "split between the members, so the cycle gets its own block, \"<cycle N as\n"
    "a whole>\", listing its members; calls inside the cycle are shown as\n"
    "counts only, and time flows to the callers of the cycle as a whole.\n"
    "\n"
    "Numbers in parentheses, like (12), are functions without a block of\n"
    "their own (filtered out or never called).\n";

static const char bsd_graph_notes[] =
    "\n\n\n"
    "call graph profile:\n"
    "  Blocks are framed by dashed lines; the line with [N] in the index\n"
    "  column is the function, its callers are above it and its callees\n"
    "  below. %time counts the function and its descendants; \"self\" is the\n"
    "  function's own time and \"descendants\" the time handed up by callees.\n"
    "  On caller and callee lines, called/total shows this arc's calls out\n"
    "  of all calls the callee received. Cycles are shown as a whole and by\n"
    "  member; calls inside a cycle carry counts only.\n";

/* ---- flat profile ------------------------------------------------------ */

static const struct {
    char prefix;
    double scale;
} si_tab[] = {{'T', 1e-12}, {'G', 1e-09}, {'M', 1e-06}, {'K', 1e-03}, {' ', 1e-00}, {'m', 1e+03},
              {'u', 1e+06}, {'n', 1e+09}, {'p', 1e+12}, {'f', 1e+15}, {'a', 1e+18}};

static int cmp_time(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    double d = r->hist_time - l->hist_time;
    if (d > 0.0) return 1;
    if (d < 0.0) return -1;
    if (r->ncalls > l->ncalls) return 1;
    if (r->ncalls < l->ncalls) return -1;
    return l->name == r->name ? 0 : strcmp(l->name, r->name);
}

void gprof_print_flat(struct gprof_report *r, struct gprof *g)
{
    FILE *o = r->out;
    double hz = (double)g->hz;
    section_start(r);
    if (r->bsd) {
        if (!r->brief) {
            fputs("\n\n\nflat profile:\n", o);
            fputs(flat_notes, o);
        }
    } else {
        fputs("Flat profile:\n", o);
    }
    size_t n = g->nsyms;
    struct gprof_sym **v = xmalloc((n ? n : 1) * sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = &g->syms[i];
    gprof_msort((void **)v, n, cmp_time);

    size_t log_scale = 0;
    if (r->bsd) {
        log_scale = 5;
    } else {
        struct gprof_sym *top = NULL;
        double top_time = 0.0;
        for (size_t i = 0; i < n; i++) {
            if (v[i]->ncalls == 0) continue;
            double t = (v[i]->hist_time + v[i]->child_time) / (double)v[i]->ncalls;
            if (t > top_time) {
                top = v[i];
                top_time = t;
            }
        }
        if (top && top_time > 0.0) {
            top_time /= hz;
            for (log_scale = 0; log_scale < sizeof(si_tab) / sizeof(si_tab[0]); log_scale++) {
                double sv = si_tab[log_scale].scale * top_time;
                if (sv >= 1.0 && sv < 1000.0) break;
            }
            if (log_scale >= sizeof(si_tab) / sizeof(si_tab[0])) log_scale = 0;
        }
    }
    double scale = si_tab[log_scale].scale;
    char unit[16];
    snprintf(unit, sizeof(unit), "%c%c/call", si_tab[log_scale].prefix, r->dimen_abbrev);

    double total = g->total_time;
    if (r->bsd) {
        fprintf(o, "\ngranularity: each sample hit covers %ld byte(s)", (long)g->hist_scale * 2);
        if (total > 0.0)
            fprintf(o, " for %.2f%% of %.2f %s\n\n", 100.0 / total, total / hz, r->dimen);
    } else {
        fprintf(o, "\nEach sample counts as %g %s.\n", 1.0 / hz, r->dimen);
    }
    if (total <= 0.0) {
        fputs(" no time accumulated\n\n", o);
        total = 1.0;
    }
    fprintf(o, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative", "self  ", "",
            "self  ", "total ", "");
    fprintf(o, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", r->dimen, r->dimen,
            "calls", unit, unit, "name");

    double accum = 0.0;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *s = v[i];
        if (!symspec_selected(r->specs, SYMSPEC_INCL_FLAT, s->addr)) continue;
        if (r->ignore_zeros && s->ncalls == 0 && s->hist_time == 0) continue;
        accum += s->hist_time;
        double pct = total > 0.0 ? 100 * s->hist_time / total : 0.0;
        if (r->bsd)
            fprintf(o, "%5.1f %10.2f %8.2f", pct, accum / hz, s->hist_time / hz);
        else
            fprintf(o, "%6.2f %9.2f %8.2f", pct, accum / hz, s->hist_time / hz);
        if (s->ncalls != 0)
            fprintf(o, " %8lu %8.2f %8.2f  ", (unsigned long)s->ncalls,
                    scale * s->hist_time / hz / (double)s->ncalls,
                    scale * (s->hist_time + s->child_time) / hz / (double)s->ncalls);
        else
            fprintf(o, " %8.8s %8.8s %8.8s  ", "", "", "");
        if (r->bsd)
            print_name(r, s);
        else
            print_name_only(r, s);
        fputc('\n', o);
    }
    free(v);
    if (!r->brief && !r->bsd) fputs(flat_notes, o);
}

/* ---- call graph -------------------------------------------------------- */

enum { LESS = -1, EQUAL = 0, GREATER = 1 };

static bool in_one_cycle(const struct gprof_arc *a)
{
    return a->parent->cyc_num != 0 && a->child->cyc_num != 0 &&
           a->parent->cyc_num == a->child->cyc_num;
}

static int cmp_arc(const struct gprof_arc *l, const struct gprof_arc *r)
{
    if (l->parent == l->child) return LESS;
    if (r->parent == r->child) return GREATER;
    if (in_one_cycle(l)) {
        if (in_one_cycle(r)) {
            if (l->count < r->count) return LESS;
            if (l->count > r->count) return GREATER;
            return EQUAL;
        }
        return LESS;
    }
    if (in_one_cycle(r)) return GREATER;
    double lt = l->time + l->child_time, rt = r->time + r->child_time;
    if (lt < rt) return LESS;
    if (lt > rt) return GREATER;
    if (l->count < r->count) return LESS;
    if (l->count > r->count) return GREATER;
    return EQUAL;
}

static void sort_children(struct gprof_sym *p)
{
    struct gprof_arc sorted = {0}, *a, *next, *prev;
    for (a = p->children; a; a = next) {
        next = a->next_child;
        for (prev = &sorted; prev->next_child; prev = prev->next_child)
            if (cmp_arc(a, prev->next_child) != LESS) break;
        a->next_child = prev->next_child;
        prev->next_child = a;
    }
    p->children = sorted.next_child;
}

static void sort_parents(struct gprof_sym *c)
{
    struct gprof_arc sorted = {0}, *a, *next, *prev;
    for (a = c->parents; a; a = next) {
        next = a->next_parent;
        for (prev = &sorted; prev->next_parent; prev = prev->next_parent)
            if (cmp_arc(a, prev->next_parent) != GREATER) break;
        a->next_parent = prev->next_parent;
        prev->next_parent = a;
    }
    c->parents = sorted.next_parent;
}

static int cmp_member(const struct gprof_sym *l, const struct gprof_sym *r)
{
    double lt = l->prop_self + l->prop_child, rt = r->prop_self + r->prop_child;
    uint64_t lc = l->ncalls + l->self_calls, rc = r->ncalls + r->self_calls;
    if (lt > rt) return GREATER;
    if (lt < rt) return LESS;
    if (lc > rc) return GREATER;
    if (lc < rc) return LESS;
    return EQUAL;
}

static int cmp_member_desc(const void *a, const void *b)
{
    int c = cmp_member(a, b);
    return c == GREATER ? -1 : c == LESS ? 1 : 0;
}

/* gprof inserts each member before the first one it is GREATER than: a
 * stable sort by decreasing (time, calls). cmp_member is consistent, so a
 * stable merge sort gives the same order without the quadratic insertion
 * (a cycle of 20,000 functions). */
static void sort_members(struct gprof_sym *cyc)
{
    size_t n = 0;
    for (struct gprof_sym *m = cyc->cyc_next; m; m = m->cyc_next)
        n++;
    if (n < 2) return;
    struct gprof_sym **v = xmalloc(n * sizeof(*v));
    n = 0;
    for (struct gprof_sym *m = cyc->cyc_next; m; m = m->cyc_next)
        v[n++] = m;
    gprof_msort((void **)v, n, cmp_member_desc);
    cyc->cyc_next = v[0];
    for (size_t i = 0; i + 1 < n; i++)
        v[i]->cyc_next = v[i + 1];
    v[n - 1]->cyc_next = NULL;
    free(v);
}

static void print_cycle(struct gprof_report *r, struct gprof *g, struct gprof_sym *cyc)
{
    double hz = (double)g->hz;
    char buf[32];
    snprintf(buf, sizeof(buf), "[%d]", cyc->index);
    fprintf(r->out, r->bsd ? "%-6.6s %5.1f %7.2f %11.2f %7lu" : "%-6.6s %5.1f %7.2f %7.2f %7lu",
            buf, 100 * (cyc->prop_self + cyc->prop_child) / g->print_time, cyc->prop_self / hz,
            cyc->prop_child / hz, (unsigned long)cyc->ncalls);
    if (cyc->self_calls != 0)
        fprintf(r->out, "+%-7lu", (unsigned long)cyc->self_calls);
    else
        fprintf(r->out, " %7.7s", "");
    fprintf(r->out, " <cycle %d as a whole> [%d]\n", cyc->cyc_num, cyc->index);
}

static void print_members(struct gprof_report *r, struct gprof *g, struct gprof_sym *cyc)
{
    double hz = (double)g->hz;
    sort_members(cyc);
    for (struct gprof_sym *m = cyc->cyc_next; m; m = m->cyc_next) {
        fprintf(r->out, r->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu" : "%6.6s %5.5s %7.2f %7.2f %7lu",
                "", "", m->prop_self / hz, m->prop_child / hz, (unsigned long)m->ncalls);
        if (m->self_calls != 0)
            fprintf(r->out, "+%-7lu", (unsigned long)m->self_calls);
        else
            fprintf(r->out, " %7.7s", "");
        fputs("     ", r->out);
        print_name(r, m);
        fputc('\n', r->out);
    }
}

static void print_parents(struct gprof_report *r, struct gprof *g, struct gprof_sym *child)
{
    double hz = (double)g->hz;
    struct gprof_sym *head = child->cyc_head ? child->cyc_head : child;
    if (!child->parents) {
        fprintf(r->out,
                r->bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
                       : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
                "", "", "", "", "", "");
        return;
    }
    sort_parents(child);
    for (struct gprof_arc *a = child->parents; a; a = a->next_parent) {
        struct gprof_sym *parent = a->parent;
        if (child == parent || (child->cyc_num != 0 && parent->cyc_num == child->cyc_num)) {
            fprintf(r->out,
                    r->bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     "
                           : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ",
                    "", "", "", "", (unsigned long)a->count, "");
        } else {
            fprintf(r->out,
                    r->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     "
                           : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ",
                    "", "", a->time / hz, a->child_time / hz, (unsigned long)a->count,
                    (unsigned long)head->ncalls);
        }
        print_name(r, parent);
        fputc('\n', r->out);
    }
}

static void print_primary(struct gprof_report *r, struct gprof *g, struct gprof_sym *s)
{
    double hz = (double)g->hz;
    char buf[32];
    snprintf(buf, sizeof(buf), "[%d]", s->index);
    fprintf(r->out, r->bsd ? "%-6.6s %5.1f %7.2f %11.2f" : "%-6.6s %5.1f %7.2f %7.2f", buf,
            100 * (s->prop_self + s->prop_child) / g->print_time, s->prop_self / hz,
            s->prop_child / hz);
    if (s->ncalls + s->self_calls != 0) {
        fprintf(r->out, " %7lu", (unsigned long)s->ncalls);
        if (s->self_calls != 0)
            fprintf(r->out, "+%-7lu ", (unsigned long)s->self_calls);
        else
            fprintf(r->out, " %7.7s ", "");
    } else {
        fprintf(r->out, " %7.7s %7.7s ", "", "");
    }
    print_name(r, s);
    fputc('\n', r->out);
}

static void print_children(struct gprof_report *r, struct gprof *g, struct gprof_sym *parent)
{
    double hz = (double)g->hz;
    sort_children(parent);
    for (struct gprof_arc *a = parent->children; a; a = a->next_child) {
        struct gprof_sym *child = a->child;
        if (child == parent || (child->cyc_num != 0 && child->cyc_num == parent->cyc_num)) {
            fprintf(r->out,
                    r->bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     "
                           : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ",
                    "", "", "", "", (unsigned long)a->count, "");
        } else {
            fprintf(r->out,
                    r->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     "
                           : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ",
                    "", "", a->time / hz, a->child_time / hz, (unsigned long)a->count,
                    (unsigned long)child->cyc_head->ncalls);
        }
        print_name(r, child);
        fputc('\n', r->out);
    }
}

void gprof_print_graph(struct gprof_report *r, struct gprof *g)
{
    FILE *o = r->out;
    double hz = (double)g->hz;
    if (!r->brief && r->bsd) fputs(bsd_graph_notes, o);
    section_start(r);
    if (!r->bsd) {
        if (!r->brief)
            fputs("\t\t     Call graph (explanation follows)\n\n", o);
        else
            fputs("\t\t\tCall graph\n\n", o);
    }
    fprintf(o, "\ngranularity: each sample hit covers %ld byte(s)", (long)g->hist_scale * 2);
    if (g->print_time > 0.0) {
        fprintf(o, " for %.2f%% of %.2f seconds\n\n", 100.0 / g->print_time, g->print_time / hz);
    } else {
        fputs(" no time propagated\n\n", o);
        g->print_time = 1.0;
    }
    if (r->bsd) {
        fprintf(o, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called",
                "total", "parents");
        fprintf(o, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n", "index", "%time",
                "self", "descendants", "called", "self", "name", "index");
        fprintf(o, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called",
                "total", "children");
        fputc('\n', o);
    } else {
        fputs("index % time    self  children    called     name\n", o);
    }
    for (size_t i = 0; i < g->ntimed; i++) {
        struct gprof_sym *p = g->timed[i];
        if ((r->ignore_zeros && p->ncalls == 0 && p->self_calls == 0 && p->prop_self == 0 &&
             p->prop_child == 0) ||
            !p->print_flag || (r->line_mode && !p->is_func && p->name))
            continue;
        if (!p->name && p->cyc_num != 0) {
            if (r->line_mode) continue;
            print_cycle(r, g, p);
            print_members(r, g, p);
        } else {
            print_parents(r, g, p);
            print_primary(r, g, p);
            print_children(r, g, p);
        }
        if (r->bsd) fputc('\n', o);
        fputs("-----------------------------------------------\n", o);
        if (r->bsd) fputc('\n', o);
    }
    if (!r->brief && !r->bsd) fputs(graph_notes, o);
}

/* ---- index ------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    return strcmp(l->name, r->name);
}

void gprof_print_index(struct gprof_report *r, struct gprof *g)
{
    FILE *o = r->out;
    int column_width = (r->width - 1) / 3;
    size_t n = 0;
    struct gprof_sym **v = xmalloc((g->nsyms + g->ncycles + 1) * sizeof(*v));
    for (size_t i = 0; i < g->nsyms; i++) {
        struct gprof_sym *s = &g->syms[i];
        if (r->ignore_zeros && s->ncalls == 0 && s->hist_time == 0) continue;
        v[n++] = s;
    }
    gprof_msort((void **)v, n, cmp_name);
    size_t nnames = n, todo = n;
    for (size_t c = 0; c < g->ncycles; c++)
        v[todo++] = &g->cycles[c];
    fputs("\f\n", o);
    fputs("Index by function name\n\n", o);
    size_t rows = (todo + 2) / 3;
    char buf[64];
    for (size_t i = 0; i < rows; i++) {
        int col = 0, start = 0;
        for (size_t j = i; j < todo; j += rows) {
            struct gprof_sym *s = v[j];
            snprintf(buf, sizeof(buf), s->print_flag ? "[%d]" : "(%d)", s->index);
            if (j < nnames) {
                if (r->bsd) {
                    fprintf(o, "%6.6s %-19.19s", buf, s->name);
                } else {
                    col += (int)strlen(buf);
                    for (; col < start + 5; ++col)
                        fputc(' ', o);
                    fprintf(o, " %s ", buf);
                    col += print_name_only(r, s);
                    if (!r->line_mode && s->is_static && s->file) {
                        const char *f = r->print_path ? s->file : base_name(s->file);
                        fprintf(o, " (%s)", f);
                        col += (int)strlen(f) + 3;
                    }
                }
            } else {
                if (r->bsd) {
                    fprintf(o, "%6.6s ", buf);
                    snprintf(buf, sizeof(buf), "<cycle %d>", s->cyc_num);
                    fprintf(o, "%-19.19s", buf);
                } else {
                    col += (int)strlen(buf);
                    for (; col < start + 5; ++col)
                        fputc(' ', o);
                    fprintf(o, " %s ", buf);
                    snprintf(buf, sizeof(buf), "<cycle %d>", s->cyc_num);
                    fputs(buf, o);
                    col += (int)strlen(buf);
                }
            }
            start += column_width;
        }
        fputc('\n', o);
    }
    free(v);
}

/* ---- execution counts (-C) --------------------------------------------- */

static int cmp_bb(const void *a, const void *b)
{
    const struct gprof_sym *l = a, *r = b;
    if (l->file && r->file) {
        int c = strcmp(l->file, r->file);
        if (c) return c;
        if (l->line != r->line) return (int)l->line - (int)r->line;
    }
    if (l->addr < r->addr) return -1;
    if (l->addr > r->addr) return 1;
    return 0;
}

void gprof_print_exec_counts(struct gprof_report *r, struct gprof *g)
{
    FILE *o = r->out;
    section_start(r);
    struct gprof_sym **v = xmalloc((g->nsyms + 1) * sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < g->nsyms; i++)
        if (symspec_selected(r->specs, SYMSPEC_INCL_EXEC, g->syms[i].addr)) v[n++] = &g->syms[i];
    gprof_msort((void **)v, n, cmp_bb);
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *s = v[i];
        const char *f = s->file ? s->file : "<unknown>";
        if (s->ncalls > 0 || !r->ignore_zeros)
            fprintf(o, "%s:%d: (%s:0x%lx) %lu executions\n", f, (int)s->line, s->name,
                    (unsigned long)s->addr, (unsigned long)s->ncalls);
        for (unsigned k = 0; k < s->nbb && s->bb_addr[k]; k++)
            if (s->bb_calls[k] > 0 || !r->ignore_zeros)
                fprintf(o, "%s:%d: (%s:0x%lx) %lu executions\n", f, (int)s->line, s->name,
                        (unsigned long)s->bb_addr[k], (unsigned long)s->bb_calls[k]);
    }
    free(v);
}
