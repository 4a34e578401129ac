/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * complexity.c - text, JSON and pictures of `tally complexity` (see
 * complexity.h and docs/tally-complexity.md).
 */
#include "complexity.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../io/jsonstr.h"
#include "../io/outfile.h"
#include "svgplot.h"
#include "xmltext.h"

#define COLOR_WORST "#d62728"
#define COLOR_AVG "#2ca02c"
#define COLOR_BEST "#1f77b4"
#define COLOR_FIT "#000000"
#define COLOR_FREQ "#9467bd"
#define COLOR_CLASS "#ff7f0e"

/* ---- number text ---- */

/* Put a comma every three digits into the integer part of `s`, into out. */
static char *commify_text(const char *s, char *out, size_t size)
{
    const char *digits = s + (*s == '-');
    size_t nint = strspn(digits, "0123456789");
    size_t o = 0;
    if (*s == '-' && o + 1 < size) out[o++] = '-';
    for (size_t i = 0; i < nint && o + 2 < size; i++) {
        out[o++] = digits[i];
        size_t left = nint - i - 1;
        if (left && left % 3 == 0) out[o++] = ',';
    }
    snprintf(out + o, size - o, "%s", digits + nint);
    return out;
}

static char *fmt_u64(uint64_t v, char *buf, size_t size)
{
    char tmp[32];
    snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
    return commify_text(tmp, buf, size);
}

/* A cost held as a double: whole numbers with commas, else one decimal. */
static char *fmt_cost(double v, int decimals, char *buf, size_t size)
{
    char tmp[64];
    if (!isfinite(v)) return snprintf(buf, size, "-"), buf;
    snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
    return commify_text(tmp, buf, size);
}

char *complexity_model_text(const struct fit_power *f, char *buf, size_t size)
{
    if (f->status != FIT_OK && f->status != FIT_CONSTANT) {
        snprintf(buf, size, "not fitted");
        return buf;
    }
    if (f->status == FIT_CONSTANT) {
        snprintf(buf, size, "cost = %.4g", f->a);
        return buf;
    }
    snprintf(buf, size, "cost = %.4g %c %.4g * n^%.3f", f->a, f->b < 0 ? '-' : '+', fabs(f->b),
             f->c);
    return buf;
}

static const char *fit_status_text(enum fit_status s)
{
    switch (s) {
    case FIT_OK:
        return "fitted";
    case FIT_CONSTANT:
        return "constant";
    case FIT_TOO_FEW:
        return "too few input sizes";
    case FIT_BAD_DATA:
        return "bad data";
    default:
        return "did not converge";
    }
}

/* Exponent column: "2.00", "const" or "-". */
static const char *exponent_text(const struct complexity_routine *r, char *buf, size_t size)
{
    if (r->power.status == FIT_OK)
        snprintf(buf, size, "%.2f", r->power.c);
    else
        snprintf(buf, size, "%s", r->power.status == FIT_CONSTANT ? "const" : "-");
    return buf;
}

static const char *r2_text(double r2, char *buf, size_t size)
{
    if (isfinite(r2))
        snprintf(buf, size, "%.4f", r2);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* The class the data support, or "no clear class: REASON" (fitcheck_label). */
static const char *class_text(const struct complexity_routine *r, char *buf, size_t size)
{
    return fitcheck_label(&r->check, buf, size);
}

static const char *input_name(const struct complexity *c)
{
    return c->input == ISPROF_INPUT_DRMS ? "drms" : "rms";
}

static const char *cost_kind(const struct complexity *c)
{
    return c->cost == COMPLEXITY_COST_SELF ? "self" : "cumulative";
}

/* a ratio of sizes: "x12", "x1.5", "x1,024" */
static char *fmt_ratio(double v, char *buf, size_t size)
{
    char tmp[40];
    if (v < 9.95)
        snprintf(buf, size, "x%.1f", v);
    else
        snprintf(buf, size, "x%s", fmt_cost(v, 0, tmp, sizeof(tmp)));
    return buf;
}

char *complexity_checks_text(const struct complexity_routine *r, char *buf, size_t size)
{
    const struct fitcheck *v = &r->check;
    char a[64], b[64];
    size_t o = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int n_ = snprintf(buf + o, size - o, __VA_ARGS__);                                         \
        if (n_ > 0) o = (size_t)n_ < size - o ? o + (size_t)n_ : size - 1;                         \
    } while (0)
    buf[0] = '\0';
    PUT("%zu distinct size%s (a class needs %d)", v->nsizes, v->nsizes == 1 ? "" : "s",
        FITCHECK_MIN_SIZES);
    if (v->nsizes >= 2) {
        PUT("; sizes span %s", fmt_ratio(v->nmax / v->nmin, a, sizeof(a)));
        if (v->nsizes >= 4)
            PUT(" (%s without the extremes)", fmt_ratio(v->ninner_hi / v->ninner_lo, b, sizeof(b)));
    }
    if (v->nclusters > 1) PUT("; %s clusters", fitcheck_count_word(v->nclusters));
    if (isfinite(v->rel_err)) PUT("; relative error %.1f%%", 100 * v->rel_err);
    if (isfinite(v->runs_z)) PUT("; runs test z %.2f", v->runs_z);
#undef PUT
    return buf;
}

char *complexity_clusters_text(const struct complexity_routine *r, char *buf, size_t size)
{
    const struct fitcheck *v = &r->check;
    size_t o = 0;
    buf[0] = '\0';
    int n =
        snprintf(buf, size, "%s, %.1f times apart at similar n:", fitcheck_count_word(v->nclusters),
                 v->cluster_ratio);
    for (size_t i = 0; i < v->nclusters && i < FITCHECK_MAX_CLUSTERS && n > 0; i++) {
        o = (size_t)n < size ? (size_t)n : size - 1;
        const struct fitcheck_cluster *cl = &v->cluster[i];
        char a[64], b[64];
        n = (int)o + snprintf(buf + o, size - o, "%s %zu size%s from %s to %s (cost ~ n^%.2f)",
                              i ? "," : "", cl->npoints, cl->npoints == 1 ? "" : "s",
                              fmt_cost(cl->nmin, 0, a, sizeof(a)),
                              fmt_cost(cl->nmax, 0, b, sizeof(b)), cl->c);
    }
    return buf;
}

/* ---- text ---- */

static void text_header(const struct complexity *c, const struct isprof *ip,
                        const struct complexity_report_options *o, FILE *fp)
{
    char num[64];
    if (ip->cmdline || ip->app)
        fprintf(fp, "Program:      %s\n", ip->cmdline ? ip->cmdline : ip->app);
    if (o->nsources) {
        fputs(o->nsources == 1 ? "Report:       " : "Reports:      ", fp);
        for (size_t i = 0; i < o->nsources; i++)
            fprintf(fp, "%s%s", i ? ", " : "", o->sources[i]);
        fputc('\n', fp);
    }
    fprintf(fp, "Input size:   %s", input_name(c));
    if (c->resolution) fprintf(fp, " (memory cells of %u bytes)", c->resolution);
    fputc('\n', fp);
    fprintf(fp, "Cost:         %s, %s\n", isprof_cost_name(c->metric), cost_kind(c));
    fprintf(fp, "Program cost: %s\n", fmt_u64(c->program_total, num, sizeof(num)));
    fprintf(fp, "Routines:     %zu ranked of %zu with tuples", c->nranked, c->nall);
    const struct complexity_options *f = o->filters;
    if (f) {
        fprintf(fp, " (at least %zu input size%s", f->min_points, f->min_points == 1 ? "" : "s");
        if (f->min_share > 0)
            fprintf(fp, ", share >= %g%%: %zu below it left out", f->min_share, c->nbelow_share);
        if (f->min_r2 > 0) fprintf(fp, ", R^2 >= %g", f->min_r2);
        for (size_t i = 0; i < f->ninclude; i++)
            fprintf(fp, ", %s /%s/", i ? "or" : "matching", f->include[i]);
        for (size_t i = 0; i < f->nexclude; i++)
            fprintf(fp, ", not /%s/", f->exclude[i]);
        if (f->top) fprintf(fp, ", top %zu", f->top);
        fputc(')', fp);
    }
    fputc('\n', fp);
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

static void text_ranking(const struct complexity *c, FILE *fp)
{
    char calls[40], cost[40], e[16];
    if (c->nranked == 0) {
        fputs("\nNo routine passes the filters.\n", fp);
        return;
    }
    size_t wrank = 4, wsizes = 5, wcalls = 5, wcost = 4, wclass = 7;
    for (size_t i = 0; i < c->nranked; i++) {
        const struct complexity_routine *r = c->ranked[i];
        char tmp[96];
        wrank = max_size(wrank, (size_t)snprintf(tmp, sizeof(tmp), "%zu", r->rank));
        wclass = max_size(wclass, strlen(class_text(r, tmp, sizeof(tmp))));
        wsizes = max_size(wsizes, (size_t)snprintf(tmp, sizeof(tmp), "%zu", r->npoints));
        wcalls = max_size(wcalls, strlen(fmt_u64(r->calls, calls, sizeof(calls))));
        wcost = max_size(wcost, strlen(fmt_u64(r->total, cost, sizeof(cost))));
    }
    fprintf(fp, "\n%*s  %8s  %6s  %-*s  %*s  %*s  %*s  %7s  %s\n", (int)wrank, "Rank", "Exponent",
            "R^2", (int)wclass, "Class", (int)wsizes, "Sizes", (int)wcalls, "Calls", (int)wcost,
            "Cost", "Share", "Routine");
    for (size_t i = 0; i < c->nranked; i++) {
        const struct complexity_routine *r = c->ranked[i];
        char r2[16], cls[96];
        fprintf(fp, "%*zu  %8s  %6s  %-*s  %*zu  %*s  %*s  %6.2f%%  %s\n", (int)wrank, r->rank,
                exponent_text(r, e, sizeof(e)), r2_text(r->power.r2, r2, sizeof(r2)), (int)wclass,
                class_text(r, cls, sizeof(cls)), (int)wsizes, r->npoints, (int)wcalls,
                fmt_u64(r->calls, calls, sizeof(calls)), (int)wcost,
                fmt_u64(r->total, cost, sizeof(cost)), r->share, r->name);
    }
}

static void text_detail(const struct complexity *c, const struct complexity_routine *r, FILE *fp)
{
    char a[40], b[40], d[40], model[160];
    fprintf(fp, "\nRoutine %s (%s)\n", r->name, r->image);
    if (r->rank)
        fprintf(fp, "  rank %zu of %zu", r->rank, c->nranked);
    else
        fputs("  not ranked", fp);
    fprintf(fp, "; %zu input size%s", r->npoints, r->npoints == 1 ? "" : "s");
    if (r->npoints)
        fprintf(fp, " from %s to %s", fmt_u64(r->points[0].n, a, sizeof(a)),
                fmt_u64(r->max_n, b, sizeof(b)));
    fprintf(fp, "; %s call%s; cost %s (%.2f%%)\n", fmt_u64(r->calls, d, sizeof(d)),
            r->calls == 1 ? "" : "s", fmt_u64(r->total, a, sizeof(a)), r->share);
    fprintf(fp, "  model: %s", complexity_model_text(&r->power, model, sizeof(model)));
    if (r->power.status == FIT_OK)
        fprintf(fp, "  R^2 %.5f", r->power.r2);
    else if (r->power.status != FIT_CONSTANT)
        fprintf(fp, " (%s)", fit_status_text(r->power.status));
    fputc('\n', fp);
    char cls[96], checks[512];
    fprintf(fp, "  class: %s", class_text(r, cls, sizeof(cls)));
    if (r->classes.status == FIT_OK) {
        if (r->check.why != FITCHECK_CLASS)
            fprintf(fp, "\n  nearest class: %s", fit_class_name(r->classes.best));
        fputs("  R^2 by class:", fp);
        for (int k = 0; k < FIT_NCLASSES; k++) {
            const struct fit_class_fit *f = &r->classes.fit[k];
            char r2[16];
            fprintf(fp, "%s %s %s", k ? "," : "", fit_class_name(k),
                    f->valid ? r2_text(f->r2, r2, sizeof(r2)) : "-");
        }
    }
    fputc('\n', fp);
    fprintf(fp, "  checks: %s\n", complexity_checks_text(r, checks, sizeof(checks)));
    if (r->check.nclusters > 1)
        fprintf(fp, "  clusters: %s\n", complexity_clusters_text(r, checks, sizeof(checks)));

    size_t wn = 1, wc = 5, ww = 5, wa = 7, wb = 4;
    for (size_t i = 0; i < r->npoints; i++) {
        const struct complexity_point *p = &r->points[i];
        wn = max_size(wn, strlen(fmt_u64(p->n, a, sizeof(a))));
        wc = max_size(wc, strlen(fmt_u64(p->calls, a, sizeof(a))));
        ww = max_size(ww, strlen(fmt_cost(p->worst, 0, a, sizeof(a))));
        wa = max_size(wa, strlen(fmt_cost(p->avg, 1, a, sizeof(a))));
        wb = max_size(wb, strlen(fmt_cost(p->best, 0, a, sizeof(a))));
    }
    fprintf(fp, "\n  %*s  %*s  %*s  %*s  %*s\n", (int)wn, "n", (int)wc, "calls", (int)ww, "worst",
            (int)wa, "average", (int)wb, "best");
    for (size_t i = 0; i < r->npoints; i++) {
        const struct complexity_point *p = &r->points[i];
        char n[40], calls[40], w[40], av[40], be[40];
        fprintf(fp, "  %*s  %*s  %*s  %*s  %*s\n", (int)wn, fmt_u64(p->n, n, sizeof(n)), (int)wc,
                fmt_u64(p->calls, calls, sizeof(calls)), (int)ww,
                fmt_cost(p->worst, 0, w, sizeof(w)), (int)wa, fmt_cost(p->avg, 1, av, sizeof(av)),
                (int)wb, fmt_cost(p->best, 0, be, sizeof(be)));
    }
}

int complexity_write_text(const struct complexity *c, const struct isprof *ip,
                          const struct complexity_report_options *o, FILE *fp,
                          struct tally_error *err)
{
    text_header(c, ip, o, fp);
    text_ranking(c, fp);
    for (size_t i = 0; i < o->ndetail; i++)
        text_detail(c, o->detail[i], fp);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "cannot write the report");
    return 0;
}

/* ---- JSON ---- */

static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    else
        fputs("null", fp);
}

static void json_routine(const struct complexity_routine *r, FILE *fp)
{
    fputs("    {\"rank\": ", fp);
    if (r->rank)
        fprintf(fp, "%zu", r->rank);
    else
        fputs("null", fp);
    fputs(", \"name\": ", fp);
    jsonstr_puts(fp, r->name, 0);
    fputs(", \"image\": ", fp);
    jsonstr_puts(fp, r->image, 0);
    fprintf(fp,
            ",\n     \"sizes\": %zu, \"calls\": %" PRIu64 ", \"cost\": %" PRIu64 ", \"share\": ",
            r->npoints, r->calls, r->total);
    json_num(fp, r->share);
    fprintf(fp, ", \"max_input\": %" PRIu64 ",\n", r->max_n);
    fprintf(fp, "     \"fit\": {\"status\": \"%s\", \"a\": ", fit_status_text(r->power.status));
    int fitted = r->power.status == FIT_OK || r->power.status == FIT_CONSTANT;
    json_num(fp, fitted ? r->power.a : NAN);
    fputs(", \"b\": ", fp);
    json_num(fp, fitted ? r->power.b : NAN);
    fputs(", \"c\": ", fp);
    json_num(fp, fitted ? r->power.c : NAN);
    fputs(", \"r2\": ", fp);
    json_num(fp, r->power.r2);
    fprintf(fp, ", \"steps\": %u},\n", r->power.iterations);
    const struct fitcheck *v = &r->check;
    char why[96];
    fputs("     \"class\": ", fp);
    if (v->why == FITCHECK_CLASS)
        jsonstr_puts(fp, fit_class_name(v->cls), 0);
    else
        fputs("null", fp);
    fputs(", \"reason\": ", fp);
    if (v->why == FITCHECK_CLASS)
        fputs("null", fp);
    else
        jsonstr_puts(fp, fitcheck_reason(v, why, sizeof(why)), 0);
    fputs(", \"nearest_class\": ", fp);
    int classed = r->classes.status == FIT_OK || r->classes.status == FIT_CONSTANT;
    if (classed)
        jsonstr_puts(fp, fit_class_name(r->classes.best), 0);
    else
        fputs("null", fp);
    fprintf(fp, ",\n     \"checks\": {\"sizes\": %zu, \"min_size\": ", v->nsizes);
    json_num(fp, v->nsizes ? v->nmin : NAN);
    fputs(", \"max_size\": ", fp);
    json_num(fp, v->nsizes ? v->nmax : NAN);
    fputs(", \"inner_min_size\": ", fp);
    json_num(fp, v->nsizes >= 4 ? v->ninner_lo : NAN);
    fputs(", \"inner_max_size\": ", fp);
    json_num(fp, v->nsizes >= 4 ? v->ninner_hi : NAN);
    fputs(", \"r2\": ", fp);
    json_num(fp, v->r2);
    fputs(", \"relative_error\": ", fp);
    json_num(fp, v->rel_err);
    fputs(", \"runs_z\": ", fp);
    json_num(fp, v->runs_z);
    fputs(", \"relative_exponent\": ", fp);
    json_num(fp, v->rel_c);
    fprintf(fp, ",\n                \"clusters\": %zu, \"cluster_ratio\": ", v->nclusters);
    json_num(fp, v->cluster_ratio);
    fputs(", \"groups\": [", fp);
    for (size_t i = 0; i < v->nclusters && v->nclusters > 1; i++) {
        const struct fitcheck_cluster *cl = &v->cluster[i];
        fprintf(fp, "%s{\"sizes\": %zu, \"min_size\": ", i ? ", " : "", cl->npoints);
        json_num(fp, cl->nmin);
        fputs(", \"max_size\": ", fp);
        json_num(fp, cl->nmax);
        fputs(", \"exponent\": ", fp);
        json_num(fp, cl->c);
        fputc('}', fp);
    }
    fputs("]},\n     \"classes\": [", fp);
    for (int k = 0; k < FIT_NCLASSES; k++) {
        const struct fit_class_fit *f = &r->classes.fit[k];
        fprintf(fp, "%s{\"class\": \"%s\", \"valid\": %s", k ? ", " : "", fit_class_name(k),
                f->valid ? "true" : "false");
        if (f->valid) {
            fputs(", \"a\": ", fp);
            json_num(fp, f->a);
            fputs(", \"b\": ", fp);
            json_num(fp, f->b);
            fputs(", \"r2\": ", fp);
            json_num(fp, f->r2);
        }
        fputc('}', fp);
    }
    fputs("],\n     \"tuples\": [", fp);
    for (size_t i = 0; i < r->npoints; i++) {
        const struct complexity_point *p = &r->points[i];
        fprintf(fp, "%s{\"n\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"worst\": ",
                i ? ",\n                 " : "", p->n, p->calls);
        json_num(fp, p->worst);
        fputs(", \"avg\": ", fp);
        json_num(fp, p->avg);
        fputs(", \"best\": ", fp);
        json_num(fp, p->best);
        fprintf(fp, ", \"sum\": %" PRIu64 "}", p->sum);
    }
    fputs("]}", fp);
}

int complexity_write_json(const struct complexity *c, const struct isprof *ip,
                          const struct complexity_report_options *o, FILE *fp,
                          struct tally_error *err)
{
    fputs("{\n  \"schema\": \"tally-complexity\", \"version\": 2,\n  \"reports\": [", fp);
    for (size_t i = 0; i < o->nsources; i++) {
        if (i) fputs(", ", fp);
        jsonstr_puts(fp, o->sources[i], 0);
    }
    fputs("],\n  \"app\": ", fp);
    if (ip->app)
        jsonstr_puts(fp, ip->app, 0);
    else
        fputs("null", fp);
    fputs(", \"cmdline\": ", fp);
    if (ip->cmdline)
        jsonstr_puts(fp, ip->cmdline, 0);
    else
        fputs("null", fp);
    fprintf(fp,
            ",\n  \"input\": \"%s\", \"resolution\": %u, \"metric\": \"%s\", \"cost\": \"%s\", "
            "\"program_cost\": %" PRIu64 ",\n  \"routines_with_tuples\": %zu",
            input_name(c), c->resolution, isprof_cost_name(c->metric), cost_kind(c),
            c->program_total, c->nall);
    const struct complexity_options *f = o->filters;
    if (f) {
        fprintf(fp, ",\n  \"filters\": {\"min_sizes\": %zu, \"min_share\": ", f->min_points);
        json_num(fp, f->min_share);
        fputs(", \"min_r2\": ", fp);
        json_num(fp, f->min_r2);
        fputs(", \"include\": [", fp);
        for (size_t i = 0; i < f->ninclude; i++) {
            if (i) fputs(", ", fp);
            jsonstr_puts(fp, f->include[i], 0);
        }
        fputs("], \"exclude\": [", fp);
        for (size_t i = 0; i < f->nexclude; i++) {
            if (i) fputs(", ", fp);
            jsonstr_puts(fp, f->exclude[i], 0);
        }
        fprintf(fp, "], \"top\": %zu}", f->top);
    }
    fputs(",\n  \"ranking\": [", fp);
    for (size_t i = 0; i < c->nranked; i++) {
        fputs(i ? ",\n" : "\n", fp);
        json_routine(c->ranked[i], fp);
    }
    fputs(c->nranked ? "\n  ],\n" : "],\n", fp);
    /* --routine choices that are not in the ranking */
    fputs("  \"selected\": [", fp);
    size_t k = 0;
    for (size_t i = 0; i < o->ndetail; i++) {
        if (o->detail[i]->rank) continue;
        fputs(k++ ? ",\n" : "\n", fp);
        json_routine(o->detail[i], fp);
    }
    fputs(k ? "\n  ]\n}\n" : "]\n}\n", fp);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "cannot write the report");
    return 0;
}

/* ---- pictures ---- */

/* "r<index>-<name>" with characters outside [A-Za-z0-9_.+-] turned into '_'. */
static void plot_base(const struct complexity_routine *r, char *buf, size_t size)
{
    int n = snprintf(buf, size, "r%zu-", r->routine);
    size_t o = n > 0 ? (size_t)n : 0;
    for (const char *s = r->name; *s && o + 1 < size && s - r->name < 60; s++) {
        char ch = *s;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '.' || ch == '+' || ch == '-';
        buf[o++] = ok ? ch : '_';
    }
    buf[o] = '\0';
}

static double curve_power(double x, const void *ctx)
{
    return fit_power_eval(ctx, x);
}

struct class_curve {
    enum fit_class k;
    double a, b;
};

static double curve_class(double x, const void *ctx)
{
    const struct class_curve *c = ctx;
    return c->a + c->b * fit_class_g(c->k, x);
}

/* A cluster's curve, a + b n^c. */
static double curve_cluster(double x, const void *ctx)
{
    const struct fitcheck_cluster *c = ctx;
    return c->a + c->b * pow(x < 1 ? 1 : x, c->c);
}

/* Write one file of dir atomically through `emit`. */
static int write_file(const char *dir, const char *name,
                      int (*emit)(FILE *fp, const void *ctx, struct tally_error *err),
                      const void *ctx, struct tally_error *err)
{
    char *path = xasprintf("%s/%s", dir, name);
    struct outfile of;
    int rc = outfile_open(&of, path, err);
    if (rc == 0) {
        rc = emit(of.fp, ctx, err);
        if (rc)
            outfile_abort(&of);
        else
            rc = outfile_commit(&of, err);
    }
    free(path);
    return rc;
}

struct plot_job {
    const struct complexity *c;
    const struct complexity_routine *r;
    int logscale;
};

static void axis_labels(const struct complexity *c, char *x, size_t xs, char *y, size_t ys)
{
    if (c->resolution)
        snprintf(x, xs, "input size n (%s, cells of %u bytes)", input_name(c), c->resolution);
    else
        snprintf(x, xs, "input size n (%s)", input_name(c));
    snprintf(y, ys, "%s cost (%s)", cost_kind(c), isprof_cost_name(c->metric));
}

#define PLOT_WIDTH 720 /* svgplot's default */

/* Whether s[i] starts the operator symbol of "operator<<", "operator()", ... (skipped). */
static size_t operator_symbol(const char *s, size_t i)
{
    if (i < 8 || strncmp(s + i - 8, "operator", 8) != 0) return 0;
    if (i >= 9 && (isalnum((unsigned char)s[i - 9]) || s[i - 9] == '_')) return 0;
    size_t n = 0;
    while (s[i + n] && strchr("<>=!+-*/%^&|~,()[]", s[i + n]) && n < 4)
        n++;
    return n;
}

/*
 * A copy of the C++ name s with the contents of its template argument lists
 * nested deeper than `keep` replaced by an ellipsis ("map<string, vector<…>>"
 * for keep 1, "map<…>" for keep 0). The '<' and '>' of operator names are
 * not brackets.
 */
static char *collapse_templates(const char *s, int keep)
{
    size_t len = strlen(s), o = 0;
    char *out = xmalloc(len * 3 + 1);
    int depth = 0, cut = 0;
    for (size_t i = 0; i < len;) {
        size_t op = operator_symbol(s, i);
        if (op) {
            if (!cut) memcpy(out + o, s + i, op), o += op;
            i += op;
            continue;
        }
        char c = s[i];
        if (c == '<') {
            depth++;
            if (!cut) out[o++] = c;
            if (depth == keep + 1 && !cut) {
                memcpy(out + o, "\xe2\x80\xa6", 3);
                o += 3;
                cut = 1;
            }
        } else if (c == '>' && depth > 0 && !(i > 0 && s[i - 1] == '-')) {
            if (depth == keep + 1) cut = 0;
            depth--;
            if (!cut) out[o++] = c;
        } else if (!cut) {
            out[o++] = c;
        }
        i++;
    }
    out[o] = '\0';
    return out;
}

/* A copy of s with its last parameter list, "(...)" at the end, written "(…)". */
static char *collapse_params(const char *s)
{
    size_t len = strlen(s);
    /* the name's last ')', then the '(' it closes */
    size_t close = len;
    while (close > 0 && s[close - 1] != ')')
        close--;
    if (!close) return xstrdup(s);
    close--;
    size_t open = close;
    int depth = 0;
    for (;;) {
        if (s[open] == ')') depth++;
        if (s[open] == '(' && --depth == 0) break;
        if (open == 0) return xstrdup(s);
        open--;
    }
    if (close - open <= 1 || strncmp(s + open, "(anonymous namespace)", 21) == 0) return xstrdup(s);
    return xasprintf("%.*s(\xe2\x80\xa6%s", (int)open, s, s + close);
}

/*
 * The routine's name as a plot's title: whole when it fits in two lines,
 * else shortened the way a reader of C++ would: template arguments beyond
 * the first level, then all of them, then the parameter list written as an
 * ellipsis. (svgplot wraps what is left, and shortens in its middle what
 * still does not fit in three lines.) The whole name is the title's
 * tooltip. A new string.
 */
static char *title_name(const char *name)
{
    double room = 1.9 * (PLOT_WIDTH - 24); /* two lines, less what breaks waste */
    char *t = xstrdup(name);
    for (int step = 0; step < 3 && svgplot_text_width(t, SIZE_MAX, 15, 1) > room; step++) {
        char *u = step == 0   ? collapse_templates(t, 1)
                  : step == 1 ? collapse_templates(t, 0)
                              : collapse_params(t);
        free(t);
        t = u;
    }
    return t;
}

/* A plot of job's routine with the axes of its input sizes and costs (or `ylabel`). */
static struct svgplot *new_plot(const struct plot_job *job, const char *sub, const char *ylabel)
{
    char xl[128], yl[128];
    axis_labels(job->c, xl, sizeof(xl), yl, sizeof(yl));
    char *title = title_name(job->r->name);
    struct svgplot_options so = {.title = title,
                                 .title_tip = job->r->name,
                                 .subtitle = sub,
                                 .xlabel = xl,
                                 .ylabel = ylabel ? ylabel : yl,
                                 .logx = job->logscale,
                                 .logy = job->logscale,
                                 .width = PLOT_WIDTH};
    struct svgplot *p = svgplot_new(&so);
    free(title);
    return p;
}

/* Write the plot, then free it and its n tooltips. */
static int end_plot(struct svgplot *p, FILE *fp, char **tips, size_t n, struct tally_error *err)
{
    int rc = svgplot_write(p, fp, err);
    svgplot_free(p);
    for (size_t i = 0; i < n; i++)
        free(tips[i]);
    free(tips);
    return rc;
}

static int emit_cost_plot(FILE *fp, const void *ctx, struct tally_error *err)
{
    const struct plot_job *job = ctx;
    const struct complexity_routine *r = job->r;
    size_t n = r->npoints;
    double *x = xmalloc((n ? n : 1) * sizeof(double));
    double *yw = xmalloc((n ? n : 1) * sizeof(double));
    double *ya = xmalloc((n ? n : 1) * sizeof(double));
    double *yb = xmalloc((n ? n : 1) * sizeof(double));
    char **tips = xcalloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const struct complexity_point *p = &r->points[i];
        x[i] = (double)p->n;
        yw[i] = p->worst;
        ya[i] = p->avg;
        yb[i] = p->best;
        char nn[40], calls[40], w[40], a[40], b[40];
        tips[i] = xasprintf("n = %s, %s call%s: worst %s, average %s, best %s",
                            fmt_u64(p->n, nn, sizeof(nn)), fmt_u64(p->calls, calls, sizeof(calls)),
                            p->calls == 1 ? "" : "s", fmt_cost(p->worst, 0, w, sizeof(w)),
                            fmt_cost(p->avg, 1, a, sizeof(a)), fmt_cost(p->best, 0, b, sizeof(b)));
    }
    char sub[1024], model[160], cls[96], r2[32] = "", more[512] = "";
    complexity_model_text(&r->power, model, sizeof(model));
    class_text(r, cls, sizeof(cls));
    if (r->power.status == FIT_OK) snprintf(r2, sizeof(r2), " (R^2 %.4f)", r->power.r2);
    if (r->check.nclusters > 1)
        snprintf(more, sizeof(more), ", %.1f times apart at similar n", r->check.cluster_ratio);
    snprintf(sub, sizeof(sub), "cost against input size: %s%s\n%s%s%s", model, r2,
             r->check.why == FITCHECK_CLASS ? "class: " : "", cls, more);
    struct svgplot *p = new_plot(job, sub, NULL);
    /* decreasing sizes, so that coinciding points stay visible as rings */
    svgplot_add_series(p, "worst", COLOR_WORST, SVGPLOT_POINTS, x, yw, n,
                       (const char *const *)tips);
    svgplot_set_radius(p, 5.0);
    svgplot_add_series(p, "average", COLOR_AVG, SVGPLOT_POINTS, x, ya, n,
                       (const char *const *)tips);
    svgplot_set_radius(p, 3.5);
    svgplot_add_series(p, "best", COLOR_BEST, SVGPLOT_POINTS, x, yb, n, (const char *const *)tips);
    svgplot_set_radius(p, 2.0);
    /* one curve through clusters describes none of them: their own curves instead */
    if ((r->power.status == FIT_OK || r->power.status == FIT_CONSTANT) && r->check.nclusters < 2)
        svgplot_add_curve(p, model, COLOR_FIT, curve_power, &r->power);
    enum fit_class k = r->check.cls;
    struct class_curve cc = {k, r->classes.fit[k].a, r->classes.fit[k].b};
    char ctext[160], names[FITCHECK_MAX_CLUSTERS][128];
    if (r->check.why == FITCHECK_CLASS && k != FIT_CLASS_1 && r->classes.fit[k].valid) {
        snprintf(ctext, sizeof(ctext), "class %s: cost = %.4g + %.4g * %s", fit_class_name(k), cc.a,
                 cc.b, fit_class_name(k));
        svgplot_add_curve(p, ctext, COLOR_CLASS, curve_class, &cc);
    }
    static const char *const cluster_colors[FITCHECK_MAX_CLUSTERS] = {"#8c564b", "#e377c2",
                                                                      "#17becf", "#bcbd22"};
    for (size_t i = 0; i < r->check.nclusters && r->check.nclusters > 1; i++) {
        const struct fitcheck_cluster *cl = &r->check.cluster[i];
        snprintf(names[i], sizeof(names[i]),
                 "cluster %zu, %zu size%s: cost = %.4g %c %.4g * n^%.2f", i + 1, cl->npoints,
                 cl->npoints == 1 ? "" : "s", cl->a, cl->b < 0 ? '-' : '+', fabs(cl->b), cl->c);
        svgplot_add_curve(p, names[i], cluster_colors[i], curve_cluster, cl);
        svgplot_set_curve_range(p, cl->nmin, cl->nmax, 1);
    }
    int rc = end_plot(p, fp, tips, n, err);
    free(x);
    free(yw);
    free(ya);
    free(yb);
    return rc;
}

static int emit_freq_plot(FILE *fp, const void *ctx, struct tally_error *err)
{
    const struct plot_job *job = ctx;
    const struct complexity_routine *r = job->r;
    size_t n = r->npoints;
    double *x = xmalloc((n ? n : 1) * sizeof(double));
    double *y = xmalloc((n ? n : 1) * sizeof(double));
    char **tips = xcalloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)r->points[i].n;
        y[i] = (double)r->points[i].calls;
        char nn[40], calls[40];
        tips[i] = xasprintf("n = %s: %s call%s", fmt_u64(r->points[i].n, nn, sizeof(nn)),
                            fmt_u64(r->points[i].calls, calls, sizeof(calls)),
                            r->points[i].calls == 1 ? "" : "s");
    }
    char sub[128], calls[40];
    snprintf(sub, sizeof(sub), "calls per input size: %s calls over %zu input size%s",
             fmt_u64(r->calls, calls, sizeof(calls)), n, n == 1 ? "" : "s");
    struct svgplot *p = new_plot(job, sub, "calls");
    svgplot_add_series(p, "calls", COLOR_FREQ, SVGPLOT_STEMS, x, y, n, (const char *const *)tips);
    int rc = end_plot(p, fp, tips, n, err);
    free(x);
    free(y);
    return rc;
}

struct index_job {
    const struct complexity *c;
    const struct isprof *ip;
    const struct complexity_report_options *o;
    const struct complexity_routine *const *plotted;
    size_t nplotted;
    int inline_plots; /* plots as data: URIs in the page, not files beside it */
};

/* An <img> of a plot drawn by emit, as a base64 data: URI. -1 with err. */
static int inline_img(FILE *fp, int (*emit)(FILE *fp, const void *ctx, struct tally_error *err),
                      const struct plot_job *job, const char *alt, struct tally_error *err)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *svg = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&svg, &len);
    if (!mem) return tally_error_set(err, NULL, 0, "out of memory");
    int rc = emit(mem, job, err);
    fclose(mem);
    if (rc == 0) {
        fputs("<img alt=\"", fp);
        fputs(alt, fp);
        fputs("\" src=\"data:image/svg+xml;base64,", fp);
        const unsigned char *u = (const unsigned char *)svg;
        for (size_t i = 0; i < len; i += 3) {
            unsigned v = (unsigned)u[i] << 16 | (i + 1 < len ? (unsigned)u[i + 1] << 8 : 0) |
                         (i + 2 < len ? u[i + 2] : 0);
            char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < len ? b64[v >> 6 & 63] : '=',
                         i + 2 < len ? b64[v & 63] : '='};
            fwrite(q, 1, 4, fp);
        }
        fputs("\">\n", fp);
    }
    free(svg);
    return rc;
}

static int html_routine_section(FILE *fp, const struct index_job *job,
                                const struct complexity_routine *r, struct tally_error *err)
{
    char base[128], model[160], num[40], cls[96];
    plot_base(r, base, sizeof(base));
    fprintf(fp, "<section id=\"%s\">\n<h2>", base);
    if (r->rank) fprintf(fp, "%zu. ", r->rank);
    xml_text(fp, r->name, SIZE_MAX);
    fputs("</h2>\n<p>", fp);
    xml_text(fp, complexity_model_text(&r->power, model, sizeof(model)), SIZE_MAX);
    if (r->power.status == FIT_OK) fprintf(fp, " (R<sup>2</sup> %.4f)", r->power.r2);
    fputs(r->check.why == FITCHECK_CLASS ? "; class: " : "; ", fp);
    xml_text(fp, class_text(r, cls, sizeof(cls)), SIZE_MAX);
    fprintf(fp, "; %zu input sizes, %s calls, cost %.2f%% of the program; image ", r->npoints,
            fmt_u64(r->calls, num, sizeof(num)), r->share);
    xml_text(fp, r->image, SIZE_MAX);
    char text[512];
    fputs(".<br>\nChecks: ", fp);
    xml_text(fp, complexity_checks_text(r, text, sizeof(text)), SIZE_MAX);
    if (r->check.nclusters > 1) {
        fputs(".<br>\nClusters: ", fp);
        xml_text(fp, complexity_clusters_text(r, text, sizeof(text)), SIZE_MAX);
    }
    if (job->inline_plots) {
        fputs(".</p>\n", fp);
        struct plot_job pj = {job->c, r, job->o ? job->o->logscale : 0};
        if (inline_img(fp, emit_cost_plot, &pj, "cost plot", err) ||
            inline_img(fp, emit_freq_plot, &pj, "frequency plot", err))
            return -1;
        fputs("</section>\n", fp);
        return 0;
    }
    fprintf(fp,
            ".</p>\n<a href=\"%s.svg\"><img src=\"%s.svg\" alt=\"cost plot\"></a>\n"
            "<a href=\"%s-freq.svg\"><img src=\"%s-freq.svg\" alt=\"frequency plot\"></a>\n"
            "</section>\n",
            base, base, base, base);
    return 0;
}

static int emit_body(FILE *fp, const struct index_job *job, struct tally_error *err);

static int emit_index(FILE *fp, const void *ctx, struct tally_error *err)
{
    const struct index_job *job = ctx;
    const struct isprof *ip = job->ip;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", fp);
    fputs("tally complexity", fp);
    if (ip->app) {
        fputs(": ", fp);
        xml_text(fp, ip->app, SIZE_MAX);
    }
    fputs("</title>\n<style>\n"
          "body { font-family: sans-serif; margin: 1.5em; color: #222; }\n"
          "table { border-collapse: collapse; }\n"
          "th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; }\n"
          "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
          "th { text-align: left; background: #f3f3f3; }\n"
          "img { max-width: 48%; border: 1px solid #ddd; margin: 0.3em; }\n"
          "section { margin-top: 2em; }\n"
          "</style>\n</head>\n<body>\n<h1>Empirical complexity</h1>\n",
          fp);
    if (emit_body(fp, job, err)) return -1;
    fputs("</body>\n</html>\n", fp);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "cannot write index.html");
    return 0;
}

/* The page's content: what was measured, the ranking, then each plotted routine. */
static int emit_body(FILE *fp, const struct index_job *job, struct tally_error *err)
{
    const struct complexity *c = job->c;
    const struct isprof *ip = job->ip;
    char num[40], e[16], r2[16], cls[96];
    fputs("<p>", fp);
    if (ip->cmdline || ip->app) {
        fputs("Program: <code>", fp);
        xml_text(fp, ip->cmdline ? ip->cmdline : ip->app, SIZE_MAX);
        fputs("</code>. ", fp);
    }
    fprintf(fp, "Input size: %s", input_name(c));
    if (c->resolution) fprintf(fp, " (memory cells of %u bytes)", c->resolution);
    fprintf(fp, ". Cost: %s, %s. Program cost: %s. %zu routines ranked of %zu with tuples.",
            isprof_cost_name(c->metric), cost_kind(c), fmt_u64(c->program_total, num, sizeof(num)),
            c->nranked, c->nall);
    const struct complexity_options *f = job->o ? job->o->filters : NULL;
    if (f && f->min_share > 0)
        fprintf(fp,
                " Left out: %zu routine%s under %g%% of the program cost (--min-share=0 ranks "
                "them).",
                c->nbelow_share, c->nbelow_share == 1 ? "" : "s", f->min_share);
    fputs("</p>\n", fp);
    fputs("<table>\n<tr><th>Rank</th><th>Exponent</th><th>R<sup>2</sup></th><th>Class</th>"
          "<th>Sizes</th><th>Calls</th><th>Cost</th><th>Share</th><th>Routine</th>"
          "<th>Plots</th></tr>\n",
          fp);
    for (size_t i = 0; i < c->nranked; i++) {
        const struct complexity_routine *r = c->ranked[i];
        char base[128];
        plot_base(r, base, sizeof(base));
        fprintf(fp,
                "<tr><td class=\"num\">%zu</td><td class=\"num\">%s</td><td "
                "class=\"num\">%s</td><td>",
                r->rank, exponent_text(r, e, sizeof(e)), r2_text(r->power.r2, r2, sizeof(r2)));
        xml_text(fp, class_text(r, cls, sizeof(cls)), SIZE_MAX);
        fprintf(fp, "</td><td class=\"num\">%zu</td><td class=\"num\">%s</td>", r->npoints,
                fmt_u64(r->calls, num, sizeof(num)));
        fprintf(fp, "<td class=\"num\">%s</td><td class=\"num\">%.2f%%</td><td><a href=\"#%s\">",
                fmt_u64(r->total, num, sizeof(num)), r->share, base);
        xml_text(fp, r->name, SIZE_MAX);
        if (job->inline_plots)
            fprintf(fp, "</a></td><td><a href=\"#%s\">plots</a></td></tr>\n", base);
        else
            fprintf(fp,
                    "</a></td><td><a href=\"%s.svg\">cost</a> <a href=\"%s-freq.svg\">calls</a>"
                    "</td></tr>\n",
                    base, base);
    }
    fputs("</table>\n", fp);
    if (c->nranked == 0) fputs("<p>No routine passes the filters.</p>\n", fp);
    for (size_t i = 0; i < job->nplotted; i++)
        if (html_routine_section(fp, job, job->plotted[i], err)) return -1;
    return 0;
}

/* The ranked routines, then the chosen ones that are not ranked (caller frees). */
static const struct complexity_routine **
plotted_routines(const struct complexity *c, const struct complexity_report_options *o, size_t *n)
{
    const struct complexity_routine **list = xcalloc(c->nranked + o->ndetail + 1, sizeof(*list));
    *n = 0;
    for (size_t i = 0; i < c->nranked; i++)
        list[(*n)++] = c->ranked[i];
    for (size_t i = 0; i < o->ndetail; i++)
        if (!o->detail[i]->rank) list[(*n)++] = o->detail[i];
    return list;
}

int complexity_write_html_inline(const struct complexity *c, const struct isprof *ip,
                                 const struct complexity_report_options *o, FILE *fp,
                                 struct tally_error *err)
{
    size_t n;
    const struct complexity_routine **list = plotted_routines(c, o, &n);
    struct index_job job = {c, ip, o, list, n, 1};
    fputs("<div class=\"tally-complexity\">\n<style>\n"
          ".tally-complexity { padding: 8px; }\n"
          ".tally-complexity table { border-collapse: collapse; }\n"
          ".tally-complexity th, .tally-complexity td { padding: 0.2em 0.7em; "
          "border-bottom: 1px solid #ddd; }\n"
          ".tally-complexity td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
          ".tally-complexity th { text-align: left; background: #f3f3f3; }\n"
          ".tally-complexity img { max-width: 48%; border: 1px solid #ddd; margin: 0.3em; "
          "background: #fff; }\n"
          ".tally-complexity section { margin-top: 2em; }\n"
          "</style>\n",
          fp);
    int rc = emit_body(fp, &job, err);
    fputs("</div>\n", fp);
    free(list);
    if (!rc && ferror(fp)) rc = tally_error_set(err, NULL, 0, "cannot write the complexity plots");
    return rc;
}

int complexity_write_plots(const struct complexity *c, const struct isprof *ip,
                           const struct complexity_report_options *o, const char *dir,
                           struct tally_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return tally_error_set(err, dir, 0, "cannot create the directory: %s", strerror(errno));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return tally_error_set(err, dir, 0, "not a directory");
    size_t n;
    const struct complexity_routine **list = plotted_routines(c, o, &n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char base[128], name[160];
        plot_base(list[i], base, sizeof(base));
        struct plot_job job = {c, list[i], o->logscale};
        snprintf(name, sizeof(name), "%s.svg", base);
        rc = write_file(dir, name, emit_cost_plot, &job, err);
        if (rc) break;
        snprintf(name, sizeof(name), "%s-freq.svg", base);
        rc = write_file(dir, name, emit_freq_plot, &job, err);
    }
    if (rc == 0) {
        struct index_job job = {c, ip, o, list, n, 0};
        rc = write_file(dir, "index.html", emit_index, &job, err);
    }
    free(list);
    return rc;
}
