/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * annotate_cg321_src.c - the annotated source files of a cg_annotate 3.21+
 * report and its annotation summary (annotate_cg321.h): each file listed
 * in the File:function table is annotated from the file the profile named
 * (when --mod-filename made several names one, from the first of them,
 * if they are all the same bytes), with the counts of each line, context
 * lines, `-- line N` marks, line 0 and lines past the end.
 */
#include "annotate_cg321_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "srcfile.h"

/* The six sums of the annotation summary, in the order printed. */
enum { ANN_KNOWN, ANN_LINE0, ANN_DIFFER, ANN_UNREADABLE, ANN_BELOW, ANN_UNKNOWN, ANN_N };

static const char *const ann_labels[ANN_N] = {
    "  annotated: files known & above threshold & readable, line numbers known",
    "  annotated: files known & above threshold & readable, line numbers unknown",
    "unannotated: files known & above threshold & two or more non-identical",
    "unannotated: files known & above threshold & unreadable ",
    "unannotated: files known & below threshold",
    "unannotated: files unknown",
};

#define ATS79 "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
#define WARN_HEAD                                                                                  \
    ATS79 "@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING "          \
          "@@\n" ATS79

struct srcctx {
    FILE *out;
    struct cga *a;
    size_t *lsort; /* line records by (file, line) */
    size_t nl;
    tally_wide *acc; /* [ANN_N * nev] */
};

static uint64_t line_file(const struct cga *a, size_t i)
{
    return rectab_at(&a->lines, i)[0];
}

static uint64_t line_no(const struct cga *a, size_t i)
{
    return rectab_at(&a->lines, i)[1];
}

static const tally_wide *line_cc(const struct cga *a, size_t i)
{
    return (const tally_wide *)rectab_val(&a->lines, i);
}

static int cmp_lines(const void *pa, const void *pb, void *vctx)
{
    const struct cga *a = vctx;
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    uint64_t u = line_file(a, x), v = line_file(a, y);
    if (u != v) return u < v ? -1 : 1;
    u = line_no(a, x);
    v = line_no(a, y);
    return u < v ? -1 : u > v;
}

static int cmp_ofls(const void *pa, const void *pb, void *vctx)
{
    const struct cga *a = vctx;
    uint64_t x = rectab_at(&a->ofls, *(const size_t *)pa)[0];
    uint64_t y = rectab_at(&a->ofls, *(const size_t *)pb)[0];
    if (x >> 32 != y >> 32) return x >> 32 < y >> 32 ? -1 : 1;
    return strcmp(strtab_str(&a->names, (uint32_t)x), strtab_str(&a->names, (uint32_t)y));
}

static int cmp_names(const void *pa, const void *pb, void *vctx)
{
    const struct cga *a = vctx;
    return strcmp(strtab_str(&a->names, *(const uint32_t *)pa),
                  strtab_str(&a->names, *(const uint32_t *)pb));
}

static void add_to(const struct cga *a, tally_wide *dst, const tally_wide *v)
{
    for (size_t e = 0; e < a->nev; e++)
        dst[e] += v[e];
}

/* Add the costs of line records lsort[lo..hi) to dst. */
static void add_lines(struct srcctx *c, size_t lo, size_t hi, tally_wide *dst)
{
    for (size_t k = lo; k < hi; k++)
        add_to(c->a, dst, line_cc(c->a, c->lsort[k]));
}

/* 0: the files have the same bytes; 1: they differ (or one is not a
 * regular file); -1: one cannot be read. */
static int same_files(const char *x, const char *y)
{
    struct stat sx, sy;
    if (stat(x, &sx) || stat(y, &sy)) return -1;
    if (!S_ISREG(sx.st_mode) || !S_ISREG(sy.st_mode)) return 1;
    if (sx.st_size != sy.st_size) return 1;
    struct srcfile_text tx, ty;
    if (srcfile_text_read(&tx, x, SIZE_MAX)) return -1;
    if (srcfile_text_read(&ty, y, SIZE_MAX)) {
        srcfile_text_release(&tx);
        return -1;
    }
    int r = tx.len != ty.len || memcmp(tx.text, ty.text, tx.len) ? 1 : 0;
    srcfile_text_release(&tx);
    srcfile_text_release(&ty);
    return r;
}

/* Reads a text the way Python reads a file with universal newlines, each
 * line less its last character (the '\n', or the real last character of a
 * last line without one). */
struct lines_rd {
    const char *s;
    size_t len, pos;
};

static int next_line(struct lines_rd *r, const char **text, size_t *n)
{
    if (r->pos >= r->len) return 0;
    const char *s = r->s + r->pos;
    size_t rest = r->len - r->pos, k = 0;
    while (k < rest && s[k] != '\n' && s[k] != '\r')
        k++;
    *text = s;
    if (k < rest) {
        *n = k;
        r->pos += k + (s[k] == '\r' && k + 1 < rest && s[k + 1] == '\n' ? 2 : 1);
    } else {
        /* no line end: one character (a UTF-8 sequence) less */
        size_t m = k;
        while (m > 0 && ((unsigned char)s[m - 1] & 0xc0) == 0x80)
            m--;
        *n = m > 0 ? m - 1 : 0;
        r->pos = r->len;
    }
    return 1;
}

static uint64_t sat_add(uint64_t x, uint64_t y)
{
    return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

#define DASH40 "----------------------------------------"

/* One annotated file: the lines lsort[lo..hi) of it, its text src. */
static void annotate_text(struct srcctx *c, size_t lo, size_t hi, const struct srcfile_text *src,
                          const char *srcname)
{
    FILE *out = c->out;
    struct cga *a = c->a;
    size_t nev = a->nev;
    struct cga_printer pr;
    cga_printer_init(a, &pr, "");
    tally_wide *mn = xcalloc(2 * nev, sizeof(*mn)), *mx = mn + nev;
    for (size_t k = lo; k < hi; k++)
        cga_extremes(a, line_cc(a, c->lsort[k]), mn, mx);
    cga_widths(a, &pr, mn, mx, NULL, NULL);
    free(mn);
    cga_print_events(out, a, &pr, "");
    putc('\n', out);
    tally_wide *known = c->acc + ANN_KNOWN * nev;
    if (lo < hi && line_no(a, c->lsort[lo]) == 0) {
        const tally_wide *v = line_cc(a, c->lsort[lo]);
        cga_print_cc(out, a, &pr, v, NULL, "<unknown (line 0)>");
        add_to(a, c->acc + ANN_LINE0 * nev, v);
        putc('\n', out);
        lo++;
    }
    uint64_t ctx = (uint64_t)a->o.context;
    size_t cur = lo; /* the next line with costs */
    struct lines_rd rd = {src->text, src->len, 0};
    uint64_t line_num = 0;
    int eof = 0;
    for (size_t i = lo; i < hi && !eof;) {
        /* a range: the lines with costs within 2 * context of each other */
        uint64_t first = line_no(a, c->lsort[i]);
        uint64_t rlo = first > ctx ? first - ctx : 1;
        while (i + 1 < hi &&
               sat_add(line_no(a, c->lsort[i]), 2 * ctx) >= line_no(a, c->lsort[i + 1]))
            i++;
        uint64_t rhi = sat_add(line_no(a, c->lsort[i]), ctx);
        i++;
        const char *t;
        size_t n;
        while (line_num < rlo - 1) {
            if (!next_line(&rd, &t, &n)) {
                eof = 1;
                break;
            }
            line_num++;
        }
        if (eof) break;
        if (rlo != 1) fprintf(out, "-- line %llu " DASH40 "\n", (unsigned long long)rlo);
        while (line_num < rhi) {
            if (!next_line(&rd, &t, &n)) {
                eof = 1;
                break;
            }
            line_num++;
            if (cur < hi && line_num == line_no(a, c->lsort[cur])) {
                const tally_wide *v = line_cc(a, c->lsort[cur]);
                char *txt = xstrndup(t, n);
                cga_print_cc(out, a, &pr, v, NULL, txt);
                free(txt);
                add_to(a, known, v);
                cur++;
            } else {
                cga_print_missing(out, a, &pr, t, n);
            }
        }
        if (eof) break;
        fprintf(out, "-- line %llu " DASH40 "\n", (unsigned long long)rhi);
    }
    if (lo < hi) {
        if (cur < hi) {
            putc('\n', out);
            for (; cur < hi; cur++) {
                const tally_wide *v = line_cc(a, c->lsort[cur]);
                char label[64];
                snprintf(label, sizeof(label), "<bogus line %llu>",
                         (unsigned long long)line_no(a, c->lsort[cur]));
                cga_print_cc(out, a, &pr, v, NULL, label);
                add_to(a, known, v);
            }
            putc('\n', out);
            fprintf(out,
                    WARN_HEAD "@@ Information recorded about lines past the end of '%s'.\n" ATS79,
                    srcname);
        }
        putc('\n', out);
    }
    cga_printer_release(&pr);
}

/* "Unannotated because ...:" and the original names. */
static void unannotated(FILE *out, const struct cga *a, const char *why, const size_t *ofl,
                        size_t n)
{
    fprintf(out, "Unannotated because %s:", why);
    for (size_t k = 0; k < n; k++)
        fprintf(out, "\n- %s", strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[k])[0]));
    fputs("\n\n", out);
}

/* Annotate the file named mfl, whose original names are ofl[0..nofl) and
 * whose lines are lsort[lo..hi). */
static void annotate_file(struct srcctx *c, uint32_t mfl, const size_t *ofl, size_t nofl, size_t lo,
                          size_t hi)
{
    FILE *out = c->out;
    struct cga *a = c->a;
    size_t nev = a->nev;
    char *title = xasprintf("Annotated source file: %s", strtab_str(&a->names, mfl));
    int state = nofl ? 0 : -1; /* 0 same, 1 differ, -1 unreadable */
    const char *name0 = nofl ? strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[0])[0]) : "";
    for (size_t k = 0; k + 1 < nofl && state == 0; k++)
        state = same_files(strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[k])[0]),
                           strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[k + 1])[0]));
    struct srcfile_text src;
    if (state == 0 && srcfile_text_read(&src, name0, SIZE_MAX)) state = -1;
    cga_fancy(out, title);
    free(title);
    if (state == 1) {
        add_lines(c, lo, hi, c->acc + ANN_DIFFER * nev);
        unannotated(out, a, "two or more of these original files are not identical", ofl, nofl);
        return;
    }
    if (state == -1) {
        add_lines(c, lo, hi, c->acc + ANN_UNREADABLE * nev);
        unannotated(out, a, "one or more of these original files are unreadable", ofl, nofl);
        return;
    }
    /* the sources count as old as the oldest of them */
    int64_t oldest = -1;
    for (size_t k = 0; k < nofl; k++) {
        struct stat st;
        if (stat(strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[k])[0]), &st)) continue;
        int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (oldest < 0 || t < oldest) oldest = t;
    }
    for (size_t i = 0; i < a->ninputs; i++) {
        if (a->mtime[i] < 0 || oldest <= a->mtime[i]) continue;
        fprintf(out, WARN_HEAD "@ Original source files are all newer than data file '%s':\n",
                a->paths.items[i]);
        for (size_t k = 0; k < nofl; k++)
            fprintf(out, "@ - %s\n",
                    strtab_str(&a->names, (uint32_t)rectab_at(&a->ofls, ofl[k])[0]));
        fputs("@ Annotations may not be correct.\n" ATS79 "\n", out);
    }
    annotate_text(c, lo, hi, &src, name0);
    srcfile_text_release(&src);
}

static void print_ann_summary(struct srcctx *c)
{
    FILE *out = c->out;
    struct cga *a = c->a;
    size_t nev = a->nev;
    struct cga_printer pr;
    cga_printer_init(a, &pr, "");
    tally_wide *mn = xcalloc(2 * nev, sizeof(*mn)), *mx = mn + nev;
    for (int k = 0; k < ANN_N; k++)
        cga_extremes(a, c->acc + k * nev, mn, mx);
    cga_widths(a, &pr, mn, mx, NULL, NULL);
    free(mn);
    cga_fancy(out, "Annotation summary");
    cga_print_events(out, a, &pr, "");
    putc('\n', out);
    for (int k = 0; k < ANN_N; k++)
        cga_print_cc(out, a, &pr, c->acc + k * nev, NULL, ann_labels[k]);
    putc('\n', out);
    cga_printer_release(&pr);
}

int cga_sources(FILE *out, struct cga *a, struct tally_error *err)
{
    size_t nev = a->nev, nl = a->lines.count, no = a->ofls.count, nn = a->names.n;
    struct srcctx c = {out, a, xmalloc((nl ? nl : 1) * sizeof(size_t)), nl,
                       xcalloc(ANN_N * nev, sizeof(tally_wide))};
    for (size_t i = 0; i < nl; i++)
        c.lsort[i] = i;
    qsort_r(c.lsort, nl, sizeof(size_t), cmp_lines, a);
    size_t *osort = xmalloc((no ? no : 1) * sizeof(*osort));
    for (size_t i = 0; i < no; i++)
        osort[i] = i;
    qsort_r(osort, no, sizeof(*osort), cmp_ofls, a);
    /* where each file's lines and original names start */
    size_t *lstart = xmalloc((nn + 1) * sizeof(*lstart));
    size_t *ostart = xmalloc((nn + 1) * sizeof(*ostart));
    for (size_t f = 0, k = 0, j = 0; f <= nn; f++) {
        while (k < nl && line_file(a, c.lsort[k]) < f)
            k++;
        while (j < no && (rectab_at(&a->ofls, osort[j])[0] >> 32) < f)
            j++;
        lstart[f] = k;
        ostart[f] = j;
    }
    unsigned char *done = xcalloc(nn ? nn : 1, 1);
    uint32_t *ann = xmalloc((nn ? nn : 1) * sizeof(*ann));
    size_t nann = 0;
    for (uint32_t f = 0; f < nn; f++) {
        if (!strcmp(strtab_str(&a->names, f), "???")) {
            /* the unknown file cannot be annotated */
            add_lines(&c, lstart[f], lstart[f + 1], c.acc + ANN_UNKNOWN * nev);
            done[f] = 1;
        } else if (a->listed[f]) {
            ann[nann++] = f;
        }
    }
    qsort_r(ann, nann, sizeof(*ann), cmp_names, a);
    for (size_t k = 0; k < nann; k++) {
        uint32_t f = ann[k];
        annotate_file(&c, f, osort + ostart[f], ostart[f + 1] - ostart[f], lstart[f],
                      lstart[f + 1]);
        done[f] = 1;
    }
    for (uint32_t f = 0; f < nn; f++)
        if (!done[f]) add_lines(&c, lstart[f], lstart[f + 1], c.acc + ANN_BELOW * nev);
    print_ann_summary(&c);
    /* every count is in one of the six sums */
    int rc = 0;
    for (size_t e = 0; e < nev && !rc; e++) {
        tally_wide t = 0;
        for (int k = 0; k < ANN_N; k++)
            t += c.acc[k * nev + e];
        if (t != a->summary[e])
            rc = tally_error_set(err, NULL, 0,
                                 "the annotated counts of %s do not add up to the summary",
                                 a->events[e]);
    }
    free(ann);
    free(done);
    free(lstart);
    free(ostart);
    free(osort);
    free(c.lsort);
    free(c.acc);
    return rc;
}
