/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321.c - the layout of cg_annotate 3.21+ (annotate_cg321.h):
 * sums per (file, function) and per (file, line) of one or more
 * cachegrind profiles, the two summary tables, and the section headers.
 * The annotated source files and the annotation summary are in
 * annotate_cg321_src.c; what both share is annotate_cg321_int.h.
 */
#include "annotate_cg321_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../analysis/rename.h"
#include "../io/bytebuf.h"
#include "textfmt.h"

struct cga *cga_new(const struct cga_options *o)
{
    struct cga *a = xcalloc(1, sizeof(*a));
    a->o = *o;
    strtab_init(&a->names);
    return a;
}

void cga_free(struct cga *a)
{
    if (!a) return;
    if (a->nev) {
        rectab_release(&a->pairs);
        rectab_release(&a->lines);
        rectab_release(&a->ofls);
    }
    strtab_release(&a->names);
    for (size_t i = 0; i < a->nev; i++)
        free(a->events[i]);
    free(a->events);
    free(a->show);
    free(a->sort);
    free(a->summary);
    strlist_release(&a->descs);
    strlist_release(&a->cmds);
    strlist_release(&a->paths);
    free(a->mtime);
    free(a->listed);
    free(a);
}

/* Index of event `name`, or -1. */
static long event_index(const struct cga *a, const char *name)
{
    for (size_t i = 0; i < a->nev; i++)
        if (!strcmp(a->events[i], name)) return (long)i;
    return -1;
}

/* Resolve --show or --sort (empty: every event in order) into idx[*n]. */
static int pick_events(struct cga *a, const struct strlist *l, const char *opt, size_t **idx,
                       size_t *n, const char *path, struct tally_error *err)
{
    size_t k = l->n ? l->n : a->nev;
    *idx = xcalloc(k ? k : 1, sizeof(**idx));
    *n = k;
    for (size_t i = 0; i < k; i++) {
        long e = l->n ? event_index(a, l->items[i]) : (long)i;
        if (e < 0)
            return tally_error_set(err, path, 0, "%s event '%s' is not in the 'events:' line", opt,
                                   l->items[i]);
        (*idx)[i] = (size_t)e;
    }
    return 0;
}

/* The first profile fixes the events and makes the tables. */
static int first_events(struct cga *a, const struct part *pt, const char *path,
                        struct tally_error *err)
{
    a->nev = pt->events.n;
    a->events = xcalloc(a->nev ? a->nev : 1, sizeof(*a->events));
    for (size_t i = 0; i < a->nev; i++)
        a->events[i] = xstrdup(pt->events.names[i]);
    a->summary = xcalloc(a->nev ? a->nev : 1, sizeof(*a->summary));
    rectab_init(&a->pairs, 1, 2 * a->nev);
    rectab_init(&a->lines, 2, 2 * a->nev);
    rectab_init(&a->ofls, 1, 1);
    if (!a->nev) return tally_error_set(err, path, 0, "the profile has no events");
    if (pick_events(a, &a->o.show, "--show", &a->show, &a->nshow, path, err)) return -1;
    return pick_events(a, &a->o.sort, "--sort", &a->sort, &a->nsort, path, err);
}

/* A name after a rename, interned in the report's table. */
static int mapped(struct cga *a, const struct profile *p, uint32_t id, const struct rename *rn,
                  uint32_t *map, uint32_t *out, struct tally_error *err)
{
    if (map[id] != UINT32_MAX) {
        *out = map[id];
        return 0;
    }
    const char *s = profile_str(p, id);
    if (rn) {
        char *r = rename_apply(rn, s, err);
        if (!r) return -1;
        map[id] = strtab_intern(&a->names, r, strlen(r));
        free(r);
    } else {
        map[id] = strtab_intern(&a->names, s, strlen(s));
    }
    *out = map[id];
    return 0;
}

static int64_t mtime_of(const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-") || stat(path, &st)) return -1;
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static tally_wide cost_at(const uint64_t *c, size_t e, int is_signed)
{
    return is_signed ? (tally_wide)(int64_t)c[e] : (tally_wide)c[e];
}

int cga_add(struct cga *a, const struct profile *p, const char *path, struct tally_error *err)
{
    const char *name = path ? path : "(input)";
    if (!p->nparts) return tally_error_set(err, name, 0, "the profile has no part");
    const struct part *pt = p->parts[0];
    if (a->o.diff && a->ninputs >= 2)
        return tally_error_set(err, name, 0, "--diff compares exactly two profiles");
    if (!a->ninputs) {
        if (first_events(a, pt, name, err)) return -1;
    } else {
        int same = pt->events.n == a->nev;
        for (size_t i = 0; same && i < a->nev; i++)
            same = !strcmp(pt->events.names[i], a->events[i]);
        if (!same)
            return tally_error_set(err, name, 0,
                                   "its events are not those of %s (the same names in the same "
                                   "order, as cg_annotate requires)",
                                   a->paths.items[0]);
    }
    if (!pt->summary) return tally_error_set(err, name, 0, "missing 'summary:' line");
    int neg = a->o.diff && a->ninputs == 0;
    int sg = p->signed_costs;
    size_t nev = a->nev;

    /* the metadata */
    struct bytebuf d = {0};
    for (size_t i = 0; i < pt->desc.n; i++)
        bytebuf_printf(&d, "%s\n", pt->desc.items[i]);
    bytebuf_addc(&d, '\0');
    strlist_push(&a->descs, d.s);
    bytebuf_release(&d);
    strlist_push(&a->cmds, pt->cmd ? pt->cmd : "");
    strlist_push(&a->paths, name);
    a->mtime = xrealloc(a->mtime, (a->ninputs + 1) * sizeof(*a->mtime));
    a->mtime[a->ninputs] = mtime_of(path);
    a->ninputs++;

    size_t nn = p->names.n;
    uint32_t *fmap = xmalloc((nn ? nn : 1) * sizeof(*fmap));
    uint32_t *nmap = xmalloc((nn ? nn : 1) * sizeof(*nmap));
    memset(fmap, 0xff, (nn ? nn : 1) * sizeof(*fmap));
    memset(nmap, 0xff, (nn ? nn : 1) * sizeof(*nmap));
    tally_wide *tot = xcalloc(nev, sizeof(*tot));
    int rc = 0;
    /* every function named, counts or not (cg_annotate lists those too at
       --threshold=0), and the original names of the files */
    size_t nf = profile_nfunctions(p);
    for (uint32_t fn = 0; fn < nf && !rc; fn++) {
        struct function f = profile_function_at(p, fn);
        uint32_t mfl, mfn;
        if (mapped(a, p, f.file, a->o.mod_file, fmap, &mfl, err) ||
            mapped(a, p, f.name, a->o.mod_fn, nmap, &mfn, err)) {
            rc = -1;
            break;
        }
        uint64_t key = (uint64_t)mfl << 32 | mfn;
        rectab_get(&a->pairs, &key, NULL);
        const char *ofl = profile_str(p, f.file);
        key = (uint64_t)mfl << 32 | strtab_intern(&a->names, ofl, strlen(ofl));
        rectab_get(&a->ofls, &key, NULL);
    }
    size_t nc = part_ncosts(pt);
    for (size_t i = 0; i < nc && !rc; i++) {
        struct cost_rec rec;
        part_cost_get(pt, i, &rec);
        struct function f = profile_function_at(p, rec.fn);
        uint32_t mfl, mfn;
        if (mapped(a, p, rec.pos.file, a->o.mod_file, fmap, &mfl, err) ||
            mapped(a, p, f.name, a->o.mod_fn, nmap, &mfn, err)) {
            rc = -1;
            break;
        }
        uint64_t key = (uint64_t)mfl << 32 | mfn;
        tally_wide *pv = (tally_wide *)rectab_get(&a->pairs, &key, NULL);
        tally_wide *lv = NULL;
        if (a->o.annotate) {
            uint64_t lkey[2] = {mfl, rec.pos.line};
            lv = (tally_wide *)rectab_get(&a->lines, lkey, NULL);
        }
        for (size_t e = 0; e < nev; e++) {
            tally_wide v = cost_at(rec.cost, e, sg);
            tot[e] += v;
            if (neg) v = -v;
            pv[e] += v;
            if (lv) lv[e] += v;
        }
    }
    /* the summary must be the sum of the costs, as cg_annotate checks */
    for (size_t e = 0; e < nev && !rc; e++) {
        tally_wide s = cost_at(pt->summary, e, sg);
        if (s != tot[e]) {
            char b1[TALLY_WIDE_DIGITS], b2[TALLY_WIDE_DIGITS];
            rc = tally_error_set(err, name, pt->summary_line,
                                 "'summary:' line gives %s = %s, but the costs add up to %s",
                                 a->events[e], tally_wide_str(s, b1), tally_wide_str(tot[e], b2));
        }
        a->summary[e] += neg ? -s : s;
    }
    free(tot);
    free(fmap);
    free(nmap);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

tally_wide cga_abs(tally_wide v)
{
    return v < 0 ? -v : v;
}

/* v * 100 / s, rounded once to the nearest double when both fit 53 bits. */
static double ratio100(tally_wide v, tally_wide s)
{
    tally_wide n = v * 100;
    const tally_wide lim = (tally_wide)1 << 53;
    if (cga_abs(n) <= lim && cga_abs(s) <= lim) return (double)n / (double)s;
    return (double)((long double)n / (long double)s);
}

/* The count, first and second percentage texts of v1[i] (and v2[i], an
 * outer row's cumulative cost, or NULL). */
void cga_strs(const struct cga *a, const tally_wide *v1, const tally_wide *v2, size_t i,
              char *count, char *p1, char *p2)
{
    textfmt_commify(v1[i], count);
    p1[0] = p2[0] = '\0';
    if (!a->o.show_percs) return;
    tally_wide s = a->summary[i];
    if (!v2) {
        if (v1[i] == 0)
            ;
        else if (s == 0)
            strcpy(p1, " (n/a)");
        else
            snprintf(p1, CGA_CELL, " (%.1f%%)", ratio100(v1[i], s));
    } else if (s == 0) {
        strcpy(p1, " (n/a,");
        strcpy(p2, " n/a)");
    } else {
        snprintf(p1, CGA_CELL, " (%.1f%%,", ratio100(v1[i], s));
        snprintf(p2, CGA_CELL, " %.1f%%)", ratio100(v2[i], s));
    }
}

static size_t max_sz(size_t x, size_t y)
{
    return x > y ? x : y;
}

/* Widths from the smallest and largest values of each event (and of the
 * cumulative costs, or NULL). */
void cga_widths(const struct cga *a, struct cga_printer *pr, const tally_wide *min1,
                const tally_wide *max1, const tally_wide *min2, const tally_wide *max2)
{
    for (size_t i = 0; i < a->nev; i++) {
        char c[CGA_CELL], p1[CGA_CELL], p2[CGA_CELL];
        char d[CGA_CELL], q1[CGA_CELL], q2[CGA_CELL];
        cga_strs(a, min1, min2, i, c, p1, p2);
        cga_strs(a, max1, max2, i, d, q1, q2);
        pr->w[i].count = max_sz(strlen(c), strlen(d));
        pr->w[i].perc1 = max_sz(strlen(p1), strlen(q1));
        pr->w[i].perc2 = max_sz(strlen(p2), strlen(q2));
    }
}

void cga_printer_init(const struct cga *a, struct cga_printer *pr, const char *prefix)
{
    pr->w = xcalloc(a->nev, sizeof(*pr->w));
    pr->prefix = prefix;
}

void cga_printer_release(struct cga_printer *pr)
{
    free(pr->w);
    pr->w = NULL;
}

/* Widen min and max to cover v. */
void cga_extremes(const struct cga *a, const tally_wide *v, tally_wide *min, tally_wide *max)
{
    for (size_t i = 0; i < a->nev; i++) {
        if (v[i] > max[i])
            max[i] = v[i];
        else if (v[i] < min[i])
            min[i] = v[i];
    }
}

static void pad(FILE *out, char c, size_t n)
{
    for (size_t k = 0; k < n; k++)
        putc(c, out);
}

static void cell(FILE *out, const struct cga *a, const struct cga_printer *pr, size_t i,
                 const char *count, const char *p1, const char *p2)
{
    const struct cga_width *w = &pr->w[i];
    size_t ew = strlen(a->events[i]), used = w->count + w->perc1 + w->perc2;
    if (ew > used) pad(out, ' ', ew - used);
    size_t n;
    if ((n = strlen(count)) < w->count) pad(out, ' ', w->count - n);
    fputs(count, out);
    if ((n = strlen(p1)) < w->perc1) pad(out, ' ', w->perc1 - n);
    fputs(p1, out);
    if ((n = strlen(p2)) < w->perc2) pad(out, ' ', w->perc2 - n);
    fputs(p2, out);
    putc(' ', out);
}

void cga_print_events(FILE *out, const struct cga *a, const struct cga_printer *pr,
                      const char *suffix)
{
    fputs(pr->prefix, out);
    for (size_t k = 0; k < a->nshow; k++) {
        size_t i = a->show[k];
        const struct cga_width *w = &pr->w[i];
        size_t ew = strlen(a->events[i]);
        fputs(a->events[i], out);
        size_t want = max_sz(ew, w->count + w->perc1 + w->perc2);
        pad(out, '_', want - ew);
        putc(' ', out);
    }
    fprintf(out, "%s\n", suffix);
}

void cga_print_cc(FILE *out, const struct cga *a, const struct cga_printer *pr, const tally_wide *v,
                  const tally_wide *v2, const char *suffix)
{
    for (size_t k = 0; k < a->nshow; k++) {
        char c[CGA_CELL], p1[CGA_CELL], p2[CGA_CELL];
        cga_strs(a, v, v2, a->show[k], c, p1, p2);
        cell(out, a, pr, a->show[k], c, p1, p2);
    }
    fprintf(out, " %s\n", suffix);
}

void cga_print_missing(FILE *out, const struct cga *a, const struct cga_printer *pr,
                       const char *suffix, size_t len)
{
    for (size_t k = 0; k < a->nshow; k++)
        cell(out, a, pr, a->show[k], ".", "", "");
    putc(' ', out);
    fwrite(suffix, 1, len, out);
    putc('\n', out);
}

void cga_fancy(FILE *out, const char *text)
{
    fputs("--------------------------------------------------------------------------------\n",
          out);
    fprintf(out, "-- %s\n", text);
    fputs("--------------------------------------------------------------------------------\n",
          out);
}

/* ------------------------------------------------------------------------ */
/* Metadata and summary                                                     */
/* ------------------------------------------------------------------------ */

/* A double as Python's repr() writes it: the shortest text that reads back
 * the same, in fixed notation for exponents -4 to 15, with ".0" if whole. */
static void py_float(double x, char *buf, size_t size)
{
    char e[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(e, sizeof(e), "%.*e", prec - 1, x);
        if (strtod(e, NULL) == x) break;
    }
    /* e is d[.ddd]e[+-]XX: the digits and the exponent */
    char digits[32];
    size_t nd = 0;
    const char *s = e;
    int negative = *s == '-';
    if (negative) s++;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9') digits[nd++] = *s;
    int exp10 = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    size_t o = 0;
    if (negative) buf[o++] = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            o += (size_t)snprintf(buf + o, size - o, "0.");
            for (int k = 0; k < -exp10 - 1; k++)
                buf[o++] = '0';
            snprintf(buf + o, size - o, "%s", digits);
        } else {
            for (int k = 0; k <= exp10; k++)
                buf[o++] = (size_t)k < nd ? digits[k] : '0';
            buf[o++] = '.';
            if ((size_t)exp10 + 1 < nd)
                snprintf(buf + o, size - o, "%s", digits + exp10 + 1);
            else
                snprintf(buf + o, size - o, "0");
        }
    } else {
        buf[o++] = digits[0];
        if (nd > 1) o += (size_t)snprintf(buf + o, size - o, ".%s", digits + 1);
        snprintf(buf + o, size - o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    }
}

static void print_metadata(FILE *out, const struct cga *a)
{
    cga_fancy(out, "Metadata");
    fprintf(out, "Invocation:       %s\n", a->o.invocation ? a->o.invocation : "");
    int same = 1;
    for (size_t i = 1; i < a->descs.n; i++)
        if (strcmp(a->descs.items[i], a->descs.items[i - 1])) same = 0;
    if (same) {
        fputs(a->descs.items[0], out);
    } else {
        for (size_t i = 0; i < a->descs.n; i++)
            fprintf(out, "Description %zu:\n%s", i + 1, a->descs.items[i]);
    }
    if (a->cmds.n == 1) {
        fprintf(out, "Command:          %s\n", a->cmds.items[0]);
    } else {
        for (size_t i = 0; i < a->cmds.n; i++) {
            if (i > 0 && !strcmp(a->cmds.items[i - 1], a->cmds.items[i]))
                fprintf(out, "Command %zu:        (same as Command %zu)\n", i + 1, i);
            else
                fprintf(out, "Command %zu:        %s\n", i + 1, a->cmds.items[i]);
        }
    }
    fputs("Events recorded: ", out);
    for (size_t i = 0; i < a->nev; i++)
        fprintf(out, " %s", a->events[i]);
    fputs("\nEvents shown:    ", out);
    for (size_t k = 0; k < a->nshow; k++)
        fprintf(out, " %s", a->events[a->show[k]]);
    fputs("\nEvent sort order:", out);
    for (size_t k = 0; k < a->nsort; k++)
        fprintf(out, " %s", a->events[a->sort[k]]);
    char t[64];
    py_float(a->o.threshold, t, sizeof(t));
    fprintf(out, "\nThreshold:        %s%%\n", t);
    fprintf(out, "Annotation:       %s\n\n", a->o.annotate ? "on" : "off");
}

static void print_summary(FILE *out, const struct cga *a)
{
    struct cga_printer pr;
    cga_printer_init(a, &pr, "");
    tally_wide *mn = xcalloc(a->nev, sizeof(*mn)), *mx = xcalloc(a->nev, sizeof(*mx));
    cga_extremes(a, a->summary, mn, mx);
    cga_widths(a, &pr, mn, mx, NULL, NULL);
    cga_fancy(out, "Summary");
    cga_print_events(out, a, &pr, "");
    putc('\n', out);
    cga_print_cc(out, a, &pr, a->summary, NULL, "PROGRAM TOTALS");
    putc('\n', out);
    free(mn);
    free(mx);
    cga_printer_release(&pr);
}

/* ------------------------------------------------------------------------ */
/* File:function and Function:file                                          */
/* ------------------------------------------------------------------------ */

/* One outer name of a table (a file, or a function) with its inner names. */
struct group {
    uint32_t name;
    tally_wide *outer;     /* [nev] the sum over every inner name */
    size_t *inner, ninner; /* pair indices that met the threshold, sorted */
};

struct sortctx {
    const struct cga *a;
    int by_file; /* pairs keyed by file (File:function) */
};

static uint32_t pair_outer(const struct cga *a, size_t i, int by_file)
{
    uint64_t k = rectab_at(&a->pairs, i)[0];
    return by_file ? (uint32_t)(k >> 32) : (uint32_t)k;
}

static uint32_t pair_inner(const struct cga *a, size_t i, int by_file)
{
    return pair_outer(a, i, !by_file);
}

static const tally_wide *pair_cc(const struct cga *a, size_t i)
{
    return (const tally_wide *)rectab_val(&a->pairs, i);
}

/* Bigger first by the sort events' absolute values, then by name, the
 * greater name first. */
static int cmp_cc(const struct cga *a, const tally_wide *x, uint32_t xn, const tally_wide *y,
                  uint32_t yn)
{
    for (size_t k = 0; k < a->nsort; k++) {
        tally_wide u = cga_abs(x[a->sort[k]]), v = cga_abs(y[a->sort[k]]);
        if (u != v) return u > v ? -1 : 1;
    }
    int c = strcmp(strtab_str(&a->names, xn), strtab_str(&a->names, yn));
    return c > 0 ? -1 : c < 0;
}

static int cmp_by_outer(const void *pa, const void *pb, void *vctx)
{
    const struct sortctx *c = vctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    uint32_t u = pair_outer(c->a, x, c->by_file), v = pair_outer(c->a, y, c->by_file);
    return u < v ? -1 : u > v;
}

static int cmp_inner(const void *pa, const void *pb, void *vctx)
{
    const struct sortctx *c = vctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    return cmp_cc(c->a, pair_cc(c->a, x), pair_inner(c->a, x, c->by_file), pair_cc(c->a, y),
                  pair_inner(c->a, y, c->by_file));
}

static int cmp_groups(const void *pa, const void *pb, void *vctx)
{
    const struct sortctx *c = vctx;
    const struct group *x = pa, *y = pb;
    return cmp_cc(c->a, x->outer, x->name, y->outer, y->name);
}

/* Does this cost meet the threshold (exactly, as an integer against the
 * float bound)? */
static int meets(const struct cga *a, const tally_wide *v, double bound)
{
    return cga_abs(v[a->sort[0]]) >= (tally_wide)ceil(bound);
}

/*
 * Print one table; by_file: File:function, else Function:file. With
 * by_file, the printed files are marked in a->listed (by name id).
 */
static void print_table(FILE *out, struct cga *a, int by_file)
{
    size_t np = a->pairs.count, nev = a->nev;
    double bound = a->o.threshold * (double)cga_abs(a->summary[a->sort[0]]) / 100;
    struct sortctx ctx = {a, by_file};
    size_t *idx = xmalloc((np ? np : 1) * sizeof(*idx));
    for (size_t i = 0; i < np; i++)
        idx[i] = i;
    qsort_r(idx, np, sizeof(*idx), cmp_by_outer, &ctx);
    struct group *g = xcalloc(np ? np : 1, sizeof(*g));
    size_t ng = 0;
    tally_wide *outers = xcalloc((np ? np : 1) * nev, sizeof(*outers));
    for (size_t s = 0; s < np;) {
        size_t e = s;
        uint32_t name = pair_outer(a, idx[s], by_file);
        while (e < np && pair_outer(a, idx[e], by_file) == name)
            e++;
        struct group *gr = &g[ng];
        gr->name = name;
        gr->outer = outers + ng * nev;
        gr->inner = idx + s;
        for (size_t k = s; k < e; k++) {
            const tally_wide *v = pair_cc(a, idx[k]);
            for (size_t x = 0; x < nev; x++)
                gr->outer[x] += v[x];
            if (meets(a, v, bound)) idx[s + gr->ninner++] = idx[k];
        }
        if (gr->ninner) {
            qsort_r(gr->inner, gr->ninner, sizeof(*idx), cmp_inner, &ctx);
            ng++;
        } else {
            memset(gr->outer, 0, nev * sizeof(*gr->outer));
        }
        s = e;
    }
    /* the groups point into outers by position: sort copies, not pointers */
    qsort_r(g, ng, sizeof(*g), cmp_groups, &ctx);

    struct cga_printer pr;
    cga_printer_init(a, &pr, "  ");
    tally_wide *mn = xcalloc(4 * nev, sizeof(*mn)), *mx = mn + nev, *cmn = mn + 2 * nev,
               *cmx = mn + 3 * nev;
    tally_wide *cum = xcalloc(nev, sizeof(*cum));
    for (size_t k = 0; k < ng; k++) {
        cga_extremes(a, g[k].outer, mn, mx);
        for (size_t j = 0; j < g[k].ninner; j++)
            cga_extremes(a, pair_cc(a, g[k].inner[j]), mn, mx);
        for (size_t x = 0; x < nev; x++)
            cum[x] += g[k].outer[x];
        cga_extremes(a, cum, cmn, cmx);
    }
    cga_widths(a, &pr, mn, mx, cmn, cmx);
    const char *kind = by_file ? "File:function" : "Function:file";
    char title[64];
    snprintf(title, sizeof(title), "%s summary", kind);
    cga_fancy(out, title);
    cga_print_events(out, a, &pr, by_file ? " file:function" : " function:file");
    putc('\n', out);
    memset(cum, 0, nev * sizeof(*cum));
    const char *indent = by_file ? "< " : "> ";
    for (size_t k = 0; k < ng; k++) {
        const struct group *gr = &g[k];
        for (size_t x = 0; x < nev; x++)
            cum[x] += gr->outer[x];
        if (by_file) a->listed[gr->name] = 1;
        fputs(indent, out);
        const char *oname = strtab_str(&a->names, gr->name);
        const tally_wide *first = pair_cc(a, gr->inner[0]);
        if (gr->ninner == 1 && !memcmp(first, gr->outer, nev * sizeof(*first))) {
            const char *iname = strtab_str(&a->names, pair_inner(a, gr->inner[0], by_file));
            char *label = xasprintf("%s:%s", oname, iname);
            cga_print_cc(out, a, &pr, gr->outer, cum, label);
            free(label);
        } else {
            char *label = xasprintf("%s:", oname);
            cga_print_cc(out, a, &pr, gr->outer, cum, label);
            free(label);
            for (size_t j = 0; j < gr->ninner; j++) {
                fputs("  ", out);
                const char *iname = strtab_str(&a->names, pair_inner(a, gr->inner[j], by_file));
                char *l2 = xasprintf("  %s", iname);
                cga_print_cc(out, a, &pr, pair_cc(a, gr->inner[j]), NULL, l2);
                free(l2);
            }
        }
        putc('\n', out);
    }
    free(cum);
    free(mn);
    cga_printer_release(&pr);
    free(outers);
    free(g);
    free(idx);
}

int cga_print(FILE *out, struct cga *a, struct tally_error *err)
{
    if (!a->ninputs) return tally_error_set(err, NULL, 0, "no profile to annotate");
    print_metadata(out, a);
    print_summary(out, a);
    free(a->listed);
    a->listed = xcalloc(a->names.n ? a->names.n : 1, 1);
    print_table(out, a, 1);
    print_table(out, a, 0);
    int rc = 0;
    if (a->o.annotate) rc = cga_sources(out, a, err);
    if (!rc && (fflush(out) || ferror(out)))
        rc = tally_error_set(err, NULL, 0, "cannot write the report");
    return rc;
}
