/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svgplot.c - SVG charts of point series and curves (see svgplot.h).
 *
 * Values are mapped to pixels through an axis: on a logarithmic axis the
 * coordinate is log10(value), and the axis range is whole decades; on a
 * linear one the range is extended to whole multiples of the tick step.
 */
#include "svgplot.h"
#include "xmltext.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CURVE_SAMPLES 256
#define MARGIN_LEFT 78.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 58.0
#define MARGIN_BOTTOM 58.0

struct series {
    char *name, *color;
    enum svgplot_style style;
    double *x, *y;
    char **tips; /* NULL: automatic */
    size_t n;
    double radius;
};

struct curve {
    char *name, *color;
    double (*f)(double x, const void *ctx);
    const void *ctx;
};

struct svgplot {
    struct svgplot_options o; /* strings owned */
    struct series *series;
    size_t nseries, series_cap;
    struct curve *curves;
    size_t ncurves, curves_cap;
};

/* One axis: transformed range [lo, hi] mapped onto pixels [p0, p1]. */
struct axis {
    int log;
    double lo, hi, step; /* step: tick spacing in transformed units */
    double p0, p1;
};

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

struct svgplot *svgplot_new(const struct svgplot_options *o)
{
    struct svgplot *p = xcalloc(1, sizeof(*p));
    p->o = *o;
    p->o.title = dup_or_null(o->title);
    p->o.subtitle = dup_or_null(o->subtitle);
    p->o.xlabel = dup_or_null(o->xlabel);
    p->o.ylabel = dup_or_null(o->ylabel);
    if (!p->o.width) p->o.width = 720;
    if (!p->o.height) p->o.height = 450;
    if (p->o.width < 200) p->o.width = 200;
    if (p->o.height < 160) p->o.height = 160;
    return p;
}

void svgplot_free(struct svgplot *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->nseries; i++) {
        struct series *s = &p->series[i];
        free(s->name);
        free(s->color);
        free(s->x);
        free(s->y);
        if (s->tips)
            for (size_t j = 0; j < s->n; j++)
                free(s->tips[j]);
        free(s->tips);
    }
    for (size_t i = 0; i < p->ncurves; i++) {
        free(p->curves[i].name);
        free(p->curves[i].color);
    }
    free(p->series);
    free(p->curves);
    free((char *)p->o.title);
    free((char *)p->o.subtitle);
    free((char *)p->o.xlabel);
    free((char *)p->o.ylabel);
    free(p);
}

void svgplot_add_series(struct svgplot *p, const char *name, const char *color,
                        enum svgplot_style style, const double *x, const double *y, size_t n,
                        const char *const *tips)
{
    p->series = xgrow(p->series, &p->series_cap, p->nseries + 1, sizeof(*p->series));
    struct series *s = &p->series[p->nseries++];
    memset(s, 0, sizeof(*s));
    s->name = xstrdup(name ? name : "");
    s->color = xstrdup(color ? color : "#1f77b4");
    s->style = style;
    s->radius = 3.0;
    s->x = xmalloc((n ? n : 1) * sizeof(*s->x));
    s->y = xmalloc((n ? n : 1) * sizeof(*s->y));
    if (tips) s->tips = xcalloc(n ? n : 1, sizeof(*s->tips));
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) continue;
        s->x[s->n] = x[i];
        s->y[s->n] = y[i];
        if (tips) s->tips[s->n] = xstrdup(tips[i] ? tips[i] : "");
        s->n++;
    }
}

void svgplot_set_radius(struct svgplot *p, double r)
{
    if (p->nseries && r > 0 && r < 50) p->series[p->nseries - 1].radius = r;
}

void svgplot_add_curve(struct svgplot *p, const char *name, const char *color,
                       double (*f)(double x, const void *ctx), const void *ctx)
{
    p->curves = xgrow(p->curves, &p->curves_cap, p->ncurves + 1, sizeof(*p->curves));
    struct curve *c = &p->curves[p->ncurves++];
    c->name = xstrdup(name ? name : "");
    c->color = xstrdup(color ? color : "#000000");
    c->f = f;
    c->ctx = ctx;
}

char *svgplot_format_number(double v, char *buf, size_t size)
{
    static const char suffix[] = " kMGTPE";
    if (!isfinite(v)) {
        snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return buf;
    }
    int k = 0;
    while (fabs(v) >= 999.5 && k < 6) {
        v /= 1000.0;
        k++;
    }
    if (v == 0) v = 0; /* no "-0" */
    if (k)
        snprintf(buf, size, "%.3g%c", v, suffix[k]);
    else
        snprintf(buf, size, "%.3g", v);
    return buf;
}

/* ---- axes ---- */

static int usable(const struct axis *a, double v)
{
    return isfinite(v) && (!a->log || v > 0);
}

static double axis_t(const struct axis *a, double v)
{
    return a->log ? log10(v) : v;
}

static double axis_px(const struct axis *a, double v)
{
    return a->p0 + (axis_t(a, v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* A 1-2-5 step giving about five intervals over `span`. */
static double nice_step(double span)
{
    double raw = span / 5.0;
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
}

/* Fix the range from the data extremes (transformed: log10 for log axes). */
static void axis_range(struct axis *a, double mn, double mx, int have)
{
    if (!have) {
        mn = a->log ? 0.0 : 0.0;
        mx = 1.0;
    }
    if (a->log) {
        a->lo = floor(mn);
        a->hi = ceil(mx);
        if (a->hi <= a->lo) a->hi = a->lo + 1;
        double decades = a->hi - a->lo;
        a->step = decades <= 8 ? 1.0 : ceil(decades / 8.0);
        return;
    }
    if (mn >= 0) mn = 0;
    if (mx <= mn) mx = mn + (mn != 0 ? fabs(mn) : 1.0);
    a->step = nice_step(mx - mn);
    a->lo = floor(mn / a->step) * a->step;
    a->hi = ceil(mx / a->step) * a->step;
    if (a->hi <= a->lo) a->hi = a->lo + a->step;
}

static void axis_fit(struct axis *a, const struct svgplot *p, int is_x, size_t *skipped)
{
    double mn = INFINITY, mx = -INFINITY;
    int have = 0;
    for (size_t i = 0; i < p->nseries; i++) {
        const struct series *s = &p->series[i];
        for (size_t j = 0; j < s->n; j++) {
            double v = is_x ? s->x[j] : s->y[j];
            if (!usable(a, v)) {
                (*skipped)++;
                continue;
            }
            double t = axis_t(a, v);
            if (t < mn) mn = t;
            if (t > mx) mx = t;
            have = 1;
        }
    }
    axis_range(a, mn, mx, have);
}

/* ---- drawing ---- */

static void put_text(FILE *fp, double x, double y, const char *anchor, const char *extra,
                     const char *s)
{
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y, anchor,
            extra ? " " : "", extra ? extra : "");
    xml_text(fp, s, SIZE_MAX);
    fputs("</text>\n", fp);
}

static void draw_axes(FILE *fp, const struct axis *ax, const struct axis *ay,
                      const struct svgplot_options *o)
{
    char num[64];
    fputs("<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n", fp);
    for (double t = ax->lo; t <= ax->hi + ax->step * 1e-9; t += ax->step) {
        double px = ax->p0 + (t - ax->lo) / (ax->hi - ax->lo) * (ax->p1 - ax->p0);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, ay->p0, px,
                ay->p1);
    }
    for (double t = ay->lo; t <= ay->hi + ay->step * 1e-9; t += ay->step) {
        double py = ay->p0 + (t - ay->lo) / (ay->hi - ay->lo) * (ay->p1 - ay->p0);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ax->p0, py, ax->p1,
                py);
    }
    fputs("</g>\n", fp);
    fprintf(fp,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#444444\"/>\n",
            ax->p0, ay->p1, ax->p1 - ax->p0, ay->p0 - ay->p1);
    fputs("<g class=\"ticks\" font-size=\"11\" fill=\"#333333\">\n", fp);
    for (double t = ax->lo; t <= ax->hi + ax->step * 1e-9; t += ax->step) {
        double px = ax->p0 + (t - ax->lo) / (ax->hi - ax->lo) * (ax->p1 - ax->p0);
        double v = ax->log ? pow(10.0, t) : (fabs(t) < ax->step * 1e-9 ? 0.0 : t);
        put_text(fp, px, ay->p0 + 16, "middle", NULL, svgplot_format_number(v, num, sizeof(num)));
    }
    for (double t = ay->lo; t <= ay->hi + ay->step * 1e-9; t += ay->step) {
        double py = ay->p0 + (t - ay->lo) / (ay->hi - ay->lo) * (ay->p1 - ay->p0);
        double v = ay->log ? pow(10.0, t) : (fabs(t) < ay->step * 1e-9 ? 0.0 : t);
        put_text(fp, ax->p0 - 6, py + 4, "end", NULL, svgplot_format_number(v, num, sizeof(num)));
    }
    fputs("</g>\n", fp);
    if (o->xlabel) put_text(fp, (ax->p0 + ax->p1) / 2, ay->p0 + 40, "middle", NULL, o->xlabel);
    if (o->ylabel) {
        double cx = 18, cy = (ay->p0 + ay->p1) / 2;
        char rot[96];
        snprintf(rot, sizeof(rot), "transform=\"rotate(-90 %.1f %.1f)\"", cx, cy);
        put_text(fp, cx, cy, "middle", rot, o->ylabel);
    }
}

static void draw_marker(FILE *fp, double px, double py, double r, const char *color,
                        const char *tip)
{
    fprintf(fp, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\">", px, py, r, color);
    if (tip) {
        fputs("<title>", fp);
        xml_text(fp, tip, SIZE_MAX);
        fputs("</title>", fp);
    }
    fputs("</circle>\n", fp);
}

static int cmp_idx_x(const void *a, const void *b, void *ctx)
{
    const double *x = ctx;
    double u = x[*(const size_t *)a], v = x[*(const size_t *)b];
    return u < v ? -1 : u > v;
}

static void draw_series(FILE *fp, const struct series *s, const struct axis *ax,
                        const struct axis *ay, size_t index)
{
    char tip[512], nx[64], ny[64];
    fprintf(fp, "<g class=\"series\" id=\"series%zu\" fill-opacity=\"0.85\">\n", index);
    if (s->style == SVGPLOT_LINE && s->n > 1) {
        size_t *order = xmalloc(s->n * sizeof(*order));
        for (size_t i = 0; i < s->n; i++)
            order[i] = i;
        qsort_r(order, s->n, sizeof(*order), cmp_idx_x, s->x);
        fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"",
                s->color);
        int first = 1;
        for (size_t k = 0; k < s->n; k++) {
            size_t i = order[k];
            if (!usable(ax, s->x[i]) || !usable(ay, s->y[i])) continue;
            fprintf(fp, "%s%.2f,%.2f", first ? "" : " ", axis_px(ax, s->x[i]),
                    axis_px(ay, s->y[i]));
            first = 0;
        }
        fputs("\"/>\n", fp);
        free(order);
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!usable(ax, s->x[i]) || !usable(ay, s->y[i])) continue;
        double px = axis_px(ax, s->x[i]), py = axis_px(ay, s->y[i]);
        if (s->style == SVGPLOT_STEMS) {
            double base = ay->p0;
            if (!ay->log && ay->lo < 0 && ay->hi > 0) base = axis_px(ay, 0.0);
            fprintf(fp,
                    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                    "stroke-width=\"1.5\"/>\n",
                    px, base, px, py, s->color);
        }
        const char *t = s->tips ? s->tips[i] : NULL;
        if (!t) {
            snprintf(tip, sizeof(tip), "%s: x = %s, y = %s", s->name,
                     svgplot_format_number(s->x[i], nx, sizeof(nx)),
                     svgplot_format_number(s->y[i], ny, sizeof(ny)));
            t = tip;
        }
        draw_marker(fp, px, py, s->radius, s->color, t);
    }
    fputs("</g>\n", fp);
}

static void draw_curve(FILE *fp, const struct curve *c, const struct axis *ax,
                       const struct axis *ay)
{
    fprintf(fp,
            "<g class=\"curve\" clip-path=\"url(#plotarea)\" fill=\"none\" stroke=\"%s\" "
            "stroke-width=\"2\">\n",
            c->color);
    int open = 0;
    for (int i = 0; i <= CURVE_SAMPLES; i++) {
        double t = ax->lo + (ax->hi - ax->lo) * i / CURVE_SAMPLES;
        double x = ax->log ? pow(10.0, t) : t;
        double y = c->f(x, c->ctx);
        /* keep the line inside a sane band so clipping does the rest */
        int ok = usable(ay, y);
        double py = 0;
        if (ok) {
            py = axis_px(ay, y);
            double h = ay->p0 - ay->p1;
            if (py < ay->p1 - 4 * h) py = ay->p1 - 4 * h;
            if (py > ay->p0 + 4 * h) py = ay->p0 + 4 * h;
        }
        if (ok && !open) {
            fputs("<polyline points=\"", fp);
            open = 1;
        } else if (!ok && open) {
            fputs("\"/>\n", fp);
            open = 0;
        }
        if (ok) fprintf(fp, "%.2f,%.2f ", axis_px(ax, x), py);
    }
    if (open) fputs("\"/>\n", fp);
    fputs("</g>\n", fp);
}

static void draw_legend(FILE *fp, const struct svgplot *p, const struct axis *ax,
                        const struct axis *ay)
{
    size_t n = p->nseries + p->ncurves, maxlen = 0;
    if (n == 0) return;
    for (size_t i = 0; i < p->nseries; i++)
        if (strlen(p->series[i].name) > maxlen) maxlen = strlen(p->series[i].name);
    for (size_t i = 0; i < p->ncurves; i++)
        if (strlen(p->curves[i].name) > maxlen) maxlen = strlen(p->curves[i].name);
    double x0 = ax->p0 + 8, y0 = ay->p1 + 8;
    double w = 34 + 6.5 * (double)maxlen, h = 8 + 16 * (double)n;
    if (w > ax->p1 - ax->p0 - 16) w = ax->p1 - ax->p0 - 16;
    fprintf(fp, "<g class=\"legend\" font-size=\"11\">\n");
    fprintf(fp,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
            "fill-opacity=\"0.85\" stroke=\"#bbbbbb\"/>\n",
            x0, y0, w, h);
    double y = y0 + 16;
    for (size_t i = 0; i < p->nseries; i++, y += 16) {
        fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x0 + 13, y - 4,
                p->series[i].color);
        put_text(fp, x0 + 26, y, "start", NULL, p->series[i].name);
    }
    for (size_t i = 0; i < p->ncurves; i++, y += 16) {
        fprintf(fp,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n",
                x0 + 5, y - 4, x0 + 21, y - 4, p->curves[i].color);
        put_text(fp, x0 + 26, y, "start", NULL, p->curves[i].name);
    }
    fputs("</g>\n", fp);
}

int svgplot_write(const struct svgplot *p, FILE *fp, struct tally_error *err)
{
    const struct svgplot_options *o = &p->o;
    double W = o->width, H = o->height;
    struct axis ax = {.log = o->logx, .p0 = MARGIN_LEFT, .p1 = W - MARGIN_RIGHT};
    struct axis ay = {.log = o->logy, .p0 = H - MARGIN_BOTTOM, .p1 = MARGIN_TOP};
    size_t skipped = 0;
    axis_fit(&ax, p, 1, &skipped);
    axis_fit(&ay, p, 0, &skipped);

    if (!o->fragment) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", fp);
    fprintf(fp,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
            W, H, W, H);
    if (o->title) {
        fputs("<title>", fp);
        xml_text(fp, o->title, SIZE_MAX);
        fputs("</title>\n", fp);
    }
    fprintf(fp,
            "<defs><clipPath id=\"plotarea\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/></clipPath></defs>\n",
            ax.p0, ay.p1, ax.p1 - ax.p0, ay.p0 - ay.p1);
    fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    if (o->title)
        put_text(fp, W / 2, 22, "middle", "font-size=\"15\" font-weight=\"bold\"", o->title);
    if (o->subtitle) put_text(fp, W / 2, 41, "middle", "font-size=\"12\"", o->subtitle);
    draw_axes(fp, &ax, &ay, o);
    for (size_t i = 0; i < p->ncurves; i++)
        draw_curve(fp, &p->curves[i], &ax, &ay);
    for (size_t i = 0; i < p->nseries; i++)
        draw_series(fp, &p->series[i], &ax, &ay, i);
    draw_legend(fp, p, &ax, &ay);
    if (skipped) {
        char note[128];
        snprintf(note, sizeof(note), "%zu value%s not positive: not shown on the log scale",
                 skipped, skipped == 1 ? "" : "s");
        put_text(fp, W - MARGIN_RIGHT, H - 8, "end", "font-size=\"10\" fill=\"#666666\"", note);
    }
    fputs("</svg>\n", fp);
    if (ferror(fp)) return tally_error_set(err, NULL, 0, "cannot write the SVG plot");
    return 0;
}
