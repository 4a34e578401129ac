/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gprof.c - flat profile, call graph, index and execution counts of
 * `tally gprof`. The printf formats reproduce GNU gprof 2.40's tables
 * (research/gprof.md section 5); the explanations are tally's own.
 */
#include "gprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/error.h"

/* ---- fast output --------------------------------------------------------
 *
 * The reports are hundreds of thousands of short printf conversions (a
 * 20,000-function call graph is 14 MB), and glibc's printf of a double is
 * slow. Lines are built in a buffer with the helpers below, which give the
 * same characters as the printf conversions named on each of them. */

struct obuf {
    FILE *fp;
    size_t n;
    char buf[1 << 15];
};

static void ob_flush(struct obuf *b)
{
    if (b->n) fwrite(b->buf, 1, b->n, b->fp);
    b->n = 0;
}

/* Room for k more bytes (k <= sizeof(buf)). */
static char *ob_room(struct obuf *b, size_t k)
{
    if (b->n + k > sizeof(b->buf)) ob_flush(b);
    return b->buf + b->n;
}

static void ob_mem(struct obuf *b, const char *s, size_t len)
{
    if (len > sizeof(b->buf) / 2) {
        ob_flush(b);
        fwrite(s, 1, len, b->fp);
        return;
    }
    memcpy(ob_room(b, len), s, len);
    b->n += len;
}

static void ob_puts(struct obuf *b, const char *s)
{
    ob_mem(b, s, strlen(s));
}

static void ob_putc(struct obuf *b, char c)
{
    *ob_room(b, 1) = c;
    b->n++;
}

static void ob_spaces(struct obuf *b, int k)
{
    if (k <= 0) return;
    memset(ob_room(b, (size_t)k), ' ', (size_t)k);
    b->n += (size_t)k;
}

/* The digits of v into the end of tmp[]; returns where they start. */
static char *utoa_end(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* "%*lu" (width > 0) or "%-*lu" (width < 0) */
static void ob_ulong(struct obuf *b, uint64_t v, int width)
{
    char tmp[24];
    char *d = utoa_end(tmp + sizeof(tmp), v);
    int len = (int)(tmp + sizeof(tmp) - d);
    if (width > len) ob_spaces(b, width - len);
    ob_mem(b, d, (size_t)len);
    if (-width > len) ob_spaces(b, -width - len);
}

/* "%d"; returns the number of characters */
static int ob_int(struct obuf *b, int v)
{
    char tmp[24];
    char *d = utoa_end(tmp + sizeof(tmp), v < 0 ? (uint64_t)0 - (uint64_t)(int64_t)v : (uint64_t)v);
    if (v < 0) *--d = '-';
    int len = (int)(tmp + sizeof(tmp) - d);
    ob_mem(b, d, (size_t)len);
    return len;
}

/* "%lx"; returns the number of characters */
static int ob_hex(struct obuf *b, uint64_t v)
{
    char tmp[24], *d = tmp + sizeof(tmp);
    do {
        *--d = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    int len = (int)(tmp + sizeof(tmp) - d);
    ob_mem(b, d, (size_t)len);
    return len;
}

/*
 * "%*.*f" of v (0 <= prec <= 4, width < 40) into out, as glibc prints it:
 * the exact binary value rounded to nearest (ties to even). With
 * x = v * 10^prec computed in doubles (10^prec is exact), x differs from
 * the exact product X by at most x * 2^-53 < 2^31 * 2^-53 = 2^-22 < 1e-6
 * (one rounding). Rounding to the nearest integer only jumps at
 * half-integers, so when the fraction of x is more than 1e-6 away from
 * 0.5, x and X round to the same integer, whose digits are what printf
 * shows. Everything else (within 1e-6 of a tie, negative or -0.0, 2^31 or
 * more, NaN, infinite) is left to snprintf.
 */
int gprof_fmt_fixed(char *out, size_t size, double v, int width, int prec)
{
    static const double pow10[] = {1.0, 10.0, 100.0, 1000.0, 10000.0};
    static const uint64_t ipow10[] = {1, 10, 100, 1000, 10000};
    double x = prec >= 0 && prec <= 4 ? v * pow10[prec] : -1.0;
    if (!(x >= 0.0 && x < 2147483648.0) || signbit(v) || width >= 40 || size < 64)
        return snprintf(out, size, "%*.*f", width, prec, v);
    double f = floor(x);
    double frac = x - f; /* exact */
    if (fabs(frac - 0.5) <= 1e-6) return snprintf(out, size, "%*.*f", width, prec, v);
    uint64_t r = (uint64_t)f + (frac > 0.5);
    char tmp[40];
    char *end = tmp + sizeof(tmp), *d = end;
    uint64_t ip = r / ipow10[prec], fp = r % ipow10[prec];
    for (int i = 0; i < prec; i++) {
        *--d = (char)('0' + fp % 10);
        fp /= 10;
    }
    if (prec > 0) *--d = '.';
    d = utoa_end(d, ip);
    int len = (int)(end - d), pad = width > len ? width - len : 0;
    memset(out, ' ', (size_t)pad);
    memcpy(out + pad, d, (size_t)len);
    out[pad + len] = '\0';
    return pad + len;
}

static void ob_fixed(struct obuf *b, double v, int width, int prec)
{
    char tmp[512];
    int len = gprof_fmt_fixed(tmp, sizeof(tmp), v, width, prec);
    if (len > 0) ob_mem(b, tmp, (size_t)len < sizeof(tmp) ? (size_t)len : sizeof(tmp) - 1);
}

/* "%-*.*s" of s (left-justified in width, at most width characters) */
static void ob_left(struct obuf *b, const char *s, int width)
{
    size_t len = strnlen(s, (size_t)width);
    ob_mem(b, s, len);
    ob_spaces(b, width - (int)len);
}

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
static int print_name_only(struct obuf *b, struct gprof_report *r, struct gprof_sym *s)
{
    if (!s->name) return 0;
    const char *name = gprof_display_name(r, s);
    size_t nlen = strlen(name);
    ob_mem(b, name, nlen);
    int size = (int)nlen;
    if ((r->line_mode || r->inline_file_names) && s->file) {
        /* " (%s:%d @ %lx)" with -l, else " (%s:%d)" */
        const char *f = r->print_path ? s->file : base_name(s->file);
        size_t flen = strlen(f);
        ob_mem(b, " (", 2);
        ob_mem(b, f, flen);
        ob_putc(b, ':');
        size += 4 + (int)flen + ob_int(b, (int)s->line);
        if (r->line_mode) {
            ob_mem(b, " @ ", 3);
            size += 3 + ob_hex(b, s->addr);
        }
        ob_putc(b, ')');
    }
    return size;
}

static void print_name(struct obuf *b, struct gprof_report *r, struct gprof_sym *s)
{
    print_name_only(b, r, s);
    if (s->cyc_num != 0) { /* " <cycle %d>" */
        ob_mem(b, " <cycle ", 8);
        ob_int(b, s->cyc_num);
        ob_putc(b, '>');
    }
    if (s->index != 0) { /* " [%d]" or " (%d)" */
        ob_mem(b, s->print_flag ? " [" : " (", 2);
        ob_int(b, s->index);
        ob_putc(b, s->print_flag ? ']' : ')');
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
    /* The rows that will not be printed (no time, no calls: most -l line
     * symbols) are left out before sorting. cmp_time is a consistent order
     * (time, calls, name), so the stable sort of the rest puts them in the
     * same order as sorting everything would; and the unit below is chosen
     * among symbols with calls only. */
    size_t n = 0;
    struct gprof_sym **v = xmalloc((g->nsyms ? g->nsyms : 1) * sizeof(*v));
    for (size_t i = 0; i < g->nsyms; i++)
        if (!r->ignore_zeros || g->syms[i].ncalls != 0 || g->syms[i].hist_time != 0)
            v[n++] = &g->syms[i];
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
    fflush(o);
    struct obuf *b = xmalloc(sizeof(*b));
    b->fp = o;
    b->n = 0;
    for (size_t i = 0; i < n; i++) {
        struct gprof_sym *s = v[i];
        if (!symspec_selected(r->specs, SYMSPEC_INCL_FLAT, s->addr)) continue;
        if (r->ignore_zeros && s->ncalls == 0 && s->hist_time == 0) continue;
        accum += s->hist_time;
        double pct = total > 0.0 ? 100 * s->hist_time / total : 0.0;
        if (r->bsd) { /* "%5.1f %10.2f %8.2f" */
            ob_fixed(b, pct, 5, 1);
            ob_putc(b, ' ');
            ob_fixed(b, accum / hz, 10, 2);
        } else { /* "%6.2f %9.2f %8.2f" */
            ob_fixed(b, pct, 6, 2);
            ob_putc(b, ' ');
            ob_fixed(b, accum / hz, 9, 2);
        }
        ob_putc(b, ' ');
        ob_fixed(b, s->hist_time / hz, 8, 2);
        if (s->ncalls != 0) { /* " %8lu %8.2f %8.2f  " */
            ob_putc(b, ' ');
            ob_ulong(b, s->ncalls, 8);
            ob_putc(b, ' ');
            ob_fixed(b, scale * s->hist_time / hz / (double)s->ncalls, 8, 2);
            ob_putc(b, ' ');
            ob_fixed(b, scale * (s->hist_time + s->child_time) / hz / (double)s->ncalls, 8, 2);
            ob_mem(b, "  ", 2);
        } else { /* " %8.8s %8.8s %8.8s  " of "" */
            ob_spaces(b, 29);
        }
        if (r->bsd)
            print_name(b, r, s);
        else
            print_name_only(b, r, s);
        ob_putc(b, '\n');
    }
    ob_flush(b);
    free(b);
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

/* "[%d]" */
static int bracket_index(char *buf, int index)
{
    char tmp[24];
    char *d = utoa_end(tmp + sizeof(tmp), index < 0 ? 0 : (uint64_t)index);
    int len = (int)(tmp + sizeof(tmp) - d);
    if (index < 0) return snprintf(buf, 32, "[%d]", index);
    buf[0] = '[';
    memcpy(buf + 1, d, (size_t)len);
    buf[len + 1] = ']';
    buf[len + 2] = '\0';
    return len + 2;
}

/* "%7lu" then "+%-7lu" of self calls, or 8 spaces (" %7.7s" of "") */
static void calls_and_self(struct obuf *b, uint64_t ncalls, uint64_t self_calls)
{
    ob_ulong(b, ncalls, 7);
    if (self_calls != 0) {
        ob_putc(b, '+');
        ob_ulong(b, self_calls, -7);
    } else {
        ob_spaces(b, 8);
    }
}

/* The columns every primary line starts with, for a function or a cycle:
 * "%-6.6s %5.1f %7.2f %7.2f" (-T: %11.2f for the children). */
static void print_entry_head(struct obuf *b, const struct gprof_report *r, const struct gprof *g,
                             const struct gprof_sym *s)
{
    double hz = (double)g->hz;
    char buf[32];
    bracket_index(buf, s->index);
    ob_left(b, buf, 6);
    ob_putc(b, ' ');
    ob_fixed(b, 100 * (s->prop_self + s->prop_child) / g->print_time, 5, 1);
    ob_putc(b, ' ');
    ob_fixed(b, s->prop_self / hz, 7, 2);
    ob_putc(b, ' ');
    ob_fixed(b, s->prop_child / hz, r->bsd ? 11 : 7, 2);
}

static void print_cycle(struct obuf *b, struct gprof_report *r, struct gprof *g,
                        struct gprof_sym *cyc)
{
    print_entry_head(b, r, g, cyc);
    /* " %7lu" and the self calls */
    ob_putc(b, ' ');
    calls_and_self(b, cyc->ncalls, cyc->self_calls);
    /* " <cycle %d as a whole> [%d]\n" */
    ob_mem(b, " <cycle ", 8);
    ob_int(b, cyc->cyc_num);
    ob_mem(b, " as a whole> [", 14);
    ob_int(b, cyc->index);
    ob_mem(b, "]\n", 2);
}

static void print_members(struct obuf *b, struct gprof_report *r, struct gprof *g,
                          struct gprof_sym *cyc)
{
    double hz = (double)g->hz;
    sort_members(cyc);
    for (struct gprof_sym *m = cyc->cyc_next; m; m = m->cyc_next) {
        /* "%6.6s %5.5s %7.2f %7.2f %7lu" (-T: %11.2f) of "", "" */
        ob_spaces(b, 13);
        ob_fixed(b, m->prop_self / hz, 7, 2);
        ob_putc(b, ' ');
        ob_fixed(b, m->prop_child / hz, r->bsd ? 11 : 7, 2);
        ob_putc(b, ' ');
        calls_and_self(b, m->ncalls, m->self_calls);
        ob_spaces(b, 5);
        print_name(b, r, m);
        ob_putc(b, '\n');
    }
}

/* One caller or callee line: "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     "
 * inside a cycle or recursion, else "%6.6s %5.5s %7.2f %7.2f
 * %7lu/%-7lu     " (-T: 11 instead of the second 7), then the name. */
static void print_arc_line(struct obuf *b, struct gprof_report *r, struct gprof *g,
                           const struct gprof_arc *a, bool inside, uint64_t total,
                           struct gprof_sym *who)
{
    double hz = (double)g->hz;
    if (inside) {
        ob_spaces(b, 6 + 1 + 5 + 1 + 7 + 1 + (r->bsd ? 11 : 7) + 1);
        ob_ulong(b, a->count, 7);
        ob_spaces(b, 1 + 7 + 5);
    } else {
        ob_spaces(b, 6 + 1 + 5 + 1);
        ob_fixed(b, a->time / hz, 7, 2);
        ob_putc(b, ' ');
        ob_fixed(b, a->child_time / hz, r->bsd ? 11 : 7, 2);
        ob_putc(b, ' ');
        ob_ulong(b, a->count, 7);
        ob_putc(b, '/');
        ob_ulong(b, total, -7);
        ob_spaces(b, 5);
    }
    print_name(b, r, who);
    ob_putc(b, '\n');
}

static void print_parents(struct obuf *b, struct gprof_report *r, struct gprof *g,
                          struct gprof_sym *child)
{
    struct gprof_sym *head = child->cyc_head ? child->cyc_head : child;
    if (!child->parents) {
        /* "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n" */
        ob_spaces(b, 6 + 1 + 5 + 1 + 7 + 1 + (r->bsd ? 11 : 7) + 1 + 7 + 1 + 7);
        ob_puts(b, "     <spontaneous>\n");
        return;
    }
    sort_parents(child);
    for (struct gprof_arc *a = child->parents; a; a = a->next_parent) {
        struct gprof_sym *parent = a->parent;
        bool inside = child == parent || (child->cyc_num != 0 && parent->cyc_num == child->cyc_num);
        print_arc_line(b, r, g, a, inside, head->ncalls, parent);
    }
}

static void print_primary(struct obuf *b, struct gprof_report *r, struct gprof *g,
                          struct gprof_sym *s)
{
    print_entry_head(b, r, g, s);
    if (s->ncalls + s->self_calls != 0) {
        /* " %7lu", then "+%-7lu " or " %7.7s " */
        ob_putc(b, ' ');
        ob_ulong(b, s->ncalls, 7);
        if (s->self_calls != 0) {
            ob_putc(b, '+');
            ob_ulong(b, s->self_calls, -7);
            ob_putc(b, ' ');
        } else {
            ob_spaces(b, 9);
        }
    } else { /* " %7.7s %7.7s " */
        ob_spaces(b, 17);
    }
    print_name(b, r, s);
    ob_putc(b, '\n');
}

static void print_children(struct obuf *b, struct gprof_report *r, struct gprof *g,
                           struct gprof_sym *parent)
{
    sort_children(parent);
    for (struct gprof_arc *a = parent->children; a; a = a->next_child) {
        struct gprof_sym *child = a->child;
        bool inside = child == parent || (child->cyc_num != 0 && child->cyc_num == parent->cyc_num);
        print_arc_line(b, r, g, a, inside, child->cyc_head->ncalls, child);
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
    fflush(o);
    struct obuf *b = xmalloc(sizeof(*b));
    b->fp = o;
    b->n = 0;
    for (size_t i = 0; i < g->ntimed; i++) {
        struct gprof_sym *p = g->timed[i];
        if ((r->ignore_zeros && p->ncalls == 0 && p->self_calls == 0 && p->prop_self == 0 &&
             p->prop_child == 0) ||
            !p->print_flag || (r->line_mode && !p->is_func && p->name))
            continue;
        if (!p->name && p->cyc_num != 0) {
            if (r->line_mode) continue;
            print_cycle(b, r, g, p);
            print_members(b, r, g, p);
        } else {
            print_parents(b, r, g, p);
            print_primary(b, r, g, p);
            print_children(b, r, g, p);
        }
        if (r->bsd) ob_putc(b, '\n');
        ob_puts(b, "-----------------------------------------------\n");
        if (r->bsd) ob_putc(b, '\n');
    }
    ob_flush(b);
    free(b);
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
    fflush(o);
    struct obuf *b = xmalloc(sizeof(*b));
    b->fp = o;
    b->n = 0;
    size_t rows = (todo + 2) / 3;
    char buf[64];
    for (size_t i = 0; i < rows; i++) {
        int col = 0, start = 0;
        for (size_t j = i; j < todo; j += rows) {
            struct gprof_sym *s = v[j];
            /* "[%d]" or "(%d)" */
            int blen = bracket_index(buf, s->index);
            if (!s->print_flag && s->index >= 0) {
                buf[0] = '(';
                buf[blen - 1] = ')';
            } else if (!s->print_flag) {
                blen = snprintf(buf, sizeof(buf), "(%d)", s->index);
            }
            if (j < nnames) {
                if (r->bsd) { /* "%6.6s %-19.19s" */
                    int k = blen < 6 ? blen : 6;
                    ob_spaces(b, 6 - k);
                    ob_mem(b, buf, (size_t)k);
                    ob_putc(b, ' ');
                    ob_left(b, s->name, 19);
                } else {
                    col += blen;
                    if (col < start + 5) {
                        ob_spaces(b, start + 5 - col);
                        col = start + 5;
                    }
                    ob_putc(b, ' '); /* " %s " */
                    ob_mem(b, buf, (size_t)blen);
                    ob_putc(b, ' ');
                    col += print_name_only(b, r, s);
                    if (!r->line_mode && s->is_static && s->file) {
                        const char *f = r->print_path ? s->file : base_name(s->file);
                        ob_mem(b, " (", 2); /* " (%s)" */
                        ob_puts(b, f);
                        ob_putc(b, ')');
                        col += (int)strlen(f) + 3;
                    }
                }
            } else {
                char cyc[48];
                snprintf(cyc, sizeof(cyc), "<cycle %d>", s->cyc_num);
                if (r->bsd) { /* "%6.6s " then "%-19.19s" */
                    int k = blen < 6 ? blen : 6;
                    ob_spaces(b, 6 - k);
                    ob_mem(b, buf, (size_t)k);
                    ob_putc(b, ' ');
                    ob_left(b, cyc, 19);
                } else {
                    col += blen;
                    if (col < start + 5) {
                        ob_spaces(b, start + 5 - col);
                        col = start + 5;
                    }
                    ob_putc(b, ' ');
                    ob_mem(b, buf, (size_t)blen);
                    ob_putc(b, ' ');
                    ob_puts(b, cyc);
                    col += (int)strlen(cyc);
                }
            }
            start += column_width;
        }
        ob_putc(b, '\n');
    }
    ob_flush(b);
    free(b);
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
