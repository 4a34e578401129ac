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
#define MARGIN_BOTTOM 58.0
#define TITLE_SIZE 15.0    /* font size of the title (bold) */
#define SUBTITLE_SIZE 12.0 /* and of the subtitle */
#define TITLE_LINES 3      /* lines a title may take */
#define SUBTITLE_LINES 4   /* and a subtitle */
#define TEXT_SIDE 12.0     /* space kept free at each side of a header line */

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
    double lo, hi; /* x range drawn (-inf, inf: the whole axis) */
    int dashed;
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
    p->o.title_tip = dup_or_null(o->title_tip);
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
    free((char *)p->o.title_tip);
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
    c->lo = -INFINITY;
    c->hi = INFINITY;
    c->dashed = 0;
}

void svgplot_set_curve_range(struct svgplot *p, double lo, double hi, int dashed)
{
    if (!p->ncurves) return;
    struct curve *c = &p->curves[p->ncurves - 1];
    c->lo = lo;
    c->hi = hi;
    c->dashed = dashed;
}

/* ---- text widths ---- */

/*
 * Advance widths of the printable ASCII characters in thousandths of the
 * font size, regular and bold: measured in Chromium with the sans-serif
 * family of a Debian system (DejaVu Sans, wider than Liberation Sans or
 * Arial), so that text estimated to fit does fit where it is narrower.
 */
static const unsigned short width_regular[95] = {
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361,  318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635,  611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352,  635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,  525, 636, 337, 636, 838};
static const unsigned short width_bold[95] = {
    348,  456, 521, 838, 696, 1002, 872, 306,  457, 457, 523, 838, 380, 415,  380, 365,
    696,  696, 696, 696, 696, 696,  696, 696,  696, 696, 400, 400, 838, 838,  838, 580,
    1000, 774, 762, 734, 830, 683,  683, 821,  837, 372, 372, 775, 637, 995,  837, 850,
    733,  850, 770, 720, 682, 812,  774, 1103, 771, 724, 725, 457, 365, 457,  838, 500,
    500,  675, 716, 593, 716, 678,  435, 716,  712, 343, 343, 665, 343, 1042, 712, 687,
    716,  716, 493, 595, 478, 712,  652, 924,  645, 652, 582, 712, 365, 712,  838};

double svgplot_text_width(const char *s, size_t len, double size, int bold)
{
    const unsigned short *w = bold ? width_bold : width_regular;
    double sum = 0;
    for (size_t i = 0; i < len && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 32 && c < 127)
            sum += w[c - 32];
        else if (c < 0x80 || c >= 0xc0)
            sum += 1000; /* a control character (shown as a space or '?') or a character
                            beyond ASCII (its first byte): a full em */
    }
    return sum * size / 1000.0 * 1.02; /* 2% for rounding and kerning */
}

/* ---- header lines ---- */

/* Bytes of the UTF-8 character starting at s (1 for a byte that starts none). */
static size_t utf8_len(const char *s)
{
    unsigned char c = (unsigned char)*s;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) return 1;
    return n;
}

/*
 * Whether a line may break before s[i]: 2 after a space or a comma, 1 after
 * "::", '(' or '<' (inside a C++ name), 0 not.
 */
static int break_before(const char *s, size_t i)
{
    if (i == 0) return 0;
    char p = s[i - 1];
    if (p == ' ' || p == ',') return 2;
    if (p == '(' || p == '<') return 1;
    return i >= 2 && p == ':' && s[i - 2] == ':' && s[i] != ':';
}

/*
 * `len` bytes of s shortened in the middle with an ellipsis to fit maxw:
 * its start and its end stay (a C++ name keeps its scope and its own
 * name). A new string.
 */
static char *fit_middle(const char *s, size_t len, double size, int bold, double maxw)
{
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 */
    if (svgplot_text_width(s, len, size, bold) <= maxw) return xstrndup(s, len);
    double avail = maxw - svgplot_text_width(ell, 3, size, bold);
    /* take characters from both ends in turn while they fit */
    size_t head = 0, tail = len;
    double used = 0;
    for (int turn = 0;; turn ^= 1) {
        size_t n;
        double w;
        if (turn == 0) {
            n = utf8_len(s + head);
            if (head + n > tail) break;
            w = svgplot_text_width(s + head, n, size, bold);
            if (used + w > avail) break;
            head += n;
        } else {
            n = 1;
            while (n < tail - head && n < 4 && ((unsigned char)s[tail - n] & 0xc0) == 0x80)
                n++;
            if (tail - n < head) break;
            w = svgplot_text_width(s + tail - n, n, size, bold);
            if (used + w > avail) break;
            tail -= n;
        }
        used += w;
    }
    return xasprintf("%.*s%s%.*s", (int)head, s, ell, (int)(len - tail), s + tail);
}

/*
 * Break s into at most maxlines lines of at most maxw pixels: greedily, at
 * the break points of break_before() (or anywhere, for a word longer than a
 * line), a newline forcing a break. What does not fit in the last line is
 * shortened in the middle. Fills lines[] (new strings); returns their count.
 */
static size_t wrap_text(const char *s, double size, int bold, double maxw, size_t maxlines,
                        char **lines)
{
    size_t n = 0, len = strlen(s), start = 0;
    while (start < len && n < maxlines) {
        size_t nl = start;
        while (nl < len && s[nl] != '\n')
            nl++;
        if (n + 1 == maxlines) { /* the last line takes the rest of the paragraph */
            lines[n++] = fit_middle(s + start, nl - start, size, bold, maxw);
            start = nl + 1;
            continue;
        }
        /* the last break after a space or a comma, unless that leaves the line under half
           full and a break inside a name comes later */
        size_t end = start, last_space = 0, last_name = 0;
        double w = 0, w_space = 0;
        while (end < nl) {
            size_t k = utf8_len(s + end);
            double cw = svgplot_text_width(s + end, k, size, bold);
            if (w + cw > maxw && end > start) break;
            w += cw;
            end += k;
            int b = end < nl ? break_before(s, end) : 0;
            if (b == 2) last_space = end, w_space = w;
            if (b) last_name = end;
        }
        if (end < nl) {
            if (last_space > start && (w_space >= maxw / 2 || last_name <= last_space))
                end = last_space;
            else if (last_name > start)
                end = last_name;
        }
        size_t trim = end;
        while (trim > start && s[trim - 1] == ' ')
            trim--;
        lines[n++] = xstrndup(s + start, trim - start);
        start = end;
        while (start < nl && s[start] == ' ')
            start++;
        if (start == nl) start = nl + 1;
    }
    return n;
}

/* Header lines (title then subtitle) and the height they take. */
struct header {
    char *title[TITLE_LINES], *sub[SUBTITLE_LINES];
    size_t ntitle, nsub;
    double height; /* from the top of the picture to the top of the plot area */
};

static void header_layout(const struct svgplot_options *o, double W, struct header *h)
{
    memset(h, 0, sizeof(*h));
    double maxw = W - 2 * TEXT_SIDE;
    if (o->title) h->ntitle = wrap_text(o->title, TITLE_SIZE, 1, maxw, TITLE_LINES, h->title);
    if (o->subtitle)
        h->nsub = wrap_text(o->subtitle, SUBTITLE_SIZE, 0, maxw, SUBTITLE_LINES, h->sub);
    h->height = 10 + 19 * (double)h->ntitle + 16 * (double)h->nsub + 10;
    if (h->height < 58) h->height = 58;
}

static void header_release(struct header *h)
{
    for (size_t i = 0; i < h->ntitle; i++)
        free(h->title[i]);
    for (size_t i = 0; i < h->nsub; i++)
        free(h->sub[i]);
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
            "stroke-width=\"2\"%s>\n",
            c->color, c->dashed ? " stroke-dasharray=\"7 4\"" : "");
    /* the samples span the axis, or the curve's own range within it */
    double lo = ax->lo, hi = ax->hi;
    if (usable(ax, c->lo) && axis_t(ax, c->lo) > lo) lo = axis_t(ax, c->lo);
    if (usable(ax, c->hi) && axis_t(ax, c->hi) < hi) hi = axis_t(ax, c->hi);
    int open = 0;
    for (int i = 0; i <= CURVE_SAMPLES && lo <= hi; i++) {
        double t = lo + (hi - lo) * i / CURVE_SAMPLES;
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
    size_t n = p->nseries + p->ncurves;
    if (n == 0) return;
    double x0 = ax->p0 + 8, y0 = ay->p1 + 8, textw = 0;
    for (size_t i = 0; i < p->nseries; i++)
        textw = fmax(textw, svgplot_text_width(p->series[i].name, SIZE_MAX, 11, 0));
    for (size_t i = 0; i < p->ncurves; i++)
        textw = fmax(textw, svgplot_text_width(p->curves[i].name, SIZE_MAX, 11, 0));
    double w = 34 + textw, h = 8 + 16 * (double)n;
    if (w > ax->p1 - ax->p0 - 16) w = ax->p1 - ax->p0 - 16;
    /* the corner that hides the fewest points: top left, bottom right, top right, bottom left
       (ties in that order) */
    double cx[4] = {ax->p0 + 8, ax->p1 - 8 - w, ax->p1 - 8 - w, ax->p0 + 8};
    double cy[4] = {ay->p1 + 8, ay->p0 - 8 - h, ay->p1 + 8, ay->p0 - 8 - h};
    size_t hidden[4] = {0, 0, 0, 0}, best = 0;
    for (size_t i = 0; i < p->nseries; i++) {
        const struct series *sr = &p->series[i];
        for (size_t j = 0; j < sr->n; j++) {
            if (!usable(ax, sr->x[j]) || !usable(ay, sr->y[j])) continue;
            double px = axis_px(ax, sr->x[j]), py = axis_px(ay, sr->y[j]);
            for (int c = 0; c < 4; c++)
                hidden[c] += px >= cx[c] - sr->radius && px <= cx[c] + w + sr->radius &&
                             py >= cy[c] - sr->radius && py <= cy[c] + h + sr->radius;
        }
    }
    for (int c = 1; c < 4; c++)
        if (hidden[c] < hidden[best]) best = (size_t)c;
    x0 = cx[best];
    y0 = cy[best];
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
                "stroke-width=\"2\"%s/>\n",
                x0 + 5, y - 4, x0 + 21, y - 4, p->curves[i].color,
                p->curves[i].dashed ? " stroke-dasharray=\"5 3\"" : "");
        put_text(fp, x0 + 26, y, "start", NULL, p->curves[i].name);
    }
    fputs("</g>\n", fp);
}

int svgplot_write(const struct svgplot *p, FILE *fp, struct tally_error *err)
{
    const struct svgplot_options *o = &p->o;
    double W = o->width, H = o->height;
    struct header hd;
    header_layout(o, W, &hd);
    /* a tall header takes from the plot, which keeps at least 80 pixels */
    double top = hd.height;
    if (H - MARGIN_BOTTOM - top < 80) H = top + MARGIN_BOTTOM + 80;
    struct axis ax = {.log = o->logx, .p0 = MARGIN_LEFT, .p1 = W - MARGIN_RIGHT};
    struct axis ay = {.log = o->logy, .p0 = H - MARGIN_BOTTOM, .p1 = top};
    size_t skipped = 0;
    axis_fit(&ax, p, 1, &skipped);
    axis_fit(&ay, p, 0, &skipped);

    if (!o->fragment) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", fp);
    fprintf(fp,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
            W, H, W, H);
    const char *tip = o->title_tip ? o->title_tip : o->title;
    if (tip) {
        fputs("<title>", fp);
        xml_text(fp, tip, SIZE_MAX);
        fputs("</title>\n", fp);
    }
    fprintf(fp,
            "<defs><clipPath id=\"plotarea\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/></clipPath></defs>\n",
            ax.p0, ay.p1, ax.p1 - ax.p0, ay.p0 - ay.p1);
    fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    /* the header: each line centred, the title's with the whole title as its tooltip */
    double y = 10;
    for (size_t i = 0; i < hd.ntitle; i++) {
        y += 19;
        fprintf(fp,
                "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                "font-size=\"%.0f\" font-weight=\"bold\"><title>",
                W / 2, y - 4, TITLE_SIZE);
        xml_text(fp, tip, SIZE_MAX);
        fputs("</title>", fp);
        xml_text(fp, hd.title[i], SIZE_MAX);
        fputs("</text>\n", fp);
    }
    for (size_t i = 0; i < hd.nsub; i++) {
        y += 16;
        put_text(fp, W / 2, y - 3, "middle", "class=\"subtitle\" font-size=\"12\"", hd.sub[i]);
    }
    header_release(&hd);
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
